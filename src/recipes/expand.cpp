#include "dlldoctor/recipes/expand.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/env/inventory.hpp"
#include "rules/recipe_chain.hpp"
#include "rules/recipe_condition.hpp"

namespace dlldoctor::recipes {
namespace {

using rules::Recipe;
using rules::RecipeStep;

constexpr std::size_t kSmallFile = 256 * 1024;

class Expander {
 public:
  Expander(const rules::RuleData& rules, const env::PythonEnvironment& python, const env::Environment& environment,
           env::FileSystem& files, graph::ClosureRequest& request, Expansion& expansion)
      : rules_(rules),
        python_(python),
        environment_(environment),
        files_(files),
        request_(request),
        expansion_(expansion) {}

  Result<bool> startup(const Recipe& recipe) {
    ExpandedRecipe out{recipe.id, recipe.name, {}, {}, {}, request_.loads.size(), 0, recipe.code, {}, {}};
    values_ = base_values();
    origin_ = recipe.id;
    startup_ = true;
    run_steps(recipe, out);
    startup_ = false;
    expansion_.recipes.push_back(std::move(out));
    return true;
  }

  Result<bool> import(const std::string& id) {
    const Recipe* recipe = rules_.recipe(id);
    if (!recipe || recipe->applies != "import") {
      std::string known;
      for (const Recipe& r : rules_.recipes) {
        if (r.applies == "import") known += (known.empty() ? "" : ", ") + r.id;
      }
      return Error{fmt::format("--import {}: no load recipe describes it (recipes: {}; add one with --rules DIR)", id,
                               known.empty() ? "none" : known)};
    }
    const Recipe* top = rules::package_recipe(rules_, recipe->id);
    if (!top) return Error{fmt::format("--import {}: neither its recipe nor one it extends names a package", id)};
    std::string package_dir;
    std::string looked;
    for (const std::string& site : python_.site_packages) {
      looked += (looked.empty() ? "" : ", ") + site;
      if (auto found = files_.find_folder(site, top->package)) {
        package_dir = *found;
        break;
      }
    }
    if (package_dir.empty()) {
      // Where the user site would have been, and why it was not looked in (PYTHONNOUSERSITE, a venv).
      const std::string user_site = python_.user_site.empty() && !python_.user_site_why.empty()
                                        ? "; the user site: " + python_.user_site_why
                                        : "";
      return Error{fmt::format(
          "--import {}: {} is not installed in this Python environment ({}): no {} folder in {}{}", id, top->package,
          env::layout_name(python_.layout), top->package,
          looked.empty() ? "(no site-packages folder found; name one with --site-packages)" : looked, user_site)};
    }
    ExpandedRecipe out{recipe->id, recipe->name, package_dir, {}, {}, request_.loads.size(), 0, recipe->code, {}, {}};
    values_ = base_values();
    origin_ = "import " + id;
    values_["package"] = package_dir;
    values_["site_packages"] = folder_of(package_dir);
    // The package's own values first, then those each recipe of the chain adds (preload_dlls reads torch's).
    const std::vector<const Recipe*> chain = rules::recipe_chain(rules_, recipe->id);
    for (auto at = chain.rbegin(); at != chain.rend(); ++at) read_values(**at, package_dir, out);
    out.outside_covers = outside_covers(chain, top->package);
    added_.clear();
    run_chain(*recipe, out);
    out.loads = request_.loads.size() - out.first_load;
    expansion_.recipes.push_back(std::move(out));
    // What a later recipe sees as {imported:ID} (onnxruntime.preload_dlls asks whether torch is in
    // sys.modules): the recipe and those it extends.
    for (const Recipe* at : chain) imported_.push_back(at->id);
    return true;
  }

  // Folders added after the last load: they still count for the loads that come after (run-time ones),
  // and for none made before them.
  void finish() {
    request_.dirs_after_loads = std::move(pending_);
    pending_.clear();
  }

 private:
  // The chain's steps, the recipe it extends first. Python imports a module once: a recipe this process
  // has run already is not run again.
  void run_chain(const Recipe& recipe, ExpandedRecipe& out) {
    const std::vector<const Recipe*> chain = rules::recipe_chain(rules_, recipe.id);
    for (auto at = chain.rbegin(); at != chain.rend(); ++at) {
      if (std::find(imported_.begin(), imported_.end(), (*at)->id) == imported_.end()) run_steps(**at, out);
    }
  }

