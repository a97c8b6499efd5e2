#include "dlldoctor/report/recipes_report.hpp"

#include <fmt/format.h>

#include "dlldoctor/report/json_text.hpp"
#include "report/text_layout.hpp"
#include "rules/recipe_chain.hpp"

namespace dlldoctor::report {
namespace {

inline constexpr const char* kRecipesSchema = "dlldoctor.recipes/1";

// Which package a recipe's steps are about: its own, or the one of the recipe it extends.
std::string package_of(const rules::RuleData& rules, const rules::Recipe& recipe) {
  const rules::Recipe* named = rules::package_recipe(rules, recipe.id);
  return named ? named->package : std::string();
}

// The versions it holds for: its own range, the one of the recipe it extends, or any.
std::string covers_text(const rules::Recipe& recipe) {
  if (recipe.covers) return "versions " + recipe.covers->text();
  return recipe.extends.empty() ? "any version" : "the versions " + recipe.extends + " holds for";
}

void write_text(Sink& sink, const rules::RuleData& rules, const WriteStyle&) {
  TextOut out(sink);
  for (const rules::Recipe& recipe : rules.recipes) {
    const std::string package = package_of(rules, recipe);
    const std::string what =
        recipe.applies == "import"
            ? fmt::format("--import {}", recipe.id)
            : fmt::format("at the start of every {} Python", recipe.applies == "conda" ? "conda" : "Microsoft Store");
    out.wrapped("", fmt::format("{} ({}): {}", recipe.id, recipe.name, what), kTextWidth, "  ");
    if (!package.empty())
      out.wrapped("  ", fmt::format("package: {}, {}", package, covers_text(recipe)), kTextWidth - 2, "    ");
    if (!recipe.extends.empty()) out.line("  extends: " + recipe.extends);
    out.wrapped("  ", "code: " + recipe.code, kTextWidth - 2, "    ");
    out.wrapped("  ",
                fmt::format("{} step{}; defined at {}", recipe.steps.size(), recipe.steps.size() == 1 ? "" : "s",
                            recipe.source),
                kTextWidth - 2, "    ");
    out.line();
  }
}

void write_json(Sink& sink, const rules::RuleData& rules, const WriteStyle&) {
  Json recipes = Json::array();
  for (const rules::Recipe& recipe : rules.recipes) {
    const std::string package = package_of(rules, recipe);
    Json covers = nullptr;
    if (recipe.covers) {
      covers = Json{
          {"from", recipe.covers->from ? Json(dlldoctor::version_text(*recipe.covers->from)) : Json(nullptr)},
          {"before", recipe.covers->before ? Json(dlldoctor::version_text(*recipe.covers->before)) : Json(nullptr)},
          {"text", recipe.covers->text()}};
    }
    recipes.push_back({{"id", recipe.id},
                       {"name", recipe.name},
                       {"applies", recipe.applies},
                       {"package", package.empty() ? Json(nullptr) : Json(package)},
                       {"extends", recipe.extends.empty() ? Json(nullptr) : Json(recipe.extends)},
                       {"covers", covers},
                       {"code", recipe.code},
                       {"steps", recipe.steps.size()},
                       {"source", recipe.source}});
  }
  sink.put(json_text(Json{{"schema", kRecipesSchema}, {"recipes", std::move(recipes)}}) + "\n");
}

}  // namespace

const Writers<rules::RuleData>& recipes_writers() {
  static const Writers<rules::RuleData> writers{{"text", write_text}, {"json", write_json}};
  return writers;
}

}  // namespace dlldoctor::report
