#include "dlldoctor/env/api_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/shrink_guard.hpp"
#include "core/text.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/env/file_system.hpp"
#include "dlldoctor/pe/reader.hpp"
#include "env/api_set_table.hpp"

namespace dlldoctor::env {
namespace {

// Schema v6 layout (Windows 10+), as described in Geoff Chappell's API Set Schema notes and declared alike
// by several open-source loaders: a header, an array of namespace entries, each pointing at an array of
// value entries; all strings UTF-16LE, given as (offset, length in bytes) from the section start.
constexpr std::uint32_t kVersion6 = 6;
constexpr std::uint64_t kHeaderSize = 28;  // Version, Size, Flags, Count, EntryOffset, HashOffset, HashFactor
constexpr std::uint64_t kEntrySize = 24;   // Flags, NameOffset, NameLength, HashedLength, ValueOffset, ValueCount
constexpr std::uint64_t kValueSize = 20;   // Flags, NameOffset, NameLength, ValueOffset, ValueLength

// Far above real schemas (Windows 11 has ~2,000 entries, rarely more than 2 values each, names < 100
// characters) and low enough that a hostile count cannot cost much.
constexpr std::uint32_t kMaxEntries = 1u << 16;
constexpr std::uint32_t kMaxValues = 256;
constexpr std::uint32_t kMaxStringBytes = 1024;

// A (offset, byte length) UTF-16 string of the schema; empty strings may carry any offset.
Result<std::string> read_string(const BoundedReader& bytes, std::uint32_t offset, std::uint32_t length,
                                const char* what) {
  if (length == 0) return std::string();
  if (length % 2 != 0 || length > kMaxStringBytes)
    return Error{fmt::format("{}: implausible string length {}", what, length)};
  auto text = bytes.utf16(offset, length / 2);
  if (!text) return Error{fmt::format("{}: string at 0x{:x} (+{}) outside the section", what, offset, length)};
  return std::move(*text);
}

// The part of an API set name the loader matches: lower case, no ".dll", cut at the last hyphen
// ("API-MS-Win-Core-Synch-L1-2-0.dll" -> "api-ms-win-core-synch-l1-2"); nullopt without a hyphen.
std::optional<std::string> contract_key(std::string_view name) {
  std::string key = ascii_lower(name);
  if (ends_with(key, ".dll")) key.resize(key.size() - 4);
  const auto hyphen = key.rfind('-');
  if (hyphen == std::string::npos) return std::nullopt;
  key.resize(hyphen);
  return key;
}

const detail::BuiltinApiSet* builtin_begin() { return detail::kBuiltinApiSets; }
const detail::BuiltinApiSet* builtin_end() { return detail::kBuiltinApiSets + detail::kBuiltinApiSetCount; }

const detail::BuiltinApiSet* find_builtin(std::string_view key) {
  const auto* found =
      std::lower_bound(builtin_begin(), builtin_end(), key,
                       [](const detail::BuiltinApiSet& row, std::string_view k) { return row.name < k; });
  return found != builtin_end() && found->name == key ? found : nullptr;
}

// A host as the schema names it, by the loader's key ("KernelBase.dll" -> "kernelbase.dll"); "" (no host)
// stays "".
std::string host_key(std::string_view host) { return host.empty() ? std::string() : DllName(host).key(); }

}  // namespace

bool ApiSetSchema::is_api_set_name(std::string_view name) {
  const std::string prefix = ascii_lower(name.substr(0, 4));
  return prefix == "api-" || prefix == "ext-";
}

bool ApiSetSchema::is_builtin_host(const DllName& name) {
  const char* const* end = detail::kBuiltinApiSetHosts + detail::kBuiltinApiSetHostCount;
  return std::binary_search(detail::kBuiltinApiSetHosts, end, name.key(),
                            [](std::string_view a, std::string_view b) { return a < b; });
}

ApiSetSchema ApiSetSchema::builtin() {
  ApiSetSchema schema;
  schema.source_ = "built-in";
  schema.builtin_ = true;
  return schema;
}

std::size_t ApiSetSchema::size() const { return builtin_ ? detail::kBuiltinApiSetCount : entries_.size(); }

std::vector<std::string> ApiSetSchema::contracts() const {
  std::vector<std::string> names;
  if (builtin_) {
    for (const auto* row = builtin_begin(); row != builtin_end(); ++row) names.emplace_back(row->name);
  } else {
    for (const auto& entry : entries_) names.push_back(entry.first);
  }
  return names;
}

Result<ApiSetSchema> ApiSetSchema::from_bytes(const BoundedReader& bytes) {
  const auto version = bytes.u32(0);
  if (!version || !bytes.contains(0, kHeaderSize)) return Error{"API set schema: header truncated"};
  if (*version == 2 || *version == 4)
    return Error{fmt::format("API set schema version {} (Windows 7/8) is not supported", *version)};
  if (*version != kVersion6) return Error{fmt::format("API set schema: unknown version {}", *version)};

  const std::uint32_t count = *bytes.u32(12);
  const std::uint32_t entry_offset = *bytes.u32(16);
  if (count > kMaxEntries) return Error{fmt::format("API set schema: implausible entry count {}", count)};
  if (!bytes.contains(entry_offset, count * kEntrySize))
    return Error{fmt::format("API set schema: {} entries at 0x{:x} run past the section", count, entry_offset)};

  ApiSetSchema schema;
  schema.source_ = "in-memory";
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t at = entry_offset + i * kEntrySize;
    const std::uint32_t name_offset = *bytes.u32(at + 4);
    const std::uint32_t name_length = *bytes.u32(at + 8);
    const std::uint32_t hashed_length = *bytes.u32(at + 12);
    const std::uint32_t value_offset = *bytes.u32(at + 16);
    const std::uint32_t value_count = *bytes.u32(at + 20);
    const std::string what = fmt::format("API set schema entry {}", i);

    // Only the hashed part (the name up to its last hyphen) takes part in lookups.
    if (hashed_length > name_length) return Error{what + ": hashed length exceeds the name"};
    auto hashed = read_string(bytes, name_offset, hashed_length, what.c_str());
    if (!hashed) return hashed.error();
    if (value_count > kMaxValues) return Error{fmt::format("{}: implausible value count {}", what, value_count)};
    if (!bytes.contains(value_offset, value_count * kValueSize))
      return Error{fmt::format("{}: values at 0x{:x} run past the section", what, value_offset)};

    Entry entry;
    // Value 0 is the default host; the others are exceptions keyed by importer name (how a set that
    // kernel32.dll itself imports can point it at kernelbase.dll rather than back at kernel32.dll).
    for (std::uint32_t v = 0; v < value_count; ++v) {
      const std::uint64_t vat = value_offset + v * kValueSize;
      auto importer = read_string(bytes, *bytes.u32(vat + 4), *bytes.u32(vat + 8), what.c_str());
      if (!importer) return importer.error();
      auto host = read_string(bytes, *bytes.u32(vat + 12), *bytes.u32(vat + 16), what.c_str());
      if (!host) return host.error();
      if (v == 0) {
        entry.host = host_key(*host);
      } else if (!importer->empty()) {
        entry.by_importer.emplace(DllName(*importer), host_key(*host));
      }
    }
    schema.entries_.emplace(ascii_lower(*hashed), std::move(entry));
  }
  return schema;
}

