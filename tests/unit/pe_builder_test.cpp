// The test PE builder (tests/support/pe_builder.hpp) read back by the real reader: its imports, exports and
// version resource are what a linker's would be, so tests built on it test the reader's real paths.
#include "support/pe_builder.hpp"

#include <doctest/doctest.h>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/pe/reader.hpp"

using namespace dlldoctor;

TEST_CASE("the test PE builder makes files the reader reads as a linker's") {
  test::PeSpec spec;
  spec.imports = {{"next.dll", {"NextPing", "NextPong"}}, {"other.dll", {"OtherInit"}}};
  spec.exports = {"Zeta", "Alpha"};
  spec.export_name = "self.dll";
  const auto bytes = test::build_pe(spec);
  auto image = pe::read_image(BoundedReader(bytes.data(), bytes.size()));
  REQUIRE(image);
  CHECK(image->warnings.empty());
  CHECK(image->is_dll);
  REQUIRE(image->imports.size() == 2);
  CHECK(image->imports[0].dll == "next.dll");
  REQUIRE(image->imports[0].functions.size() == 2);
  CHECK(image->imports[0].functions[1].name == "NextPong");
  REQUIRE(image->exports);
  CHECK(image->exports->dll_name == "self.dll");
  REQUIRE(image->exports->items.size() == 2);
  CHECK(image->exports->items[0].name == "Alpha");
  CHECK(!image->exports->items[0].forwarder);
  CHECK(!image->cut_short);
  // No version resource unless asked for.
  CHECK(!image->file_version);
  CHECK(!image->product_version);
}

TEST_CASE("the test PE builder's version resource is read back as the file and product version") {
  test::PeSpec spec;
  spec.imports = {{"next.dll", {"NextPing"}}};
  spec.exports = {"Alpha"};
  // Each part distinct and above 255, so a swapped half or a byte-order mistake shows.
  spec.file_version = std::array<std::uint16_t, 4>{9, 1, 0x1234, 70};
  const auto bytes = test::build_pe(spec);
  auto image = pe::read_image(BoundedReader(bytes.data(), bytes.size()));
  REQUIRE(image);
  CHECK(image->warnings.empty());
  REQUIRE(image->file_version);
  CHECK(image->file_version->parts == std::array<std::uint16_t, 4>{9, 1, 0x1234, 70});
  CHECK(image->file_version->to_string() == "9.1.4660.70");
  REQUIRE(image->product_version);
  CHECK(*image->product_version == *image->file_version);
  CHECK(image->strings.empty());  // no StringFileInfo
  // The resource shares the section with the tables, which still read as before.
  REQUIRE(image->imports.size() == 1);
  CHECK(image->imports[0].dll == "next.dll");
  REQUIRE(image->exports);
  REQUIRE(image->exports->items.size() == 1);
  CHECK(image->exports->items[0].name == "Alpha");
  CHECK(!image->cut_short);
}
