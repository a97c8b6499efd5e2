#include "rules/recipe_reader.hpp"

#include <set>

#include "dlldoctor/resolve/load_request.hpp"

namespace dlldoctor::rules {
namespace {

using detail::assign;
using detail::TableReader;
using detail::where;

Result<RecipeAttribute> read_attribute(const TableReader& in, bool named) {
  RecipeAttribute attribute;
  auto keys = named ? in.only_keys({"name", "file", "key"}) : in.only_keys({"file", "key"});
  if (!keys) return keys.error();
  std::optional<Error> error;
  if (named) assign(in.text("name"), attribute.name, error);
  assign(in.text("file"), attribute.file, error);
  assign(in.text("key"), attribute.key, error);
  if (error) return *error;
  return attribute;
}

Result<RecipeStep> read_step(const TableReader& in) {
  RecipeStep step;
  step.source = in.at();
  auto keys = in.only_keys({"add_dll_directory", "load", "no_inherited_path", "flags", "if_exists", "unless_found",
                            "retry_with_path", "why"});
  if (!keys) return keys.error();
  // One kind of call per step.
  const toml::table& table = in.table();
  const int kinds = (table.contains("add_dll_directory") ? 1 : 0) + (table.contains("load") ? 1 : 0) +
                    (table.contains("no_inherited_path") ? 1 : 0);
  if (kinds != 1) {
    return Error{fmt::format("{}: a step is one of add_dll_directory, load or no_inherited_path", step.source)};
  }
  std::optional<Error> error;
  std::string flags;
  bool no_path = false;
  if (table.contains("add_dll_directory")) {
    step.kind = RecipeStep::Kind::AddDllDirectory;
    assign(in.text("add_dll_directory"), step.target, error);
  } else if (table.contains("load")) {
    step.kind = RecipeStep::Kind::Load;
    assign(in.text("load"), step.target, error);
  } else {
    step.kind = RecipeStep::Kind::NoInheritedPath;
    assign(in.flag("no_inherited_path", false), no_path, error);
  }
  assign(in.text("flags", std::string()), flags, error);
  assign(in.flag("if_exists", false), step.if_exists, error);
  assign(in.text("unless_found", std::string()), step.unless_found, error);
  assign(in.flag("retry_with_path", false), step.retry_with_path, error);
  assign(in.text("why", std::string()), step.why, error);
  if (error) return *error;
  if (step.kind == RecipeStep::Kind::NoInheritedPath && !no_path)
    return Error{fmt::format("{}: no_inherited_path is written only as true", step.source)};
  if (!flags.empty()) {
    if (step.kind != RecipeStep::Kind::Load) return Error{fmt::format("{}: flags belong to a load", step.source)};
    auto parsed = resolve::parse_load_flags(flags);
    if (!parsed) return Error{fmt::format("{}: flags: {}", step.source, parsed.error().message)};
    step.flags = *parsed;
  }
  if (step.retry_with_path && step.kind != RecipeStep::Kind::Load)
    return Error{fmt::format("{}: retry_with_path belongs to a load", step.source)};
  if ((step.if_exists || !step.unless_found.empty()) && step.kind != RecipeStep::Kind::AddDllDirectory)
    return Error{fmt::format("{}: if_exists and unless_found belong to an add_dll_directory", step.source)};
  return step;
}

Result<RecipeRequirement> read_requirement(const TableReader& in) {
  RecipeRequirement requirement;
  requirement.source = in.at();
  auto keys = in.only_keys({"from", "before", "dll", "minimum", "finding", "why", "effect"});
  if (!keys) return keys.error();
  std::optional<Error> error;
  std::optional<VersionParts> minimum;
  std::string dll;
  assign(detail::read_version_range(in), requirement.versions, error);
  assign(in.text("dll"), dll, error);
  assign(detail::version_key(in, "minimum", true), minimum, error);
  assign(in.text("finding"), requirement.finding, error);
  assign(in.text("why"), requirement.why, error);
  assign(in.text("effect"), requirement.effect, error);
  if (error) return *error;
  requirement.dll = DllName(dll);
  requirement.minimum = *minimum;
  return requirement;
}

}  // namespace

Result<Recipe> read_recipe(const TableReader& in) {
  Recipe recipe;
  recipe.source = in.at();
  auto keys = in.only_keys({"id", "name", "host", "applies", "package", "extends", "version", "attributes", "step",
                            "requirement", "supported"});
  if (!keys) return keys.error();
  std::optional<Error> error;
  assign(in.text("id"), recipe.id, error);
  assign(in.text("name"), recipe.name, error);
  assign(in.text("host"), recipe.host, error);
  assign(in.text("applies", std::string("import")), recipe.applies, error);
  assign(in.text("package", std::string()), recipe.package, error);
  assign(in.text("extends", std::string()), recipe.extends, error);
  assign(in.text("supported", std::string()), recipe.supported, error);
  if (error) return *error;
  if (recipe.host != "python") return Error{fmt::format("{}: host must be \"python\"", recipe.source)};
  if (recipe.applies != "import" && recipe.applies != "conda" && recipe.applies != "store")
    return Error{fmt::format("{}: applies must be import, conda or store", recipe.source)};
  if (recipe.applies == "import" && recipe.package.empty() && recipe.extends.empty())
    return Error{fmt::format("{}: a recipe for --import names its package", recipe.source)};
  const toml::table& table = in.table();
  const std::string& file = in.file();
  if (const toml::node* node = table.get("version")) {
    const toml::table* version = node->as_table();
    if (!version)
      return Error{fmt::format("{}: version must be {{ file = ..., key = ... }}", where(file, node->source()))};
    auto read = read_attribute(TableReader(*version, file), false);
    if (!read) return read.error();
    recipe.version = std::move(read).value();
    recipe.version->name = "version";
  }
  if (const toml::node* node = table.get("attributes")) {
    const toml::array* list = node->as_array();
    if (!list) return Error{fmt::format("{}: attributes must be a list of tables", where(file, node->source()))};
    for (const toml::node& item : *list) {
      const toml::table* attribute = item.as_table();
      if (!attribute) return Error{fmt::format("{}: attributes must hold tables", where(file, item.source()))};
      auto read = read_attribute(TableReader(*attribute, file), true);
      if (!read) return read.error();
      recipe.attributes.push_back(std::move(read).value());
    }
  }
  auto steps = detail::read_tables(table, "step", file, recipe.steps, read_step);
  if (!steps) return steps.error();
  auto requirements = detail::read_tables(table, "requirement", file, recipe.requirements, read_requirement);
  if (!requirements) return requirements.error();
  return recipe;
}

Result<bool> validate_recipes(const std::vector<Recipe>& recipes) {
  std::set<std::string> seen;
  for (const Recipe& recipe : recipes) {
    if (!recipe.extends.empty() && !seen.count(recipe.extends)) {
      return Error{fmt::format("{}: recipe '{}' extends '{}', which is not defined before it", recipe.source, recipe.id,
                               recipe.extends)};
    }
    if (!seen.insert(recipe.id).second)
      return Error{fmt::format("{}: recipe '{}' is defined twice", recipe.source, recipe.id)};
  }
  return true;
}

}  // namespace dlldoctor::rules
