#!/usr/bin/python3
"""Validates JSON files against a JSON Schema with python3-jsonschema, an implementation independent of
dlldoctor's writers. Usage: validate_json.py SCHEMA FILE... Prints one line per invalid file and the
closing count; exit status 1 when any file is invalid."""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1], encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    failed = 0
    for path in sys.argv[2:]:
        errors = sorted(validator.iter_errors(json.load(open(path, encoding="utf-8"))), key=lambda e: list(e.path))
        for error in errors[:5]:
            print(f"{path}: /{'/'.join(str(p) for p in error.path)}: {error.message}")
        failed += bool(errors)
    print(f"{len(sys.argv) - 2 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
