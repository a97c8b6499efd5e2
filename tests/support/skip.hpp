#pragma once
// A test that cannot run because something it needs is missing is reported as skipped, never as passed
// (docs/DECISIONS.md, "Skipped tests"): when a test case called skip() and no check failed, the doctest
// main (tests/unit/main.cpp) exits with kSkipExitCode, which tests/CMakeLists.txt gives CTest as the
// SKIP_RETURN_CODE of every entry that can skip (dd_test_needs in cmake/TestNeeds.cmake).
#include <string>

namespace dlldoctor::test {

inline constexpr int kSkipExitCode = 77;  // Automake's; DLLDOCTOR_SKIP_EXIT_CODE in cmake/TestNeeds.cmake

// Prints one line naming what is missing and the Debian package that brings it (the same line as
// tests/support/need.sh), once per distinct reason, and marks the run as skipped. The caller then returns
// from its test case.
void skip(const std::string& missing, const std::string& package);

}  // namespace dlldoctor::test
