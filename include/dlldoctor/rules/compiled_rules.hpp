#pragma once
// The rules a folder holds, read once at build time and kept beside them (compiled-rules.bin), so that a
// run need not parse 64 KB of TOML: that was a third of a closure report's time. The file keeps the texts
// it was made from, and is used only when the folder's *.toml files are exactly those texts; an edited,
// added or removed rule file, a file made by another build, or a damaged one, and the TOML is read as
// before. docs/DECISIONS.md ("The shipped rules are compiled at build time").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::rules {

inline constexpr const char* kCompiledRulesFile = "compiled-rules.bin";

// The bytes of compiled-rules.bin for `files`, from `data`: what load_rules read from exactly those files
// (before the checks across folders). Sources ("path:line") are kept relative to the folder.
Result<std::string> compile_rules(const RuleData& data, const std::vector<RuleFile>& files);

// The rules of compiled-rules.bin's `bytes` when they were made from exactly `files` (same names, same
// texts, in the same order), with their sources in the folder of `files`; none otherwise.
std::optional<RuleData> read_compiled_rules(const std::string& bytes, const std::vector<RuleFile>& files);

// The rules part of the file alone, without the texts and checksum around it: what read_compiled_rules
// decodes once those match. Apart for the tests, which must reach every check of the decoder (the
// checksum turns away any byte changed in the whole file).
Result<std::string> compile_rules_payload(const RuleData& data, const std::vector<RuleFile>& files);
std::optional<RuleData> read_compiled_payload(std::string_view payload, const std::vector<RuleFile>& files);

}  // namespace dlldoctor::rules
