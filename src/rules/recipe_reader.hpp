#pragma once
// Reading [[recipe]] tables (internal to src/rules).
#include <vector>

#include "dlldoctor/rules/recipe.hpp"
#include "rules/table_reader.hpp"

namespace dlldoctor::rules {

Result<Recipe> read_recipe(const detail::TableReader& in);

// What must hold across files: unique ids, `extends` naming a recipe defined before.
Result<bool> validate_recipes(const std::vector<Recipe>& recipes);

}  // namespace dlldoctor::rules
