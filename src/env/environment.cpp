#include "dlldoctor/env/environment.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "core/fs.hpp"
#include "dlldoctor/core/paths.hpp"
#include "env/hive_loader.hpp"
#include "env/registry_hive.hpp"
#include "env/system_names.hpp"

namespace dlldoctor::env {
namespace {

std::vector<std::string> split_windows_components(std::string_view text) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : text) {
    if (c == '\\' || c == '/') {
      if (!current.empty()) parts.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) parts.push_back(std::move(current));
  std::vector<std::string> normal;
  for (auto& part : parts) {
    if (part == ".") continue;
    if (part == "..") {
      if (!normal.empty()) normal.pop_back();
      continue;
    }
    normal.push_back(std::move(part));
  }
  return normal;
}

}  // namespace

std::string absolute_path(std::string_view text) {
  FsErrorCode ec;
  fs::path absolute = fs::absolute(to_fs_path(std::string(text)), ec);
  if (ec) return std::string(text);
  return absolute_path(from_fs_path(absolute), std::string());
}

std::string absolute_path(std::string_view text, const std::string& base) {
  fs::path absolute = to_fs_path(std::string(text));
  if (!absolute.is_absolute() && !base.empty()) absolute = to_fs_path(base) / absolute;
  std::string normal = from_fs_path(absolute.lexically_normal());
  // Boost spells a trailing separator as a final "." component.
  if (normal.size() > 2 && normal.compare(normal.size() - 2, 2, "/.") == 0) normal.resize(normal.size() - 2);
  // "C:\\" keeps its separator: "C:" alone means the current folder of drive C.
  while (normal.size() > 1 && (normal.back() == '/' || normal.back() == '\\') &&
         !(normal.size() == 3 && normal[1] == ':')) {
    normal.pop_back();
  }
  return normal;
}

