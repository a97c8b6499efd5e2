#pragma once
// Names and paths as the text and Markdown writers show them. A DLL name, a folder name or a PATH entry
// is whatever bytes a file or a file system holds: a newline, an escape or a byte that is not UTF-8 in one
// must not break a line, a table row or the terminal, nor start a line that reads like a command. So the
// writers format a copy in which every such text has its control characters and stray bytes as \xNN
// (escape_bytes). JSON keeps the bytes; json_text escapes them its own way. Fix commands are left as they
// are: their values are PowerShell literals already (rules/fix_template.hpp).
#include <cstddef>
#include <optional>
#include <vector>

#include "dlldoctor/report/closure_report.hpp"

namespace dlldoctor::report {

class DisplayCopy {
 public:
  explicit DisplayCopy(const ReportInput& input);
  DisplayCopy(const DisplayCopy&) = delete;
  DisplayCopy& operator=(const DisplayCopy&) = delete;
  // The report input, pointing into this copy.
  const ReportInput& input() const { return input_; }

 private:
  graph::ClosureRequest request_;
  env::Environment environment_;
  graph::Closure closure_;
  std::vector<rules::Finding> findings_;
  std::optional<recipes::Expansion> expansion_;
  ReportInput input_;
};

// For each finding, the earlier finding whose fix is the same, line for line (two findings one command
// mends, such as a missing sibling and the mixed versions it causes): the writers print such a fix once.
std::vector<std::optional<std::size_t>> same_fix_as(const std::vector<rules::Finding>& findings);

}  // namespace dlldoctor::report
