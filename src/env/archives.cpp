#include "dlldoctor/env/archives.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"

namespace dlldoctor::env {

namespace {

// Larger indexes than these are refused, not read: a wheel of torch lists about 15,000 files in 2 MB.
constexpr std::uint64_t kMaxIndexBytes = 64 * 1024 * 1024;
constexpr std::size_t kMaxMembers = 1000000;
// An asar's folders nest as the app's do: node_modules inside node_modules, rarely past 20. Its index is
// parsed into a tree, several times its size in memory: VS Code's, one of the largest apps, is a few MB.
constexpr std::size_t kMaxAsarDepth = 64;
constexpr std::uint64_t kMaxAsarIndexBytes = 16 * 1024 * 1024;
// A member's path as long as Windows' longest; the paths together no longer than the index could spell
// out plainly (a short index can name one long folder a million times over).
constexpr std::size_t kMaxMemberPath = 32767;

// An asar starts with two Chromium pickles: the first holds the second's size, the second a string of
// JSON, {"files": {name: {"files": {...}} or {"size", "offset"} or {"unpacked": true} or {"link"}}}.
Result<std::vector<std::string>> asar_members(const BoundedReader& bytes) {
  const auto first_payload = bytes.u32(0);
  const auto header_size = bytes.u32(4);
  const auto string_size = bytes.u32(12);
  if (!first_payload || *first_payload != 4 || !header_size || !string_size)
    return Error{"not an asar archive (no header pickle)"};
  if (*string_size > kMaxAsarIndexBytes || *string_size > *header_size)
    return Error{"the asar index is larger than its header says"};
  const auto text = bytes.sub(16, *string_size);
  if (!text) return Error{"the asar index runs past the end of the file"};
  // Values nested deeper than any folder tree are dropped while parsing, not built first.
  const auto shallow = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    return depth <= static_cast<int>(2 * kMaxAsarDepth + 4);
  };
  const nlohmann::json index = nlohmann::json::parse(text->data(), text->data() + text->size(), shallow, false);
  if (!index.is_object() || !index.contains("files") || !index["files"].is_object())
    return Error{"the asar index is not the JSON table of contents it should be"};
  std::vector<std::string> members;
  std::uint64_t spelled = 0;
  // Iterative, depth-bounded: the index's nesting is the file's to choose.
  std::vector<std::pair<const nlohmann::json*, std::string>> pending{{&index["files"], ""}};
  while (!pending.empty()) {
    auto [files, prefix] = pending.back();
    pending.pop_back();
    for (const auto& [name, entry] : files->items()) {
      if (!entry.is_object()) continue;
      if (prefix.size() + name.size() + 1 > kMaxMemberPath) continue;
      const std::string path = prefix.empty() ? name : prefix + "/" + name;
      if (entry.contains("files") && entry["files"].is_object()) {
        if (static_cast<std::size_t>(std::count(path.begin(), path.end(), '/')) < kMaxAsarDepth)
          pending.emplace_back(&entry["files"], path);
        continue;
      }
      const bool unpacked = entry.contains("unpacked") && entry["unpacked"] == true;
      if (unpacked || entry.contains("link")) continue;
      spelled += path.size();
      if (members.size() >= kMaxMembers || spelled > kMaxIndexBytes)
        return Error{"the asar index lists more files than any app ships"};
      members.push_back(path);
    }
  }
  return members;
}

struct CentralDirectory {
  std::uint64_t offset = 0, size = 0, entries = 0;
};

// The end of central directory record is in the last 64 KiB + 22 bytes (its comment is at most 64 KiB);
// a ZIP64 archive (a wheel past 4 GiB or 65,535 files) puts the real values in a record its locator names.
Result<CentralDirectory> central_directory(const BoundedReader& bytes) {
  constexpr std::uint32_t kEnd = 0x06054b50, kLocator = 0x07064b50, kEnd64 = 0x06064b50;
  if (bytes.size() < 22) return Error{"too short for a zip archive"};
  const std::uint64_t lowest = bytes.size() > 22 + 65535 ? bytes.size() - 22 - 65535 : 0;
  for (std::uint64_t at = bytes.size() - 22 + 1; at-- > lowest;) {
    if (bytes.u32(at) != kEnd) continue;
    CentralDirectory directory{*bytes.u32(at + 16), *bytes.u32(at + 12), *bytes.u16(at + 10)};
    const bool zip64 = directory.offset == 0xffffffff || directory.size == 0xffffffff || directory.entries == 0xffff;
    if (zip64 && at >= 20 && bytes.u32(at - 20) == kLocator) {
      const auto record = bytes.u64(at - 20 + 8);
      if (!record || bytes.u32(*record) != kEnd64) return Error{"the zip64 end record is not where its locator says"};
      const auto entries = bytes.u64(*record + 32), size = bytes.u64(*record + 40), offset = bytes.u64(*record + 48);
      if (!entries || !size || !offset) return Error{"the zip64 end record is cut short"};
      directory = {*offset, *size, *entries};
    }
    return directory;
  }
  return Error{"not a zip archive (no end of central directory record)"};
}

Result<std::vector<std::string>> zip_members(const BoundedReader& bytes) {
  auto directory = central_directory(bytes);
  if (!directory) return directory.error();
  if (directory->size > kMaxIndexBytes || directory->entries > kMaxMembers)
    return Error{"the zip's central directory is larger than anyone ships"};
  const auto entries = bytes.sub(directory->offset, directory->size);
  if (!entries) return Error{"the zip's central directory runs past the end of the file"};
  std::vector<std::string> members;
  std::uint64_t at = 0;
  for (std::uint64_t i = 0; i < directory->entries; ++i) {
    if (entries->u32(at) != 0x02014b50) return Error{"a zip central directory entry is damaged"};
    const auto name_length = entries->u16(at + 28), extra = entries->u16(at + 30), comment = entries->u16(at + 32);
    if (!name_length || !extra || !comment) return Error{"a zip central directory entry is cut short"};
    const auto name = entries->sub(at + 46, *name_length);
    if (!name) return Error{"a zip member's name runs past the central directory"};
    std::string path(reinterpret_cast<const char*>(name->data()), name->size());
    // Zip names use '/', though some Windows tools write '\'; a name ending in '/' is a folder.
    std::replace(path.begin(), path.end(), '\\', '/');
    if (!path.empty() && path.back() != '/') members.push_back(std::move(path));
    at += 46ull + *name_length + *extra + *comment;
  }
  return members;
}

}  // namespace

std::optional<ArchiveKind> archive_kind(std::string_view file_name) {
  const std::string name = ascii_lower(std::string(file_name));
  // A name that is only the extension is no archive.
  auto ends = [&](std::string_view tail) { return name.size() > tail.size() && ends_with(name, tail); };
  if (ends(".asar")) return ArchiveKind::Asar;
  if (ends(".whl")) return ArchiveKind::Wheel;
  if (ends(".zip")) return ArchiveKind::Zip;
  return std::nullopt;
}

const char* archive_kind_name(ArchiveKind kind) {
  switch (kind) {
    case ArchiveKind::Asar: return "asar";
    case ArchiveKind::Zip: return "zip";
    case ArchiveKind::Wheel: return "wheel";
  }
  return "?";
}

Result<std::vector<std::string>> archive_members(const BoundedReader& bytes, ArchiveKind kind) {
  return kind == ArchiveKind::Asar ? asar_members(bytes) : zip_members(bytes);
}

}  // namespace dlldoctor::env
