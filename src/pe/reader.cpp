// Headers and the RVA mapping. Layout and field offsets: Microsoft "PE Format" specification.
#include "dlldoctor/pe/reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "dlldoctor/core/mapped_file.hpp"
#include "pe/pe_view.hpp"

namespace dlldoctor::pe {

std::optional<BoundedReader> PeView::at_rva(std::uint64_t rva) const {
  for (const Section& s : sections_) {
    // The loader maps min(VirtualSize, SizeOfRawData) bytes from the file; VirtualSize 0 means "use the
    // raw size" (old linkers).
    const std::uint64_t mapped = s.virtual_size == 0 ? s.raw_size : std::min(s.virtual_size, s.raw_size);
    if (rva >= s.virtual_address && rva - s.virtual_address < mapped) {
      const std::uint64_t offset = std::uint64_t{s.raw_offset} + (rva - s.virtual_address);
      const std::uint64_t end = std::min<std::uint64_t>(std::uint64_t{s.raw_offset} + mapped, file_.size());
      if (offset >= end) return std::nullopt;
      return file_.sub(offset, end - offset);
    }
  }
  // Headers are mapped at RVA 0 (the bound import table usually lives there).
  const std::uint64_t header_end = std::min<std::uint64_t>(size_of_headers_, file_.size());
  if (rva < header_end) return file_.sub(rva, header_end - rva);
  return std::nullopt;
}

namespace {

constexpr std::uint16_t kMzSignature = 0x5A4D;      // "MZ"
constexpr std::uint32_t kPeSignature = 0x00004550;  // "PE\0\0"
constexpr std::uint16_t kPe32Magic = 0x10b;
constexpr std::uint16_t kPe32PlusMagic = 0x20b;
constexpr std::uint16_t kFileDll = 0x2000;
constexpr std::uint64_t kCoffHeaderSize = 20;
constexpr std::uint64_t kSectionHeaderSize = 40;
constexpr std::uint16_t kWinCertTypePkcsSignedData = 0x0002;

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

Result<Image> read_image(const BoundedReader& file, const ReadParts& parts, const ReadLimits& limits) {
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

  const std::uint64_t opt = coff + kCoffHeaderSize;
  auto optional_header = file.sub(opt, optional_size);
  if (!optional_header) return Error{"truncated PE file: optional header is cut off"};
  auto magic = optional_header->u16(0);
  if (!magic) return Error{"not a PE image: no optional header (an object file?)"};
  std::uint64_t directories_at = 0;
  std::uint64_t rva_count_at = 0;
  if (*magic == kPe32Magic) {
    image.format = Format::Pe32;
    directories_at = 96;
    rva_count_at = 92;
    image.image_base = optional_header->u32(28).value_or(0);
  } else if (*magic == kPe32PlusMagic) {
    image.format = Format::Pe32Plus;
    directories_at = 112;
    rva_count_at = 108;
    image.image_base = optional_header->u64(24).value_or(0);
  } else {
    return Error{fmt::format("not a PE image: unknown optional header magic {}", hex(*magic))};
  }
  auto rva_count = optional_header->u32(rva_count_at);
  auto size_of_headers = optional_header->u32(60);
  auto subsystem = optional_header->u16(68);
  auto entry_point = optional_header->u32(16);
  if (!rva_count || !size_of_headers || !subsystem || !entry_point)
    return Error{"truncated PE file: optional header is too short"};
  image.entry_point = *entry_point;
  image.linker_major = *optional_header->u8(2);
  image.linker_minor = *optional_header->u8(3);
  image.subsystem = *subsystem;
  image.file_size = file.size();

  // NumberOfRvaAndSizes is untrusted: the loader reads at most 16, and only those inside the header.
  std::array<DataDirectory, dir::kCount> directories{};
  const std::uint64_t directory_count = std::min<std::uint64_t>(
      {*rva_count, dir::kCount, (optional_size - std::min<std::uint64_t>(optional_size, directories_at)) / 8});
  for (std::uint64_t i = 0; i < directory_count; ++i) {
    directories[i].rva = *optional_header->u32(directories_at + 8 * i);
    directories[i].size = *optional_header->u32(directories_at + 8 * i + 4);
  }

  const std::uint64_t table = opt + optional_size;
  std::vector<Section> sections;
  sections.reserve(section_count);
  for (std::uint64_t i = 0; i < section_count; ++i) {
    auto header = file.sub(table + kSectionHeaderSize * i, kSectionHeaderSize);
    if (!header) {
      image.warnings.push_back(
          fmt::format("section table: only {} of {} section headers are inside the file", i, section_count));
      break;
    }
    sections.push_back(Section{*header->u32(12), *header->u32(8), *header->u32(20), *header->u32(16)});
    const auto* name = reinterpret_cast<const char*>(header->data());
    std::size_t name_length = 0;
    while (name_length < 8 && name[name_length] != '\0') ++name_length;
    image.sections.push_back(SectionInfo{std::string(name, name_length), sections.back().virtual_address,
                                         sections.back().virtual_size, sections.back().raw_offset,
                                         sections.back().raw_size});
  }
  const PeView view(file, *size_of_headers, std::move(sections));
  image.machine = hybrid_machine(view, directories[dir::kLoadConfig], image.machine, image);

  if (parts.imports) {
    read_imports(view, directories[dir::kImport], limits, image);
    read_delay_imports(view, directories[dir::kDelayImport], limits, image);
    read_bound_imports(view, directories[dir::kBoundImport], limits, image);
  }
  if (parts.exports) read_exports(view, directories[dir::kExport], limits, image);
  if (parts.resources) read_resources(view, directories[dir::kResource], limits, image);
  read_certificate(file, directories[dir::kCertificate], image);
  image.has_clr = directories[dir::kClr].present();
  return image;
}

Result<Image> read_image_file(const std::string& path, const ReadParts& parts, const ReadLimits& limits) {
  auto mapped = MappedFile::open(path);
  if (!mapped) return mapped.error();
  if (mapped->size() == 0) return Error{"not a PE file: the file is empty"};
  return read_image(mapped->bytes(), parts, limits);
}

}  // namespace dlldoctor::pe
