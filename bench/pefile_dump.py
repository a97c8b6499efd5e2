#!/usr/bin/python3
"""pefile_dump: the "pefile" peer of the dlldoctor benchmark.

Parses each FILE with pefile and prints what `dlldoctor inspect` reports:
machine, imports, delay imports, exports and the version resource.

By default only the directories we print are parsed (fast_load +
parse_data_directories), which is how a careful pefile user would write an
import/export dumper.  With --full it uses plain pefile.PE(path), as most
scripts do: that parses every directory and also counts every byte of the
file for its "suspicious padding" heuristics, so its cost grows with file
size.

Usage: pefile_dump.py [--full] FILE...

Run with Debian's /usr/bin/python3 (python3-pefile); a pyenv `python3`
earlier on PATH usually lacks the module.
"""
import sys

import pefile

DIRS = [
    pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_IMPORT"],
    pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_DELAY_IMPORT"],
    pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_EXPORT"],
    pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_RESOURCE"],
]


def _s(b):
    return b.decode("latin-1") if isinstance(b, bytes) else str(b)


def dump(path, out, full):
    pe = pefile.PE(path, fast_load=not full)
    try:
        if not full:
            pe.parse_data_directories(directories=DIRS)
        out.write(f"{path}\n  machine: 0x{pe.FILE_HEADER.Machine:04x}\n")
        for attr, label in (("DIRECTORY_ENTRY_IMPORT", "import"),
                            ("DIRECTORY_ENTRY_DELAY_IMPORT", "delay import")):
            for entry in getattr(pe, attr, []):
                out.write(f"  {label} {_s(entry.dll)}\n")
                for imp in entry.imports:
                    if imp.name is None:
                        out.write(f"    #{imp.ordinal}\n")
                    else:
                        out.write(f"    {_s(imp.name)}\n")
        exp = getattr(pe, "DIRECTORY_ENTRY_EXPORT", None)
        if exp is not None:
            out.write(f"  exports of {_s(exp.name)}\n")
            for sym in exp.symbols:
                out.write(f"    {sym.ordinal:5} {_s(sym.name) if sym.name else ''}\n")
        # pefile decodes VS_VERSIONINFO only in parse_version_information,
        # which parse_data_directories(RESOURCE) calls; the result lands here.
        for info in getattr(pe, "VS_FIXEDFILEINFO", []) or []:
            ms, ls = info.FileVersionMS, info.FileVersionLS
            out.write(f"  version {ms >> 16}.{ms & 0xffff}.{ls >> 16}.{ls & 0xffff}\n")
    finally:
        pe.close()


def main(argv):
    args = argv[1:]
    full = bool(args) and args[0] == "--full"
    if full:
        args = args[1:]
    if not args:
        sys.stderr.write(f"usage: {argv[0]} [--full] FILE...\n")
        return 2
    rc = 0
    for path in args:
        try:
            dump(path, sys.stdout, full)
        except pefile.PEFormatError as e:
            sys.stderr.write(f"pefile_dump: {path}: {e}\n")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
