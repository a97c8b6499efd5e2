#!/usr/bin/env bash
# Runs a test command only when what it needs is there; otherwise prints the same one line as
# dlldoctor::test::skip (tests/support/skip.hpp) and exits 77, which CTest reports as skipped
# (SKIP_RETURN_CODE, set by dd_test_needs in cmake/TestNeeds.cmake; docs/DECISIONS.md "Skipped tests").
#   need.sh THING PACKAGE [COMMAND...]   THING: a path, or a program looked up on PATH
# Without COMMAND it only stands in for a test that configure could not build.
set -euo pipefail
usage="usage: need.sh THING PACKAGE [COMMAND...]"
thing=${1:?$usage}
package=${2:?$usage}
shift 2
if [ ! -e "$thing" ] && ! command -v -- "$thing" >/dev/null 2>&1; then
  echo "skipped, missing: $thing (Debian package $package: apt-get install $package; ./dev.sh test installs it)"
  exit 77
fi
if [ $# -eq 0 ]; then
  echo "need.sh: $thing is there now but was not when the build was configured: configure it again" >&2
  exit 1
fi
exec "$@"
