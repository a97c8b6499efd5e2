#pragma once
// --fix-script FILE.ps1: the plan as a PowerShell script a person can read and run. It checks before it
// acts (the file is there, with the version dlldoctor read), keeps a .bak of what it renames or
// overwrites, edits PATH in the registry scope the plan says (User unless a step says Machine), refuses a
// PATH longer than a variable holds, needs an administrator only for the steps that do, honours -WhatIf,
// and does no harm when run twice. Every value is a single-quoted literal.
#include <string>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/plan/planner.hpp"

namespace dlldoctor::report {

struct ScriptHeader {
  std::string tool_version;
  std::string request;  // "start-up of app.exe"
  std::string verdict;  // the report's first line
  // A file starts with a UTF-8 byte order mark, which Windows PowerShell 5.1 needs to read it as UTF-8;
  // text piped to PowerShell (-fix-script -) must not, since the console decodes it in its code page.
  bool byte_order_mark = true;
};

// An error when a path of the plan is not a Windows path (a folder copied to Linux without --map): a
// script that names /home/... would do nothing on Windows.
Result<std::string> fix_script(const plan::Plan& plan, const ScriptHeader& header);

}  // namespace dlldoctor::report
