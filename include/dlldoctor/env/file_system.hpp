#pragma once
// Where the resolver looks for files. Windows names are case-insensitive, so on a case-sensitive disk
// (a mounted Windows drive on Linux) every lookup goes through a lower-cased index of the folder; each
// folder is listed at most once per run. Nothing else below the CLI touches the disk for searching.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/result.hpp"

namespace dlldoctor::env {

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // The path of the regular file `name` inside `folder`, whatever the case of its letters; nullopt if
  // there is none (or the folder does not exist or cannot be read).
  virtual std::optional<std::string> find_file(const std::string& folder, std::string_view name) = 0;
  // The path of the subfolder `name` inside `folder`, whatever its case.
  virtual std::optional<std::string> find_folder(const std::string& folder, std::string_view name) = 0;
  virtual bool folder_exists(const std::string& folder) = 0;
  // The names of the regular files and of the subfolders of `folder`, as on disk, sorted.
  virtual std::vector<std::string> file_names(const std::string& folder) = 0;
  virtual std::vector<std::string> folder_names(const std::string& folder) = 0;
  // The first `max_bytes` of a small file (an alternate data stream on Windows), nullopt if absent.
  virtual std::optional<std::string> read_small_file(const std::string& path, std::size_t max_bytes) = 0;
  // Folders that exist but could not be listed (permissions), for the report.
  virtual std::vector<std::string> unreadable_folders() const = 0;
  // The host file that holds the bytes of `path`: the file itself on a disk; in an overlay, the file a
  // planned copy or rename takes them from. Whoever reads a file's bytes (pe::ImageCache) reads these.
  virtual std::string content_path(const std::string& path) { return path; }
  // The bytes of a file that lives only in memory (MemoryFileSystem); null for one on a disk, which its
  // readers map themselves (pe::ImageCache, the hive and API set schema readers).
  virtual std::shared_ptr<const std::vector<std::uint8_t>> memory_bytes(const std::string& path) {
    (void)path;
    return nullptr;
  }
  // The files whose bytes were read through this file system (small files, hives, schemas), each once:
  // what a report must never be written over.
  const std::vector<std::string>& files_read() const { return files_read_; }
  void note_read(const std::string& path);

 private:
  std::vector<std::string> files_read_;
};

// A file's whole bytes for a reader that parses them in place (the hive and API set schema readers): the
// in-memory copy, or the host file mapped. `owner` keeps `bytes` alive.
struct FileContents {
  std::shared_ptr<const void> owner;
  BoundedReader bytes;
};
Result<FileContents> read_contents(FileSystem& files, const std::string& path);

// The real disk, with the per-folder index cached for the life of the object.
class HostFileSystem final : public FileSystem {
 public:
  std::optional<std::string> find_file(const std::string& folder, std::string_view name) override;
  std::optional<std::string> find_folder(const std::string& folder, std::string_view name) override;
  bool folder_exists(const std::string& folder) override;
  std::vector<std::string> file_names(const std::string& folder) override;
  std::vector<std::string> folder_names(const std::string& folder) override;
  std::optional<std::string> read_small_file(const std::string& path, std::size_t max_bytes) override;
  std::vector<std::string> unreadable_folders() const override;
  // How many times a folder was read from the disk: the promise above ("at most once per run") is kept
  // when this equals the number of distinct folders asked about.
  std::size_t folders_listed() const { return folders_listed_; }

 private:
  struct Entry {
    std::string name;  // as on disk
    bool is_folder = false;
  };
  struct Listing {
    bool exists = false;
    bool readable = true;
    // Lower-cased name -> entry. Plain ascii_lower, not DllName: these are the file and folder names of a
    // listing (app.exe.local, NTUSER.DAT, a file "foo" without extension), never given ".dll".
    std::map<std::string, Entry> by_key;
  };
  const Listing& list(const std::string& folder);

  std::map<std::string, Listing> listings_;
  std::size_t folders_listed_ = 0;
};

// Joins a host folder and a name with the host's separator.
std::string join_path(const std::string& folder, std::string_view name);

}  // namespace dlldoctor::env
