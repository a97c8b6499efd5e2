#!/usr/bin/env bash
# Proves the skip mechanism (docs/DECISIONS.md, "Skipped tests"): the doctest main exits 77 when a test
# case skipped and nothing failed, CTest reports such tests as skipped (not passed), and .ci/check_skips.py
# fails on them unless they are labelled needs-npm-registry.
#   check_skips_test.sh SOURCE_DIR STANDIN WORK_DIR
set -euo pipefail
source_dir=${1:?usage: check_skips_test.sh SOURCE_DIR STANDIN WORK_DIR}
standin=${2:?}
work=${3:?}
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
expect_exit() {  # expect_exit CODE WHAT COMMAND...
  local want=$1 what=$2 got=0
  shift 2
  "$@" >"$work/out" 2>&1 || got=$?
  [ "$got" -eq "$want" ] || fail "$what: exit $got, expected $want: $(cat "$work/out")"
}

rm -rf "$work"
mkdir -p "$work"

expect_exit 0 "stand-in, passing case only" "$standin" -tse=needs-*,fails
expect_exit 77 "stand-in, skipping case" "$standin" -ts=needs-*
grep -qx "skipped, missing: /nonexistent/standin-tool (Debian package standin-package: apt-get install standin-package; ./dev.sh test installs it)" "$work/out" ||
  fail "the skip line is not the one expected: $(cat "$work/out")"
expect_exit 1 "stand-in, a failure outranks a skip" "$standin" -ts=needs-*,fails

# run_standins NAME [CMAKE ARGS...]: configure and run the stand-in CTest project as dev.sh test runs ctest.
run_standins() {
  local build=$work/$1
  shift
  cmake -S "$source_dir/tests/skips/standin" -B "$build" -DDLLDOCTOR_SOURCE_DIR="$source_dir" \
    -DSTANDIN="$standin" "$@" >/dev/null
  (cd "$build" && ctest --output-junit "$build/results.xml" >"$build/ctest.out" 2>&1) ||
    fail "ctest failed on skips alone: $(cat "$build/ctest.out")"
}

run_standins all
for test in doctest_tool_missing script_tool_missing npm_missing; do
  grep -qE "Test +#[0-9]+: $test \.+\*\*\*Skipped" "$work/all/ctest.out" || fail "CTest did not report $test as skipped"
done
grep -qE "Test +#[0-9]+: passes \.+ +Passed" "$work/all/ctest.out" || fail "CTest did not report passes as passed"
expect_exit 1 "check_skips.py with Debian-tool skips" "$source_dir/.ci/check_skips.py" "$work/all/results.xml" "$work/all"
for test in doctest_tool_missing script_tool_missing; do
  grep -q "^  $test: skipped, missing: /nonexistent/standin-tool" "$work/out" || fail "check_skips.py does not name $test"
done
grep -q "^  npm_missing" "$work/out" && fail "check_skips.py refuses the needs-npm-registry skip"

run_standins npm-only -DONLY_NPM_SKIPS=ON
expect_exit 0 "check_skips.py with only a needs-npm-registry skip" \
  "$source_dir/.ci/check_skips.py" "$work/npm-only/results.xml" "$work/npm-only"
grep -q "npm_missing skipped, allowed (needs-npm-registry)" "$work/out" || fail "check_skips.py hides the npm skip"

[ "$failures" -eq 0 ] || exit 1
echo "skip mechanism: all checks passed"
