// The transaction-log replay of a hive Windows did not close cleanly: Marvin32 against .NET's published
// vectors, then logs built byte by byte (untrusted input: every damaged shape is refused before a byte of
// it is applied).
#include "env/registry_log.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "env/registry_hive.hpp"

using dlldoctor::BoundedReader;
namespace env = dlldoctor::env;

namespace {

using Bytes = std::vector<std::uint8_t>;

void put32(Bytes& out, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put64(Bytes& out, std::size_t at, std::uint64_t v) {
  put32(out, at, static_cast<std::uint32_t>(v));
  put32(out, at + 4, static_cast<std::uint32_t>(v >> 32));
}
std::uint32_t get32(const Bytes& in, std::size_t at) {
  return std::uint32_t{in[at]} | std::uint32_t{in[at + 1]} << 8 | std::uint32_t{in[at + 2]} << 16 |
         std::uint32_t{in[at + 3]} << 24;
}

Bytes hex(const std::string& text) {
  Bytes out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2)
    out.push_back(static_cast<std::uint8_t>(std::stoul(text.substr(i, 2), nullptr, 16)));
  return out;
}

void set_checksum(Bytes& block) {
  put32(block, 508, env::hive_base_block_checksum(BoundedReader(block.data(), block.size())));
}

// A base block: "regf", the two sequence numbers, the file type and the hive bins size.
Bytes base_block(std::size_t size, std::uint32_t primary_seq, std::uint32_t secondary_seq, std::uint32_t type,
                 std::uint32_t bins) {
  Bytes out(size, 0);
  put32(out, 0, 0x66676572);
  put32(out, 4, primary_seq);
  put32(out, 8, secondary_seq);
  put32(out, 20, 1);
  put32(out, 24, 5);
  put32(out, 28, type);
  put32(out, 40, bins);
  set_checksum(out);
  return out;
}

// A primary of one 4 KiB bin filled with `fill`, dirty (its primary sequence number one ahead).
Bytes dirty_primary(std::uint8_t fill) {
  Bytes out = base_block(4096, 8, 7, 0, 4096);
  out.resize(8192, fill);
  return out;
}

struct Page {
  std::uint32_t offset;  // from the start of the hive bins
  std::uint8_t fill;
};

// One HvLE entry: its pages, each 4 KiB of `fill`, hashed as Windows hashes them.
Bytes log_entry(std::uint32_t seq, std::uint32_t bins, const std::vector<Page>& pages) {
  std::size_t size = 40 + 8 * pages.size() + 4096 * pages.size();
  size = (size + 511) / 512 * 512;
  Bytes entry(size, 0);
  put32(entry, 0, 0x454c7648);  // "HvLE"
  put32(entry, 4, static_cast<std::uint32_t>(size));
  put32(entry, 12, seq);
  put32(entry, 16, bins);
  put32(entry, 20, static_cast<std::uint32_t>(pages.size()));
  std::size_t data = 40 + 8 * pages.size();
  for (std::size_t i = 0; i < pages.size(); ++i) {
    put32(entry, 40 + 8 * i, pages[i].offset);
    put32(entry, 44 + 8 * i, 4096);
    std::fill_n(entry.begin() + static_cast<std::ptrdiff_t>(data), 4096, pages[i].fill);
    data += 4096;
  }
  put64(entry, 24, env::marvin32(entry.data() + 40, entry.size() - 40, env::kHiveLogSeed));
  put64(entry, 32, env::marvin32(entry.data(), 32, env::kHiveLogSeed));
  return entry;
}

Bytes log_file(std::uint32_t seq, const std::vector<Bytes>& entries) {
  Bytes out = base_block(512, seq, seq, 6, 4096);
  for (const Bytes& entry : entries) out.insert(out.end(), entry.begin(), entry.end());
  return out;
}

env::HiveRecovery recover(const Bytes& primary, const std::vector<std::pair<std::string, Bytes>>& logs) {
  std::vector<env::HiveLog> views;
  for (const auto& [name, bytes] : logs) views.push_back({name, BoundedReader(bytes.data(), bytes.size())});
  return env::recover_hive(BoundedReader(primary.data(), primary.size()), views);
}

}  // namespace

TEST_CASE("Marvin32 gives .NET's published hashes") {
  const std::uint64_t seed1 = 0x4FB61A001BDBCCull;
  const std::uint64_t seed2 = 0x804FB61A001BDBCCull;
  const std::vector<std::pair<std::string, std::uint64_t>> vectors{
      {"", 0x30ED35C100CD3C7Dull},
      {"af", 0x48E73FC77D75DDC1ull},
      {"e70f", 0xB5F6E1FC485DBFF8ull},
      {"37f495", 0xF0B07C789B8CF7E8ull},
      {"8642dc59", 0x7008F2E87E9CF556ull},
      {"153fb79826", 0xE6C08C6DA2AFA997ull},
      {"0932e6246c47", 0x6F04BF1A5EA24060ull},
      {"ab427ea8d10fc7", 0xE11847E4F0678C41ull},
  };
  for (const auto& [text, expected] : vectors) {
    const Bytes data = hex(text);
    CAPTURE(text);
    CHECK(env::marvin32(data.data(), data.size(), seed1) == expected);
  }
  CHECK(env::marvin32(nullptr, 0, seed2) == 0x10A9D5D3996FD65Dull);
}

