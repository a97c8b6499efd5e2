#pragma once
#include <string>
#include <vector>

#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::cli {

struct ScanCommand {
  std::vector<std::string> roots;
  bool all_dlls = false;
  std::string format = "text";
  std::string output;
  bool no_color = false;
  bool environment_given = false;  // env flags were given: say which copy would load
  env::EnvironmentFlags environment;
};

// Run from the main command's runner, which owns the shared flags (environment, format, -o, rules).
int run_scan(const ScanCommand& command, const rules::RuleData& rules);

}  // namespace dlldoctor::cli
