#include "env/registry_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "env/registry_hive.hpp"

namespace dlldoctor::env {
namespace {

constexpr std::uint64_t kBaseBlock = 4096;    // the primary's base block; hive bins follow
constexpr std::uint64_t kLogBaseBlock = 512;  // a log's copy of it
constexpr std::uint64_t kEntryHeader = 40;    // HvLE header: signature, size, flags, seq, bins size, count, hashes
constexpr std::uint32_t kLogFileType = 6;     // the new format's base block file type
constexpr std::uint32_t kSignatureRegf = 0x66676572;
constexpr std::uint32_t kSignatureHvle = 0x454c7648;
// A hive's bins are bounded by what Windows allows a hive to be (2 GiB); entries and pages by the log.
constexpr std::uint64_t kMaxBinsSize = 1ull << 31;

std::uint32_t rotl(std::uint32_t value, int bits) { return (value << bits) | (value >> (32 - bits)); }

void marvin_block(std::uint32_t& p0, std::uint32_t& p1) {
  p1 ^= p0;
  p0 = rotl(p0, 20);
  p0 += p1;
  p1 = rotl(p1, 9);
  p1 ^= p0;
  p0 = rotl(p0, 27);
  p0 += p1;
  p1 = rotl(p1, 19);
}

struct BaseBlock {
  std::uint32_t primary_seq = 0, secondary_seq = 0, type = 0, bins_size = 0, flags = 0;
  bool checksum_ok = false;
};

std::optional<BaseBlock> base_block(const BoundedReader& bytes) {
  if (!bytes.contains(0, kLogBaseBlock) || *bytes.u32(0) != kSignatureRegf) return std::nullopt;
  BaseBlock block;
  block.primary_seq = *bytes.u32(4);
  block.secondary_seq = *bytes.u32(8);
  block.type = *bytes.u32(28);
  block.bins_size = *bytes.u32(40);
  block.flags = *bytes.u32(144);
  block.checksum_ok = hive_base_block_checksum(bytes) == *bytes.u32(508);
  return block;
}

void put32(std::vector<std::uint8_t>& bytes, std::size_t at, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value >> (8 * i));
}

// One log replayed onto `hive` from sequence number `expected` on: what it applied and the last sequence
// number it reached.
struct Replay {
  std::uint32_t entries = 0;
  std::uint32_t last_seq = 0;
  std::string stopped;  // why it ended before the log did (a bad entry), empty at the log's end
};

Replay replay(const BoundedReader& log, std::uint32_t expected, std::vector<std::uint8_t>& hive,
              std::uint32_t& bins_size) {
  Replay out;
  for (std::uint64_t at = kLogBaseBlock; at + kEntryHeader <= log.size();) {
    const BoundedReader rest = *log.sub(at, log.size() - at);
    if (*rest.u32(0) != kSignatureHvle) break;  // the live entries end; old ones or zeros may follow
    const std::uint32_t size = *rest.u32(4);
    const std::uint32_t seq = *rest.u32(12);
    const std::uint32_t entry_bins = *rest.u32(16);
    const std::uint32_t pages = *rest.u32(20);
    auto problem = [&](const char* what) {
      return fmt::format("entry {} at offset 0x{:x}: {}", out.entries + 1, at, what);
    };
    if (size < 512 || size % 512 != 0 || !rest.contains(0, size)) {
      out.stopped = problem("its size is not a multiple of 512 inside the log");
      break;
    }
    const BoundedReader entry = *rest.sub(0, size);
    if (entry_bins < 4096 || entry_bins % 4096 != 0 || entry_bins > kMaxBinsSize) {
      out.stopped = problem("its hive bins size is not a multiple of 4096");
      break;
    }
    // A hive grows only by bins the logs bring as dirty pages: a size beyond the hive and the whole log
    // together is a crafted one, which would make this allocate gigabytes for a small file.
    if (entry_bins > hive.size() - kBaseBlock + log.size()) {
      out.stopped = problem("its hive bins size is larger than the hive and its log together");
      break;
    }
    if (pages == 0 || std::uint64_t{pages} * 8 > size - kEntryHeader) {
      out.stopped = problem("its dirty page count does not fit it");
      break;
    }
    if (marvin32(entry.data(), 32, kHiveLogSeed) != *entry.u64(32) ||
        marvin32(entry.data() + kEntryHeader, size - kEntryHeader, kHiveLogSeed) != *entry.u64(24)) {
      out.stopped = problem("its hash does not match (a log written in part)");
      break;
    }
    if (seq != expected) {
      // An entry of an earlier write that the log still holds: the live ones have ended.
      if (out.entries == 0) out.stopped = problem(fmt::format("sequence number {}, not {}", seq, expected).c_str());
      break;
    }
    // Every reference and its page inside the entry and inside the bins it says the hive has, before any
    // byte of it is applied.
    std::uint64_t data_at = kEntryHeader + std::uint64_t{pages} * 8;
    bool fits = true;
    for (std::uint32_t p = 0; p < pages && fits; ++p) {
      const std::uint32_t offset = *entry.u32(kEntryHeader + 8ull * p);
      const std::uint32_t length = *entry.u32(kEntryHeader + 8ull * p + 4);
      fits = std::uint64_t{offset} + length <= entry_bins && data_at + length <= size;
      data_at += length;
    }
    if (!fits) {
      out.stopped = problem("a dirty page lies outside it or outside the hive bins");
      break;
    }
    hive.resize(kBaseBlock + entry_bins, 0);
    data_at = kEntryHeader + std::uint64_t{pages} * 8;
    for (std::uint32_t p = 0; p < pages; ++p) {
      const std::uint32_t offset = *entry.u32(kEntryHeader + 8ull * p);
      const std::uint32_t length = *entry.u32(kEntryHeader + 8ull * p + 4);
      std::copy_n(entry.data() + data_at, length, hive.begin() + static_cast<std::ptrdiff_t>(kBaseBlock + offset));
      data_at += length;
    }
    bins_size = entry_bins;
    out.last_seq = seq;
    ++out.entries;
    ++expected;
    at += size;
  }
  return out;
}

}  // namespace

