#pragma once
// A world held in memory: folders and files that exist only in this object, for tests that need more files
// than a disk should hold (a chain of 100,000 DLLs) and for fuzz targets, whose worth is the number of
// inputs they run (no temporary files, no process per input). Paths are host paths with '/', as the
// resolver joins them; lookups are case-insensitive like HostFileSystem's. A file's bytes come from
// memory_bytes(), which pe::ImageCache and the environment's hive and schema readers ask for first.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dlldoctor/env/file_system.hpp"

namespace dlldoctor::env {

using FileBytes = std::shared_ptr<const std::vector<std::uint8_t>>;

class MemoryFileSystem final : public FileSystem {
 public:
  // `path` ("/c/app/x.dll") holds `bytes`; its folders are created, a file of that name replaced.
  void add_file(const std::string& path, FileBytes bytes);
  void add_file(const std::string& path, const std::string& text);
  void add_folder(const std::string& path);

  std::optional<std::string> find_file(const std::string& folder, std::string_view name) override;
  std::optional<std::string> find_folder(const std::string& folder, std::string_view name) override;
  bool folder_exists(const std::string& folder) override;
  std::vector<std::string> file_names(const std::string& folder) override;
  std::vector<std::string> folder_names(const std::string& folder) override;
  std::optional<std::string> read_small_file(const std::string& path, std::size_t max_bytes) override;
  std::vector<std::string> unreadable_folders() const override { return {}; }
  FileBytes memory_bytes(const std::string& path) override;

 private:
  struct Entry {
    std::string name;  // as added
    bool is_folder = false;
    FileBytes bytes;
  };
  struct Folder {
    std::map<std::string, Entry> by_key;  // lower-cased name -> entry
  };
  Folder* folder(const std::string& path);
  Folder& make_folder(const std::string& path);

  std::map<std::string, Folder> folders_;  // by path without a trailing '/'
};

}  // namespace dlldoctor::env