  // What the report says when the package's version is one a recipe of the chain does not hold for.
  std::string outside_covers(const std::vector<const Recipe*>& chain, const std::string& package) const {
    const auto version = values_.find("version");
    const auto parts = version == values_.end() ? std::nullopt : leading_version(version->second);
    if (!parts) return {};
    for (const Recipe* recipe : chain) {
      if (!recipe->covers || recipe->covers->contains(*parts)) continue;
      return fmt::format("the recipe {} holds for {} {} ({}); this is {} {}: its loading code may differ", recipe->id,
                         package, recipe->covers->text(), recipe->code, package, version->second);
    }
    return {};
  }

  std::map<std::string, std::string> base_values() const {
    std::map<std::string, std::string> values{{"prefix", python_.prefix},
                                              {"exec_prefix", python_.prefix},
                                              {"base_prefix", python_.base_prefix},
                                              {"base_exec_prefix", python_.base_prefix}};
    // site.USER_BASE: the user site is <user base>\PythonXY\site-packages (python.org's and the Store's).
    if (!python_.user_site.empty()) values["user_base"] = folder_of(folder_of(python_.user_site));
    for (const std::string& id : imported_) values["imported:" + id] = "yes";
    return values;
  }

  void read_values(const Recipe& recipe, const std::string& package_dir, ExpandedRecipe& out) {
    read_attributes(recipe, package_dir, out);
    for (const rules::RecipeDerived& derived : recipe.derived) {
      const auto from = values_.find(derived.from);
      const auto to = from == values_.end() ? derived.map.end() : derived.map.find(from->second);
      if (to != derived.map.end()) values_[derived.name] = to->second;
    }
  }

  void read_attributes(const Recipe& recipe, const std::string& package_dir, ExpandedRecipe& out) {
    std::vector<rules::RecipeAttribute> wanted = recipe.attributes;
    if (recipe.version) wanted.insert(wanted.begin(), *recipe.version);
    for (const rules::RecipeAttribute& attribute : wanted) {
      std::optional<std::string> value;
      std::string folder = package_dir;
      if (!attribute.package.empty())
        folder = files_.find_folder(folder_of(package_dir), attribute.package).value_or("");
      std::string file_name = attribute.file;
      if (const auto slash = file_name.find_last_of("/\\"); slash != std::string::npos) {
        auto sub = files_.find_folder(folder, file_name.substr(0, slash));
        folder = sub.value_or("");
        file_name = file_name.substr(slash + 1);
      }
      if (!attribute.dist_info.empty()) {
        value = dist_info_version(folder_of(package_dir), attribute.dist_info);
      } else if (auto file = folder.empty() ? std::nullopt : files_.find_file(folder, file_name)) {
        if (auto text = files_.read_small_file(*file, kSmallFile)) value = env::python_assignment(*text, attribute.key);
      }
      if (!value) continue;
      values_[attribute.name] = *value;
      out.values[attribute.name] = *value;
      // "12.4" also gives {cuda_major} 12 and {cuda_minor} 4; "2.5.1+cu124" gives 2 and 5.
      const auto dot = value->find('.');
      if (dot != std::string::npos) {
        values_[attribute.name + "_major"] = value->substr(0, dot);
        const auto end = value->find_first_not_of("0123456789", dot + 1);
        values_[attribute.name + "_minor"] = value->substr(dot + 1, end == std::string::npos ? end : end - dot - 1);
      }
    }
  }

  // The version in the name of a distribution's folder pip wrote: tensorflow-2.10.1.dist-info is 2.10.1.
  std::optional<std::string> dist_info_version(const std::string& site, const std::string& pattern) {
    const std::string suffix = ".dist-info";
    for (const std::string& name : files_.folder_names(site)) {
      if (name.size() <= suffix.size() || ascii_lower(name.substr(name.size() - suffix.size())) != suffix) continue;
      const std::string stem = name.substr(0, name.size() - suffix.size());
      const auto dash = stem.rfind('-');
      if (dash == std::string::npos || !env::wildcard_match(pattern, stem.substr(0, dash))) continue;
      return stem.substr(dash + 1);
    }
    return std::nullopt;
  }