std::uint64_t marvin32(const std::uint8_t* data, std::size_t size, std::uint64_t seed) {
  std::uint32_t p0 = static_cast<std::uint32_t>(seed);
  std::uint32_t p1 = static_cast<std::uint32_t>(seed >> 32);
  std::size_t i = 0;
  for (; i + 4 <= size; i += 4) {
    p0 += std::uint32_t{data[i]} | std::uint32_t{data[i + 1]} << 8 | std::uint32_t{data[i + 2]} << 16 |
          std::uint32_t{data[i + 3]} << 24;
    marvin_block(p0, p1);
  }
  std::uint32_t tail = 0x80;
  switch (size - i) {
    case 1: tail = 0x8000 | data[i]; break;
    case 2: tail = 0x800000 | data[i] | std::uint32_t{data[i + 1]} << 8; break;
    case 3: tail = 0x80000000u | data[i] | std::uint32_t{data[i + 1]} << 8 | std::uint32_t{data[i + 2]} << 16; break;
    default: break;
  }
  p0 += tail;
  marvin_block(p0, p1);
  marvin_block(p0, p1);
  return std::uint64_t{p1} << 32 | p0;
}

bool hive_is_dirty(const BoundedReader& primary) {
  const auto block = base_block(primary);
  return block && (!block->checksum_ok || block->primary_seq != block->secondary_seq);
}

HiveRecovery recover_hive(const BoundedReader& primary, const std::vector<HiveLog>& logs) {
  HiveRecovery out;
  const auto hive_block = base_block(primary);
  if (!hive_block || !primary.contains(0, kBaseBlock)) {
    out.problems.push_back("the hive's base block is unreadable");
    return out;
  }
  struct Usable {
    const HiveLog* log;
    BaseBlock block;
  };
  std::vector<Usable> usable;
  for (const HiveLog& log : logs) {
    const auto block = base_block(log.bytes);
    if (log.bytes.size() == 0) continue;  // an empty log: nothing was logged
    if (!block || block->type != kLogFileType || log.bytes.size() <= kLogBaseBlock + kEntryHeader) {
      out.problems.push_back(log.name + " is not a transaction log of the format Windows 8.1 and later write");
      continue;
    }
    if (!block->checksum_ok || block->primary_seq != block->secondary_seq) {
      out.problems.push_back(log.name + "'s own header is damaged or was not written to its end");
      continue;
    }
    usable.push_back({&log, *block});
  }
  if (usable.empty()) {
    if (out.problems.empty()) out.problems.push_back("no transaction log beside it");
    return out;
  }
  // Windows alternates between the two logs: the one whose start comes first (sequence numbers wrap) first.
  std::sort(usable.begin(), usable.end(), [](const Usable& a, const Usable& b) {
    return static_cast<std::int32_t>(a.block.primary_seq - b.block.primary_seq) < 0;
  });
  // A primary whose base block is damaged takes the latest log's, and only that log (Suhanov; yarp).
  if (!hive_block->checksum_ok) usable.erase(usable.begin(), usable.end() - 1);
  std::vector<std::uint8_t> hive(primary.data(),
                                 primary.data() + std::min<std::uint64_t>(primary.size(), kBaseBlock + kMaxBinsSize));
  if (!hive_block->checksum_ok) std::copy_n(usable.back().log->bytes.data(), kLogBaseBlock, hive.begin());
  std::uint32_t bins_size =
      std::min<std::uint32_t>(hive_block->bins_size, static_cast<std::uint32_t>(hive.size() - kBaseBlock));
  std::optional<std::uint32_t> last_seq;
  for (const Usable& log : usable) {
    // The first log starts at or after the hive's last complete write; a later one goes on where it ended.
    const bool eligible = last_seq
                              ? log.block.primary_seq == *last_seq + 1
                              : !hive_block->checksum_ok ||
                                    static_cast<std::int32_t>(log.block.primary_seq - hive_block->secondary_seq) >= 0;
    if (!eligible) {
      out.problems.push_back(log.log->name + " does not follow on from the hive's last write");
      continue;
    }
    const Replay replayed = replay(log.log->bytes, log.block.primary_seq, hive, bins_size);
    if (!replayed.stopped.empty()) out.problems.push_back(log.log->name + ": " + replayed.stopped);
    if (replayed.entries == 0) continue;
    out.applied.push_back(
        fmt::format("{} ({} entr{})", log.log->name, replayed.entries, replayed.entries == 1 ? "y" : "ies"));
    last_seq = replayed.last_seq;
  }
  if (!last_seq) return out;
  // The base block of a hive that was written to its end, as the kernel leaves it after the replay.
  hive.resize(kBaseBlock + bins_size, 0);
  put32(hive, 4, *last_seq);
  put32(hive, 8, *last_seq);
  put32(hive, 28, 0);
  put32(hive, 40, bins_size);
  put32(hive, 508, hive_base_block_checksum(BoundedReader(hive.data(), hive.size())));
  out.bytes = std::move(hive);
  return out;
}

}  // namespace dlldoctor::env
