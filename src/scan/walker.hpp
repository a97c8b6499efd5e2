#pragma once
// Internal to the scan: listing one folder the fastest way the platform offers, without following links.
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dlldoctor/scan/scanner.hpp"

namespace dlldoctor::scan {

struct WalkCounters {
  std::uint64_t folders = 0;
  std::uint64_t entries = 0;
  std::uint64_t vanished = 0;
  std::vector<std::string> unreadable;
  std::vector<std::string> unreadable_files;
  std::vector<std::string> invalid_folder_names;
};

// Folders already listed, by (device, inode): bind mounts can loop even without links.
class SeenFolders {
 public:
  bool first_visit(std::uint64_t device, std::uint64_t inode) {
    std::lock_guard<std::mutex> lock(mutex_);
    return seen_.emplace(device, inode).second;
  }

 private:
  std::mutex mutex_;
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen_;
};

bool is_folder(const std::string& path);

// Lists `folder`: subfolders go to `folders`, candidate DLL files (read) to `files`. Never throws.
void list_folder(const std::string& folder, const ScanOptions& options, std::vector<std::string>& folders,
                 std::vector<ScannedFile>& files, WalkCounters& counters, SeenFolders& seen);

enum class CandidateRead { Read, Vanished, Denied };

// Fills machine, version and size of a candidate from its headers. A file that cannot be opened because
// it is gone or may not be read is not one to report; any other failure is, with `error` set.
CandidateRead read_candidate(ScannedFile& file);

}  // namespace dlldoctor::scan
