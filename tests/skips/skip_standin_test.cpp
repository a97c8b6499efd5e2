// A stand-in for a test program whose tool is missing, run only by tests/skips/check_skips_test.sh with a
// filter: one test case passes, one skips, one fails.
#include <doctest/doctest.h>

#include "support/skip.hpp"

TEST_CASE("stand-in: passes") { CHECK(true); }

TEST_CASE("stand-in: its tool is missing" * doctest::test_suite("needs-standin-package")) {
  dlldoctor::test::skip("/nonexistent/standin-tool", "standin-package");
}

TEST_CASE("stand-in: fails" * doctest::test_suite("fails")) { CHECK(false); }
