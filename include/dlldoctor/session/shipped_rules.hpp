#pragma once
// The rules a run reads: the ones built into the binary, or a rules folder beside it that replaces them
// (someone edited a copy on purpose), then each --rules folder. The built-in rules are decoded from their
// compiled form (rules/compiled_rules.hpp) while the texts are the built-in ones, and parsed otherwise.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::session {

// A rules folder shipped beside the binary (rules/, ../share/dlldoctor/rules).
std::optional<std::string> default_rules_folder(const std::string& argv0);

// The rules built into the binary, as files named "<built-in>/cudnn.toml".
std::vector<rules::RuleFile> builtin_rule_files();

// The shipped rules, then those of each extra folder (--rules); RuleData::origin says which were read.
Result<rules::RuleData> load_shipped_rules(const std::string& argv0, const std::vector<std::string>& extra_folders);

// The same with the folder beside the binary given (none: the built-in texts), and the compiled form of the
// built-in texts given (the tests prove with other bytes that it is what a run decodes), which must outlive
// the rules (read_compiled_rules).
Result<rules::RuleData> load_rules_from(const std::optional<std::string>& shipped_folder,
                                        const std::vector<std::string>& extra_folders, std::string_view compiled);

}  // namespace dlldoctor::session
