#!/usr/bin/env bash
# The release's files from release/pack.py, as a user gets them (docs/DECISIONS.md, "Releasing").
#   release_test.sh DLLDOCTOR DLLDOCTOR.EXE EXAMPLE_DIR WORK_DIR
# Packs twice (same bytes: reproducible), checks SHA256SUMS, unpacks each archive into a folder whose name
# has a space and letters outside ASCII and runs the bundled example with it (the .exe under Wine), runs a
# binary copied alone (the built-in rules), checks the Scoop and winget manifests against the zip's hash,
# and installs the Linux wheel into a venv and runs dlldoctor --version from it.
set -euo pipefail
dlldoctor=$1
exe=$2
example=$3
work=$4
here=$(cd "$(dirname "$0")/../.." && pwd)
wine=/usr/lib/wine/wine64
# shellcheck source=verdicts.sh
source "$(dirname "${BASH_SOURCE[0]}")/verdicts.sh"
[ -x "$wine" ] || skip "missing: $wine (Debian package wine64; ./dev.sh test installs it)"
python3 -c 'import venv, ensurepip' 2>/dev/null || skip "missing: python3's venv and ensurepip (Debian package python3-venv)"
python3 -c 'import yaml' 2>/dev/null || skip "missing: python3's yaml module (Debian package python3-yaml)"

