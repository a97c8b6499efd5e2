#pragma once
// A placeholder in a command (<...\cuda\bin>: a folder of this machine with no Windows path) is explained
// once per report, wherever the commands that write it stand (the plan, the findings' fixes), not after
// every fix: the legend.
#include <string>
#include <vector>

#include "dlldoctor/report/json_text.hpp"
#include "dlldoctor/rules/finding.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {

// Each placeholder once, in the order the report uses them: `first` (the plan's), then the findings'.
std::vector<rules::Placeholder> report_placeholders(std::vector<rules::Placeholder> first,
                                                    const std::vector<rules::Finding>& findings);

// The legend in each format; nothing when there is no placeholder.
// `blank_after`: the text legend ends with a blank line, unless what follows brings its own.
void legend_text(TextOut& out, const std::vector<rules::Placeholder>& placeholders, bool blank_after = true);
void legend_markdown(TextOut& out, const std::vector<rules::Placeholder>& placeholders);
void legend_html(TextOut& out, const std::vector<rules::Placeholder>& placeholders);
Json placeholders_json(const std::vector<rules::Placeholder>& placeholders);

}  // namespace dlldoctor::report
