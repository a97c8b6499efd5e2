#pragma once
// `dlldoctor --scan`: every copy of the DLLs that matter on a disk. A parallel walk that never follows
// links or junctions, reads only the headers and version resource of candidate files, and never writes.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dlldoctor/pe/image.hpp"

namespace dlldoctor::scan {

struct ScanOptions {
  std::vector<std::string> roots;
  bool all_dlls = false;        // every *.dll, not only the families' names
  std::set<std::string> names;  // lower-case DLL names to report (the families' members)
  unsigned threads = 0;         // 0: one per core
  // Called from a worker now and then (not more often than every ~100 ms) while the walk runs.
  std::function<void(std::uint64_t folders, std::uint64_t files, std::uint64_t copies)> progress;
};

struct ScannedFile {
  std::string path;
  std::string name;     // as on disk
  std::string key;      // the DLL name it is a copy of, lower case (".bak" and friends removed)
  bool backup = false;  // "cudnn64_9.dll.bak": a copy left by a hand install
  std::uint64_t size = 0;
  std::uint64_t device = 0;
  std::uint64_t inode = 0;  // with device: hard links share it (0 where the platform has none)
  std::optional<std::uint16_t> machine;
  std::optional<pe::Version> file_version;
  std::uint32_t timestamp = 0;  // PE header TimeDateStamp
  std::string error;            // when not readable as a PE image
};

struct ScanResult {
  std::vector<ScannedFile> files;  // by key, then path
  std::uint64_t folders = 0;
  std::uint64_t entries = 0;  // files and folders seen
  std::uint64_t unreadable_folders = 0;
  std::vector<std::string> unreadable_examples;  // the first few in sorted order
  std::uint64_t unreadable_files = 0;            // candidates the scan may not open (permissions, locks)
  std::vector<std::string> unreadable_file_examples;
  std::uint64_t vanished = 0;              // gone between listing and reading
  std::vector<std::string> invalid_names;  // names that are not valid UTF-8 (bytes escaped)
  std::vector<std::string> missing_roots;
};

ScanResult scan(const ScanOptions& options);

// Whether `path` names something that is there but is not a folder (a file, a device): a root the scan
// could only call missing, which the command line refuses before walking anything.
bool exists_but_not_folder(const std::string& path);

// The DLL name a file name is a copy of: "CUDNN64_9.DLL.bak" -> ("cudnn64_9.dll", backup). nullopt when
// it is not a DLL name at all.
std::optional<std::pair<std::string, bool>> dll_key(std::string_view file_name);

// A path fit for a report: valid UTF-8 stays as it is, otherwise every byte outside printable ASCII is
// written \xNN. Control characters are escaped either way, so a name cannot break a line or a table row.
std::string printable(std::string_view text);

}  // namespace dlldoctor::scan
