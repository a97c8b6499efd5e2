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
  long max_rss_kb = 0;  // the child's peak resident set (getrusage's ru_maxrss, from wait4)
};

ProcessResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {},
                          const std::string& cwd = {});

}  // namespace dlldoctor::test
