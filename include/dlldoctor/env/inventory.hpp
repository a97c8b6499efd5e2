#pragma once
// What is on the disk besides the search path: copies of the DLLs a program needs in the folders the
// user names (--look-in), in the usual install places under the sysroot and in the registry's PATH, and
// which family DLLs each searched folder holds. The rule engine reads this; it never walks disks itself.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/env/archives.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/packages.hpp"
#include "dlldoctor/pe/image.hpp"
#include "dlldoctor/pe/image_cache.hpp"

namespace dlldoctor::env {

// Where the inventory found a copy: what the detectors decide by, and what a report says of it.
struct CopySource {
  enum class Kind {
    LookIn,            // a --look-in folder
    InstallPlace,      // where a family installs (rules/: install_places)
    UserPath,          // an entry of the registry's user PATH
    MachinePath,       // an entry of the registry's machine PATH
    DamagedPathEntry,  // the folder a PATH entry cut short or quoted meant
    PipWheel,          // a pip wheel's folder in site-packages (rules/: wheel_places)
    NextToMainDll,     // the folder of a family's main DLL that loaded
    NextToImporter,    // the folder of `module`, which imports the missing DLL
    NextToLoaded,      // the folder of `module`, loaded in the process
    InPackage,         // a folder of the package of `module`, which imports the missing DLL
    BesideImporter,    // the folder of `module`, which imports a DLL that loaded from elsewhere
    BesideProgram,     // the program's folder, for a DLL that loaded from elsewhere
    SearchPath,        // a folder the process searches
    Scan,              // a copy --scan found
    NotAdded,          // a folder another version of an imported framework adds; `module`: what to say
  };
  Kind kind = Kind::LookIn;
  std::string module;  // the module it lies beside (NextToImporter, NextToLoaded, BesideImporter, InPackage)

  // As a report says it: "look-in", "next to its importer app.exe", "user PATH (registry)", ...
  std::string text() const;
  bool operator==(const CopySource& other) const { return kind == other.kind && module == other.module; }
};

struct DllCopy {
  std::string name;  // as on disk
  std::string path;  // host path
  std::optional<std::string> windows_path;
  std::string folder;  // host folder
  std::optional<std::uint16_t> machine;
  std::optional<pe::Version> file_version;
  std::optional<std::uint64_t> file_size;  // when it could be read as an image
  CopySource source;
};

// A wanted DLL found only inside an archive, which Windows' loader never opens.
struct PackedCopy {
  std::string name;     // as the archive spells it
  std::string member;   // its path inside the archive, '/'-separated
  std::string archive;  // host path of the archive
  std::optional<std::string> windows_archive;
  ArchiveKind kind = ArchiveKind::Zip;
  CopySource source;  // where the archive lies: the importer's package, a --look-in folder
};

struct FolderContents {
  FolderRef folder;
  std::vector<DllCopy> dlls;  // the interesting DLLs it holds, by name
};

struct Inventory {
  std::vector<DllCopy> copies;                 // copies of wanted names found off the search path
  std::vector<FolderContents> search_folders;  // interesting DLLs of each searched folder
  // The packages whose manifests claim each loaded module's file (host path), for those some package claims.
  std::map<std::string, std::vector<PackageClaim>> claims;
  // Wanted names no folder holds a copy of, found inside archives (an Electron app's app.asar, a zip).
  std::vector<PackedCopy> packed;
  // Copies of loaded DLLs' names in other packages' folders (shipped_elsewhere), their claims in `claims`.
  std::vector<DllCopy> shipped;
};

struct InventoryRequest {
  std::set<DllName> wanted;       // names to look for off the search path
  std::set<DllName> interesting;  // names to list in the searched folders
  std::vector<FolderRef> search_folders;
  std::vector<std::string> look_in;  // host folders, searched recursively
  // Folders searched alone (not recursively), each with the source its copies are reported under: the
  // folder of a loaded main DLL, the folder a damaged PATH entry meant.
  std::vector<std::pair<std::string, CopySource>> named_folders;
  std::vector<std::string> install_places;  // Windows folder patterns, '*' matching one name
  // Single files looked for, with their source: a loaded DLL's name beside the modules that import it and
  // beside the program, where a copy that lost to another is the one its importer shipped with.
  struct NamedFile {
    std::string folder;  // host folder
    std::string name;
    CopySource source;
  };
  std::vector<NamedFile> files;
  // The packages of DLLs that import a missing one (InPackage): from `folder` up to the package's root.
  struct PackageSearch {
    std::string folder;  // host folder of the importer
    std::string module;  // the importer
  };
  std::vector<PackageSearch> packages;
  std::vector<std::string> package_markers, package_boundaries, package_dll_folders;  // [machine]
  std::vector<std::string> owned;  // host paths of the loaded modules, whose packages are looked up
  // A loaded DLL's name in the folders another package of the environment would ship it in (a family's
  // pip wheel folders): host folder, name.
  std::vector<std::pair<std::string, DllName>> shipped_elsewhere;
};

Inventory build_inventory(const Environment& environment, const InventoryRequest& request, FileSystem& files,
                          pe::ImageCache& images);

// Splits a PATH value on ';' (empty entries dropped) and maps each entry like --path does.
std::vector<FolderRef> path_folders(const Environment& environment, const std::string& value, FileSystem& files);

// The host folders matching a Windows folder pattern ('*' and '?' within one name: C:\Python3*) on the
// machine: under the sysroot, or on this Windows itself; none when neither maps C:\.
std::vector<std::string> matching_folders(const Environment& environment, const std::string& pattern,
                                          FileSystem& files);

// Case-insensitive match with '*' (any run) and '?' (one character), as Windows matches file names.
bool wildcard_match(std::string_view pattern, std::string_view name);

}  // namespace dlldoctor::env
