#include "dlldoctor/env/packages.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/env/environment.hpp"

namespace dlldoctor::env {
namespace {

// A manifest larger than this is not read (torch's RECORD is about 2 MB; conda-meta records less).
constexpr std::size_t kMaxManifest = 32 * 1024 * 1024;
// How far above a file its package's manifest may be (build\Release\x64\addon.node: three folders).
constexpr int kMaxPackageDepth = 6;

std::string relative_key(std::string text) {
  std::replace(text.begin(), text.end(), '\\', '/');
  return ascii_lower(text);
}

bool ends_with(const std::string& text, std::string_view tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// The nearest folder above `path`'s folder (or it) named `name` (lower case), or holding a folder `holding`.
std::string ancestor(const std::string& path, std::string_view name, std::string_view holding, FileSystem& files) {
  std::string at = folder_of(path);
  for (int depth = 0; depth < kMaxPackageDepth && !at.empty(); ++depth) {
    if (!name.empty() && ascii_lower(base_name(at)) == name) return at;
    if (!holding.empty() && files.find_folder(at, holding)) return at;
    const std::string parent = folder_of(at);
    if (parent == at) break;
    at = parent;
  }
  return {};
}

// Whether a RECORD (or conda's "files") line names `key`: the text before the first ',' (RECORD is CSV).
bool record_lists(const std::string& record, const std::string& key) {
  std::size_t start = 0;
  while (start < record.size()) {
    std::size_t end = record.find('\n', start);
    if (end == std::string::npos) end = record.size();
    std::string file = record.substr(start, end - start);
    start = end + 1;
    if (!file.empty() && file.front() == '"') {
      file = file.substr(1, file.find('"', 1) - 1);
    } else {
      file = file.substr(0, file.find(','));
    }
    if (!file.empty() && file.back() == '\r') file.pop_back();
    if (relative_key(file) == key) return true;
  }
  return false;
}

void python_claims(const std::string& site_packages, const std::string& key, FileSystem& files,
                   std::vector<PackageClaim>& out) {
  const std::string top = key.substr(0, key.find('/'));
  for (const std::string& folder : files.folder_names(site_packages)) {
    const std::string lower = ascii_lower(folder);
    if (!ends_with(lower, ".dist-info")) continue;
    const std::string dist = join_path(site_packages, folder);
    // top_level.txt names the folders a distribution installs: a RECORD of 30,000 lines is read only when
    // it can list the file.
    if (const auto top_level_file = files.find_file(dist, "top_level.txt")) {
      const auto names = files.read_small_file(*top_level_file, 64 * 1024);
      if (names && !record_lists(*names, top) && !record_lists(*names, top.substr(0, top.rfind('.')))) continue;
    }
    const auto record_file = files.find_file(dist, "RECORD");
    if (!record_file) continue;
    const auto record = files.read_small_file(*record_file, kMaxManifest);
    if (!record || !record_lists(*record, key)) continue;
    const std::string stem = folder.substr(0, folder.size() - 10);
    const auto dash = stem.find('-');
    PackageClaim claim{PackageClaim::Kind::Python, ascii_lower(stem.substr(0, dash)), "", *record_file};
    std::replace(claim.name.begin(), claim.name.end(), '_', '-');
    if (dash != std::string::npos) claim.version = stem.substr(dash + 1);
    out.push_back(std::move(claim));
  }
}

void conda_claims(const std::string& prefix, const std::string& key, FileSystem& files,
                  std::vector<PackageClaim>& out) {
  const auto meta = files.find_folder(prefix, "conda-meta");
  if (!meta) return;
  for (const std::string& name : files.file_names(*meta)) {
    if (!ends_with(ascii_lower(name), ".json")) continue;
    const std::string path = join_path(*meta, name);
    const auto text = files.read_small_file(path, kMaxManifest);
    if (!text) continue;
    const nlohmann::json record = nlohmann::json::parse(*text, nullptr, false);
    if (!record.is_object() || !record.contains("files") || !record["files"].is_array() || !record.contains("name") ||
        !record["name"].is_string())
      continue;
    const bool listed = std::any_of(record["files"].begin(), record["files"].end(), [&](const nlohmann::json& file) {
      return file.is_string() && relative_key(file.get<std::string>()) == key;
    });
    if (!listed) continue;
    const std::string version =
        record.contains("version") && record["version"].is_string() ? record["version"].get<std::string>() : "";
    out.push_back({PackageClaim::Kind::Conda, record["name"].get<std::string>(), version, path});
  }
}

void npm_claim(const std::string& path, FileSystem& files, std::vector<PackageClaim>& out) {
  std::string at = folder_of(path);
  for (int depth = 0; depth < kMaxPackageDepth && !at.empty(); ++depth) {
    if (ascii_lower(base_name(at)) == "node_modules") return;
    if (const auto manifest = files.find_file(at, "package.json")) {
      const auto text = files.read_small_file(*manifest, 1024 * 1024);
      if (!text) return;
      const nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
      if (!json.is_object() || !json.contains("name") || !json["name"].is_string()) return;
      const std::string version =
          json.contains("version") && json["version"].is_string() ? json["version"].get<std::string>() : "";
      out.push_back({PackageClaim::Kind::Npm, json["name"].get<std::string>(), version, *manifest});
      return;
    }
    const std::string parent = folder_of(at);
    if (parent == at) return;
    at = parent;
  }
}

}  // namespace

std::vector<PackageClaim> package_claims(const std::string& path, FileSystem& files) {
  std::vector<PackageClaim> claims;
  if (const std::string site = ancestor(path, "site-packages", {}, files); !site.empty())
    python_claims(site, relative_key(path.substr(site.size() + 1)), files, claims);
  if (claims.empty()) {
    if (const std::string prefix = ancestor(path, {}, "conda-meta", files); !prefix.empty())
      conda_claims(prefix, relative_key(path.substr(prefix.size() + 1)), files, claims);
  }
  if (claims.empty()) npm_claim(path, files, claims);
  return claims;
}

}  // namespace dlldoctor::env
