// The walker's own handling of what changes under a running scan: a file or folder listed a moment ago
// and gone when it is read. No run of the CLI can time that, so list_folder and read_candidate are
// called here directly, in the order the scan calls them, with the removal in between.
#include "scan/walker.hpp"

#include <doctest/doctest.h>

#include <filesystem>

namespace fs = std::filesystem;
using namespace dlldoctor::scan;

namespace {

const fs::path kFixtures = DLLDOCTOR_FIXTURES_DIR;
const fs::path kWork = fs::path(DLLDOCTOR_SCAN_WORK_DIR) / "walker";

ScanOptions cudnn_names() {
  ScanOptions options;
  options.names = {"cudnn64_9.dll", "cudnn_ops64_9.dll"};
  return options;
}

}  // namespace

TEST_CASE("walker: a subfolder removed after its parent was listed counts as vanished, not unreadable") {
  fs::remove_all(kWork);
  fs::create_directories(kWork / "root/gone/deeper");
  fs::copy_file(kFixtures / "x64/cudnn64_9.dll", kWork / "root/gone/cudnn64_9.dll");
  const ScanOptions options = cudnn_names();
  WalkCounters counters;
  SeenFolders seen;
  std::vector<std::string> folders;
  std::vector<ScannedFile> files;
  list_folder((kWork / "root").string(), options, folders, files, counters, seen);
  REQUIRE(folders == std::vector<std::string>{(kWork / "root/gone").string()});

  fs::remove_all(kWork / "root/gone");
  list_folder(folders.front(), options, folders, files, counters, seen);
  CHECK(counters.vanished == 1);
  CHECK(counters.unreadable.empty());
  CHECK(counters.folders == 1);  // the root only
  CHECK(files.empty());
  CHECK(folders.size() == 1);  // nothing new to walk
}

TEST_CASE("walker: a candidate removed between listing and reading is vanished; one still there is read") {
  fs::remove_all(kWork);
  fs::create_directories(kWork);
  fs::copy_file(kFixtures / "x64/cudnn64_9.dll", kWork / "cudnn64_9.dll");
  ScannedFile present;
  present.path = (kWork / "cudnn64_9.dll").string();
  ScannedFile gone = present;
  gone.path = (kWork / "cudnn_ops64_9.dll").string();
  CHECK(read_candidate(present) == CandidateRead::Read);
  CHECK(present.error.empty());
  CHECK(present.file_version.has_value());
  CHECK(present.size == fs::file_size(kWork / "cudnn64_9.dll"));
  CHECK(read_candidate(gone) == CandidateRead::Vanished);

  // A folder in the path replaced by a file (ENOTDIR) is gone as well.
  ScannedFile under_a_file = present;
  under_a_file.path = (kWork / "cudnn64_9.dll" / "cudnn64_9.dll").string();
  CHECK(read_candidate(under_a_file) == CandidateRead::Vanished);
}
