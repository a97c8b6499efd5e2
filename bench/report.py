#!/usr/bin/python3
"""Print bench/run.sh's (scan.sh's, closure.sh's) results as tables, plus
the project's targets.

Input: the TSV the scripts write, one row per (workload, tool):
  section, tool, status, median_ms, stddev_ms, peak_kb, cold_kb, exit_code,
  out_bytes, note
status is "ok" or the reason there are no numbers ("not installed", ...).
Ratios are peer/dlldoctor: above 1 means the peer is slower / bigger.  The
dlldoctor row of a section is its first row whose tool starts "dlldoctor".

Also usable as a Markdown generator for docs/PERFORMANCE.md: --markdown.
--targets pe|scan|closure|npm-closure|check picks the targets checked (default pe: run.sh's).
"""
import sys

BASE = "dlldoctor inspect"
SCAN_BASE = "dlldoctor --scan --all-dlls"
SCAN_FIND = "find -iname '*.dll'"
CLOSURE_BASE = "dlldoctor app.exe --format json"
NPM_CLOSURE_BASE = "dlldoctor --host node.exe --load ... --format json"
CHECK_BASE = "dlldoctor check --format json"

# The project's targets (docs/PERFORMANCE.md).
BIG_RSS_LIMIT_MB = 8.0
BIG_RSS_GROWTH_LIMIT_MB = 1.0
CORPUS_LIMIT_MS = 100.0
SCAN_LIMIT_VS_FIND = 1.25
CLOSURE_LIMIT_MS = 5.0
NPM_CLOSURE_LIMIT_VS_OBJDUMP = 0.15
CHECK_LIMIT_MS = 1000.0


def num(s):
    return None if s in ("NA", "") else float(s)


def load(path):
    sections = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 10:
                continue
            sec, tool, status, med, sd, peak, cold, rc, nbytes, note = fields
            sections.setdefault(sec, []).append({
                "tool": tool, "status": status, "median_ms": num(med),
                "stddev_ms": num(sd),
                "peak_mb": None if num(peak) is None else num(peak) / 1024,
                "cold_kb": num(cold), "rc": rc, "bytes": num(nbytes),
                "note": note,
            })
    return sections


def fmt(v, spec):
    return "—" if v is None else format(v, spec)


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "—"
    return f"{a / b:.1f}×" if a / b < 100 else f"{a / b:.0f}×"


def rows_for(rows):
    base = next((r for r in rows if r["tool"].startswith("dlldoctor") and r["status"] == "ok"), None)
    out = []
    for r in rows:
        if r["status"] != "ok":
            out.append([r["tool"], r["status"], "", "", "", "", "", ""])
            continue
        notes = [r["note"]] if r["note"] else []
        if r["rc"] not in ("0", "NA"):
            notes.append(f"exit {r['rc']}")
        if r["bytes"] is not None:
            notes.append(f"{r['bytes'] / 1024:.0f} KiB out")
        out.append([
            r["tool"],
            fmt(r["median_ms"], ".1f"),
            fmt(r["stddev_ms"], ".1f"),
            fmt(r["peak_mb"], ".1f"),
            "n/a" if r["cold_kb"] is None else f"{r['cold_kb']:.0f}",
            ratio(r["median_ms"], base and base["median_ms"]),
            ratio(r["peak_mb"], base and base["peak_mb"]),
            ", ".join(notes),
        ])
    return out


HEAD = ["tool", "median ms", "σ ms", "peak MB", "cold KB read",
        "time peer/dd", "mem peer/dd", "notes"]


def print_text(sections):
    for sec, rows in sections.items():
        table = [HEAD] + rows_for(rows)
        widths = [max(len(r[i]) for r in table) for i in range(len(HEAD))]
        print()
        print(sec)
        for i, r in enumerate(table):
            print("  " + "  ".join(c.ljust(w) if j in (0, 7) else c.rjust(w)
                                   for j, (c, w) in enumerate(zip(r, widths))).rstrip())
            if i == 0:
                print("  " + "  ".join("-" * w for w in widths))


def print_markdown(sections):
    for sec, rows in sections.items():
        print(f"\n**{sec}**\n")
        print("| " + " | ".join(HEAD) + " |")
        print("|" + "|".join(["---"] + ["---:"] * 6 + ["---"]) + "|")
        for r in rows_for(rows):
            print("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")


def get(sections, prefix, tool):
    for sec, rows in sections.items():
        if sec.startswith(prefix):
            for r in rows:
                if r["tool"] == tool and r["status"] == "ok":
                    return r
    return None


