#!/usr/bin/env bash
# dlldoctor on onnxruntime's real CUDA execution provider, as NVIDIA-less machines and users meet it: the
# GPU builds of the onnxruntime packages for Unity, on npm (com.github.asus4.onnxruntime.win-x64-gpu: 0.4.9
# ships onnxruntime 1.29's provider for CUDA 13, which loads cuDNN and cuFFT lazily and names the libraries
# of several CUDA majors in its data; 0.4.5 ships 1.25's for CUDA 12, which imports them), and
# onnxruntime-node's real onnxruntime.dll beside its addon. The Windows around them is Wine's own DLLs in a
# sysroot of this test's own (a whole copy: no --assume-system-dlls), CUDA and the driver are stand-ins
# built here whose export tables answer what the real provider imports (tests/support/make_stand_in.sh),
# cuDNN is the fixtures'. Each case asserts the verdict, the findings and their severities: a healthy
# machine gets no error and no warning. Without npm or the registry it exits 77 ("skipped").
#   gpu_providers_test.sh DLLDOCTOR CACHE_DIR WORK_DIR CC WINDRES RC_DIR FIXTURES_DIR
set -euo pipefail
dlldoctor=${1:?usage: gpu_providers_test.sh DLLDOCTOR CACHE_DIR WORK_DIR CC WINDRES RC_DIR FIXTURES_DIR}
cache=${2:?}
work=${3:?}
cc=${4:?}
windres=${5:?}
rc_dir=${6:?}
fixtures=${7:?}
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
wine_dlls=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows

skip() {
  echo "skipped, $1"
  exit 77
}
command -v npm >/dev/null 2>&1 || skip "no npm on this machine: the npm registry cannot be reached"
[ -d "$wine_dlls" ] || skip "missing: $wine_dlls (Debian package wine64; ./dev.sh test installs it)"
mkdir -p "$cache"
fetch() {  # SPEC TARBALL
  [ -s "$cache/$2" ] && return 0
  if ! (cd "$cache" && timeout 300 npm pack "$1" --silent >/dev/null 2>npm.err); then
    skip "the npm registry did not answer (npm pack $1: $(tail -n 1 "$cache/npm.err" 2>/dev/null))"
  fi
  [ -s "$cache/$2" ] || skip "npm pack $1 wrote no $2"
}
fetch com.github.asus4.onnxruntime.win-x64-gpu@0.4.9 com.github.asus4.onnxruntime.win-x64-gpu-0.4.9.tgz
fetch com.github.asus4.onnxruntime.win-x64-gpu@0.4.5 com.github.asus4.onnxruntime.win-x64-gpu-0.4.5.tgz
fetch onnxruntime-node@1.30.0 onnxruntime-node-1.30.0.tgz

rm -rf "$work"
mkdir -p "$work/ort13" "$work/ort12" "$work/node"
tar xzf "$cache/com.github.asus4.onnxruntime.win-x64-gpu-0.4.9.tgz" -C "$work/ort13"
tar xzf "$cache/com.github.asus4.onnxruntime.win-x64-gpu-0.4.5.tgz" -C "$work/ort12"
tar xzf "$cache/onnxruntime-node-1.30.0.tgz" -C "$work/node"
ort13=$work/ort13/package/Plugins/Windows/x64
ort12=$work/ort12/package/Plugins/Windows/x64
binding=$work/node/package/bin/napi-v6/win32/x64

