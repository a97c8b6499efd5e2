#pragma once
// The shipped rules/*.toml, built into the binary (cmake/embed_rules.cmake): what dlldoctor reads when no
// rules folder is beside it. docs/DECISIONS.md ("Releasing").
#include <cstddef>

namespace dlldoctor::rules {

struct BuiltinRuleFile {
  const char* name;  // "cudnn.toml"
  const char* text;
  std::size_t size;
};

extern const BuiltinRuleFile kBuiltinRuleFiles[];
extern const std::size_t kBuiltinRuleFileCount;
// The first 12 hex digits of a SHA-256 over each file's name and SHA-256: the rules' version.
extern const char kBuiltinRulesVersion[];

}  // namespace dlldoctor::rules
