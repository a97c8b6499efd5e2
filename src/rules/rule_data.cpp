#include "dlldoctor/rules/rule_data.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <mutex>
#include <regex>
#include <set>

#include "core/fs.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "rules/fix_template.hpp"
#include "rules/recipe_chain.hpp"
#include "rules/recipe_reader.hpp"
#include "rules/table_reader.hpp"
#include "rules/toml_headers.hpp"

namespace dlldoctor::rules {

std::string_view severity_name(Severity severity) {
  switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
  }
  return "?";
}

namespace {

using detail::assign;
using detail::read_tables;
using detail::read_version_range;
using detail::TableReader;
using detail::where;

Result<VersionedLoads> read_versioned_loads(const TableReader& in) {
  auto keys = in.only_keys({"from", "before", "loads", "why"});
  if (!keys) return keys.error();
  VersionedLoads out;
  std::optional<Error> error;
  assign(read_version_range(in), out.versions, error);
  assign(in.texts<DllName>("loads", true), out.loads, error);
  assign(in.text("why", std::string()), out.why, error);
  if (error) return *error;
  return out;
}

Result<Family> read_family(const TableReader& in) {
  Family family;
  family.source = in.at();
  auto keys = in.only_keys({"id", "name", "kind", "generation", "main", "members", "runtime_loads", "versioned_loads",
                            "install_places", "wheel_places", "install", "redist_folder", "same_version",
                            "version_format", "runtime_says", "release", "archive"});
  if (!keys) return keys.error();
  std::optional<Error> error;
  assign(in.text("id"), family.id, error);
  assign(in.text("name"), family.name, error);
  assign(in.text("kind"), family.kind, error);
  assign(in.text("generation"), family.generation, error);
  assign(in.texts<DllName>("main", true), family.main, error);
  assign(in.texts<DllName>("members", true), family.members, error);
  assign(in.texts<DllName>("runtime_loads", false), family.runtime_loads, error);
  assign(in.texts("install_places", false), family.install_places, error);
  assign(in.texts("wheel_places", false), family.wheel_places, error);
  assign(in.text("install", std::string()), family.install, error);
  assign(in.text("redist_folder", std::string()), family.redist_folder, error);
  assign(in.text("release", std::string()), family.release, error);
  assign(in.text("archive", std::string()), family.archive, error);
  assign(in.flag("same_version", false), family.same_version, error);
  assign(in.text("version_format", std::string("plain")), family.version_format, error);
  assign(in.says("runtime_says"), family.runtime_says, error);
  if (error) return *error;
  auto versioned = read_tables(in.table(), "versioned_loads", in.file(), family.versioned_loads, read_versioned_loads);
  if (!versioned) return versioned.error();
  // The detectors know these kinds; any other would match none of them. "library": a vendor library no
  // detector treats apart (TensorRT, LLVM's OpenMP), reported missing with its family's install hint.
  static const std::string_view kKinds[] = {"cudnn", "cuda", "msvc", "zlib", "driver", "library"};
  if (std::find(std::begin(kKinds), std::end(kKinds), family.kind) == std::end(kKinds)) {
    return Error{fmt::format("{}: kind must be cudnn, cuda, msvc, zlib, driver or library, not \"{}\"", family.source,
                             family.kind)};
  }
  if (family.version_format != "plain" && family.version_format != "cudart" &&
      family.version_format != "nvidia_driver") {
    return Error{fmt::format("{}: version_format must be \"plain\", \"cudart\" or \"nvidia_driver\"", family.source)};
  }
  for (const std::string& place : family.wheel_places) {
    // Joined under a site-packages folder: a drive, a root or a ".." would leave it.
    const bool relative = !place.empty() && place.front() != '\\' && place.front() != '/' &&
                          place.find(':') == std::string::npos && place.find("..") == std::string::npos;
    if (!relative) {
      return Error{
          fmt::format("{}: wheel_places: \"{}\" must be a folder relative to site-packages", family.source, place)};
    }
  }
  for (const auto& dll : family.main) {
    if (std::find(family.members.begin(), family.members.end(), dll) == family.members.end()) {
      return Error{fmt::format("{}: {} is not among the family's members", family.source, dll.key())};
    }
  }
  return family;
}

// steps.<variant> = [{ kind = "rename", path = "{chosen}" }, ...]: each a change the planner may try.
Result<std::vector<FindingRule::StepTemplate>> read_step_templates(const toml::node& node, const std::string& key,
                                                                   const std::string& file) {
  const toml::array* array = node.as_array();
  if (!array) return Error{fmt::format("{}: '{}' must be a list of steps", where(file, node.source()), key)};
  std::vector<FindingRule::StepTemplate> steps;
  for (const toml::node& item : *array) {
    const toml::table* table = item.as_table();
    if (!table) return Error{fmt::format("{}: '{}' must hold tables", where(file, item.source()), key)};
    FindingRule::StepTemplate step;
    auto kind = (*table)["kind"].value<std::string>();
    const std::vector<std::string>* fields = kind ? fix_step_fields(*kind) : nullptr;
    if (!fields) {
      return Error{
          fmt::format("{}: '{}': kind must be rename, copy, install, path_add, path_remove, unblock, "
                      "new_terminal or by_hand",
                      where(file, item.source()), key)};
    }
    step.kind = *kind;
    for (const auto& [name, value] : *table) {
      const std::string field(name.str());
      if (field == "kind") continue;
      if (std::find(fields->begin(), fields->end(), field) == fields->end()) {
        return Error{
            fmt::format("{}: '{}': a {} step has no field '{}'", where(file, value.source()), key, step.kind, field)};
      }
      auto text = value.value<std::string>();
      if (!text) return Error{fmt::format("{}: '{}.{}' must be a string", where(file, value.source()), key, field)};
      step.fields.emplace(field, *text);
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

Result<FindingRule> read_finding(const TableReader& in) {
  FindingRule rule;
  rule.source = in.at();
  auto keys = in.only_keys({"id", "title", "failure_mode", "severity", "message", "fix", "steps", "error", "says"});
  if (!keys) return keys.error();
  auto id = in.text("id");
  if (!id) return id.error();
  // A finding's own title: several findings share a failure mode, whose title names none of them.
  auto title = in.text("title");
  if (!title) return title.error();
  auto mode = in.text("failure_mode");
  if (!mode) return mode.error();
  auto severity = in.text("severity");
  if (!severity) return severity.error();
  rule.id = *id;
  rule.title = *title;
  rule.failure_mode = *mode;
  if (*severity == "error") {
    rule.severity = Severity::Error;
  } else if (*severity == "warning") {
    rule.severity = Severity::Warning;
  } else if (*severity == "info") {
    rule.severity = Severity::Info;
  } else {
    return Error{fmt::format("{}: severity must be error, warning or info", rule.source)};
  }
  const std::string& file = in.file();
  auto messages =
      in.variants<std::string>("message", [&](const toml::node& node, const std::string& key) -> Result<std::string> {
        auto value = node.value<std::string>();
        if (!value) return Error{fmt::format("{}: '{}' must be a string", where(file, node.source()), key)};
        return *value;
      });
  if (!messages) return messages.error();
  auto fixes = in.variants<std::vector<std::string>>(
      "fix", [&](const toml::node& node, const std::string& key) -> Result<std::vector<std::string>> {
        const toml::array* array = node.as_array();
        if (!array) return Error{fmt::format("{}: '{}' must be a list of commands", where(file, node.source()), key)};
        std::vector<std::string> lines;
        for (const toml::node& item : *array) {
          auto value = item.value<std::string>();
          if (!value) return Error{fmt::format("{}: '{}' must hold strings", where(file, item.source()), key)};
          lines.push_back(*value);
        }
        return lines;
      });
  if (!fixes) return fixes.error();
  if (in.table().get("steps")) {
    auto steps = in.variants<std::vector<FindingRule::StepTemplate>>(
        "steps", [&](const toml::node& node, const std::string& key) { return read_step_templates(node, key, file); });
    if (!steps) return steps.error();
    rule.steps = std::move(steps).value();
  }
  if (in.table().get("error")) {
    auto errors = in.variants<int>("error", [&](const toml::node& node, const std::string& key) -> Result<int> {
      auto value = node.value<std::int64_t>();
      if (!value || *value <= 0 || *value > 0xFFFF)
        return Error{fmt::format("{}: '{}' must be a loader error number (126, 127, 193, 1114)",
                                 where(file, node.source()), key)};
      return static_cast<int>(*value);
    });
    if (!errors) return errors.error();
    rule.errors = std::move(errors).value();
  }
  auto says = in.says("says");
  if (!says) return says.error();
  rule.says = std::move(says).value();
  rule.messages = std::move(messages).value();
  rule.fixes = std::move(fixes).value();
  for (const auto& [variant, lines] : rule.fixes) {
    for (const std::string& line : lines) {
      for (const TemplatePiece& piece : parse_fix_template(line)) {
        if (piece.placeholder && piece.context == TemplateContext::Quoted) {
          return Error{fmt::format(
              "{}: fix.{}: {{{}}} stands inside quotes; values enter a command as PowerShell literals of their "
              "own (write {{{}}}, not '{{{}}}' or \"{{{}}}\")",
              rule.source, variant, piece.text, piece.text, piece.text, piece.text)};
        }
      }
    }
  }
  return rule;
}

// A row of the [driver] tables: { cuda = "...", driver = "..." }, its two texts.
struct DriverRow {
  std::string cuda;
  std::string driver;
};
Result<DriverRow> read_driver_row(const TableReader& in) {
  auto keys = in.only_keys({"cuda", "driver"});
  if (!keys) return keys.error();
  auto cuda = in.text("cuda");
  if (!cuda) return cuda.error();
  auto driver = in.text("driver");
  if (!driver) return driver.error();
  return DriverRow{*cuda, *driver};
}

Result<DriverMinimum> read_driver_minimum(const TableReader& in) {
  auto row = read_driver_row(in);
  if (!row) return row.error();
  DriverMinimum minimum;
  if (std::sscanf(row->cuda.c_str(), "%d.%d", &minimum.cuda_major, &minimum.cuda_minor) != 2) {
    return Error{fmt::format("{}: cuda must be \"major.minor\"", in.at())};
  }
  minimum.driver = row->driver;
  return minimum;
}

Result<DriverFloor> read_driver_floor(const TableReader& in) {
  auto row = read_driver_row(in);
  if (!row) return row.error();
  DriverFloor floor;
  char rest = 0;
  if (std::sscanf(row->cuda.c_str(), "%d%c", &floor.cuda_major, &rest) != 1) {
    return Error{fmt::format("{}: cuda must be a major release alone (\"12\")", in.at())};
  }
  floor.driver = row->driver;
  return floor;
}

Result<LoaderError> read_loader_error(const TableReader& in) {
  LoaderError out;
  out.source = in.at();
  auto keys = in.only_keys({"code", "name", "text", "startup_status", "startup", "delay"});
  if (!keys) return keys.error();
  const toml::node* code = in.table().get("code");
  auto number = code ? code->value<std::int64_t>() : std::nullopt;
  if (!number || *number <= 0 || *number > 0xFFFF)
    return Error{fmt::format("{}: 'code' must be a loader error number", out.source)};
  out.code = static_cast<int>(*number);
  std::optional<Error> error;
  assign(in.text("name"), out.name, error);
  assign(in.text("text"), out.text, error);
  assign(in.text("startup_status", std::string()), out.startup_status, error);
  assign(in.text("startup", std::string()), out.startup, error);
  assign(in.text("delay", std::string()), out.delay, error);
  if (error) return *error;
  return out;
}

Result<LibraryNote> read_library(const TableReader& in) {
  LibraryNote out;
  out.source = in.at();
  auto keys = in.only_keys({"dll", "windows_component", "older"});
  if (!keys) return keys.error();
  std::optional<Error> error;
  std::string dll;
  assign(in.text("dll"), dll, error);
  assign(in.text("windows_component", std::string()), out.windows_component, error);
  assign(in.text("older", std::string()), out.older, error);
  if (error) return *error;
  out.dll = DllName(dll);
  return out;
}

// [machine]: its lists add to those of the files read before.
Result<bool> read_machine_places(const toml::node* node, const std::string& file, MachinePlaces& places) {
  const toml::table* table = node->as_table();
  if (!table) return Error{fmt::format("{}: machine must be a table", where(file, node->source()))};
  const TableReader in(*table, file);
  auto keys = in.only_keys({"pythons", "conda", "conda_dll_folders", "toolkits", "toolkit_variables", "toolkit_bins",
                            "driver_store", "driver_store_dlls", "cuda_in_path", "toolkit_keys", "package_markers",
                            "package_boundaries", "package_dll_folders"});
  if (!keys) return keys.error();
  if (places.source.empty()) places.source = in.at();
  const std::pair<const char*, std::vector<std::string> MachinePlaces::*> lists[] = {
      {"pythons", &MachinePlaces::pythons},
      {"conda", &MachinePlaces::conda},
      {"conda_dll_folders", &MachinePlaces::conda_dll_folders},
      {"toolkits", &MachinePlaces::toolkits},
      {"toolkit_variables", &MachinePlaces::toolkit_variables},
      {"toolkit_bins", &MachinePlaces::toolkit_bins},
      {"driver_store", &MachinePlaces::driver_store},
      {"driver_store_dlls", &MachinePlaces::driver_store_dlls},
      {"cuda_in_path", &MachinePlaces::cuda_in_path},
      {"toolkit_keys", &MachinePlaces::toolkit_keys},
      {"package_markers", &MachinePlaces::package_markers},
      {"package_boundaries", &MachinePlaces::package_boundaries},
      {"package_dll_folders", &MachinePlaces::package_dll_folders}};
  for (const auto& [key, member] : lists) {
    auto values = in.texts(key, false);
    if (!values) return values.error();
    for (std::string& value : *values) {
      // Places are Windows paths from a drive's root; a toolkit's DLL folder and a variable are names.
      const bool relative = member == &MachinePlaces::toolkit_bins || member == &MachinePlaces::toolkit_variables ||
                            member == &MachinePlaces::driver_store_dlls ||
                            member == &MachinePlaces::conda_dll_folders || member == &MachinePlaces::cuda_in_path ||
                            member == &MachinePlaces::toolkit_keys || member == &MachinePlaces::package_markers ||
                            member == &MachinePlaces::package_boundaries ||
                            member == &MachinePlaces::package_dll_folders;
      if (member == &MachinePlaces::cuda_in_path) {
        try {
          std::regex check(value);
        } catch (const std::regex_error& e) {
          return Error{fmt::format("{}: cuda_in_path holds \"{}\", which is no regular expression ({})", in.at(), value,
                                   e.what())};
        }
      }
      if (!relative && !(value.size() > 3 && value[1] == ':' && value[2] == '\\'))
        return Error{fmt::format("{}: {} holds \"{}\": a place is a Windows path such as C:\\Python3*\\python.exe",
                                 in.at(), key, value)};
      (places.*member).push_back(std::move(value));
    }
  }
  return true;
}

Result<bool> parse_file(const RuleFile& rule_file, RuleData& data) {
  const std::string& file = rule_file.path;
  if (auto unreadable = unreadable_toml(rule_file.text, file)) return *unreadable;
  toml::table root;
  try {
    root = toml::parse(rule_file.text, file);
  } catch (const toml::parse_error& e) {
    return Error{fmt::format("{}:{}: {}", file, e.source().begin.line, e.description())};
  }
  for (const auto& [key, node] : root) {
    const std::string_view name = key.str();
    if (name != "family" && name != "failure_mode" && name != "finding" && name != "driver" && name != "recipe" &&
        name != "profile" && name != "delay_load_hook" && name != "lazy_load" && name != "loader_error" &&
        name != "library" && name != "machine") {
      return Error{fmt::format("{}: unknown section '{}'", where(file, node.source()), name)};
    }
  }
  auto families = read_tables(root, "family", file, data.families, read_family);
  if (!families) return families;
  auto modes =
      read_tables(root, "failure_mode", file, data.failure_modes, [](const TableReader& in) -> Result<FailureMode> {
        FailureMode mode;
        auto keys = in.only_keys({"id", "title", "explanation", "seed_section"});
        if (!keys) return keys.error();
        std::optional<Error> error;
        assign(in.text("id"), mode.id, error);
        assign(in.text("title"), mode.title, error);
        assign(in.text("explanation"), mode.explanation, error);
        assign(in.text("seed_section", std::string()), mode.seed_section, error);
        if (error) return *error;
        return mode;
      });
  if (!modes) return modes;
  auto findings = read_tables(root, "finding", file, data.findings, read_finding);
  if (!findings) return findings;
  auto recipes = read_tables(root, "recipe", file, data.recipes, read_recipe);
  if (!recipes) return recipes;
  auto profiles = read_tables(root, "profile", file, data.profiles, read_profile);
  if (!profiles) return profiles;
  auto hooks = read_tables(root, "delay_load_hook", file, data.delay_load_hooks, read_delay_load_hook);
  if (!hooks) return hooks;
  auto lazy = read_tables(root, "lazy_load", file, data.lazy_loads, read_lazy_load);
  if (!lazy) return lazy;
  auto errors = read_tables(root, "loader_error", file, data.loader_errors, read_loader_error);
  if (!errors) return errors;
  auto libraries = read_tables(root, "library", file, data.libraries, read_library);
  if (!libraries) return libraries;
  if (const toml::node* machine = root.get("machine")) {
    auto places = read_machine_places(machine, file, data.machine);
    if (!places) return places;
  }
  if (const toml::table* driver = root["driver"].as_table()) {
    auto minimums = read_tables(*driver, "minimum", file, data.driver_minimums, read_driver_minimum);
    if (!minimums) return minimums;
    auto floors = read_tables(*driver, "minor_compatible", file, data.driver_floors, read_driver_floor);
    if (!floors) return floors;
  }
  data.files.push_back(file);
  return true;
}

// What must hold across files: unique ids, one family per DLL name, findings naming known modes.
Result<bool> validate(RuleData& data) {
  std::map<DllName, std::string> family_of_dll;
  std::map<std::string, std::string> family_ids;
  for (const Family& family : data.families) {
    if (!family_ids.emplace(family.id, family.source).second) {
      return Error{fmt::format("{}: family '{}' is defined twice (also at {})", family.source, family.id,
                               family_ids[family.id])};
    }
    for (const DllName& dll : family.members) {
      auto [it, added] = family_of_dll.emplace(dll, family.id);
      if (!added)
        return Error{fmt::format("{}: {} is already a member of family '{}'", family.source, dll.key(), it->second)};
    }
  }
  for (const Family& family : data.families) {
    std::vector<DllName> loads = family.runtime_loads;
    for (const VersionedLoads& versioned : family.versioned_loads)
      loads.insert(loads.end(), versioned.loads.begin(), versioned.loads.end());
    for (const DllName& dll : loads) {
      if (!family_of_dll.count(dll)) {
        return Error{fmt::format("{}: runtime load {} is not a member of any family", family.source, dll.key())};
      }
    }
  }
  // The closure follows only names a family knows: a lazy load of any other name would never be made.
  for (const graph::LazyLoad& lazy : data.lazy_loads) {
    for (const DllName& dll : lazy.dlls) {
      if (!family_of_dll.count(dll))
        return Error{fmt::format("{}: lazy load {} is not a member of any family", lazy.source, dll.key())};
    }
  }
  std::map<std::string, std::string> finding_ids;
  for (std::size_t i = 0; i < data.findings.size(); ++i) {
    const FindingRule& rule = data.findings[i];
    if (!finding_ids.emplace(rule.id, rule.source).second) {
      return Error{fmt::format("{}: finding '{}' is defined twice", rule.source, rule.id)};
    }
    for (const auto& [variant, code] : rule.errors) {
      if (!data.loader_error(code))
        return Error{fmt::format("{}: finding '{}' error.{} = {}: no [[loader_error]] has that code", rule.source,
                                 rule.id, variant, code)};
    }
    if (!data.failure_mode(rule.failure_mode)) {
      return Error{
          fmt::format("{}: finding '{}' names unknown failure mode '{}'", rule.source, rule.id, rule.failure_mode)};
    }
  }
  auto recipes = validate_recipes(data.recipes, data.profiles);
  if (!recipes) return recipes;
  for (const Recipe& recipe : data.recipes) {
    for (const RecipeRequirement& requirement : recipe.requirements) {
      if (!data.finding(requirement.finding))
        return Error{
            fmt::format("{}: requirement names unknown finding '{}'", requirement.source, requirement.finding)};
    }
  }
  std::sort(data.driver_minimums.begin(), data.driver_minimums.end(),
            [](const DriverMinimum& a, const DriverMinimum& b) {
              return std::tie(a.cuda_major, a.cuda_minor) < std::tie(b.cuda_major, b.cuda_minor);
            });
  std::set<int> floor_majors;
  for (const DriverFloor& floor : data.driver_floors) {
    if (!floor_majors.insert(floor.cuda_major).second)
      return Error{fmt::format("[driver] minor_compatible: CUDA {} is given twice", floor.cuda_major)};
  }
  return true;
}

}  // namespace

const Family* RuleData::family_of(const DllName& dll) const {
  for (const Family& family : families) {
    if (std::find(family.members.begin(), family.members.end(), dll) != family.members.end()) return &family;
  }
  return nullptr;
}

const Family* RuleData::family(const std::string& id) const {
  for (const Family& f : families) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

const FailureMode* RuleData::failure_mode(const std::string& id) const {
  for (const FailureMode& mode : failure_modes) {
    if (mode.id == id) return &mode;
  }
  return nullptr;
}

const LoadProfile* RuleData::profile(const std::string& id) const {
  for (const LoadProfile& p : profiles) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

const LoaderError* RuleData::loader_error(int code) const {
  for (const LoaderError& error : loader_errors) {
    if (error.code == code) return &error;
  }
  return nullptr;
}

const LibraryNote* RuleData::library(const DllName& dll) const {
  for (const LibraryNote& note : libraries) {
    if (note.dll == dll) return &note;
  }
  return nullptr;
}

const Recipe* RuleData::recipe(const std::string& id) const {
  for (const Recipe& r : recipes) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

const FindingRule* RuleData::finding(const std::string& id) const { return findings.find(id); }

struct FindingRules::Entry {
  std::string id;
  std::string_view packed;
  std::shared_ptr<const Unpack> unpack;  // none: `rule` was given
  mutable std::once_flag unpacked;
  mutable std::optional<FindingRule> rule;
};

FindingRules::FindingRules() = default;
FindingRules::FindingRules(FindingRules&&) noexcept = default;
FindingRules& FindingRules::operator=(FindingRules&&) noexcept = default;
FindingRules::~FindingRules() = default;

FindingRules::FindingRules(const FindingRules& other) {
  entries_.reserve(other.entries_.size());
  for (const auto& entry : other.entries_) {
    // A packed rule is copied packed: another thread may be unpacking the original.
    if (entry->unpack) {
      push_back_packed(entry->id, entry->packed, entry->unpack);
    } else {
      push_back(*entry->rule);
    }
  }
}

FindingRules& FindingRules::operator=(const FindingRules& other) {
  if (this != &other) *this = FindingRules(other);
  return *this;
}

void FindingRules::push_back(FindingRule rule) {
  auto entry = std::make_unique<Entry>();
  entry->id = rule.id;
  entry->rule = std::move(rule);
  entries_.push_back(std::move(entry));
}

void FindingRules::push_back_packed(std::string id, std::string_view packed, std::shared_ptr<const Unpack> unpack) {
  auto entry = std::make_unique<Entry>();
  entry->id = std::move(id);
  entry->packed = packed;
  entry->unpack = std::move(unpack);
  entries_.push_back(std::move(entry));
}

void FindingRules::append(FindingRules&& more) {
  for (auto& entry : more.entries_) entries_.push_back(std::move(entry));
  more.entries_.clear();
}

const FindingRule& FindingRules::operator[](std::size_t index) const {
  const Entry& entry = *entries_.at(index);
  if (entry.unpack) std::call_once(entry.unpacked, [&entry] { entry.rule = (*entry.unpack)(entry.packed); });
  return *entry.rule;
}

const FindingRule* FindingRules::find(std::string_view id) const {
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i]->id == id) return &(*this)[i];
  }
  return nullptr;
}

Result<std::vector<RuleFile>> rule_file_list(const std::string& folder) {
  if (folder.empty()) return Error{"rules folder : no such folder"};
  std::vector<RuleFile> files;
  const FolderListing listed = list_folder(folder, [&](std::string name, bool) {
    const fs::path file(to_fs_path(name));
    if (file.extension() == ".toml") files.push_back({from_fs_path(to_fs_path(folder) / file), std::move(name), {}});
  });
  if (listed.outcome == FolderListing::Outcome::Missing)
    return Error{fmt::format("rules folder {}: no such folder", folder)};
  if (listed.outcome == FolderListing::Outcome::Unreadable)
    return Error{fmt::format("rules folder {}: {}", folder, listed.error.message())};
  std::sort(files.begin(), files.end(), [](const RuleFile& a, const RuleFile& b) { return a.path < b.path; });
  return files;
}

Result<std::vector<RuleFile>> rule_files(const std::string& folder) {
  auto files = rule_file_list(folder);
  if (!files) return files;
  for (RuleFile& file : *files) {
    // Read here, not by toml::parse_file: the path is UTF-8 (dlldoctor.exe may live in any folder).
    std::optional<std::string> text = read_whole_file(file.path);
    if (!text) return Error{fmt::format("{}: cannot read", file.path)};
    file.text = std::move(*text);
  }
  return files;
}

Result<RuleData> parse_rule_files(const std::vector<RuleFile>& files) {
  RuleData data;
  for (const RuleFile& file : files) {
    auto read = parse_file(file, data);
    if (!read) return read.error();
  }
  return data;
}

namespace {

template <typename T>
void append(std::vector<T>& to, std::vector<T>& from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

void append(RuleData& to, RuleData& from) {
  append(to.families, from.families);
  append(to.failure_modes, from.failure_modes);
  to.findings.append(std::move(from.findings));
  append(to.driver_minimums, from.driver_minimums);
  append(to.driver_floors, from.driver_floors);
  append(to.recipes, from.recipes);
  append(to.profiles, from.profiles);
  append(to.delay_load_hooks, from.delay_load_hooks);
  append(to.lazy_loads, from.lazy_loads);
  append(to.loader_errors, from.loader_errors);
  append(to.libraries, from.libraries);
  MachinePlaces& places = to.machine;
  for (auto member :
       {&MachinePlaces::pythons, &MachinePlaces::conda, &MachinePlaces::conda_dll_folders, &MachinePlaces::toolkits,
        &MachinePlaces::toolkit_variables, &MachinePlaces::toolkit_bins, &MachinePlaces::driver_store,
        &MachinePlaces::driver_store_dlls, &MachinePlaces::cuda_in_path, &MachinePlaces::toolkit_keys,
        &MachinePlaces::package_markers, &MachinePlaces::package_boundaries, &MachinePlaces::package_dll_folders})
    append(places.*member, from.machine.*member);
  if (places.source.empty()) places.source = from.machine.source;
  append(to.files, from.files);
}

}  // namespace

Result<RuleData> add_rule_folders(RuleData first, const std::vector<std::string>& folders) {
  for (const std::string& folder : folders) {
    auto files = rule_files(folder);
    if (!files) return files.error();
    auto read = parse_rule_files(*files);
    if (!read) return read.error();
    append(first, *read);
  }
  auto valid = validate(first);
  if (!valid) return valid.error();
  return first;
}

Result<RuleData> load_rules(const std::vector<std::string>& folders) { return add_rule_folders({}, folders); }

std::vector<std::string> rule_files_read(const RuleData& rules) {
  std::vector<std::string> read;
  for (const std::string& file : rules.files) {
    if (file.rfind("<built-in>/", 0) != 0) read.push_back(file);
  }
  return read;
}

std::string RulesOrigin::summary() const {
  std::string out;
  if (!folder) {
    out = "built-in " + builtin_version;
  } else if (edited.empty()) {
    out = fmt::format("folder (the built-in {}, unchanged)", builtin_version);
  } else {
    out = fmt::format("folder (the built-in {}, but for {})", builtin_version, fmt::join(edited, ", "));
  }
  if (!extra.empty()) out += fmt::format("; --rules {}", fmt::join(extra, ", "));
  return out;
}

std::string RulesOrigin::text() const { return folder ? summary() + ": " + *folder : summary(); }

std::vector<const Recipe*> recipe_chain(const RuleData& rules, const std::string& id) {
  std::vector<const Recipe*> chain;
  for (const Recipe* recipe = rules.recipe(id); recipe;
       recipe = recipe->extends.empty() ? nullptr : rules.recipe(recipe->extends))
    chain.push_back(recipe);
  return chain;
}

const Recipe* package_recipe(const RuleData& rules, const std::string& id) {
  for (const Recipe* recipe : recipe_chain(rules, id)) {
    if (!recipe->package.empty()) return recipe;
  }
  return nullptr;
}

}  // namespace dlldoctor::rules
