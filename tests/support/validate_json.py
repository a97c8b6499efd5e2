#!/usr/bin/python3
"""Validates JSON files against a JSON Schema with python3-jsonschema, an implementation independent of
dlldoctor's writers. Usage: validate_json.py [--defs-from OTHER] SCHEMA FILE... Prints one line per invalid
file and the closing count; exit status 1 when any file is invalid. --defs-from: the $defs of OTHER that
SCHEMA does not define itself are added to it (check-schema.json shares the program report's)."""
import json
import sys

import jsonschema


def main():
    args = sys.argv[1:]
    shared = {}
    if args[:1] == ["--defs-from"]:
        shared = json.load(open(args[1], encoding="utf-8")).get("$defs", {})
        args = args[2:]
    schema = json.load(open(args[0], encoding="utf-8"))
    defs = schema.setdefault("$defs", {})
    for name, definition in shared.items():
        defs.setdefault(name, definition)
    validator = jsonschema.Draft202012Validator(schema)
    failed = 0
    files = args[1:]
    for path in files:
        errors = sorted(validator.iter_errors(json.load(open(path, encoding="utf-8"))), key=lambda e: list(e.path))
        for error in errors[:5]:
            print(f"{path}: /{'/'.join(str(p) for p in error.path)}: {error.message}")
        failed += bool(errors)
    print(f"{len(files) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
