#!/usr/bin/env python3
"""Writes docs/findings/: one page per finding id of rules/findings.toml (what it means, the texts users see,
how to fix it by hand, the scenarios that show it) and an index, from the rules themselves, so that a page
cannot drift from what dlldoctor says. The Markdown and HTML reports link each finding to its page.

    finding_pages.py REPO          rewrite docs/findings/
    finding_pages.py REPO --check  exit 1, naming the page, when docs/findings/ is not current
"""
import re
import sys
import tomllib
from pathlib import Path


def load(repo: Path, name: str) -> dict:
    return tomllib.loads((repo / "rules" / name).read_text())


def shown(template: str) -> str:
    # {placeholder} -> <placeholder>: what the report fills in with this machine's paths and names.
    return re.sub(r"\{([a-z_]+)\}", r"<\1>", template)


def variants(finding: dict, key: str) -> list[tuple[str, object]]:
    value = finding.get(key, {})
    if not isinstance(value, dict):
        return [("default", value)]
    return sorted(value.items(), key=lambda item: (item[0] != "default", item[0]))


def framework_texts(repo: Path) -> list[str]:
    # What Python and node print for a failed load (recipe steps' and profiles' `says`), once each.
    texts: list[str] = []
    for path in sorted((repo / "rules").glob("*.toml")):
        data = tomllib.loads(path.read_text())
        for recipe in data.get("recipe", []):
            for step in recipe.get("step", []):
                if isinstance(step.get("says"), str) and step["says"] not in texts:
                    texts.append(step["says"])
        for profile in data.get("profile", []):
            if isinstance(profile.get("says"), str) and profile["says"] not in texts:
                texts.append(profile["says"])
    return texts


def scenarios_showing(repo: Path, finding_id: str) -> list[str]:
    names = []
    for path in sorted((repo / "tests/scenarios").glob("*.toml")):
        scenario = tomllib.loads(path.read_text())
        ids = set(scenario.get("finding_ids") or []) | {f["id"] for f in scenario.get("findings", [])}
        if finding_id in ids:
            names.append(path.stem)
    return names


def page(repo: Path, finding: dict, modes: dict, errors: dict, says: list[str]) -> str:
    fid = finding["id"]
    mode = modes.get(finding["failure_mode"], {})
    lines = [f"# `{fid}`: {finding['title']}", "",
             "<!-- Written by tests/support/finding_pages.py from rules/findings.toml; edit the rules, not this. -->",
             "", f"Severity: **{finding.get('severity', 'error')}**. Failure mode `{finding['failure_mode']}`: "
             f"{mode.get('title', '')}.", ""]
    if mode.get("explanation"):
        lines += [mode["explanation"], ""]
    lines += ["## What it means", "",
              "dlldoctor says, with this machine's names and paths in place of the `<...>`:", ""]
    for variant, message in variants(finding, "message"):
        lines.append(f"- {'' if variant == 'default' else f'*{variant}*: '}{shown(str(message))}")
    lines += ["", "## What users see", ""]
    codes = finding.get("error")
    codes = sorted(set(codes.values())) if isinstance(codes, dict) else [codes] if codes is not None else []
    shown_errors = [errors[code] for code in codes if code in errors]
    for error in shown_errors:
        lines += [f"Windows' error {error['code']}, {error['name']}: \"{error['text']}\"", "",
                  "At a program's start-up, a dialog:", "", "```text", shown(error["startup"]), "```", "",
                  "From Python and node, the same error reads as one of:", "", "```text"]
        lines += [shown(text).replace("<code>", str(error["code"])).replace("<text>", error["text"])
                  for text in says]
        lines += ["```", ""]
    own = finding.get("says")
    own = [own] if isinstance(own, str) else [text for _, text in sorted(own.items())] if isinstance(own, dict) else []
    if own:
        lines += ["The program's own words:", "", "```text"] + [shown(text) for text in own] + ["```", ""]
    if not shown_errors and not own:
        lines += ["No load fails by itself: the finding is what makes the program misbehave later, or a risk.", ""]
    lines += ["## How to fix it by hand", "",
              "In PowerShell on the Windows machine; dlldoctor's report fills in the paths, and its plan says "
              "which of these it checked.", ""]
    for variant, fix in variants(finding, "fix"):
        if variant != "default":
            lines += [f"*{variant}*:", ""]
        lines += ["```powershell"] + [shown(line) for line in fix] + ["```", ""]
    shown_in = scenarios_showing(repo, fid)
    lines += ["## Scenarios", ""]
    lines += [f"- [{name}](../../tests/scenarios/{name}.toml)" for name in shown_in] or ["- none yet"]
    return "\n".join(lines) + "\n"


def pages(repo: Path) -> dict[str, str]:
    findings = load(repo, "findings.toml")["finding"]
    modes = {m["id"]: m for m in load(repo, "failure_modes.toml")["failure_mode"]}
    errors = {e["code"]: e for e in load(repo, "errors.toml")["loader_error"]}
    says = framework_texts(repo)
    out = {f"{f['id']}.md": page(repo, f, modes, errors, says) for f in findings}
    index = ["# Findings", "",
             "<!-- Written by tests/support/finding_pages.py from rules/findings.toml; edit the rules, not this. -->",
             "", "One page per finding dlldoctor reports: what it means, the texts users see, how to fix it by hand.",
             ""]
    index += [f"- [`{f['id']}`]({f['id']}.md): {f['title']}" for f in findings]
    out["README.md"] = "\n".join(index) + "\n"
    return out


def main() -> int:
    repo = Path(sys.argv[1])
    check = "--check" in sys.argv[2:]
    folder = repo / "docs/findings"
    wanted = pages(repo)
    if check:
        stale = [name for name, text in wanted.items()
                 if not (folder / name).is_file() or (folder / name).read_text() != text]
        extra = [p.name for p in folder.glob("*.md") if p.name not in wanted] if folder.is_dir() else []
        for name in stale + extra:
            print(f"docs/findings/{name} is not current: run tests/support/finding_pages.py .")
        return 1 if stale or extra else 0
    folder.mkdir(parents=True, exist_ok=True)
    for path in folder.glob("*.md"):
        if path.name not in wanted:
            path.unlink()
    for name, text in wanted.items():
        (folder / name).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
