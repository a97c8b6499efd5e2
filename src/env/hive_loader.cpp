#include "env/hive_loader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "dlldoctor/core/paths.hpp"
#include "env/registry_log.hpp"

namespace dlldoctor::env {

Result<LoadedHive> load_hive(FileSystem& files, const std::string& path) {
  auto contents = read_contents(files, path);
  if (!contents) return contents.error();
  LoadedHive loaded;
  loaded.dirty = hive_is_dirty(contents->bytes);
  if (!loaded.dirty) {
    auto hive = RegistryHive::from_owned(contents->owner, contents->bytes, path);
    if (!hive) return hive.error();
    loaded.hive = std::move(hive).value();
    return loaded;
  }

  const std::string folder = folder_of(path);
  const std::string name = base_name(path);
  std::vector<FileContents> held;  // the logs' bytes, alive while they are replayed
  std::vector<HiveLog> logs;
  for (const char* suffix : {".LOG1", ".LOG2"}) {
    const auto log_path = files.find_file(folder, name + suffix);
    if (!log_path) continue;
    auto log = read_contents(files, *log_path);
    if (!log) continue;
    logs.push_back({base_name(*log_path), log->bytes});
    held.push_back(std::move(log).value());
  }
  HiveRecovery recovery = recover_hive(contents->bytes, logs);
  const std::string problems = fmt::format("{}", fmt::join(recovery.problems, "; "));
  if (recovery.applied.empty()) {
    auto hive = RegistryHive::from_owned(contents->owner, contents->bytes, path);
    if (!hive)
      return Error{fmt::format("{}; it was not closed cleanly and its logs could not be applied ({})",
                               hive.error().message, problems)};
    loaded.hive = std::move(hive).value();
    loaded.note = fmt::format(
        "{} was not closed cleanly (Fast Startup, hibernation or a crash) and its transaction logs could not be "
        "applied ({}): its values may be older than the ones Windows uses; a full shutdown in Windows "
        "(shutdown /s /t 0) writes them to the hive",
        path, problems);
    return loaded;
  }
  auto primary = RegistryHive::from_owned(contents->owner, contents->bytes, path);
  if (primary) loaded.primary_only = std::move(primary).value();
  auto owned = std::make_shared<const std::vector<std::uint8_t>>(std::move(recovery.bytes));
  auto hive = RegistryHive::from_owned(owned, BoundedReader(owned->data(), owned->size()), path);
  if (!hive)
    return Error{fmt::format("{} (after replaying {})", hive.error().message, fmt::join(recovery.applied, ", "))};
  loaded.hive = std::move(hive).value();
  loaded.logs_applied = true;
  loaded.note = fmt::format(
      "{} was not closed cleanly (Fast Startup, hibernation or a crash): {} applied, as Windows "
      "does when it loads it{}",
      path, fmt::join(recovery.applied, " and "), problems.empty() ? "" : " (" + problems + ")");
  return loaded;
}

}  // namespace dlldoctor::env