# The functions a real binary imports from one DLL, from dlldoctor's own reading of its import table.
imports_of() {  # BINARY DLL
  "$dlldoctor" inspect --format json "$1" | python3 -c '
import json, sys
image = json.load(sys.stdin)
for dll in image["imports"]:
    if dll["dll"].lower() == sys.argv[1].lower():
        for f in dll["functions"]:
            print(f["name"] if f.get("name") else "@%d" % f["ordinal"])' "$2"
}
stand_in() {  # OUT VERSION COMPANY DESCRIPTION [BINARY DLL]... : exports what each BINARY imports from DLL
  local out=$1 version=$2 company=$3 description=$4
  shift 4
  local exports=(dd_stand_in_export)
  while [ $# -ge 2 ]; do
    mapfile -t -O "${#exports[@]}" exports < <(imports_of "$1" "$2")
    shift 2
  done
  "$support/make_stand_in.sh" "$cc" "$windres" "$rc_dir" "$out" "$version" "$company" "$description" \
    $(printf '%s\n' "${exports[@]}" | sort -u)
}

# A whole Windows: Wine's own system DLLs and its API set schema, nothing assumed.
windows() {  # SYSROOT
  mkdir -p "$1/Windows/System32"
  for dll in kernel32 kernelbase ntdll ucrtbase msvcrt msvcp140 msvcp140_1 msvcp140_atomic_wait vcruntime140 \
    vcruntime140_1 apisetschema; do
    cp "$wine_dlls/$dll.dll" "$1/Windows/System32/"
  done
  mkdir -p "$1/app" "$1/work"
}
sys=$work/stand-ins
cuda13=$sys/cuda13/bin/x64
stand_in "$cuda13/cublas64_13.dll" 13.0.2.14 "NVIDIA Corporation" "NVIDIA cuBLAS Library" \
  "$ort13/onnxruntime_providers_cuda.dll" cublas64_13.dll
stand_in "$cuda13/cublasLt64_13.dll" 13.0.2.14 "NVIDIA Corporation" "NVIDIA cuBLASLt Library" \
  "$ort13/onnxruntime_providers_cuda.dll" cublasLt64_13.dll
cp "$fixtures/x64/cudart64_13.dll" "$cuda13/"
# Driver 581.29 (nvcuda.dll 32.0.15.8129), new enough for CUDA 13 (580).
stand_in "$sys/driver/nvcuda.dll" 32.0.15.8129 "NVIDIA Corporation" "NVIDIA CUDA Driver, Version 581.29"
# Windows ML's onnxruntime.dll 1.17 in System32, with what onnxruntime-node's addon imports from it.
stand_in "$sys/windows-ml/onnxruntime.dll" 1.17.2603.1434 "Microsoft Corporation" "ONNX Runtime" \
  "$binding/onnxruntime_binding.node" onnxruntime.dll
mkdir -p "$sys/cudnn/bin"
cp "$fixtures"/x64/cudnn*64_9.dll "$sys/cudnn/bin/"

failures=0
report_prelude=$(cat <<'PY'
import json
report = json.load(open(args[0]))
modules = {}
for m in report["modules"]:
    modules.setdefault(m["name"].lower(), m)
findings = [f["id"] for f in report["findings"]]
loud = [(f["id"], f["module"]) for f in report["findings"] if f["severity"] in ("error", "warning")]
def finding(id, module=None):
    for f in report["findings"]:
        if f["id"] == id and (module is None or (f["module"] or "").lower() == module.lower()):
            return f
    return {}
PY
)
check() {  # NAME JSON_FILE PYTHON_ASSERTIONS
  local name=$1 report=$2 assertions=$3 status=0
  python3 "$support/expect.py" "$report_prelude" "$assertions" "$report" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL: $name"
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}
run() {  # OUT EXPECTED_EXIT ARGS...
  local out=$1 expected=$2 code=0
  shift 2
  "$dlldoctor" "$@" --format json >"$out" 2>"$out.err" || code=$?
  if [ "$code" -ne "$expected" ]; then
    echo "FAIL: dlldoctor $* exited $code, expected $expected: $(cat "$out.err")"
    failures=$((failures + 1))
  fi
}
# The provider bridge's two loads (onnxruntime's provider_bridge_ort.cc): by full path, altered search path.
provider_loads() {  # FOLDER
  echo --load "$1/onnxruntime_providers_shared.dll" --flags 0x8 --load "$1/onnxruntime_providers_cuda.dll" --flags 0x8
}
gpu_machine() {  # SYSROOT [no-cudnn] [no-driver]
  windows "$1"
  mkdir -p "$1/cuda" "$1/tools"
  cp -r "$sys/cuda13" "$1/cuda/"
  case " $* " in *" no-driver "*) ;; *) cp "$sys/driver/nvcuda.dll" "$1/Windows/System32/" ;; esac
  case " $* " in *" no-cudnn "*) ;; *) cp -r "$sys/cudnn" "$1/tools/" ;; esac
}
path13='C:\cuda\cuda13\bin\x64;C:\tools\cudnn\bin'