namespace {

// A system folder under the sysroot's Windows folder, spelled as Windows spells it.
FolderRef system_folder(const Environment& environment, std::string_view windows_relative, FileSystem& files) {
  return resolve_folder(environment, std::string("C:\\Windows\\") + std::string(windows_relative), files);
}

// What the SYSTEM hive of the mounted Windows says about DLL loading: KnownDLLs, SafeDllSearchMode and
// the machine PATH (DOMAIN.md §1, §5). Fills only what the flags left open.
struct SystemHiveFacts {
  std::optional<std::vector<DllName>> known_dlls;
  std::optional<bool> safe_dll_search_mode;
  std::optional<std::string> machine_path;
  std::map<std::string, std::string> variables;  // the other machine variables (CUDA_PATH ...), expanded
};

// The text values of an Environment key other than Path, %VARS% expanded with `known` (a user's
// variables may name the machine's): what a new process gets (DOMAIN.md §5).
Result<std::map<std::string, std::string>> environment_values(const RegistryHive& hive, const RegistryHive::Key& key,
                                                              const std::map<std::string, std::string>& known) {
  auto values = hive.values(key);
  if (!values) return values.error();
  std::map<std::string, std::string> out;
  for (const RegistryValue& value : *values) {
    if (value.name.empty() || ascii_lower(value.name) == "path") continue;
    if (auto text = value.text()) out[value.name] = expand_environment_strings(*text, known);
  }
  return out;
}

void add_variables(Environment& environment, const std::map<std::string, std::string>& values,
                   const std::string& source) {
  for (const auto& [name, value] : values) environment.variables[ascii_lower(name)] = {value, source};
}

Result<SystemHiveFacts> read_system_hive(const RegistryHive& hive) {
  auto control_set = hive.current_control_set();
  if (!control_set) return control_set.error();
  SystemHiveFacts facts;
  const std::string session_manager = *control_set + "\\Control\\Session Manager";
  auto manager = hive.find_key(session_manager);
  if (!manager) return manager.error();
  if (!*manager) return facts;
  auto safe_mode = hive.value(**manager, "SafeDllSearchMode");
  if (!safe_mode) return safe_mode.error();
  // Absent means on (the default since Windows XP SP2).
  facts.safe_dll_search_mode = !*safe_mode || (*safe_mode)->number().value_or(1) != 0;
  auto known = hive.find_key(**manager, "KnownDLLs");
  if (!known) return known.error();
  if (*known) {
    auto values = hive.values(**known);
    if (!values) return values.error();
    std::vector<std::string> names;
    for (const RegistryValue& value : *values) {
      // DllDirectory and DllDirectory32 name folders, not DLLs.
      if (ascii_lower(value.name).rfind("dlldirectory", 0) == 0) continue;
      if (auto text = value.text()) names.push_back(*text);
    }
    facts.known_dlls = known_dlls_from(names);
  }
  auto environment = hive.find_key(**manager, "Environment");
  if (!environment) return environment.error();
  if (*environment) {
    const std::map<std::string, std::string> system{
        {"SystemRoot", "C:\\Windows"}, {"windir", "C:\\Windows"}, {"SystemDrive", "C:"}};
    auto path_value = hive.value(**environment, "Path");
    if (!path_value) return path_value.error();
    if (*path_value) {
      if (auto text = (*path_value)->text()) facts.machine_path = expand_environment_strings(*text, system);
    }
    auto variables = environment_values(hive, **environment, system);
    if (!variables) return variables.error();
    facts.variables = std::move(variables).value();
  }
  return facts;
}

// The names of the variables whose values differ between two readings of an Environment key.
void changed_variables(const std::map<std::string, std::string>& now, const std::map<std::string, std::string>& before,
                       std::vector<std::string>& changed) {
  for (const auto& [name, value] : now) {
    auto old = before.find(name);
    if (old == before.end() || old->second != value) changed.push_back(name);
  }
  for (const auto& [name, value] : before) {
    if (!now.count(name)) changed.push_back(name);
  }
}

// The note of a hive that was not closed cleanly, with the values its logs gave: `changed` names
// what differs from the primary file alone.
std::string dirty_hive_note(const LoadedHive& loaded, const std::vector<std::string>& changed) {
  if (!loaded.logs_applied) return loaded.note;
  if (!loaded.primary_only)
    return loaded.note + "; every value read came from the logs (the hive's own header is damaged)";
  if (changed.empty()) return loaded.note + "; the logs changed none of the values read here";
  return fmt::format("{}; from the logs: {}", loaded.note, fmt::join(changed, ", "));
}

// What the SYSTEM hive's logs changed, against the primary file alone.
std::vector<std::string> changed_system_values(const LoadedHive& loaded, const SystemHiveFacts& now) {
  std::vector<std::string> changed;
  if (!loaded.primary_only) return changed;
  const auto before = read_system_hive(*loaded.primary_only);
  if (!before) return {"every value (the hive alone cannot be read: " + before.error().message + ")"};
  if (before->machine_path != now.machine_path) changed.push_back("the machine PATH");
  if (before->known_dlls != now.known_dlls) changed.push_back("KnownDLLs");
  if (before->safe_dll_search_mode != now.safe_dll_search_mode) changed.push_back("SafeDllSearchMode");
  changed_variables(now.variables, before->variables, changed);
  return changed;
}

bool holds_dlls(FileSystem& files, const std::string& folder) {
  const auto names = files.file_names(folder);
  return std::any_of(names.begin(), names.end(), [](const std::string& name) {
    return name.size() > 4 && ascii_lower(name.substr(name.size() - 4)) == ".dll";
  });
}

// A folder next to `missing` whose name starts with the last part of `missing` (and is longer). A PATH
// entry names a folder of DLLs: when the completed folder holds none and its bin folder does, the entry was
// cut from that one (...\cudnn-9.4.0.5 from ...\cudnn-9.4.0.58\bin, the end of a long PATH).
std::optional<FolderRef> completion_of(const Environment& environment, const std::string& missing, FileSystem& files) {
  const std::string last = base_name(missing);
  if (last.empty() || last.size() == missing.size()) return std::nullopt;
  std::string parent = folder_of(missing);
  if (parent.empty()) parent = missing.substr(0, 1);  // "/x": the root itself
  const std::string stem = ascii_lower(last);
  for (const std::string& name : files.folder_names(parent)) {
    if (name.size() > stem.size() && ascii_lower(name).compare(0, stem.size(), stem) == 0) {
      std::string host = join_path(parent, name);
      if (!holds_dlls(files, host)) {
        if (auto bin = files.find_folder(host, "bin"); bin && holds_dlls(files, *bin)) host = *bin;
      }
      return FolderRef{host, windows_path_of(environment, host), true};
    }
  }
  return std::nullopt;
}

// HKCU\Environment of a user hive: its Path and its other variables, %VARS% expanded with `known`.
struct UserEnvironment {
  std::optional<std::string> path;
  std::map<std::string, std::string> variables;
  std::optional<std::string> variables_problem;  // the variables could not be read; the PATH still counts
};
Result<UserEnvironment> user_environment(const RegistryHive& hive, const std::map<std::string, std::string>& known) {
  UserEnvironment out;
  auto key = hive.find_key("Environment");
  if (!key) return key.error();
  if (!*key) return out;
  auto value = hive.value(**key, "Path");
  if (!value) return value.error();
  if (*value) {
    if (auto text = (*value)->text()) out.path = expand_environment_strings(*text, known);
  }
  auto variables = environment_values(hive, **key, known);
  if (variables) {
    out.variables = std::move(variables).value();
  } else {
    out.variables_problem = variables.error().message;
  }
  return out;
}

// PEP 514's registrations in a hive whose root is `software` ("Software" in NTUSER.DAT, the root of SOFTWARE):
// each PythonCore\<tag>\InstallPath, whose ExecutablePath names the interpreter (else its folder does). A
// value that cannot be read is skipped: a registration is a place to look, never a fact to report.
void read_registered_pythons(std::vector<RegisteredPython>& out, const RegistryHive& hive, const std::string& software,
                             const std::string& shown_root) {
  auto core = hive.find_key(software.empty() ? "Python\\PythonCore" : software + "\\Python\\PythonCore");
  if (!core || !*core) return;
  auto tags = hive.subkey_names(**core);
  if (!tags) return;
  for (const std::string& tag : *tags) {
    auto install = hive.find_key(**core, tag + "\\InstallPath");
    if (!install || !*install) continue;
    std::string executable;
    for (const char* name : {"ExecutablePath", ""}) {
      auto value = hive.value(**install, name);
      const std::optional<std::string> text = value && *value ? (*value)->text() : std::nullopt;
      if (!text || text->empty()) continue;
      executable = *text;
      if (*name == '\0') executable = executable + (executable.back() == '\\' ? "" : "\\") + "python.exe";
      break;
    }
    if (!executable.empty()) out.push_back({executable, shown_root + "\\Python\\PythonCore\\" + tag});
  }
}

// The user PATH of one profile under the sysroot (HKCU\Environment in its NTUSER.DAT).
void read_user_path(Environment& environment, const EnvironmentFlags& flags, FileSystem& files) {
  const FolderRef users = resolve_folder(environment, "C:\\Users", files);
  if (!users.exists) return;
  std::vector<std::string> profiles;
  for (const std::string& name : files.folder_names(users.host)) {
    const std::string lower = ascii_lower(name);
    if (lower == "default" || lower == "default user" || lower == "public" || lower == "all users") continue;
    if (files.find_file(join_path(users.host, name), "NTUSER.DAT")) profiles.push_back(name);
  }
  std::string profile;
  if (flags.windows_user) {
    for (const auto& name : profiles) {
      if (ascii_lower(name) == ascii_lower(*flags.windows_user)) profile = name;
    }
    if (profile.empty()) {
      environment.notes.push_back(
          fmt::format("--windows-user {}: no such profile with an NTUSER.DAT under C:\\Users", *flags.windows_user));
      return;
    }
  } else if (profiles.size() == 1) {
    profile = profiles.front();
  } else {
    if (profiles.size() > 1) {
      environment.notes.push_back(
          "several user profiles under C:\\Users: name one with --windows-user to compare "
          "with its PATH");
    }
    return;
  }
  environment.profile = "C:\\Users\\" + profile;
  const std::string hive_path = *files.find_file(join_path(users.host, profile), "NTUSER.DAT");
  auto loaded = load_hive(files, hive_path);
  if (!loaded) {
    environment.notes.push_back(fmt::format("{}: {}; the user PATH is not known", hive_path, loaded.error().message));
    return;
  }
  std::map<std::string, std::string> known{{"USERPROFILE", "C:\\Users\\" + profile},
                                           {"SystemRoot", "C:\\Windows"},
                                           {"windir", "C:\\Windows"},
                                           {"SystemDrive", "C:"},
                                           {"USERNAME", profile},
                                           {"LOCALAPPDATA", "C:\\Users\\" + profile + "\\AppData\\Local"},
                                           {"APPDATA", "C:\\Users\\" + profile + "\\AppData\\Roaming"}};
  for (const auto& [name, variable] : environment.variables) known.emplace(name, variable.value);
  auto values = user_environment(loaded->hive, known);
  if (!values) {
    environment.notes.push_back(fmt::format("{}: {}; the user PATH is not known", hive_path, values.error().message));
    return;
  }
  if (loaded->dirty) {
    std::vector<std::string> changed;
    if (loaded->primary_only) {
      const auto before = user_environment(*loaded->primary_only, known);
      if (!before || before->path != values->path) changed.push_back("the user PATH");
      if (before) changed_variables(values->variables, before->variables, changed);
    }
    environment.notes.push_back(dirty_hive_note(*loaded, changed));
  }
  environment.user_path = values->path;
  if (values->variables_problem) {
    environment.notes.push_back(
        fmt::format("{}: {}; the user's variables are not known", hive_path, *values->variables_problem));
  }
  // A user variable hides the machine's of the same name (PATH, read above, is the one joined).
  add_variables(environment, values->variables, "registry: user (" + profile + ")");
}

}  // namespace

