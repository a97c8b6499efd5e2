#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Benchmark dlldoctor's closure on real binaries shipped by others (issue 28): node-llama-cpp's Vulkan
# addon for Windows, loaded by node.exe, with its Vulkan backend and the CUDA 12 backend of its
# cuda-ext package (a 461 MB ggml-cuda.dll), in a Windows of Wine's own DLLs (all of them, 694 files,
# as a System32 holds thousands). CUDA 12's cudart and cuBLAS and the driver are stand-ins whose export
# tables answer what ggml-cuda.dll imports (tests/support/make_stand_in.sh), so the machine is healthy
# and the run is the closure and the report, not a plan search.
#
# Usage: bench/npm_closure.sh [BUILD_DIR]    (default: <repo>/build)
#   DLLDOCTOR=path, BENCH_OUT=dir as in closure.sh. The npm packages are fetched once into
#   BENCH_OUT/npm-cache (npm pack; 340 MB of tarballs).
# Rows, warm cache:
#   dlldoctor --host node.exe --load ... --format json   the whole diagnosis
#   objdump -p on the files the closure loads             one process, headers and tables
#   llvm-readobj-14 --coff-imports --coff-exports         the same files
# Target (issue 28): dlldoctor at 0.15x objdump's time or less. Exit 0 even when it misses it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=common.sh
source "$here/common.sh"
# shellcheck source=measure.sh
source "$here/measure.sh"

bench_setup results-npm-closure.tsv "${1:-}"
need_cmd hyperfine hyperfine || { echo "npm_closure.sh: hyperfine is required" >&2; exit 1; }
need_cmd npm npm || { echo "npm_closure.sh: npm is required" >&2; exit 1; }
need_cmd x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64 || { echo "npm_closure.sh: mingw-w64 is required" >&2; exit 1; }
need_cmd x86_64-w64-mingw32-windres binutils-mingw-w64-x86-64 || exit 1
have_fincore=0
need_cmd fincore util-linux-extra && have_fincore=1
detect_peers npm_closure.sh
[[ $have_dlldoctor -eq 1 ]] || exit 1
wine_dlls=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows
[[ -d $wine_dlls ]] || install_pkg wine64 || { echo "npm_closure.sh: $wine_dlls is missing (wine64)" >&2; exit 1; }

version=3.18.1
cache=$out/npm-cache
root=$out/npm-closure/root
marker=$out/npm-closure/done
mkdir -p "$cache"
for kind in vulkan cuda-ext; do
    tarball=$cache/node-llama-cpp-win-x64-$kind-$version.tgz
    [[ -s $tarball ]] || (cd "$cache" && npm pack "@node-llama-cpp/win-x64-$kind@$version" --silent >/dev/null)
done

