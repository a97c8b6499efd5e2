#pragma once
// Minimal PE32+ files made in memory for tests that need many or hostile ones: a DLL (or program) with
// one read-only section holding its import descriptors, its export table and, when asked for, a version
// resource. Nothing here is a real binary; the layout is the PE spec's, with every field the reader
// checks set as a linker would.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dlldoctor::test {

struct PeSpec {
  bool dll = true;
  std::uint16_t machine = 0x8664;                                         // AMD64
  std::vector<std::pair<std::string, std::vector<std::string>>> imports;  // DLL -> functions by name
  std::vector<std::string> exports;                                       // function names
  std::string export_name;  // the export directory's module name (default: none)
  // A hostile export table: this many name pointers, all at one name of `shared_name_length` bytes, each
  // naming the file's one function (a few MB of file that asks for gigabytes of copies).
  std::uint32_t shared_name_pointers = 0;
  std::uint32_t shared_name_length = 4095;
  // A VS_VERSIONINFO resource (RT_VERSION, id 1, language 0x409) whose VS_FIXEDFILEINFO carries this file
  // version, and the same product version: what the rule engine groups cuDNN's DLLs by.
  std::optional<std::array<std::uint16_t, 4>> file_version;
};

std::vector<std::uint8_t> build_pe(const PeSpec& spec);

}  // namespace dlldoctor::test
