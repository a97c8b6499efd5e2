#include "dlldoctor/env/snapshot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/env/inventory.hpp"
#include "dlldoctor/pe/reader.hpp"
#include "env/system_names.hpp"

namespace dlldoctor::env {
namespace {

using Json = nlohmann::json;

Json folder_json(const FolderRef& folder) {
  if (folder.windows) return *folder.windows;
  if (!folder.host.empty()) return folder.host;
  return nullptr;
}

Json dlls_json(const std::vector<SystemDll>& dlls) {
  Json out = Json::array();
  for (const SystemDll& dll : dlls) {
    out.push_back(
        {{"name", dll.name}, {"version", dll.file_version ? Json(dll.file_version->to_string()) : Json(nullptr)}});
  }
  return out;
}

std::optional<pe::Version> parse_version(const std::string& text) {
  pe::Version version;
  std::size_t start = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::size_t end = text.find('.', start);
    const std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (part.empty() || part.size() > 5 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    const unsigned long value = std::strtoul(part.c_str(), nullptr, 10);
    if (value > 0xFFFF) return std::nullopt;
    version.parts[i] = static_cast<std::uint16_t>(value);
    if (end == std::string::npos) return i == 3 ? std::optional<pe::Version>(version) : std::nullopt;
    start = end + 1;
  }
  return std::nullopt;
}

std::optional<std::string> string_field(const Json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

Result<std::map<DllName, std::optional<pe::Version>>> dlls_of(const Json& list, const char* field) {
  std::map<DllName, std::optional<pe::Version>> out;
  if (!list.is_array()) return Error{fmt::format("\"{}\" is not an array", field)};
  for (const Json& item : list) {
    auto name = item.is_object() ? string_field(item, "name") : std::nullopt;
    if (!name) return Error{fmt::format("an entry of \"{}\" has no \"name\"", field)};
    auto version = string_field(item, "version");
    out[DllName(*name)] = version ? parse_version(*version) : std::nullopt;
  }
  return out;
}

}  // namespace

std::vector<SystemDll> list_system_dlls(const FolderRef& folder, FileSystem& files) {
  std::vector<SystemDll> dlls;
  if (!folder.exists) return dlls;
  pe::ReadParts parts;
  parts.imports = false;
  parts.exports = false;
  for (const std::string& name : files.file_names(folder.host)) {
    const std::string lower = ascii_lower(name);
    if (lower.size() < 5 || lower.compare(lower.size() - 4, 4, ".dll") != 0) continue;
    SystemDll dll;
    dll.name = lower;
    // Only the version resource; a file that is not a PE is still listed (the loader would find it).
    const std::string path = join_path(folder.host, name);
    files.note_read(path);
    auto image = pe::read_image_file(path, parts);
    if (image) dll.file_version = image->file_version;
    dlls.push_back(std::move(dll));
  }
  std::sort(dlls.begin(), dlls.end(), [](const SystemDll& a, const SystemDll& b) { return a.name < b.name; });
  return dlls;
}

Json snapshot_to_json(const Environment& environment, const SnapshotInfo& info) {
  std::string path;
  for (std::size_t i = 0; i < environment.path.size(); ++i) {
    if (i > 0) path += ';';
    path += environment.path[i].text;
  }
  Json variables = Json::object();
  for (const auto& [name, variable] : environment.variables) {
    for (const std::string& pattern : info.variable_patterns) {
      if (wildcard_match(pattern, name)) {
        variables[name] = variable.value;
        break;
      }
    }
  }
  return Json{
      {"schema", kSnapshotSchema},
      {"tool_version", info.tool_version},
      {"source", environment.source},
      {"os_version", info.os_version},
      {"folders",
       {{"system32", folder_json(environment.system32)},
        {"syswow64", folder_json(environment.syswow64)},
        {"system16", folder_json(environment.system16)},
        {"windows", folder_json(environment.windows)},
        {"cwd", folder_json(environment.cwd)}}},
      {"path", path},
      {"machine_path", environment.machine_path ? Json(*environment.machine_path) : Json(nullptr)},
      {"user_path", environment.user_path ? Json(*environment.user_path) : Json(nullptr)},
      {"variables", std::move(variables)},
      {"safe_dll_search_mode", environment.safe_dll_search_mode},
      {"known_dlls", {{"source", environment.known_dlls_source}, {"names", dll_keys(environment.known_dlls)}}},
      {"system32_dlls", dlls_json(info.system32_dlls)},
      {"syswow64_dlls", dlls_json(info.syswow64_dlls)},
      {"notes", environment.notes},
  };
}

Result<Environment> environment_from_snapshot(const std::string& json_text, const EnvironmentFlags& flags,
                                              FileSystem& files) {
  const Json snapshot = Json::parse(json_text, nullptr, false);
  if (snapshot.is_discarded() || !snapshot.is_object()) return Error{"not a JSON object"};
  if (string_field(snapshot, "schema") != std::string(kSnapshotSchema)) {
    return Error{fmt::format("not a dlldoctor snapshot (\"schema\" is not \"{}\")", kSnapshotSchema)};
  }
  const Json folders = snapshot.value("folders", Json::object());
  auto folder_text = [&](const char* name, const char* fallback) {
    auto text = folders.is_object() ? string_field(folders, name) : std::nullopt;
    return text.value_or(fallback);
  };

  Environment environment;
  environment.source = "snapshot";
  environment.notes.push_back(fmt::format(
      "snapshot of {} ({}, taken by dlldoctor {})", string_field(snapshot, "os_version").value_or("an unknown system"),
      string_field(snapshot, "source").value_or("?"), string_field(snapshot, "tool_version").value_or("?")));
  if (flags.sysroot) {
    const std::string root = absolute_path(*flags.sysroot);
    if (!files.folder_exists(root)) return Error{fmt::format("--sysroot {}: no such folder", *flags.sysroot)};
    environment.sysroot = root;
  }
  // Before any folder is resolved: a mapped copy of a folder the snapshot names is where its files are here.
  auto maps = folder_maps(flags.maps, files);
  if (!maps) return maps.error();
  environment.maps = std::move(maps).value();
  environment.system32 = resolve_folder(environment, folder_text("system32", "C:\\Windows\\System32"), files);
  environment.syswow64 = resolve_folder(environment, folder_text("syswow64", "C:\\Windows\\SysWOW64"), files);
  environment.system16 = resolve_folder(environment, folder_text("system16", "C:\\Windows\\System"), files);
  environment.windows = resolve_folder(environment, folder_text("windows", "C:\\Windows"), files);
  if (environment.sysroot && !environment.system32.exists) {
    return Error{fmt::format("--sysroot {}: the snapshot's System32 ({}) is not in it", *flags.sysroot,
                             environment.system32.windows.value_or(environment.system32.host))};
  }
  if (!environment.sysroot || flags.assume_system_dlls) {
    // No disk to look at: the snapshot's listing of System32 says what is there (DECISIONS.md, "Snapshots").
    environment.assume_system_dlls = true;
    for (auto [field, target] : {std::pair{"system32_dlls", &environment.system32_dlls},
                                 std::pair{"syswow64_dlls", &environment.syswow64_dlls}}) {
      auto it = snapshot.find(field);
      if (it == snapshot.end() || it->is_null()) continue;
      auto dlls = dlls_of(*it, field);
      if (!dlls) return dlls.error();
      // An empty listing (a snapshot taken from flags without --sysroot) says nothing: keep the stock list.
      if (!dlls->empty()) *target = std::move(dlls).value();
    }
    environment.notes.push_back(environment.system32_dlls
                                    ? "no --sysroot: the DLLs the snapshot lists in System32 are assumed present there"
                                    : "no --sysroot and no System32 listing in the snapshot: stock Windows DLLs are "
                                      "assumed present in System32");
  }

  const std::string cwd = flags.cwd ? *flags.cwd : folder_text("cwd", ".");
  environment.cwd = resolve_folder(environment, cwd, files);
  if (auto path = string_field(snapshot, "path"); path && !path->empty())
    append_path_entries(environment, *path, files);
  for (const std::string& value : flags.path) append_path_entries(environment, value, files);
  environment.machine_path = string_field(snapshot, "machine_path");
  environment.user_path = string_field(snapshot, "user_path");
  if (auto variables = snapshot.find("variables"); variables != snapshot.end() && variables->is_object()) {
    for (const auto& [name, value] : variables->items()) {
      if (value.is_string()) environment.variables[ascii_lower(name)] = {value.get<std::string>(), "snapshot"};
    }
  }

  auto safe = snapshot.find("safe_dll_search_mode");
  environment.safe_dll_search_mode =
      flags.safe_dll_search_mode.value_or(safe != snapshot.end() && safe->is_boolean() ? safe->get<bool>() : true);
  const Json known = snapshot.value("known_dlls", Json::object());
  if (flags.known_dlls) {
    environment.known_dlls = known_dlls_from(*flags.known_dlls);
    environment.known_dlls_source = "--known-dlls";
  } else if (known.is_object() && known.contains("names") && known["names"].is_array()) {
    for (const Json& name : known["names"]) {
      if (name.is_string()) environment.known_dlls.emplace_back(name.get<std::string>());
    }
    environment.known_dlls_source = "snapshot: " + string_field(known, "source").value_or("?");
  } else {
    return Error{"the snapshot has no \"known_dlls\""};
  }

  if (environment.sysroot && environment.system32.exists) use_system_api_sets(environment, files);
  return environment;
}

}  // namespace dlldoctor::env
