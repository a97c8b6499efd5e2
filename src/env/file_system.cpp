#include "dlldoctor/env/file_system.hpp"

#include <algorithm>
#include <fstream>

#include "core/fs.hpp"
#include "core/mapped_file.hpp"

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

void FileSystem::note_read(const std::string& path) {
  if (std::find(files_read_.begin(), files_read_.end(), path) == files_read_.end()) files_read_.push_back(path);
}

Result<FileContents> read_contents(FileSystem& files, const std::string& path) {
  files.note_read(path);
  if (auto bytes = files.memory_bytes(path)) {
    const BoundedReader view(bytes->data(), bytes->size());
    return FileContents{std::move(bytes), view};
  }
  auto file = MappedFile::open(files.content_path(path));
  if (!file) return Error{path + ": " + file.error().message};
  auto shared = std::make_shared<const MappedFile>(std::move(file).value());
  const BoundedReader view = shared->bytes();
  return FileContents{std::move(shared), view};
}

const HostFileSystem::Listing& HostFileSystem::list(const std::string& folder) {
  auto found = listings_.find(folder);
  if (found != listings_.end()) return found->second;
  Listing listing;
  const FolderListing listed = list_folder(folder, [&](std::string name, bool is_folder) {
    // The first spelling wins when a case-sensitive disk holds two names that differ only in case.
    std::string key = ascii_lower(name);
    listing.by_key.emplace(std::move(key), Entry{std::move(name), is_folder});
  });
  listing.exists = listed.outcome != FolderListing::Outcome::Missing;
  listing.readable = listed.outcome == FolderListing::Outcome::Listed;
  if (listing.exists) ++folders_listed_;
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
  std::ifstream in = open_input_file(path);
  if (!in) return std::nullopt;
  note_read(path);
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
