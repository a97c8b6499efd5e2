// DLL names in data (pe::dll_names_in) on exact byte buffers: each buffer is a heap block of exactly its
// size, so a read one byte past a string at the very end is an AddressSanitizer error, not a pass.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "dlldoctor/pe/reader.hpp"

using dlldoctor::BoundedReader;
using dlldoctor::pe::dll_names_in;

namespace {

using Names = std::vector<std::string>;
using namespace std::string_literals;

std::vector<std::uint8_t> ascii(const std::string& text) { return {text.begin(), text.end()}; }

std::vector<std::uint8_t> utf16(const std::string& text) {
  std::vector<std::uint8_t> bytes;
  for (char c : text) {
    bytes.push_back(static_cast<std::uint8_t>(c));
    bytes.push_back(0);
  }
  return bytes;
}

std::vector<std::uint8_t> joined(std::initializer_list<std::vector<std::uint8_t>> parts) {
  std::vector<std::uint8_t> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

Names names_in(const std::vector<std::uint8_t>& bytes, std::size_t max_names = 100) {
  // A copy in a block of exactly the right size: std::vector may keep spare capacity past its end.
  auto exact = std::make_unique<std::uint8_t[]>(bytes.size());
  std::copy(bytes.begin(), bytes.end(), exact.get());
  return dll_names_in(BoundedReader(exact.get(), bytes.size()), max_names);
}

}  // namespace

TEST_CASE("ASCII and UTF-16 names, in order of first appearance across both, each once whatever its case") {
  const auto bytes = joined({ascii("\x01junk\0cudnn64_9.dll\0"s), utf16("cufft64_11.dll"), ascii("\0CUDNN64_9.DLL\0"s),
                             ascii("nvcuda.dll\0"s), utf16("CuFFT64_11.Dll")});
  CHECK(names_in(bytes) == Names{"cudnn64_9.dll", "cufft64_11.dll", "nvcuda.dll"});
}

TEST_CASE("a path before a name is dropped; quotes, spaces and separators end a name") {
  CHECK(names_in(ascii("C:\\cuda\\bin\\cublas64_12.dll")) == Names{"cublas64_12.dll"});
  CHECK(names_in(utf16("..\\lib/zlibwapi.dll")) == Names{"zlibwapi.dll"});
  CHECK(names_in(ascii("Could not load 'cudart64_110.dll': %s")) == Names{"cudart64_110.dll"});
  CHECK(names_in(ascii("a+b-c_d.e.dll")) == Names{"a+b-c_d.e.dll"});
  // ASCII text ending right before a wide name is not part of it, at either alignment.
  CHECK(names_in(joined({ascii("abc\0"s), utf16("foo.dll")})) == Names{"foo.dll"});
  CHECK(names_in(joined({ascii("\0abc\0"s), utf16("foo.dll")})) == Names{"foo.dll"});
  // One letter before a wide name is the high byte of binary data, as in onnxruntime.dll: the name keeps its
  // first letter.
  CHECK(names_in(joined({ascii("\x0b"
                               "e"),
                         utf16("KERNEL32.DLL")})) == Names{"KERNEL32.DLL"});
}

TEST_CASE("a name right after binary data is binary data too") {
  // onnxruntime.dll 1.30.0: a table of 0x80000038 values, then "SHELL32.dll", reads as "8SHELL32.dll".
  CHECK(names_in(ascii("\x38\x00\x00\x80\x38SHELL32.dll\0"s)).empty());
  CHECK(names_in(ascii("\0SHELL32.dll\0"s)) == Names{"SHELL32.dll"});
}

TEST_CASE("not names: patterns, other extensions, too short, too long") {
  CHECK(names_in(ascii("cudnn64_%d.dll")).empty());
  CHECK(names_in(ascii("cudnn_{}64_9.dll")).empty());
  CHECK(names_in(ascii("cudnn*.dll")).empty());
  CHECK(names_in(ascii("user32.dll.mui user32.dllx")).empty());
  CHECK(names_in(ascii("a.dl .dll")).empty());
  CHECK(names_in(ascii("\0x.dll"s)) == Names{"x.dll"});
  CHECK(names_in(ascii(std::string(60, 'a') + ".dll")) == Names{std::string(60, 'a') + ".dll"});
  CHECK(names_in(ascii(std::string(61, 'a') + ".dll")).empty());
  CHECK(names_in(utf16(std::string(61, 'a') + ".dll")).empty());
}

TEST_CASE("hostile bytes: names at the very start and end, cut suffixes, odd UTF-16 alignment, empty input") {
  CHECK(names_in(ascii("end.dll")) == Names{"end.dll"});
  CHECK(names_in(ascii("x\0cut.dl"s)).empty());
  CHECK(names_in(ascii("x\0cut."s)).empty());
  CHECK(names_in(utf16("wide.dll")) == Names{"wide.dll"});
  // The last unit's high byte is missing: the suffix is cut off.
  auto cut = utf16("wide.dll");
  cut.pop_back();
  CHECK(names_in(cut).empty());
  // UTF-16 at an odd offset (packed data) is still found, and ends at the buffer's end.
  CHECK(names_in(joined({ascii("\x7f"), utf16("odd.dll")})) == Names{"odd.dll"});
  CHECK(names_in(joined({ascii("\x7f"), utf16("..")})).empty());
  CHECK(names_in({}).empty());
  CHECK(names_in(ascii(std::string(1000, '.'))).empty());
}

TEST_CASE("read a piece at a time through the file, the names are those of one pass over the bytes") {
  // Bytes rich in edges: names of every length up to past the longest, both encodings, paths, patterns and
  // binary bytes before them, from a fixed seed so that a failure repeats.
  std::mt19937 random(28);
  const std::string alphabet =
      "aZ9_.-+%*\\/ \x80"
      "dlDL";
  std::vector<std::uint8_t> section;
  // Other files ("x.dllx"), decided by the unit after the suffix.
  for (const auto& piece : {ascii("one.dllx"), utf16("two.dllx"), ascii("three.dll"), utf16("four.dll")}) {
    section.insert(section.end(), piece.begin(), piece.end());
    section.push_back(0);
  }
  // Runs around the longest name (64 with ".dll"), which are only decided by the bytes far before the dot.
  for (std::size_t length = 50; length < 70; ++length) {
    for (const auto& piece : {ascii(std::string(length, 'x') + ".dll"), utf16(std::string(length, 'w') + ".DLL")}) {
      section.insert(section.end(), piece.begin(), piece.end());
      section.push_back(0);
    }
  }
  while (section.size() < 60000) {
    std::string text;
    for (auto length = random() % 80; length > 0; --length) text += alphabet[random() % alphabet.size()];
    text += random() % 2 ? ".dll" : ".DLL";
    const auto piece = random() % 3 == 0 ? utf16(text) : ascii(text);
    section.insert(section.end(), piece.begin(), piece.end());
    section.push_back(static_cast<std::uint8_t>(random() % 3 == 0 ? random() : 0));
  }
  const Names one_pass = names_in(section, 1u << 20);
  REQUIRE(one_pass.size() > 100);
  // The file: other bytes, then the section; only the section's bytes may be asked for.
  const std::uint64_t offset = 4096;
  const auto reads = [&](std::uint64_t at, std::uint8_t* out, std::size_t size) -> std::size_t {
    REQUIRE(at >= offset);
    REQUIRE(at + size <= offset + section.size());
    std::copy_n(section.begin() + static_cast<std::ptrdiff_t>(at - offset), size, out);
    return size;
  };
  for (const std::size_t piece : {1u, 2u, 3u, 7u, 64u, 131u, 255u, 4096u, 1u << 20}) {
    CAPTURE(piece);
    CHECK(dll_names_in(reads, offset, section.size(), 1u << 20, piece) == std::optional<Names>(one_pass));
  }
  CHECK(dll_names_in(reads, offset, section.size(), 3, 64) == std::optional<Names>(names_in(section, 3)));
  // A file that ends before the section does: no names, not some.
  const auto cut_reads = [&](std::uint64_t at, std::uint8_t* out, std::size_t size) -> std::size_t {
    const std::uint64_t end = offset + section.size() / 2;
    const std::size_t got = at >= end ? 0 : static_cast<std::size_t>(std::min<std::uint64_t>(size, end - at));
    std::copy_n(section.begin() + static_cast<std::ptrdiff_t>(at - offset), got, out);
    return got;
  };
  CHECK_FALSE(dll_names_in(cut_reads, offset, section.size(), 1u << 20, 4096).has_value());
}

TEST_CASE("at most max_names names") {
  const auto bytes = ascii("a1.dll b2.dll a1.dll c3.dll");
  CHECK(names_in(bytes, 2) == Names{"a1.dll", "b2.dll"});
  CHECK(names_in(bytes, 0).empty());
}
