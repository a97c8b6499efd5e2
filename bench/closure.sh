#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Benchmark dlldoctor's start-up report of a program whose folder holds a
# cuDNN 9 + CUDA 12 set of about 1.7 GB, against peers.
#
# Usage: bench/closure.sh [BUILD_DIR]    (default: <repo>/build)
#   DLLDOCTOR=path      dlldoctor binary (default: BUILD_DIR/dlldoctor, else
#                       BUILD_DIR/src/dlldoctor)
#   BENCH_OUT=dir       where the folder, JSON and outputs go (BUILD_DIR/bench)
#
# The folder (BENCH_OUT/closure/app, cached): app.exe and 14 x64 fixture DLLs
# from BUILD_DIR/fixtures/x64 (the cuDNN 9.1 set, zlibwapi, msvcp140,
# vcruntime140, cudart64_12, cublas64_12, cublasLt64_12); the big ones get
# a section of random bytes (common.sh: inflate_pe) to reach their real
# sizes.  Rows, warm cache:
#   dlldoctor app.exe --format json       full closure + rules
#   objdump -p on all 15 files            one process
#   closure_objdump.sh                    follows "DLL Name:" recursively
#   closure_pefile.py                     the same recursion with pefile
#   lief_dump on all 15 files             LIEF parses every file whole
# Targets: dlldoctor under 5 ms, and under 0.6x objdump -p's time side by side
# (side_by_side.py).  Exit 0 even when they fail.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=common.sh
source "$here/common.sh"
# shellcheck source=measure.sh
source "$here/measure.sh"

bench_setup results-closure.tsv "${1:-}"

need_cmd hyperfine hyperfine || { echo "closure.sh: hyperfine is required" >&2; exit 1; }
need_cmd "$gnu_time" time || { echo "closure.sh: GNU time (/usr/bin/time) is required" >&2; exit 1; }
need_cmd "$py" python3 || { echo "closure.sh: $py is required" >&2; exit 1; }
have_fincore=0
need_cmd fincore util-linux-extra && have_fincore=1
detect_peers closure.sh

# --- the folder ------------------------------------------------------------
# NAME:MiB of random section to add (0: copied as is).  Sizes close to the
# real cuDNN 9.1 / CUDA 12.4 Windows DLLs; 1,700 MiB in all.
set_spec=(
    app.exe:0
    cudnn64_9.dll:0
    cudnn_graph64_9.dll:20
    cudnn_ops64_9.dll:150
    cudnn_cnn64_9.dll:30
    cudnn_adv64_9.dll:200
    cudnn_engines_precompiled64_9.dll:600
    cudnn_engines_runtime_compiled64_9.dll:40
    cudnn_heuristic64_9.dll:60
    zlibwapi.dll:0
    msvcp140.dll:0
    vcruntime140.dll:0
    cudart64_12.dll:0
    cublas64_12.dll:100
    cublasLt64_12.dll:500
)
fixtures=$build_dir/fixtures/x64
app_dir=$out/closure/app
marker=$out/closure/done
spec_text="${set_spec[*]}"
fresh=0
if [[ -f $marker && $(cat "$marker") == "$spec_text" ]]; then
    fresh=1
    # The sizes are in the marker; rebuild also when inflate_pe or the
    # fixtures changed.
    for src in "$here/common.sh" "$fixtures/app.exe" "$fixtures/cudnn64_9.dll"; do
        [[ $src -nt $marker ]] && fresh=0
    done
