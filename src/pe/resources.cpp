// Resource directory: the version resource (VS_VERSIONINFO) and the application manifest (RT_MANIFEST).
// Layouts: PE spec ".rsrc Section"; "VS_VERSIONINFO structure" and "String structure" on Microsoft Learn.
#include <fmt/format.h>

#include "pe/pe_view.hpp"

namespace dlldoctor::pe {
namespace {

constexpr std::uint32_t kRtVersion = 16;
constexpr std::uint32_t kRtManifest = 24;
constexpr std::uint32_t kFixedFileInfoSignature = 0xFEEF04BD;
constexpr std::uint64_t kDirectoryHeaderSize = 16;
constexpr std::uint64_t kEntrySize = 8;
constexpr std::uint32_t kHighBit = 0x80000000u;

struct ResourceData {
  std::uint32_t rva = 0;
  std::uint32_t size = 0;
};

class ResourceTree {
 public:
  ResourceTree(const BoundedReader& section, const ReadLimits& limits) : section_(section), limits_(limits) {}

  // Type -> first name (lowest id, as the loader's FindResource for id 1/2 would find) -> first language.
  std::optional<ResourceData> find_first(std::uint32_t type_id, std::string& problem) const {
    auto names = child(0, type_id, problem);
    if (!names) return std::nullopt;
    auto languages = first_child(*names, problem);
    if (!languages) return std::nullopt;
    if (!(*languages & kHighBit)) {
      problem = "a resource name entry points at data instead of a language directory";
      return std::nullopt;
    }
    auto leaf = first_child(*languages & ~kHighBit, problem);
    if (!leaf) return std::nullopt;
    if (*leaf & kHighBit) {
      problem = "a resource tree is deeper than type/name/language";
      return std::nullopt;
    }
    // IMAGE_RESOURCE_DATA_ENTRY: OffsetToData is an RVA, not an offset into the section.
    auto rva = section_.u32(*leaf);
    auto size = section_.u32(std::uint64_t{*leaf} + 4);
    if (!rva || !size) {
      problem = "a resource data entry is past the end of the section";
      return std::nullopt;
    }
    return ResourceData{*rva, *size};
  }

 private:
  struct Entries {
    std::uint64_t first = 0;
    std::uint64_t count = 0;
  };

  std::optional<Entries> entries(std::uint64_t directory, std::string& problem) const {
    auto named = section_.u16(directory + 12);
    auto ids = section_.u16(directory + 14);
    if (!named || !ids) {
      problem = "a resource directory is past the end of the section";
      return std::nullopt;
    }
    Entries result{directory + kDirectoryHeaderSize, std::uint64_t{*named} + *ids};
    if (result.count > limits_.max_resource_entries || !section_.contains(result.first, result.count * kEntrySize)) {
      problem = "a resource directory's entries are past the end of the section";
      return std::nullopt;
    }
    return result;
  }

  // Offset of the subdirectory under entry `id` (IDs only: named entries have the high bit set).
  std::optional<std::uint64_t> child(std::uint64_t directory, std::uint32_t id, std::string& problem) const {
    auto list = entries(directory, problem);
    if (!list) return std::nullopt;
    for (std::uint64_t i = 0; i < list->count; ++i) {
      const std::uint64_t entry = list->first + i * kEntrySize;
      if (*section_.u32(entry) != id) continue;
      const std::uint32_t target = *section_.u32(entry + 4);
      if (!(target & kHighBit)) {
        problem = "a resource type entry points at data instead of a directory";
        return std::nullopt;
      }
      return target & ~kHighBit;
    }
    return std::nullopt;
  }

  // The raw OffsetToData of the entry with the lowest ID (named entries sort first and are skipped when
  // IDs exist, which matches how manifests and version resources are looked up).
  std::optional<std::uint32_t> first_child(std::uint64_t directory, std::string& problem) const {
    auto list = entries(directory, problem);
    if (!list) return std::nullopt;
    if (list->count == 0) {
      problem = "an empty resource directory";
      return std::nullopt;
    }
    std::optional<std::uint32_t> best_id;
    std::uint32_t best_target = *section_.u32(list->first + 4);
    for (std::uint64_t i = 0; i < list->count; ++i) {
      const std::uint64_t entry = list->first + i * kEntrySize;
      const std::uint32_t name = *section_.u32(entry);
      if (name & kHighBit) continue;
      if (!best_id || name < *best_id) {
        best_id = name;
        best_target = *section_.u32(entry + 4);
      }
    }
    const std::uint32_t offset = best_target & ~kHighBit;
    if ((best_target & kHighBit) && offset == directory) {
      problem = "a resource directory refers to itself";
      return std::nullopt;
    }
    return best_target;
  }

