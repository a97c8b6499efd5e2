// env::archive_members on asar and zip bytes built here, whole and damaged: the index of an archive is
// untrusted, so every cut, every offset past the end and every nesting too deep is an error or a bound,
// never a read outside the bytes.
#include "dlldoctor/env/archives.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace dlldoctor;
using Bytes = std::vector<std::uint8_t>;

namespace {

void put32(Bytes& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}
void put16(Bytes& out, std::uint16_t value) {
  out.push_back(static_cast<std::uint8_t>(value));
  out.push_back(static_cast<std::uint8_t>(value >> 8));
}

// @electron/asar's layout: pickle {4, header size}, pickle {payload size, string size, string}.
Bytes asar(const std::string& index, std::uint32_t claimed_size = 0) {
  Bytes out;
  const auto padded = static_cast<std::uint32_t>((index.size() + 3) / 4 * 4);
  put32(out, 4);
  put32(out, padded + 8);
  put32(out, padded + 4);
  put32(out, claimed_size ? claimed_size : static_cast<std::uint32_t>(index.size()));
  out.insert(out.end(), index.begin(), index.end());
  out.resize(16 + padded, 0);
  return out;
}

// A stored zip's central directory and end record (no local headers: the reader never needs them).
Bytes zip(const std::vector<std::string>& names, std::uint32_t offset_shift = 0) {
  Bytes directory;
  for (const std::string& name : names) {
    put32(directory, 0x02014b50);
    directory.resize(directory.size() + 24, 0);  // versions, flags, method, times, crc, sizes
    put16(directory, static_cast<std::uint16_t>(name.size()));
    put16(directory, 0);                         // extra
    put16(directory, 0);                         // comment
    directory.resize(directory.size() + 12, 0);  // disk, attributes, local header offset
    directory.insert(directory.end(), name.begin(), name.end());
  }
  Bytes out(8, 0);  // stands for the local headers and data
  const auto offset = static_cast<std::uint32_t>(out.size());
  out.insert(out.end(), directory.begin(), directory.end());
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<std::uint16_t>(names.size()));
  put16(out, static_cast<std::uint16_t>(names.size()));
  put32(out, static_cast<std::uint32_t>(directory.size()));
  put32(out, offset + offset_shift);
  put16(out, 0);
  return out;
}

Result<std::vector<std::string>> members(const Bytes& bytes, env::ArchiveKind kind) {
  return env::archive_members(BoundedReader(bytes.data(), bytes.size()), kind);
}

}  // namespace

TEST_CASE("archives: the kind is the extension's, in any case") {
  CHECK(env::archive_kind("app.asar") == env::ArchiveKind::Asar);
  CHECK(env::archive_kind("torch-2.3.1-cp311-cp311-win_amd64.WHL") == env::ArchiveKind::Wheel);
  CHECK(env::archive_kind("cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip") == env::ArchiveKind::Zip);
  CHECK(!env::archive_kind("app.asar.unpacked"));
  CHECK(!env::archive_kind(".zip"));
}

TEST_CASE("archives: an asar lists its packed files, not those unpacked beside it or its links") {
  const auto listed =
      members(asar(R"({"files":{"main.js":{"size":1,"offset":"0"},"node_modules":{"files":{"a":{"files":{
      "a.dll":{"size":1,"offset":"1"},"a.node":{"size":1,"unpacked":true},"b.dll":{"link":"a.dll"}}}}}}})"),
              env::ArchiveKind::Asar);
  REQUIRE(listed);
  CHECK(*listed == std::vector<std::string>{"main.js", "node_modules/a/a.dll"});
}

TEST_CASE("archives: a damaged asar is an error, and its nesting is bounded") {
  CHECK(!members(Bytes{4, 0, 0, 0}, env::ArchiveKind::Asar));
  CHECK(!members(asar("{\"files\":{}}", 1u << 30), env::ArchiveKind::Asar));  // a string past the end
  CHECK(!members(asar("not json"), env::ArchiveKind::Asar));
  CHECK(!members(asar("{\"nofiles\":1}"), env::ArchiveKind::Asar));
  Bytes cut = asar(R"({"files":{"a.dll":{"size":1,"offset":"0"}}})");
  cut.resize(20);
  CHECK(!members(cut, env::ArchiveKind::Asar));
  // Folders nested a thousand deep: read to the bound, without recursion, and nothing below it listed.
  std::string deep = "{\"files\":";
  for (int i = 0; i < 1000; ++i) deep += "{\"d\":{\"files\":";
  deep += "{\"x.dll\":{\"size\":1,\"offset\":\"0\"}}";
  for (int i = 0; i < 1000; ++i) deep += "}}";
  deep += "}";
  const auto listed = members(asar(deep), env::ArchiveKind::Asar);
  REQUIRE(listed);
  CHECK(listed->empty());
  // Arrays nested far deeper than any folder tree are dropped while parsing, not built.
  CHECK(!members(asar(std::string(20000, '[') + std::string(20000, ']')), env::ArchiveKind::Asar));
  // A short index that names one long folder thousands of times would spell out more than 64 MB of paths.
  std::string wide = "{\"files\":{\"" + std::string(30000, 'n') + "\":{\"files\":{";
  for (int i = 0; i < 3000; ++i) wide += (i ? "," : "") + std::string("\"") + std::to_string(i) + "\":{}";
  wide += "}}}}";
  CHECK(!members(asar(wide), env::ArchiveKind::Asar));
}

TEST_CASE("archives: a zip lists its files, not its folders, with '/' between names") {
  const auto listed =
      members(zip({"ort/", "ort/lib/onnxruntime.dll", "ort\\bin\\DirectML.dll"}), env::ArchiveKind::Zip);
  REQUIRE(listed);
  CHECK(*listed == std::vector<std::string>{"ort/lib/onnxruntime.dll", "ort/bin/DirectML.dll"});
}

TEST_CASE("archives: a damaged zip is an error") {
  CHECK(!members(Bytes(30, 0), env::ArchiveKind::Zip));            // no end record
  CHECK(!members(zip({"a.dll"}, 1000), env::ArchiveKind::Wheel));  // directory past the end
  CHECK(!members(zip({"a.dll"}, 1), env::ArchiveKind::Zip));       // not at an entry
  Bytes cut = zip({"a.dll", "b.dll"});
  // The end record claims more entries than the directory holds.
  cut[cut.size() - 12] = 9;
  CHECK(!members(cut, env::ArchiveKind::Zip));
  // A ZIP64 locator whose record lies past the end.
  Bytes zip64 = zip({"a.dll"});
  const std::size_t end = zip64.size() - 22;
  for (std::size_t i = end + 16; i < end + 20; ++i) zip64[i] = 0xff;
  Bytes locator;
  put32(locator, 0x07064b50);
  put32(locator, 0);
  put32(locator, 0x7fffffff);
  put32(locator, 0);
  put32(locator, 1);
  zip64.insert(zip64.begin() + static_cast<std::ptrdiff_t>(end), locator.begin(), locator.end());
  CHECK(!members(zip64, env::ArchiveKind::Zip));
}
