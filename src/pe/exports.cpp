// Export directory: the module's own name, named and ordinal-only exports, forwarders.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pe/pe_view.hpp"

namespace dlldoctor::pe {
namespace {
constexpr std::uint64_t kExportDirectorySize = 40;
}  // namespace

void read_exports(const PeView& view, const DataDirectory& directory, const ReadLimits& limits, Image& image) {
  if (!directory.addressed()) return;
  auto at = view.at_rva(directory.rva);
  auto header = at ? at->sub(0, kExportDirectorySize) : std::nullopt;
  if (!header) {
    image.warnings.push_back(
        fmt::format("export directory: RVA {} {}", hex(directory.rva), view.why_unreadable(directory.rva)));
    return;
  }
  Exports exports;
  const std::uint32_t name_rva = *header->u32(12);
  exports.ordinal_base = *header->u32(16);
  std::uint64_t function_count = *header->u32(20);
  std::uint64_t name_count = *header->u32(24);
  const std::uint32_t functions_rva = *header->u32(28);
  const std::uint32_t names_rva = *header->u32(32);
  const std::uint32_t ordinals_rva = *header->u32(36);

  if (name_rva != 0) {
    auto name = view.name_at(name_rva, 0, limits.max_name_length);
    if (name) {
      exports.dll_name = std::move(*name);
    } else {
      image.warnings.push_back(fmt::format("export directory: module name at RVA {} is unreadable", hex(name_rva)));
    }
  }
  auto functions_at = view.at_rva(functions_rva);
  // The loader reads only the entry an import asks for, so a count larger than the table's section is wrong
  // only about entries it never reaches (corkami dllord.asm: NumberOfFunctions 0xFFFFFFFF, two entries, and
  // its ordinal import loads). The entries inside are read.
  if (functions_at && functions_at->size() >= 4 && functions_at->size() / 4 < function_count) {
    image.warnings.push_back(fmt::format(
        "export directory: address table of {} entries at RVA {} runs past its section; the {} inside it are read",
        function_count, hex(functions_rva), functions_at->size() / 4));
    function_count = functions_at->size() / 4;
  }
  if (function_count > limits.max_exports) {
    image.warnings.push_back(
        fmt::format("export directory: {} functions; only the first {} are read", function_count, limits.max_exports));
    function_count = limits.max_exports;
  }
  if (function_count == 0) {
    image.exports = std::move(exports);
    return;
  }
  auto functions = functions_at ? functions_at->sub(0, function_count * 4) : std::nullopt;
  if (!functions) {
    image.warnings.push_back(
        fmt::format("export directory: address table ({} entries at RVA {}) is not inside the file", function_count,
                    hex(functions_rva)));
    image.exports = std::move(exports);
    return;
  }

  // Names point into the address table through the ordinal table; one function may have several names.
  // Kept as (function, name in the file) in one list, put in address-table order below.
  struct Name {
    std::uint32_t function;
    std::string_view text;
  };
  std::vector<Name> names;
  if (name_count > 0) {
    if (name_count > limits.max_exports) name_count = limits.max_exports;
    auto name_table = view.at_rva(names_rva);
    auto ordinals = view.at_rva(ordinals_rva);
    if (!name_table || !ordinals || !name_table->contains(0, name_count * 4) ||
        !ordinals->contains(0, name_count * 2)) {
      image.warnings.push_back("export directory: name or ordinal table is not inside the file");
    } else {
      names.reserve(name_count);
      std::size_t damaged = 0;
      for (std::uint64_t i = 0; i < name_count; ++i) {
        const std::uint16_t index = *ordinals->u16(i * 2);
        if (index >= function_count) {
          ++damaged;
          continue;
        }
        auto name = view.name_view_at(*name_table->u32(i * 4), 0, limits.max_name_length);
        if (view.text_budget_spent()) break;
        if (!name) {
          ++damaged;
          continue;
        }
        names.push_back({index, *name});
      }
      if (damaged) {
        image.warnings.push_back(
            fmt::format("export directory: {} names are unreadable or point past the address table", damaged));
      }
      // Stable: a function's names keep the name table's order.
      std::stable_sort(names.begin(), names.end(),
                       [](const Name& a, const Name& b) { return a.function < b.function; });
    }
  }

  std::size_t used_slots = 0;
  for (std::uint64_t index = 0; index < function_count; ++index) used_slots += *functions->u32(index * 4) != 0;
  exports.items.reserve(used_slots + names.size());
  const std::uint64_t directory_end = std::uint64_t{directory.rva} + directory.size;
  std::size_t damaged_forwarders = 0;
  std::vector<std::string> malformed_forwarders;
  auto next_name = names.begin();
  for (std::uint64_t index = 0; index < function_count; ++index) {
    const std::uint32_t rva = *functions->u32(index * 4);
    const bool named = next_name != names.end() && next_name->function == index;
    if (rva == 0 && !named) continue;  // an unused ordinal slot
    ExportItem item;
    item.ordinal = static_cast<std::uint32_t>(exports.ordinal_base + index);
    item.rva = rva;
    // An address inside the export directory is a forwarder string, "DLL.function" or "DLL.#ordinal".
    if (rva >= directory.rva && rva < directory_end) {
      auto forwarder = view.name_at(rva, 0, limits.max_name_length);
      if (forwarder) {
        item.forwarder = std::make_shared<const Forwarder>(parse_forwarder(std::move(*forwarder)));
        if (!item.forwarder->resolvable()) malformed_forwarders.push_back(item.forwarder->text);
      } else if (!view.text_budget_spent()) {  // past the budget it is said once, below
        ++damaged_forwarders;
      }
    }
    if (!named) {
      exports.items.push_back(std::move(item));
      continue;
    }
    for (; next_name != names.end() && next_name->function == index; ++next_name) {
      ExportItem with_name = item;
      with_name.name = next_name->text;
      exports.items.push_back(std::move(with_name));
    }
  }
  if (view.text_budget_spent()) {
    image.warnings.push_back(fmt::format(
        "export directory: its names and forwarders point at the same bytes again and again, past the name budget "
        "of this {}-byte file; the rest are not read",
        view.file().size()));
  }
  if (damaged_forwarders) {
    image.warnings.push_back(fmt::format("export directory: {} forwarder strings are unreadable", damaged_forwarders));
  }
  if (!malformed_forwarders.empty()) {
    // Quoted as JSON strings would be: the text is whatever bytes the file holds.
    image.warnings.push_back(
        fmt::format("export directory: {} forwarder{} not of the form DLL.function or "
                    "DLL.#ordinal (0-65535), so {} resolve: \"{}\"{}",
                    malformed_forwarders.size(), malformed_forwarders.size() == 1 ? " is" : "s are",
                    malformed_forwarders.size() == 1 ? "it cannot" : "they cannot", malformed_forwarders.front(),
                    malformed_forwarders.size() > 1 ? " and others" : ""));
  }
  own_names(exports);
  image.exports = std::move(exports);
}

void own_names(Exports& exports) {
  std::size_t size = 0;
  for (const ExportItem& item : exports.items) size += item.name ? item.name->size() : 0;
  auto text = std::make_shared<std::string>();
  text->reserve(size);  // sized first, it never moves: the views made while it fills stay valid
  for (ExportItem& item : exports.items) {
    if (!item.name) continue;
    const std::size_t at = text->size();
    *text += *item.name;
    item.name = std::string_view(text->data() + at, item.name->size());
  }
  exports.name_text = std::move(text);
}

}  // namespace dlldoctor::pe
