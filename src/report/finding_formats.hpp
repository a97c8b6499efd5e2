#pragma once
// Findings as the reports for people show them, whoever made them (one process, a folder, the machine):
// the heading, the message, what the user sees, why, and the fix (the plan's steps, an earlier finding's,
// or its own commands). The closure report and `check`'s report write them the same way.
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/report/closure_view.hpp"
#include "dlldoctor/rules/finding.hpp"
#include "dlldoctor/rules/rule_data.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {

// Each finding's fix: the plan's steps that mend it (`plan_steps`, parallel), else an earlier finding's
// same commands, else its own.
std::vector<FixShown> fixes_shown(const std::vector<const rules::Finding*>& findings,
                                  const std::vector<std::vector<std::size_t>>& plan_steps);
// For each finding, the earlier finding whose fix is the same command for command.
std::vector<std::optional<std::size_t>> same_fix_as(const std::vector<const rules::Finding*>& findings);

// What the user sees (a loader error's words, what the program prints), each line whole.
void append_error_text(TextOut& out, const std::optional<rules::LoaderErrorText>& error,
                       const std::vector<std::string>& says);
void append_error_markdown(TextOut& out, const std::optional<rules::LoaderErrorText>& error,
                           const std::vector<std::string>& says, const std::string& indent);
void append_error_html(TextOut& out, const std::optional<rules::LoaderErrorText>& error,
                       const std::vector<std::string>& says);

void append_findings_text(TextOut& out, const FindingsShown& shown, const rules::RuleData* rules,
                          const WriteStyle& style);
void append_findings_markdown(TextOut& out, const FindingsShown& shown, const rules::RuleData* rules);
// Finding i is #finding-i.
void append_findings_html(TextOut& out, const FindingsShown& shown, const rules::RuleData* rules);

}  // namespace dlldoctor::report
