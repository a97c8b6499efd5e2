#include "dlldoctor/env/memory_file_system.hpp"

#include <algorithm>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"

namespace dlldoctor::env {
namespace {

// One spelling per path: the resolver joins names with the platform's separator (join_path), so the
// Windows build asks for "C:/w\\app.exe" what the test added as "C:/w/app.exe".
std::string trimmed(std::string path) {
  std::replace(path.begin(), path.end(), '\\', '/');
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

MemoryFileSystem::Folder* MemoryFileSystem::folder(const std::string& path) {
  auto found = folders_.find(trimmed(path.empty() ? std::string(".") : path));
  return found == folders_.end() ? nullptr : &found->second;
}

MemoryFileSystem::Folder& MemoryFileSystem::make_folder(const std::string& path) {
  const std::string key = trimmed(path);
  auto found = folders_.find(key);
  if (found != folders_.end()) return found->second;
  if (key != "/" && key != ".") {
    Folder& parent = make_folder(parent_of(key));
    parent.by_key.emplace(ascii_lower(name_of(key)), Entry{name_of(key), true, nullptr});
  }
  return folders_[key];
}

void MemoryFileSystem::add_folder(const std::string& path) { make_folder(path); }

void MemoryFileSystem::add_file(const std::string& path, FileBytes bytes) {
  const std::string normal = trimmed(path);
  Folder& parent = make_folder(parent_of(normal));
  parent.by_key[ascii_lower(name_of(normal))] = Entry{name_of(normal), false, std::move(bytes)};
}

void MemoryFileSystem::add_file(const std::string& path, const std::string& text) {
  add_file(path, std::make_shared<const std::vector<std::uint8_t>>(text.begin(), text.end()));
}

std::optional<std::string> MemoryFileSystem::find_file(const std::string& folder_path, std::string_view name) {
  Folder* f = folder(folder_path);
  if (!f) return std::nullopt;
  auto found = f->by_key.find(ascii_lower(std::string(name)));
  if (found == f->by_key.end() || found->second.is_folder) return std::nullopt;
  return join_path(folder_path, found->second.name);
}

std::optional<std::string> MemoryFileSystem::find_folder(const std::string& folder_path, std::string_view name) {
  Folder* f = folder(folder_path);
  if (!f) return std::nullopt;
  auto found = f->by_key.find(ascii_lower(std::string(name)));
  if (found == f->by_key.end() || !found->second.is_folder) return std::nullopt;
  return join_path(folder_path, found->second.name);
}

bool MemoryFileSystem::folder_exists(const std::string& folder_path) { return folder(folder_path) != nullptr; }

std::vector<std::string> MemoryFileSystem::file_names(const std::string& folder_path) {
  std::vector<std::string> names;
  if (Folder* f = folder(folder_path)) {
    for (const auto& [key, entry] : f->by_key) {
      if (!entry.is_folder) names.push_back(entry.name);
    }
  }
  return names;
}

std::vector<std::string> MemoryFileSystem::folder_names(const std::string& folder_path) {
  std::vector<std::string> names;
  if (Folder* f = folder(folder_path)) {
    for (const auto& [key, entry] : f->by_key) {
      if (entry.is_folder) names.push_back(entry.name);
    }
  }
  return names;
}

FileBytes MemoryFileSystem::memory_bytes(const std::string& path) {
  const std::string normal = trimmed(path);
  Folder* f = folder(parent_of(normal));
  if (!f) return nullptr;
  auto found = f->by_key.find(ascii_lower(name_of(normal)));
  return found == f->by_key.end() || found->second.is_folder ? nullptr : found->second.bytes;
}

std::optional<std::string> MemoryFileSystem::read_small_file(const std::string& path, std::size_t max_bytes) {
  const FileBytes bytes = memory_bytes(path);
  if (!bytes) return std::nullopt;
  return std::string(bytes->begin(), bytes->begin() + static_cast<std::ptrdiff_t>(std::min(bytes->size(), max_bytes)));
}

}  // namespace dlldoctor::env
