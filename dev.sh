#!/usr/bin/env bash
# The two set-up commands of the README live here, so a fresh Debian 12 machine (compilers only) and CI
# run exactly the same steps:
#   ./dev.sh demo   install what is missing, build, run dlldoctor on the bundled broken cuDNN example
#   ./dev.sh test   install what is missing, build with ASan/UBSan and -Werror, run every test, fuzz briefly
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages (issue 2: nothing is vendored). The demo installs only what it uses: the build, the PE
# fixtures its example is made of (mingw-w64, clang/lld, hivex for the fixture hives), ld.lld (package lld)
# for the binary's link (src/CMakeLists.txt: the functions a run executes, together), Graphviz for the
# README's picture, and doctest's headers, which the lean build's header-only set links (cmake/HeaderOnlyDeps)
# whether or not it builds the tests. The tests add LIEF, the JSON validator, the Windows build of
# dlldoctor.exe, Wine, the fuzzers' runtime and Chromium.
demo_packages=(
  cmake ninja-build g++ pkg-config
  libcli11-dev libfmt-dev libboost-filesystem-dev nlohmann-json3-dev libtomlplusplus-dev doctest-dev
  gcc-mingw-w64-x86-64 gcc-mingw-w64-i686 binutils-mingw-w64-x86-64 binutils-mingw-w64-i686
  clang-14 lld-14 lld llvm-14
  libwin-hivex-perl
  graphviz
)
test_packages=(
  liblief-dev python3-jsonschema python3-venv python3-yaml
  g++-mingw-w64-x86-64-posix libclang-rt-14-dev
  wine64
  chromium
  debootstrap
)

# install_missing PACKAGE...: apt-get install those not installed yet.
install_missing() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "dev.sh: installing ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

jobs=$(nproc)

case "${1:-}" in
  demo)
    install_missing "${demo_packages[@]}"
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DDLLDOCTOR_BUILD_TESTS=OFF >/dev/null
    cmake --build build -j "$jobs"
    example=build/examples/broken-cudnn
    # The bundled example: a cuDNN 9.1 zip unpacked only in part, an old 9.0 dispatcher in the CUDA bin
    # folder earlier on PATH (build/examples/broken-cudnn/README.txt).
    echo
    echo "== dlldoctor $example/app/app.exe --path $example/cuda/bin --path $example/cudnn/bin"
    echo
    # Exit status 1 means "problems found", which is the point of the example.
    build/src/dlldoctor "$example/app/app.exe" --path "$example/cuda/bin" --path "$example/cudnn/bin" || true
    ;;
  test)
    install_missing "${demo_packages[@]}" "${test_packages[@]}"
    # The Release binary users get, in the demo's folder (nothing to build when the demo ran): the release
    # tests pack it and run it on an older Debian.
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DDLLDOCTOR_BUILD_TESTS=OFF >/dev/null
    cmake --build build -j "$jobs" --target dlldoctor
    # One sanitized build runs the whole suite: the reader faces hostile bytes, so every test doubles as
    # an ASan/UBSan check.
    cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDLLDOCTOR_SANITIZE=ON -DDLLDOCTOR_WERROR=ON \
      -DDLLDOCTOR_RELEASE_BINARY="$PWD/build/src/dlldoctor" >/dev/null
    cmake --build build-test -j "$jobs"
    # Short, fixed-time fuzzing runs (clang + libFuzzer), side by side on the cores: the PE reader for a
    # minute, the hive, import library and API set readers and the whole pipeline (one hostile DLL in a
    # world of fixtures) 20 s each; then every test. CTest's summary is the last thing printed;
    # its results also go to build-test/ctest-results.xml, where .ci/run finds which tests were skipped.
    fuzz/run.sh 20 pe_reader=60 registry_hive import_library api_set pipeline machine
    (cd build-test && ctest --output-on-failure -j "$jobs" --output-junit "$PWD/ctest-results.xml")
    ;;
  *)
    echo "usage: ./dev.sh demo | ./dev.sh test" >&2
    exit 2
    ;;
esac
