#!/usr/bin/env bash
# dlldoctor on real Windows binaries written by others: the MSVC-built DLLs that npm packages ship, fetched
# with `npm pack` into a cache folder. onnxruntime-node's addon is hosted by a renamed program (an Electron
# app) and loaded as libuv loads addons (--profile node-addon): its delay import of node.exe is answered by
# node-gyp's delay-load hook, onnxruntime.dll beside it is found through the altered search path, and
# onnxruntime.dll's own hook loads the DirectML.dll beside it; sharp's addon finds libvips beside it. The
# MSVC runtime comes from Wine's DLLs, in a sysroot of this test's own. Without npm or the registry this
# exits 77 with a "skipped" line (CTest: skipped; .ci/check_skips.py accepts it: label needs-npm-registry).
#   npm_binaries_test.sh DLLDOCTOR CACHE_DIR WORK_DIR
set -euo pipefail
dlldoctor=${1:?usage: npm_binaries_test.sh DLLDOCTOR CACHE_DIR WORK_DIR}
cache=${2:?}
work=${3:?}
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
fetch onnxruntime-node@1.30.0 onnxruntime-node-1.30.0.tgz
fetch @img/sharp-win32-x64@0.35.5 img-sharp-win32-x64-0.35.5.tgz

rm -rf "$work"
mkdir -p "$work/ort" "$work/sharp" "$work/sys/Windows/System32" "$work/bare/Windows/System32"
tar xzf "$cache/onnxruntime-node-1.30.0.tgz" -C "$work/ort"
tar xzf "$cache/img-sharp-win32-x64-0.35.5.tgz" -C "$work/sharp"
for dll in msvcp140 msvcp140_1 msvcp140_atomic_wait vcruntime140 vcruntime140_1 concrt140; do
  cp "$wine_dlls/$dll.dll" "$work/sys/Windows/System32/"
done
ort=$work/ort/package/bin/napi-v6/win32/x64
sharp=$work/sharp/package/lib

