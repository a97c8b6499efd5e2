#pragma once
// The checked plan in each report format: the JSON `plan` object (docs/report-json.md), and the numbered
// list of commands that text and Markdown show before the findings.
#include <string>

#include "dlldoctor/plan/planner.hpp"
#include "dlldoctor/report/json_text.hpp"

namespace dlldoctor::report {

Json plan_to_json(const plan::Plan& plan);
void append_plan_text(std::string& out, const plan::Plan& plan);
void append_plan_markdown(std::string& out, const plan::Plan& plan);

}  // namespace dlldoctor::report
