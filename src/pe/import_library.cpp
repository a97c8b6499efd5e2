// COFF archives and the import members in them. Layout: Microsoft "PE Format" specification, sections
// "Archive (Library) File Format" and "Import Library Format"; GNU dlltool's long-format members as
// binutils' dlltool.c writes them.
#include "dlldoctor/pe/import_library.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "core/mapped_file.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/pe/image.hpp"
#include "pe/pe_view.hpp"

namespace dlldoctor::pe {

const char* import_type_name(ImportType type) {
  switch (type) {
    case ImportType::Code: return "code";
    case ImportType::Data: return "data";
    case ImportType::Const: return "const";
    case ImportType::Unknown: break;
  }
  return "unknown";
}

const char* import_name_type_name(ImportNameType type) {
  switch (type) {
    case ImportNameType::Ordinal: return "ordinal";
    case ImportNameType::Name: return "name";
    case ImportNameType::NoPrefix: return "noprefix";
    case ImportNameType::Undecorate: return "undecorate";
    case ImportNameType::ExportAs: return "exportas";
    case ImportNameType::Unknown: break;
  }
  return "unknown";
}

namespace {

constexpr std::string_view kArchiveMagic = "!<arch>\n";
constexpr std::string_view kThinArchiveMagic = "!<thin>\n";
constexpr std::uint64_t kMemberHeaderSize = 60;
constexpr std::uint64_t kImportHeaderSize = 20;
constexpr std::uint64_t kSymbolSize = 18;
// No real object has more; it bounds the section walk of a hostile member.
constexpr std::uint16_t kMaxSections = 4096;
constexpr std::uint32_t kMaxSymbols = 1u << 16;

std::string_view field(const BoundedReader& bytes, std::uint64_t offset, std::size_t length) {
  return {reinterpret_cast<const char*>(bytes.data() + offset), length};
}

std::string_view trim_right(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// Member sizes are decimal ASCII, space-padded on the right.
std::optional<std::uint64_t> parse_decimal(std::string_view text) {
  text = trim_right(text);
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

bool printable(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

class Collector {
 public:
  explicit Collector(const ImportLibraryLimits& limits) : limits_(limits) {}

  void warn(std::string message) {
    if (library_.warnings.size() < limits_.max_warnings) {
      library_.warnings.push_back(std::move(message));
    } else if (library_.warnings.size() == limits_.max_warnings) {
      library_.warnings.push_back("further warnings not shown");
    }
  }

  void add_dll(const std::string& dll) {
    const DllName name(dll);
    for (const std::string& known : library_.dlls) {
      if (DllName(known) == name) return;
    }
    library_.dlls.push_back(dll);
  }

  void add_machine(std::uint16_t machine) {
    if (machine == 0) return;
    auto& machines = library_.machines;
    if (std::find(machines.begin(), machines.end(), machine) == machines.end()) machines.push_back(machine);
  }

  ImportLibrary& library() { return library_; }
  const ImportLibraryLimits& limits() const { return limits_; }

 private:
  const ImportLibraryLimits& limits_;
  ImportLibrary library_;
};

// IMPORT_OBJECT_HEADER: Sig1 0, Sig2 0xFFFF, Version, Machine, TimeDateStamp, SizeOfData, OrdinalOrHint,
// then a 16-bit word of Type (bits 0-1) and NameType (bits 2-4); then "symbol\0dll\0" in SizeOfData bytes.
void read_short_import(const BoundedReader& data, const std::string& member, Collector& out) {
  const std::uint16_t machine = *data.u16(6);
  const std::uint32_t size_of_data = *data.u32(12);
  const std::uint16_t ordinal_or_hint = *data.u16(16);
  const std::uint16_t bits = *data.u16(18);
  auto strings = data.sub(kImportHeaderSize, size_of_data);
  if (!strings) {
    out.warn(fmt::format("member {}: import data of {} bytes runs past the member", member, size_of_data));
    return;
  }
  const std::size_t max_name = out.limits().max_name_length;
  auto symbol = strings->c_string(0, max_name);
  auto dll = symbol ? strings->c_string(symbol->size() + 1, max_name) : std::nullopt;
  if (!symbol || !dll) {
    out.warn(fmt::format("member {}: import names are not terminated", member));
    return;
  }
  LibraryImport item;
  item.member = member;
  item.format = MemberFormat::Short;
  item.machine = machine;
  item.symbol = *symbol;
  item.dll = *dll;
  item.ordinal_or_hint = ordinal_or_hint;
  const unsigned type = bits & 0x3u;
  const unsigned name_type = (bits >> 2) & 0x7u;
  item.type = type <= 2 ? static_cast<ImportType>(type) : ImportType::Unknown;
  item.name_type = name_type <= 4 ? static_cast<ImportNameType>(name_type) : ImportNameType::Unknown;
  item.by_ordinal = item.name_type == ImportNameType::Ordinal;
  out.add_machine(machine);
  out.add_dll(item.dll);
  out.library().imports.push_back(std::move(item));
}

bool known_machine(std::uint16_t value) {
  switch (value) {
    case machine::kI386:
    case machine::kAmd64:
    case machine::kArm:
    case machine::kArmNt:
    case machine::kArm64:
    case machine::kArm64Ec:
    case machine::kArm64X: return true;
    default: return false;
  }
}

// The name of the `__imp_` symbol an object defines: the import's symbol, the same spelling a short import
// object stores (x86 keeps its leading underscore: "__imp__f" is symbol "_f").
std::optional<std::string> imported_symbol(const BoundedReader& data, std::size_t max_name) {
  const std::uint32_t table = *data.u32(8);
  const std::uint32_t count = std::min(*data.u32(12), kMaxSymbols);
  const std::uint64_t strings = std::uint64_t{table} + std::uint64_t{count} * kSymbolSize;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t entry = table + i * kSymbolSize;
    if (!data.contains(entry, kSymbolSize)) return std::nullopt;
    std::optional<std::string> name;
    if (*data.u32(entry) == 0) {
      name = data.c_string(strings + *data.u32(entry + 4), max_name);
    } else {
      const std::string_view raw = field(data, entry, 8);
      name = std::string(raw.substr(0, raw.find('\0')));
    }
    constexpr std::string_view kImp = "__imp_";
    if (name && name->size() > kImp.size() && name->compare(0, kImp.size(), kImp) == 0) {
      return name->substr(kImp.size());
    }
    i += *data.u8(entry + 17);  // auxiliary records
  }
  return std::nullopt;
}

// A long-format member is an ordinary COFF object; its .idata$N sections say what it is:
//   .idata$2 + .idata$6       import descriptor (MSVC, llvm-dlltool): .idata$6 is the DLL name
//   .idata$7 holding a string GNU dlltool's tail object: the DLL name
//   .idata$4/$5 (+ .idata$6)  GNU dlltool's per-function object: .idata$6 is hint + name; without it the
//                            lookup entry holds the ordinal with the top bit set
// Returns false when the bytes are not a COFF object at all.
bool read_object(const BoundedReader& data, const std::string& member, Collector& out) {
  if (!data.contains(0, kCoffHeaderSize)) return false;
  const std::uint16_t machine = *data.u16(0);
  const std::uint16_t section_count = *data.u16(2);
  const std::uint16_t optional_size = *data.u16(16);
  const std::uint64_t table = kCoffHeaderSize + optional_size;
  // Objects have no optional header; anything else here is not an object we understand.
  if (!known_machine(machine) || optional_size != 0 || section_count > kMaxSections ||
      !data.contains(table, section_count * kSectionHeaderSize)) {
    return false;
  }
  out.add_machine(machine);

  std::optional<BoundedReader> idata[8];
  bool has_text = false;
  for (std::uint64_t i = 0; i < section_count; ++i) {
    const std::uint64_t header = table + i * kSectionHeaderSize;
    const std::string_view raw = field(data, header, 8);
    const std::string_view name = raw.substr(0, raw.find('\0'));
    if (name == ".text") has_text = true;
    if (name.size() != 8 || name.substr(0, 7) != ".idata$" || name[7] < '0' || name[7] > '7') continue;
    const std::uint32_t size = *data.u32(header + 16);
    const std::uint32_t offset = *data.u32(header + 20);
    // GNU dlltool gives an ordinal import an empty .idata$6 (no hint/name entry).
    if (size == 0) continue;
    auto contents = data.sub(offset, size);
    if (!contents) {
      out.warn(fmt::format("member {}: section {} runs past the member", member, name));
      continue;
    }
    idata[name[7] - '0'] = contents;
  }
  const std::size_t max_name = out.limits().max_name_length;
  auto dll_string = [&](const std::optional<BoundedReader>& section) -> std::optional<std::string> {
    if (!section) return std::nullopt;
    auto text = section->c_string(0, max_name);
    if (!text || !printable(*text)) return std::nullopt;
    return text;
  };
  if (idata[2]) {
    if (auto dll = dll_string(idata[6])) out.add_dll(*dll);
    return true;
  }
  if (auto dll = dll_string(idata[7])) {
    out.add_dll(*dll);
    return true;
  }
  if (!idata[4] && !idata[5]) return true;  // a plain object, or the null thunk: no import in it

  LibraryImport item;
  item.member = member;
  item.format = MemberFormat::Long;
  item.machine = machine;
  item.type = has_text ? ImportType::Code : ImportType::Data;
  if (idata[6]) {
    auto hint = idata[6]->u16(0);
    auto name = idata[6]->c_string(2, max_name);
    if (!hint || !name) {
      out.warn(fmt::format("member {}: .idata$6 holds no hint and name", member));
      return true;
    }
    item.ordinal_or_hint = *hint;
    item.symbol = *name;
    item.name_type = ImportNameType::Name;
  } else {
    const BoundedReader& entry = idata[4] ? *idata[4] : *idata[5];
    std::optional<std::uint64_t> value;
    if (entry.size() == 8) value = *entry.u64(0) >> 63 ? entry.u64(0) : std::nullopt;
    if (entry.size() == 4) value = *entry.u32(0) >> 31 ? entry.u32(0) : std::nullopt;
    if (!value) return true;  // an empty lookup entry: the null thunk of an import descriptor
    item.by_ordinal = true;
    item.ordinal_or_hint = static_cast<std::uint16_t>(*value & 0xffffu);
    item.name_type = ImportNameType::Ordinal;
  }
  // The symbol table spells the symbol as the linker sees it, which .idata$6 (the DLL's export name) may not.
  if (auto symbol = imported_symbol(data, max_name)) item.symbol = *symbol;
  out.library().imports.push_back(std::move(item));
  return true;
}

void read_member(const BoundedReader& data, const std::string& member, Collector& out) {
  ++out.library().member_count;
  auto sig1 = data.u16(0);
  auto sig2 = data.u16(2);
  if (sig1 && sig2 && *sig1 == 0 && *sig2 == 0xffff) {
    // Version 0 is an import object; higher versions are anonymous objects (/bigobj, /GL), not imports.
    if (data.contains(0, kImportHeaderSize) && *data.u16(4) == 0) {
      read_short_import(data, member, out);
      return;
    }
    out.warn(fmt::format("member {}: format not recognised (anonymous object or truncated import header)", member));
    return;
  }
  if (!read_object(data, member, out)) out.warn(fmt::format("member {}: format not recognised", member));
}

// Member names: "name/" (the slash ends the name), "/123" (offset into the "//" member, whose names end
// with "/\n" in GNU archives and with NUL in Microsoft ones), or a special name.
std::string member_name(std::string_view raw, const std::optional<BoundedReader>& long_names, std::size_t max_name) {
  raw = trim_right(raw);
  if (raw.size() > 1 && raw[0] == '/' && raw[1] >= '0' && raw[1] <= '9') {
    auto offset = parse_decimal(raw.substr(1));
    if (long_names && offset) {
      std::string name;
      for (std::uint64_t i = *offset; name.size() < max_name; ++i) {
        auto c = long_names->u8(i);
        if (!c || *c == 0 || *c == '\n') break;
        name.push_back(static_cast<char>(*c));
      }
      if (!name.empty() && name.back() == '/') name.pop_back();
      if (!name.empty()) return name;
    }
    return std::string(raw);  // unresolvable: keep the reference, it still identifies the member
  }
  if (raw.size() > 1 && raw.back() == '/') raw.remove_suffix(1);
  return std::string(raw);
}

bool is_symbol_table(std::string_view name) {
  return name == "/" || name == "/SYM64/" || name == "/<ECSYMBOLS>/" || name == "__.SYMDEF" ||
         name == "__.SYMDEF SORTED";
}

}  // namespace

Result<ImportLibrary> read_import_library(const BoundedReader& bytes, const ImportLibraryLimits& limits) {
  if (bytes.contains(0, kThinArchiveMagic.size()) && field(bytes, 0, kThinArchiveMagic.size()) == kThinArchiveMagic) {
    return Error{"thin archive: its members are separate files, which are not read"};
  }
  if (!bytes.contains(0, kArchiveMagic.size()) || field(bytes, 0, kArchiveMagic.size()) != kArchiveMagic) {
    return Error{"not a library: no !<arch> signature"};
  }
  Collector out(limits);
  std::optional<BoundedReader> long_names;
  std::uint64_t offset = kArchiveMagic.size();
  for (std::size_t index = 0; offset < bytes.size(); ++index) {
    // Some writers pad the archive's end with a newline; that is not a truncated member.
    if (bytes.size() - offset == 1 && *bytes.u8(offset) == '\n') break;
    if (index >= limits.max_members) {
      out.warn(fmt::format("more than {} members; the rest are not read", limits.max_members));
      break;
    }
    if (!bytes.contains(offset, kMemberHeaderSize)) {
      out.warn(fmt::format("member header at offset 0x{:x} is cut off", offset));
      break;
    }
    auto size = parse_decimal(field(bytes, offset + 48, 10));
    if (field(bytes, offset + 58, 2) != "`\n" || !size) {
      // Without a sound header the next member's offset is unknown, so the walk stops here.
      out.warn(fmt::format("member header at offset 0x{:x} is malformed", offset));
      break;
    }
    auto data = bytes.sub(offset + kMemberHeaderSize, *size);
    const std::string_view raw_name = trim_right(field(bytes, offset, 16));
    if (!data) {
      out.warn(fmt::format("member {} at offset 0x{:x}: {} bytes run past the end of the file", std::string(raw_name),
                           offset, *size));
      break;
    }
    if (raw_name == "//") {
      long_names = data;
    } else if (!is_symbol_table(raw_name)) {
      read_member(*data, member_name(raw_name, long_names, limits.max_name_length), out);
    }
    // Members start on even offsets. parse_decimal reads at most 10 digits, so this cannot wrap.
    offset += kMemberHeaderSize + *size + (*size & 1u);
  }

  ImportLibrary& library = out.library();
  // GNU per-function objects reach their DLL only through a relocation to the head object; with a single
  // DLL in the library (the usual case) that is the one.
  if (library.dlls.size() == 1) {
    for (LibraryImport& item : library.imports) {
      if (item.dll.empty()) item.dll = library.dlls.front();
    }
  }
  return std::move(library);
}

Result<ImportLibrary> read_import_library_file(const std::string& path, const ImportLibraryLimits& limits) {
  auto mapped = MappedFile::open(path);
  if (!mapped) return mapped.error();
  return read_import_library(mapped->bytes(), limits);
}

}  // namespace dlldoctor::pe