std::vector<RegisteredPython> registered_pythons(const Environment& environment, FileSystem& files) {
  std::vector<RegisteredPython> found;
#ifdef _WIN32
  if (!environment.sysroot && environment.source == "live") return live_registered_pythons();
#endif
  if (!environment.sysroot) return found;
  auto read = [&](const std::string& folder, const char* name, const std::string& software, const char* shown) {
    const FolderRef at = resolve_folder(environment, folder, files);
    auto hive_file = at.exists ? files.find_file(at.host, name) : std::nullopt;
    auto loaded = hive_file ? load_hive(files, *hive_file) : Result<LoadedHive>(Error{"no hive"});
    if (loaded) read_registered_pythons(found, loaded->hive, software, shown);
  };
  if (environment.profile) read(*environment.profile, "NTUSER.DAT", "Software", "HKCU\\Software");
  read("C:\\Windows\\System32\\config", "SOFTWARE", "", "HKLM\\SOFTWARE");
  return found;
}

std::vector<std::pair<std::string, std::string>> software_subkey_values(const Environment& environment,
                                                                        FileSystem& files, const std::string& key,
                                                                        const std::string& value) {
  std::vector<std::pair<std::string, std::string>> found;
#ifdef _WIN32
  if (!environment.sysroot && environment.source == "live") return live_software_subkey_values(key, value);
#endif
  if (!environment.sysroot) return found;
  const FolderRef config = resolve_folder(environment, "C:\\Windows\\System32\\config", files);
  auto hive_file = config.exists ? files.find_file(config.host, "SOFTWARE") : std::nullopt;
  auto loaded = hive_file ? load_hive(files, *hive_file) : Result<LoadedHive>(Error{"no hive"});
  if (!loaded) return found;
  const RegistryHive& hive = loaded->hive;
  auto parent = hive.find_key(key);
  if (!parent || !*parent) return found;
  auto names = hive.subkey_names(**parent);
  if (!names) return found;
  for (const std::string& name : *names) {
    auto sub = hive.find_key(**parent, name);
    if (!sub || !*sub) continue;
    auto read = hive.value(**sub, value);
    const std::optional<std::string> text = read && *read ? (*read)->text() : std::nullopt;
    if (text && !text->empty()) found.emplace_back(name, *text);
  }
  return found;
}

