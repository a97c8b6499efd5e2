#pragma once
// The shipped rules, read once at build time and built into the binary in this form
// (session/builtin_rules.hpp), so that a run need not parse 64 KB of TOML: that was the largest part of a
// closure report's time (docs/PERFORMANCE.md). The bytes carry a sum of the names and texts they were made
// from and the layout of the structures they fill, and are decoded only for exactly those texts, by a build
// of the same layout; for an edited, added or removed rule file, another build's bytes or damaged ones, the
// TOML is parsed as before. docs/DECISIONS.md ("The built-in rules, compiled").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::rules {

// The compiled form of `data`, what parse_rule_files read from exactly `files`. Sources ("path:line") are
// kept as the index of their file and the rest, so that the rules move with the files.
Result<std::string> compile_rules(const RuleData& data, const std::vector<RuleFile>& files);

// The rules of `bytes` when they were made from exactly `files` (same names, same texts, in the same order)
// by a build of this layout, with their sources in the paths of `files`; none otherwise.
std::optional<RuleData> read_compiled_rules(std::string_view bytes, const std::vector<RuleFile>& files);

// The rules part alone, without the sums and layout around it: what read_compiled_rules decodes once those
// match. Apart for the tests, which must reach every check of the decoder (the
// checksum turns away any byte changed in the whole file).
Result<std::string> compile_rules_payload(const RuleData& data, const std::vector<RuleFile>& files);
std::optional<RuleData> read_compiled_payload(std::string_view payload, const std::vector<RuleFile>& files);

}  // namespace dlldoctor::rules
