// Headers and the RVA mapping. Layout and field offsets: Microsoft "PE Format" specification.
#include "dlldoctor/pe/reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/mapped_file.hpp"
#include "core/shrink_guard.hpp"
#include "pe/pe_view.hpp"

namespace dlldoctor::pe {

namespace {
// The loader maps min(VirtualSize, SizeOfRawData) bytes from the file; VirtualSize 0 means "use the raw
// size" (old linkers).
std::uint64_t readable_size(const Section& s) {
  return s.virtual_size == 0 ? s.raw_size : std::min(s.virtual_size, s.raw_size);
}
}  // namespace

const Section* PeView::section_of(std::uint64_t rva) const {
  for (const Section& s : sections_) {
    if (rva >= s.virtual_address && rva - s.virtual_address < readable_size(s)) return &s;
  }
  return nullptr;
}

BoundedReader mapped_raw_data(const BoundedReader& file, const Section& section) {
  const std::uint64_t end =
      std::min<std::uint64_t>(std::uint64_t{section.raw_offset} + readable_size(section), file.size());
  if (section.raw_offset >= end) return {};
  return *file.sub(section.raw_offset, end - section.raw_offset);
}

std::optional<BoundedReader> PeView::at_rva(std::uint64_t rva) const {
  if (const Section* s = section_of(rva)) {
    const BoundedReader data = mapped_raw_data(file_, *s);
    const std::uint64_t offset = rva - s->virtual_address;
    if (offset >= data.size()) return std::nullopt;
    return data.sub(offset, data.size() - offset);
  }
  // Headers are mapped at RVA 0 (the bound import table usually lives there).
  const std::uint64_t header_end = std::min<std::uint64_t>(mapped_headers_, headers_.size());
  if (rva < header_end) return headers_.sub(rva, header_end - rva);
  return std::nullopt;
}

std::optional<std::string_view> PeView::name_view_at(std::uint64_t rva, std::uint64_t offset, std::size_t max) const {
  if (text_spent_) return std::nullopt;  // no more copies, not even one to throw away
  auto at = at_rva(rva);
  if (!at) return std::nullopt;
  auto name = at->c_string_view(offset, max);
  if (!name) {
    // A scan that found no end costs what it looked at: a table of pointers at one unterminated stretch
    // would otherwise cost a scan of it each, and names may be long (ReadLimits::max_name_length).
    spend_text(offset < at->size() ? std::min<std::uint64_t>(at->size() - offset, max) : 0);
    return std::nullopt;
  }
  if (!spend_text(name->size() + 1)) return std::nullopt;
  return name;
}

bool PeView::spend_text(std::uint64_t bytes) const {
  if (bytes > text_left_) {
    text_left_ = 0;
    text_spent_ = true;
    return false;
  }
  text_left_ -= bytes;
  return true;
}

std::optional<std::string> PeView::name_at(std::uint64_t rva, std::uint64_t offset, std::size_t max) const {
  auto name = name_view_at(rva, offset, max);
  if (!name) return std::nullopt;
  return std::string(*name);
}

std::string PeView::why_unreadable(std::uint64_t rva) const {
  const Section* s = section_of(rva);
  if (!s) return "is outside every section";
  return fmt::format("is at file offset {}, past the end of the file ({} bytes): the file is cut short",
                     hex(std::uint64_t{s->raw_offset} + (rva - s->virtual_address)), file_.size());
}

namespace {

constexpr std::uint16_t kMzSignature = 0x5A4D;      // "MZ"
constexpr std::uint32_t kPeSignature = 0x00004550;  // "PE\0\0"
constexpr std::uint16_t kPe32Magic = 0x10b;
constexpr std::uint16_t kPe32PlusMagic = 0x20b;
constexpr std::uint16_t kFileDll = 0x2000;
constexpr std::uint16_t kWinCertTypePkcsSignedData = 0x0002;
constexpr std::uint64_t kPageSize = 0x1000;
constexpr std::uint32_t kSector = 0x200;
// Real header areas are a page or two, and tiny PEs' whole images a few hundred bytes; a hostile
// SizeOfHeaders or SizeOfImage gets no bigger zero-filled copy than this.
constexpr std::uint64_t kMaxZeroFilledHeaders = 1u << 18;

std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  return alignment == 0 ? value : (value + alignment - 1) / alignment * alignment;
}

// Whether the file holds what the loader reads of it when it creates the image section: a page-aligned
// image's SizeOfHeaders bytes, and the raw data of the section that lies last in the file, up to its
// VirtualSize rounded up to SectionAlignment. Only that last section is held to the end of the file: an
// earlier one may claim raw bytes past it and the image still loads (corkami bigSoRD.asm, "not in last
// section"), while a copy cut short always loses its tail, the last section's data. A flat image
// (`flat`: SectionAlignment below a page) is mapped as one zero-filled piece and is never short
// (corkami maxsec_lowaligW7.asm ends 8 bytes before its last section and loads). The certificate table is
// not part of the image and the loader never reads it (corkami maxvals.asm points it past the file).
std::optional<CutShort> cut_short(const Image& image, bool flat, std::uint64_t header_size,
                                  std::uint32_t section_alignment) {
  if (flat) return std::nullopt;
  CutShort cut{header_size, image.file_size, ""};
  if (header_size > image.file_size) cut.first_cut = fmt::format("the header area ends at byte {}", header_size);
  const SectionInfo* last = nullptr;
  std::uint64_t last_end = 0;
  for (const SectionInfo& s : image.sections) {
    const std::uint64_t raw = s.virtual_size == 0
                                  ? s.raw_size
                                  : std::min<std::uint64_t>(s.raw_size, align_up(s.virtual_size, section_alignment));
    if (raw == 0) continue;
    const std::uint64_t end = std::uint64_t{s.raw_offset} + raw;
    if (!last || s.raw_offset > last->raw_offset || (s.raw_offset == last->raw_offset && end > last_end)) {
      last = &s;
      last_end = end;
    }
  }
  if (last) {
    cut.described_size = std::max(cut.described_size, last_end);
    if (cut.first_cut.empty() && last_end > image.file_size) {
      cut.first_cut =
          fmt::format("section {} ends at byte {}", last->name.empty() ? std::string("#?") : last->name, last_end);
    }
  }
  if (cut.described_size <= image.file_size) return std::nullopt;
  return cut;
}

// The certificate directory holds a file offset, not an RVA, and is not mapped by the loader.
void read_certificate(const BoundedReader& file, const DataDirectory& directory, Image& image) {
  if (!directory.present()) return;
  auto table = file.sub(directory.rva, directory.size);
  if (!table) {
    image.warnings.push_back(fmt::format("certificate table: offset {} size {} is past the end of the file",
                                         hex(directory.rva), directory.size));
    return;
  }
  // WIN_CERTIFICATE: dwLength, wRevision, wCertificateType.
  auto length = table->u32(0);
  auto type = table->u16(6);
  if (!length || !type || *length < 8 || *length > directory.size) {
    image.warnings.push_back("certificate table: malformed WIN_CERTIFICATE header");
    return;
  }
  image.is_signed = *type == kWinCertTypePkcsSignedData;
}

}  // namespace

