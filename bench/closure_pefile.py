#!/usr/bin/python3
"""The pefile peer of bench/closure.sh: the DLL closure of a program.

Usage: closure_pefile.py PROGRAM

Reads PROGRAM with pefile (fast_load, then the import, delay import,
export and resource directories: what dlldoctor needs to check imported
names against exports and versions), and follows every imported DLL name
found in PROGRAM's folder (any case), once per file.  Prints each file with
machine, version, its imports (and how many functions) and its export
count; "(not in folder)" for names it cannot follow (system DLLs).
"""
import os
import sys

import pefile

DIRS = [pefile.DIRECTORY_ENTRY[d] for d in (
    "IMAGE_DIRECTORY_ENTRY_IMPORT", "IMAGE_DIRECTORY_ENTRY_DELAY_IMPORT",
    "IMAGE_DIRECTORY_ENTRY_EXPORT", "IMAGE_DIRECTORY_ENTRY_RESOURCE")]


def read(path):
    pe = pefile.PE(path, fast_load=True)
    try:
        pe.parse_data_directories(directories=DIRS)
        version = "-"
        for info in getattr(pe, "VS_FIXEDFILEINFO", None) or []:
            ms, ls = info.FileVersionMS, info.FileVersionLS
            version = f"{ms >> 16}.{ms & 0xFFFF}.{ls >> 16}.{ls & 0xFFFF}"
        imports = []
        for attr in ("DIRECTORY_ENTRY_IMPORT", "DIRECTORY_ENTRY_DELAY_IMPORT"):
            for entry in getattr(pe, attr, []):
                names = [i.name.decode("latin-1") if i.name else f"#{i.ordinal}" for i in entry.imports]
                imports.append((entry.dll.decode("latin-1"), names))
        exp = getattr(pe, "DIRECTORY_ENTRY_EXPORT", None)
        exports = len(exp.symbols) if exp is not None else 0
        return f"0x{pe.FILE_HEADER.Machine:04x}", version, imports, exports
    finally:
        pe.close()


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(f"usage: {argv[0]} PROGRAM\n")
        return 2
    folder = os.path.dirname(argv[1]) or "."
    in_folder = {n.lower(): os.path.join(folder, n) for n in os.listdir(folder)}
    seen = {os.path.basename(argv[1]).lower()}
    todo = [argv[1]]
    out = sys.stdout
    while todo:
        path = todo.pop(0)
        machine, version, imports, exports = read(path)
        out.write(f"{path} machine {machine} version {version} exports {exports}\n")
        for dll, names in imports:
            lower = dll.lower()
            if lower not in in_folder:
                out.write(f"  {dll} ({len(names)} functions, not in folder)\n")
                continue
            out.write(f"  {dll} ({len(names)} functions)\n")
            if lower not in seen:
                seen.add(lower)
                todo.append(in_folder[lower])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