  BoundedReader section_;
  const ReadLimits& limits_;
};

std::uint64_t align4(std::uint64_t value) { return (value + 3) & ~std::uint64_t{3}; }

// One node of the VS_VERSIONINFO tree: wLength, wValueLength, wType, szKey, padding, Value, children.
struct Block {
  std::uint64_t end = 0;  // offset just past the block
  std::string key;
  std::uint64_t value = 0;  // offset of the value
  std::uint16_t value_length = 0;
  std::uint64_t children = 0;  // offset of the first child
};

std::optional<Block> read_block(const BoundedReader& data, std::uint64_t offset, std::uint64_t limit) {
  auto length = data.u16(offset);
  auto value_length = data.u16(offset + 2);
  if (!length || !value_length || *length < 6) return std::nullopt;
  Block block;
  block.end = std::min(offset + *length, limit);
  auto key_units = data.utf16_length(offset + 6, static_cast<std::size_t>((block.end - offset) / 2));
  if (!key_units) return std::nullopt;
  block.key = *data.utf16(offset + 6, *key_units);
  block.value = align4(offset + 6 + 2 * (*key_units + 1));
  block.value_length = *value_length;
  block.children = block.value;
  return block;
}

// String values: the length field counts words in some linkers' output and bytes in others', so read up
// to the terminator within the block instead of trusting it.
std::optional<std::string> string_value(const BoundedReader& data, const Block& block) {
  if (block.value >= block.end) return std::string();
  auto units = data.utf16_length(block.value, static_cast<std::size_t>((block.end - block.value) / 2));
  const std::size_t count = units ? *units : static_cast<std::size_t>((block.end - block.value) / 2);
  return data.utf16(block.value, count);
}

void read_string_tables(const BoundedReader& data, const Block& string_file_info, Image& image) {
  // StringFileInfo -> StringTable (keyed by language+codepage) -> String. The first table is taken.
  auto table = read_block(data, align4(string_file_info.value), string_file_info.end);
  if (!table) return;
  for (std::uint64_t offset = align4(table->children); offset < table->end;) {
    auto entry = read_block(data, offset, table->end);
    if (!entry) break;
    if (auto text = string_value(data, *entry)) {
      while (!text->empty() && text->back() == '\0') text->pop_back();
      image.strings.emplace(entry->key, std::move(*text));
    }
    offset = align4(entry->end);
  }
}

Version version_from(std::uint32_t ms, std::uint32_t ls) {
  return Version{{static_cast<std::uint16_t>(ms >> 16), static_cast<std::uint16_t>(ms & 0xffff),
                  static_cast<std::uint16_t>(ls >> 16), static_cast<std::uint16_t>(ls & 0xffff)}};
}

void read_version(const BoundedReader& data, Image& image) {
  auto root = read_block(data, 0, data.size());
  if (!root || root->key != "VS_VERSION_INFO") {
    image.warnings.push_back("version resource: no VS_VERSION_INFO block");
    return;
  }
  std::uint64_t children = root->value;
  if (root->value_length >= 52) {
    auto signature = data.u32(root->value);
    if (signature && *signature == kFixedFileInfoSignature && data.contains(root->value, 52)) {
      image.file_version = version_from(*data.u32(root->value + 8), *data.u32(root->value + 12));
      image.product_version = version_from(*data.u32(root->value + 16), *data.u32(root->value + 20));
    } else {
      image.warnings.push_back("version resource: VS_FIXEDFILEINFO signature is wrong");
    }
    children = align4(root->value + root->value_length);
  }
  // Each block is at least 8 bytes once aligned and the root is at most 64 KiB, so these loops end.
  for (std::uint64_t offset = children; offset < root->end;) {
    auto block = read_block(data, offset, root->end);
    if (!block) break;
    if (block->key == "StringFileInfo") read_string_tables(data, *block, image);
    offset = align4(block->end);
  }
}

std::optional<BoundedReader> data_bytes(const PeView& view, const ResourceData& resource) {
  auto at = view.at_rva(resource.rva);
  if (!at) return std::nullopt;
  return at->sub(0, resource.size);
}

}  // namespace

void read_resources(const PeView& view, const DataDirectory& directory, const ReadLimits& limits, Image& image) {
  if (!directory.addressed()) return;
  auto section = view.at_rva(directory.rva);
  if (!section) {
    image.warnings.push_back(
        fmt::format("resource directory: RVA {} {}", hex(directory.rva), view.why_unreadable(directory.rva)));
    return;
  }
  const ResourceTree tree(*section, limits);
  std::string problem;
  if (auto version = tree.find_first(kRtVersion, problem)) {
    if (auto bytes = data_bytes(view, *version)) {
      read_version(*bytes, image);
    } else {
      image.warnings.push_back("version resource: data is outside the file");
    }
  }
  if (!problem.empty()) image.warnings.push_back("version resource: " + problem);
  problem.clear();
  if (auto manifest = tree.find_first(kRtManifest, problem)) {
    auto bytes = data_bytes(view, *manifest);
    if (!bytes || manifest->size > limits.max_manifest_bytes) {
      image.warnings.push_back("manifest: data is outside the file or too large");
    } else {
      std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
      if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
      image.manifest = std::move(text);
    }
  }
  if (!problem.empty()) image.warnings.push_back("manifest: " + problem);
}

}  // namespace dlldoctor::pe