  // Fills the placeholders, innermost first, so that a variable's name may hold one:
  // {env:CUDA_PATH_V{cuda_major}_{cuda_minor}|C:\...\v{cuda}}. nullopt names what had no value.
  Result<std::string> fill(std::string text) {
    for (;;) {
      const auto close = text.find('}');
      if (close == std::string::npos) return text;
      const auto open = text.rfind('{', close);
      if (open == std::string::npos) return Error{fmt::format("unbalanced braces in \"{}\"", text)};
      const std::string inside = text.substr(open + 1, close - open - 1);
      std::optional<std::string> value;
      if (inside.rfind("env:", 0) == 0) {
        const auto bar = inside.find('|');
        const std::string name = inside.substr(4, bar == std::string::npos ? std::string::npos : bar - 4);
        auto found = environment_.variables.find(ascii_lower(name));
        if (found != environment_.variables.end()) {
          value = found->second.value;
          note_variable(fmt::format("{} = {} ({})", name, found->second.value, found->second.source));
        } else if (bar != std::string::npos) {
          value = inside.substr(bar + 1);
          note_variable(fmt::format("{} is not set: {} is used", name, *value));
        } else {
          return Error{fmt::format("the variable {} is not set", name)};
        }
      } else if (auto found = values_.find(inside); found != values_.end()) {
        value = found->second;
      } else {
        return Error{fmt::format("{{{}}} has no value here", inside)};
      }
      text.replace(open, close - open + 1, *value);
    }
  }

  void note_variable(const std::string& text) {
    auto& used = expansion_.variables_used;
    if (std::find(used.begin(), used.end(), text) == used.end()) used.push_back(text);
  }

  void run_steps(const Recipe& recipe, ExpandedRecipe& out) {
    for (const RecipeStep& step : recipe.steps) {
      if (outside_step_covers(recipe, step, out)) continue;
      if (!step.when.empty() && !condition_holds(step)) {
        out.steps.push_back({step_text(step, step.target), fmt::format("skipped: not {}", step.when), step.why});
        continue;
      }
      if (step.each.empty()) {
        out.steps.push_back(run_step(step));
        continue;
      }
      for (const std::string& entry : step.each) {
        auto filled = fill(entry);
        values_["each"] = filled ? *filled : entry;
        values_["each_name"] = base_name(values_["each"]);
        out.steps.push_back(run_step(step));
      }
      values_.erase("each");
      values_.erase("each_name");
    }
  }

  // A step this version of the framework does not make: skipped, and the folder it would have added noted.
  bool outside_step_covers(const Recipe& recipe, const RecipeStep& step, ExpandedRecipe& out) {
    const auto version = values_.find("version");
    const auto parts = version == values_.end() ? std::nullopt : leading_version(version->second);
    // An unknown version makes the call, as the recipe's newest code does.
    if (!step.covers || !parts || step.covers->contains(*parts)) return false;
    const std::string made = fmt::format("{} makes this call in {}", recipe.name, step.covers->text());
    auto target = fill(step.target);
    if (!target) {
      out.steps.push_back({step_text(step, step.target), "skipped: " + made, step.why});
      return true;
    }
    const env::FolderRef folder = env::resolve_folder(environment_, *target, files_);
    out.steps.push_back({step_text(step, folder.windows.value_or(folder.host)),
                         fmt::format("skipped: this is {} {}; {}", recipe.name, version->second, made), step.why});
    if (step.kind == RecipeStep::Kind::AddDllDirectory && folder.exists)
      out.not_added.push_back({folder.host, fmt::format("{} {} does not add that folder ({} {} do)", recipe.name,
                                                        version->second, recipe.name, step.covers->text())});
    return true;
  }

  bool condition_holds(const RecipeStep& step) {
    const auto condition = rules::parse_condition(step.when);  // checked when the rules were read
    return condition && rules::holds(*condition, [&](const std::string& operand) {
             auto value = fill(operand);
             return value ? *value : std::string();
           });
  }

  static std::string step_text(const RecipeStep& step, const std::string& target) {
    switch (step.kind) {
      case RecipeStep::Kind::NoInheritedPath: return "no_inherited_path";
      case RecipeStep::Kind::Load: return "load " + target;
      case RecipeStep::Kind::AddDllDirectory: return "add_dll_directory " + target;
      case RecipeStep::Kind::SetDllDirectory: return "set_dll_directory " + target;
    }
    return target;
  }

  StepOutcome run_step(const RecipeStep& step) {
    StepOutcome outcome;
    outcome.why = step.why;
    if (step.kind == RecipeStep::Kind::NoInheritedPath) {
      outcome.step = step_text(step, step.target);
      request_.settings.inherited_path_searched = false;
      outcome.outcome = "PATH is not searched for this process's DLLs";
      return outcome;
    }
    auto target = fill(step.target);
    if (!target) {
      outcome.step = step_text(step, step.target);
      outcome.outcome = "skipped: " + target.error().message;
      return outcome;
    }
    outcome.step = step_text(step, env::shown_path(environment_, *target));
    if (step.kind == RecipeStep::Kind::AddDllDirectory) {
      add_directory(step, *target, outcome);
    } else if (step.kind == RecipeStep::Kind::SetDllDirectory) {
      const env::FolderRef folder = env::resolve_folder(environment_, *target, files_);
      outcome.step = "set_dll_directory " + folder.windows.value_or(folder.host);
      // SetDllDirectoryW does not check the folder: a missing one is searched for nothing.
      outcome.outcome = folder.exists ? "set" : "set (the folder does not exist)";
      dll_directory_ = folder;
    } else {
      load(step, *target, outcome);
    }
    return outcome;
  }

