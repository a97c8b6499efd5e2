#!/usr/bin/env bash
# Fuzzes the readers of untrusted bytes with libFuzzer (clang-14, ASan + UBSan), SECONDS per target, each
# starting from fuzz/corpus/<target>. Targets (fuzz/<target>_fuzz.cpp): pe_reader, registry_hive,
# import_library, api_set, pipeline, machine; all of them when none is named. pipeline (the whole diagnosis on one
# hostile DLL) starts from the PE reader's seeds and builds its world from build-test/fixtures (made by
# ./dev.sh test before it fuzzes; DLLDOCTOR_FUZZ_FIXTURES overrides). The committed corpus is copied to a scratch
# folder first so that it is never modified; crash, leak and timeout reproducers land in
# fuzz/crashes/<target>-... Exits non-zero when the fuzzer finds something. TARGET=SECONDS gives one target
# a time of its own. The targets run side by side, as many at once as there are cores (libFuzzer uses
# one), each for its full time; their output follows in the order given.
#   fuzz/run.sh SECONDS [TARGET[=SECONDS]...]
set -euo pipefail

seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET[=SECONDS]...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(pe_reader registry_hive import_library api_set pipeline machine)
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz

# A unity build (8 sources per compiler run) shortens this second, instrumented compile of every core source:
# each batch parses the heavy headers (fmt, nlohmann/json, toml++) once (docs/DECISIONS.md, "CI time").
CC=${CC:-clang-14} CXX=${CXX:-clang++-14} cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DDLLDOCTOR_FUZZ=ON -DDLLDOCTOR_BUILD_FIXTURES=OFF -DDLLDOCTOR_BUILD_TESTS=OFF \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8
names=()
for spec in "${targets[@]}"; do names+=("${spec%%=*}"); done
cmake --build "$build" --target "${names[@]/%/_fuzz}"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$root/fuzz/crashes"

fuzz_one() {
  local target=$1 time=$2
  local corpus=$root/fuzz/corpus/$target
  [ "$target" != pipeline ] || corpus=$root/fuzz/corpus/pe_reader
  [ -d "$corpus" ] || { echo "fuzz/run.sh: no corpus for $target ($corpus)" >&2; return 2; }
  mkdir -p "$scratch/$target"
  cp -r "$corpus/." "$scratch/$target/"
  # The PE dictionary (section names, directory magic) only helps the readers of PE files.
  local options=()
  [ "$target" != pe_reader ] && [ "$target" != pipeline ] || options=(-dict="$root/fuzz/pe.dict")
  # The machine target covers most of the code, so an input reaches many features: libFuzzer's entropic
  # schedule, which updates a frequency per feature after every input, took most of its time
  # (docs/PERFORMANCE.md, "Real npm binaries, and the machine fuzzer's rate").
  [ "$target" != machine ] || options+=(-entropic=0)
  echo "== fuzzing $target for $time s"
  # -timeout: no single input may take 10 s; -rss_limit_mb: the readers' limits keep memory bounded, so
  # an input that needs more than this is a finding.
  DLLDOCTOR_FUZZ_FIXTURES=${DLLDOCTOR_FUZZ_FIXTURES:-$root/build-test/fixtures} \
  "$build/fuzz/${target}_fuzz" "$scratch/$target" "${options[@]}" \
    -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
    -print_final_stats=1 -artifact_prefix="$root/fuzz/crashes/$target-"
}

slots=$(nproc)
for spec in "${targets[@]}"; do
  target=${spec%%=*}
  time=$seconds
  [ "$spec" = "$target" ] || time=${spec#*=}
  while [ "$(jobs -rp | wc -l)" -ge "$slots" ]; do wait -n || true; done
  (
    status=0
    fuzz_one "$target" "$time" >"$scratch/$target.log" 2>&1 || status=$?
    echo "$status" >"$scratch/$target.status"
  ) &
done
wait
failed=0
for name in "${names[@]}"; do
  cat "$scratch/$name.log"
  status=$(cat "$scratch/$name.status" 2>/dev/null || echo 1)
  if [ "$status" != 0 ]; then
    echo "fuzz/run.sh: $name failed (exit $status)" >&2
    failed=1
  fi
done
exit "$failed"