Result<Image> read_image(const BoundedReader& file, const ReadParts& parts, const ReadLimits& limits,
                         const FileReads& reads) {
  if (file.size() < 0x40)
    return Error{fmt::format("not a PE file: {} bytes is too small for a DOS header", file.size())};
  if (*file.u16(0) != kMzSignature) return Error{"not a PE file: no MZ signature"};
  const std::uint32_t pe_offset = *file.u32(0x3c);
  auto signature = file.u32(pe_offset);
  if (!signature)
    return Error{fmt::format("not a PE file: PE header offset {} is past the end of the file", hex(pe_offset))};
  if (*signature != kPeSignature)
    return Error{fmt::format("not a PE file: no PE signature at offset {}", hex(pe_offset))};

  const std::uint64_t coff = std::uint64_t{pe_offset} + 4;
  if (!file.contains(coff, kCoffHeaderSize)) return Error{"truncated PE file: COFF header is cut off"};
  Image image;
  image.machine = *file.u16(coff);
  const std::uint16_t section_count = *file.u16(coff + 2);
  image.timestamp = *file.u32(coff + 4);
  const std::uint16_t optional_size = *file.u16(coff + 16);
  image.characteristics = *file.u16(coff + 18);
  image.is_dll = (image.characteristics & kFileDll) != 0;
  image.file_size = file.size();

  // The loader reads the optional header's fields at their fixed offsets whatever SizeOfOptionalHeader
  // says; that field only locates the section table (corkami tiny.asm: SizeOfOptionalHeader 0, no
  // sections). The fields that say how much of the file is mapped as headers must be in the file.
  const std::uint64_t opt = coff + kCoffHeaderSize;
  auto magic = file.u16(opt);
  auto section_alignment = file.u32(opt + 32);
  auto size_of_image = file.u32(opt + 56);
  auto size_of_headers = file.u32(opt + 60);
  if (!magic || !section_alignment || !size_of_image || !size_of_headers)
    return Error{"truncated PE file: optional header is cut off"};
  if (*magic != kPe32Magic && *magic != kPe32PlusMagic)
    return Error{fmt::format("not a PE image: unknown optional header magic {}", hex(*magic))};

  // What the loader maps as headers: with SectionAlignment below the page size the whole image is one
  // mapping of the file, the pages holding SizeOfImage bytes (corkami's tiny PEs, SectionAlignment 4; in
  // tinyXP.asm and tinyW7.asm SizeOfImage is below the file's size, and the imports lie past it in the
  // same page); otherwise the pages
  // holding SizeOfHeaders bytes (whole pages: corkami foldedhdr.asm keeps its NT headers past a 0x2c-byte
  // SizeOfHeaders). Bytes of that mapping past the end of the file read as zero, so a file that ends inside
  // it is read from a zero-filled copy (tiny PEs whose optional header runs past the end of the file).
  const bool flat = *section_alignment < kPageSize;
  const std::uint64_t mapped_headers = align_up(flat ? *size_of_image : *size_of_headers, kPageSize);
  std::vector<std::uint8_t> zero_filled;
  BoundedReader headers = file;
  if (file.size() < mapped_headers && file.size() < kMaxZeroFilledHeaders) {
    zero_filled.assign(std::min(mapped_headers, kMaxZeroFilledHeaders), 0);
    std::copy_n(file.data(), file.size(), zero_filled.begin());
    headers = BoundedReader(zero_filled.data(), zero_filled.size());
  }
  // Only the rounding up to a page is ordinary; a file that ends before the headers it declares is worth a word.
  const std::uint64_t declared_headers = flat ? *size_of_image : *size_of_headers;
  if (!zero_filled.empty() && file.size() < declared_headers) {
    image.warnings.push_back(
        fmt::format("headers: the file ends at byte {}, inside the {} bytes the loader maps as headers; the rest "
                    "reads as zeros",
                    file.size(), declared_headers));
  }

  const BoundedReader optional_header = *headers.sub(opt, headers.size() - opt);
  std::uint64_t directories_at = 0;
  std::uint64_t rva_count_at = 0;
  if (*magic == kPe32Magic) {
    image.format = Format::Pe32;
    directories_at = 96;
    rva_count_at = 92;
    image.image_base = optional_header.u32(28).value_or(0);
  } else {
    image.format = Format::Pe32Plus;
    directories_at = 112;
    rva_count_at = 108;
    image.image_base = optional_header.u64(24).value_or(0);
  }
  auto rva_count = optional_header.u32(rva_count_at);
  auto subsystem = optional_header.u16(68);
  auto entry_point = optional_header.u32(16);
  if (!rva_count || !subsystem || !entry_point) return Error{"truncated PE file: optional header is cut off"};
  image.entry_point = *entry_point;
  image.linker_major = *optional_header.u8(2);
  image.linker_minor = *optional_header.u8(3);
  image.subsystem = *subsystem;

  const std::uint32_t file_alignment = optional_header.u32(36).value_or(0);
  const std::uint64_t table = opt + optional_size;
  std::vector<Section> sections;
  sections.reserve(section_count);
  for (std::uint64_t i = 0; i < section_count; ++i) {
    auto header = headers.sub(table + kSectionHeaderSize * i, kSectionHeaderSize);
    if (!header) {
      image.warnings.push_back(
          fmt::format("section table: only {} of {} section headers are inside the file", i, section_count));
      break;
    }
    // The loader reads a section from PointerToRawData rounded down to a 512-byte sector when FileAlignment
    // is at least that (corkami duphead.asm; pefile's adjust_FileAlignment): an offset 0x1ff past a section's
    // real start still maps it. Smaller alignments (the flat images) take it as stored.
    const std::uint32_t stored_raw = *header->u32(20);
    const std::uint32_t raw = file_alignment >= kSector ? stored_raw & ~(kSector - 1) : stored_raw;
    sections.push_back(Section{*header->u32(12), *header->u32(8), raw, *header->u32(16)});
    std::string name;
    for (std::uint64_t c = 0; c < 8 && *header->u8(c) != 0; ++c) name += static_cast<char>(*header->u8(c));
    image.sections.push_back(SectionInfo{std::move(name), sections.back().virtual_address, sections.back().virtual_size,
                                         sections.back().raw_offset, sections.back().raw_size, *header->u32(36)});
  }
  const PeView view(file, headers, mapped_headers, sections);

  // The loader finds the data directories in the mapped image, where a section mapped over the end of the
  // header page replaces them (corkami foldedhdr.asm); headers past that mapping are read from the file.
  // NumberOfRvaAndSizes is untrusted: the loader reads at most 16.
  std::array<DataDirectory, dir::kCount> directories{};
  const std::uint64_t directory_count = std::min<std::uint64_t>(*rva_count, dir::kCount);
  for (std::uint64_t i = 0; i < directory_count; ++i) {
    const std::uint64_t at = opt + directories_at + 8 * i;
    auto entry = view.at_rva(at);
    if (!entry || !entry->contains(0, 8)) entry = headers.sub(at, 8);
    if (!entry) break;
    directories[i].rva = *entry->u32(0);
    directories[i].size = *entry->u32(4);
  }
  image.machine = hybrid_machine(view, directories[dir::kLoadConfig], image.machine, image);

  if (parts.imports) {
    read_imports(view, directories[dir::kImport], limits, image);
    read_delay_imports(view, directories[dir::kDelayImport], limits, image);
    read_bound_imports(view, directories[dir::kBoundImport], limits, image);
  }
  if (parts.exports) read_exports(view, directories[dir::kExport], limits, image);
  if (parts.resources) read_resources(view, directories[dir::kResource], limits, image);
  if (parts.named_in_data && !read_names_in_data(file, reads, limits, image)) return Error{kShrankWhileRead};
  read_certificate(file, directories[dir::kCertificate], image);
  image.has_clr = directories[dir::kClr].present();
  image.cut_short = cut_short(image, flat, *size_of_headers, *section_alignment);
  return image;
}

Result<Image> read_image_file(const std::string& path, const ReadParts& parts, const ReadLimits& limits) {
  auto mapped = MappedFile::open(path);
  if (!mapped) return mapped.error();
  if (mapped->size() == 0) return Error{"not a PE file: the file is empty"};
  const ShrinkGuard guard(mapped->bytes());
  const MappedFile& file = *mapped;
  auto image = read_image(
      mapped->bytes(), parts, limits,
      [&file](std::uint64_t offset, std::uint8_t* out, std::size_t size) { return file.read_at(offset, out, size); });
  if (guard.shrank()) return Error{kShrankWhileRead};
  return image;
}

}  // namespace dlldoctor::pe
