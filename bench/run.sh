#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Benchmark dlldoctor's PE reader against peers.
#
# Usage: bench/run.sh [BUILD_DIR]        (default: <repo>/build)
#   DLLDOCTOR=path      dlldoctor binary (default: BUILD_DIR/dlldoctor)
#   BENCH_OUT=dir       where the big DLL, lief_dump, JSON and outputs go
#                       (default: BUILD_DIR/bench)
#   BENCH_SKIP_CORPUS=1 / BENCH_SKIP_BIG=1   run only one half
#
# Two workloads:
#   big     one ~600 MB DLL whose bulk is an opaque section (make_big_dll.sh)
#   corpus  all of Wine's x86_64 PE files, every tool in ONE process
# For every tool: a "probe" run under GNU time (peak RSS, exit code, output
# size; for the big DLL also started with the DLL evicted from the page
# cache, to count how much of the file the tool pulled in), then hyperfine
# for the median.  A table with ratios peer/dlldoctor is printed at the end.
#
# Speed is measured only here, never in the unit tests.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=common.sh
source "$here/common.sh"
# shellcheck source=measure.sh
source "$here/measure.sh"

bench_setup results.tsv "${1:-}"
mkdir -p "$out/json" "$out/outputs" "$out/rss"

wine_dir=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows

# --- tools -----------------------------------------------------------------
# The harness itself is required; peers are optional (a row says so).
need_cmd hyperfine hyperfine || { echo "run.sh: hyperfine is required" >&2; exit 1; }
need_cmd "$gnu_time" time || { echo "run.sh: GNU time (/usr/bin/time) is required" >&2; exit 1; }
need_cmd "$py" python3 || { echo "run.sh: $py is required" >&2; exit 1; }
# fincore is only for the cold-cache column; without it that column is n/a.
have_fincore=0
need_cmd fincore util-linux-extra && have_fincore=1

detect_peers run.sh

# --- (a) the big DLL -------------------------------------------------------
if [[ ${BENCH_SKIP_BIG:-0} != 1 ]]; then
    big=$out/big.dll
    "$here/make_big_dll.sh" "$big"
    # Same DLL with a 6 MB section: dlldoctor's peak RSS must not depend on
    # the file size, and comparing the two shows it.
    BIG_DLL_MB=6 "$here/make_big_dll.sh" "$out/big6.dll"
    big_mb=$(($(stat -c %s "$big") / 1024 / 1024))
    sec="big DLL (${big_mb} MB)"

    bench "$sec" "dlldoctor inspect" "$(dd_installed)" auto "$big" -- "$dlldoctor" inspect "$big"
    bench "$sec" "dlldoctor inspect --format json" "$(dd_installed)" auto "$big" -- "$dlldoctor" inspect "$big" --format json
    bench "$sec" "dlldoctor inspect (6 MB variant)" "$(dd_installed)" auto - -- "$dlldoctor" inspect "$out/big6.dll"
    bench "$sec" "objdump -p" "$(yes_no $have_objdump)" auto "$big" -- x86_64-w64-mingw32-objdump -p "$big"
    bench "$sec" "llvm-readobj-14" "$(yes_no $have_readobj)" auto "$big" -- llvm-readobj-14 --coff-imports --coff-exports "$big"
    # pefile twice: the way most scripts use it (pefile.PE(path), which
    # also scans every byte of the file for its heuristics) and the careful
    # way (fast_load + only the directories we print).
    bench "$sec" "pefile (full load)" "$(yes_no $have_pefile)" 2 "$big" -- "$py" "$here/pefile_dump.py" --full "$big"
    bench "$sec" "pefile (fast_load)" "$(yes_no $have_pefile)" auto "$big" -- "$py" "$here/pefile_dump.py" "$big"
    bench "$sec" "LIEF 0.9 (lief_dump)" "$(yes_no $have_lief)" 3 "$big" -- "$lief_dump" "$big"
fi

# --- (b) the Wine corpus ---------------------------------------------------
if [[ ${BENCH_SKIP_CORPUS:-0} != 1 ]]; then
    have_wine=0
    need_file "$wine_dir/kernel32.dll" libwine && have_wine=1
    if [[ $have_wine -eq 1 ]]; then
        corpus=("$wine_dir"/*)
        sec="Wine corpus (${#corpus[@]} files, $(du -sm "$wine_dir" | cut -f1) MB)"
        bench "$sec" "dlldoctor inspect" "$(dd_installed)" auto - -- "$dlldoctor" inspect "${corpus[@]}"
        bench "$sec" "dlldoctor inspect --format json" "$(dd_installed)" auto - -- "$dlldoctor" inspect "${corpus[@]}" --format json
        bench "$sec" "objdump -p" "$(yes_no $have_objdump)" auto - -- x86_64-w64-mingw32-objdump -p "${corpus[@]}"
        readobj_files=()
        if [[ $have_readobj -eq 1 ]]; then
            # llvm-readobj stops at the first file it cannot parse (9 of
            # Wine's .sys/.dll files here), so giving it everything would
            # time a third of the corpus.  Give it the files it accepts,
            # found one by one (a few seconds), and say so in the row.
            for f in "${corpus[@]}"; do
                if llvm-readobj-14 --coff-imports --coff-exports "$f" >/dev/null 2>&1; then
                    readobj_files+=("$f")
                fi
            done
            row_note="$((${#corpus[@]} - ${#readobj_files[@]})) files it rejects left out"
        fi
        bench "$sec" "llvm-readobj-14" "$(yes_no $have_readobj)" auto - -- llvm-readobj-14 --coff-imports --coff-exports "${readobj_files[@]}"
        bench "$sec" "pefile (fast_load)" "$(yes_no $have_pefile)" 3 - -- "$py" "$here/pefile_dump.py" "${corpus[@]}"
        bench "$sec" "LIEF 0.9 (lief_dump)" "$(yes_no $have_lief)" 3 - -- "$lief_dump" "${corpus[@]}"
    else
        printf '%s\t%s\t%s\tNA\tNA\tNA\tNA\tNA\tNA\t\n' "Wine corpus" "all tools" "Wine DLLs not installed" >>"$results"
    fi
fi

# --- report ----------------------------------------------------------------
echo
print_header "$build_dir" "$dlldoctor"
"$py" "$here/report.py" "$results"
echo
echo "raw data: $results, hyperfine JSON in $out/json, tool outputs in $out/outputs"
