#include "dlldoctor/env/packages.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/env/environment.hpp"

namespace dlldoctor::env {
namespace {

// A manifest larger than this is not read (torch's RECORD is about 2 MB; conda-meta records less).
constexpr std::size_t kMaxManifest = 32 * 1024 * 1024;

std::string relative_key(std::string text) {
  std::replace(text.begin(), text.end(), '\\', '/');
  return ascii_lower(text);
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

// The files a RECORD (CSV: the path before the first ',') or top_level.txt lists, as relative keys.
std::set<std::string> listed_files(const std::string& record) {
  std::set<std::string> keys;
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
    if (!file.empty()) keys.insert(relative_key(file));
  }
  return keys;
}

std::optional<PackageClaim> npm_claim(const std::string& folder, FileSystem& files) {
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
      return PackageClaim{PackageClaim::Kind::Npm, json["name"].get<std::string>(), version, *manifest};
    }
    const std::string parent = folder_of(at);
    if (parent == at) return std::nullopt;
    at = parent;
  }
  return std::nullopt;
}

}  // namespace

const PackageClaims::Where& PackageClaims::where(const std::string& folder) {
  auto found = folders_.find(folder);
  if (found != folders_.end()) return found->second;
  Where where;
  const std::string inside = join_path(folder, "x");
  where.site = ancestor(inside, "site-packages", {}, files_);
  where.prefix = ancestor(inside, {}, "conda-meta", files_);
  if (auto npm = npm_claim(folder, files_)) where.npm.push_back(std::move(*npm));
  return folders_.emplace(folder, std::move(where)).first->second;
}

std::vector<PackageClaims::Dist>& PackageClaims::dists(const std::string& site) {
  auto found = sites_.find(site);
  if (found != sites_.end()) return found->second;
  std::vector<Dist> list;
  for (const std::string& folder : files_.folder_names(site)) {
    if (!ends_with(ascii_lower(folder), ".dist-info")) continue;
    const std::string dist = join_path(site, folder);
    const auto record = files_.find_file(dist, "RECORD");
    if (!record) continue;
    const std::string stem = folder.substr(0, folder.size() - 10);
    const auto dash = stem.find('-');
    Dist entry;
    entry.claim = {PackageClaim::Kind::Python, ascii_lower(stem.substr(0, dash)), "", *record};
    std::replace(entry.claim.name.begin(), entry.claim.name.end(), '_', '-');
    if (dash != std::string::npos) entry.claim.version = stem.substr(dash + 1);
    if (const auto top = files_.find_file(dist, "top_level.txt")) entry.top = files_.read_small_file(*top, 64 * 1024);
    list.push_back(std::move(entry));
  }
  return sites_.emplace(site, std::move(list)).first->second;
}

const std::map<std::string, std::vector<PackageClaim>>& PackageClaims::conda_index(const std::string& prefix) {
  auto found = prefixes_.find(prefix);
  if (found != prefixes_.end()) return found->second;
  std::map<std::string, std::vector<PackageClaim>> index;
  if (const auto meta = files_.find_folder(prefix, "conda-meta")) {
    for (const std::string& name : files_.file_names(*meta)) {
      if (!ends_with(ascii_lower(name), ".json")) continue;
      const std::string path = join_path(*meta, name);
      const auto text = files_.read_small_file(path, kMaxManifest);
      if (!text) continue;
      const nlohmann::json record = nlohmann::json::parse(*text, nullptr, false);
      if (!record.is_object() || !record.contains("files") || !record["files"].is_array() || !record.contains("name") ||
          !record["name"].is_string())
        continue;
      const std::string version =
          record.contains("version") && record["version"].is_string() ? record["version"].get<std::string>() : "";
      const PackageClaim claim{PackageClaim::Kind::Conda, record["name"].get<std::string>(), version, path};
      for (const nlohmann::json& file : record["files"]) {
        if (file.is_string()) index[relative_key(file.get<std::string>())].push_back(claim);
      }
    }
  }
  return prefixes_.emplace(prefix, std::move(index)).first->second;
}

std::vector<PackageClaim> PackageClaims::of(const std::string& path) {
  const Where& at = where(folder_of(path));
  std::vector<PackageClaim> claims;
  if (!at.site.empty()) {
    const std::string key = relative_key(path.substr(at.site.size() + 1));
    const std::string top = key.substr(0, key.find('/'));
    for (Dist& dist : dists(at.site)) {
      // top_level.txt names the folders a distribution installs: a RECORD of 30,000 lines is read only when
      // it can list the file.
      if (dist.top) {
        const std::set<std::string> names = listed_files(*dist.top);
        if (!names.count(top) && !names.count(top.substr(0, top.rfind('.')))) continue;
      }
      if (!dist.keys) {
        const auto record = files_.read_small_file(dist.claim.manifest, kMaxManifest);
        dist.keys = record ? listed_files(*record) : std::set<std::string>();
      }
      if (dist.keys->count(key)) claims.push_back(dist.claim);
    }
  }
  if (claims.empty() && !at.prefix.empty()) {
    const auto& index = conda_index(at.prefix);
    const auto found = index.find(relative_key(path.substr(at.prefix.size() + 1)));
    if (found != index.end()) claims = found->second;
  }
  if (claims.empty()) claims = at.npm;
  return claims;
}

}  // namespace dlldoctor::env