app='C:\app\node_modules\@node-llama-cpp'
vulkan=$root/app/node_modules/@node-llama-cpp/win-x64-vulkan/bins/win-x64-vulkan
cuda=$root/app/node_modules/@node-llama-cpp/win-x64-cuda-ext/bins/win-x64-cuda/fallback
cuda_bin=$root/cuda/v12.4/bin
if [[ ! -f $marker || $here/npm_closure.sh -nt $marker ]]; then
    echo "npm_closure.sh: building $root (about 1.2 GB)" >&2
    rm -rf "$root" "$marker"
    mkdir -p "$root/Windows/System32" "$root/nodejs" "$cuda_bin" "$(dirname "$vulkan")" \
        "$(dirname "$(dirname "$cuda")")"
    cp "$wine_dlls"/* "$root/Windows/System32/"
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    tar xzf "$cache/node-llama-cpp-win-x64-vulkan-$version.tgz" -C "$work"
    mv "$work/package/bins/win-x64-vulkan" "$vulkan"
    rm -rf "$work/package"
    tar xzf "$cache/node-llama-cpp-win-x64-cuda-ext-$version.tgz" -C "$work"
    mv "$work/package/bins/win-x64-cuda" "$(dirname "$cuda")"
    imports_of() {  # BINARY DLL: what BINARY imports (or delay-imports) from DLL, by dlldoctor's reading
        "$dlldoctor" inspect --format json "$1" | "$py" -c '
import json, sys
image = json.load(sys.stdin)
for dll in image["imports"] + image["delay_imports"]:
    if dll["dll"].lower() == sys.argv[1].lower():
        for f in dll["functions"]:
            print(f["name"] if f.get("name") else "@%d" % f["ordinal"])' "$2"
    }
    stand_in() {  # OUT VERSION COMPANY DESCRIPTION IMPORTER
        local name
        name=$(basename "$1")
        mapfile -t names < <(imports_of "$5" "$name" | sort -u)
        "$repo/tests/support/make_stand_in.sh" x86_64-w64-mingw32-gcc x86_64-w64-mingw32-windres \
            "$repo/fixtures/rc" "$1" "$2" "$3" "$4" dd_stand_in_export "${names[@]}"
    }
    # node.exe exports N-API, which the addon's delay imports bind to (node-gyp's hook).
    stand_in "$root/nodejs/node.exe" 22.12.0.0 "Node.js" "Node.js JavaScript Runtime" "$vulkan/llama-addon.node"
    nvidia=("NVIDIA Corporation")
    stand_in "$cuda_bin/cudart64_12.dll" 12.4.127.0 "${nvidia[@]}" "NVIDIA CUDA Runtime, Version 12.4.127" \
        "$cuda/ggml-cuda.dll"
    stand_in "$cuda_bin/cublas64_12.dll" 12.4.5.8 "${nvidia[@]}" "NVIDIA cuBLAS Library" "$cuda/ggml-cuda.dll"
    stand_in "$root/Windows/System32/nvcuda.dll" 32.0.15.6094 "${nvidia[@]}" "NVIDIA CUDA Driver, Version 560.94" \
        "$cuda/ggml-cuda.dll"
    rm -rf "$work"
    trap - EXIT
    touch "$marker"
fi

cmd=("$dlldoctor" --sysroot "$root" --path 'C:\cuda\v12.4\bin;C:\Windows\System32;C:\Windows'
     --host 'C:\nodejs\node.exe' --cwd 'C:\app' --profile node-addon
     --load "$app\\win-x64-vulkan\\bins\\win-x64-vulkan\\llama-addon.node"
     --load "$app\\win-x64-vulkan\\bins\\win-x64-vulkan\\ggml-vulkan.dll"
     --load "$app\\win-x64-cuda-ext\\bins\\win-x64-cuda\\fallback\\ggml-cuda.dll" --format json)
report=$out/npm-closure/report.json
rc=0
"${cmd[@]}" >"$report" || rc=$?
# The files the closure reads: every module it found, as host paths, for the peers to read the same.
mapfile -t files < <("$py" - "$report" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
seen = set()
for m in report["modules"]:
    path = m.get("path")
    if path and path not in seen:
        seen.add(path)
        print(path)
EOF
)
healthy=$("$py" -c 'import json,sys; r = json.load(open(sys.argv[1])); print("yes" if not [f for f in r["findings"] if f["severity"] in ("error", "warning")] else "no")' "$report")
total_mb=$(du -cm "${files[@]}" | tail -n 1 | cut -f1)
sec="npm closure (node-llama-cpp $version: ${#files[@]} files, ${total_mb} MB)"

BENCH_CPU_NOTE=1
row_note="exit $rc, healthy: $healthy"
bench "$sec" "dlldoctor --host node.exe --load ... --format json" 1 auto "$cuda/ggml-cuda.dll" -- "${cmd[@]}"
bench "$sec" "objdump -p (the same files)" "$(yes_no "$have_objdump")" auto - -- x86_64-w64-mingw32-objdump -p "${files[@]}"
bench "$sec" "llvm-readobj-14 --coff-imports --coff-exports" "$(yes_no "$have_readobj")" auto - -- \
    llvm-readobj-14 --coff-imports --coff-exports "${files[@]}"

echo
print_header "$build_dir" "$dlldoctor"
"$py" "$here/report.py" --targets npm-closure "$results"
echo
echo "raw data: $results, the report in $report"
