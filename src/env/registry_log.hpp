#pragma once
// A registry hive that Windows did not write to its end (Fast Startup, hibernation, a crash: the usual state
// of a dual-boot disk mounted from Linux) has its latest changes only in its transaction logs, SYSTEM.LOG1
// and SYSTEM.LOG2 beside it. This detects such a hive and applies the logs of the format Windows 8.1 and
// later write (log entries "HvLE", hashed with Marvin32), after Maxim Suhanov's "Windows registry file
// format specification" ("Dirty state", "New format", "Multiple transaction log files"); yarp's reading of
// it was the model. The logs are untrusted input: every entry is checked before a byte of it is applied, and
// a bad one ends the replay of its log.
#include <cstdint>
#include <string>
#include <vector>

#include "dlldoctor/core/bounded_reader.hpp"

namespace dlldoctor::env {

// Marvin32, the 64-bit result (as .NET's Marvin.ComputeHash), for `seed`.
std::uint64_t marvin32(const std::uint8_t* data, std::size_t size, std::uint64_t seed);
// The seed Windows hashes registry log entries with (HvInitializeHashLibrary).
inline constexpr std::uint64_t kHiveLogSeed = 0x82EF4D887A4E55C5ull;

// A hive is dirty when its base block's checksum fails or its two sequence numbers differ.
bool hive_is_dirty(const BoundedReader& primary);

struct HiveLog {
  std::string name;  // "SYSTEM.LOG1", for the report
  BoundedReader bytes;
};

struct HiveRecovery {
  // The logs applied, in the order they were, each with the number of its entries: "SYSTEM.LOG1 (3 entries)".
  std::vector<std::string> applied;
  // Why no log (or not every usable one) was applied; empty when every eligible one was.
  std::vector<std::string> problems;
  std::vector<std::uint8_t> bytes;  // the hive after the logs, base block rewritten; empty when none applied
};

// The primary with the logs' entries applied, as the kernel replays them when it loads the hive.
HiveRecovery recover_hive(const BoundedReader& primary, const std::vector<HiveLog>& logs);

}  // namespace dlldoctor::env
