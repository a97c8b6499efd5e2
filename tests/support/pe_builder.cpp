#include "support/pe_builder.hpp"

#include <algorithm>

namespace dlldoctor::test {
namespace {

constexpr std::uint32_t kSectionRva = 0x1000;
constexpr std::uint32_t kFileAlignment = 0x200;
constexpr std::uint32_t kSectionAlignment = 0x1000;
constexpr std::uint32_t kHeadersSize = 0x200;

std::uint32_t align_up(std::uint32_t value, std::uint32_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Little-endian writes into a buffer that grows as needed.
class Bytes {
 public:
  std::vector<std::uint8_t> data;
  std::uint32_t size() const { return static_cast<std::uint32_t>(data.size()); }
  void put(std::uint32_t at, std::uint64_t value, int width) {
    if (data.size() < at + static_cast<std::size_t>(width)) data.resize(at + static_cast<std::size_t>(width), 0);
    for (int i = 0; i < width; ++i)
      data[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value >> (8 * i));
  }
  std::uint32_t append_zeros(std::uint32_t count, std::uint32_t alignment = 1) {
    data.resize(align_up(size(), alignment), 0);
    const std::uint32_t at = size();
    data.resize(data.size() + count, 0);
    return at;
  }
  std::uint32_t append_text(const std::string& text, std::uint32_t alignment = 1) {
    const std::uint32_t at = append_zeros(static_cast<std::uint32_t>(text.size()) + 1, alignment);
    std::copy(text.begin(), text.end(), data.begin() + at);
    return at;
  }
};

}  // namespace

std::vector<std::uint8_t> build_pe(const PeSpec& spec) {
  // The section's contents; offsets in it plus kSectionRva are RVAs.
  Bytes section;
  section.append_zeros(16);  // a function body for every export to point at: never an import or export table
  std::uint32_t import_rva = 0;
  if (!spec.imports.empty()) {
    const std::uint32_t descriptors = section.append_zeros(20 * static_cast<std::uint32_t>(spec.imports.size() + 1), 4);
    import_rva = kSectionRva + descriptors;
    for (std::size_t d = 0; d < spec.imports.size(); ++d) {
      const auto& [dll, functions] = spec.imports[d];
      const std::uint32_t count = static_cast<std::uint32_t>(functions.size()) + 1;
      const std::uint32_t lookup = section.append_zeros(8 * count, 8);
      const std::uint32_t address = section.append_zeros(8 * count, 8);
      for (std::size_t f = 0; f < functions.size(); ++f) {
        const std::uint32_t hint = section.append_zeros(2, 2);
        section.append_text(functions[f]);
        section.put(lookup + 8 * static_cast<std::uint32_t>(f), kSectionRva + hint, 8);
        section.put(address + 8 * static_cast<std::uint32_t>(f), kSectionRva + hint, 8);
      }
      const std::uint32_t name = section.append_text(dll, 2);
      const std::uint32_t at = descriptors + 20 * static_cast<std::uint32_t>(d);
      section.put(at, kSectionRva + lookup, 4);
      section.put(at + 12, kSectionRva + name, 4);
      section.put(at + 16, kSectionRva + address, 4);
    }
  }
  std::uint32_t export_rva = 0, export_size = 0;
  const bool hostile = spec.shared_name_pointers > 0;
  if (!spec.exports.empty() || hostile) {
    std::vector<std::string> names = spec.exports;
    std::sort(names.begin(), names.end());
    const std::uint32_t functions = hostile ? 1 : static_cast<std::uint32_t>(names.size());
    const std::uint32_t name_count = hostile ? spec.shared_name_pointers : functions;
    const std::uint32_t directory = section.append_zeros(40, 4);
    const std::uint32_t address_table = section.append_zeros(4 * functions, 4);
    const std::uint32_t name_table = section.append_zeros(4 * name_count, 4);
    const std::uint32_t ordinal_table = section.append_zeros(2 * name_count, 2);
    for (std::uint32_t i = 0; i < functions; ++i) section.put(address_table + 4 * i, kSectionRva, 4);
    if (hostile) {
      const std::uint32_t shared = section.append_text(std::string(spec.shared_name_length, 'A'));
      for (std::uint32_t i = 0; i < name_count; ++i) section.put(name_table + 4 * i, kSectionRva + shared, 4);
    } else {
      for (std::uint32_t i = 0; i < name_count; ++i) {
        const std::uint32_t name = section.append_text(names[i]);
        section.put(name_table + 4 * i, kSectionRva + name, 4);
        section.put(ordinal_table + 2 * i, i, 2);
      }
    }
    std::uint32_t module_name = 0;
    if (!spec.export_name.empty()) module_name = kSectionRva + section.append_text(spec.export_name);
    section.put(directory + 12, module_name, 4);
    section.put(directory + 16, 1, 4);  // ordinal base
    section.put(directory + 20, functions, 4);
    section.put(directory + 24, name_count, 4);
    section.put(directory + 28, kSectionRva + address_table, 4);
    section.put(directory + 32, kSectionRva + name_table, 4);
    section.put(directory + 36, kSectionRva + ordinal_table, 4);
    export_rva = kSectionRva + directory;
    // Only the directory: a function address inside the range would read as a forwarder.
    export_size = 40;
  }
  std::uint32_t resource_rva = 0, resource_size = 0;
  if (spec.file_version) {
    // The resource tree as src/pe/resources.cpp walks it: type 16 (RT_VERSION) -> name 1 -> language 0x409
    // -> one data entry. A directory is 16 bytes of header then 8-byte entries; an entry's target is an
    // offset from the tree's start, with the high bit set for a subdirectory; the data entry holds an RVA.
    constexpr std::uint32_t kDirectorySize = 16 + 8, kSubdirectory = 0x80000000u;
    const std::uint32_t tree = section.append_zeros(3 * kDirectorySize + 16, 4);
    auto directory = [&](std::uint32_t at, std::uint32_t id, std::uint32_t target) {
      section.put(tree + at + 14, 1, 2);  // NumberOfIdEntries
      section.put(tree + at + 16, id, 4);
      section.put(tree + at + 20, target, 4);
    };
    const std::uint32_t data_entry = 3 * kDirectorySize;
    directory(0, 16, kSubdirectory | kDirectorySize);
    directory(kDirectorySize, 1, kSubdirectory | (2 * kDirectorySize));
    directory(2 * kDirectorySize, 0x409, data_entry);
    // VS_VERSIONINFO: wLength, wValueLength, wType (binary), L"VS_VERSION_INFO", padding to 4 bytes, then
    // the 52-byte VS_FIXEDFILEINFO; no StringFileInfo.
    const std::string key = "VS_VERSION_INFO";
    const std::uint32_t fixed_at = align_up(6 + 2 * (static_cast<std::uint32_t>(key.size()) + 1), 4);
    const std::uint32_t info_size = fixed_at + 52;
    const std::uint32_t info = section.append_zeros(info_size, 4);
    section.put(info, info_size, 2);
    section.put(info + 2, 52, 2);
    for (std::uint32_t i = 0; i < key.size(); ++i) section.put(info + 6 + 2 * i, static_cast<std::uint8_t>(key[i]), 2);
    const auto& version = *spec.file_version;
    const std::uint32_t most = std::uint32_t{version[0]} << 16 | version[1];
    const std::uint32_t least = std::uint32_t{version[2]} << 16 | version[3];
    const std::uint32_t fixed = info + fixed_at;
    section.put(fixed, 0xFEEF04BD, 4);             // dwSignature
    section.put(fixed + 4, 0x00010000, 4);         // dwStrucVersion 1.0
    section.put(fixed + 8, most, 4);               // dwFileVersionMS
    section.put(fixed + 12, least, 4);             // dwFileVersionLS
    section.put(fixed + 16, most, 4);              // dwProductVersionMS
    section.put(fixed + 20, least, 4);             // dwProductVersionLS
    section.put(fixed + 24, 0x3f, 4);              // dwFileFlagsMask
    section.put(fixed + 32, 0x40004, 4);           // dwFileOS: VOS_NT_WINDOWS32
    section.put(fixed + 36, spec.dll ? 2 : 1, 4);  // dwFileType: VFT_DLL or VFT_APP
    section.put(tree + data_entry, kSectionRva + info, 4);
    section.put(tree + data_entry + 4, info_size, 4);
    resource_rva = kSectionRva + tree;
    resource_size = info + info_size - tree;
  }
  const std::uint32_t virtual_size = std::max<std::uint32_t>(section.size(), 1);
  const std::uint32_t raw_size = align_up(virtual_size, kFileAlignment);
  section.data.resize(raw_size, 0);

  Bytes file;
  file.put(0, 0x5A4D, 2);  // "MZ"
  file.put(0x3c, 0x40, 4);
  file.put(0x40, 0x00004550, 4);  // "PE\0\0"
  constexpr std::uint32_t coff = 0x44, opt = coff + 20;
  file.put(coff, spec.machine, 2);
  file.put(coff + 2, 1, 2);  // one section
  file.put(coff + 16, 240, 2);
  file.put(coff + 18, spec.dll ? 0x2022 : 0x0022, 2);
  file.put(opt, 0x20b, 2);  // PE32+
  file.put(opt + 2, 14, 1);
  file.put(opt + 8, raw_size, 4);
  file.put(opt + 20, kSectionRva, 4);
  file.put(opt + 24, 0x180000000ull, 8);
  file.put(opt + 32, kSectionAlignment, 4);
  file.put(opt + 36, kFileAlignment, 4);
  file.put(opt + 40, 6, 2);
  file.put(opt + 48, 6, 2);
  file.put(opt + 56, kSectionRva + align_up(virtual_size, kSectionAlignment), 4);
  file.put(opt + 60, kHeadersSize, 4);
  file.put(opt + 68, spec.dll ? 2 : 3, 2);  // GUI for a DLL, console for a program
  file.put(opt + 70, 0x160, 2);
  file.put(opt + 72, 0x100000, 8);
  file.put(opt + 80, 0x1000, 8);
  file.put(opt + 88, 0x100000, 8);
  file.put(opt + 96, 0x1000, 8);
  file.put(opt + 108, 16, 4);
  file.put(opt + 112, export_rva, 4);
  file.put(opt + 116, export_size, 4);
  file.put(opt + 120, import_rva, 4);
  file.put(opt + 124, import_rva ? 20 * static_cast<std::uint32_t>(spec.imports.size() + 1) : 0, 4);
  file.put(opt + 128, resource_rva, 4);
  file.put(opt + 132, resource_size, 4);
  constexpr std::uint32_t table = opt + 240;
  const char name[8] = {'.', 'r', 'd', 'a', 't', 'a', 0, 0};
  for (std::uint32_t i = 0; i < 8; ++i) file.put(table + i, static_cast<std::uint8_t>(name[i]), 1);
  file.put(table + 8, virtual_size, 4);
  file.put(table + 12, kSectionRva, 4);
  file.put(table + 16, raw_size, 4);
  file.put(table + 20, kHeadersSize, 4);
  file.put(table + 36, 0x40000040, 4);  // initialized data, readable
  file.data.resize(kHeadersSize, 0);
  file.data.insert(file.data.end(), section.data.begin(), section.data.end());
  return file.data;
}

}  // namespace dlldoctor::test
