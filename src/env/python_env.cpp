#include "dlldoctor/env/python_env.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/pe/reader.hpp"

namespace dlldoctor::env {
namespace {

constexpr std::size_t kSmallFile = 64 * 1024;

// `key = value` lines of pyvenv.cfg (keys compared as CPython does: case-insensitively, trimmed).
std::optional<std::string> cfg_value(const std::string& text, std::string_view key) {
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    const auto equals = line.find('=');
    if (equals != std::string_view::npos && ascii_lower(trim_whitespace(line.substr(0, equals))) == key)
      return std::string(trim_whitespace(line.substr(equals + 1)));
    start = end + 1;
  }
  return std::nullopt;
}

// A subfolder path, whatever the case of each part; nullopt when a part is missing.
std::optional<std::string> subfolder(FileSystem& files, std::string folder,
                                     std::initializer_list<std::string_view> parts) {
  for (std::string_view part : parts) {
    auto next = files.find_folder(folder, part);
    if (!next) return std::nullopt;
    folder = *next;
  }
  return folder;
}

// "3.11" from the first two numbers of "3.11.7" or "3.12.1.final.0"; empty when it does not start so.
std::string major_minor(std::string_view text) {
  const std::string value(trim_whitespace(text));
  const auto first = value.find('.');
  if (first == std::string::npos || first == 0) return {};
  const auto second = value.find_first_not_of("0123456789", first + 1);
  const std::string minor = value.substr(first + 1, second == std::string::npos ? second : second - first - 1);
  return minor.empty() ? std::string() : value.substr(0, first) + "." + minor;
}

// The interpreter's DLL beside it, python311.dll for 3.11 (python3.dll, the stable ABI's, says nothing).
std::string version_of_dll(FileSystem& files, const std::string& folder) {
  for (const std::string& name : files.file_names(folder)) {
    const std::string lower = ascii_lower(name);
    if (lower.size() < 13 || lower.rfind("python3", 0) != 0 || lower.compare(lower.size() - 4, 4, ".dll") != 0)
      continue;
    const std::string digits = lower.substr(7, lower.size() - 11);
    if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos) return "3." + digits;
  }
  return {};
}

// "3.11" from a Store install's folder, ...\PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0\...
std::string version_of_store_path(const std::string& path) {
  const std::string lower = ascii_lower(path);
  const std::string marker = "pythonsoftwarefoundation.python.";
  const auto at = lower.find(marker);
  if (at == std::string::npos) return {};
  return major_minor(lower.substr(at + marker.size(), lower.find('_', at) - at - marker.size()));
}

// Whether the program imports the interpreter's own DLL (python311.dll): the real python.exe does, CPython's
// venv launcher (venvlauncher.exe copied as Scripts\python.exe) does not: it starts another process.
bool imports_python_dll(FileSystem& files, const std::string& program) {
  pe::ReadParts parts;
  parts.exports = false;
  parts.resources = false;
  auto image = pe::read_image_file(files.content_path(program), parts);
  if (!image) return true;  // unreadable: not known to be the launcher
  for (const pe::ImportedDll& import : image->imports) {
    const std::string lower = ascii_lower(import.dll);
    if (lower.rfind("python3", 0) == 0 && lower != "python3.dll") return true;
  }
  return false;
}