bool is_windows_absolute(std::string_view text) {
  return text.size() >= 3 && ((text[0] >= 'A' && text[0] <= 'Z') || (text[0] >= 'a' && text[0] <= 'z')) &&
         text[1] == ':' && (text[2] == '\\' || text[2] == '/');
}

std::optional<std::string> rebase_path(const std::string& path, const std::string& root, const std::string& windows) {
  if (path.compare(0, root.size(), root) != 0) return std::nullopt;
  if (path.size() > root.size() && path[root.size()] != '/' && path[root.size()] != '\\' && root.back() != '/')
    return std::nullopt;
  std::string rest = path.substr(root.size());
  for (char& c : rest) {
    if (c == '/') c = '\\';
  }
  while (!rest.empty() && rest.front() == '\\') rest.erase(0, 1);
  if (rest.empty()) return windows.size() == 2 ? windows + "\\" : windows;
  return (windows.back() == '\\' ? windows : windows + "\\") + rest;
}

std::optional<std::string> windows_path_of(const Environment& environment, const std::string& host_path) {
  if (environment.host_paths_are_windows && !environment.sysroot) return host_path;
  // The longest --map folder first: a map inside the sysroot's tree, or inside another map, is the one meant.
  const Environment::FolderMap* best = nullptr;
  for (const auto& map : environment.maps) {
    if (rebase_path(host_path, map.host, map.windows) && (!best || best->host.size() < map.host.size())) best = &map;
  }
  if (best) return rebase_path(host_path, best->host, best->windows);
  if (!environment.sysroot) return std::nullopt;
  return rebase_path(host_path, *environment.sysroot, "C:");
}

