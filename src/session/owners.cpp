#include "dlldoctor/session/owners.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/env/inventory.hpp"

namespace dlldoctor::session {
namespace {

// A manifest larger than this is not read (torch's RECORD is about 2 MB; conda-meta files less).
constexpr std::size_t kMaxManifest = 32 * 1024 * 1024;
// How far above a DLL its package's manifest may be (build\Release\x64\addon.node: three folders).
constexpr int kMaxPackageDepth = 6;

struct Package {
  std::string name, version, manifest;
};
// Lower-cased relative path, '/' separated -> the package that lists it.
using FileIndex = std::map<std::string, Package>;

std::string relative_key(std::string text) {
  std::replace(text.begin(), text.end(), '\\', '/');
  return ascii_lower(text);
}

bool is_dll_like(const std::string& key) {
  auto ends = [&](std::string_view tail) {
    return key.size() >= tail.size() && key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends(".dll") || ends(".pyd") || ends(".node");
}

// `path` below `root`, '/' separated and lower-cased; empty when it is not below.
std::string below(const std::string& path, const std::string& root) {
  if (!is_below(path, root)) return {};
  return relative_key(path.substr(root.size() + 1));
}

// The DLLs each dist-info's RECORD lists (PEP 376), for one site-packages folder.
FileIndex python_index(const std::string& site_packages, env::FileSystem& files) {
  FileIndex index;
  for (const std::string& folder : files.folder_names(site_packages)) {
    const std::string lower = ascii_lower(folder);
    if (lower.size() <= 10 || lower.compare(lower.size() - 10, 10, ".dist-info") != 0) continue;
    const std::string stem = folder.substr(0, folder.size() - 10);
    const auto dash = stem.find('-');
    Package package;
    package.name = stem.substr(0, dash);
    std::replace(package.name.begin(), package.name.end(), '_', '-');
    package.name = ascii_lower(package.name);
    if (dash != std::string::npos) package.version = stem.substr(dash + 1);
    const auto record_path = files.find_file(env::join_path(site_packages, folder), "RECORD");
    if (!record_path) continue;
    package.manifest = *record_path;
    const auto record = files.read_small_file(*record_path, kMaxManifest);
    if (!record) continue;
    std::size_t start = 0;
    while (start < record->size()) {
      std::size_t end = record->find('\n', start);
      if (end == std::string::npos) end = record->size();
      const std::string line = record->substr(start, end - start);
      start = end + 1;
      std::string file = line.substr(0, line.find(','));
      if (file.size() > 1 && file.front() == '"') file = file.substr(1, file.find('"', 1) - 1);
      const std::string key = relative_key(file);
      if (is_dll_like(key)) index.emplace(key, package);
    }
  }
  return index;
}

// The files each conda-meta record lists, for one conda prefix.
FileIndex conda_index(const std::string& prefix, env::FileSystem& files) {
  FileIndex index;
  const auto meta = files.find_folder(prefix, "conda-meta");
  if (!meta) return index;
  for (const std::string& name : files.file_names(*meta)) {
    if (ascii_lower(name).size() < 5 || ascii_lower(name).compare(name.size() - 5, 5, ".json") != 0) continue;
    const std::string path = env::join_path(*meta, name);
    const auto text = files.read_small_file(path, kMaxManifest);
    if (!text) continue;
    const nlohmann::json record = nlohmann::json::parse(*text, nullptr, false);
    if (!record.is_object() || !record.contains("files") || !record["files"].is_array()) continue;
    Package package{record.value("name", std::string()), record.value("version", std::string()), path};
    if (package.name.empty()) continue;
    for (const auto& file : record["files"]) {
      if (!file.is_string()) continue;
      const std::string key = relative_key(file.get<std::string>());
      if (is_dll_like(key)) index.emplace(key, package);
    }
  }
  return index;
}

// The package.json nearest above `folder`, within a node_modules tree or an app's own folder.
std::optional<Package> npm_package(const std::string& folder, env::FileSystem& files) {
  std::string at = folder;
  for (int depth = 0; depth < kMaxPackageDepth && !at.empty(); ++depth) {
    if (ascii_lower(base_name(at)) == "node_modules") return std::nullopt;
    if (const auto manifest = files.find_file(at, "package.json")) {
      const auto text = files.read_small_file(*manifest, 1024 * 1024);
      if (!text) return std::nullopt;
      const nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
      if (!json.is_object() || !json.contains("name") || !json["name"].is_string()) return std::nullopt;
      const std::string version =
          json.contains("version") && json["version"].is_string() ? json["version"].get<std::string>() : "";
      return Package{json["name"].get<std::string>(), version, *manifest};
    }
    const std::string parent = folder_of(at);
    if (parent == at) break;
    at = parent;
  }
  return std::nullopt;
}

// The nearest folder above `folder` (or itself) named `name`, or holding a sub-folder `holding`.
std::string ancestor(const std::string& folder, std::string_view name, std::string_view holding,
                     env::FileSystem& files) {
  std::string at = folder;
  for (int depth = 0; depth < kMaxPackageDepth && !at.empty(); ++depth) {
    if (!name.empty() && ascii_lower(base_name(at)) == name) return at;
    if (!holding.empty() && files.find_folder(at, holding)) return at;
    const std::string parent = folder_of(at);
    if (parent == at) break;
    at = parent;
  }
  return {};
}

bool in_folder(const std::string& windows_folder, const env::FolderRef& folder) {
  return folder.windows && same_path(windows_folder, *folder.windows);
}

// The toolkit root whose DLL folder `windows_folder` is: [machine] toolkits and the CUDA_PATH variables.
std::optional<std::string> toolkit_root(const std::string& windows_folder, const env::Environment& environment,
                                        const rules::MachinePlaces& places) {
  std::vector<std::string> roots = places.toolkits;
  for (const auto& [name, variable] : environment.variables) {
    for (const std::string& pattern : places.toolkit_variables) {
      if (env::wildcard_match(pattern, name)) roots.push_back(variable.value);
    }
  }
  for (const std::string& root : roots) {
    for (const std::string& bin : places.toolkit_bins) {
      const std::string suffix = "\\" + bin;
      if (windows_folder.size() <= suffix.size() ||
          ascii_lower(windows_folder.substr(windows_folder.size() - suffix.size())) != ascii_lower(suffix))
        continue;
      const std::string found = windows_folder.substr(0, windows_folder.size() - suffix.size());
      if (env::wildcard_match(root, found)) return found;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string Owner::text() const {
  const std::string named = version.empty() ? name : name + " " + version;
  if (kind == "python_package") return named + " (pip)";
  if (kind == "conda_package") return named + " (conda)";
  if (kind == "npm_package") return named + " (npm)";
  return named;
}

std::vector<std::optional<Owner>> find_owners(const graph::Closure& closure, const env::Environment& environment,
                                              const rules::RuleData& rules, env::FileSystem& files) {
  std::vector<std::optional<Owner>> owners(closure.modules.size());
  std::map<std::string, FileIndex> python_indexes, conda_indexes;
  for (std::size_t i = 0; i < closure.modules.size(); ++i) {
    const graph::Module& module = closure.modules[i];
    const resolve::Resolution& r = module.resolution;
    if (r.failure == resolve::Failure::NotFound || (!r.path && !r.windows_path)) continue;
    const rules::Family* family = rules.family_of(module.key);
    const std::string kind = family ? family->kind : "";
    const std::string windows_folder = r.windows_path ? folder_of(*r.windows_path) : "";
    // A file in the system folders: Windows', unless a driver or the redistributable put it there.
    if (!windows_folder.empty() &&
        (in_folder(windows_folder, environment.system32) || in_folder(windows_folder, environment.syswow64))) {
      if (kind == "driver") {
        owners[i] = Owner{"driver", family->name, "", windows_folder};
      } else if (kind == "msvc") {
        owners[i] = Owner{"msvc_redist", "Visual C++ Redistributable", "", windows_folder};
      } else {
        owners[i] = Owner{"windows", "Windows", "", windows_folder};
      }
      continue;
    }
    if (kind == "driver") {
      owners[i] = Owner{"driver", family->name, "", windows_folder};
      continue;
    }
    if (!r.path) continue;
    const std::string folder = folder_of(*r.path);
    if (const auto package = npm_package(folder, files)) {
      owners[i] = Owner{"npm_package", package->name, package->version, package->manifest};
      continue;
    }
    if (const std::string site = ancestor(folder, "site-packages", {}, files); !site.empty()) {
      auto it = python_indexes.find(site);
      if (it == python_indexes.end()) it = python_indexes.emplace(site, python_index(site, files)).first;
      const auto hit = it->second.find(below(*r.path, site));
      if (hit != it->second.end()) {
        owners[i] = Owner{"python_package", hit->second.name, hit->second.version, hit->second.manifest};
        continue;
      }
    }
    if (const std::string prefix = ancestor(folder, {}, "conda-meta", files); !prefix.empty()) {
      auto it = conda_indexes.find(prefix);
      if (it == conda_indexes.end()) it = conda_indexes.emplace(prefix, conda_index(prefix, files)).first;
      const auto hit = it->second.find(below(*r.path, prefix));
      if (hit != it->second.end()) {
        owners[i] = Owner{"conda_package", hit->second.name, hit->second.version, hit->second.manifest};
        continue;
      }
    }
    if (!windows_folder.empty()) {
      if (const auto root = toolkit_root(windows_folder, environment, rules.machine)) {
        std::string version = base_name(*root);
        if (!version.empty() && (version.front() == 'v' || version.front() == 'V')) version.erase(0, 1);
        owners[i] = Owner{"cuda_toolkit", "CUDA Toolkit", version, windows_folder};
      }
    }
  }
  return owners;
}

}  // namespace dlldoctor::session
