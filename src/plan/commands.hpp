#pragma once
// A plan's step as the PowerShell a person types (the report's numbered list). Every value is a
// PowerShell single-quoted literal (rules::powershell_literal); prose goes in comments, controls escaped.
#include <string>
#include <vector>

#include "dlldoctor/plan/planner.hpp"
#include "dlldoctor/rules/command_paths.hpp"

namespace dlldoctor::plan {

// A host path with no Windows path goes in as its placeholder (rules/command_paths.hpp), added to `used`.
std::vector<std::string> step_commands(const Step& step, const rules::CommandPaths& paths,
                                       std::vector<rules::Placeholder>* used = nullptr);

// 'a', 'b': each value a PowerShell single-quoted literal, a host path with no Windows path a placeholder.
std::string powershell_list(const std::vector<std::string>& values, const rules::CommandPaths& paths,
                            std::vector<rules::Placeholder>* used = nullptr);
// A file in a folder, spelled with the folder's own separator (a Windows path, or a host path).
std::string file_in_folder(const std::string& folder, const std::string& name);
// A plan's scope as PowerShell's [EnvironmentVariableTarget] names it: Process, User or Machine.
std::string scope_name(const std::string& scope);

// "Rename cudnn64_9.dll in C:\CUDA\bin to cudnn64_9.dll.bak": one line saying what the step does.
std::string step_summary(const Step& step);

}  // namespace dlldoctor::plan