TEST_CASE("a hive is dirty when its sequence numbers differ or its base block's checksum fails") {
  Bytes clean = base_block(4096, 7, 7, 0, 4096);
  CHECK(!env::hive_is_dirty(BoundedReader(clean.data(), clean.size())));
  Bytes dirty = dirty_primary(0);
  CHECK(env::hive_is_dirty(BoundedReader(dirty.data(), dirty.size())));
  clean[100] ^= 1;
  CHECK(env::hive_is_dirty(BoundedReader(clean.data(), clean.size())));
}

TEST_CASE("a log's entries are replayed onto the primary, and the base block is left clean") {
  const Bytes primary = dirty_primary(0xAA);
  // The hive grew by a bin in the same write: the entry says 8 KiB of bins and brings the second page.
  const Bytes log = log_file(7, {log_entry(7, 8192, {{0, 0x11}}), log_entry(8, 8192, {{4096, 0x22}})});
  const auto recovered = recover(primary, {{"SYSTEM.LOG1", log}, {"SYSTEM.LOG2", {}}});
  CHECK(recovered.problems.empty());
  REQUIRE(recovered.applied.size() == 1);
  CHECK(recovered.applied[0] == "SYSTEM.LOG1 (2 entries)");
  REQUIRE(recovered.bytes.size() == 4096 + 8192);
  CHECK(recovered.bytes[4096] == 0x11);
  CHECK(recovered.bytes[4096 + 4095] == 0x11);
  CHECK(recovered.bytes[8192] == 0x22);
  CHECK(get32(recovered.bytes, 4) == 8);
  CHECK(get32(recovered.bytes, 8) == 8);
  CHECK(get32(recovered.bytes, 40) == 8192);
  CHECK(!env::hive_is_dirty(BoundedReader(recovered.bytes.data(), recovered.bytes.size())));
}

TEST_CASE("the second log goes on where the first ended, in sequence order whatever their names") {
  const Bytes primary = dirty_primary(0xAA);
  const Bytes first = log_file(7, {log_entry(7, 4096, {{0, 0x11}})});
  const Bytes second = log_file(8, {log_entry(8, 4096, {{0, 0x33}})});
  const auto recovered = recover(primary, {{"SYSTEM.LOG1", second}, {"SYSTEM.LOG2", first}});
  CHECK(recovered.problems.empty());
  REQUIRE(recovered.applied.size() == 2);
  CHECK(recovered.applied[0] == "SYSTEM.LOG2 (1 entry)");
  REQUIRE(recovered.bytes.size() == 8192);
  CHECK(recovered.bytes[4096] == 0x33);
}

TEST_CASE("damaged logs are refused before a byte of them is applied") {
  const Bytes primary = dirty_primary(0xAA);
  auto refused = [&](const Bytes& log, const std::string& why) {
    const auto recovered = recover(primary, {{"SYSTEM.LOG1", log}});
    CAPTURE(why);
    CHECK(recovered.applied.empty());
    CHECK(recovered.bytes.empty());
    REQUIRE(!recovered.problems.empty());
    CHECK(recovered.problems[0].find(why) != std::string::npos);
  };
  SUBCASE("a page written in part: the hash fails") {
    Bytes log = log_file(7, {log_entry(7, 4096, {{0, 0x11}})});
    log[512 + 40 + 8 + 100] ^= 1;
    refused(log, "hash does not match");
  }
  SUBCASE("a hive grown past what the hive and the log hold, its hashes right (a small file asking for 256 MiB)") {
    refused(log_file(7, {log_entry(7, 256u << 20, {{0, 0x11}})}), "larger than the hive and its log together");
  }
  SUBCASE("a page outside the hive bins the entry itself declares") {
    refused(log_file(7, {log_entry(7, 4096, {{4096, 0x11}})}), "outside");
  }
  SUBCASE("an entry of an older write") {
    refused(log_file(7, {log_entry(5, 4096, {{0, 0x11}})}), "sequence number 5, not 7");
  }
  SUBCASE("a log older than the hive's last complete write") {
    refused(log_file(3, {log_entry(3, 4096, {{0, 0x11}})}), "does not follow on");
  }
  SUBCASE("an entry whose size runs past the log") {
    Bytes log = log_file(7, {log_entry(7, 4096, {{0, 0x11}})});
    put32(log, 512 + 4, 0x7ffffe00u);
    refused(log, "not a multiple of 512 inside the log");
  }
  SUBCASE("dirty pages that cannot fit the entry") {
    Bytes log = log_file(7, {log_entry(7, 4096, {{0, 0x11}})});
    put32(log, 512 + 20, 0xffffffffu);
    refused(log, "dirty page count");
  }
  SUBCASE("a log of the old format") {
    Bytes log = log_file(7, {log_entry(7, 4096, {{0, 0x11}})});
    put32(log, 28, 1);
    set_checksum(log);
    refused(log, "not a transaction log of the format");
  }
  SUBCASE("no log at all") { refused({}, "no transaction log beside it"); }
}

TEST_CASE("every single-byte corruption of a log is survived") {
  const Bytes primary = dirty_primary(0xAA);
  const Bytes good = log_file(7, {log_entry(7, 4096, {{0, 0x11}}), log_entry(8, 4096, {{0, 0x22}})});
  for (std::size_t at = 0; at < 512 + 200; ++at) {
    for (std::uint8_t value : {std::uint8_t{0}, std::uint8_t{0xff}, std::uint8_t{0x80}}) {
      Bytes log = good;
      log[at] = value;
      const auto recovered = recover(primary, {{"SYSTEM.LOG1", log}});
      if (!recovered.bytes.empty()) CHECK(recovered.bytes.size() == 8192);
    }
  }
}
