#include "dlldoctor/env/python_env.hpp"

#include <fmt/format.h>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/core/text.hpp"

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

bool is_store_path(const std::string& path) {
  const std::string lower = ascii_lower(path);
  for (const char* marker :
       {"windowsapps\\pythonsoftwarefoundation.python.", "windowsapps/pythonsoftwarefoundation.python."}) {
    if (lower.find(marker) != std::string::npos) return true;
  }
  return false;
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
        python.why = fmt::format("pyvenv.cfg in {}", candidate);
        break;
      }
    }
  }
  if (cfg) {
    python.layout = PythonEnvironment::Layout::Venv;
    python.base_prefix = python.prefix;
    if (auto home = cfg_value(*cfg, "home")) {
      const FolderRef base = resolve_folder(environment, *home, files);
      python.base_prefix = base.host.empty() ? *home : base.host;
      python.why += fmt::format(", home = {}", *home);
    }
  } else if (files.find_folder(here.host, "conda-meta")) {
    python.layout = PythonEnvironment::Layout::Conda;
    python.why = fmt::format("conda-meta in {}", here.host);
  } else if (is_store_path(here.host) || (here.windows && is_store_path(*here.windows))) {
    python.layout = PythonEnvironment::Layout::Store;
    python.why = "installed under WindowsApps\\PythonSoftwareFoundation.Python.*";
  } else {
    python.why = fmt::format("no pyvenv.cfg or conda-meta in {}", here.host);
  }
  if (python.base_prefix.empty()) python.base_prefix = python.prefix;
  if (!site_packages.empty()) {
    for (const std::string& dir : site_packages) {
      const FolderRef given = resolve_folder(environment, dir, files);
      if (!given.exists) return Error{fmt::format("--site-packages {}: no such folder", dir)};
      python.site_packages.push_back(given.host);
    }
    return python;
  }
  if (auto site = subfolder(files, python.prefix, {"Lib", "site-packages"})) python.site_packages.push_back(*site);
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
