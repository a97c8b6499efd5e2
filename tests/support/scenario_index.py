#!/usr/bin/env python3
"""Writes the "Index by finding id" of tests/scenarios/README.md from the scenarios and rules/findings.toml,
so that the index cannot drift from the files it describes.

    scenario_index.py REPO          rewrite the section in place
    scenario_index.py REPO --check  exit 1, naming the difference, when the README is not current
"""
import sys
import textwrap
import tomllib
from pathlib import Path

START = "## Index by finding id\n"
END = "## Index by feature\n"


def index(repo: Path) -> str:
    findings = tomllib.loads((repo / "rules/findings.toml").read_text())["finding"]
    exact: dict[str, set[str]] = {}
    required: dict[str, set[str]] = {}
    silent: list[str] = []
    for path in sorted((repo / "tests/scenarios").glob("*.toml")):
        scenario = tomllib.loads(path.read_text())
        ids = scenario.get("finding_ids")
        if ids == []:
            silent.append(path.stem)
        for finding_id in ids or []:
            exact.setdefault(finding_id, set()).add(path.stem)
        for table in scenario.get("findings", []):
            required.setdefault(table["id"], set()).add(path.stem)
    lines = []
    for finding in findings:
        finding_id = finding["id"]
        named = sorted(exact.get(finding_id, ()))
        only = sorted(required.get(finding_id, set()) - set(named))
        text = f"- `{finding_id}` ({finding['title']}): "
        if not named and not only:
            text += "none"
        text += ", ".join(named)
        if only:
            text += ("; " if named else "") + "`[[findings]]` only: " + ", ".join(only)
        lines.extend(textwrap.wrap(text, 120, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False))
    intro = """Every finding id in `rules/findings.toml`, in its order there, with its title and the scenarios whose `finding_ids` hold
it. After "`[[findings]]` only" come the scenarios that have no `finding_ids` but require the finding in a
`[[findings]]` table: they check the finding, but not that it is the only one. "none" marks an id that no scenario
checks. The `sdk-*` findings come from `dlldoctor sdk` and are checked by `tests/sdk/sdk_test.cpp`; `probe-differs`
comes from `dlldoctor probe` and is checked by `tests/unit/probe_comparison_test.cpp` and
`tests/wine/windows_exe_test.cpp`. Written by `tests/support/scenario_index.py` (ctest `scenario_index` checks
that it is current).
"""
    tail = textwrap.wrap("These scenarios have `finding_ids = []`: the run must report no finding at all: "
                         + ", ".join(silent) + ".", 120, break_on_hyphens=False, break_long_words=False)
    return START + "\n" + intro + "\n" + "\n".join(lines) + "\n\n" + "\n".join(tail) + "\n\n"


def main() -> int:
    repo = Path(sys.argv[1])
    readme = repo / "tests/scenarios/README.md"
    text = readme.read_text()
    start, end = text.index(START), text.index(END)
    current = text[start:end]
    wanted = index(repo)
    if "--check" in sys.argv[2:]:
        if current == wanted:
            return 0
        import difflib
        sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), wanted.splitlines(True),
                                                   "README.md", "scenario_index.py"))
        print("tests/scenarios/README.md: the finding index is not current; run tests/support/scenario_index.py .")
        return 1
    readme.write_text(text[:start] + wanted + text[end:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
