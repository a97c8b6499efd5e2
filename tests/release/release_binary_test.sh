#!/usr/bin/env bash
# The Linux binary users get starts on older distributions than the one it is built on.
#   release_binary_test.sh DLLDOCTOR EXAMPLE_DIR WORK_DIR CACHE_DIR
# DLLDOCTOR is a Release build (./dev.sh test builds one in build/ and names it with -DDLLDOCTOR_RELEASE_BINARY).
# Checks the glibc symbol versions it binds (none newer than 2.28, or none at all when static), then unpacks
# the oldest Debian release the package mirror still serves with debootstrap (cached in CACHE_DIR) and runs the
# bundled example with the binary inside it, under chroot.
set -euo pipefail
dlldoctor=$1
example=$2
work=$3
cache=$4
mirror=${DLLDOCTOR_DEBIAN_MIRROR:-http://deb.debian.org/debian}
oldest_glibc=2.28
# shellcheck source=verdicts.sh
source "$(dirname "${BASH_SOURCE[0]}")/verdicts.sh"
[ -n "$dlldoctor" ] || skip "no Release binary was named (configure with -DDLLDOCTOR_RELEASE_BINARY=PATH; ./dev.sh test does)"
[ -x "$dlldoctor" ] || fail "$dlldoctor is not an executable file"
command -v objdump >/dev/null || skip "missing: objdump (Debian package binutils)"

# The symbol versions: a static binary has no dynamic symbols; a dynamic one may bind nothing newer than 2.28.
symbols=$(LC_ALL=C objdump -T "$dlldoctor" 2>&1 || true)
if grep -q "not a dynamic object" <<<"$symbols"; then
  echo "static: $dlldoctor binds no glibc symbol version"
else
  newest=$(grep -o 'GLIBC_[0-9][0-9.]*' <<<"$symbols" | sed 's/GLIBC_//' | sort -V | tail -1)
  [ -n "$newest" ] || fail "objdump -T lists no glibc symbol version for a dynamic binary: $symbols"
  [ "$(printf '%s\n%s\n' "$newest" "$oldest_glibc" | sort -V | tail -1)" = "$oldest_glibc" ] ||
    fail "$dlldoctor needs glibc $newest (objdump -T): it does not start on glibc $oldest_glibc"
  echo "dynamic: the newest glibc symbol version it binds is $newest"
fi

# The oldest release the mirror serves (buster's glibc is 2.28; the mirror may have moved it to the archive).
command -v debootstrap >/dev/null || skip "missing: debootstrap (Debian package debootstrap)"
[ "$(id -u)" -eq 0 ] || skip "debootstrap and chroot need root (./dev.sh test and CI run as root)"
root=""
for suite in buster bullseye bookworm; do
  if [ -f "$cache/$suite/.complete" ]; then
    root=$cache/$suite
    break
  fi
  rm -rf "$cache/$suite"
  mkdir -p "$cache"
  if debootstrap --variant=minbase "$suite" "$cache/$suite" "$mirror" >"$cache/$suite.log" 2>&1; then
    touch "$cache/$suite/.complete"
    root=$cache/$suite
    break
  fi
  rm -rf "$cache/$suite"
  echo "debootstrap $suite from $mirror failed (last line: $(tail -1 "$cache/$suite.log"))"
done
[ -n "$root" ] || fail "debootstrap reached none of buster, bullseye, bookworm at $mirror"
glibc=$(chroot "$root" ldd --version 2>&1 | sed -n 1p)
echo "root file system: $(basename "$root"), $glibc"

rm -rf "$root/opt/dlldoctor-test"
mkdir -p "$root/opt/dlldoctor-test"
cp "$dlldoctor" "$root/opt/dlldoctor-test/dlldoctor"
cp -r "$example" "$root/opt/dlldoctor-test/example"
inside=/opt/dlldoctor-test
status=0
out=$(chroot "$root" "$inside/dlldoctor" "$inside/example/app/app.exe" --path "$inside/example/cuda/bin" \
  --path "$inside/example/cudnn/bin" 2>&1) || status=$?
rm -rf "$root/opt/dlldoctor-test"
mkdir -p "$work"
printf '%s\n' "$out" >"$work/example-in-$(basename "$root").txt"
[ "$status" -eq 1 ] || fail "in $(basename "$root") ($glibc): exit status $status on the bundled example, not 1: $out"
grep -q "error \[missing-sibling\] 5.2" <<<"$out" || fail "in $(basename "$root"): no missing-sibling finding: $out"
grep -q "Plan: verified" <<<"$out" || fail "in $(basename "$root"): no verified plan: $out"
echo "the bundled example's report in $(basename "$root") is as on the build machine"
