#pragma once
// Reading rule files (internal to src/rules): every accessor reports the file and line of what is wrong,
// and a table takes only the keys it knows.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/core/version_range.hpp"

namespace dlldoctor::rules::detail {

inline std::string where(const std::string& file, const toml::source_region& region) {
  return fmt::format("{}:{}", file, region.begin.line);
}

// Reading one file: every accessor reports the file and line of what is wrong.
class TableReader {
 public:
  TableReader(const toml::table& table, const std::string& file) : table_(table), file_(file) {}

  std::string at() const { return where(file_, table_.source()); }

  Result<std::string> text(std::string_view key, std::optional<std::string> fallback = std::nullopt) const {
    const toml::node* node = table_.get(key);
    if (!node) {
      if (fallback) return *fallback;
      return Error{fmt::format("{}: '{}' is missing", at(), key)};
    }
    auto value = node->value<std::string>();
    if (!value) return Error{fmt::format("{}: '{}' must be a string", where(file_, node->source()), key)};
    return *value;
  }

  Result<bool> flag(std::string_view key, bool fallback) const {
    const toml::node* node = table_.get(key);
    if (!node) return fallback;
    auto value = node->value<bool>();
    if (!value) return Error{fmt::format("{}: '{}' must be true or false", where(file_, node->source()), key)};
    return *value;
  }

  template <typename Item = std::string>
  Result<std::vector<Item>> texts(std::string_view key, bool required) const {
    std::vector<Item> out;
    const toml::node* node = table_.get(key);
    if (!node) {
      if (required) return Error{fmt::format("{}: '{}' is missing", at(), key)};
      return out;
    }
    const toml::array* array = node->as_array();
    if (!array) return Error{fmt::format("{}: '{}' must be a list of strings", where(file_, node->source()), key)};
    for (const toml::node& item : *array) {
      auto value = item.value<std::string>();
      if (!value) return Error{fmt::format("{}: '{}' must hold strings", where(file_, item.source()), key)};
      out.emplace_back(*value);
    }
    return out;
  }

  // key = "text" or key.variant = "text" / key = [..] or key.variant = [..]
  template <typename Value, typename Read>
  Result<std::map<std::string, Value>> variants(std::string_view key, Read read) const {
    std::map<std::string, Value> out;
    const toml::node* node = table_.get(key);
    if (!node) return Error{fmt::format("{}: '{}' is missing", at(), key)};
    if (const toml::table* by_variant = node->as_table()) {
      for (const auto& [name, value] : *by_variant) {
        auto read_value = read(value, std::string(key) + "." + std::string(name.str()));
        if (!read_value) return read_value.error();
        out.emplace(std::string(name.str()), std::move(read_value).value());
      }
    } else {
      auto read_value = read(*node, std::string(key));
      if (!read_value) return read_value.error();
      out.emplace("default", std::move(read_value).value());
    }
    return out;
  }

  // What a program prints when a call fails (`says`): one text, or texts by loader error (says.126 = ...,
  // says.default = ...). Absent: none.
  Result<std::map<std::string, std::string>> says(std::string_view key) const {
    if (!table_.get(key)) return std::map<std::string, std::string>{};
    return variants<std::string>(key, [&](const toml::node& node, const std::string& name) -> Result<std::string> {
      auto value = node.value<std::string>();
      if (!value) return Error{fmt::format("{}: '{}' must be a string", where(file_, node.source()), name)};
      return *value;
    });
  }

  // A misspelt key would silently leave its field at the default: every key must be one the table knows.
  Result<bool> only_keys(std::initializer_list<std::string_view> known) const {
    for (const auto& [key, value] : table_) {
      if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
        return Error{fmt::format("{}: unknown key '{}'", where(file_, value.source()), key.str())};
      }
    }
    return true;
  }

  const std::string& file() const { return file_; }
  const toml::table& table() const { return table_; }

 private:
  const toml::table& table_;
  const std::string& file_;
};

// Moves a field's value into `into`, or keeps the first error of a table.
template <typename T>
inline void assign(Result<T> read, T& into, std::optional<Error>& error) {
  if (read) {
    into = std::move(read).value();
  } else if (!error) {
    error = read.error();
  }
}

// Each [[name]] table of the file through `read`, appended to `out` (a vector, or FindingRules).
template <typename List, typename Read>
Result<bool> read_tables(const toml::table& root, std::string_view name, const std::string& file, List& out,
                         Read read) {
  const toml::node* node = root.get(name);
  if (!node) return true;
  const toml::array* array = node->as_array();
  if (!array)
    return Error{fmt::format("{}: '{}' must be an array of tables ([[{}]])", where(file, node->source()), name, name)};
  for (const toml::node& item : *array) {
    const toml::table* table = item.as_table();
    if (!table) return Error{fmt::format("{}: '{}' entries must be tables", where(file, item.source()), name)};
    auto value = read(TableReader(*table, file));
    if (!value) return value.error();
    out.push_back(std::move(value).value());
  }
  return true;
}

// key = "9.20": a version of numbers and dots, written as the report prints it, so that a typo such as
// "9.2x" is not read as 9.2. Absent: none (an error when required).
inline Result<std::optional<VersionParts>> version_key(const TableReader& in, std::string_view key, bool required) {
  auto text = in.text(key, required ? std::nullopt : std::optional<std::string>(std::string()));
  if (!text) return text.error();
  if (text->empty() && !required) return std::optional<VersionParts>();
  std::optional<VersionParts> parts = leading_version(*text);
  if (!parts || version_text(*parts) != *text)
    return Error{fmt::format("{}: '{}' must be a version of numbers and dots, not \"{}\"", in.at(), key, *text)};
  return parts;
}

// from = "9.20", before = "10" of a table: either may be left out, not both.
inline Result<VersionRange> read_version_range(const TableReader& in) {
  VersionRange range;
  std::optional<Error> error;
  assign(version_key(in, "from", false), range.from, error);
  assign(version_key(in, "before", false), range.before, error);
  if (error) return *error;
  if (!range.from && !range.before) return Error{fmt::format("{}: give 'from', 'before' or both", in.at())};
  return range;
}

}  // namespace dlldoctor::rules::detail
