#!/usr/bin/env python3
"""Fails when CTest skipped a test that CI must run.

    .ci/check_skips.py JUNIT BUILD_DIR

JUNIT is the file `ctest --output-junit` wrote for the tests of BUILD_DIR (./dev.sh test writes
build-test/ctest-results.xml). Only tests labelled needs-npm-registry may be skipped: every other test
that can skip needs a Debian package, and ./dev.sh test installs them all (docs/DECISIONS.md, "Skipped
tests"). Prints each skipped test with the line it gave; exits 1 if any may not be skipped.
"""
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

ALLOWED_LABEL = "needs-npm-registry"


def labelled(build_dir, label):
    # JUnit carries no labels; CTest's own listing of the build does.
    listing = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build_dir, check=True, capture_output=True,
                             text=True).stdout
    names = set()
    for test in json.loads(listing)["tests"]:
        for prop in test.get("properties", []):
            if prop["name"] == "LABELS" and label in prop["value"]:
                names.add(test["name"])
    return names


def reason(case):
    """The test's own "skipped" line, else what CTest says (e.g. SKIP_RETURN_CODE=77)."""
    for line in (case.findtext("system-out") or "").splitlines():
        if line.startswith("skipped"):
            return line
    return case.find("skipped").get("message", "not run")


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    junit, build_dir = sys.argv[1:]
    try:
        cases = ET.parse(junit).getroot().iter("testcase")
    except (OSError, ET.ParseError) as error:
        print(f"check_skips: cannot read CTest's results {junit}: {error}", file=sys.stderr)
        return 2
    skipped = [(case.get("name"), reason(case)) for case in cases if case.find("skipped") is not None]
    allowed = labelled(build_dir, ALLOWED_LABEL)
    refused = [(name, why) for name, why in skipped if name not in allowed]
    for name, why in skipped:
        if name in allowed:
            print(f"check_skips: {name} skipped, allowed ({ALLOWED_LABEL}): {why}")
    if refused:
        print(f"check_skips: {len(refused)} test(s) skipped although ./dev.sh test installs what they need:")
        for name, why in refused:
            print(f"  {name}: {why}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
