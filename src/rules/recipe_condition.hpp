#pragma once
// A recipe step's `when` (rules/*.toml): clauses "A == B" or "A != B", joined by "and"; alternatives
// joined by "or" ("and" binds first, no parentheses). onnxruntime.preload_dlls needs no more: "torch was
// imported and its CUDA major is ours". The operands hold placeholders, filled one by one, so that a
// value with " and " in it (a folder name) cannot change the structure.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/result.hpp"

namespace dlldoctor::rules {

struct Clause {
  std::string left;
  bool equal = true;  // == or !=
  std::string right;
};

// Alternatives, each a list of clauses that must all hold.
using Condition = std::vector<std::vector<Clause>>;

Result<Condition> parse_condition(std::string_view text);

// With `fill` giving each operand's value.
bool holds(const Condition& condition, const std::function<std::string(const std::string&)>& fill);

}  // namespace dlldoctor::rules
