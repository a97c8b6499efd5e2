#!/usr/bin/env bash
# Fuzzes the PE reader for SECONDS with libFuzzer (clang-14, ASan + UBSan), starting from fuzz/corpus
# and any extra seed folders given (e.g. build/fixtures/malformed). The committed corpus is copied to a
# scratch folder first so that it is never modified; crash, leak and timeout reproducers land in
# fuzz/crashes/. Exits non-zero when the fuzzer finds something.
#   fuzz/run.sh SECONDS [SEED_DIR...]
set -euo pipefail

seconds=${1:?usage: fuzz/run.sh SECONDS [SEED_DIR...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz

CC=${CC:-clang-14} CXX=${CXX:-clang++-14} cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDLLDOCTOR_FUZZ=ON -DDLLDOCTOR_BUILD_FIXTURES=OFF -DDLLDOCTOR_BUILD_TESTS=OFF
cmake --build "$build" --target pe_reader_fuzz

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$root/fuzz/corpus/." "$scratch/"
rm -f "$scratch/README.md"
mkdir -p "$root/fuzz/crashes"

# -timeout: no single input may take 10 s; -rss_limit_mb: the reader's limits keep memory bounded, so
# an input that needs more than this is a finding. A merged seed folder is read-only input.
"$build/fuzz/pe_reader_fuzz" "$scratch" "$@" \
  -dict="$root/fuzz/pe.dict" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
  -print_final_stats=1 -artifact_prefix="$root/fuzz/crashes/"
