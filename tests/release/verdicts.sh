# shellcheck shell=bash
# How the release tests end: skipped (exit 77, which CTest reports as skipped, never passed) or failed.
skip() {
  echo "skipped, $1"
  exit 77
}
fail() {
  echo "FAILED: $1" >&2
  exit 1
}