fi
if [[ $fresh -eq 0 ]]; then
    [[ -f $fixtures/app.exe ]] || { echo "closure.sh: no fixtures in $fixtures (build the 'fixtures' target)" >&2; exit 1; }
    echo "closure.sh: building $app_dir (about 1.7 GB, 30-60 s)" >&2
    rm -rf "$app_dir" "$marker"
    mkdir -p "$out/closure"
    work=$(mktemp -d "$out/closure/.app.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    for entry in "${set_spec[@]}"; do
        name=${entry%%:*} mb=${entry##*:}
        if [[ $mb -eq 0 ]]; then
            cp "$fixtures/$name" "$work/$name"
        else
            inflate_pe "$fixtures/$name" "$work/$name" "$mb" || { echo "closure.sh: inflating $name failed" >&2; exit 1; }
        fi
    done
    # A broken file would make every reader look fast: objdump must still
    # see the imports, and dlldoctor must say the same about the inflated
    # set as about the plain copies (sizes and paths aside).
    for entry in "${set_spec[@]}"; do
        name=${entry%%:*}
        # (Into a variable first: grep -q on a pipe would SIGPIPE objdump.)
        dump=$(x86_64-w64-mingw32-objdump -p "$work/$name")
        grep -q 'DLL Name: KERNEL32.dll' <<<"$dump" || { echo "closure.sh: $name lost its imports" >&2; exit 1; }
    done
    mv "$work" "$app_dir"
    trap - EXIT
    printf '%s\n' "$spec_text" >"$marker"
fi
files=()
for entry in "${set_spec[@]}"; do
    files+=("$app_dir/${entry%%:*}")
done
total_mb=$(du -cm "${files[@]}" | tail -n 1 | cut -f1)
sec="closure (app.exe + ${#files[@]} files, ${total_mb} MB)"

# The report must not change when the files grow: compare with the same
# set copied small (the findings, not the sizes, paths or time stamp).
same_report=NA
if [[ $have_dlldoctor -eq 1 ]]; then
    small=$(mktemp -d)
    for entry in "${set_spec[@]}"; do cp "$fixtures/${entry%%:*}" "$small/"; done
    same_report=$("$py" - "$dlldoctor" "$small" "$app_dir" <<'EOF'
import json, subprocess, sys
dd, small, big = sys.argv[1:]
def norm(folder):
    text = subprocess.run([dd, f"{folder}/app.exe", "--format", "json"], capture_output=True, text=True,
                          cwd=folder).stdout.replace(folder, "DIR")
    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in ("generated_at", "size", "cwd")}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v
    return strip(json.loads(text))
print("yes" if norm(small) == norm(big) else "no")
EOF
    ) || same_report=error
    rm -rf "$small"
fi

# --- timing ----------------------------------------------------------------
# The current folder is on the DLL search path, and dlldoctor lists (and
# stats every entry of) each folder it searches: run everything from the
# app's folder, as a program started by double-click would be, so the
# result does not depend on where the script was started.  A second
# dlldoctor row shows the cost of a big current folder (--cwd /usr/bin).
cd "$app_dir"
BENCH_CPU_NOTE=1
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
big=$app_dir/cudnn_engines_precompiled64_9.dll
bench "$sec" "dlldoctor app.exe --format json" "$(dd_installed)" auto "$big" -- "$dlldoctor" "$app_dir/app.exe" --format json
row_note="--cwd /usr/bin: $(find /usr/bin -mindepth 1 -maxdepth 1 | wc -l) entries"
bench "$sec" "dlldoctor app.exe --format json --cwd /usr/bin" "$(dd_installed)" auto - -- "$dlldoctor" "$app_dir/app.exe" --format json --cwd /usr/bin
row_note="process start-up and exit only"
bench "$sec" "dlldoctor --version" "$(dd_installed)" auto - -- "$dlldoctor" --version
bench "$sec" "objdump -p (all files)" "$(yes_no $have_objdump)" auto "$big" -- x86_64-w64-mingw32-objdump -p "${files[@]}"
row_note="one objdump per file it reaches"
bench "$sec" "closure_objdump.sh" "$(yes_no $have_objdump)" auto - -- "$here/closure_objdump.sh" "$app_dir/app.exe"
bench "$sec" "pefile (closure_pefile.py)" "$(yes_no $have_pefile)" auto - -- "$py" "$here/closure_pefile.py" "$app_dir/app.exe"
bench "$sec" "LIEF 0.9 (lief_dump, all files)" "$(yes_no $have_lief)" 2 "$big" -- "$lief_dump" "${files[@]}"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
# The rows above are timed one after the other, minutes apart, and this VM's speed drifts by a third
# within a minute (objdump's median moved between 3.0 and 4.6 ms from one run of this script to the
# next): the quotient of two rows moves with it.  The target that dlldoctor's closure take under 0.6x
# objdump's time is measured side by side instead: rounds that time one right after the other.
side_by_side=""
if [[ $have_dlldoctor -eq 1 && $have_objdump -eq 1 ]]; then
    side_by_side=$("$py" "$here/side_by_side.py" 100 3 0.6 "$(quote_cmd "$dlldoctor" "$app_dir/app.exe" --format json)" \
        "$(quote_cmd x86_64-w64-mingw32-objdump -p "${files[@]}")") || side_by_side="side by side: error"
fi

# --- report ----------------------------------------------------------------
echo
print_header "$build_dir" "$dlldoctor"
echo "load average before / after the timed runs: $load_before / $load_after"
"$py" "$here/report.py" --targets closure "$results"
if [[ -n $side_by_side ]]; then
    echo
    echo "dlldoctor app.exe --format json against objdump -p (all files), $side_by_side"
fi
if [[ $same_report != NA ]]; then
    echo
    echo "Check: dlldoctor's report on the inflated set equals the one on the plain fixtures: $same_report"
fi
echo
echo "raw data: $results, hyperfine JSON in $out/json, tool outputs in $out/outputs"
