#pragma once
// A plan's step as the PowerShell a person types (the report's numbered list). Every value is a
// PowerShell single-quoted literal (rules::powershell_literal); prose goes in comments, controls escaped.
#include <string>
#include <vector>

#include "dlldoctor/plan/planner.hpp"

namespace dlldoctor::plan {

std::vector<std::string> step_commands(const Step& step);

// "Rename cudnn64_9.dll in C:\CUDA\bin to cudnn64_9.dll.bak": one line saying what the step does.
std::string step_summary(const Step& step);

}  // namespace dlldoctor::plan