std::string shown_path(const Environment& environment, const std::string& path) {
  return windows_path_of(environment, path).value_or(path);
}

std::string windows_entry_text(const Environment& environment, const std::string& text) {
  const bool quoted = text.size() >= 2 && text.front() == '"' && text.back() == '"';
  const std::string inner = quoted ? text.substr(1, text.size() - 2) : text;
  if (inner.empty() || inner.front() != '/') return text;
  const auto windows = windows_path_of(environment, absolute_path(inner));
  if (!windows) return text;
  return quoted ? '"' + *windows + '"' : *windows;
}

FolderRef resolve_process_folder(const Environment& environment, std::string_view text, FileSystem& files) {
  const bool rooted = !text.empty() && (text.front() == '/' || text.front() == '\\');
  if (is_windows_absolute(text) || rooted || environment.cwd.host.empty())
    return resolve_folder(environment, text, files);
  std::string relative(text);
  std::replace(relative.begin(), relative.end(), '\\', '/');
  FolderRef folder;
  folder.host = absolute_path(relative, environment.cwd.host);
  folder.exists = files.folder_exists(folder.host);
  folder.windows = windows_path_of(environment, folder.host);
  return folder;
}

FolderRef resolve_folder(const Environment& environment, std::string_view text, FileSystem& files) {
  FolderRef folder;
  if (!is_windows_absolute(text) || (environment.host_paths_are_windows && !environment.sysroot)) {
    folder.host = absolute_path(text);
    folder.exists = files.folder_exists(folder.host);
    folder.windows = windows_path_of(environment, folder.host);
    return folder;
  }
  const std::vector<std::string> parts = split_windows_components(text.substr(3));
  std::string windows = fmt::format("{}:", static_cast<char>(std::toupper(static_cast<unsigned char>(text[0]))));
  for (const auto& part : parts) windows += "\\" + part;
  if (parts.empty()) windows += "\\";
  folder.windows = windows;
  // A --map folder (the longest that holds it), else the sysroot, which stands for C: (only the system
  // drive is mounted).
  std::string host;
  std::size_t mapped_parts = 0;
  for (const auto& map : environment.maps) {
    const std::vector<std::string> map_parts = split_windows_components(std::string_view(map.windows).substr(3));
    if (ascii_lower(map.windows.substr(0, 2)) != ascii_lower(windows.substr(0, 2)) || map_parts.size() > parts.size())
      continue;
    bool same = true;
    for (std::size_t i = 0; i < map_parts.size() && same; ++i)
      same = ascii_lower(map_parts[i]) == ascii_lower(parts[i]);
    if (same && (host.empty() || map_parts.size() > mapped_parts)) {
      host = map.host;
      mapped_parts = map_parts.size();
    }
  }
  if (host.empty()) {
    if (!environment.sysroot || (text[0] != 'C' && text[0] != 'c')) return folder;
    host = *environment.sysroot;
  }
  bool exists = files.folder_exists(host);
  for (std::size_t i = mapped_parts; i < parts.size(); ++i) {
    const auto& part = parts[i];
    if (exists) {
      if (auto next = files.find_folder(host, part)) {
        host = *next;
        continue;
      }
      exists = false;
    }
    host = join_path(host, part);
  }
  folder.host = host;
  folder.exists = exists;
  return folder;
}

