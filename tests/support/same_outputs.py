#!/usr/bin/env python3
"""Runs two dlldoctor binaries side by side on every scenario and the other commands, and says where their
outputs differ: the check that a change meant to move code (a refactoring) changed no byte a user sees.

    tests/support/same_outputs.py OLD_BINARY NEW_BINARY TREES [--only NAME...]

TREES is a folder of built scenario trees (a build's tests/scenario-trees, left by `ctest -R scenarios`); the
scenarios are read from tests/scenarios/*.toml beside this script. Each closure scenario is run in every
--format (text, json, markdown, dot, html), and with --fix-script; a --scan or sdk scenario in its command's
formats. Then the bundled example (examples/broken-cudnn beside TREES' build), --scan of it, sdk of its cuDNN
folder, recipes and --version, each in every format. Exit status, stdout, stderr and the files written are
compared; only what differs between two runs of one binary is left out: generated_at and the commit. Each
binary runs from a copy, with the rules folder beside it, in folders of the same length.
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE.parent / "scenarios"
CLOSURE_FORMATS = ["text", "json", "markdown", "dot", "html"]
SCAN_FORMATS = ["text", "json", "markdown", "html"]
SDK_FORMATS = ["text", "json"]


# --rules-edited: the rule files' texts changed, so the lines their definitions start on and the built-in
# rules' version differ as well; those are left out too, the rest of what the rules say is compared.
RULES_EDITED = False


def normalise(text: str, binary: Path) -> str:
    text = re.sub(r'"generated_at": "[^"]*"', '"generated_at": "-"', text)
    if RULES_EDITED:
        text = re.sub(r"(rules[/\\][a-z_0-9]+\.toml):[0-9]+", r"\1:<line>", text)
        text = re.sub(r"built-in [0-9a-f]{12}", "built-in <version>", text)
        text = re.sub(r'"builtin_version": "[0-9a-f]{12}"', '"builtin_version": "<version>"', text)
    text = re.sub(r"(commit[\"]?:? ?\"?)[0-9a-f]{7,40}(\+changes)?", r"\1<commit>", text)
    return text.replace(str(binary.parent), "<bindir>")


def run(binary: Path, args, cwd: Path, workdir: Path):
    """The exit status, stdout, stderr and every file the run wrote into workdir."""
    for old in workdir.glob("*"):
        old.unlink()
    argv = [str(binary)] + [a.replace("{out}", str(workdir)) for a in args]
    result = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=600)
    files = {p.name: p.read_bytes().decode("utf-8", "replace") for p in sorted(workdir.glob("*"))}
    out = result.stdout.decode("utf-8", "replace")
    err = result.stderr.decode("utf-8", "replace")
    return (result.returncode, normalise(out, binary), normalise(err, binary),
            {k: normalise(v, binary) for k, v in files.items()})


def expand(arg: str, root: Path, fixtures: Path) -> str:
    return arg.replace("{root}", str(root)).replace("{fixtures}", str(fixtures))


def commands(trees: Path, only):
    """(label, args, cwd) for every run to compare."""
    build = trees.parent.parent
    fixtures = build / "fixtures"
    for toml in sorted(SCENARIOS.glob("*.toml")):
        name = toml.stem
        if only and name not in only:
            continue
        scenario = tomllib.loads(toml.read_text())
        root = trees / name
        if not root.is_dir():
            raise SystemExit(f"{root}: no tree (run ctest -R scenarios in that build first)")
        args = [expand(a, root, fixtures) for a in scenario["run"]["args"]]
        cwd = root / scenario["run"].get("cwd", "")
        cwd.mkdir(parents=True, exist_ok=True)
        if "--scan" in args:
            formats = SCAN_FORMATS
        elif args and args[0] in ("sdk", "--sdk"):
            formats = SDK_FORMATS
        else:
            formats = CLOSURE_FORMATS
        for fmt in formats:
            yield f"{name} --format {fmt}", args + ["--format", fmt], cwd
        if formats is CLOSURE_FORMATS:
            yield f"{name} --fix-script", args + ["--fix-script", "{out}/fix.ps1", "-o", "{out}/report.txt"], cwd
    if only:
        return
    example = build / "examples" / "broken-cudnn"
    path = ["--path", str(example / "cuda/bin"), "--path", str(example / "cudnn/bin")]
    for fmt in CLOSURE_FORMATS:
        yield f"example --format {fmt}", [str(example / "app/app.exe")] + path + ["--format", fmt], example
    for fmt in SCAN_FORMATS:
        yield f"example --scan --format {fmt}", ["--scan", str(example)] + path + ["--format", fmt], example
        yield f"example --scan alone --format {fmt}", ["--scan", str(example), "--format", fmt], example
    for fmt in SDK_FORMATS:
        yield f"example sdk --format {fmt}", ["sdk", str(example / "cudnn"), "--format", fmt], example
    for fmt in ("text", "json"):
        yield f"recipes --format {fmt}", ["recipes", "--format", fmt], example
        yield f"--version --format {fmt}", ["--version", "--format", fmt], example


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("trees", type=Path)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--rules-edited", action="store_true",
                        help="leave out the rule files' line numbers and the built-in rules' version")
    options = parser.parse_args()
    global RULES_EDITED
    RULES_EDITED = options.rules_edited
    compared = differ = 0
    with tempfile.TemporaryDirectory() as scratch:
        # Each binary with the rules folder beside it, in folders whose paths are as long as each other's: a
        # report names the rules folder, and a longer path would wrap a line elsewhere.
        binaries = {}
        for side, given in (("old", options.old), ("new", options.new)):
            home = Path(scratch, side, "bin")
            home.mkdir(parents=True)
            shutil.copy2(given, home / given.name)
            if (given.resolve().parent / "rules").is_dir():
                shutil.copytree(given.resolve().parent / "rules", home / "rules")
            binaries[side] = home / given.name
        old_dir, new_dir = Path(scratch, "old", "out"), Path(scratch, "new", "out")
        old_dir.mkdir()
        new_dir.mkdir()
        for label, args, cwd in commands(options.trees.resolve(), set(options.only)):
            before = run(binaries["old"], args, cwd, old_dir)
            after = run(binaries["new"], args, cwd, new_dir)
            compared += 1
            if before == after:
                continue
            differ += 1
            print(f"DIFFERS: {label}")
            for part, a, b in zip(("exit", "stdout", "stderr", "files"), before, after):
                if a == b:
                    continue
                if isinstance(a, dict):
                    a, b = "".join(f"== {k}\n{v}" for k, v in a.items()), "".join(f"== {k}\n{v}" for k, v in b.items())
                lines = list(difflib.unified_diff(str(a).splitlines(), str(b).splitlines(), "old", "new", n=1,
                                                  lineterm=""))
                print(f"  {part}:\n    " + "\n    ".join(lines[2:24]))
    print(f"{compared} runs compared (each: exit status, stdout, stderr, files written), {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
