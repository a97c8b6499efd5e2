#include "dlldoctor/rules/rule_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <toml++/toml.h>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/fs.hpp"

namespace dlldoctor::rules {
namespace {

std::string where(const std::string& file, const toml::source_region& region) {
  return fmt::format("{}:{}", file, region.begin.line);
}

Result<std::vector<std::string>> name_list(const toml::table& table, std::string_view key, const std::string& file,
                                           bool required) {
  std::vector<std::string> names;
  const toml::node* node = table.get(key);
  if (!node) {
    if (required) return Error{fmt::format("{}: family has no '{}'", where(file, table.source()), key)};
    return names;
  }
  const toml::array* array = node->as_array();
  if (!array) return Error{fmt::format("{}: '{}' must be a list of DLL names", where(file, node->source()), key)};
  for (const toml::node& item : *array) {
    auto text = item.value<std::string>();
    if (!text) return Error{fmt::format("{}: '{}' must hold strings", where(file, item.source()), key)};
    names.push_back(ascii_lower(*text));
  }
  return names;
}

Result<Family> read_family(const toml::table& table, const std::string& file) {
  Family family;
  family.source = where(file, table.source());
  auto id = table["id"].value<std::string>();
  auto name = table["name"].value<std::string>();
  if (!id || !name) return Error{fmt::format("{}: a family needs 'id' and 'name' strings", family.source)};
  family.id = *id;
  family.name = *name;
  auto main = name_list(table, "main", file, true);
  if (!main) return main.error();
  auto members = name_list(table, "members", file, true);
  if (!members) return members.error();
  auto runtime = name_list(table, "runtime_loads", file, false);
  if (!runtime) return runtime.error();
  family.main = std::move(main).value();
  family.members = std::move(members).value();
  family.runtime_loads = std::move(runtime).value();
  for (const auto& list : {family.main, family.runtime_loads}) {
    for (const auto& dll : list) {
      if (std::find(family.members.begin(), family.members.end(), dll) == family.members.end()) {
        return Error{fmt::format("{}: {} is not among the family's members", family.source, dll)};
      }
    }
  }
  return family;
}

Result<bool> read_file(const std::string& file, RuleData& data) {
  toml::table root;
  try {
    root = toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    return Error{fmt::format("{}:{}: {}", file, e.source().begin.line, e.description())};
  }
  if (const toml::node* families = root.get("family")) {
    const toml::array* array = families->as_array();
    if (!array) return Error{fmt::format("{}: 'family' must be an array of tables ([[family]])", where(file, families->source()))};
    for (const toml::node& node : *array) {
      const toml::table* table = node.as_table();
      if (!table) return Error{fmt::format("{}: 'family' entries must be tables", where(file, node.source()))};
      auto family = read_family(*table, file);
      if (!family) return family.error();
      data.families.push_back(std::move(family).value());
    }
  }
  data.files.push_back(file);
  return true;
}

}  // namespace

const Family* RuleData::family_of(const std::string& lower_name) const {
  for (const Family& family : families) {
    if (std::find(family.members.begin(), family.members.end(), lower_name) != family.members.end()) return &family;
  }
  return nullptr;
}

Result<RuleData> load_rules(const std::vector<std::string>& folders) {
  RuleData data;
  for (const std::string& folder : folders) {
    FsErrorCode ec;
    if (!fs::is_directory(fs::path(folder), ec)) return Error{fmt::format("rules folder {}: no such folder", folder)};
    std::vector<std::string> files;
    for (fs::directory_iterator it(fs::path(folder), ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".toml") files.push_back(it->path().string());
    }
    if (ec) return Error{fmt::format("rules folder {}: {}", folder, ec.message())};
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      auto read = read_file(file, data);
      if (!read) return read.error();
    }
  }
  return data;
}

std::optional<std::string> default_rules_folder(const std::string& argv0) {
  FsErrorCode ec;
  const fs::path exe = fs::canonical(fs::path(argv0), ec);
  if (!ec) {
    for (const fs::path& candidate : {exe.parent_path() / "rules", exe.parent_path().parent_path() / "share" / "dlldoctor" / "rules"}) {
      if (fs::is_directory(candidate, ec)) return candidate.string();
    }
  }
#ifdef DLLDOCTOR_SOURCE_RULES_DIR
  if (fs::is_directory(fs::path(DLLDOCTOR_SOURCE_RULES_DIR), ec)) return std::string(DLLDOCTOR_SOURCE_RULES_DIR);
#endif
  return std::nullopt;
}

}  // namespace dlldoctor::rules