# 1. CUDA 13 and cuDNN 9 on PATH, a new enough driver: the real 1.29 provider loads and works. The CUDA 12
#    names and nvrtc in its data are no needs; cuDNN is found by its own walk of PATH.
gpu_machine "$work/healthy"
run "$work/healthy.json" 0 --sysroot "$work/healthy" --host 'C:\app\host.exe' --path "$path13" --cwd 'C:\work' \
  $(provider_loads "$ort13")
check "CUDA 13 provider on CUDA 13 + cuDNN 9: healthy, no error or warning" "$work/healthy.json" "
expect(report['outcome']['status'] == 'ok', 'outcome: %s' % report['outcome'])
expect(loud == [], 'errors or warnings on a healthy machine: %s' % loud)
provider = modules.get('onnxruntime_providers_cuda.dll', {})
expect(sorted(n.lower() for n in provider.get('other_major', [])) == ['cudart64_12.dll', 'nvrtc64_120_0.dll'],
       'other_major: %s' % provider.get('other_major'))
cudnn = modules.get('cudnn64_9.dll', {})
expect(cudnn.get('load') == 'named_in_data' and cudnn.get('status') == 'ok', 'cudnn64_9.dll: %s' % cudnn)
expect(cudnn.get('windows_path') == 'C:\\\\tools\\\\cudnn\\\\bin\\\\cudnn64_9.dll', 'cudnn64_9.dll from %s' % cudnn.get('windows_path'))
expect('cuda-major-mismatch' not in findings, 'findings: %s' % findings)
"

# 2. No cuDNN anywhere: loading the provider succeeds; the failure comes when a session first needs cuDNN,
#    with the text onnxruntime prints then.
gpu_machine "$work/no-cudnn" no-cudnn
run "$work/no-cudnn.json" 1 --sysroot "$work/no-cudnn" --host 'C:\app\host.exe' --path "$path13" --cwd 'C:\work' \
  $(provider_loads "$ort13")
check "CUDA 13 provider without cuDNN: the load succeeds, cuDNN's absence is the one error" "$work/no-cudnn.json" "
expect(report['outcome']['status'] == 'ok', 'outcome: %s' % report['outcome'])
expect(loud == [('missing-runtime', 'cudnn64_9.dll')], 'errors and warnings: %s' % loud)
f = finding('missing-runtime', 'cudnn64_9.dll')
expect('loading onnxruntime_providers_cuda.dll succeeds, and the failure comes then' in f.get('message', ''), f.get('message'))
expect(any('cuDNN is unavailable or disabled for CUDA Execution Provider' in line for line in f.get('says', [])), f.get('says'))
"

# 3. No GPU driver: nvcuda.dll, which the provider's CUDA runtime loads, comes only with the driver.
gpu_machine "$work/no-driver" no-driver
run "$work/no-driver.json" 1 --sysroot "$work/no-driver" --host 'C:\app\host.exe' --path "$path13" --cwd 'C:\work' \
  $(provider_loads "$ort13")
check "CUDA 13 provider without a GPU driver: install the driver, never search the disk" "$work/no-driver.json" "
expect(loud == [('missing-runtime', 'nvcuda.dll')], 'errors and warnings: %s' % loud)
f = finding('missing-runtime', 'nvcuda.dll')
expect('comes with the NVIDIA display driver, never with a program' in f.get('message', ''), f.get('message'))
expect(not any('Get-ChildItem' in line for line in f.get('fix', [])), f.get('fix'))
plan = report['plan'] or {}
expect(plan.get('verified') is True and [s['kind'] for s in plan.get('steps', [])] == ['install'], 'plan: %s' % plan)
"

