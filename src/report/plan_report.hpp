#pragma once
// The checked plan in each report format: the JSON `plan` object (docs/report-json.md), and the numbered
// list of commands that text and Markdown show before the findings.
#include <string>
#include <vector>

#include "dlldoctor/plan/planner.hpp"
#include "dlldoctor/report/json_text.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {

Json plan_to_json(const plan::Plan& plan);
// The placeholders the steps' commands write, each once, in order (the report's legend starts with them).
std::vector<rules::Placeholder> plan_placeholders(const plan::Plan& plan);
// "step 2", "steps 1 and 2": what a finding's fix points at.
std::string plan_steps_text(const std::vector<std::size_t>& steps);
void append_plan_text(TextOut& out, const plan::Plan& plan);
void append_plan_markdown(TextOut& out, const plan::Plan& plan);
// The plan as a numbered list with a copy button per command; step N's item is #plan-step-N.
void append_plan_html(TextOut& out, const plan::Plan& plan);

}  // namespace dlldoctor::report