failures=0
report_prelude=$(cat <<'PY'
import json
report = json.load(open(args[0]))
modules = {}
for m in report["modules"]:
    modules.setdefault(m["name"].lower(), m)
findings = [f["id"] for f in report["findings"]]
loud = [(f["id"], f["module"]) for f in report["findings"] if f["severity"] in ("error", "warning")]
PY
)
check() {  # NAME EXPECTED_EXIT JSON_FILE PYTHON_ASSERTIONS
  local name=$1 expected=$2 report=$3 assertions=$4 status=0
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

run "$work/ort.json" 0 --sysroot "$work/sys" --assume-system-dlls --host 'C:\app\MyElectronApp.exe' \
  --load "$ort/onnxruntime_binding.node" --profile node-addon
check "onnxruntime-node: the addon, onnxruntime.dll and DirectML.dll load; node.exe is the host" 0 "$work/ort.json" "
folder = '$ort'
expect(report['outcome']['status'] == 'ok', 'outcome: %s' % report['outcome'])
expect(findings == [], 'findings: %s' % findings)
expect('node.exe' not in modules, 'node.exe was looked for')
ort = modules.get('onnxruntime.dll', {})
expect(ort.get('path') == folder + '/onnxruntime.dll' and ort.get('found_by') == 'dll_load_dir',
       'onnxruntime.dll: %s %s' % (ort.get('path'), ort.get('found_by')))
dml = modules.get('directml.dll', {})
expect(dml.get('path') == folder + '/DirectML.dll' and dml.get('load') == 'delay',
       'DirectML.dll: %s %s' % (dml.get('path'), dml.get('load')))
expect(str(dml.get('file_version', '')).startswith('1.'), 'DirectML.dll version: %s' % dml.get('file_version'))
for name in ('onnxruntime_binding.node', 'onnxruntime.dll', 'directml.dll'):
    owner = modules.get(name, {}).get('owner') or {}
    expect((owner.get('kind'), owner.get('name'), owner.get('version')) == ('npm_package', 'onnxruntime-node', '1.30.0'),
           '%s: owner %s' % (name, owner))
"

# The same package with its DLLs moved to lib\ (where many packages keep them, with an index.js that puts
# that folder on PATH): loaded by itself, onnxruntime.dll is not found, and the finding names the copy in the
# addon's own package and plans that folder on PATH.
cp -r "$work/ort/package" "$work/ort-lib"
mkdir -p "$work/ort-lib/lib"
mv "$work/ort-lib/bin/napi-v6/win32/x64/"*.dll "$work/ort-lib/lib/"
run "$work/ort-lib.json" 1 --sysroot "$work/sys" --assume-system-dlls --host 'C:\app\MyElectronApp.exe' \
  --load "$work/ort-lib/bin/napi-v6/win32/x64/onnxruntime_binding.node" --profile node-addon
check "onnxruntime-node with its DLLs in lib\\: the copy in the addon's package is named, PATH planned" 1 "$work/ort-lib.json" "
found = [f for f in report['findings'] if f['id'] == 'not-on-search-path' and f['module'].lower() == 'onnxruntime.dll']
expect(found and 'own package has a copy' in found[0]['message'],
       'findings: %s' % [(f['id'], f['message']) for f in report['findings']])
expect(found and found[0]['evidence']['copies'][0]['path'] == '$work/ort-lib/lib/onnxruntime.dll',
       'copy: %s' % (found and found[0]['evidence']['copies']))
expect(report['plan'] and report['plan']['verified'], 'plan: %s' % report['plan'])
"

# The same addon on a Windows without the Visual C++ runtime: the real import tables name it.
run "$work/ort-bare.json" 1 --sysroot "$work/bare" --assume-system-dlls --host 'C:\app\node.exe' \
  --load "$ort/onnxruntime_binding.node" --profile node-addon
check "onnxruntime-node without the MSVC runtime fails with 126 on MSVCP140.dll" 1 "$work/ort-bare.json" "
expect(report['outcome']['status'] == 'fails' and report['outcome']['error'] == 126, 'outcome: %s' % report['outcome'])
missing = [m['dll'].lower() for m in report['outcome']['missing']]
expect('msvcp140.dll' in missing, 'missing: %s' % missing)
expect('missing-runtime' in findings, 'findings: %s' % findings)
"

run "$work/sharp.json" 0 --sysroot "$work/sys" --assume-system-dlls --host 'C:\app\Code.exe' \
  --load "$sharp/sharp-win32-x64-0.35.5.node" --profile node-addon
check "sharp: libvips beside the addon is found; node.exe is the host" 0 "$work/sharp.json" "
folder = '$sharp'
expect(report['outcome']['status'] == 'ok', 'outcome: %s' % report['outcome'])
expect('node.exe' not in modules, 'node.exe was looked for')
expect(loud == [], 'errors or warnings on a healthy install: %s' % loud)
for name in ('libvips-42.dll', 'libvips-cpp-8.18.7.dll'):
    m = modules.get(name, {})
    expect(m.get('path') == folder + '/' + name and m.get('found_by') == 'dll_load_dir',
           '%s: %s %s' % (name, m.get('path'), m.get('found_by')))
    owner = m.get('owner') or {}
    expect((owner.get('kind'), owner.get('name')) == ('npm_package', '@img/sharp-win32-x64'), '%s: owner %s' % (name, owner))
"

# inspect lists the delay import the hook answers and the providers named only in data.
if ! "$dlldoctor" inspect "$ort/onnxruntime.dll" >"$work/inspect.txt" 2>&1 ||
  ! grep -q "DirectML.dll" "$work/inspect.txt" || ! grep -q "onnxruntime_providers_cuda.dll" "$work/inspect.txt"; then
  echo "FAIL: inspect onnxruntime.dll does not list DirectML.dll and onnxruntime_providers_cuda.dll"
  failures=$((failures + 1))
else
  echo "ok: inspect onnxruntime.dll lists its delay import and the providers named in data"
fi

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
