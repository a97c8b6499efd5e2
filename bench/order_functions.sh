#!/usr/bin/env bash
# Write src/hot_functions.txt: the functions typical runs of dlldoctor execute, in the order the link
# places them first (src/CMakeLists.txt, ld.lld --symbol-ordering-file).  Spread over the 5 MB of code,
# a run's functions cost one page fault per 64 KiB they touch; together they cost a few
# (docs/PERFORMANCE.md, "The code a run touches, together").
#
# Usage: bench/order_functions.sh [BUILD_DIR]    (default: <repo>/build; needs valgrind)
#
# The runs, most common first, each adding the functions the ones before it did not run: the bundled
# example (text, then JSON), the closure bench's folder when it is there (JSON), --version, a scan of the
# example.  Names are as the compiler emits them (mangled, clones included): regenerate after a change
# of compiler or of the code a run goes through; a name the link no longer finds is skipped, so a stale
# file costs page faults, never a wrong binary.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
build_dir=$(cd "${1:-$repo/build}" && pwd)
dlldoctor=$build_dir/src/dlldoctor
example=$build_dir/examples/broken-cudnn
closure_app=$build_dir/bench/closure/app/app.exe
out=$repo/src/hot_functions.txt

command -v valgrind >/dev/null || { echo "order_functions.sh: valgrind is required" >&2; exit 1; }
[[ -x $dlldoctor ]] || { echo "order_functions.sh: no $dlldoctor (build the dlldoctor target)" >&2; exit 1; }
[[ -d $example ]] || { echo "order_functions.sh: no $example (build the examples)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

runs=(
    "$example/app/app.exe --path $example/cuda/bin --path $example/cudnn/bin"
    "$example/app/app.exe --path $example/cuda/bin --path $example/cudnn/bin --format json"
)
[[ -f $closure_app ]] && runs+=("$closure_app --format json")
runs+=("--version" "--scan $example")

# One function per line, each once, in the order of the runs; within a run, by name.  callgrind names
# every function it saw execute ("fn=(id) name" the first time an id appears); addresses without a
# symbol and its "(below main)" are not functions the link can place.
: >"$work/all"
n=0
for args in "${runs[@]}"; do
    n=$((n + 1))
    # shellcheck disable=SC2086 # the runs are word lists
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/run.$n" "$dlldoctor" $args \
        >/dev/null 2>"$work/valgrind.$n" || true
    [[ -s $work/run.$n ]] || { echo "order_functions.sh: callgrind failed on: $args" >&2; cat "$work/valgrind.$n" >&2; exit 1; }
    sed -nE 's/^c?fn=\([0-9]+\) (.+)$/\1/p' "$work/run.$n" | grep -vE '^(0x[0-9a-f]+|\(below main\).*)$' |
        LC_ALL=C sort -u | grep -vxF -f "$work/all" >>"$work/all" || true
done

{
    echo "# The functions typical runs of dlldoctor execute, placed together by the link (ld.lld"
    echo "# --symbol-ordering-file, src/CMakeLists.txt) so that a run touches few pages of code."
    echo "# Written by bench/order_functions.sh; docs/PERFORMANCE.md says when to write it again."
    cat "$work/all"
} >"$out"
echo "order_functions.sh: $(wc -l <"$work/all") functions from ${#runs[@]} runs in $out"
