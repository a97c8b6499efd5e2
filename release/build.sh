#!/usr/bin/env bash
# Cuts a release: optimised Linux and Windows builds of this checkout, then release/pack.py (docs/DECISIONS.md,
# "Releasing"). Run on Debian 12 after ./dev.sh demo has installed the tool chain:
#   release/build.sh [OUT_DIR]      (default: dist/)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] ||
  { echo "release/build.sh: the checkout has changes not committed; a release is built from a commit" >&2; exit 2; }
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DDLLDOCTOR_BUILD_TESTS=OFF -DDLLDOCTOR_BUILD_FIXTURES=OFF >/dev/null
cmake --build build-release --target dlldoctor
# The cross build cannot run the rules compiler: it embeds the rules the Linux build compiled.
cmake -S . -B build-release-windows -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/mingw-toolchain.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DDLLDOCTOR_BUILD_TESTS=OFF -DDLLDOCTOR_BUILD_FIXTURES=OFF \
  -DDLLDOCTOR_COMPILED_RULES="$PWD/build-release/src/generated/compiled-rules.bin" >/dev/null
cmake --build build-release-windows --target dlldoctor
python3 release/pack.py --linux build-release/src/dlldoctor --windows build-release-windows/src/dlldoctor.exe \
  --out "$out"
