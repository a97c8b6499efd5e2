#pragma once
// Planned changes to the disk, seen as if they were made and never written: the file-system seam a fix
// plan is checked through. Copies and renames are recorded over another FileSystem; every listing and
// lookup answers as the disk would after them, and content_path() sends a reader of a copied or renamed
// file to the bytes it came from. Paths are host paths, spelled as the resolver joins them (join_path of
// a folder and a name).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dlldoctor/env/file_system.hpp"

namespace dlldoctor::env {

class OverlayFileSystem final : public FileSystem {
 public:
  explicit OverlayFileSystem(FileSystem& below) : below_(below) {}

  // `name` appears in `folder` (created if it is not there) with the bytes of the host file `source`
  // (which may itself be a file of this overlay), replacing a file of that name.
  void add_file(const std::string& folder, const std::string& name, const std::string& source);
  // The file `name` in `folder` is gone, whatever the case of its letters.
  void remove_file(const std::string& folder, const std::string& name);
  // X.dll -> X.dll.bak: the bytes move to the new name in the same folder.
  void rename_file(const std::string& folder, const std::string& name, const std::string& new_name);

  // The file's alternate data streams are gone (Unblock-File removes the Mark of the Web), for it and for
  // any copy made of it afterwards.
  void remove_streams(const std::string& path);

  std::optional<std::string> find_file(const std::string& folder, std::string_view name) override;
  std::optional<std::string> find_folder(const std::string& folder, std::string_view name) override;
  bool folder_exists(const std::string& folder) override;
  std::vector<std::string> file_names(const std::string& folder) override;
  std::vector<std::string> folder_names(const std::string& folder) override;
  std::optional<std::string> read_small_file(const std::string& path, std::size_t max_bytes) override;
  std::vector<std::string> unreadable_folders() const override;
  std::string content_path(const std::string& path) override;
  std::shared_ptr<const std::vector<std::uint8_t>> memory_bytes(const std::string& path) override {
    return below_.memory_bytes(path);
  }

 private:
  struct Added {
    std::string name;     // as it will be spelled on disk
    std::string content;  // the host file with its bytes
  };
  struct Changes {
    std::map<std::string, Added> added;  // lower-cased name -> file
    std::set<std::string> removed;       // lower-cased names hidden from the folder below
  };
  // The changes recorded for `folder` (spelled as the resolver joins it), if any.
  const Changes* changes_of(const std::string& folder) const;
  void create_folder(const std::string& folder);

  FileSystem& below_;
  std::map<std::string, Changes> folders_;
  std::set<std::string> created_;     // folders that exist only in the overlay
  std::set<std::string> no_streams_;  // content paths whose streams were removed
};

}  // namespace dlldoctor::env
