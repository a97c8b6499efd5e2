# shellcheck shell=bash disable=SC2154
# (SC2154: the globals below are set by the script that sources this file.)
# Measurement helpers shared by run.sh, scan.sh and closure.sh (sourced, not
# executed).  The sourcing script sets, before calling bench():
#   out         output folder (json/, outputs/, rss/ are made below it)
#   results     the TSV that bench() appends a row to (report.py reads it)
#   gnu_time    GNU time (/usr/bin/time)
#   py          the Python that parses hyperfine's JSON (/usr/bin/python3)
#   have_fincore, have_dlldoctor   0/1
# and may set BENCH_WARMUP (hyperfine --warmup for "auto" rows; default 3)
# and BENCH_CPU_NOTE=1 (put user+system CPU time in each row's note).

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
#   RUNS       "auto" (hyperfine --warmup $BENCH_WARMUP, its default run
#              count) or a number of runs for the multi-second peers (no
#              warmup: the probe run already warmed the cache)
#   COLDFILE   file to evict before the probe run, or "-"
bench() {
    local section=$1 name=$2 installed=$3 runs=$4 coldfile=$5
    shift 6
    mkdir -p "$out/json" "$out/outputs" "$out/rss"
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
        hf+=(--warmup "${BENCH_WARMUP:-3}")
    else
        hf+=(--runs "$runs")
    fi
    local median_ms=NA stddev_ms=NA
    if "${hf[@]}" --command-name "$name" -- "$(quote_cmd "$@")" >&2; then
        # "median stddev" in ms; stddev is 0 for a single run.
        read -r median_ms stddev_ms < <("$py" -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]; print("%.3f %.3f" % (r["median"] * 1000, (r.get("stddev") or 0) * 1000))' "$json")
        # BENCH_CPU_NOTE=1: also note the mean CPU time (user + system),
        # which a busy machine does not inflate the way it does wall time.
        if [[ ${BENCH_CPU_NOTE:-0} == 1 ]]; then
            local cpu
            cpu=$("$py" -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]; print("%.1f" % ((r["user"] + r["system"]) * 1000))' "$json")
            row_note="cpu ${cpu} ms${row_note:+, $row_note}"
        fi
    fi
    printf '%s\t%s\tok\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$section" "$name" "$median_ms" "$stddev_ms" "$peak_kb" "$cold_kb" "$rc" "$out_bytes" "$row_note" >>"$results"
    row_note=""
}
# Free-text note for the next bench() row (reset after each row).
row_note=""

# The file bench() kept the probe run's stdout in, for checks on it.
bench_output() {
    local slug
    slug=$(tr -c 'A-Za-z0-9_\n' '_' <<<"$1-$2")
    printf '%s' "$out/outputs/$slug.txt"
}

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

# find_dlldoctor BUILD_DIR: the binary to time.  The CLI target lives in src/,
# so a plain CMake build puts it in BUILD_DIR/src/; accept BUILD_DIR/dlldoctor
# too (a RUNTIME_OUTPUT_DIRECTORY or an installed layout).  DLLDOCTOR=path
# overrides both.
find_dlldoctor() {
    local build_dir=$1 bin
    bin=${DLLDOCTOR:-$build_dir/dlldoctor}
    if [[ -z ${DLLDOCTOR:-} && ! -x $bin && -x $build_dir/src/dlldoctor ]]; then
        bin=$build_dir/src/dlldoctor
    fi
    printf '%s' "$bin"
}

# bench_setup RESULTS_NAME [BUILD_DIR]: what every bench script starts from.  Sets
# build_dir (absolute; default REPO/build), dlldoctor, out (BENCH_OUT or
# BUILD_DIR/bench), results (OUT/RESULTS_NAME, emptied), gnu_time, and py:
# Debian's interpreter, since a pyenv `python3` earlier on PATH lacks pefile.
# shellcheck disable=SC2034  # the variables are for the calling script
bench_setup() {
    local results_name=$1 build_arg=${2:-$repo/build}
    mkdir -p "$build_arg"
    build_dir=$(cd "$build_arg" && pwd)
    dlldoctor=$(find_dlldoctor "$build_dir")
    out=${BENCH_OUT:-$build_dir/bench}
    mkdir -p "$out"
    # A fresh copy is timed, with the rules folder beside it as an archive has it: the same bytes start
    # up to 0.5 ms apart depending on how the kernel brought them into the page cache (the linker's own
    # output file is the slow case), so copies compare binaries, not cache history (docs/PERFORMANCE.md).
    if [[ -x $dlldoctor ]]; then
        rm -rf "$out/installed"
        mkdir -p "$out/installed"
        cp "$dlldoctor" "$out/installed/dlldoctor"
        if [[ -d $(dirname "$dlldoctor")/rules ]]; then
            cp -r "$(dirname "$dlldoctor")/rules" "$out/installed/rules"
        fi
        dlldoctor=$out/installed/dlldoctor
    fi
    results=$out/$results_name
    : >"$results"
    gnu_time=/usr/bin/time
    py=/usr/bin/python3
}

# detect_peers SCRIPT_NAME: which of the tools the benchmarks compare with are here (installing the
# Debian packages that are missing): sets have_objdump, have_readobj, have_pefile, have_lief (with
# lief_dump built into OUT) and have_dlldoctor.  A missing one gives rows that say so.
# shellcheck disable=SC2034  # the variables are for the calling script
detect_peers() {
    local script=$1
    have_objdump=0 have_readobj=0 have_pefile=0 have_lief=0 have_dlldoctor=0
    need_cmd x86_64-w64-mingw32-objdump binutils-mingw-w64-x86-64 && have_objdump=1
    need_cmd llvm-readobj-14 llvm-14 && have_readobj=1
    if ! "$py" -c 'import pefile' 2>/dev/null; then
        install_pkg python3-pefile || true
    fi
    "$py" -c 'import pefile' 2>/dev/null && have_pefile=1
    lief_dump=$out/lief_dump
    build_lief_dump "$lief_dump" && have_lief=1
    [[ -x $dlldoctor ]] && have_dlldoctor=1
    if [[ $have_dlldoctor -eq 0 ]]; then
        echo "$script: $dlldoctor not found: dlldoctor rows will say 'not built'" >&2
    fi
}

# print_header BUILD_DIR DLLDOCTOR: the date/machine/build lines above a table.
print_header() {
    local build_type
    echo "dlldoctor bench — $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(uname -r)"
    build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$1/CMakeCache.txt" 2>/dev/null || true)
    echo "dlldoctor: $2 (CMAKE_BUILD_TYPE=${build_type:-project default})"
}

# build_lief_dump OUT: bench/lief_dump.cpp, built with a plain g++ line, not
# by the project's CMake: LIEF is a benchmark-only dependency.  Rebuilt only
# when the source changes.  Returns 1 when LIEF or g++ is missing.
build_lief_dump() {
    local bin=$1 src
    src=$(dirname "${BASH_SOURCE[0]}")/lief_dump.cpp
    need_file /usr/include/LIEF/PE.hpp liblief-dev && need_cmd g++ g++ || return 1
    if [[ ! -x $bin || $src -nt $bin ]]; then
        echo "bench: building lief_dump" >&2
        mkdir -p "$(dirname "$bin")"
        g++ -O2 -std=c++14 "$src" -o "$bin" -lLIEF
    fi
}
