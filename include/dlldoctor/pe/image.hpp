#pragma once
// What dlldoctor knows about one PE file: the facts the loader acts on (machine, imports, exports) and the
// ones people need to tell copies apart (versions, strings, manifest). Plain data; the reader fills it.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlldoctor::pe {

enum class Format { Pe32, Pe32Plus };

// IMAGE_FILE_MACHINE_* values from the PE specification.
namespace machine {
inline constexpr std::uint16_t kI386 = 0x014c;
inline constexpr std::uint16_t kAmd64 = 0x8664;
inline constexpr std::uint16_t kArm = 0x01c0;
inline constexpr std::uint16_t kArmNt = 0x01c4;
inline constexpr std::uint16_t kArm64 = 0xaa64;
inline constexpr std::uint16_t kArm64Ec = 0xa641;
inline constexpr std::uint16_t kArm64X = 0xa64e;
}  // namespace machine

// "x86", "x64", "arm64", ... or "0x1234" for machines we have no name for.
std::string machine_name(std::uint16_t machine);
const char* format_name(Format format);

struct ImportedFunction {
  std::optional<std::string> name;       // set when imported by name
  std::uint16_t hint = 0;                // meaningful with a name
  std::optional<std::uint16_t> ordinal;  // set when imported by ordinal
};

struct ImportedDll {
  std::string dll;
  std::vector<ImportedFunction> functions;
  // Delay imports only: false for the pre-VC7 layout whose fields are VAs instead of RVAs.
  bool rva_based = true;
};

struct BoundImport {
  std::string dll;
  std::uint32_t timestamp = 0;
  std::vector<std::string> forwarder_dlls;
};

// Where a forwarded export really lives, parsed once by the reader: the loader loads `dll` and looks the
// function up there by name or by ordinal. A malformed string ("x", ".f", "x.#", "x.#99999999999")
// leaves both unset: the export cannot be resolved, and the reader says why in a warning.
struct Forwarder {
  std::string text;                      // as stored: "OTHER.func" or "OTHER.#27"
  std::string dll;                       // "OTHER.dll", what the loader loads
  std::optional<std::string> function;   // by name
  std::optional<std::uint16_t> ordinal;  // by ordinal
  bool resolvable() const { return function.has_value() || ordinal.has_value(); }
};

// "OTHER.func" / "OTHER.#27" as the loader splits it (at the last dot; ordinals are decimal and 16-bit).
Forwarder parse_forwarder(std::string text);

struct ExportItem {
  // Empty for ordinal-only exports. The text lies in its Exports' name_text, one block for all names: a
  // string each was a heap block each (35,000 in a closure of Wine's DLLs).
  std::optional<std::string_view> name;
  std::uint32_t ordinal = 0;  // biased (what importers use)
  std::uint32_t rva = 0;      // address of code/data, or of the forwarder string
  // Set when the address points into the export directory. Shared, not optional: few exports forward, and
  // an optional of three strings in every item made a 2^20-entry table cost several times its memory.
  std::shared_ptr<const Forwarder> forwarder;
};

struct Exports {
  std::string dll_name;
  std::uint32_t ordinal_base = 1;
  std::vector<ExportItem> items;  // by ordinal, then named
  // The items' names, back to back. Shared, so a copy of the Exports keeps its items' names valid.
  std::shared_ptr<const std::string> name_text;
};

// Copies the items' names into one new name_text and points them there. Whoever names items does so with
// views into what lives until this call (a mapped file, its own strings), then calls it.
void own_names(Exports& exports);

struct Version {
  std::array<std::uint16_t, 4> parts{};
  std::string to_string() const;
  friend bool operator==(const Version& a, const Version& b) { return a.parts == b.parts; }
  friend bool operator!=(const Version& a, const Version& b) { return a.parts != b.parts; }
  friend bool operator<(const Version& a, const Version& b) { return a.parts < b.parts; }
};

struct SectionInfo {
  std::string name;  // up to 8 bytes, as stored (long COFF names are not resolved in images)
  std::uint32_t virtual_address = 0;
  std::uint32_t virtual_size = 0;
  std::uint32_t raw_offset = 0;  // where the loader reads it: PointerToRawData, sector-aligned (reader.cpp)
  std::uint32_t raw_size = 0;
  std::uint32_t characteristics = 0;  // IMAGE_SCN_* flags
};

// A file shorter than its headers say: what an interrupted copy or download, or a quarantine, leaves.
struct CutShort {
  // Where the loader expects the file to end: the header area it maps (page-aligned images), or the raw data
  // of the section that lies last in the file, as the loader maps it (reader.cpp, cut_short).
  std::uint64_t described_size = 0;
  std::uint64_t file_size = 0;  // bytes the file has
  // The first of those parts that ends past the end of the file, and where it ends:
  // "section .rsrc ends at byte 6656".
  std::string first_cut;
};

struct Image {
  Format format = Format::Pe32;
  // As the loader treats it: ARM64EC or ARM64X when the load config's CHPE metadata marks the COFF header's
  // AMD64 or ARM64 as hybrid, otherwise the header's Machine.
  std::uint16_t machine = 0;
  bool is_dll = false;
  std::uint16_t characteristics = 0;
  std::uint16_t subsystem = 0;
  std::uint8_t linker_major = 0;
  std::uint8_t linker_minor = 0;
  std::uint64_t image_base = 0;
  std::uint32_t entry_point = 0;  // AddressOfEntryPoint, an RVA; 0 when there is none
  std::uint32_t timestamp = 0;
  std::uint64_t file_size = 0;        // bytes in the file that was read
  std::optional<CutShort> cut_short;  // set when the headers describe more bytes than the file has

  std::vector<SectionInfo> sections;
  std::vector<ImportedDll> imports;
  std::vector<ImportedDll> delay_imports;
  std::vector<BoundImport> bound_imports;
  std::optional<Exports> exports;

  std::optional<Version> file_version;
  std::optional<Version> product_version;
  std::map<std::string, std::string> strings;  // StringFileInfo of the first table
  std::optional<std::string> manifest;         // RT_MANIFEST text

  // DLL names written as strings in the read-only data (ReadParts::named_in_data), other than the ones the
  // import, delay-import and export tables hold: what the code may pass to LoadLibrary (onnxruntime's
  // lazily loaded cudnn64_9.dll, cudart's nvcuda.dll). In order of first appearance, each once.
  std::vector<std::string> named_in_data;

  bool has_clr = false;    // a .NET assembly (CLR header present)
  bool is_signed = false;  // an Authenticode certificate table is present

  // One entry per damaged part that was skipped ("import directory: ..."). Everything else is still read.
  std::vector<std::string> warnings;
};

// Why the Windows loader would refuse to map this image although its headers read (error 193): the file is
// cut short (Image::cut_short). Empty when it maps.
std::optional<std::string> unmappable_reason(const Image& image);

}  // namespace dlldoctor::pe
