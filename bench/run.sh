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

build_dir=${1:-$repo/build}
mkdir -p "$build_dir"
build_dir=$(cd "$build_dir" && pwd)
# The CLI target lives in src/, so a plain CMake build puts it in
# BUILD_DIR/src/; accept BUILD_DIR/dlldoctor too (a RUNTIME_OUTPUT_DIRECTORY
# or an installed layout).
dlldoctor=${DLLDOCTOR:-$build_dir/dlldoctor}
if [[ -z ${DLLDOCTOR:-} && ! -x $dlldoctor && -x $build_dir/src/dlldoctor ]]; then
    dlldoctor=$build_dir/src/dlldoctor
fi
out=${BENCH_OUT:-$build_dir/bench}
mkdir -p "$out/json" "$out/outputs" "$out/rss"
results=$out/results.tsv
: >"$results"

wine_dir=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows
gnu_time=/usr/bin/time
# Debian's interpreter: a pyenv `python3` earlier on PATH lacks pefile.
py=/usr/bin/python3

# --- tools -----------------------------------------------------------------
# The harness itself is required; peers are optional (a row says so).
need_cmd hyperfine hyperfine || { echo "run.sh: hyperfine is required" >&2; exit 1; }
need_cmd "$gnu_time" time || { echo "run.sh: GNU time (/usr/bin/time) is required" >&2; exit 1; }
need_cmd "$py" python3 || { echo "run.sh: $py is required" >&2; exit 1; }
# fincore is only for the cold-cache column; without it that column is n/a.
have_fincore=0
need_cmd fincore util-linux-extra && have_fincore=1

have_objdump=0 have_readobj=0 have_pefile=0 have_lief=0
need_cmd x86_64-w64-mingw32-objdump binutils-mingw-w64-x86-64 && have_objdump=1
need_cmd llvm-readobj-14 llvm-14 && have_readobj=1
if ! "$py" -c 'import pefile' 2>/dev/null; then
    install_pkg python3-pefile || true
fi
"$py" -c 'import pefile' 2>/dev/null && have_pefile=1

# lief_dump is built here with a plain g++ line, not by the project's CMake:
# LIEF is a benchmark-only dependency.  Rebuilt only when the source changes.
lief_dump=$out/lief_dump
if need_file /usr/include/LIEF/PE.hpp liblief-dev && need_cmd g++ g++; then
    if [[ ! -x $lief_dump || $here/lief_dump.cpp -nt $lief_dump ]]; then
        echo "run.sh: building lief_dump" >&2
        g++ -O2 -std=c++14 "$here/lief_dump.cpp" -o "$lief_dump" -lLIEF
    fi
    have_lief=1
fi

have_dlldoctor=0
[[ -x $dlldoctor ]] && have_dlldoctor=1
if [[ $have_dlldoctor -eq 0 ]]; then
    echo "run.sh: $dlldoctor not found: dlldoctor rows will say 'not built'" >&2
fi

# --- measurement helpers ---------------------------------------------------

# evict FILE: drop FILE (only) from the page cache, so the probe run shows
# how much of it a tool reads.  dd's nocache flag is a per-file
# posix_fadvise(DONTNEED) and needs no root; drop_caches is the fallback.
# Prints 1 if the file is now cold, 0 otherwise.
evict() {
    local f=$1
    [[ $have_fincore -eq 1 ]] || { echo 0; return; }
    dd if="$f" iflag=nocache count=0 status=none 2>/dev/null || true
    if [[ $(cached_bytes "$f") -ne 0 ]]; then
        sync
        echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
    fi
    [[ $(cached_bytes "$f") -eq 0 ]] && echo 1 || echo 0
}

cached_bytes() {
    fincore --bytes --noheadings --output RES "$1" | tr -d ' '
}

# bench SECTION NAME INSTALLED RUNS COLDFILE -- CMD...
#   INSTALLED  1, or the text to show instead of numbers ("not installed")
#   RUNS       "auto" (hyperfine --warmup 3, its default run count) or a
#              number of runs for the multi-second peers (no warmup: the
#              probe run already warmed the cache)
#   COLDFILE   file to evict before the probe run, or "-"
bench() {
    local section=$1 name=$2 installed=$3 runs=$4 coldfile=$5
    shift 6
    local slug
    slug=$(tr -c 'A-Za-z0-9_\n' '_' <<<"$section-$name")
    if [[ $installed != 1 ]]; then
        printf '%s\t%s\t%s\tNA\tNA\tNA\tNA\tNA\tNA\t\n' "$section" "$name" "$installed" >>"$results"
        row_note=""
        return 0
    fi
    echo "== $section: $name" >&2

    # Probe run: peak RSS (GNU time %M, KiB), exit code, output size.
    local cold=0 cold_kb=NA rc=0
    if [[ $coldfile != - ]]; then
        cold=$(evict "$coldfile")
    fi
    "$gnu_time" -o "$out/rss/$slug" -f '%M' "$@" >"$out/outputs/$slug.txt" 2>"$out/outputs/$slug.err" || rc=$?
    if [[ $cold -eq 1 ]]; then
        cold_kb=$(($(cached_bytes "$coldfile") / 1024))
    fi
    local peak_kb out_bytes
    # GNU time prints a "Command exited with non-zero status" line first
    # when rc != 0; the number is always the last line.
    peak_kb=$(tail -n 1 "$out/rss/$slug")
    out_bytes=$(stat -c %s "$out/outputs/$slug.txt")

    # Timing.  -N: no intermediate shell, which would add ~1 ms to every
    # run and swamp the fast readers.  hyperfine discards stdout itself.
    # -i: some tools exit non-zero on a few corpus files (e.g. type
    # libraries that are not PE); that must not abort the whole bench.
    local json=$out/json/$slug.json
    local -a hf=(hyperfine -N -i --style basic --export-json "$json")
    if [[ $runs == auto ]]; then
        hf+=(--warmup 3)
    else
        hf+=(--runs "$runs")
    fi
    local median_ms=NA stddev_ms=NA
    if "${hf[@]}" --command-name "$name" -- "$(quote_cmd "$@")" >&2; then
        # "median stddev" in ms; stddev is 0 for a single run.
        read -r median_ms stddev_ms < <("$py" -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]; print("%.3f %.3f" % (r["median"] * 1000, (r.get("stddev") or 0) * 1000))' "$json")
    fi
    printf '%s\t%s\tok\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$section" "$name" "$median_ms" "$stddev_ms" "$peak_kb" "$cold_kb" "$rc" "$out_bytes" "$row_note" >>"$results"
    row_note=""
}
# Free-text note for the next bench() row (reset after each row).
row_note=""

# hyperfine takes one command string and splits it shell-style; quote each
# argument so paths survive intact.
quote_cmd() {
    local s="" a
    for a in "$@"; do
        s+="$(printf '%q' "$a") "
    done
    printf '%s' "${s% }"
}

dd_installed() { [[ $have_dlldoctor -eq 1 ]] && echo 1 || echo "not built"; }
yes_no() { [[ $1 -eq 1 ]] && echo 1 || echo "not installed"; }

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
echo "dlldoctor bench — $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(uname -r)"
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build_dir/CMakeCache.txt" 2>/dev/null || true)
echo "dlldoctor: $dlldoctor (CMAKE_BUILD_TYPE=${build_type:-project default})"
"$py" "$here/report.py" "$results"
echo
echo "raw data: $results, hyperfine JSON in $out/json, tool outputs in $out/outputs"
