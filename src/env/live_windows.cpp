// The live Windows environment: the one file that asks Windows (not flags, hives or snapshots) where this
// process's DLLs would come from. Everything it learns goes into an env::Environment value, so the
// resolver and the rules below never touch the machine themselves (docs/STYLE.md).
#ifdef _WIN32

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/utf8_windows.hpp"
#include "core/windows_api.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/env/environment.hpp"
#include "env/system_names.hpp"

namespace dlldoctor::env {
namespace {

constexpr const wchar_t* kSessionManager = L"SYSTEM\\CurrentControlSet\\Control\\Session Manager";

// Calls one of the "fill this buffer, or tell me the size" functions (GetSystemDirectoryW and friends).
template <typename Fill>
std::wstring sized_string(Fill fill) {
  std::wstring buffer(MAX_PATH, L'\0');
  for (int attempt = 0; attempt < 4; ++attempt) {
    const DWORD n = fill(buffer.data(), static_cast<DWORD>(buffer.size()));
    if (n == 0) return {};
    if (n < buffer.size()) {
      buffer.resize(n);
      return buffer;
    }
    buffer.assign(static_cast<std::size_t>(n) + 1, L'\0');
  }
  return {};
}

std::wstring expand(const std::wstring& text) {
  return sized_string([&](wchar_t* out, DWORD size) {
    // ExpandEnvironmentStringsW counts the terminating NUL in its result.
    const DWORD n = ExpandEnvironmentStringsW(text.c_str(), out, size);
    return n == 0 ? 0 : (n <= size ? n - 1 : n);
  });
}

// A REG_SZ or REG_EXPAND_SZ value, %VARS% expanded with this process's variables (DOMAIN.md §5).
std::optional<std::wstring> registry_string(HKEY root, const wchar_t* key, const wchar_t* name) {
  DWORD type = 0;
  DWORD bytes = 0;
  const DWORD kinds = RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ | RRF_NOEXPAND;
  if (RegGetValueW(root, key, name, kinds, &type, nullptr, &bytes) != ERROR_SUCCESS) return std::nullopt;
  std::wstring value(bytes / sizeof(wchar_t) + 1, L'\0');
  if (RegGetValueW(root, key, name, kinds, &type, value.data(), &bytes) != ERROR_SUCCESS) return std::nullopt;
  value.resize(wcsnlen(value.c_str(), value.size()));
  return type == REG_EXPAND_SZ ? expand(value) : value;
}

std::optional<DWORD> registry_dword(HKEY root, const wchar_t* key, const wchar_t* name) {
  DWORD value = 0;
  DWORD bytes = sizeof value;
  if (RegGetValueW(root, key, name, RRF_RT_REG_DWORD, nullptr, &value, &bytes) != ERROR_SUCCESS) return std::nullopt;
  return value;
}

// HKLM\...\Session Manager\KnownDLLs: each value's data is a DLL name; DllDirectory and DllDirectory32
// name folders, not DLLs.
std::optional<std::vector<DllName>> registry_known_dlls() {
  HKEY key = nullptr;
  const std::wstring path = std::wstring(kSessionManager) + L"\\KnownDLLs";
  if (RegOpenKeyExW(HKEY_LOCAL_MACHINE, path.c_str(), 0, KEY_READ, &key) != ERROR_SUCCESS) return std::nullopt;
  std::vector<std::string> names;
  for (DWORD index = 0;; ++index) {
    wchar_t name[256];
    DWORD name_length = 256;
    wchar_t data[512];
    DWORD data_bytes = sizeof data;
    DWORD type = 0;
    const LSTATUS status =
        RegEnumValueW(key, index, name, &name_length, nullptr, &type, reinterpret_cast<BYTE*>(data), &data_bytes);
    if (status == ERROR_NO_MORE_ITEMS) break;
    if (status != ERROR_SUCCESS || (type != REG_SZ && type != REG_EXPAND_SZ)) continue;
    const std::string value_name = ascii_lower(narrow(std::wstring(name, name_length)));
    if (value_name.rfind("dlldirectory", 0) == 0) continue;
    const std::size_t chars = std::min<std::size_t>(data_bytes / sizeof(wchar_t), 512);
    std::string dll = narrow(std::wstring(data, wcsnlen(data, chars)));
    if (!dll.empty()) names.push_back(std::move(dll));
  }
  RegCloseKey(key);
  return known_dlls_from(names);
}

FolderRef folder_of(const std::wstring& wide, FileSystem& files) {
  FolderRef folder;
  if (wide.empty()) return folder;
  folder.host = absolute_path(narrow(wide));
  folder.windows = folder.host;
  folder.exists = files.folder_exists(folder.host);
  return folder;
}

}  // namespace

Result<Environment> live_environment(FileSystem& files) {
  Environment environment;
  environment.source = "live";
  environment.host_paths_are_windows = true;
  environment.assume_system_dlls = false;

  environment.system32 =
      folder_of(sized_string([](wchar_t* out, DWORD size) { return GetSystemDirectoryW(out, size); }), files);
  if (!environment.system32.exists) return Error{"GetSystemDirectoryW gave no usable System32 folder"};
  // A 32-bit process sees SysWOW64 as its System32 (WOW64 file system redirection); 32-bit Windows has none.
  environment.syswow64 =
      folder_of(sized_string([](wchar_t* out, DWORD size) { return GetSystemWow64DirectoryW(out, size); }), files);
  // The loader's Windows folder is the system's, not a per-user one under Terminal Services.
  environment.windows =
      folder_of(sized_string([](wchar_t* out, DWORD size) { return GetSystemWindowsDirectoryW(out, size); }), files);
  environment.system16 = resolve_folder(environment, environment.windows.host + "\\System", files);
  environment.cwd =
      folder_of(sized_string([](wchar_t* out, DWORD size) { return GetCurrentDirectoryW(size, out); }), files);

  const std::wstring path =
      sized_string([](wchar_t* out, DWORD size) { return GetEnvironmentVariableW(L"PATH", out, size); });
  append_path_entries(environment, narrow(path), files);

  // The other variables, for load recipes ({env:CUDA_PATH_V12_4}): this process's own block, which
  // is what a program started from the same terminal inherits.
  if (wchar_t* block = GetEnvironmentStringsW()) {
    for (const wchar_t* entry = block; *entry; entry += std::wcslen(entry) + 1) {
      const std::string text = narrow(entry);
      const auto equals = text.find('=', 1);  // "=C:=C:\x": a drive's current folder, not a variable
      if (text.front() == '=' || equals == std::string::npos) continue;
      environment.variables[ascii_lower(text.substr(0, equals))] = {text.substr(equals + 1), "live process"};
    }
    FreeEnvironmentStringsW(block);
  }

  const std::wstring manager_environment = std::wstring(kSessionManager) + L"\\Environment";
  if (auto machine = registry_string(HKEY_LOCAL_MACHINE, manager_environment.c_str(), L"Path")) {
    environment.machine_path = narrow(*machine);
  }
  if (auto user = registry_string(HKEY_CURRENT_USER, L"Environment", L"Path")) environment.user_path = narrow(*user);

  // Absent means on, the default since Windows XP SP2 (DOMAIN.md §1).
  environment.safe_dll_search_mode =
      registry_dword(HKEY_LOCAL_MACHINE, kSessionManager, L"SafeDllSearchMode").value_or(1) != 0;
  if (auto known = registry_known_dlls()) {
    environment.known_dlls = std::move(*known);
    environment.known_dlls_source = "registry (HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\KnownDLLs)";
  } else {
    environment.known_dlls = default_known_dlls();
    environment.known_dlls_source = "built-in (Windows 10/11 x64): the KnownDLLs key could not be read";
  }

  use_system_api_sets(environment, files);
  environment.notes.push_back("live environment: this process's PATH, current folder and registry");
  return environment;
}

std::vector<RegisteredPython> live_registered_pythons() {
  std::vector<RegisteredPython> found;
  const std::pair<HKEY, const char*> roots[] = {{HKEY_CURRENT_USER, "HKCU"}, {HKEY_LOCAL_MACHINE, "HKLM"}};
  for (const auto& [root, shown] : roots) {
    HKEY core = nullptr;
    if (RegOpenKeyExW(root, L"Software\\Python\\PythonCore", 0, KEY_READ, &core) != ERROR_SUCCESS) continue;
    wchar_t tag[256];
    for (DWORD index = 0;; ++index) {
      DWORD length = 256;
      if (RegEnumKeyExW(core, index, tag, &length, nullptr, nullptr, nullptr, nullptr) != ERROR_SUCCESS) break;
      const std::wstring install = std::wstring(L"Software\\Python\\PythonCore\\") + tag + L"\\InstallPath";
      std::string executable;
      if (auto path = registry_string(root, install.c_str(), L"ExecutablePath"); path && !path->empty()) {
        executable = narrow(*path);
      } else if (auto folder = registry_string(root, install.c_str(), nullptr); folder && !folder->empty()) {
        executable = narrow(*folder);
        executable += (executable.back() == '\\' ? "" : "\\") + std::string("python.exe");
      }
      if (!executable.empty())
        found.push_back({executable, std::string(shown) + "\\Software\\Python\\PythonCore\\" + narrow(tag)});
    }
    RegCloseKey(core);
  }
  return found;
}

std::vector<std::pair<std::string, std::string>> live_software_subkey_values(const std::string& key,
                                                                             const std::string& value) {
  std::vector<std::pair<std::string, std::string>> found;
  const std::wstring parent = L"SOFTWARE\\" + widen(key);
  HKEY opened = nullptr;
  if (RegOpenKeyExW(HKEY_LOCAL_MACHINE, parent.c_str(), 0, KEY_READ, &opened) != ERROR_SUCCESS) return found;
  wchar_t name[256];
  for (DWORD index = 0;; ++index) {
    DWORD length = 256;
    if (RegEnumKeyExW(opened, index, name, &length, nullptr, nullptr, nullptr, nullptr) != ERROR_SUCCESS) break;
    const std::wstring sub = parent + L"\\" + name;
    if (auto text = registry_string(HKEY_LOCAL_MACHINE, sub.c_str(), widen(value).c_str()); text && !text->empty())
      found.emplace_back(narrow(name), narrow(*text));
  }
  RegCloseKey(opened);
  return found;
}

std::string live_os_version() {
  // GetVersionEx reports the version the manifest asks for; RtlGetVersion tells the truth.
  using RtlGetVersionFn = LONG(WINAPI*)(OSVERSIONINFOW*);
  using WineGetVersionFn = const char*(CDECL*)();
  const HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  std::string text = "unknown";
  if (!ntdll) return text;
  if (auto proc = GetProcAddress(ntdll, "RtlGetVersion")) {
    OSVERSIONINFOW info{};
    info.dwOSVersionInfoSize = sizeof info;
    if (reinterpret_cast<RtlGetVersionFn>(reinterpret_cast<void*>(proc))(&info) == 0) {
      text = fmt::format("{}.{}.{}", info.dwMajorVersion, info.dwMinorVersion, info.dwBuildNumber);
    }
  }
  if (auto proc = GetProcAddress(ntdll, "wine_get_version")) {
    text += fmt::format(" (Wine {})", reinterpret_cast<WineGetVersionFn>(reinterpret_cast<void*>(proc))());
  }
  return text;
}

}  // namespace dlldoctor::env

#endif  // _WIN32
