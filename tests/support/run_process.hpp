#pragma once
// Runs a program the way a user would from a shell, capturing what it prints. Tests use it to drive the
// real dlldoctor binary.
#include <map>
#include <string>
#include <vector>

namespace dlldoctor::test {

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

ProcessResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {},
                          const std::string& cwd = {});

}  // namespace dlldoctor::test