def targets(sections):
    """Yield (description, verdict) for the project's performance targets."""
    dd = get(sections, "big DLL", BASE)
    objdump = get(sections, "big DLL", "objdump -p")
    small = get(sections, "big DLL", "dlldoctor inspect (6 MB variant)")
    corpus = get(sections, "Wine corpus", BASE)

    def verdict(ok):
        return "n/a (not measured)" if ok is None else ("PASS" if ok else "FAIL")

    ok = None
    if dd and objdump and dd["median_ms"] is not None and objdump["median_ms"] is not None:
        ok = dd["median_ms"] <= objdump["median_ms"]
    yield ("big DLL: dlldoctor no slower than objdump -p"
           + (f" ({dd['median_ms']:.1f} vs {objdump['median_ms']:.1f} ms)" if ok is not None else ""),
           verdict(ok))
    ok = None if not dd else dd["peak_mb"] < BIG_RSS_LIMIT_MB
    yield (f"big DLL: dlldoctor peak RSS under {BIG_RSS_LIMIT_MB:.0f} MB"
           + (f" ({dd['peak_mb']:.1f} MB)" if dd else ""), verdict(ok))
    ok = None
    if dd and small:
        growth = dd["peak_mb"] - small["peak_mb"]
        ok = growth < BIG_RSS_GROWTH_LIMIT_MB
    yield ("big DLL: peak RSS not growing with file size"
           + (f" (6 MB DLL {small['peak_mb']:.1f} MB, 600 MB DLL {dd['peak_mb']:.1f} MB)" if ok is not None else ""),
           verdict(ok))
    ok = None if not corpus or corpus["median_ms"] is None else corpus["median_ms"] < CORPUS_LIMIT_MS
    yield (f"Wine corpus: dlldoctor under {CORPUS_LIMIT_MS:.0f} ms warm"
           + (f" ({corpus['median_ms']:.1f} ms)" if ok is not None else ""), verdict(ok))


def verdict(ok):
    return "n/a (not measured)" if ok is None else ("PASS" if ok else "FAIL")


def ratio_target(sections, section, base, peer, limit, label):
    """dlldoctor's median at most `limit` times `peer`'s, in the first section starting with `section`."""
    dd = get(sections, section, base)
    other = get(sections, section, peer)
    ok = None
    if dd and other and dd["median_ms"] is not None and other["median_ms"] is not None:
        ok = dd["median_ms"] <= limit * other["median_ms"]
    yield (f"{label}: dlldoctor at most {limit}x the time of {peer}"
           + (f" ({dd['median_ms']:.1f} vs {other['median_ms']:.1f} ms,"
              f" {dd['median_ms'] / other['median_ms']:.2f}x)" if ok is not None else ""),
           verdict(ok))


def scan_targets(sections):
    return ratio_target(sections, "scan", SCAN_BASE, SCAN_FIND, SCAN_LIMIT_VS_FIND, "scan")


def closure_targets(sections):
    dd = get(sections, "closure", CLOSURE_BASE)
    ok = None if not dd or dd["median_ms"] is None else dd["median_ms"] < CLOSURE_LIMIT_MS
    yield (f"closure: dlldoctor under {CLOSURE_LIMIT_MS:.0f} ms warm"
           + (f" ({dd['median_ms']:.1f} ms)" if ok is not None else ""), verdict(ok))


def npm_closure_targets(sections):
    return ratio_target(sections, "npm closure", NPM_CLOSURE_BASE, "objdump -p (the same files)",
                        NPM_CLOSURE_LIMIT_VS_OBJDUMP, "npm closure")


def check_targets(sections):
    dd = get(sections, "check", CHECK_BASE)
    ok = None if not dd or dd["median_ms"] is None else dd["median_ms"] < CHECK_LIMIT_MS
    yield (f"check: dlldoctor under {CHECK_LIMIT_MS / 1000:.0f} s warm"
           + (f" ({dd['median_ms']:.1f} ms)" if ok is not None else ""), verdict(ok))


def main(argv):
    args = argv[1:]
    md = "--markdown" in args
    which = "pe"
    if "--targets" in args:
        i = args.index("--targets")
        which = args[i + 1] if i + 1 < len(args) else ""
        del args[i:i + 2]
    paths = [a for a in args if a != "--markdown"]
    checks = {"pe": targets, "scan": scan_targets, "closure": closure_targets, "npm-closure": npm_closure_targets,
              "check": check_targets}
    if len(paths) != 1 or which not in checks:
        sys.stderr.write(f"usage: {argv[0]} [--markdown] [--targets pe|scan|closure|npm-closure|check] results.tsv\n")
        return 2
    sections = load(paths[0])
    if md:
        print_markdown(sections)
    else:
        print_text(sections)
    print("\nTargets:" if not md else "\n**Targets**\n")
    for desc, v in checks[which](sections):
        print(f"  {v:5} {desc}" if not md else f"- {v}: {desc}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
