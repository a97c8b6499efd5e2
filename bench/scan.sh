#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Benchmark `dlldoctor --scan DIR --all-dlls` against tools that walk a tree.
#
# Usage: bench/scan.sh [BUILD_DIR]       (default: <repo>/build)
#   DLLDOCTOR=path      dlldoctor binary (default: BUILD_DIR/dlldoctor, else
#                       BUILD_DIR/src/dlldoctor)
#   BENCH_OUT=dir       where the tree, JSON and outputs go (BUILD_DIR/bench)
#
# The tree (bench/make_scan_tree.py, cached in BENCH_OUT/scan-tree): 200,000
# files in 16,000 folders, 4,000 of them copies of the fixture DLLs in
# BUILD_DIR/fixtures (cuDNN copies at random depths, some hard links, a few
# .dll.bak).  Peers, warm cache, hyperfine --warmup 2:
#   dlldoctor --scan --all-dlls     the same scan as text (JSON: at most 1.3x)
#   find -iname '*.dll'            names only
#   fdfind -e dll                  names only, parallel walk
#   find | xargs objdump -p        headers of every DLL, no version
#   scan_pefile.py                 os.walk + pefile: machine and version
# Then checks on dlldoctor's JSON: all 4,000 PE files listed, hard links
# reported as identical.  Target: dlldoctor <= 1.25x find's time.  Exit 0
# even when a target or check fails (this script only reports).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=common.sh
source "$here/common.sh"
# shellcheck source=measure.sh
source "$here/measure.sh"

bench_setup results-scan.tsv "${1:-}"
have_fincore=0  # every row here is warm: no cold column
BENCH_WARMUP=2
BENCH_CPU_NOTE=1

need_cmd hyperfine hyperfine || { echo "scan.sh: hyperfine is required" >&2; exit 1; }
need_cmd "$gnu_time" time || { echo "scan.sh: GNU time (/usr/bin/time) is required" >&2; exit 1; }
need_cmd "$py" python3 || { echo "scan.sh: $py is required" >&2; exit 1; }

have_fd=0
need_cmd fdfind fd-find && have_fd=1
detect_peers scan.sh

# --- the tree --------------------------------------------------------------
fixtures=$build_dir/fixtures
if [[ ! -f $fixtures/x64/cudnn64_9.dll || ! -f $fixtures/x86/cudnn64_9.dll ]]; then
    echo "scan.sh: no fixtures in $fixtures (build the 'fixtures' target first)" >&2
    exit 1
fi
tree_dir=$out/scan-tree
tree=$tree_dir/tree
manifest=$tree_dir/manifest.json
# The manifest is the "done" marker; a newer generator makes a new tree.
if [[ -f $manifest && $here/make_scan_tree.py -nt $manifest ]]; then
    rm -f "$manifest"
fi
if [[ ! -f $manifest ]]; then
    echo "scan.sh: generating $tree (about 10-30 s, 900 MB)" >&2
    mkdir -p "$tree_dir"
    "$py" "$here/make_scan_tree.py" "$fixtures" "$tree_dir"
fi
read -r n_folders n_files n_pe < <("$py" -c 'import json,sys; m = json.load(open(sys.argv[1])); print(m["folders"], m["files"], m["pe_files"])' "$manifest")
sec="scan ($n_files files, $n_folders folders, $n_pe PE files)"

# --- timing ----------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
dd_name="dlldoctor --scan --all-dlls"
bench "$sec" "$dd_name" "$(dd_installed)" auto - -- "$dlldoctor" --scan "$tree" --all-dlls --format json
# The same scan as text: JSON should cost at most 1.3x its text (issue 12).
bench "$sec" "dlldoctor --scan --all-dlls (text)" "$(dd_installed)" auto - -- "$dlldoctor" --scan "$tree" --all-dlls
bench "$sec" "find -iname '*.dll'" 1 auto - -- find "$tree" -iname '*.dll'
bench "$sec" "fdfind -e dll" "$(yes_no $have_fd)" auto - -- fdfind -e dll . "$tree"
# A pipeline needs a shell: bash -c (its ~1 ms start-up is noise at 2 s).
row_note="one objdump per ~500 files (xargs)"
# shellcheck disable=SC2016  # "$1" is for the inner bash
bench "$sec" "find | xargs objdump -p" "$(yes_no $have_objdump)" 5 - -- \
    bash -c 'find "$1" -iname "*.dll" -print0 | xargs -0 x86_64-w64-mingw32-objdump -p >/dev/null' _ "$tree"
bench "$sec" "pefile (scan_pefile.py)" "$(yes_no $have_pefile)" 3 - -- "$py" "$here/scan_pefile.py" "$tree"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --- checks on dlldoctor's answer ------------------------------------------
checks=()
if [[ $have_dlldoctor -eq 1 ]]; then
    mapfile -t checks < <("$py" - "$(bench_output "$sec" "$dd_name")" "$manifest" "$tree" <<'EOF'
import json, os, sys
report, manifest, tree = sys.argv[1:]
m = json.load(open(manifest))
try:
    j = json.load(open(report))
except ValueError as e:
    print(f"FAIL  dlldoctor's JSON does not parse: {e}")
    sys.exit(0)
copies = sum(len(d["copies"]) for d in j["dlls"])
ok = copies == m["pe_files"] == j["counts"]["copies"]
print(f"{'PASS' if ok else 'FAIL'}  all {m['pe_files']} PE files listed (sum of copies: {copies},"
      f" counts.copies: {j['counts']['copies']}; folders {j['counts']['folders']}/{m['folders']})")
sets = [set(s) for d in j["dlls"] for s in d["identical"]]
bad = [g for g in m["hard_links"]
       if not any({os.path.join(tree, p) for p in g} <= s for s in sets)]
n = sum(len(g) for g in m["hard_links"])
print(f"{'PASS' if not bad else 'FAIL'}  hard links reported as identical"
      f" ({len(m['hard_links']) - len(bad)}/{len(m['hard_links'])} linked files, {n} names)")
backups = {os.path.join(tree, p) for p in m["backups"]}
ok = backups == set(j["backups"])
print(f"{'PASS' if ok else 'FAIL'}  .dll.bak copies reported as backups ({len(j['backups'])}/{len(backups)})")
EOF
    )
fi

# --- report ----------------------------------------------------------------
echo
print_header "$build_dir" "$dlldoctor"
echo "load average before / after the timed runs: $load_before / $load_after"
"$py" "$here/report.py" --targets scan "$results"
if [[ ${#checks[@]} -gt 0 ]]; then
    echo
    echo "Checks on dlldoctor's JSON:"
    printf '  %s\n' "${checks[@]}"
fi
echo
echo "raw data: $results, hyperfine JSON in $out/json, tool outputs in $out/outputs"
