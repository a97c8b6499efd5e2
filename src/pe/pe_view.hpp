#pragma once
// Internal to the PE reader: the parsed headers and the RVA -> file mapping every directory parser uses.
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/pe/image.hpp"
#include "dlldoctor/pe/reader.hpp"

namespace dlldoctor::pe {

// Sizes fixed by the PE/COFF spec, shared by the image reader and the import library reader.
inline constexpr std::uint64_t kCoffHeaderSize = 20;
inline constexpr std::uint64_t kSectionHeaderSize = 40;

struct DataDirectory {
  std::uint32_t rva = 0;
  std::uint32_t size = 0;
  bool present() const { return rva != 0 && size != 0; }
  // The loader finds the import, export and resource tables from the RVA alone: RtlImageDirectoryEntryToData
  // never checks the Size, which only bounds an export forwarder's string (corkami tiny.asm, dll.asm and
  // manifest.asm leave it 0, and their imports, exports and manifest work).
  bool addressed() const { return rva != 0; }
};

// Indices into the optional header's data directory array (PE spec, "Optional Header Data Directories").
namespace dir {
inline constexpr std::size_t kExport = 0;
inline constexpr std::size_t kImport = 1;
inline constexpr std::size_t kResource = 2;
inline constexpr std::size_t kCertificate = 4;
inline constexpr std::size_t kLoadConfig = 10;
inline constexpr std::size_t kBoundImport = 11;
inline constexpr std::size_t kDelayImport = 13;
inline constexpr std::size_t kClr = 14;
inline constexpr std::size_t kCount = 16;
}  // namespace dir

struct Section {
  std::uint32_t virtual_address = 0;
  std::uint32_t virtual_size = 0;
  std::uint32_t raw_offset = 0;
  std::uint32_t raw_size = 0;
};

// The file bytes the loader maps for a section: min(VirtualSize, SizeOfRawData) from its raw offset
// (VirtualSize 0 means the raw size), cut at the end of the file. Empty when none of them is in the file.
BoundedReader mapped_raw_data(const BoundedReader& file, const Section& section);

// Offsets and RVAs in messages, as every PE tool prints them.
inline std::string hex(std::uint64_t value) { return fmt::format("0x{:x}", value); }

class PeView {
 public:
  // `headers` holds the file's bytes, zero-filled up to `mapped_headers` when the file ends inside the
  // header area the loader maps (reader.cpp says when).
  PeView(BoundedReader file, BoundedReader headers, std::uint64_t mapped_headers, std::vector<Section> sections)
      : file_(file), headers_(headers), mapped_headers_(mapped_headers), sections_(std::move(sections)) {}

  // The bytes from `rva` to the end of the section (or header area) holding it. Bytes past a section's raw
  // data are zero in memory but absent from the file: they are not readable here.
  std::optional<BoundedReader> at_rva(std::uint64_t rva) const;

  // Why at_rva(rva) has no bytes, to follow "RVA 0x...": outside every section, or inside a section whose
  // raw data lies past the end of the file (a copy cut short).
  std::string why_unreadable(std::uint64_t rva) const;

  const BoundedReader& file() const { return file_; }

  // A NUL-terminated name (a DLL or function name, a forwarder) `offset` bytes into the data at `rva`, at
  // most `max` bytes, copied only while the file's name budget lasts: nullopt when unreadable or when the
  // budget is spent (text_budget_spent() tells which). Every distinct name sits in the file once, so the
  // names of a real file take at most its size; a table whose 2^20 pointers all point at one 4 KiB name (a
  // 6 MB file asking for 4.3 GB of copies) stops at the budget, and so does one whose pointers all point
  // at a stretch without an end (each scan is charged what it looked at).
  std::optional<std::string> name_at(std::uint64_t rva, std::uint64_t offset, std::size_t max) const;
  // The same name in place, for a caller that copies it where it wants (counted against the budget alike).
  std::optional<std::string_view> name_view_at(std::uint64_t rva, std::uint64_t offset, std::size_t max) const;
  bool text_budget_spent() const { return text_spent_; }

 private:
  // The section whose mapped raw data covers rva, if any.
  const Section* section_of(std::uint64_t rva) const;
  // Takes `bytes` from the name budget; false, and the budget spent, when they are more than is left.
  bool spend_text(std::uint64_t bytes) const;

  // Bytes of names the file's tables may still make the reader copy or scan, all tables together (mutable: the view
  // is the one thing every directory parser shares). Sixteen times the file and 1 MiB: a real file needs at
  // most its size, and the hostile shapes the import limits already stop (65,536 functions of descriptors
  // that share one thunk array, 4,096 DLLs) keep their own warnings (tests/malformed).
  static constexpr std::uint64_t kTextBudgetPerByte = 16;
  static constexpr std::uint64_t kTextBudgetFloor = 1 << 20;

  BoundedReader file_;
  BoundedReader headers_;
  std::uint64_t mapped_headers_;
  std::vector<Section> sections_;
  mutable std::uint64_t text_left_ = kTextBudgetPerByte * file_.size() + kTextBudgetFloor;
  mutable bool text_spent_ = false;
};

// Directory parsers, each filling its part of the image or adding warnings. Defined in the .cpp files
// named after them.
void read_imports(const PeView& view, const DataDirectory& directory, const ReadLimits& limits, Image& image);
void read_delay_imports(const PeView& view, const DataDirectory& directory, const ReadLimits& limits, Image& image);
void read_bound_imports(const PeView& view, const DataDirectory& directory, const ReadLimits& limits, Image& image);
void read_exports(const PeView& view, const DataDirectory& directory, const ReadLimits& limits, Image& image);
void read_resources(const PeView& view, const DataDirectory& directory, const ReadLimits& limits, Image& image);
// The machine the image runs as: ARM64EC or ARM64X when the load config marks the header's AMD64 or ARM64
// as such (load_config.cpp).
// Image::named_in_data, from the file's read-only data sections (data_names.cpp). Runs after the import and
// export directories, whose names it leaves out.
// False when `reads` found the file shorter than `file` (it shrank while it was read).
bool read_names_in_data(const BoundedReader& file, const FileReads& reads, const ReadLimits& limits, Image& image);
std::uint16_t hybrid_machine(const PeView& view, const DataDirectory& directory, std::uint16_t header_machine,
                             Image& image);

}  // namespace dlldoctor::pe
