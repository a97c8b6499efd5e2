// The walker's own handling of what changes under a running scan: a file or folder listed a moment ago
// and gone when it is read. No run of the CLI can time that, so list_folder and read_candidate are
// called here directly, in the order the scan calls them, with the removal in between.
#include "scan/walker.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "core/mapped_file.hpp"
#include "core/shrink_guard.hpp"

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

// A file that shrinks while it is mapped (drvfs, network disks, a copy being rewritten) makes a read past
// its new end SIGBUS, which no catch stops. Without the guard this test dies of that signal. (Files of
// 64 KiB or less are read, not mapped: this one is larger.)
TEST_CASE("walker: a mapped file that shrinks while it is read gives zeros and says so, never SIGBUS") {
  fs::remove_all(kWork);
  fs::create_directories(kWork);
  const fs::path file = kWork / "shrinking.dll";
  {
    std::ofstream out(file, std::ios::binary);
    const std::string page(4096, 'x');
    for (int i = 0; i < 32; ++i) out << page;
  }
  auto mapped = dlldoctor::MappedFile::open(file.string());
  REQUIRE(mapped);
  const dlldoctor::BoundedReader bytes = mapped->bytes();
  const dlldoctor::ShrinkGuard guard(bytes);
  CHECK(*bytes.u8(40000) == 'x');
  CHECK(!guard.shrank());
  fs::resize_file(file, 4096);
  CHECK(*bytes.u8(100) == 'x');  // the page still in the file
  CHECK(*bytes.u8(40000) == 0);  // a page the file no longer has
  CHECK(*bytes.u8(60000) == 0);
  CHECK(guard.shrank());
}

// A file of 64 KiB or less is read whole when it is opened: what the reader sees is the file as it was then.
TEST_CASE("walker: a small file is read whole when opened, and cutting it afterwards changes nothing read") {
  fs::remove_all(kWork);
  fs::create_directories(kWork);
  const fs::path file = kWork / "small.dll";
  std::ofstream(file, std::ios::binary) << std::string(16 * 4096, 'x');
  auto mapped = dlldoctor::MappedFile::open(file.string());
  REQUIRE(mapped);
  const dlldoctor::BoundedReader bytes = mapped->bytes();
  const dlldoctor::ShrinkGuard guard(bytes);
  fs::resize_file(file, 4096);
  CHECK(bytes.size() == 16 * 4096);
  CHECK(*bytes.u8(60000) == 'x');
  CHECK(!guard.shrank());
  std::uint8_t tail[8] = {};
  CHECK(mapped->read_at(60000, tail, sizeof tail) == 0);  // read_at goes through the file, cut now
}

// The same race through read_candidate, as the scan meets it: one thread cuts a DLL short and restores it
// over and over while another reads it. Every read ends as a copy or as an unreadable entry, whether the
// file is read whole or mapped.
TEST_CASE("walker: a candidate cut short and restored while it is read is a copy or an unreadable entry") {
  fs::remove_all(kWork);
  fs::create_directories(kWork);
  const fs::path file = kWork / "cudnn64_9.dll";
  std::string whole;
  {
    std::ifstream in(kFixtures / "x64/cudnn64_9.dll", std::ios::binary);
    whole.assign(std::istreambuf_iterator<char>(in), {});
  }
  REQUIRE(whole.size() > 8192);  // cut to 4096 bytes, it loses the pages the reader reads last
  SUBCASE("small enough to be read whole") { REQUIRE(whole.size() <= 64 * 1024); }
  SUBCASE("large enough to be mapped") { whole.append(80 * 1024, '\0'); }  // an overlay: still the same DLL
  std::ofstream(file, std::ios::binary) << whole;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    while (!done) {
      fs::resize_file(file, 4096);
      std::ofstream(file, std::ios::binary) << whole;
    }
  });
  int copies = 0, unreadable = 0;
  for (int i = 0; i < 2000; ++i) {
    ScannedFile candidate;
    candidate.path = file.string();
    if (read_candidate(candidate) != CandidateRead::Read) continue;
    (candidate.error.empty() ? copies : unreadable) += 1;
    if (candidate.error.empty()) CHECK(candidate.file_version);
  }
  done = true;
  writer.join();
  MESSAGE(copies << " reads whole, " << unreadable << " unreadable");
  CHECK(copies + unreadable > 0);
}
