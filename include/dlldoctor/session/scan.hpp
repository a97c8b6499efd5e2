#pragma once
// `dlldoctor --scan DIR...`: every copy of the DLL families in rules/ (or every DLL) under some folders, what
// the rule engine says of the folders that hold them, and, when the machine has an environment, which copy a
// process there would load.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/rules/rule_engine.hpp"
#include "dlldoctor/scan/scanner.hpp"
#include "dlldoctor/session/machine.hpp"
#include "dlldoctor/session/new_process.hpp"

namespace dlldoctor::session {

struct ScanRequest {
  std::vector<std::string> roots;
  bool all_dlls = false;  // every DLL, not only the families' members
  // Called now and then while the walk runs (a terminal's progress line).
  std::function<void(std::uint64_t folders, std::uint64_t entries, std::uint64_t copies)> progress;
};

// What a process of the machine's environment would load, per DLL name.
struct ScanSearch {
  std::string description;                                   // "a 64-bit process started in C:\\app with ..."
  std::map<std::string, std::string> chosen;                 // key -> path
  std::map<std::string, std::vector<std::string>> shadowed;  // key -> paths, in search order
};

struct ScanRun {
  const rules::RuleData* rules = nullptr;
  scan::ScanOptions options;
  scan::ScanResult result;
  std::optional<ScanSearch> search;  // when the machine has an environment
  // The folder rules' findings, then, when the machine has an environment, those of a new process that
  // loads each cuDNN generation's main DLL the scan found (`check`'s question); errors first.
  rules::RuleOutput checks;
  std::vector<std::vector<std::string>> found_in;  // parallel to checks.findings: the processes (none: a folder)
  // Host path -> Windows path, when a sysroot maps them; empty otherwise.
  std::function<std::optional<std::string>(const std::string&)> windows_path;
};

// Errors: a root that is a file, or no root that exists (one line per root).
Result<ScanRun> scan(Machine& machine, const ScanRequest& request);

}  // namespace dlldoctor::session