  void add_directory(const RecipeStep& step, const std::string& target, StepOutcome& outcome) {
    env::FolderRef folder = env::resolve_folder(environment_, target, files_);
    outcome.step = "add_dll_directory " + folder.windows.value_or(folder.host);
    // PyTorch looks for cudart64*.dll first, and only then at the toolkit's folder.
    if (!step.unless_found.empty()) {
      for (const env::FolderRef& added : added_) {
        for (const std::string& name : files_.file_names(added.host)) {
          if (env::wildcard_match(step.unless_found, name)) {
            outcome.outcome = fmt::format("skipped: {} is in {}", name, added.windows.value_or(added.host));
            return;
          }
        }
      }
    }
    if (!folder.exists) {
      // os.add_dll_directory raises on a folder that does not exist; the recipes test first.
      outcome.outcome = step.if_exists ? "skipped: the folder does not exist" : "fails: the folder does not exist";
      return;
    }
    outcome.outcome = "added";
    added_.push_back(folder);
    if (startup_) {
      request_.settings.user_dirs.push_back(std::move(folder));
    } else {
      pending_.push_back(std::move(folder));
    }
  }

  void load(const RecipeStep& step, const std::string& target, StepOutcome& outcome) {
    std::vector<std::string> names;
    if (!resolve::has_path(target)) {
      names.push_back(target);
    } else {
      const std::string file = base_name(target);
      const env::FolderRef folder = env::resolve_folder(environment_, folder_of(target), files_);
      if (file.find_first_of("*?") == std::string::npos) {
        if (auto found = folder.exists ? files_.find_file(folder.host, file) : std::nullopt) names.push_back(*found);
      } else if (folder.exists) {
        for (const std::string& name : files_.file_names(folder.host)) {
          if (env::wildcard_match(file, name)) names.push_back(env::join_path(folder.host, name));
        }
      }
      if (names.empty()) {
        outcome.outcome = "nothing to load: no such file";
        return;
      }
    }
    for (const std::string& name : names) {
      graph::LoadCall call;
      call.name = name;
      call.flags = step.flags;
      call.add_dll_directories = std::move(pending_);
      pending_.clear();
      if (step.retry_with_path) call.retry_with_path = added_;
      call.set_dll_directory = std::move(dll_directory_);
      dll_directory_.reset();
      call.failure_caught = step.failure_caught || step.first_use;
      call.says = step.says;
      call.origin = step.first_use ? origin_ + ", at first use" : origin_;
      request_.loads.push_back(std::move(call));
    }
    outcome.outcome = names.size() == 1 ? "1 load" : fmt::format("{} loads", names.size());
  }

  const rules::RuleData& rules_;
  const env::PythonEnvironment& python_;
  const env::Environment& environment_;
  env::FileSystem& files_;
  graph::ClosureRequest& request_;
  Expansion& expansion_;
  std::map<std::string, std::string> values_;
  std::vector<env::FolderRef> added_;            // folders this recipe added (PyTorch's dll_paths)
  std::vector<env::FolderRef> pending_;          // added since the last load
  std::optional<env::FolderRef> dll_directory_;  // SetDllDirectory since the last load
  std::string origin_;                           // what the calls are made by: "import torch", "conda"
  std::vector<std::string> imported_;            // recipes imported so far, in this process
  bool startup_ = false;
};

}  // namespace

Result<Expansion> expand_python(const rules::RuleData& rules, const env::PythonEnvironment& python,
                                const std::vector<std::string>& imports, const env::Environment& environment,
                                env::FileSystem& files, graph::ClosureRequest& request) {
  Expansion expansion;
  expansion.python = python;
  Expander expander(rules, python, environment, files, request, expansion);
  const std::string layout = python.layout == env::PythonEnvironment::Layout::Conda   ? "conda"
                             : python.layout == env::PythonEnvironment::Layout::Store ? "store"
                                                                                      : "";
  for (const rules::Recipe& recipe : rules.recipes) {
    if (!layout.empty() && recipe.applies == layout) {
      auto done = expander.startup(recipe);
      if (!done) return done.error();
    }
  }
  for (const std::string& id : imports) {
    auto done = expander.import(id);
    if (!done) return done.error();
  }
  expander.finish();
  return expansion;
}

}  // namespace dlldoctor::recipes
