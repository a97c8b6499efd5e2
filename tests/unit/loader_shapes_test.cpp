// Files the Windows loader maps although their headers overstate what the file holds (corkami's PE/*.asm,
// rebuilt byte for byte from its sources: docs/DECISIONS.md, "corkami's files, rebuilt"). A reader that calls
// them cut short tells the user a loadable DLL is broken.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/core/result.hpp"
#include "dlldoctor/pe/reader.hpp"
#include "support/pe_builder.hpp"

using namespace dlldoctor;

namespace {

using Bytes = std::vector<std::uint8_t>;

std::uint32_t get32(const Bytes& b, std::size_t at) {
  return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}
void put32(Bytes& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Offsets in the builder's PE32+ file: its one section's header, and the optional header.
struct Layout {
  std::size_t optional = 0, sections = 0, section_count = 0;
  explicit Layout(const Bytes& b) {
    const std::size_t coff = get32(b, 0x3c) + 4;
    optional = coff + 20;
    sections = optional + (b[coff + 16] | b[coff + 17] << 8);
    section_count = coff + 2;
  }
};

// The builder's DLL with a second section of 0x200 raw bytes after the first, at the next page: two sections,
// the second last in the file.
Bytes two_sections() {
  test::PeSpec spec;
  spec.imports = {{"next.dll", {"NextPing"}}};
  spec.exports = {"Alpha"};
  Bytes b = test::build_pe(spec);
  const Layout at(b);
  REQUIRE(b[at.section_count] == 1);
  const std::size_t second = at.sections + 40;
  REQUIRE(second + 40 <= get32(b, at.sections + 20));  // room for a second header before the first's data
  for (std::size_t i = 0; i < 40; ++i) REQUIRE(b[second + i] == 0);
  const std::uint32_t raw = static_cast<std::uint32_t>(b.size());
  b.resize(b.size() + 0x200, 0xCC);
  put32(b, second + 8, 0x200);         // VirtualSize
  put32(b, second + 12, 0x2000);       // VirtualAddress
  put32(b, second + 16, 0x200);        // SizeOfRawData
  put32(b, second + 20, raw);          // PointerToRawData
  put32(b, second + 36, 0x40000040u);  // initialised data, readable
  b[at.section_count] = 2;
  put32(b, at.optional + 56, 0x3000);  // SizeOfImage
  return b;
}

Result<pe::Image> read(const Bytes& b) { return pe::read_image(BoundedReader(b.data(), b.size())); }

}  // namespace

TEST_CASE("an earlier section may claim raw bytes past the end of the file; only the last one may not") {
  Bytes b = two_sections();
  const Layout at(b);
  REQUIRE(b.size() < 0x200 + 0x1000);  // the first section's page reaches past the file's end
  auto plain = read(b);
  REQUIRE(plain);
  CHECK(!plain->cut_short);

  // corkami bigSoRD.asm: the first section's SizeOfRawData is huge, its VirtualSize a page; the loader maps it.
  put32(b, at.sections + 8, 0x1000);
  put32(b, at.sections + 16, 0xFFFF0200u);
  auto big = read(b);
  REQUIRE(big);
  CHECK(!big->cut_short);
  CHECK(big->imports.size() == 1);
  CHECK(big->exports);

  // The same file without the end of its last section is what an interrupted copy leaves.
  b.resize(b.size() - 0x100);
  auto cut = read(b);
  REQUIRE(cut);
  REQUIRE(cut->cut_short);
  CHECK(cut->cut_short->described_size == cut->cut_short->file_size + 0x100);
  // The builder's sections have no names: the last one in the file is the second.
  CHECK(cut->cut_short->first_cut == "section #? ends at byte " + std::to_string(cut->cut_short->described_size));
}

TEST_CASE("a certificate table past the end of the file does not make the image unloadable") {
  // corkami maxvals.asm: every data directory holds 0xFFFFFFFF and the program runs; the loader never reads
  // the certificate table, which is not part of the image.
  Bytes b = two_sections();
  const Layout at(b);
  const std::size_t certificate = at.optional + 112 + 4 * 8;
  put32(b, certificate, 0xFFFFFFFFu);
  put32(b, certificate + 4, 0xFFFFFFFFu);
  auto image = read(b);
  REQUIRE(image);
  CHECK(!image->cut_short);
  CHECK(!image->is_signed);
  REQUIRE(image->warnings.size() == 1);
  CHECK(image->warnings[0].find("certificate table") != std::string::npos);
}

TEST_CASE("an export address table whose count runs past its section still answers the entries inside it") {
  // corkami dllord.asm: NumberOfFunctions (and NumberOfNames) 0xFFFFFFFF over a table of two entries; the
  // loader reads the entry an ordinal import asks for, and the program runs.
  test::PeSpec spec;
  spec.exports = {"Alpha", "Beta"};
  Bytes b = test::build_pe(spec);
  const Layout at(b);
  const std::uint32_t export_rva = get32(b, at.optional + 112);
  const std::size_t directory = export_rva - get32(b, at.sections + 12) + get32(b, at.sections + 20);
  put32(b, directory + 20, 0xFFFFFFFFu);
  put32(b, directory + 24, 0xFFFFFFFFu);
  auto image = read(b);
  REQUIRE(image);
  REQUIRE(image->exports);
  // Every 4 bytes from the table to the end of the section's mapped data is an entry the loader could read;
  // those holding 0 are unused slots. The names' table is not inside the file, so no entry has a name.
  const std::size_t section_end = get32(b, at.sections + 12) + get32(b, at.sections + 8);
  const std::size_t entries = (section_end - get32(b, directory + 28)) / 4;
  REQUIRE(image->exports->items.size() >= 2);
  CHECK(image->exports->items.size() <= entries);
  CHECK(image->exports->items[0].ordinal == 1);
  CHECK(image->exports->items[1].ordinal == 2);
  for (const pe::ExportItem& item : image->exports->items) CHECK(!item.name);
  auto said = [&](const std::string& text) {
    for (const std::string& warning : image->warnings)
      if (warning.find(text) != std::string::npos) return true;
    return false;
  };
  CHECK(said("address table of 4294967295 entries at RVA"));
  CHECK(said("name or ordinal table is not inside the file"));
  CHECK_FALSE(said("functions; only the first"));
}

TEST_CASE("a name of 131 KB in an import and an export table is read whole, as the loader reads it") {
  // corkami dllweirdexp.asm exports, and dllweirdexp-ld.asm imports, a 131 KB name; the program runs.
  const std::string name = "weird" + std::string(131000, '/');
  test::PeSpec dll;
  dll.exports = {name};
  test::PeSpec program;
  program.dll = false;
  program.imports = {{"weird.dll", {name}}};
  auto exports = read(test::build_pe(dll));
  auto imports = read(test::build_pe(program));
  REQUIRE(exports);
  REQUIRE(imports);
  REQUIRE(exports->exports);
  REQUIRE(exports->exports->items.size() == 1);
  CHECK(exports->exports->items[0].name == name);
  REQUIRE(imports->imports.size() == 1);
  REQUIRE(imports->imports[0].functions.size() == 1);
  CHECK(imports->imports[0].functions[0].name == name);
  CHECK(imports->warnings.empty());
}

TEST_CASE("export and import tables are found from their RVA alone, whatever their Size says") {
  // corkami dll.asm: a DLL whose export directory Size is 0, and whose export its -ld program imports; tiny.asm
  // does the same for the imports. RtlImageDirectoryEntryToData never checks the Size.
  test::PeSpec spec;
  spec.imports = {{"next.dll", {"NextPing"}}};
  spec.exports = {"Alpha", "Beta"};
  Bytes b = test::build_pe(spec);
  const Layout at(b);
  put32(b, at.optional + 112 + 4, 0);      // the export directory's Size
  put32(b, at.optional + 112 + 8 + 4, 0);  // the import directory's Size
  auto image = read(b);
  REQUIRE(image);
  CHECK(image->warnings.empty());
  REQUIRE(image->exports);
  REQUIRE(image->exports->items.size() == 2);
  CHECK(image->exports->items[0].name == "Alpha");
  CHECK(image->exports->items[1].name == "Beta");
  REQUIRE(image->imports.size() == 1);
  CHECK(image->imports[0].functions[0].name == "NextPing");
}