# 4. The CUDA 12 build (1.25, which imports cuDNN, cuFFT and the CUDA 12 runtime) on a machine with only CUDA 13.
#    Its cuDNN dispatcher is a stand-in with what the provider imports from it; the siblings are the fixtures'.
gpu_machine "$work/cuda12-needed"
stand_in "$work/cuda12-needed/tools/cudnn/bin/cudnn64_9.dll" 9.1.0.70 "NVIDIA Corporation" \
  "NVIDIA CUDA Deep Neural Network library" "$ort12/onnxruntime_providers_cuda.dll" cudnn64_9.dll
run "$work/cuda12.json" 1 --sysroot "$work/cuda12-needed" --host 'C:\app\host.exe' --path "$path13" --cwd 'C:\work' \
  $(provider_loads "$ort12")
check "CUDA 12 provider on CUDA 13: CUDA 13 is installed, and the two ways out" "$work/cuda12.json" "
expect(report['outcome']['status'] == 'fails' and report['outcome']['error'] == 126, 'outcome: %s' % report['outcome'])
expect(loud == [('cuda-major-mismatch', 'cublasLt64_12.dll')], 'errors and warnings: %s' % loud)
f = finding('cuda-major-mismatch')
expect('4 CUDA 12 libraries, needed by onnxruntime_providers_cuda.dll, are not installed: cublasLt64_12.dll, cublas64_12.dll, cufft64_11.dll, cudart64_12.dll. CUDA 13 is (' in f.get('message', ''), f.get('message'))
expect('cannot stand in' in f.get('message', ''), f.get('message'))
expect(any('made for CUDA 13' in line for line in f.get('fix', [])), f.get('fix'))
"

# 5. Windows ML's onnxruntime.dll 1.17 in System32 and onnxruntime-node's addon with its own 1.30 beside it,
#    loaded with a plain LoadLibrary: Windows' old copy wins. With libuv's LOAD_WITH_ALTERED_SEARCH_PATH
#    (node-addon) the addon's own copy does, and nothing is said. The real onnxruntime.dll imports more of
#    Windows than this test copies (SETUPAPI, dbghelp, d3d12): a partial copy, --assume-system-dlls.
windows "$work/winml"
cp "$sys/windows-ml/onnxruntime.dll" "$work/winml/Windows/System32/"
run "$work/winml.json" 0 --sysroot "$work/winml" --assume-system-dlls --host 'C:\app\MyApp.exe' \
  --load "$binding/onnxruntime_binding.node" --flags 0x0 --cwd 'C:\work'
check "Windows ML's System32 onnxruntime.dll 1.17 wins over the addon's 1.30: a warning" "$work/winml.json" "
expect(report['outcome']['status'] == 'ok', 'outcome: %s' % report['outcome'])
expect(loud == [('bundled-copy-loses', 'onnxruntime.dll')], 'errors and warnings: %s' % loud)
f = finding('bundled-copy-loses', 'onnxruntime.dll')
expect(f.get('evidence', {}).get('windows_component') == 'Windows ML', f.get('evidence'))
expect('The requested API version [30] is not available, only API versions [1, 17]' in f.get('message', ''), f.get('message'))
expect(not any('Remove-Item' in line for line in f.get('fix', [])), f.get('fix'))
"
run "$work/winml-addon.json" 0 --sysroot "$work/winml" --assume-system-dlls --host 'C:\app\MyApp.exe' \
  --load "$binding/onnxruntime_binding.node" --profile node-addon --cwd 'C:\work'
check "the same addon loaded as libuv loads it: its own onnxruntime.dll, nothing to say" "$work/winml-addon.json" "
expect(report['outcome']['status'] == 'ok', 'outcome: %s' % report['outcome'])
expect(loud == [], 'errors or warnings: %s' % loud)
expect(modules['onnxruntime.dll']['found_by'] == 'dll_load_dir', modules['onnxruntime.dll'])
"

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