rm -rf "$work"
mkdir -p "$work"
export SOURCE_DATE_EPOCH=1764806400
python3 "$here/release/pack.py" --linux "$dlldoctor" --windows "$exe" --out "$work/a" >/dev/null
python3 "$here/release/pack.py" --linux "$dlldoctor" --windows "$exe" --out "$work/b" >/dev/null
diff -r "$work/a" "$work/b" >/dev/null || fail "two packs of the same binaries differ"
(cd "$work/a" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match the files"
version=$(python3 -c "import re;print(re.search(r'project\(dlldoctor VERSION ([0-9.]+)', open('$here/CMakeLists.txt').read()).group(1))")
tarball="$work/a/dlldoctor-$version-linux-x64.tar.gz"
zip="$work/a/dlldoctor-$version-windows-x64.zip"
[ -f "$tarball" ] && [ -f "$zip" ] || fail "pack.py wrote no archives for version $version"

example_args=("$example/app/app.exe" --path "$example/cuda/bin" --path "$example/cudnn/bin")
expect_example() {  # what a run of the bundled example must say
  local status=$1 out=$2 who=$3
  [ "$status" -eq 1 ] || fail "$who: exit status $status on the bundled example, not 1"
  grep -q "error \[missing-sibling\] 5.2" <<<"$out" || fail "$who: no missing-sibling finding: $out"
  grep -q "Plan: verified" <<<"$out" || fail "$who: no verified plan: $out"
}

# The Linux archive, unpacked where the path has a space and non-ASCII letters.
linux_dir="$work/unpacked linux é ß"
mkdir -p "$linux_dir"
tar -xzf "$tarball" -C "$linux_dir"
top="$linux_dir/dlldoctor-$version-linux-x64"
for f in dlldoctor README.md LICENSE THIRD_PARTY_NOTICES.txt rules/cudnn.toml schemas/report-schema.json; do
  [ -e "$top/$f" ] || fail "the Linux archive has no $f"
done
grep -q "Boost Software License - Version 1.0" "$top/THIRD_PARTY_NOTICES.txt" || fail "no Boost licence in the notices"
status=0
out=$("$top/dlldoctor" "${example_args[@]}") || status=$?
expect_example "$status" "$out" "the unpacked Linux archive"
grep -q "^rules: folder .*unchanged)" <<<"$("$top/dlldoctor" --version)" || fail "the unpacked binary does not say it read its rules folder"

# The binary alone: the built-in rules, the same report.
alone="$work/alone ü"
mkdir -p "$alone"
cp "$top/dlldoctor" "$alone/"
status=0
alone_out=$("$alone/dlldoctor" "${example_args[@]}") || status=$?
expect_example "$status" "$alone_out" "the binary copied alone"
# The same report but for its last line (wrapped when long), which says which rules were read.
[ "$(sed '/^rules: /,$d' <<<"$alone_out")" = "$(sed '/^rules: /,$d' <<<"$out")" ] ||
  fail "the binary alone and with its rules folder report differently"
"$alone/dlldoctor" --version --format json | python3 -c '
import json, sys
v = json.load(sys.stdin)
assert v["rules"]["source"] == "built-in", v
assert v["version"] and v["commit"] and v["api_set_table"].startswith("Windows"), v
' || fail "--version --format json of the binary alone"

# The Windows archive, under Wine: the same report of the same example.
windows_dir="$work/unpacked windows é ß"
mkdir -p "$windows_dir"
python3 -m zipfile -e "$zip" "$windows_dir"
wtop="$windows_dir/dlldoctor-$version-windows-x64"
for f in dlldoctor.exe README.md LICENSE THIRD_PARTY_NOTICES.txt rules/cudnn.toml schemas/report-schema.json; do
  [ -e "$wtop/$f" ] || fail "the Windows archive has no $f"
done
grep -q "mingw-w64" "$wtop/THIRD_PARTY_NOTICES.txt" || fail "no mingw-w64 runtime in the Windows notices"
zpath() { echo "Z:${1//\//\\}"; }
status=0
wout=$(WINEPREFIX="$work/wine-prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" \
  "$wine" "$wtop/dlldoctor.exe" "$(zpath "$example/app/app.exe")" --path "$(zpath "$example/cuda/bin")" \
  --path "$(zpath "$example/cudnn/bin")" 2>"$work/wine.err") || status=$?
expect_example "$status" "$wout" "the unpacked Windows archive under Wine"
# dlldoctor.exe copied alone: its built-in rules.
alone_exe="$work/alone exe ü"
mkdir -p "$alone_exe"
cp "$wtop/dlldoctor.exe" "$alone_exe/"
status=0
wout=$(WINEPREFIX="$work/wine-prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" \
  "$wine" "$alone_exe/dlldoctor.exe" "$(zpath "$example/app/app.exe")" --path "$(zpath "$example/cuda/bin")" \
  --path "$(zpath "$example/cudnn/bin")" 2>>"$work/wine.err") || status=$?
expect_example "$status" "$wout" "dlldoctor.exe copied alone, under Wine"
grep -q "^rules: built-in " <<<"$wout" || fail "dlldoctor.exe alone does not say it read its built-in rules: $wout"

# The manifests name the zip and its hash.
zip_hash=$(sha256sum "$zip" | cut -d' ' -f1)
python3 - "$work/a" "$zip_hash" "$version" <<'PY' || fail "the Scoop or winget manifests do not match the zip"
import json, sys, yaml
from pathlib import Path
out, digest, version = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
scoop = json.loads((out / "dlldoctor.json").read_text())
arch = scoop["architecture"]["64bit"]
assert scoop["version"] == version and arch["hash"] == digest, scoop
assert arch["url"].endswith(f"dlldoctor-{version}-windows-x64.zip") and scoop["bin"] == "dlldoctor.exe", scoop
kinds = {}
for manifest in sorted((out / "winget").glob("*.yaml")):
    data = yaml.safe_load(manifest.read_text())
    assert data["PackageIdentifier"] == "Dlldoctor.Dlldoctor" and str(data["PackageVersion"]) == version, data
    kinds[data["ManifestType"]] = data
assert set(kinds) == {"version", "installer", "defaultLocale"}, kinds
installer = kinds["installer"]["Installers"][0]
assert installer["InstallerSha256"] == digest.upper() and installer["InstallerUrl"] == arch["url"], installer
PY

# pip install dlldoctor, in a venv, from the wheel: the console script is the binary.
python3 -m venv "$work/venv"
# The Linux wheel's tag is the oldest glibc the binary starts on: any (2_17, pip's oldest) when it is static,
# whose notices then carry glibc's licence and where its source is.
if readelf -lW "$dlldoctor" | grep -q "program interpreter"; then
  linux_wheel=$(ls "$work/a/dlldoctor-$version-py3-none-manylinux_"*_x86_64.whl)
else
  linux_wheel=$work/a/dlldoctor-$version-py3-none-manylinux_2_17_x86_64.whl
  [ -f "$linux_wheel" ] || fail "the static binary's wheel is not tagged manylinux_2_17: $(ls "$work/a")"
  grep -q "GNU LESSER GENERAL PUBLIC LICENSE" "$top/THIRD_PARTY_NOTICES.txt" &&
    grep -q "^glibc's source is Debian's glibc" "$top/THIRD_PARTY_NOTICES.txt" ||
    fail "the static binary's notices lack glibc's licence or where its source is"
fi
"$work/venv/bin/pip" install --quiet --no-index --no-deps "$linux_wheel" || fail "pip refused the Linux wheel"
grep -q "^dlldoctor $version" <<<"$("$work/venv/bin/dlldoctor" --version)" || fail "dlldoctor --version from the venv"
# The listing is read whole first: grep -q stops at its first match, and the lister then dies of a closed
# pipe, which pipefail counts as a failure.
wheel_files=$(python3 -m zipfile -l "$work/a/dlldoctor-$version-py3-none-win_amd64.whl")
grep -q "scripts/dlldoctor.exe" <<<"$wheel_files" ||
  fail "the win_amd64 wheel has no dlldoctor.exe script"
echo "release files: reproducible, summed, unpacked and run (Linux, alone, Wine), manifests and wheel checked"
