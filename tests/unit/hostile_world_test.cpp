// Hostile machines, not only hostile files, in an in-memory world (env::MemoryFileSystem): a chain
// of 100,000 DLLs each importing the next, and an export table whose names would cost gigabytes.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/memory_file_system.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/pe/image_cache.hpp"
#include "dlldoctor/pe/reader.hpp"
#include "support/memory_world.hpp"
#include "support/pe_builder.hpp"

using namespace dlldoctor;
using test::bare_environment;
using test::bytes_of;

namespace {
const std::string kRoot = test::root_path("");
}  // namespace

TEST_CASE("a chain of 100,000 DLLs, each importing the next, ends: followed 256 deep, and said so") {
  constexpr int kChain = 100000;
  env::MemoryFileSystem files;
  auto name = [](int i) { return fmt::format("d{:06}.dll", i); };
  for (int i = 0; i < kChain; ++i) {
    test::PeSpec spec;
    if (i + 1 < kChain) spec.imports = {{name(i + 1), {"Next"}}};
    spec.exports = {"Next"};
    files.add_file(kRoot + "/app/" + name(i), bytes_of(test::build_pe(spec)));
  }
  test::PeSpec program;
  program.dll = false;
  program.imports = {{name(0), {"Next"}}};
  files.add_file(kRoot + "/app/app.exe", bytes_of(test::build_pe(program)));
  files.add_folder(kRoot + "/sys32");
  const env::Environment environment = bare_environment();
  pe::ImageCache images([&](const std::string& path) { return files.memory_bytes(path); });
  resolve::Resolver resolver(environment, files, images, resolve::WrongMachinePolicy::Fail);
  graph::ClosureRequest request;
  request.program = kRoot + "/app/app.exe";
  auto closure = graph::build_closure(request, resolver, files, environment);
  REQUIRE_MESSAGE(closure, (closure ? std::string() : closure.error().message));
  CHECK(closure->outcome.ok);
  // The program, then DLLs 0 to 255: the one at depth 256 is found, its imports are not followed.
  CHECK(closure->modules.size() == 257);
  bool said = false;
  for (const std::string& note : closure->notes) said |= note.find("is 256 modules deep") != std::string::npos;
  CHECK_MESSAGE(said, "no note about the chain's depth");
}

TEST_CASE("an export table of 2^20 names at one 4 KiB name stops at the file's name budget") {
  test::PeSpec spec;
  spec.shared_name_pointers = 1u << 20;
  const auto bytes = test::build_pe(spec);
  CHECK(bytes.size() < 7u * 1024 * 1024);
  auto image = pe::read_image(BoundedReader(bytes.data(), bytes.size()));
  REQUIRE(image);
  REQUIRE(image->exports);
  std::uint64_t copied = 0;
  for (const pe::ExportItem& item : image->exports->items) copied += item.name ? item.name->size() + 1 : 0;
  // The names copied stay within the file's name budget (pe_view.hpp: 16 times its size and 1 MiB), about
  // 100 MB here: not 4 GiB.
  const std::uint64_t budget = 16 * bytes.size() + (1u << 20);
  CHECK(copied <= budget);
  CHECK(image->exports->items.size() <= budget / 4096 + 1);
  bool warned = false;
  for (const std::string& warning : image->warnings)
    warned |= warning.find("past the name budget") != std::string::npos;
  CHECK_MESSAGE(warned, "no warning that the names were cut");
}

TEST_CASE("an export table of 2^16 names at one stretch without an end stops at the file's name budget") {
  test::PeSpec spec;
  spec.shared_name_pointers = 1u << 16;
  spec.shared_name_length = 60000;
  auto bytes = test::build_pe(spec);
  // The shared name is the last thing in the section: without its NUL, every scan runs to the section's end.
  const auto end = std::find(bytes.rbegin(), bytes.rend(), std::uint8_t{'A'});
  REQUIRE(end != bytes.rend());
  REQUIRE(*(end.base()) == 0);
  *(end.base()) = 'A';
  auto image = pe::read_image(BoundedReader(bytes.data(), bytes.size()));
  REQUIRE(image);
  REQUIRE(image->exports);
  for (const pe::ExportItem& item : image->exports->items) CHECK(!item.name);
  bool warned = false;
  for (const std::string& warning : image->warnings)
    warned |= warning.find("past the name budget") != std::string::npos;
  CHECK_MESSAGE(warned, "each of the 65,536 scans of 60 KB was free");
}
