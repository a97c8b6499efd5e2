#pragma once
// The chain of a recipe and those it extends (`extends`, validated when the rules are read).
#include <string>
#include <vector>

#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::rules {

// The recipe `id` and those it extends, nearest first (onnxruntime.preload_dlls, then onnxruntime);
// empty when there is no such recipe.
std::vector<const Recipe*> recipe_chain(const RuleData& rules, const std::string& id);

// The recipe of that chain that names the package (onnxruntime for onnxruntime.preload_dlls), or nullptr.
const Recipe* package_recipe(const RuleData& rules, const std::string& id);

}  // namespace dlldoctor::rules
