// The import library reader on archives built in memory: the formats it must read, and damaged archives
// it must survive (every truncation, every flipped byte) without reading outside the bytes.
#include "dlldoctor/pe/import_library.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dlldoctor/pe/image.hpp"

using dlldoctor::BoundedReader;
using dlldoctor::pe::ImportNameType;
using dlldoctor::pe::read_import_library;
namespace machine = dlldoctor::pe::machine;

namespace {

using Bytes = std::vector<std::uint8_t>;

void put16(Bytes& b, std::uint16_t v) {
  b.push_back(static_cast<std::uint8_t>(v));
  b.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put32(Bytes& b, std::uint32_t v) {
  put16(b, static_cast<std::uint16_t>(v));
  put16(b, static_cast<std::uint16_t>(v >> 16));
}
void put_text(Bytes& b, const std::string& s) { b.insert(b.end(), s.begin(), s.end()); }
void put_padded(Bytes& b, const std::string& s, std::size_t width) {
  put_text(b, s);
  b.insert(b.end(), width - s.size(), ' ');
}

struct Member {
  std::string name;  // as written in the header ("foo.dll/", "/0", "//")
  Bytes data;
};

Bytes archive(const std::vector<Member>& members) {
  Bytes b;
  put_text(b, "!<arch>\n");
  for (const Member& m : members) {
    put_padded(b, m.name, 16);
    put_padded(b, "0", 12);
    put_padded(b, "", 6);
    put_padded(b, "", 6);
    put_padded(b, "644", 8);
    put_padded(b, std::to_string(m.data.size()), 10);
    put_text(b, "`\n");
    b.insert(b.end(), m.data.begin(), m.data.end());
    if (m.data.size() % 2 == 1) b.push_back('\n');
  }
  return b;
}

// IMPORT_OBJECT_HEADER + "symbol\0dll\0".
Bytes short_import(std::uint16_t machine_type, const std::string& symbol, const std::string& dll,
                   std::uint16_t ordinal_or_hint, unsigned name_type) {
  Bytes b;
  put16(b, 0);
  put16(b, 0xffff);
  put16(b, 0);
  put16(b, machine_type);
  put32(b, 0);
  put32(b, static_cast<std::uint32_t>(symbol.size() + dll.size() + 2));
  put16(b, ordinal_or_hint);
  put16(b, static_cast<std::uint16_t>(name_type << 2));  // type 0: code
  put_text(b, symbol);
  b.push_back(0);
  put_text(b, dll);
  b.push_back(0);
  return b;
}

struct Section {
  std::string name;
  Bytes data;
};

// A COFF object with the given sections and (optionally) one symbol, as GNU dlltool writes its members.
Bytes coff_object(std::uint16_t machine_type, const std::vector<Section>& sections, const std::string& symbol = "") {
  const std::uint32_t headers = 20 + 40 * static_cast<std::uint32_t>(sections.size());
  std::uint32_t data_size = 0;
  for (const Section& s : sections) data_size += static_cast<std::uint32_t>(s.data.size());
  Bytes b;
  put16(b, machine_type);
  put16(b, static_cast<std::uint16_t>(sections.size()));
  put32(b, 0);
  put32(b, symbol.empty() ? 0 : headers + data_size);  // symbol table
  put32(b, symbol.empty() ? 0 : 1);
  put16(b, 0);
  put16(b, 0);
  std::uint32_t offset = headers;
  for (const Section& s : sections) {
    Bytes name(8, 0);
    std::copy(s.name.begin(), s.name.end(), name.begin());
    b.insert(b.end(), name.begin(), name.end());
    put32(b, 0);
    put32(b, 0);
    put32(b, static_cast<std::uint32_t>(s.data.size()));
    put32(b, s.data.empty() ? 0 : offset);
    put32(b, 0);
    put32(b, 0);
    put16(b, 0);
    put16(b, 0);
    put32(b, 0);
    offset += static_cast<std::uint32_t>(s.data.size());
  }
  for (const Section& s : sections) b.insert(b.end(), s.data.begin(), s.data.end());
  if (!symbol.empty()) {
    // A long name: zeros, then its offset in the string table (which starts with its own size).
    put32(b, 0);
    put32(b, 4);
    put32(b, 0);
    put16(b, 1);
    put16(b, 0);
    b.push_back(2);
    b.push_back(0);
    put32(b, static_cast<std::uint32_t>(4 + symbol.size() + 1));
    put_text(b, symbol);
    b.push_back(0);
  }
  return b;
}

Bytes text_bytes(const std::string& s, bool terminate = true) {
  Bytes b(s.begin(), s.end());
  if (terminate) b.push_back(0);
  return b;
}

// An MSVC-style library: linker member, long names, two short imports (one by ordinal) of a DLL whose
// member name needs the long-name table.
Bytes msvc_library() {
  return archive(
      {{"/", Bytes(4, 0)},
       {"//", text_bytes("cudnn_engines_precompiled64_9.dll")},
       {"/0", short_import(machine::kAmd64, "cudnnCreate", "cudnn_engines_precompiled64_9.dll", 2, 1)},
       {"/0", short_import(machine::kAmd64, "cudnnGetCudartVersion", "cudnn_engines_precompiled64_9.dll", 5, 0)}});
}

Bytes gnu_library() {
  Bytes hint_name;
  put16(hint_name, 7);
  put_text(hint_name, "cudnnCreate");
  hint_name.push_back(0);
  Bytes ordinal_entry;
  put32(ordinal_entry, 5);
  put32(ordinal_entry, 0x80000000u);
  return archive({{"/", Bytes(4, 0)},
                  {"d000000.o/", coff_object(machine::kAmd64, {{".idata$2", Bytes(20, 0)}, {".idata$5", Bytes(8, 0)}})},
                  {"d000001.o/", coff_object(machine::kAmd64,
                                             {{".text", Bytes(8, 0x90)},
                                              {".idata$7", Bytes(4, 0)},
                                              {".idata$5", Bytes(8, 0)},
                                              {".idata$4", Bytes(8, 0)},
                                              {".idata$6", hint_name}},
                                             "__imp_cudnnCreate")},
                  {"d000002.o/", coff_object(machine::kAmd64,
                                             {{".text", Bytes(8, 0x90)},
                                              {".idata$7", Bytes(4, 0)},
                                              {".idata$5", ordinal_entry},
                                              {".idata$4", ordinal_entry},
                                              {".idata$6", {}}},
                                             "__imp_cudnnGetCudartVersion")},
                  {"d000003.o/", coff_object(machine::kAmd64, {{".idata$4", Bytes(8, 0)},
                                                               {".idata$5", Bytes(8, 0)},
                                                               {".idata$7", text_bytes("cudnn64_9.dll")}})}});
}

dlldoctor::Result<dlldoctor::pe::ImportLibrary> read(const Bytes& bytes) {
  return read_import_library(BoundedReader(bytes.data(), bytes.size()));
}

}  // namespace

TEST_CASE("short import members: symbol, DLL, machine, ordinal or hint, name type; long member names") {
  const Bytes bytes = msvc_library();
  const auto library = read(bytes);
  REQUIRE(library.ok());
  CHECK(library->member_count == 2);
  CHECK(library->warnings.empty());
  REQUIRE(library->imports.size() == 2);
  CHECK(library->imports[0].member == "cudnn_engines_precompiled64_9.dll");
  CHECK(library->imports[0].symbol == "cudnnCreate");
  CHECK(library->imports[0].dll == "cudnn_engines_precompiled64_9.dll");
  CHECK_FALSE(library->imports[0].by_ordinal);
  CHECK(library->imports[0].ordinal_or_hint == 2);
  CHECK(library->imports[0].name_type == ImportNameType::Name);
  CHECK(library->imports[1].by_ordinal);
  CHECK(library->imports[1].ordinal_or_hint == 5);
  CHECK(library->dlls == std::vector<std::string>{"cudnn_engines_precompiled64_9.dll"});
  CHECK(library->machines == std::vector<std::uint16_t>{machine::kAmd64});
}

TEST_CASE("GNU dlltool members: the DLL from the tail's .idata$7, symbols from __imp_, ordinals from .idata$4") {
  const Bytes bytes = gnu_library();
  const auto library = read(bytes);
  REQUIRE(library.ok());
  CHECK(library->warnings.empty());
  CHECK(library->dlls == std::vector<std::string>{"cudnn64_9.dll"});
  REQUIRE(library->imports.size() == 2);
  CHECK(library->imports[0].symbol == "cudnnCreate");
  CHECK(library->imports[0].ordinal_or_hint == 7);
  CHECK(library->imports[0].dll == "cudnn64_9.dll");
  CHECK(library->imports[0].format == dlldoctor::pe::MemberFormat::Long);
  CHECK(library->imports[1].symbol == "cudnnGetCudartVersion");
  CHECK(library->imports[1].by_ordinal);
  CHECK(library->imports[1].ordinal_or_hint == 5);
}

TEST_CASE("what is not a library is an error") {
  CHECK_FALSE(read({}).ok());
  CHECK_FALSE(read(text_bytes("MZ not an archive", false)).ok());
  const auto thin = read(text_bytes("!<thin>\n", false));
  REQUIRE_FALSE(thin.ok());
  CHECK(thin.error().message.find("thin") != std::string::npos);
  const auto empty = read(text_bytes("!<arch>\n", false));
  REQUIRE(empty.ok());
  CHECK(empty->member_count == 0);
}

TEST_CASE("damaged members become warnings and the members before them are kept") {
  SUBCASE("a member larger than the file") {
    Bytes bytes = archive({{"a.dll/", short_import(machine::kI386, "_f", "a.dll", 0, 1)}, {"b.dll/", Bytes(4, 0)}});
    bytes.resize(bytes.size() - 2);
    const auto library = read(bytes);
    REQUIRE(library.ok());
    CHECK(library->imports.size() == 1);
    REQUIRE(library->warnings.size() == 1);
    CHECK(library->warnings[0].find("past the end") != std::string::npos);
  }
  SUBCASE("a header without its end marker") {
    Bytes bytes = archive({{"a.dll/", short_import(machine::kI386, "_f", "a.dll", 0, 1)}});
    bytes[8 + 58] = 'x';
    const auto library = read(bytes);
    REQUIRE(library.ok());
    CHECK(library->imports.empty());
    CHECK(library->warnings.at(0).find("malformed") != std::string::npos);
  }
  SUBCASE("SizeOfData past the member, names without terminators") {
    Bytes too_long = short_import(machine::kAmd64, "f", "a.dll", 0, 1);
    too_long[12] = 0xff;
    Bytes unterminated = short_import(machine::kAmd64, "f", "a.dll", 0, 1);
    unterminated.back() = 'x';
    const Bytes bytes = archive({{"a.dll/", too_long}, {"b.dll/", unterminated}});
    const auto library = read(bytes);
    REQUIRE(library.ok());
    CHECK(library->imports.empty());
    CHECK(library->warnings.size() == 2);
  }
  SUBCASE("a member that is neither an import nor an object") {
    const Bytes bytes = archive({{"readme.txt/", text_bytes("hello, linker")}});
    const auto library = read(bytes);
    REQUIRE(library.ok());
    CHECK(library->warnings.at(0) == "member readme.txt: format not recognised");
  }
  SUBCASE("a long-name reference past the table keeps the reference as the name") {
    const Bytes bytes =
        archive({{"//", text_bytes("a.dll/\n", false)}, {"/999", short_import(machine::kAmd64, "f", "a.dll", 0, 1)}});
    const auto library = read(bytes);
    REQUIRE(library.ok());
    CHECK(library->imports.at(0).member == "/999");
  }
}

TEST_CASE("every truncation and every flipped byte is read without leaving the bytes") {
  for (const Bytes& original : {msvc_library(), gnu_library()}) {
    for (std::size_t size = 0; size < original.size(); ++size) {
      const Bytes cut(original.begin(), original.begin() + static_cast<std::ptrdiff_t>(size));
      (void)read(cut);
    }
    for (std::size_t i = 0; i < original.size(); ++i) {
      for (std::uint8_t value : {std::uint8_t{0x00}, std::uint8_t{0xff}, std::uint8_t{0x7f}, std::uint8_t{'9'}}) {
        Bytes damaged = original;
        damaged[i] = value;
        const auto library = read(damaged);
        if (library.ok()) CHECK(library->imports.size() <= library->member_count);
      }
    }
  }
}