bool is_store_path(const std::string& path) {
  const std::string lower = ascii_lower(path);
  for (const char* marker :
       {"windowsapps\\pythonsoftwarefoundation.python.", "windowsapps/pythonsoftwarefoundation.python."}) {
    if (lower.find(marker) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

namespace {

// The user site-packages (cpython Lib/site.py, getusersitepackages): %APPDATA%\Python\PythonXY\site-packages,
// and for the Store Python the package's LocalCache (its WindowsApps folder is read-only, so pip installs
// there by default). On sys.path before the global site-packages, unless PYTHONNOUSERSITE is set or a venv
// hides it (DOMAIN.md §2b).
void find_user_site(const Environment& environment, FileSystem& files, PythonEnvironment& python, bool enabled) {
  if (!enabled) {
    python.user_site_why = "not searched: a venv without include-system-site-packages hides the user site";
    return;
  }
  if (auto no_user = environment.variables.find("pythonnousersite");
      no_user != environment.variables.end() && !no_user->second.value.empty()) {
    python.user_site_why = fmt::format("not searched: PYTHONNOUSERSITE is set ({})", no_user->second.source);
    return;
  }
  if (python.version.empty()) {
    python.user_site_why = "not looked for: the Python version is not known (no pythonXY.dll beside the interpreter)";
    return;
  }
  const std::string xy = "Python" + std::string(1, python.version[0]) + python.version.substr(2);
  const bool store = python.layout == PythonEnvironment::Layout::Store;
  // The user site of a profile, from its %LOCALAPPDATA% (Store) or %APPDATA% folder.
  auto site_under = [&](const std::string& appdata) {
    return store ? fmt::format(
                       "{}\\Packages\\PythonSoftwareFoundation.Python.{}_qbz5n2kfra8p0\\LocalCache\\local-packages\\{}"
                       "\\site-packages",
                       appdata, python.version, xy)
                 : fmt::format("{}\\Python\\{}\\site-packages", appdata, xy);
  };
  const char* const variable = store ? "localappdata" : "appdata";
  const char* const under = store ? "\\AppData\\Local" : "\\AppData\\Roaming";
  std::optional<std::string> folder;
  std::string assumed;
  if (auto found = environment.variables.find(variable); found != environment.variables.end()) {
    folder = site_under(found->second.value);
  } else if (environment.profile) {
    folder = site_under(*environment.profile + under);
  } else if (environment.sysroot) {
    // A copied drive often lacks the hidden NTUSER.DAT that says whose it is: the one profile that holds
    // this Python's user site is taken, and said to be an assumption.
    std::vector<std::string> holders;
    const FolderRef users = resolve_folder(environment, "C:\\Users", files);
    for (const std::string& name : users.exists ? files.folder_names(users.host) : std::vector<std::string>()) {
      const std::string candidate = site_under("C:\\Users\\" + name + under);
      if (resolve_folder(environment, candidate, files).exists) holders.push_back(candidate);
    }
    if (holders.size() == 1) {
      folder = holders.front();
      assumed = "assumed (no NTUSER.DAT says whose profile this is; it is the only one that has this folder): ";
    }
  }
  if (!folder) {
    python.user_site_why =
        "not looked for: the Windows user is not known (--windows-user, or one profile under C:\\Users)";
    return;
  }
  const FolderRef site = resolve_folder(environment, *folder, files);
  if (!site.exists) {
    python.user_site_why = fmt::format("{} does not exist", *folder);
    return;
  }
  python.user_site = site.host;
  python.user_site_why = fmt::format("{}{}, searched before the global site-packages", assumed, *folder);
  python.site_packages.insert(python.site_packages.begin(), site.host);
}

}  // namespace

std::string_view layout_name(PythonEnvironment::Layout layout) {
  switch (layout) {
    case PythonEnvironment::Layout::Plain: return "plain CPython";
    case PythonEnvironment::Layout::Venv: return "venv";
    case PythonEnvironment::Layout::Conda: return "conda";
    case PythonEnvironment::Layout::Store: return "Microsoft Store Python";
  }
  return "?";
}

Result<PythonEnvironment> find_python_environment(const Environment& environment, FileSystem& files,
                                                  const std::string& interpreter,
                                                  const std::vector<std::string>& site_packages) {
  PythonEnvironment python;
  python.interpreter = interpreter;
  const std::string folder = folder_of(interpreter);
  const FolderRef here = resolve_folder(environment, folder.empty() ? "." : folder, files);
  if (!here.exists) return Error{fmt::format("{}: the interpreter's folder {} does not exist", interpreter, folder)};
  python.prefix = here.host;
  // A venv's python.exe is in <venv>\Scripts, with pyvenv.cfg one level up (or beside it).
  const std::string parent = folder_of(here.host);
  std::optional<std::string> cfg;
  for (const std::string& candidate : {here.host, parent}) {
    if (candidate.empty()) continue;
    if (auto file = files.find_file(candidate, "pyvenv.cfg")) {
      cfg = files.read_small_file(*file, kSmallFile);
      if (cfg) {
        python.prefix = candidate;
        python.why = fmt::format("pyvenv.cfg in {}", shown_path(environment, candidate));
        break;
      }
    }
  }
  bool system_site = false;
  if (cfg) {
    python.layout = PythonEnvironment::Layout::Venv;
    python.base_prefix = python.prefix;
    if (auto home = cfg_value(*cfg, "home")) {
      const FolderRef base = resolve_folder(environment, *home, files);
      python.base_prefix = base.host.empty() ? *home : base.host;
      python.why += fmt::format(", home = {}", *home);
      const auto base_exe = base.exists ? files.find_file(base.host, "python.exe") : std::nullopt;
      if (base_exe && files.find_file(here.host, base_name(interpreter)) &&
          !imports_python_dll(files, *files.find_file(here.host, base_name(interpreter)))) {
        python.launcher = interpreter;
        python.interpreter = *base_exe;
      }
    }
    python.version = major_minor(cfg_value(*cfg, "version").value_or(cfg_value(*cfg, "version_info").value_or("")));
    system_site = ascii_lower(cfg_value(*cfg, "include-system-site-packages").value_or("")) == "true";
  } else if (files.find_folder(here.host, "conda-meta")) {
    python.layout = PythonEnvironment::Layout::Conda;
    python.why = fmt::format("conda-meta in {}", here.windows.value_or(here.host));
  } else if (is_store_path(here.host) || (here.windows && is_store_path(*here.windows))) {
    python.layout = PythonEnvironment::Layout::Store;
    python.why = "installed under WindowsApps\\PythonSoftwareFoundation.Python.*";
  } else {
    python.why = fmt::format("no pyvenv.cfg or conda-meta in {}", here.windows.value_or(here.host));
  }
  if (python.base_prefix.empty()) python.base_prefix = python.prefix;
  if (python.version.empty()) python.version = version_of_dll(files, folder_of(python.interpreter));
  if (python.version.empty()) python.version = version_of_store_path(here.windows.value_or(here.host));
  if (!site_packages.empty()) {
    for (const std::string& dir : site_packages) {
      const FolderRef given = resolve_folder(environment, dir, files);
      if (!given.exists) return Error{fmt::format("--site-packages {}: no such folder", dir)};
      python.site_packages.push_back(given.host);
    }
    return python;
  }
  if (auto site = subfolder(files, python.prefix, {"Lib", "site-packages"})) python.site_packages.push_back(*site);
  if (system_site && python.base_prefix != python.prefix) {
    if (auto site = subfolder(files, python.base_prefix, {"Lib", "site-packages"}))
      python.site_packages.push_back(*site);
  }
  find_user_site(environment, files, python, python.layout != PythonEnvironment::Layout::Venv || system_site);
  return python;
}

std::optional<std::string> python_assignment(std::string_view source, std::string_view key) {
  std::size_t start = 0;
  while (start < source.size()) {
    std::size_t end = source.find('\n', start);
    if (end == std::string_view::npos) end = source.size();
    std::string_view line = source.substr(start, end - start);
    start = end + 1;
    if (line.substr(0, key.size()) != key) continue;
    std::string_view rest = line.substr(key.size());
    // `key = 'v'` or `key: Optional[str] = 'v'`, never `key_other = ...`.
    if (rest.empty() || (rest.front() != ' ' && rest.front() != '=' && rest.front() != ':')) continue;
    const auto equals = rest.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string value(trim_whitespace(rest.substr(equals + 1)));
    if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"')) {
      const auto close = value.find(value.front(), 1);
      if (close != std::string::npos) return value.substr(1, close - 1);
    }
    return std::nullopt;  // None, or an expression dlldoctor does not evaluate
  }
  return std::nullopt;
}

}  // namespace dlldoctor::env
