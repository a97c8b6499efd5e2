// DLL names in a module's read-only data: the names its code passes to LoadLibrary, which no import table
// holds (onnxruntime's lazy cudnn64_9.dll and cuFFT loads, DOMAIN.md 2b; the CUDA runtime's nvcuda.dll).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_set>

#include "dlldoctor/core/dll_name.hpp"
#include "pe/pe_view.hpp"

namespace dlldoctor::pe {
namespace {

constexpr std::uint32_t kScnCntCode = 0x00000020;
constexpr std::uint32_t kScnCntInitializedData = 0x00000040;
constexpr std::uint32_t kScnMemExecute = 0x20000000;
constexpr std::uint32_t kScnMemWrite = 0x80000000;

constexpr std::uint64_t kMinName = 5;  // "x.dll"
constexpr std::uint64_t kMaxName = 64;
constexpr char kSuffix[] = ".dll";
constexpr std::uint64_t kSuffixLength = 4;
// How far name_at looks before and after a '.': before, at most 122 bytes (the 60 UTF-16 units a name has
// before its suffix, and the unit before them), given a margin; after, the suffix and the unit after it. A
// piece read from a file carries this much of its neighbours.
constexpr std::uint64_t kLookBehind = 2 * kMaxName + 4;
constexpr std::uint64_t kLookAhead = 2 * kSuffixLength + 2;
constexpr std::size_t kFilePiece = 256 * 1024;  // fits the cache; larger pieces were slower (PERFORMANCE.md)

// The sections compilers put string literals in: .rdata (MSVC, lld, GNU ld) and .rodata (which Wine's
// builds keep apart). Chosen by name as well as by flags, because other read-only data is either huge and
// opaque (NVIDIA's .nv_fatb, hundreds of MB) or full of names nothing loads by code: the resources hold
// the file's OriginalFilename, .edata the export name, debug sections source paths.
bool holds_literals(const SectionInfo& section) {
  if (section.name != ".rdata" && section.name != ".rodata") return false;
  const std::uint32_t flags = section.characteristics;
  return (flags & kScnCntInitializedData) != 0 && (flags & (kScnCntCode | kScnMemExecute | kScnMemWrite)) == 0;
}

bool is_name_char(std::uint32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == '+';
}

// Before a run, these make it part of a pattern rather than a name: "cudnn64_%d.dll", "{}64.dll", "*.dll".
bool is_placeholder(std::uint32_t c) { return c == '%' || c == '}' || c == '*' || c == '?'; }

std::uint32_t ascii_lower(std::uint32_t c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

// The code unit of `width` bytes (1: ASCII, 2: UTF-16LE) at byte `at`; nullopt outside the bytes.
std::optional<std::uint32_t> unit(const BoundedReader& bytes, std::uint64_t at, std::uint64_t width) {
  if (width == 1) return bytes.u8(at);
  return bytes.u16(at);
}

bool holds_suffix(const BoundedReader& bytes, std::uint64_t dot, std::uint64_t width) {
  for (std::uint64_t i = 0; i < kSuffixLength; ++i) {
    auto c = unit(bytes, dot + i * width, width);
    if (!c || ascii_lower(*c) != static_cast<std::uint32_t>(kSuffix[i])) return false;
  }
  // "x.dll.mui" and "x.dllx" are other files.
  auto next = unit(bytes, dot + kSuffixLength * width, width);
  return !next || !is_name_char(*next);
}

// The name whose ".dll" starts at byte `dot`, in units of `width` bytes: the run of name characters before
// it, which stops at a path separator, so "C:\cuda\bin\cufft64_11.dll" gives "cufft64_11.dll".
std::optional<std::string> name_at(const BoundedReader& bytes, std::uint64_t dot, std::uint64_t width) {
  if (!holds_suffix(bytes, dot, width)) return std::nullopt;
  std::uint64_t start = dot;
  while (start >= width && (dot - start) / width + kSuffixLength < kMaxName) {
    auto c = unit(bytes, start - width, width);
    if (!c || !is_name_char(*c)) break;
    start -= width;
  }
  if (start >= width) {
    // A name character here means the run is longer than any name.
    auto before = unit(bytes, start - width, width);
    if (before && (is_name_char(*before) || is_placeholder(*before))) return std::nullopt;
    // A byte above 0x7f is binary data, not text, and the name characters after it may be too: onnxruntime.dll
    // has "8SHELL32.dll" after a table of 0x80000038 values.
    if (width == 1 && before && *before > 0x7f) return std::nullopt;
    // "abc\0" before L"foo.dll" reads as the units L"c" L"foo.dll": text in the two bytes before says the
    // first unit is the end of ASCII text. One letter alone is as likely the high byte of binary data
    // (onnxruntime.dll has 0x650b before L"KERNEL32.DLL").
    if (width == 2 && start < dot && is_name_char(*bytes.u8(start - 1)) && is_name_char(*bytes.u8(start - 2)))
      start += width;
  }
  const std::uint64_t length = (dot - start) / width + kSuffixLength;
  if (length < kMinName) return std::nullopt;
  std::string name;
  name.reserve(length);
  for (std::uint64_t i = 0; i < length; ++i) name += static_cast<char>(*unit(bytes, start + i * width, width));
  return name;
}

class NameCollector {
 public:
  explicit NameCollector(std::size_t max_names) : max_names_(max_names) {}

  // A name that is not listed even when found (one the module's tables already hold).
  void exclude(const std::string& name) { seen_.insert(DllName(name)); }

  // memchr finds the candidates, so the cost is that of reading the bytes once; only a '.' is looked at
  // further, in both encodings (they cannot both match at one byte). Only dots in [from, to) count: the
  // bytes around them are context.
  void scan(const BoundedReader& bytes, std::size_t from, std::size_t to) {
    const std::uint8_t* begin = bytes.data();
    for (std::size_t at = from; at < to;) {
      const void* hit = std::memchr(begin + at, '.', to - at);
      if (!hit) return;
      const std::size_t dot = static_cast<std::size_t>(static_cast<const std::uint8_t*>(hit) - begin);
      for (const std::uint64_t width : {std::uint64_t{1}, std::uint64_t{2}}) {
        if (auto name = name_at(bytes, dot, width)) add(std::move(*name));
      }
      at = dot + 1;
    }
  }
  void scan(const BoundedReader& bytes) { scan(bytes, 0, bytes.size()); }

  // The same over `size` bytes of a file at `offset`, a piece at a time, each read with the bytes a name at
  // its edges needs; the names are those of one pass over the whole range. False when the file ended early.
  bool scan(const FileReads& reads, std::uint64_t offset, std::uint64_t size, std::size_t piece) {
    // Not zeroed: every byte scanned is read first.
    const auto capacity = static_cast<std::size_t>(kLookBehind + std::min<std::uint64_t>(piece, size) + kLookAhead);
    const std::unique_ptr<std::uint8_t[]> buffer(new std::uint8_t[capacity]);
    for (std::uint64_t at = 0; at < size; at += piece) {
      const std::uint64_t first = at >= kLookBehind ? at - kLookBehind : 0;
      const std::uint64_t end = std::min(size, at + piece + kLookAhead);
      const auto want = static_cast<std::size_t>(end - first);
      if (reads(offset + first, buffer.get(), want) != want) return false;
      const auto own_end = static_cast<std::size_t>(std::min(size, at + piece) - first);
      scan(BoundedReader(buffer.get(), want), static_cast<std::size_t>(at - first), own_end);
    }
    return true;
  }

  bool truncated() const { return truncated_; }
  std::vector<std::string> take() { return std::move(names_); }

 private:
  void add(std::string name) {
    DllName key(name);
    if (seen_.count(key) != 0) return;
    if (names_.size() == max_names_) {
      truncated_ = true;
      return;
    }
    seen_.insert(std::move(key));
    names_.push_back(std::move(name));
  }

  std::size_t max_names_;
  std::vector<std::string> names_;
  std::unordered_set<DllName> seen_;
  bool truncated_ = false;
};

}  // namespace

std::vector<std::string> dll_names_in(const BoundedReader& bytes, std::size_t max_names) {
  NameCollector collector(max_names);
  collector.scan(bytes);
  return collector.take();
}

std::optional<std::vector<std::string>> dll_names_in(const FileReads& reads, std::uint64_t offset, std::uint64_t size,
                                                     std::size_t max_names, std::size_t piece) {
  NameCollector collector(max_names);
  if (!collector.scan(reads, offset, size, piece)) return std::nullopt;
  return collector.take();
}

bool read_names_in_data(const BoundedReader& file, const FileReads& reads, const ReadLimits& limits, Image& image) {
  NameCollector collector(limits.max_names_in_data);
  for (const auto& dll : image.imports) collector.exclude(dll.dll);
  for (const auto& dll : image.delay_imports) collector.exclude(dll.dll);
  if (image.exports) collector.exclude(image.exports->dll_name);
  for (const SectionInfo& s : image.sections) {
    if (!holds_literals(s)) continue;
    const BoundedReader data =
        mapped_raw_data(file, Section{s.virtual_address, s.virtual_size, s.raw_offset, s.raw_size});
    // A section of a few pages costs less through the mapping than a read.
    if (!reads || data.size() < kFilePiece) {
      collector.scan(data);
    } else if (!collector.scan(reads, static_cast<std::uint64_t>(data.data() - file.data()), data.size(), kFilePiece)) {
      return false;
    }
  }
  if (collector.truncated()) {
    image.warnings.push_back(
        fmt::format("named in data: more than {} DLL names; the rest are not listed", limits.max_names_in_data));
  }
  image.named_in_data = collector.take();
  return true;
}

}  // namespace dlldoctor::pe