void append_path_entries(Environment& environment, std::string_view value_text, FileSystem& files) {
  for (std::string& text : split_path_list(value_text)) {
    PathEntry entry;
    entry.text = text;
    if (text.empty()) {
      // Windows reads an empty PATH entry as the current folder.
      entry.folder = environment.cwd;
      entry.note = "empty entry: the current folder";
    } else {
      entry.folder = resolve_folder(environment, text, files);
      if (text.front() == '"') {
        entry.note =
            "quoted: the loader does not remove quotes from PATH entries (unverified), so this folder is "
            "never searched";
        std::string unquoted = text.substr(1);
        if (!unquoted.empty() && unquoted.back() == '"') unquoted.pop_back();
        FolderRef meant = resolve_folder(environment, unquoted, files);
        if (meant.exists) entry.completion = std::move(meant);
      } else if (!entry.folder.exists) {
        entry.note = entry.folder.host.empty() ? "a Windows path, and no --sysroot to map it" : "does not exist";
        if (!entry.folder.host.empty()) entry.completion = completion_of(environment, entry.folder.host, files);
      }
    }
    environment.path.push_back(std::move(entry));
  }
}

bool assumes_system_dll(const Environment& environment, const DllName& name, bool wow64,
                        std::optional<pe::Version>* version) {
  const auto& listing = wow64 ? environment.syswow64_dlls : environment.system32_dlls;
  if (!listing) return is_stock_system_dll(name);
  auto found = listing->find(name);
  if (found == listing->end()) return false;
  if (version) *version = found->second;
  return true;
}

void use_system_api_sets(Environment& environment, FileSystem& files) {
  auto schema_file = files.find_file(environment.system32.host, "apisetschema.dll");
  if (!schema_file) return;
  auto schema = ApiSetSchema::from_file(files, *schema_file);
  if (schema) {
    environment.api_sets = std::move(schema).value();
  } else {
    environment.notes.push_back(
        fmt::format("{}: {}; using the built-in API set table", *schema_file, schema.error().message));
  }
}

Result<std::vector<Environment::FolderMap>> folder_maps(const std::vector<std::string>& texts, FileSystem& files) {
  std::vector<Environment::FolderMap> maps;
  for (const std::string& text : texts) {
    // HOSTDIR=C:\\x: the first '=' that a drive letter follows (a host folder may hold '=' itself).
    std::size_t at = text.find('=');
    while (at != std::string::npos && !is_windows_absolute(std::string_view(text).substr(at + 1)))
      at = text.find('=', at + 1);
    if (at == std::string::npos || at == 0)
      return Error{
          fmt::format("--map {}: expected HOSTDIR=WINDOWSDIR, e.g. --map /mnt/copy/cudnn=C:\\tools\\cudnn", text)};
    Environment::FolderMap map{absolute_path(text.substr(0, at)), text.substr(at + 1)};
    if (!files.folder_exists(map.host)) return Error{fmt::format("--map {}: no such folder {}", text, map.host)};
    std::replace(map.windows.begin(), map.windows.end(), '/', '\\');
    while (map.windows.size() > 3 && map.windows.back() == '\\') map.windows.pop_back();
    map.windows[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(map.windows[0])));
    maps.push_back(std::move(map));
  }
  return maps;
}

