#include "rules/recipe_reader.hpp"

#include <algorithm>
#include <set>

#include "dlldoctor/resolve/load_request.hpp"
#include "dlldoctor/rules/rule_data.hpp"
#include "rules/recipe_condition.hpp"

namespace dlldoctor::rules {
namespace {

using detail::assign;
using detail::TableReader;
using detail::where;

// A flags value of a rule, with the rule's place in the error.
Result<std::uint32_t> flags_at(const std::string& source, std::string_view key, const std::string& text) {
  auto parsed = resolve::parse_load_flags(text);
  if (!parsed) return Error{fmt::format("{}: {}: {}", source, key, parsed.error().message)};
  return *parsed;
}

Result<RecipeAttribute> read_attribute(const TableReader& in, bool named) {
  RecipeAttribute attribute;
  auto keys = named ? in.only_keys({"name", "file", "key", "package"}) : in.only_keys({"file", "key", "dist_info"});
  if (!keys) return keys.error();
  std::optional<Error> error;
  if (named) {
    assign(in.text("name"), attribute.name, error);
    assign(in.text("package", std::string()), attribute.package, error);
  }
  // A version the package's code does not write as a literal (TensorFlow's) is in the name of the folder
  // pip wrote beside it: <distribution>-<version>.dist-info.
  if (!named && in.table().get("dist_info")) {
    assign(in.text("dist_info"), attribute.dist_info, error);
    if (error) return *error;
    if (in.table().get("file") || in.table().get("key"))
      return Error{
          fmt::format("{}: a version is read from a file (file, key) or a dist-info folder, not both", in.at())};
    return attribute;
  }
  assign(in.text("file"), attribute.file, error);
  assign(in.text("key"), attribute.key, error);
  if (error) return *error;
  return attribute;
}

// A `covers = { from = ..., before = ... }` table (versions of the framework), when the table has one.
Result<std::optional<VersionRange>> read_covers(const TableReader& in) {
  const toml::node* node = in.table().get("covers");
  if (!node) return std::optional<VersionRange>();
  const toml::table* covers = node->as_table();
  if (!covers)
    return Error{fmt::format("{}: covers must be {{ from = ..., before = ... }}", where(in.file(), node->source()))};
  const TableReader reader(*covers, in.file());
  auto keys = reader.only_keys({"from", "before"});
  if (!keys) return keys.error();
  auto range = detail::read_version_range(reader);
  if (!range) return range.error();
  return std::optional<VersionRange>(std::move(range).value());
}

Result<RecipeStep> read_step(const TableReader& in) {
  RecipeStep step;
  step.source = in.at();
  auto keys = in.only_keys({"add_dll_directory", "set_dll_directory", "load", "no_inherited_path", "flags", "if_exists",
                            "unless_found", "retry_with_path", "failure_caught", "first_use", "each", "when", "covers",
                            "says", "why"});
  if (!keys) return keys.error();
  // One kind of call per step.
  const toml::table& table = in.table();
  const int kinds = (table.contains("add_dll_directory") ? 1 : 0) + (table.contains("load") ? 1 : 0) +
                    (table.contains("no_inherited_path") ? 1 : 0) + (table.contains("set_dll_directory") ? 1 : 0);
  if (kinds != 1) {
    return Error{fmt::format("{}: a step is one of add_dll_directory, set_dll_directory, load or no_inherited_path",
                             step.source)};
  }
  std::optional<Error> error;
  std::string flags;
  bool no_path = false;
  if (table.contains("add_dll_directory")) {
    step.kind = RecipeStep::Kind::AddDllDirectory;
    assign(in.text("add_dll_directory"), step.target, error);
  } else if (table.contains("set_dll_directory")) {
    step.kind = RecipeStep::Kind::SetDllDirectory;
    assign(in.text("set_dll_directory"), step.target, error);
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
  assign(in.flag("failure_caught", false), step.failure_caught, error);
  assign(in.flag("first_use", false), step.first_use, error);
  assign(in.text("why", std::string()), step.why, error);
  assign(in.texts("each", false), step.each, error);
  assign(in.text("when", std::string()), step.when, error);
  assign(in.says("says"), step.says, error);
  assign(read_covers(in), step.covers, error);
  if (error) return *error;
  if (!step.when.empty()) {
    auto condition = parse_condition(step.when);
    if (!condition) return Error{fmt::format("{}: when: {}", step.source, condition.error().message)};
  }
  if (step.kind == RecipeStep::Kind::NoInheritedPath && !no_path)
    return Error{fmt::format("{}: no_inherited_path is written only as true", step.source)};
  if (!flags.empty()) {
    if (step.kind != RecipeStep::Kind::Load) return Error{fmt::format("{}: flags belong to a load", step.source)};
    auto parsed = flags_at(step.source, "flags", flags);
    if (!parsed) return parsed.error();
    step.flags = *parsed;
  }
  if ((step.retry_with_path || step.failure_caught || step.first_use || !step.says.empty()) &&
      step.kind != RecipeStep::Kind::Load)
    return Error{fmt::format("{}: retry_with_path, failure_caught, first_use and says belong to a load", step.source)};
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
  auto keys =
      in.only_keys({"id", "name", "host", "applies", "package", "extends", "version", "attributes", "derived", "step",
                    "requirement", "supported", "not_before", "code", "covers", "check", "check_needs"});
  if (!keys) return keys.error();
  std::optional<Error> error;
  assign(in.text("id"), recipe.id, error);
  assign(in.text("name"), recipe.name, error);
  assign(in.text("host"), recipe.host, error);
  assign(in.text("applies", std::string("import")), recipe.applies, error);
  assign(in.text("package", std::string()), recipe.package, error);
  assign(in.text("extends", std::string()), recipe.extends, error);
  assign(in.text("supported", std::string()), recipe.supported, error);
  // Every recipe says whose code it replays: a report's reader must be able to check it.
  assign(in.text("code"), recipe.code, error);
  assign(in.flag("check", false), recipe.check, error);
  assign(in.text("check_needs", std::string()), recipe.check_needs, error);
  if (error) return *error;
  if (!recipe.check_needs.empty() && !recipe.check)
    return Error{fmt::format("{}: check_needs names what `check` needs to import it: add check = true", recipe.source)};
  if (recipe.check && recipe.applies != "import")
    return Error{fmt::format("{}: check imports a package: a start-up recipe (applies = {}) is applied, not imported",
                             recipe.source, recipe.applies)};
  auto covers = read_covers(in);
  if (!covers) return covers.error();
  recipe.covers = std::move(covers).value();
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
  if (const toml::node* node = table.get("derived")) {
    const toml::array* list = node->as_array();
    if (!list) return Error{fmt::format("{}: derived must be a list of tables", where(file, node->source()))};
    for (const toml::node& item : *list) {
      const toml::table* entry = item.as_table();
      if (!entry) return Error{fmt::format("{}: derived must hold tables", where(file, item.source()))};
      const TableReader reader(*entry, file);
      auto entry_keys = reader.only_keys({"name", "from", "map"});
      if (!entry_keys) return entry_keys.error();
      RecipeDerived derived;
      assign(reader.text("name"), derived.name, error);
      assign(reader.text("from"), derived.from, error);
      if (error) return *error;
      const toml::table* map = entry->get("map") ? entry->get("map")->as_table() : nullptr;
      if (!map) return Error{fmt::format("{}: derived needs map = {{ \"value\" = \"value\", ... }}", reader.at())};
      for (const auto& [key, value] : *map) {
        auto text = value.value<std::string>();
        if (!text) return Error{fmt::format("{}: map values must be strings", where(file, value.source()))};
        derived.map.emplace(std::string(key.str()), *text);
      }
      recipe.derived.push_back(std::move(derived));
    }
  }
  auto steps = detail::read_tables(table, "step", file, recipe.steps, read_step);
  if (!steps) return steps.error();
  auto requirements = detail::read_tables(table, "requirement", file, recipe.requirements, read_requirement);
  if (!requirements) return requirements.error();
  auto orders = detail::read_tables(table, "not_before", file, recipe.not_before,
                                    [](const TableReader& reader) -> Result<RecipeOrder> {
                                      RecipeOrder order;
                                      order.source = reader.at();
                                      auto order_keys = reader.only_keys({"recipe", "why"});
                                      if (!order_keys) return order_keys.error();
                                      std::optional<Error> order_error;
                                      assign(reader.text("recipe"), order.recipe, order_error);
                                      assign(reader.text("why"), order.why, order_error);
                                      if (order_error) return *order_error;
                                      return order;
                                    });
  if (!orders) return orders.error();
  return recipe;
}

Result<LoadProfile> read_profile(const TableReader& in) {
  LoadProfile profile;
  profile.source = in.at();
  auto keys = in.only_keys({"id", "flags", "flags_with_path", "says", "why"});
  if (!keys) return keys.error();
  std::optional<Error> error;
  std::string flags, with_path;
  assign(in.text("id"), profile.id, error);
  assign(in.text("flags"), flags, error);
  assign(in.text("flags_with_path", std::string()), with_path, error);
  assign(in.text("why", std::string()), profile.why, error);
  assign(in.says("says"), profile.says, error);
  if (error) return *error;
  auto parsed = flags_at(profile.source, "flags", flags);
  if (!parsed) return parsed.error();
  profile.flags = *parsed;
  if (!with_path.empty()) {
    auto parsed_with_path = flags_at(profile.source, "flags_with_path", with_path);
    if (!parsed_with_path) return parsed_with_path.error();
    profile.flags_with_path = *parsed_with_path;
  }
  return profile;
}

Result<graph::DelayLoadHook> read_delay_load_hook(const TableReader& in) {
  graph::DelayLoadHook hook;
  hook.source = in.at();
  auto keys = in.only_keys({"importer", "dlls", "answer", "flags", "why"});
  if (!keys) return keys.error();
  std::optional<Error> error;
  std::string answer, flags;
  assign(in.text("importer"), hook.importer, error);
  assign(in.texts<DllName>("dlls", true), hook.dlls, error);
  assign(in.text("answer"), answer, error);
  assign(in.text("flags", std::string()), flags, error);
  assign(in.text("why"), hook.why, error);
  if (error) return *error;
  if (answer == "host_program") {
    hook.answer = graph::DelayLoadHook::Answer::HostProgram;
    if (!flags.empty()) return Error{fmt::format("{}: flags belong to answer = \"importer_folder\"", hook.source)};
  } else if (answer == "importer_folder") {
    hook.answer = graph::DelayLoadHook::Answer::ImporterFolder;
    auto parsed = flags_at(hook.source, "flags", flags.empty() ? "0" : flags);
    if (!parsed) return parsed.error();
    hook.flags = *parsed;
  } else {
    return Error{fmt::format("{}: answer must be \"host_program\" or \"importer_folder\"", hook.source)};
  }
  return hook;
}

Result<graph::LazyLoad> read_lazy_load(const TableReader& in) {
  graph::LazyLoad lazy;
  lazy.source = in.at();
  auto keys = in.only_keys({"loader", "dll", "one_of", "flags", "then_path", "optional", "when", "says", "why"});
  if (!keys) return keys.error();
  std::optional<Error> error;
  std::string dll, flags;
  assign(in.text("loader"), lazy.loader, error);
  assign(in.text("dll", std::string()), dll, error);
  assign(in.texts<DllName>("one_of", false), lazy.dlls, error);
  assign(in.text("flags"), flags, error);
  assign(in.flag("then_path", false), lazy.then_path, error);
  assign(in.flag("optional", false), lazy.optional, error);
  assign(in.text("when"), lazy.when, error);
  assign(in.text("says", std::string()), lazy.says, error);
  assign(in.text("why"), lazy.why, error);
  if (error) return *error;
  // One name, or the names of one library for several majors of its stack: never both, never neither.
  if (dll.empty() == lazy.dlls.empty())
    return Error{
        fmt::format("{}: a lazy_load names its DLL with 'dll' or its alternatives with 'one_of'", lazy.source)};
  if (!dll.empty()) lazy.dlls.push_back(DllName(dll));
  auto parsed = flags_at(lazy.source, "flags", flags);
  if (!parsed) return parsed.error();
  lazy.flags = *parsed;
  return lazy;
}

Result<bool> validate_recipes(const std::vector<Recipe>& recipes, const std::vector<LoadProfile>& profiles) {
  std::set<std::string> ids;
  for (const Recipe& recipe : recipes) ids.insert(recipe.id);
  for (const Recipe& recipe : recipes) {
    for (const RecipeOrder& order : recipe.not_before) {
      if (!ids.count(order.recipe))
        return Error{
            fmt::format("{}: not_before names recipe '{}', which no rule file defines", order.source, order.recipe)};
    }
  }
  std::set<std::string> profile_ids;
  for (const LoadProfile& profile : profiles) {
    if (!profile_ids.insert(profile.id).second)
      return Error{fmt::format("{}: profile '{}' is defined twice", profile.source, profile.id)};
  }
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

std::vector<std::string> variables_read(const RuleData& rules) {
  std::vector<std::string> patterns;
  for (const Recipe& recipe : rules.recipes) {
    for (const RecipeStep& step : recipe.steps) {
      for (std::size_t at = step.target.find("{env:"); at != std::string::npos;
           at = step.target.find("{env:", at + 1)) {
        // The name runs to the '|' or '}' that closes this placeholder; nested ones become '*'.
        std::string pattern;
        int depth = 0;
        for (std::size_t i = at + 5; i < step.target.size(); ++i) {
          const char c = step.target[i];
          if (depth == 0 && (c == '|' || c == '}')) break;
          if (c == '{') {
            if (depth++ == 0) pattern += '*';
          } else if (c == '}') {
            --depth;
          } else if (depth == 0) {
            pattern += c;
          }
        }
        pattern = ascii_lower(pattern);
        if (!pattern.empty() && std::find(patterns.begin(), patterns.end(), pattern) == patterns.end())
          patterns.push_back(pattern);
      }
    }
  }
  return patterns;
}

}  // namespace dlldoctor::rules
