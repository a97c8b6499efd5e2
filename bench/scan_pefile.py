#!/usr/bin/python3
"""The pefile peer of `dlldoctor --scan DIR --all-dlls` (bench/scan.sh).

Usage: scan_pefile.py DIR...

Walks each DIR with os.walk (links not followed, as dlldoctor), takes the
same names dlldoctor does (*.dll, also *.dll.bak/.old/.orig/.backup, any
case), reads machine and FILEVERSION of each with pefile (fast_load, then
the resource directory only) and prints one line per copy, grouped by DLL
name like dlldoctor: "name<TAB>path<TAB>machine<TAB>version".
"""
import os
import sys

import pefile

BACKUP = (".bak", ".old", ".orig", ".backup")
RESOURCE = pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_RESOURCE"]


def dll_key(name):
    lower = name.lower()
    for suffix in BACKUP:
        if len(lower) > len(suffix) and lower.endswith(suffix):
            lower = lower[:-len(suffix)]
            break
    return lower if len(lower) > 4 and lower.endswith(".dll") else None


def read(path):
    try:
        pe = pefile.PE(path, fast_load=True)
    except (pefile.PEFormatError, OSError) as e:
        return "-", f"error: {e}"
    try:
        machine = f"0x{pe.FILE_HEADER.Machine:04x}"
        pe.parse_data_directories(directories=[RESOURCE])
        version = "-"
        for info in getattr(pe, "VS_FIXEDFILEINFO", None) or []:
            ms, ls = info.FileVersionMS, info.FileVersionLS
            version = f"{ms >> 16}.{ms & 0xFFFF}.{ls >> 16}.{ls & 0xFFFF}"
            break
        return machine, version
    finally:
        pe.close()


def main(argv):
    found = []
    for root in argv[1:]:
        for folder, _, names in os.walk(root):
            for name in names:
                key = dll_key(name)
                if key is None:
                    continue
                path = os.path.join(folder, name)
                if os.path.islink(path):
                    continue
                found.append((key, path, *read(path)))
    found.sort()
    out = sys.stdout
    for key, path, machine, version in found:
        out.write(f"{key}\t{path}\t{machine}\t{version}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
