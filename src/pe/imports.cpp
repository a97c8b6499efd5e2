// Import, delay-import and bound-import directories.
#include <fmt/format.h>

#include <algorithm>

#include "pe/pe_view.hpp"

namespace dlldoctor::pe {
namespace {

constexpr std::uint64_t kImportDescriptorSize = 20;
constexpr std::uint64_t kDelayDescriptorSize = 32;
constexpr std::uint64_t kBoundDescriptorSize = 8;
// A bound-import name is a module's file name, read outside the name budget: kept short, far past any path.
constexpr std::size_t kBoundNameMax = 4096;

std::optional<std::string> string_at(const PeView& view, std::uint64_t rva, const ReadLimits& limits) {
  return view.name_at(rva, 0, limits.max_name_length);
}

// Walks a thunk array (import lookup table or IAT layout: one pointer-sized entry per function, zero
// ends it). `base` turns the old VA-based delay tables' entries into RVAs. Returns false when the array was
// damaged; what was read before stays in `out`.
bool read_thunks(const PeView& view, bool pe32plus, std::uint64_t thunks_rva, std::uint64_t base,
                 const ReadLimits& limits, std::size_t& budget, std::vector<ImportedFunction>& out,
                 std::string& problem) {
  auto thunks = view.at_rva(thunks_rva);
  if (!thunks) {
    problem = fmt::format("function table RVA {} {}", hex(thunks_rva), view.why_unreadable(thunks_rva));
    return false;
  }
  const std::uint64_t width = pe32plus ? 8 : 4;
  const std::uint64_t ordinal_flag = pe32plus ? (1ull << 63) : (1ull << 31);
  for (std::uint64_t offset = 0;; offset += width) {
    auto entry = pe32plus ? thunks->u64(offset) : std::optional<std::uint64_t>(thunks->u32(offset));
    if (!entry) {
      problem = "function table runs past the end of its section";
      return false;
    }
    if (*entry == 0) return true;
    if (budget == 0) {
      problem = fmt::format("more than {} imported functions; the rest are not listed", limits.max_import_functions);
      return false;
    }
    --budget;
    ImportedFunction function;
    if (*entry & ordinal_flag) {
      function.ordinal = static_cast<std::uint16_t>(*entry & 0xffff);
    } else {
      // Hint/name RVA: 31 bits in both formats. In an old VA-based delay table an entry is a VA, but one below
      // the image base can only be an RVA, and is read as one (pefile does the same; corkami's
      // delayimports.asm, whose own code does the loading, stores RVAs under VA-based descriptors).
      std::uint64_t name_rva = *entry & 0x7fffffffull;
      if (base != 0 && *entry >= base) name_rva = *entry - base;
      auto at = view.at_rva(name_rva);
      auto hint = at ? at->u16(0) : std::nullopt;
      auto name = hint ? view.name_at(name_rva, 2, limits.max_name_length) : std::nullopt;
      if (view.text_budget_spent()) {
        problem = fmt::format(
            "its names point at the same bytes again and again, past the name budget of this "
            "{}-byte file; the rest are not read",
            view.file().size());
        return false;
      }
      if (!hint || !name) {
        problem = fmt::format("function name at RVA {} is unreadable", hex(name_rva));
        return false;
      }
      function.hint = *hint;
      function.name = std::move(*name);
    }
    out.push_back(std::move(function));
  }
}

}  // namespace

void read_imports(const PeView& view, const DataDirectory& directory, const ReadLimits& limits, Image& image) {
  if (!directory.addressed()) return;
  auto table = view.at_rva(directory.rva);
  if (!table) {
    image.warnings.push_back(
        fmt::format("import directory: RVA {} {}", hex(directory.rva), view.why_unreadable(directory.rva)));
    return;
  }
  const bool pe32plus = image.format == Format::Pe32Plus;
  std::size_t budget = limits.max_import_functions;
  for (std::uint64_t i = 0;; ++i) {
    auto descriptor = table->sub(i * kImportDescriptorSize, kImportDescriptorSize);
    if (!descriptor) {
      image.warnings.push_back("import directory: descriptors run past the end of their section");
      return;
    }
    const std::uint32_t lookup_rva = *descriptor->u32(0);
    const std::uint32_t name_rva = *descriptor->u32(12);
    const std::uint32_t iat_rva = *descriptor->u32(16);
    // The loader stops at the first descriptor without a name or an IAT (a zeroed one, normally).
    if (name_rva == 0 || iat_rva == 0) return;
    if (i >= limits.max_import_dlls) {
      image.warnings.push_back(
          fmt::format("import directory: more than {} DLLs; the rest are not listed", limits.max_import_dlls));
      return;
    }
    // A descriptor whose function list is empty imports nothing: the loader skips it without loading its
    // DLL or reading its name (corkami imports_nothunk.asm). ReactOS looks at the IAT's first entry, Wine at
    // the lookup table's (the IAT's when there is none): only where both say empty is it skipped here.
    auto first_entry = [&](std::uint32_t rva) -> std::optional<std::uint64_t> {
      auto at = view.at_rva(rva);
      if (!at) return std::nullopt;
      return pe32plus ? at->u64(0) : std::optional<std::uint64_t>(at->u32(0));
    };
    const auto iat_first = first_entry(iat_rva);
    const auto lookup_first = lookup_rva != 0 ? first_entry(lookup_rva) : iat_first;
    if (iat_first == std::uint64_t{0} && lookup_first == std::uint64_t{0}) continue;
    auto name = string_at(view, name_rva, limits);
    if (!name) {
      image.warnings.push_back(
          fmt::format("import directory: descriptor {}: DLL name at RVA {} is unreadable", i, hex(name_rva)));
      continue;
    }
    ImportedDll dll;
    dll.dll = std::move(*name);
    // Some linkers leave the lookup table out (RVA 0); before binding, the IAT holds the same entries, and
    // it is the better guess too when the lookup table's RVA is damaged.
    std::uint32_t thunks_rva = lookup_rva != 0 ? lookup_rva : iat_rva;
    if (lookup_rva != 0 && !view.at_rva(lookup_rva)) {
      image.warnings.push_back(fmt::format("import directory: {}: lookup table RVA {} {}; the IAT is read instead",
                                           dll.dll, hex(lookup_rva), view.why_unreadable(lookup_rva)));
      thunks_rva = iat_rva;
    }
    std::string problem;
    if (!read_thunks(view, pe32plus, thunks_rva, 0, limits, budget, dll.functions, problem)) {
      image.warnings.push_back(fmt::format("import directory: {}: {}", dll.dll, problem));
    }
    image.imports.push_back(std::move(dll));
    if (budget == 0) return;
  }
}

void read_delay_imports(const PeView& view, const DataDirectory& directory, const ReadLimits& limits, Image& image) {
  if (!directory.present()) return;
  auto table = view.at_rva(directory.rva);
  if (!table) {
    image.warnings.push_back(
        fmt::format("delay-import directory: RVA {} {}", hex(directory.rva), view.why_unreadable(directory.rva)));
    return;
  }
  const bool pe32plus = image.format == Format::Pe32Plus;
  std::size_t budget = limits.max_import_functions;
  for (std::uint64_t i = 0;; ++i) {
    auto descriptor = table->sub(i * kDelayDescriptorSize, kDelayDescriptorSize);
    if (!descriptor) {
      image.warnings.push_back("delay-import directory: descriptors run past the end of their section");
      return;
    }
    const std::uint32_t attributes = *descriptor->u32(0);
    const std::uint32_t name_field = *descriptor->u32(4);
    const std::uint32_t names_field = *descriptor->u32(16);
    if (name_field == 0) return;
    if (i >= limits.max_import_dlls) {
      image.warnings.push_back(
          fmt::format("delay-import directory: more than {} DLLs; the rest are not listed", limits.max_import_dlls));
      return;
    }
    // Attribute bit 0 clear: the pre-VC7 layout, whose fields are virtual addresses (32-bit, even in PE32+).
    const bool rva_based = (attributes & 1) != 0;
    const std::uint64_t base = rva_based ? 0 : image.image_base;
    if (!rva_based && (base == 0 || name_field < base)) {
      image.warnings.push_back(
          fmt::format("delay-import directory: descriptor {}: VA {} is below the image base", i, hex(name_field)));
      continue;
    }
    auto name = string_at(view, name_field - base, limits);
    if (!name) {
      image.warnings.push_back(
          fmt::format("delay-import directory: descriptor {}: DLL name at {} is unreadable", i, hex(name_field)));
      continue;
    }
    ImportedDll dll;
    dll.dll = std::move(*name);
    dll.rva_based = rva_based;
    std::string problem;
    if (names_field == 0) {
      image.warnings.push_back(fmt::format("delay-import directory: {}: no import name table", dll.dll));
    } else if (!read_thunks(view, pe32plus, names_field - base, base, limits, budget, dll.functions, problem)) {
      image.warnings.push_back(fmt::format("delay-import directory: {}: {}", dll.dll, problem));
    }
    image.delay_imports.push_back(std::move(dll));
    if (budget == 0) return;
  }
}

void read_bound_imports(const PeView& view, const DataDirectory& directory, const ReadLimits& limits, Image& image) {
  if (!directory.present()) return;
  // Module name offsets are relative to the start of the table, which lives in the headers.
  auto table = view.at_rva(directory.rva);
  if (!table) {
    image.warnings.push_back(fmt::format("bound-import directory: RVA {} is outside the file", hex(directory.rva)));
    return;
  }
  std::uint64_t offset = 0;
  while (true) {
    auto descriptor = table->sub(offset, kBoundDescriptorSize);
    if (!descriptor) {
      image.warnings.push_back("bound-import directory: runs past the end of the headers");
      return;
    }
    const std::uint32_t timestamp = *descriptor->u32(0);
    const std::uint16_t name_offset = *descriptor->u16(4);
    const std::uint16_t forwarder_count = *descriptor->u16(6);
    if (timestamp == 0 && name_offset == 0) return;
    if (image.bound_imports.size() >= limits.max_import_dlls) {
      image.warnings.push_back("bound-import directory: too many entries; the rest are not listed");
      return;
    }
    BoundImport bound;
    bound.timestamp = timestamp;
    const std::size_t max_name = std::min(limits.max_name_length, kBoundNameMax);
    auto name = table->c_string(name_offset, max_name);
    if (!name) {
      image.warnings.push_back("bound-import directory: a module name is unreadable");
      return;
    }
    bound.dll = std::move(*name);
    for (std::uint16_t f = 0; f < forwarder_count; ++f) {
      auto forwarder_name_offset = table->u16(offset + kBoundDescriptorSize * (1 + f) + 4);
      auto forwarder = forwarder_name_offset ? table->c_string(*forwarder_name_offset, max_name) : std::nullopt;
      if (!forwarder) {
        image.warnings.push_back(fmt::format("bound-import directory: {}: a forwarder name is unreadable", bound.dll));
        break;
      }
      bound.forwarder_dlls.push_back(std::move(*forwarder));
    }
    image.bound_imports.push_back(std::move(bound));
    offset += kBoundDescriptorSize * (1 + std::uint64_t{forwarder_count});
  }
}

}  // namespace dlldoctor::pe