Result<ApiSetSchema> ApiSetSchema::from_dll(const BoundedReader& dll, const std::string& source) {
  pe::ReadParts headers_only;
  headers_only.imports = false;
  headers_only.exports = false;
  headers_only.resources = false;
  auto image = pe::read_image(dll, headers_only);
  if (!image) return Error{source + ": " + image.error().message};

  const pe::SectionInfo* section = nullptr;
  for (const auto& s : image->sections) {
    if (s.name == ".apiset") section = &s;
  }
  if (!section) return Error{source + ": no .apiset section"};
  auto bytes = dll.sub(section->raw_offset, section->raw_size);
  if (!bytes) return Error{source + ": .apiset section runs past the end of the file"};

  auto schema = from_bytes(*bytes);
  if (!schema) return Error{source + ": " + schema.error().message};
  schema->source_ = source;
  return schema;
}

Result<ApiSetSchema> ApiSetSchema::from_file(FileSystem& files, const std::string& path) {
  auto contents = read_contents(files, path);
  if (!contents) return contents.error();
  const ShrinkGuard guard(contents->bytes);  // a mapped file may shrink under the read
  auto schema = from_dll(contents->bytes, path);
  if (guard.shrank()) return Error{path + ": " + pe::kShrankWhileRead};
  return schema;
}

std::optional<std::string_view> ApiSetSchema::lookup(std::string_view name, std::string_view importer) const {
  if (!is_api_set_name(name)) return std::nullopt;
  const std::optional<std::string> key = contract_key(name);
  if (!key) return std::nullopt;
  if (builtin_) {
    const detail::BuiltinApiSet* row = find_builtin(*key);
    if (!row) return std::nullopt;
    return std::string_view(row->host);
  }
  const auto it = entries_.find(*key);
  if (it == entries_.end()) return std::nullopt;
  const Entry& entry = it->second;
  if (!importer.empty() && !entry.by_importer.empty()) {
    // "C:\\Windows\\System32\\KERNEL32" is kernel32.dll: the schema lists importers by module name.
    if (auto special = entry.by_importer.find(DllName(base_name(importer))); special != entry.by_importer.end())
      return std::string_view(special->second);
  }
  return std::string_view(entry.host);
}

bool ApiSetSchema::lists(std::string_view name) const { return lookup(name, {}).has_value(); }

std::optional<std::string> ApiSetSchema::resolve(std::string_view name, std::string_view importer) const {
  const std::optional<std::string_view> host = lookup(name, importer);
  if (!host || host->empty()) return std::nullopt;
  return std::string(*host);
}

}  // namespace dlldoctor::env
