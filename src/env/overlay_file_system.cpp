#include "env/overlay_file_system.hpp"

#include <algorithm>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"

namespace dlldoctor::env {

const OverlayFileSystem::Changes* OverlayFileSystem::changes_of(const std::string& folder) const {
  auto found = folders_.find(folder);
  return found == folders_.end() ? nullptr : &found->second;
}

void OverlayFileSystem::create_folder(const std::string& folder) {
  if (folder.empty() || folder_exists(folder)) return;
  // The parents first: Copy-Item into a new folder needs the whole chain, and listings must show it.
  const std::string parent = folder_of(folder);
  if (parent != folder) create_folder(parent);
  created_.insert(folder);
}

void OverlayFileSystem::add_file(const std::string& folder, const std::string& name, const std::string& source) {
  const std::string content = content_path(source);
  create_folder(folder);
  Changes& changes = folders_[folder];
  const std::string key = ascii_lower(name);
  changes.removed.insert(key);  // the file below of that name, if any, is overwritten
  changes.added[key] = {name, content};
}

void OverlayFileSystem::remove_file(const std::string& folder, const std::string& name) {
  Changes& changes = folders_[folder];
  const std::string key = ascii_lower(name);
  changes.added.erase(key);
  changes.removed.insert(key);
}

void OverlayFileSystem::rename_file(const std::string& folder, const std::string& name, const std::string& new_name) {
  auto path = find_file(folder, name);
  if (!path) return;
  const std::string content = content_path(*path);
  remove_file(folder, name);
  Changes& changes = folders_[folder];
  const std::string key = ascii_lower(new_name);
  changes.removed.insert(key);
  changes.added[key] = {new_name, content};
}

std::optional<std::string> OverlayFileSystem::find_file(const std::string& folder, std::string_view name) {
  const std::string key = ascii_lower(name);
  if (const Changes* changes = changes_of(folder)) {
    auto added = changes->added.find(key);
    if (added != changes->added.end()) return join_path(folder, added->second.name);
    if (changes->removed.count(key)) return std::nullopt;
  }
  return below_.find_file(folder, name);
}

std::optional<std::string> OverlayFileSystem::find_folder(const std::string& folder, std::string_view name) {
  if (auto found = below_.find_folder(folder, name)) return found;
  const std::string key = ascii_lower(name);
  for (const std::string& created : created_) {
    if (folder_of(created) == folder && ascii_lower(base_name(created)) == key) return created;
  }
  return std::nullopt;
}

bool OverlayFileSystem::folder_exists(const std::string& folder) {
  return created_.count(folder) != 0 || below_.folder_exists(folder);
}

std::vector<std::string> OverlayFileSystem::file_names(const std::string& folder) {
  std::vector<std::string> names = below_.file_names(folder);
  if (const Changes* changes = changes_of(folder)) {
    names.erase(std::remove_if(names.begin(), names.end(),
                               [&](const std::string& n) { return changes->removed.count(ascii_lower(n)) != 0; }),
                names.end());
    for (const auto& [key, added] : changes->added) names.push_back(added.name);
    std::sort(names.begin(), names.end());
  }
  return names;
}

std::vector<std::string> OverlayFileSystem::folder_names(const std::string& folder) {
  std::vector<std::string> names = below_.folder_names(folder);
  for (const std::string& created : created_) {
    if (folder_of(created) == folder) names.push_back(base_name(created));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::optional<std::string> OverlayFileSystem::read_small_file(const std::string& path, std::size_t max_bytes) {
  // An alternate data stream ("x.dll:Zone.Identifier") travels with its file, as CopyFile copies it.
  const std::size_t slash = path.find_last_of("/\\");
  const std::size_t stream = path.find(':', slash == std::string::npos ? 0 : slash);
  if (stream != std::string::npos && stream > 1) {
    const std::string content = content_path(path.substr(0, stream));
    if (no_streams_.count(content)) return std::nullopt;
    return below_.read_small_file(content + path.substr(stream), max_bytes);
  }
  return below_.read_small_file(content_path(path), max_bytes);
}

void OverlayFileSystem::remove_streams(const std::string& path) { no_streams_.insert(content_path(path)); }

std::vector<std::string> OverlayFileSystem::unreadable_folders() const { return below_.unreadable_folders(); }

std::string OverlayFileSystem::content_path(const std::string& path) {
  if (const Changes* changes = changes_of(folder_of(path))) {
    auto added = changes->added.find(ascii_lower(base_name(path)));
    if (added != changes->added.end()) return added->second.content;
  }
  return path;
}

}  // namespace dlldoctor::env