Result<Environment> environment_from_flags(const EnvironmentFlags& flags, FileSystem& files) {
  Environment environment;
  if (flags.sysroot) {
    const std::string root = absolute_path(*flags.sysroot);
    if (!files.folder_exists(root)) return Error{fmt::format("--sysroot {}: no such folder", *flags.sysroot)};
    environment.sysroot = root;
    environment.system32 = system_folder(environment, "System32", files);
    if (!environment.system32.exists) {
      return Error{
          fmt::format("--sysroot {}: no Windows\\System32 folder in it (a mounted Windows drive, or a copy "
                      "holding Windows/System32, is expected)",
                      *flags.sysroot)};
    }
    environment.syswow64 = system_folder(environment, "SysWOW64", files);
    if (flags.assume_system_dlls) {
      environment.assume_system_dlls = true;
      environment.notes.push_back(
          "--assume-system-dlls: stock Windows DLLs missing from the sysroot are assumed "
          "present in System32");
    }
    environment.system16 = system_folder(environment, "System", files);
    environment.windows = system_folder(environment, "", files);
  } else {
#ifdef _WIN32
    // dlldoctor.exe with flags and no --sysroot: the flags change only what they name; C:\ paths are
    // this machine's.
    environment.host_paths_are_windows = true;
#endif
    environment.assume_system_dlls = true;
    environment.system32 = FolderRef{"", "C:\\Windows\\System32", false};
    environment.syswow64 = FolderRef{"", "C:\\Windows\\SysWOW64", false};
    environment.system16 = FolderRef{"", "C:\\Windows\\System", false};
    environment.windows = FolderRef{"", "C:\\Windows", false};
    environment.notes.push_back(
        "no --sysroot: stock Windows DLLs (kernel32, user32, ucrtbase, API sets, ...) are assumed present in "
        "C:\\Windows\\System32, and the GPU driver's (nvcuda.dll: driver-not-checked says so); the MSVC runtime, CUDA "
        "and cuDNN DLLs never are");
  }

  auto maps = folder_maps(flags.maps, files);
  if (!maps) return maps.error();
  environment.maps = std::move(maps).value();

  if (flags.cwd) {
    environment.cwd = resolve_folder(environment, *flags.cwd, files);
    if (!environment.cwd.exists) environment.notes.push_back(fmt::format("--cwd {} does not exist", *flags.cwd));
  } else {
    FsErrorCode ec;
    environment.cwd = resolve_folder(environment, from_fs_path(fs::current_path(ec)), files);
  }

  for (const std::string& value : flags.path) append_path_entries(environment, value, files);

  SystemHiveFacts hive;
  if (environment.sysroot) {
    const FolderRef config = resolve_folder(environment, "C:\\Windows\\System32\\config", files);
    auto system_hive = config.exists ? files.find_file(config.host, "SYSTEM") : std::nullopt;
    if (system_hive) {
      auto loaded = load_hive(files, *system_hive);
      auto facts = loaded ? read_system_hive(loaded->hive) : Result<SystemHiveFacts>(loaded.error());
      if (facts) {
        hive = std::move(facts).value();
        environment.machine_path = hive.machine_path;
        add_variables(environment, hive.variables, "registry: machine");
        if (loaded->dirty) environment.notes.push_back(dirty_hive_note(*loaded, changed_system_values(*loaded, hive)));
      } else {
        environment.notes.push_back(
            fmt::format("{}: {}; registry settings not used", *system_hive, facts.error().message));
      }
    } else {
      environment.notes.push_back(
          "no Windows\\System32\\config\\SYSTEM hive under --sysroot: KnownDLLs and "
          "SafeDllSearchMode are Windows' defaults");
    }
  }

  if (environment.sysroot) read_user_path(environment, flags, files);
  // Without --path, the PATH a process started now would get: Windows builds it from the machine PATH, then
  // the user PATH. Taking none would make every DLL on PATH look missing and blame a stale terminal.
  if (environment.sysroot && flags.path.empty() && (environment.machine_path || environment.user_path)) {
    std::string value = environment.machine_path.value_or("");
    if (environment.user_path) value += (value.empty() ? "" : ";") + *environment.user_path;
    append_path_entries(environment, value, files);
    environment.notes.push_back(
        "no --path: PATH is the one a process started now gets from the registry under --sysroot (the machine "
        "PATH, then the user PATH, %VARIABLES% expanded); --path replaces it");
  }
  // Away from Windows nothing says what PATH the program gets: say which one was judged, and how to give the
  // real one, rather than let "not found" read as a fact of the user's machine.
  if (!environment.host_paths_are_windows && flags.path.empty() && environment.path.empty()) {
    environment.notes.push_back(
        "PATH judged: empty. No --path was given and no registry PATH was read, so every DLL the program finds "
        "only through PATH is reported missing; give the PATH the program really gets with --path "
        "'C:\\A;C:\\B', --env FILE (dlldoctor snapshot on that machine), or --sysroot with its Windows "
        "drive (the registry's PATH)");
  }
  environment.safe_dll_search_mode = flags.safe_dll_search_mode.value_or(hive.safe_dll_search_mode.value_or(true));

  if (flags.known_dlls) {
    environment.known_dlls = known_dlls_from(*flags.known_dlls);
    environment.known_dlls_source = "--known-dlls";
  } else if (hive.known_dlls) {
    environment.known_dlls = *hive.known_dlls;
    environment.known_dlls_source = "registry (Windows\\System32\\config\\SYSTEM)";
  } else {
    environment.known_dlls = default_known_dlls();
    environment.known_dlls_source = "built-in (Windows 10/11 x64)";
  }

  if (environment.sysroot) use_system_api_sets(environment, files);
  return environment;
}

}  // namespace dlldoctor::env
