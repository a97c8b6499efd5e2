#pragma once
// The shipped rules, read once at build time and built into the binary in this form
// (session/builtin_rules.hpp), so that a run need not parse 64 KB of TOML: that was the largest part of a
// closure report's time (docs/PERFORMANCE.md). The bytes carry the layout of the structures they fill and
// are decoded only by a build of the same layout, and only while the texts a run reads are the ones built in
// beside them: the build embeds a compiled form only with the texts it was made from (embed_rules.cmake), so
// a run need not hash the texts to know. For an edited, added or removed rule file, another layout or cut
// bytes, the TOML is parsed as before. docs/DECISIONS.md ("The built-in rules, compiled").
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

// The rules of `bytes` when a build of this layout made them, with their sources in the paths of `files`
// (the files they were made from, in the same order: only their paths are read); none otherwise. Every
// byte is checked here, but the findings' rules stay packed in `bytes` until asked for (FindingRules), so
// `bytes` must outlive the rules: the built-in ones are static.
std::optional<RuleData> read_compiled_rules(std::string_view bytes, const std::vector<RuleFile>& files);

// The rules part alone, without the layout before it: what read_compiled_rules decodes once that matches.
// Apart for the tests, which reach every check of the decoder with it. `payload` must outlive the rules, as
// read_compiled_rules' bytes.
Result<std::string> compile_rules_payload(const RuleData& data, const std::vector<RuleFile>& files);
std::optional<RuleData> read_compiled_payload(std::string_view payload, const std::vector<RuleFile>& files);

}  // namespace dlldoctor::rules
