#include "env/registry_hive.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "dlldoctor/core/dll_name.hpp"

namespace dlldoctor::env {
namespace {

constexpr std::uint64_t kBaseBlockSize = 4096;  // the header; hive bins follow it
constexpr std::uint32_t kNoCell = 0xffffffff;
constexpr std::uint16_t kKeyCompressedName = 0x0020;    // nk: name is Latin-1, not UTF-16
constexpr std::uint16_t kValueCompressedName = 0x0001;  // vk: likewise
constexpr std::uint32_t kResidentData = 0x80000000;     // vk: data lives in the data-offset field
constexpr std::uint32_t kBigDataSegment = 16344;        // bytes per db segment (format 1.4+)

// Offsets inside an nk cell's data.
constexpr std::uint64_t kNkFlags = 2, kNkSubkeyCount = 20, kNkSubkeyList = 28, kNkValueCount = 36, kNkValueList = 40,
                        kNkNameLength = 72, kNkName = 76;
// Offsets inside a vk cell's data.
constexpr std::uint64_t kVkNameLength = 2, kVkDataSize = 4, kVkDataOffset = 8, kVkType = 12, kVkFlags = 16,
                        kVkName = 20;

bool has_signature(const BoundedReader& data, const char (&sig)[3]) {
  const auto a = data.u8(0);
  const auto b = data.u8(1);
  return a && b && *a == static_cast<std::uint8_t>(sig[0]) && *b == static_cast<std::uint8_t>(sig[1]);
}

// Names in a hive are either Latin-1 ("compressed") or UTF-16LE.
std::optional<std::string> read_name(const BoundedReader& data, std::uint64_t offset, std::uint16_t length,
                                     bool latin1) {
  if (latin1) {
    if (!data.contains(offset, length)) return std::nullopt;
    std::string out;
    for (std::uint16_t i = 0; i < length; ++i) append_utf8(out, *data.u8(offset + i));
    return out;
  }
  return data.utf16(offset, length / 2u);
}

std::string utf16_text(const std::vector<std::uint8_t>& data, std::size_t begin_unit, std::size_t end_unit) {
  const BoundedReader r(data.data(), data.size());
  return r.utf16(2 * static_cast<std::uint64_t>(begin_unit), end_unit - begin_unit).value_or(std::string());
}

}  // namespace

struct RegistryHive::KeyNode {
  std::uint16_t flags = 0;
  std::uint32_t subkey_count = 0;
  std::uint32_t subkey_list = kNoCell;
  std::uint32_t value_count = 0;
  std::uint32_t value_list = kNoCell;
  std::string name;
};

// ---------------------------------------------------------------------------------------------------------
// Values

std::optional<std::string> RegistryValue::text() const {
  if (type != reg_type::kSz && type != reg_type::kExpandSz && type != reg_type::kLink) return std::nullopt;
  const std::size_t units = data.size() / 2;
  std::size_t end = 0;
  while (end < units && (data[2 * end] != 0 || data[2 * end + 1] != 0)) ++end;
  return utf16_text(data, 0, end);
}

std::optional<std::vector<std::string>> RegistryValue::strings() const {
  if (type != reg_type::kMultiSz) return std::nullopt;
  std::vector<std::string> out;
  const std::size_t units = data.size() / 2;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= units; ++i) {
    const bool nul = i == units || (data[2 * i] == 0 && data[2 * i + 1] == 0);
    if (!nul) continue;
    if (i == begin) break;  // the empty string that ends the list (or the end of the data)
    out.push_back(utf16_text(data, begin, i));
    begin = i + 1;
  }
  return out;
}

