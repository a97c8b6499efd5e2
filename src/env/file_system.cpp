#include "dlldoctor/env/file_system.hpp"

#include <fstream>

#include "dlldoctor/core/fs.hpp"

namespace dlldoctor::env {

std::string join_path(const std::string& folder, std::string_view name) {
  if (folder.empty()) return std::string(name);
  const char last = folder.back();
  if (last == '/' || last == '\\') return folder + std::string(name);
#ifdef _WIN32
  return folder + "\\" + std::string(name);
#else
  return folder + "/" + std::string(name);
#endif
}

const HostFileSystem::Listing& HostFileSystem::list(const std::string& folder) {
  auto found = listings_.find(folder);
  if (found != listings_.end()) return found->second;
  Listing listing;
  FsErrorCode ec;
  const fs::path path(folder.empty() ? std::string(".") : folder);
  listing.exists = fs::is_directory(path, ec);
  if (listing.exists) {
    fs::directory_iterator it(path, ec), end;
    if (ec) listing.readable = false;
    for (; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      FsErrorCode type_ec;
      // is_directory follows links: a link to a folder is a folder, as on Windows.
      const bool is_folder = fs::is_directory(it->path(), type_ec);
      // The first spelling wins when a case-sensitive disk holds two names that differ only in case.
      listing.by_key.emplace(ascii_lower(name), Entry{name, is_folder});
    }
  }
  return listings_.emplace(folder, std::move(listing)).first->second;
}

std::optional<std::string> HostFileSystem::find_file(const std::string& folder, std::string_view name) {
  const Listing& listing = list(folder);
  auto it = listing.by_key.find(ascii_lower(name));
  if (it == listing.by_key.end() || it->second.is_folder) return std::nullopt;
  return join_path(folder, it->second.name);
}

std::optional<std::string> HostFileSystem::find_folder(const std::string& folder, std::string_view name) {
  const Listing& listing = list(folder);
  auto it = listing.by_key.find(ascii_lower(name));
  if (it == listing.by_key.end() || !it->second.is_folder) return std::nullopt;
  return join_path(folder, it->second.name);
}

bool HostFileSystem::folder_exists(const std::string& folder) { return list(folder).exists; }

std::vector<std::string> HostFileSystem::file_names(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& [key, entry] : list(folder).by_key) {
    if (!entry.is_folder) names.push_back(entry.name);
  }
  return names;
}

std::vector<std::string> HostFileSystem::folder_names(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& [key, entry] : list(folder).by_key) {
    if (entry.is_folder) names.push_back(entry.name);
  }
  return names;
}

std::optional<std::string> HostFileSystem::read_small_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(max_bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(max_bytes));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

std::vector<std::string> HostFileSystem::unreadable_folders() const {
  std::vector<std::string> out;
  for (const auto& [folder, listing] : listings_) {
    if (listing.exists && !listing.readable) out.push_back(folder);
  }
  return out;
}

}  // namespace dlldoctor::env
