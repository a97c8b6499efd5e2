#pragma once
// Snapshots: an environment saved as JSON on one machine (`dlldoctor snapshot -o env.json`, usually on the
// user's Windows) and replayed on another (`dlldoctor app.exe --env env.json [--sysroot /mnt/c]`).
// Format: "dlldoctor.snapshot/1" (docs/DECISIONS.md, "Snapshots").
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/file_system.hpp"

namespace dlldoctor::env {

inline constexpr const char* kSnapshotSchema = "dlldoctor.snapshot/1";

struct SystemDll {
  std::string name;  // lower case
  std::optional<pe::Version> file_version;
};

// The DLLs of one system folder with their file versions (only the version resource is read).
std::vector<SystemDll> list_system_dlls(const FolderRef& folder, FileSystem& files);

struct SnapshotInfo {
  std::string tool_version;
  std::string os_version;
  std::vector<SystemDll> system32_dlls;
  std::vector<SystemDll> syswow64_dlls;
  // Which of the environment's variables the snapshot keeps: those load recipes read (names with '*',
  // rules::variables_read), not the whole block, which may hold secrets.
  std::vector<std::string> variable_patterns;
};

// The environment as a snapshot: folders and PATH entries by their Windows names (host names where a
// folder has none), registry PATHs, KnownDLLs, SafeDllSearchMode, OS version, system DLLs.
nlohmann::json snapshot_to_json(const Environment& environment, const SnapshotInfo& info);

// Replays a snapshot. With flags.sysroot the Windows paths map through it and the disk answers; without,
// the snapshot's System32 listing stands in for the system folders. flags.cwd, safe_dll_search_mode and
// known_dlls override the snapshot's.
Result<Environment> environment_from_snapshot(const std::string& json_text, const EnvironmentFlags& flags,
                                              FileSystem& files);

}  // namespace dlldoctor::env