std::optional<std::uint64_t> RegistryValue::number() const {
  const BoundedReader r(data.data(), data.size());
  switch (type) {
    case reg_type::kDword:
      if (data.size() != 4) return std::nullopt;
      return *r.u32(0);
    case reg_type::kDwordBigEndian:
      if (data.size() != 4) return std::nullopt;
      return std::uint64_t{data[0]} << 24 | std::uint64_t{data[1]} << 16 | std::uint64_t{data[2]} << 8 | data[3];
    case reg_type::kQword:
      if (data.size() != 8) return std::nullopt;
      return *r.u64(0);
    default: return std::nullopt;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Opening

std::uint32_t hive_base_block_checksum(const BoundedReader& block) {
  std::uint32_t checksum = 0;
  for (std::uint64_t at = 0; at < 508; at += 4) checksum ^= block.u32(at).value_or(0);
  if (checksum == 0) return 1;
  if (checksum == 0xffffffff) return 0xfffffffe;
  return checksum;
}

Result<RegistryHive> RegistryHive::open(const std::string& path, const HiveLimits& limits) {
  auto file = MappedFile::open(path);
  if (!file) return Error{path + ": " + file.error().message};
  auto shared = std::make_shared<const MappedFile>(std::move(file.value()));
  const BoundedReader bytes = shared->bytes();
  return from_owned(std::move(shared), bytes, path, limits);
}

Result<RegistryHive> RegistryHive::from_owned(std::shared_ptr<const void> owner, const BoundedReader& bytes,
                                              const std::string& source, const HiveLimits& limits) {
  auto hive = from_bytes(bytes, limits);
  if (!hive) return Error{source + ": " + hive.error().message};
  hive->owner_ = std::move(owner);
  hive->source_ = source;
  return hive;
}

Result<RegistryHive> RegistryHive::from_bytes(const BoundedReader& bytes, const HiveLimits& limits) {
  if (!bytes.contains(0, kBaseBlockSize)) return Error{"registry hive: shorter than its 4096-byte header"};
  if (!has_signature(bytes, "re") || *bytes.u16(2) != 0x6667)  // "regf"
    return Error{"registry hive: no regf signature"};

  if (hive_base_block_checksum(bytes) != *bytes.u32(508)) return Error{"registry hive: header checksum mismatch"};

  const std::uint32_t major = *bytes.u32(20);
  const std::uint32_t minor = *bytes.u32(24);
  if (major != 1 || minor < 2 || minor > 6)
    return Error{fmt::format("registry hive: unsupported format version {}.{}", major, minor)};

  const std::uint32_t bins_size = *bytes.u32(40);
  auto bins = bytes.sub(kBaseBlockSize, bins_size);
  if (!bins)
    return Error{fmt::format("registry hive: truncated (header promises {} bytes of hive bins, file has {})", bins_size,
                             bytes.size() - kBaseBlockSize)};
  if (!has_signature(*bins, "hb")) return Error{"registry hive: no hbin at the start of the hive bins"};

  RegistryHive hive;
  hive.bins_ = *bins;
  hive.root_ = *bytes.u32(36);
  hive.minor_version_ = minor;
  hive.limits_ = limits;
  hive.source_ = "in-memory";
  auto root = hive.key_node(hive.root());
  if (!root) return Error{"registry hive: root key: " + root.error().message};
  return hive;
}

// ---------------------------------------------------------------------------------------------------------
// Cells

Result<BoundedReader> RegistryHive::cell(std::uint32_t offset) const {
  const auto raw = bins_.u32(offset);
  if (!raw) return Error{fmt::format("cell 0x{:x} is outside the hive bins", offset)};
  // Allocated cells carry a negative size; a positive one marks free space, which nothing may point to.
  const auto size = static_cast<std::int32_t>(*raw);
  if (size >= 0) return Error{fmt::format("cell 0x{:x} is free", offset)};
  const std::uint64_t length = static_cast<std::uint64_t>(-static_cast<std::int64_t>(size));
  if (length < 8) return Error{fmt::format("cell 0x{:x} is too small ({} bytes)", offset, length)};
  auto data = bins_.sub(std::uint64_t{offset} + 4, length - 4);
  if (!data) return Error{fmt::format("cell 0x{:x} ({} bytes) runs past the hive bins", offset, length)};
  return *data;
}

Result<RegistryHive::KeyNode> RegistryHive::key_node(Key key) const {
  auto data = cell(key.cell);
  if (!data) return data.error();
  if (!has_signature(*data, "nk") || !data->contains(0, kNkName))
    return Error{fmt::format("cell 0x{:x} is not a key (nk)", key.cell)};
  KeyNode node;
  node.flags = *data->u16(kNkFlags);
  node.subkey_count = *data->u32(kNkSubkeyCount);
  node.subkey_list = *data->u32(kNkSubkeyList);
  node.value_count = *data->u32(kNkValueCount);
  node.value_list = *data->u32(kNkValueList);
  const std::uint16_t name_length = *data->u16(kNkNameLength);
  auto name = read_name(*data, kNkName, name_length, (node.flags & kKeyCompressedName) != 0);
  if (!name) return Error{fmt::format("key 0x{:x}: name runs past its cell", key.cell)};
  node.name = std::move(*name);
  return node;
}

// Subkey lists: lf/lh hold (nk offset, hash) pairs, li bare offsets, ri offsets of further lists. Windows
// writes ri only one level deep; refusing ri under ri also rules out cycles between lists. Every visit
// counts against the nk's own subkey count, so lists that point at the same cells many times cannot make
// the walk quadratic.
template <typename Visit>
Result<bool> RegistryHive::for_each_subkey(const KeyNode& node, Visit&& visit) const {
  if (node.subkey_count == 0) return false;
  if (node.subkey_count > limits_.max_subkeys)
    return Error{fmt::format("key '{}': implausible subkey count {}", node.name, node.subkey_count)};
  std::uint32_t visited = 0;

  auto walk = [&](std::uint32_t list_offset, bool allow_index_root, auto& self) -> Result<bool> {
    auto list = cell(list_offset);
    if (!list) return Error{fmt::format("key '{}': subkey list: {}", node.name, list.error().message)};
    const bool index_root = has_signature(*list, "ri");
    const bool leaf = has_signature(*list, "li");
    const bool fast = has_signature(*list, "lf") || has_signature(*list, "lh");
    if (!(leaf || fast || (index_root && allow_index_root)))
      return Error{fmt::format("key '{}': cell 0x{:x} is not a subkey list", node.name, list_offset)};
    const std::uint16_t count = *list->u16(2);
    const std::uint64_t stride = fast ? 8 : 4;
    if (!list->contains(4, count * stride))
      return Error{fmt::format("key '{}': subkey list 0x{:x} claims {} entries, more than it holds", node.name,
                               list_offset, count)};
    for (std::uint16_t i = 0; i < count; ++i) {
      const std::uint32_t target = *list->u32(4 + i * stride);
      if (index_root) {
        auto stopped = self(target, false, self);
        if (!stopped) return stopped;
        if (*stopped) return true;
        continue;
      }
      if (++visited > node.subkey_count)
        return Error{fmt::format("key '{}': subkey lists hold more than the {} subkeys it records", node.name,
                                 node.subkey_count)};
      if (!visit(target)) return true;
    }
    return false;
  };
  return walk(node.subkey_list, true, walk);
}

// ---------------------------------------------------------------------------------------------------------
// Keys

Result<std::string> RegistryHive::key_name(Key key) const {
  auto node = key_node(key);
  if (!node) return node.error();
  return std::move(node->name);
}

Result<std::vector<std::string>> RegistryHive::subkey_names(Key key) const {
  auto node = key_node(key);
  if (!node) return node.error();
  std::vector<std::string> names;
  std::optional<Error> failure;
  auto walked = for_each_subkey(*node, [&](std::uint32_t child) {
    auto sub = key_node(Key{child});
    if (!sub) {
      failure = Error{fmt::format("key '{}': subkey: {}", node->name, sub.error().message)};
      return false;
    }
    names.push_back(std::move(sub->name));
    return true;
  });
  if (!walked) return walked.error();
  if (failure) return *failure;
  return names;
}

Result<std::optional<RegistryHive::Key>> RegistryHive::find_key(Key base, std::string_view path) const {
  Key current = base;
  while (!path.empty()) {
    const auto separator = path.find('\\');
    const std::string_view part = path.substr(0, separator);
    path = separator == std::string_view::npos ? std::string_view() : path.substr(separator + 1);
    if (part.empty()) continue;

    auto node = key_node(current);
    if (!node) return node.error();
    const std::string wanted = ascii_lower(part);
    std::optional<Key> found;
    std::optional<Error> failure;
    auto walked = for_each_subkey(*node, [&](std::uint32_t child) {
      auto sub = key_node(Key{child});
      if (!sub) {
        failure = Error{fmt::format("key '{}': subkey: {}", node->name, sub.error().message)};
        return false;
      }
      if (ascii_lower(sub->name) != wanted) return true;
      found = Key{child};
      return false;
    });
    if (!walked) return walked.error();
    if (failure) return *failure;
    if (!found) return std::optional<Key>();
    current = *found;
  }
  return std::optional<Key>(current);
}

// ---------------------------------------------------------------------------------------------------------
// Values

Result<RegistryValue> RegistryHive::read_value(std::uint32_t offset) const {
  auto vk = cell(offset);
  if (!vk) return vk.error();
  if (!has_signature(*vk, "vk") || !vk->contains(0, kVkName))
    return Error{fmt::format("cell 0x{:x} is not a value (vk)", offset)};

  RegistryValue value;
  const std::uint16_t name_length = *vk->u16(kVkNameLength);
  auto name = read_name(*vk, kVkName, name_length, (*vk->u16(kVkFlags) & kValueCompressedName) != 0);
  if (!name) return Error{fmt::format("value 0x{:x}: name runs past its cell", offset)};
  value.name = std::move(*name);
  value.type = *vk->u32(kVkType);

  const std::uint32_t size_field = *vk->u32(kVkDataSize);
  const std::uint32_t size = size_field & ~kResidentData;
  const std::string what = fmt::format("value '{}'", value.name);
  if ((size_field & kResidentData) != 0) {
    // Up to four bytes live in the data-offset field itself.
    if (size > 4) return Error{fmt::format("{}: resident data of {} bytes", what, size)};
    for (std::uint32_t i = 0; i < size; ++i) value.data.push_back(*vk->u8(kVkDataOffset + i));
    return value;
  }
  if (size == 0) return value;
  if (size > limits_.max_value_bytes) return Error{fmt::format("{}: {} bytes is over the limit", what, size)};

  const std::uint32_t data_offset = *vk->u32(kVkDataOffset);
  auto data = cell(data_offset);
  if (!data) return Error{what + ": data: " + data.error().message};
  if (data->contains(0, size)) {
    value.data.assign(data->data(), data->data() + size);
    return value;
  }
  // Too big for its cell: from format 1.4 on, a db cell lists segments of 16,344 bytes each.
  if (minor_version_ < 4 || size <= kBigDataSegment || !has_signature(*data, "db"))
    return Error{fmt::format("{}: {} bytes of data do not fit cell 0x{:x}", what, size, data_offset)};
  const std::uint16_t segments = *data->u16(2);
  if (!data->contains(4, 4)) return Error{what + ": big-data cell truncated"};
  auto list = cell(*data->u32(4));
  if (!list) return Error{what + ": big-data segment list: " + list.error().message};
  if (!list->contains(0, segments * std::uint64_t{4}))
    return Error{what + ": big-data segment list shorter than its count"};
  value.data.reserve(size);
  for (std::uint16_t i = 0; i < segments && value.data.size() < size; ++i) {
    auto segment = cell(*list->u32(i * std::uint64_t{4}));
    if (!segment) return Error{what + ": big-data segment: " + segment.error().message};
    const std::size_t want = std::min<std::size_t>(size - value.data.size(), kBigDataSegment);
    if (!segment->contains(0, want)) return Error{what + ": big-data segment shorter than its share"};
    value.data.insert(value.data.end(), segment->data(), segment->data() + want);
  }
  if (value.data.size() != size) return Error{what + ": big-data segments hold less than the value size"};
  return value;
}

Result<std::vector<RegistryValue>> RegistryHive::values(Key key) const {
  auto node = key_node(key);
  if (!node) return node.error();
  std::vector<RegistryValue> out;
  if (node->value_count == 0) return out;
  if (node->value_count > limits_.max_values)
    return Error{fmt::format("key '{}': implausible value count {}", node->name, node->value_count)};
  auto list = cell(node->value_list);
  if (!list) return Error{fmt::format("key '{}': value list: {}", node->name, list.error().message)};
  if (!list->contains(0, node->value_count * std::uint64_t{4}))
    return Error{fmt::format("key '{}': value list shorter than its {} values", node->name, node->value_count)};
  std::size_t total = 0;
  for (std::uint32_t i = 0; i < node->value_count; ++i) {
    auto value = read_value(*list->u32(i * std::uint64_t{4}));
    if (!value) return Error{fmt::format("key '{}': {}", node->name, value.error().message)};
    // Many vk cells may share one data cell: bound what the key costs as a whole, not per value.
    total += value->data.size();
    if (total > limits_.max_key_value_bytes)
      return Error{fmt::format("key '{}': values exceed {} bytes together", node->name, limits_.max_key_value_bytes)};
    out.push_back(std::move(value.value()));
  }
  return out;
}

Result<std::optional<RegistryValue>> RegistryHive::value(Key key, std::string_view name) const {
  auto all = values(key);
  if (!all) return all.error();
  const std::string wanted = ascii_lower(name);
  for (auto& v : *all) {
    if (ascii_lower(v.name) == wanted) return std::optional<RegistryValue>(std::move(v));
  }
  return std::optional<RegistryValue>();
}

Result<std::string> RegistryHive::current_control_set() const {
  auto select = find_key("Select");
  if (!select) return select.error();
  if (!*select) return Error{"no Select key (not a SYSTEM hive?)"};
  auto current = value(**select, "Current");
  if (!current) return current.error();
  const auto number = *current ? (*current)->number() : std::nullopt;
  if (!number) return Error{"Select\\Current is missing or not a REG_DWORD"};
  return fmt::format("ControlSet{:03}", *number);
}

// ---------------------------------------------------------------------------------------------------------

std::string expand_environment_strings(std::string_view text, const std::map<std::string, std::string>& vars) {
  std::map<std::string, const std::string*> by_key;
  for (const auto& [name, value] : vars) by_key.emplace(ascii_lower(name), &value);

  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto open = text.find('%', i);
    if (open == std::string_view::npos) break;
    const auto close = text.find('%', open + 1);
    if (close == std::string_view::npos) break;
    out.append(text.substr(i, open - i));
    const auto found = by_key.find(ascii_lower(text.substr(open + 1, close - open - 1)));
    if (close > open + 1 && found != by_key.end()) {
      out += *found->second;
      i = close + 1;
    } else {
      out.append(text.substr(open, close - open));
      i = close;
    }
  }
  out.append(text.substr(i));
  return out;
}

}  // namespace dlldoctor::env
