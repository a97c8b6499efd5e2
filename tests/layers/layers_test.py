#!/usr/bin/env python3
"""Every layer of dlldoctor calls only itself and the layers below it (src/CMakeLists.txt, dlldoctor_layer).

    tests/layers/layers_test.py LIBRARY_DIR NAME:BELOW,BELOW ...

LIBRARY_DIR holds libdlldoctor_NAME.a for each layer. A symbol a layer's archive needs (nm -u) that another
layer's archive defines (nm --defined-only) is a call; it must go to the layer itself or one below it,
directly or through the layers below those. A layer that calls one above it would link only by the accident
of another layer pulling the callee in first: this names every such call.
"""
import subprocess
import sys
from pathlib import Path


def symbols(archive: Path, *options):
    out = subprocess.run(["nm", "--format=posix", "--no-sort", *options, str(archive)], capture_output=True,
                         text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        # "name type [value size]"; archive member headers end with ':' ("reader.cpp.o:")
        if len(parts) >= 2 and not parts[0].endswith(":"):
            names.add((parts[0], parts[1]))
    return names


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    folder = Path(sys.argv[1])
    below = {}
    for spec in sys.argv[2:]:
        name, _, lower = spec.partition(":")
        below[name] = [b for b in lower.replace(";", ",").split(",") if b]
    reach = {}

    def reachable(name):
        if name not in reach:
            found = set()
            for lower in below[name]:
                found |= {lower} | reachable(lower)
            reach[name] = found
        return reach[name]

    defined, needed = {}, {}
    for name in below:
        archive = folder / f"libdlldoctor_{name}.a"
        if not archive.exists():
            raise SystemExit(f"{archive}: no such archive (build every layer first)")
        # Text, data and read-only data a member defines (weak template instances too: a layer may call one
        # of its own); the undefined ones are what it calls.
        defined[name] = {s for s, t in symbols(archive, "--defined-only") if t in "TDRBVWtdrbvw"}
        needed[name] = {s for s, t in symbols(archive, "--undefined-only")}
    problems = []
    for name in below:
        allowed = {name} | reachable(name)
        for symbol in sorted(needed[name]):
            if any(symbol in defined[a] for a in allowed):
                continue
            owners = [other for other in below if other not in allowed and symbol in defined[other]]
            if owners:
                problems.append(f"{name} calls {', '.join(owners)}: {symbol}")
    for problem in problems:
        print(problem)
    print(f"{len(below)} layers, {sum(len(n) for n in needed.values())} symbols they need: "
          f"{len(problems)} call{'' if len(problems) == 1 else 's'} up")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
