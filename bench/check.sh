#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Benchmark `dlldoctor check --sysroot DRIVE` on a drive laid out like the tests' (bench/make_check_drive.py:
# a driver and its store, three toolkits, cuDNN in every layout, eight Pythons with torch or onnxruntime-gpu,
# amid 43,000 files check must never walk), warm cache.  Peer: `find -iname 'cudnn64_9.dll'` over the whole
# drive, what a user would do by hand.  Target: dlldoctor check under 1 s (docs/PERFORMANCE.md).  Exit 0
# even when the target fails (this script only reports).
#
# Usage: bench/check.sh [BUILD_DIR]       (default: <repo>/build)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=common.sh
source "$here/common.sh"
# shellcheck source=measure.sh
source "$here/measure.sh"

bench_setup results-check.tsv "${1:-}"
have_fincore=0
have_dlldoctor=0
[[ -x $dlldoctor ]] && have_dlldoctor=1
BENCH_WARMUP=2
BENCH_CPU_NOTE=1
need_cmd hyperfine hyperfine || { echo "check.sh: hyperfine is required" >&2; exit 1; }
need_cmd "$gnu_time" time || { echo "check.sh: GNU time (/usr/bin/time) is required" >&2; exit 1; }

fixtures=$build_dir/fixtures
if [[ ! -f $fixtures/x64/cudnn64_9.dll ]]; then
    echo "check.sh: no fixtures in $fixtures (build the 'fixtures' target first)" >&2
    exit 1
fi
drive_dir=$out/check-drive
if [[ ! -f $drive_dir/manifest.json || $here/make_check_drive.py -nt $drive_dir/manifest.json ]]; then
    echo "check.sh: generating $drive_dir/c" >&2
    mkdir -p "$drive_dir"
    "$py" "$here/make_check_drive.py" "$fixtures" "$drive_dir"
fi
drive=$drive_dir/c
path='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin;C:\tools\cudnn-9.1\bin;C:\Python311;C:\Program Files\NVIDIA\CUDNN\v9.1\bin'
sec="check (a drive of 43,000 files, 8 Pythons)"
bench "$sec" "dlldoctor check --format json" "$(dd_installed)" auto - -- \
    "$dlldoctor" check --sysroot "$drive" --assume-system-dlls --windows-user ana --path "$path" --format json
bench "$sec" "dlldoctor check (text)" "$(dd_installed)" auto - -- \
    "$dlldoctor" check --sysroot "$drive" --assume-system-dlls --windows-user ana --path "$path"
bench "$sec" "find -iname cudnn64_9.dll" 1 auto - -- find "$drive" -iname cudnn64_9.dll

echo
print_header "$build_dir" "$dlldoctor"
"$py" "$here/report.py" --targets check "$results"
echo
echo "raw data: $results, hyperfine JSON in $out/json, tool outputs in $out/outputs"
