#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>
#include <set>
#include <string>

#include "support/skip.hpp"

namespace {

std::set<std::string>& skip_reasons() {
  static std::set<std::string> reasons;
  return reasons;
}

}  // namespace

namespace dlldoctor::test {

void skip(const std::string& missing, const std::string& package) {
  const std::string line = "skipped, missing: " + missing + " (Debian package " + package + ": apt-get install " +
                           package + "; ./dev.sh test installs it)";
  if (skip_reasons().insert(line).second) std::cout << line << std::endl;
}

}  // namespace dlldoctor::test

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int failed = context.run();
  // A failed check outranks a skip, and a skip is never reported as a pass.
  if (failed != 0 || context.shouldExit()) return failed;
  return skip_reasons().empty() ? 0 : dlldoctor::test::kSkipExitCode;
}
