#pragma once
// The shipped rules/*.toml, built into the binary (cmake/embed_rules.cmake): what dlldoctor reads when no
// rules folder is beside it, and those rules compiled at build time (rules/compiled_rules.hpp), which a run
// decodes instead of parsing the TOML. docs/DECISIONS.md ("Releasing", "The built-in rules, compiled").
#include <cstddef>
#include <string_view>

namespace dlldoctor::session {

struct BuiltinRuleFile {
  const char* name;  // "cudnn.toml"
  const char* text;
  std::size_t size;
};

extern const BuiltinRuleFile kBuiltinRuleFiles[];
extern const std::size_t kBuiltinRuleFileCount;
// The first 12 hex digits of a SHA-256 over each file's name and SHA-256: the rules' version.
extern const char kBuiltinRulesVersion[];
// compile_rules() of the files above; empty in a cross build given no native build's file.
extern const std::string_view kBuiltinCompiledRules;

}  // namespace dlldoctor::session
