#pragma once
#include <string>
#include <vector>

#include "cli/output.hpp"
#include "dlldoctor/session/machine.hpp"

namespace dlldoctor::cli {

struct ScanCommand {
  std::vector<std::string> roots;
  bool all_dlls = false;
  std::string format = "text";
  std::string output;
  bool no_color = false;
  OutputHabits habits;           // applied by the main command's runner
  session::MachineSpec machine;  // with an environment when env flags were given: say which copy would load
};

// Run from the main command's runner, which owns the shared flags (environment, format, -o, rules).
int run_scan(const ScanCommand& command);

}  // namespace dlldoctor::cli
