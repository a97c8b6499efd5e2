#pragma once
// A hive of the mounted Windows as the kernel loads it: when Windows did not write it to its end (Fast
// Startup, hibernation, a crash), its transaction logs beside it (SYSTEM.LOG1, SYSTEM.LOG2) are replayed
// onto it first, and what happened is said, never silent: a dirty hive without usable logs is an
// assumption the report states.
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/env/file_system.hpp"
#include "env/registry_hive.hpp"

namespace dlldoctor::env {

struct LoadedHive {
  RegistryHive hive;  // as Windows would see it: the logs applied when they were
  // The primary file alone, when logs were applied and it is readable by itself: the values that differ
  // between the two came from the logs.
  std::optional<RegistryHive> primary_only;
  bool dirty = false;
  bool logs_applied = false;
  // For the report's environment section: the hive was dirty, which logs were applied or why none was.
  std::string note;
};

// `path` is the hive file (found by the caller); its logs are `<name>.LOG1` and `<name>.LOG2` in the same
// folder, matched case-insensitively.
Result<LoadedHive> load_hive(FileSystem& files, const std::string& path);

}  // namespace dlldoctor::env
