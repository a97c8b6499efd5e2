#pragma once
// Reading [[recipe]], [[profile]] and [[delay_load_hook]] tables: how code loads DLLs (internal to src/rules).
#include <vector>

#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/rules/recipe.hpp"
#include "rules/table_reader.hpp"

namespace dlldoctor::rules {

Result<Recipe> read_recipe(const detail::TableReader& in);

Result<LoadProfile> read_profile(const detail::TableReader& in);
Result<graph::DelayLoadHook> read_delay_load_hook(const detail::TableReader& in);
Result<graph::LazyLoad> read_lazy_load(const detail::TableReader& in);

// What must hold across files: unique ids, `extends` naming a recipe defined before.
Result<bool> validate_recipes(const std::vector<Recipe>& recipes, const std::vector<LoadProfile>& profiles);

}  // namespace dlldoctor::rules
