#pragma once
// The inputs of a search besides the environment: LoadLibraryEx flags and the process's own settings.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/result.hpp"
#include "dlldoctor/env/environment.hpp"

namespace dlldoctor::resolve {

// LoadLibraryEx flags that change where the loader looks (libloaderapi.h).
namespace load_flags {
inline constexpr std::uint32_t kAlteredSearchPath = 0x8;
inline constexpr std::uint32_t kSearchDllLoadDir = 0x100;
inline constexpr std::uint32_t kSearchApplicationDir = 0x200;
inline constexpr std::uint32_t kSearchUserDirs = 0x400;
inline constexpr std::uint32_t kSearchSystem32 = 0x800;
inline constexpr std::uint32_t kSearchDefaultDirs = 0x1000;
inline constexpr std::uint32_t kSearchMask = 0x1f00;
}  // namespace load_flags

// "altered-search-path,search-dll-load-dir", "0x1100", "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS|0x100", ...
Result<std::uint32_t> parse_load_flags(std::string_view list);
std::vector<std::string> load_flag_names(std::uint32_t flags);

// The documented rule says a wrong-machine file found first fails the load (193); Dependencies and Wine
// skip it and keep searching. The report says which one a prediction used.
enum class WrongMachinePolicy { Fail, Skip };

// What the process has set that changes later searches.
struct ProcessSettings {
  std::optional<std::uint32_t> default_dirs;    // SetDefaultDllDirectories
  std::vector<env::FolderRef> user_dirs;        // AddDllDirectory, in call order
  std::optional<env::FolderRef> dll_directory;  // SetDllDirectory
  // PATH as the process changed it: folders it put before the PATH it inherited (PyTorch's retry), and
  // whether the inherited PATH is searched at all (not for a Microsoft Store app's DLLs).
  std::vector<env::FolderRef> path_prepended;
  bool inherited_path_searched = true;
};

// The process a search happens in.
struct ProcessState {
  env::FolderRef app_dir;
  std::uint16_t machine = 0;
  std::string exe_name;           // for app.exe.local
  bool exe_has_manifest = false;  // DLL redirection is ignored for programs with a manifest
  ProcessSettings settings;
  std::map<DllName, std::string> loaded;  // base name -> host path ("" for an assumed system DLL)
};

// One search: the flags of the LoadLibraryEx call (0 for imports at start-up) and, for a DLL named by
// path, its folder (searched first for its dependencies under DLL_LOAD_DIR or altered search path).
struct SearchContext {
  std::uint32_t flags = 0;
  std::optional<env::FolderRef> dll_load_dir;
};

}  // namespace dlldoctor::resolve
