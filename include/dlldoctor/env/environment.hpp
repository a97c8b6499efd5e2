#pragma once
// Where DLLs can come from, as a value: the resolver reads this, never the live machine. Built from
// command-line flags here (Linux, or Windows with overrides); the live Windows capture and snapshots
// produce the same type.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/result.hpp"
#include "dlldoctor/env/api_set.hpp"
#include "dlldoctor/env/file_system.hpp"
#include "dlldoctor/pe/image.hpp"

namespace dlldoctor::env {

struct FolderRef {
  std::string host;                    // the folder on this machine; empty when it cannot be mapped
  std::optional<std::string> windows;  // C:\... when known
  bool exists = false;
};

struct PathEntry {
  std::string text;  // the entry as given
  FolderRef folder;
  std::string note;  // why the entry is unusual ("empty: the current folder", "quoted", ...)
  // For an entry that does not exist, the folder it was meant to name: for a quoted entry, the folder
  // without the quotes; otherwise a real folder beside it whose name it is the start of, as an entry cut
  // short by setx's 1024-character limit leaves it.
  std::optional<FolderRef> completion;
};

struct Environment {
  std::string source = "flags";  // "flags", "live" (this Windows process), "snapshot" (--env FILE)
  std::optional<std::string> sysroot;
  // dlldoctor runs on the Windows it describes (live, or flags on Windows without --sysroot): C:\... paths
  // are paths of this machine, and a host path is its own Windows path.
  bool host_paths_are_windows = false;
  FolderRef system32;  // for 64-bit processes (and 32-bit ones on 32-bit Windows)
  FolderRef syswow64;  // System32 of 32-bit processes on 64-bit Windows
  FolderRef system16;  // Windows\System
  FolderRef windows;
  FolderRef cwd;
  std::vector<PathEntry> path;
  bool safe_dll_search_mode = true;
  std::vector<DllName> known_dlls;  // in the order given
  std::string known_dlls_source;    // "built-in", "registry: <hive>", "--known-dlls"
  ApiSetSchema api_sets = ApiSetSchema::builtin();
  // No Windows system to look at: stock Windows DLLs are taken as present in System32 and marked
  // "assumed" (env/system_names.hpp).
  bool assume_system_dlls = false;
  // The PATH values stored in the registry (REG_EXPAND_SZ, expanded), when a hive could be read: a
  // process started before they changed still has the old value (DOMAIN.md §5).
  std::optional<std::string> machine_path;
  std::optional<std::string> user_path;
  // The Windows user profile ("C:\Users\ana") whose registry PATH was read (--windows-user, or the only
  // profile under the sysroot): its Python user site is the one a process of that user searches.
  std::optional<std::string> profile;
  // Other environment variables the process has, for load recipes ({env:CUDA_PATH}): lower-cased name
  // -> value and where it came from ("--setenv", "registry: machine", "registry: user").
  struct Variable {
    std::string value;
    std::string source;
  };
  std::map<std::string, Variable> variables;
  // --map HOSTDIR=WINDOWSDIR: folders copied from a Windows machine, and where they were there. Paths under
  // them are shown (and taken) as Windows paths, as the sysroot's are.
  struct FolderMap {
    std::string host;     // absolute, lexically normal
    std::string windows;  // "C:\tools\cudnn", no trailing backslash
  };
  std::vector<FolderMap> maps;
  std::vector<std::string> notes;  // assumptions made and problems met while building this value
  // A snapshot replayed without --sysroot: the DLLs its System32 and SysWOW64 held (name -> file
  // version). They stand in for the disk: with assume_system_dlls, these names instead of the
  // built-in stock list are assumed present in the system folder (DECISIONS.md, "Snapshots").
  std::optional<std::map<DllName, std::optional<pe::Version>>> system32_dlls;
  std::optional<std::map<DllName, std::optional<pe::Version>>> syswow64_dlls;
};

// Whether `name` is taken as present in the system folder without being on this disk (only with
// assume_system_dlls): listed by the snapshot, or else a stock Windows DLL. `version` gets the snapshot's
// file version when it has one.
bool assumes_system_dll(const Environment& environment, const DllName& name, bool wow64,
                        std::optional<pe::Version>* version = nullptr);

// Appends the entries of a ;-separated PATH value, each resolved like --path (empty = current folder,
// quoted, missing, cut short by setx).
void append_path_entries(Environment& environment, std::string_view value, FileSystem& files);
// The API set schema of the machine's System32 (apisetschema.dll), when it is there and readable; a
// damaged one leaves the built-in table and a note.
void use_system_api_sets(Environment& environment, FileSystem& files);

struct EnvironmentFlags {
  std::optional<std::string> sysroot;
  std::vector<std::string> path;  // each may hold several entries separated by ';'
  std::optional<std::string> cwd;
  std::optional<bool> safe_dll_search_mode;
  std::optional<std::vector<std::string>> known_dlls;
  std::optional<std::string> windows_user;  // whose NTUSER.DAT gives the user PATH (default: the only profile)
  std::vector<std::string> maps;            // --map HOSTDIR=WINDOWSDIR
  // The sysroot is a partial copy: stock Windows DLLs missing from it are taken as present.
  bool assume_system_dlls = false;
};

Result<Environment> environment_from_flags(const EnvironmentFlags& flags, FileSystem& files);

// --map HOSTDIR=WINDOWSDIR texts, read for any environment (flags or a snapshot): an Error names the bad one.
Result<std::vector<Environment::FolderMap>> folder_maps(const std::vector<std::string>& texts, FileSystem& files);

// A Python registered for the py launcher (PEP 514: Software\Python\PythonCore\<tag>\InstallPath).
struct RegisteredPython {
  std::string executable;  // Windows path: ExecutablePath, else the InstallPath folder's python.exe
  std::string key;         // where it was read: "HKCU\Software\Python\PythonCore\3.11"
};

// The user's registrations (the NTUSER.DAT of `profile` under the sysroot, HKCU live), then the machine's
// (the SOFTWARE hive, HKLM live); none without a Windows to read. Read on demand: the SOFTWARE hive is
// large, and only `check` asks.
std::vector<RegisteredPython> registered_pythons(const Environment& environment, FileSystem& files);

// The value `value` of each subkey of HKLM\SOFTWARE\`key` (the SOFTWARE hive under the sysroot, or the live
// registry): {subkey, text}, the registry's order. Empty without a Windows to read, or when the key is not
// there; an unreadable value is skipped. On demand, as registered_pythons.
std::vector<std::pair<std::string, std::string>> software_subkey_values(const Environment& environment,
                                                                        FileSystem& files, const std::string& key,
                                                                        const std::string& value);

#ifdef _WIN32
// This Windows process's own environment (src/env/live_windows.cpp, the one place that asks Windows):
// PATH, current folder, system folders, SafeDllSearchMode, KnownDLLs, the registry's machine and user
// PATH. source = "live".
Result<Environment> live_environment(FileSystem& files);
// "10.0.19045" (RtlGetVersion), with " (Wine 8.0)" when Wine's ntdll says so.
std::string live_os_version();
// registered_pythons of this Windows: HKCU's, then HKLM's.
std::vector<RegisteredPython> live_registered_pythons();
// software_subkey_values of this Windows.
std::vector<std::pair<std::string, std::string>> live_software_subkey_values(const std::string& key,
                                                                             const std::string& value);
#endif

// A folder named the way a user types it: a Windows path ("C:\Program Files\x", mapped through the
// sysroot, case-insensitively) or a host path.
FolderRef resolve_folder(const Environment& environment, std::string_view text, FileSystem& files);

// The folder of a path the simulated process itself names (a LoadLibrary path such as "sub\\x.dll"): a
// relative one is taken from the process's current folder (environment.cwd), never from dlldoctor's own.
FolderRef resolve_process_folder(const Environment& environment, std::string_view text, FileSystem& files);

// `path` with the host folder `root` replaced by `windows` (a Windows folder, or a placeholder standing for
// one), backslashes after it, if the path is under that folder.
std::optional<std::string> rebase_path(const std::string& path, const std::string& root, const std::string& windows);

// The Windows spelling of a host path under the sysroot, if it is under it.
std::optional<std::string> windows_path_of(const Environment& environment, const std::string& host_path);

// A path as a message shows it: its Windows spelling when the path is under --sysroot or a --map folder,
// else as given. The one rule for every text a user reads (reports, call texts, recipe steps); JSON keeps
// host paths only in fields that name a file to open on the machine dlldoctor ran on.
std::string shown_path(const Environment& environment, const std::string& path);

// A PATH entry as the Windows machine's PATH spells it: a host path under --sysroot or --map is its
// Windows path (inside its quotes, for a quoted one); anything else (a relative entry) as written.
std::string windows_entry_text(const Environment& environment, const std::string& text);

bool is_windows_absolute(std::string_view text);

// A host path made absolute (from dlldoctor's own current folder, or from `base`) and lexically normal,
// without a trailing separator.
std::string absolute_path(std::string_view text);
std::string absolute_path(std::string_view text, const std::string& base);

}  // namespace dlldoctor::env
