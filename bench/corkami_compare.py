#!/usr/bin/python3
"""How dlldoctor reads corkami's odd-but-loadable PE files (corkami/pocs PE/bin), against pefile.

    bench/corkami_compare.py DLLDOCTOR FOLDER [--sysroot DIR]

FOLDER holds corkami's files (PE/bin, or the same files assembled from PE/*.asm; none of them is in this
repository). For each file it compares `dlldoctor inspect --format json` with pefile (Debian's
python3-pefile, run by /usr/bin/python3) on the imports, delay imports and export names, and prints SAME or
DIFF with the two readings. With --sysroot (a folder holding Windows/System32 and, for the 32-bit files,
Windows/SysWOW64) it also runs the whole diagnosis on every .exe and prints its exit status and first line:
every one of these programs loads on Windows 7 or later unless its name says XP, so an error verdict is a
misread to look at. docs/DECISIONS.md, "corkami's files, rebuilt", has the last count.
"""
import argparse
import json
import os
import subprocess
import sys

import pefile


def function_name(name, ordinal):
    return name if name is not None else "#%d" % ordinal


def dlldoctor_reading(dlldoctor, path):
    run = subprocess.run([dlldoctor, "inspect", path, "--format", "json"], capture_output=True, text=True)
    if run.returncode != 0:
        return {"error": (run.stderr or run.stdout).strip()}
    report = json.loads(run.stdout)

    def dlls(key):
        return [(d["dll"].lower(), [function_name(f.get("name"), f.get("ordinal")) for f in d["functions"]])
                for d in report.get(key) or []]

    exports = (report.get("exports") or {}).get("items") or []
    return {"imports": dlls("imports"), "delay": dlls("delay_imports"),
            "exports": sorted(e["name"] for e in exports if e.get("name") is not None)}


def pefile_reading(path):
    try:
        pe = pefile.PE(path)
    except pefile.PEFormatError as error:
        return {"error": str(error)}

    def dlls(entries):
        return [(e.dll.decode("latin1").lower(),
                 [function_name(i.name.decode("latin1") if i.name is not None else None, i.ordinal)
                  for i in e.imports]) for e in entries]

    exports = []
    if hasattr(pe, "DIRECTORY_ENTRY_EXPORT"):
        exports = sorted(s.name.decode("latin1") for s in pe.DIRECTORY_ENTRY_EXPORT.symbols if s.name is not None)
    return {"imports": dlls(getattr(pe, "DIRECTORY_ENTRY_IMPORT", [])),
            "delay": dlls(getattr(pe, "DIRECTORY_ENTRY_DELAY_IMPORT", [])), "exports": exports}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dlldoctor")
    parser.add_argument("folder")
    parser.add_argument("--sysroot")
    args = parser.parse_args()
    names = sorted(n for n in os.listdir(args.folder) if n.lower().endswith((".exe", ".dll", ".sys")))
    same = 0
    for name in names:
        path = os.path.join(args.folder, name)
        ours, theirs = dlldoctor_reading(args.dlldoctor, path), pefile_reading(path)
        differences = [part for part in ("error", "imports", "delay", "exports") if ours.get(part) != theirs.get(part)]
        same += not differences
        print(("SAME " if not differences else "DIFF ") + name)
        for part in differences:
            print("    %s: dlldoctor %s | pefile %s" % (part, json.dumps(ours.get(part)), json.dumps(theirs.get(part))))
    print("%d of %d files read as pefile reads them" % (same, len(names)))
    if not args.sysroot:
        return 0
    failing = 0
    programs = [n for n in names if n.lower().endswith(".exe")]
    for name in programs:
        run = subprocess.run([args.dlldoctor, os.path.join(args.folder, name), "--sysroot", args.sysroot,
                              "--no-color"], capture_output=True, text=True)
        failing += run.returncode != 0
        print("%d %s: %s" % (run.returncode, name, ((run.stdout or run.stderr).splitlines() or [""])[0]))
    print("%d of %d programs get an error verdict" % (failing, len(programs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
