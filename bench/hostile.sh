#!/usr/bin/env bash
# Peak memory and time on crafted files (issue 28): what one hostile file can make dlldoctor spend, beside
# objdump and llvm-readobj on the same file. The files come from bench/make_hostile.py (export tables that
# a reader trusting them would expand into gigabytes).
#
# Usage: bench/hostile.sh [BUILD_DIR]    (default: <repo>/build, a Release build)
#   DLLDOCTOR=path   dlldoctor binary (default: BUILD_DIR/src/dlldoctor)
#   BENCH_OUT=dir    where the files go (default: BUILD_DIR/bench/hostile)
# Prints one row per file and tool: peak resident memory (MB, GNU time's %M) and wall seconds, and the
# ratio of dlldoctor's peak to the file's size. The bound it checks is docs/PERFORMANCE.md's ("Hostile
# machines"); exit 0 even when it is exceeded (benchmarks report, they do not gate CI).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${1:-$repo/build}
dlldoctor=${DLLDOCTOR:-$build/src/dlldoctor}
out=${BENCH_OUT:-$build/bench/hostile}
[ -x "$dlldoctor" ] || { echo "bench/hostile.sh: no dlldoctor at $dlldoctor (build it, or set DLLDOCTOR)" >&2; exit 2; }
python3 "$here/make_hostile.py" "$out"

# measure NAME CMD...: one row, "name  peak_MB  seconds"
measure() {
  local name=$1
  shift
  local stats
  /usr/bin/time -f '%M %e' -o "$out/time.txt" "$@" >/dev/null 2>&1 || true
  stats=$(tail -1 "$out/time.txt")
  printf '  %-34s %10.1f MB %8s s\n' "$name" "$(echo "$stats" | awk '{print $1 / 1024}')" "$(echo "$stats" | awk '{print $2}')"
}

readobj=$(command -v llvm-readobj-14 || command -v llvm-readobj || true)
for file in "$out"/*.dll; do
  size=$(stat -c %s "$file")
  echo "$(basename "$file") ($((size / 1024)) KiB)"
  measure "dlldoctor inspect" "$dlldoctor" inspect "$file"
  measure "dlldoctor inspect --format json" "$dlldoctor" inspect "$file" --format json
  measure "dlldoctor (as the program)" "$dlldoctor" "$file" --format json
  measure "objdump -p" objdump -p "$file"
  [ -z "$readobj" ] || measure "llvm-readobj --coff-exports" "$readobj" --coff-exports "$file"
done
