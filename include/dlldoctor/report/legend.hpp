#pragma once
// A placeholder in a command (<...\cuda\bin>: a folder of this machine with no Windows path) is explained
// once per report, wherever the commands that write it stand (the plan, the findings' fixes), not after
// every fix: the legend.
#include <string>
#include <vector>

#include "dlldoctor/report/json_text.hpp"
#include "dlldoctor/rules/finding.hpp"

namespace dlldoctor::report {

// Each placeholder once, in the order the report uses them: `first` (the plan's), then the findings'.
std::vector<rules::Placeholder> report_placeholders(std::vector<rules::Placeholder> first,
                                                    const std::vector<rules::Finding>& findings);

// The legend in each format; "" when there is no placeholder. Names and folders have their control
// characters escaped (a folder name is whatever bytes the disk holds).
std::string legend_text(const std::vector<rules::Placeholder>& placeholders);
std::string legend_markdown(const std::vector<rules::Placeholder>& placeholders);
std::string legend_html(const std::vector<rules::Placeholder>& placeholders);
Json placeholders_json(const std::vector<rules::Placeholder>& placeholders);

}  // namespace dlldoctor::report
