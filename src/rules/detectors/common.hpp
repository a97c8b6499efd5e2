#pragma once
// Small helpers shared by the detectors (internal to src/rules/detectors).
#include <fmt/format.h>

#include <string>
#include <string_view>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/rules/rule_engine.hpp"

namespace dlldoctor::rules::detail {

using Json = nlohmann::ordered_json;

inline std::string version_text(const std::optional<pe::Version>& version) {
  return version ? version->to_string() : std::string("(no version)");
}

inline Json copy_json(const env::DllCopy& copy) {
  return Json{{"path", copy.path},
              {"windows_path", copy.windows_path ? Json(*copy.windows_path) : Json(nullptr)},
              {"file_version", copy.file_version ? Json(copy.file_version->to_string()) : Json(nullptr)},
              {"machine", copy.machine ? Json(pe::machine_name(*copy.machine)) : Json(nullptr)},
              {"source", copy.source.text()}};
}

inline Json candidate_json(const resolve::Candidate& c) {
  return Json{{"path", c.assumed ? Json(nullptr) : Json(c.path)},
              {"windows_path", c.windows_path ? Json(*c.windows_path) : Json(nullptr)},
              {"step", std::string(resolve::step_name(c.step))},
              {"file_version", c.file_version ? Json(c.file_version->to_string()) : Json(nullptr)},
              {"machine", c.machine ? Json(pe::machine_name(*c.machine)) : Json(nullptr)},
              {"verdict", std::string(resolve::verdict_name(c.verdict))}};
}

// Whether a file found on disk is a copy of the DLL `name` (a copy's name is a file name: DllName::of_file).
inline bool is_copy_of(const env::DllCopy& copy, const DllName& name) { return DllName::of_file(copy.name) == name; }

// The folder `name` beside `folder`, in the spelling (Windows or host) `folder` has.
inline std::string sibling_folder(const std::string& folder, const std::string& name) {
  const char separator = folder.find('\\') != std::string::npos ? '\\' : '/';
  return folder_of(folder) + separator + name;
}

// The module of the closure of that name (as the closure spells it), if any.
inline const graph::Module* module_named(const graph::Closure& closure, const std::string& name) {
  for (const graph::Module& m : closure.modules) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

inline std::string shown(const resolve::Candidate& c) { return display_path(c.windows_path, c.path); }
inline std::string shown(const env::DllCopy& c) { return display_path(c.windows_path, c.path); }
inline std::string shown(const env::FolderRef& f) { return f.windows ? *f.windows : f.host; }

inline const std::string& first_needed_by(const graph::Module& module) {
  static const std::string none = "(unknown)";
  return module.needed_by.empty() ? none : module.needed_by.front();
}

// The module's chosen candidate, if any.
inline const resolve::Candidate* chosen(const graph::Module& module) {
  for (const auto& c : module.resolution.candidates) {
    if (c.verdict == resolve::Verdict::Chosen) return &c;
  }
  return nullptr;
}

// "user" or "machine" when `folder` (Windows spelling) is an entry of that PATH in the registry, compared
// as the loader would: case-insensitively, without quotes or a trailing backslash; empty when neither
// registry PATH is known or lists it.
inline std::string registry_path_scope(const env::Environment& environment, const std::string& folder) {
  auto trimmed = [](std::string text) {
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
    while (text.size() > 3 && (text.back() == '\\' || text.back() == '/')) text.pop_back();
    return ascii_lower(text);
  };
  const std::string wanted = trimmed(folder);
  const std::pair<const std::optional<std::string>*, const char*> scopes[] = {{&environment.user_path, "user"},
                                                                              {&environment.machine_path, "machine"}};
  for (const auto& [value, scope] : scopes) {
    if (!*value) continue;
    for (const std::string& entry : split_path_list(**value)) {
      if (trimmed(entry) == wanted) return scope;
    }
  }
  return {};
}

// The fixes edit the registry PATH that lists the entry, one whole entry at a time: a text replace would
// also change the longer entries a cut-short one is the start of.
inline Vars path_entry_vars(const env::Environment& environment, const std::string& entry) {
  const std::string scope = detail::registry_path_scope(environment, entry);
  return {{"entry", env::windows_entry_text(environment, entry)},
          {"scope", scope.empty() ? "user" : scope},
          {"scope_name", scope == "machine" ? "Machine" : "User"},
          {"scope_note",
           Value::code(scope == "machine" ? "   # as administrator"
                       : scope == "user"  ? ""
                                         : "   # or 'Machine' (as administrator) if the entry is in the system PATH")}};
}

}  // namespace dlldoctor::rules::detail
