// Readers of the Windows environment against real files: Wine's API set schema (when Wine is installed),
// the registry hives built from fixtures/registry/*.reg, and the case-insensitive folder index.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "core/fs.hpp"
#include "dlldoctor/env/api_set.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/file_system.hpp"
#include "dlldoctor/env/snapshot.hpp"
#include "env/registry_hive.hpp"
#include "support/skip.hpp"

namespace fs = std::filesystem;
using dlldoctor::BoundedReader;
using dlldoctor::env::ApiSetSchema;
using dlldoctor::env::HostFileSystem;
using dlldoctor::env::RegistryHive;
using dlldoctor::env::RegistryValue;
namespace reg_type = dlldoctor::env::reg_type;

namespace {

HostFileSystem host_files;  // the disk, where ApiSetSchema::from_file reads the schemas

bool exists(const std::string& path) { return std::ifstream(path).good(); }

// A fresh, empty folder for one test's tree.
fs::path fresh_folder(const std::string& name) {
  const fs::path folder = fs::path(DLLDOCTOR_ENV_WORK_DIR) / name;
  fs::remove_all(folder);
  fs::create_directories(folder);
  return fs::canonical(folder);
}

std::vector<std::uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Empty when fixtures/registry is not part of the build (DLLDOCTOR_BUILD_FIXTURES=OFF): those tests then skip.
const std::string kRegistryDir = DLLDOCTOR_REGISTRY_FIXTURES_DIR;

bool have_registry_fixtures() {
  if (!kRegistryDir.empty()) return true;
  dlldoctor::test::skip(
      "the registry hive fixtures (configure with DLLDOCTOR_BUILD_FIXTURES=ON; hivexregedit builds them)",
      "libwin-hivex-perl");
  return false;
}

// Wine's files stand in for a Windows installation's; the test cases that read them are in the test suite
// needs-wine64 (tests/CMakeLists.txt runs them as their own CTest entry).
bool have_wine_file(const std::string& path) {
  if (exists(path)) return true;
  dlldoctor::test::skip(path, "wine64");
  return false;
}

RegistryHive open_hive(const std::string& name) {
  auto hive = RegistryHive::open(kRegistryDir + "/" + name);
  REQUIRE_MESSAGE(hive.ok(), (hive.ok() ? "" : hive.error().message));
  return hive.value();
}

std::map<std::string, RegistryValue> values_of(const RegistryHive& hive, const std::string& path) {
  auto key = hive.find_key(path);
  REQUIRE_MESSAGE(key.ok(), (key.ok() ? "" : key.error().message));
  REQUIRE_MESSAGE(key->has_value(), path);
  auto values = hive.values(**key);
  REQUIRE_MESSAGE(values.ok(), (values.ok() ? "" : values.error().message));
  std::map<std::string, RegistryValue> out;
  for (auto& v : *values) out.emplace(v.name, v);
  return out;
}

const char* const kSessionManager = "ControlSet001\\Control\\Session Manager";

// system.reg's machine PATH, as written (not expanded).
const std::string kMachinePath =
    "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin;C:\\Program Files\\NVIDIA GPU Computing "
    "Toolkit\\CUDA\\v12.4\\libnvvp;%SystemRoot%\\system32;%SystemRoot%;%SystemRoot%\\System32\\Wbem;%SYSTEMROOT%"
    "\\System32\\WindowsPowerShell\\v1.0\\;%SYSTEMROOT%\\System32\\OpenSSH\\;C:\\Program Files (x86)\\NVIDIA "
    "Corporation\\PhysX\\Common;C:\\Program Files\\NVIDIA Corporation\\NVIDIA NvDLISR;C:\\Program Files\\NVIDIA "
    "Corporation\\Nsight Compute 2024.1.0\\;C:\\Program Files\\Git\\cmd;C:\\Program Files\\dotnet\\;C:\\Program "
    "Files\\Microsoft SQL Server\\150\\Tools\\Binn\\;C:\\Program Files\\Microsoft SQL Server\\Client "
    "SDK\\ODBC\\170\\Tools\\Binn\\;C:\\Program Files\\CMake\\bin;C:\\Program Files\\Eclipse "
    "Adoptium\\jdk-17.0.10.7-hotspot\\bin;C:\\Program Files\\Docker\\Docker\\resources\\bin;C:\\Program "
    "Files\\nodejs\\;C:\\ProgramData\\chocolatey\\bin;C:\\Program Files\\PowerShell\\7\\;C:\\Program Files "
    "(x86)\\Windows Kits\\10\\Windows Performance Toolkit\\;C:\\Program Files\\Microsoft VS Code\\bin;C:\\Program "
    "Files\\MATLAB\\R2023b\\bin;C:\\Program Files\\MATLAB\\R2023b\\runtime\\win64;C:\\Program "
    "Files\\Intel\\oneAPI\\compiler\\2024.0\\bin;C:\\Program Files\\Intel\\oneAPI\\mkl\\2024.0\\bin;C:\\Program "
    "Files\\7-Zip;C:\\Program Files\\Tesseract-OCR;C:\\Program Files\\NVIDIA\\CUDNN\\v8.9\\bin;C:\\tools\\ffmpeg\\bin;"
    "C:\\Strawberry\\c\\bin;C:\\Strawberry\\perl\\site\\bin;C:\\Strawberry\\perl\\bin;C:\\Program "
    "Files\\Amazon\\AWSCLIV2\\;C:\\Program Files\\Google\\Cloud SDK\\google-cloud-sdk\\bin;C:\\Program "
    "Files\\LLVM\\bin";

void check_text(const std::map<std::string, RegistryValue>& values, const std::string& name, std::uint32_t type,
                const std::string& text) {
  CAPTURE(name);
  auto it = values.find(name);
  REQUIRE(it != values.end());
  CHECK(it->second.type == type);
  CHECK(it->second.text() == text);
}

void check_dword(const std::map<std::string, RegistryValue>& values, const std::string& name, std::uint64_t number) {
  CAPTURE(name);
  auto it = values.find(name);
  REQUIRE(it != values.end());
  CHECK(it->second.type == reg_type::kDword);
  CHECK(it->second.number() == number);
}

}  // namespace

TEST_CASE("Wine's API set schema" * doctest::test_suite("needs-wine64")) {
  const std::string path = DLLDOCTOR_WINE_APISETSCHEMA;
  if (!have_wine_file(path)) return;
  auto schema = ApiSetSchema::from_file(host_files, path);
  REQUIRE_MESSAGE(schema.ok(), (schema.ok() ? "" : schema.error().message));
  CHECK(schema->source() == path);
  // Wine 8.0's schema, read independently (a Python walk over the .apiset section) while writing this test.
  CHECK(schema->size() == 504);
  CHECK(schema->resolve("api-ms-win-core-synch-l1-2-0.dll") == "kernelbase.dll");  // schema lists ...-l1-2-1
  CHECK(schema->resolve("api-ms-win-crt-runtime-l1-1-0.dll") == "ucrtbase.dll");
  CHECK(schema->resolve("api-ms-win-core-rtlsupport-l1-2-0.dll") == "ntdll.dll");
  CHECK(schema->resolve("api-ms-win-core-processthreads-l1-1-0.dll") == "kernel32.dll");
  CHECK(schema->resolve("api-ms-win-core-com-l1-1-0.dll") == "combase.dll");
  CHECK(schema->resolve("api-ms-win-core-winrt-robuffer-l1-1-0.dll") == "wintypes.dll");
  CHECK(schema->resolve("ext-ms-win-ntuser-window-l1-1-4.dll") == "user32.dll");
  CHECK(schema->resolve("EXT-MS-WIN-GDI-DC-L1-2-0") == "gdi32.dll");
  CHECK_FALSE(schema->resolve("api-ms-win-deprecated-apis-legacy-l1-1-0.dll"));  // listed without a host
  CHECK_FALSE(schema->resolve("ext-ms-win-no-such-set-l1-1-0.dll"));
  CHECK_FALSE(schema->resolve("kernel32.dll"));
}

// A table of a few prefix rules would miss sets such as api-ms-win-eventing-provider-l1-1 that Wine's schema,
// itself modelled on Windows', lists.
TEST_CASE("the built-in API set table knows every set of Wine's schema" * doctest::test_suite("needs-wine64")) {
  const std::string path = DLLDOCTOR_WINE_APISETSCHEMA;
  if (!have_wine_file(path)) return;
  auto wine = ApiSetSchema::from_file(host_files, path);
  REQUIRE_MESSAGE(wine.ok(), (wine.ok() ? "" : wine.error().message));
  const ApiSetSchema builtin = ApiSetSchema::builtin();
  const std::vector<std::string> contracts = wine->contracts();
  REQUIRE(contracts.size() == 504);
  int same_host = 0;
  for (const std::string& contract : contracts) {
    const std::string name = contract + "-0.dll";
    CAPTURE(name);
    CHECK(builtin.lists(name));
    // Where Wine has a host, so does Windows; where they differ, the table keeps Windows' host and says
    // so in a comment (rules/api-sets/windows-10-11-x64.txt).
    CHECK(builtin.resolve(name).has_value() == wine->resolve(name).has_value());
    if (builtin.resolve(name) == wine->resolve(name)) ++same_host;
  }
  CHECK(same_host == 504 - 28);
}

TEST_CASE("a sysroot's apisetschema.dll replaces the built-in API set table" * doctest::test_suite("needs-wine64")) {
  const std::string wine_schema = DLLDOCTOR_WINE_APISETSCHEMA;
  if (!have_wine_file(wine_schema)) return;
  const fs::path root = fresh_folder("apiset-sysroot");
  const fs::path system32 = root / "Windows" / "System32";
  fs::create_directories(system32);
  fs::copy_file(wine_schema, system32 / "apisetschema.dll");
  // Wine's schema hosts heap-obsolete-l1-1 in kernel32.dll, Windows 11's (the built-in table) in
  // kernelbase.dll, so the two answers differ.
  const char* const name = "api-ms-win-core-heap-obsolete-l1-1-0.dll";
  REQUIRE(ApiSetSchema::builtin().resolve(name) == "kernelbase.dll");

  dlldoctor::env::EnvironmentFlags flags;
  flags.sysroot = root.string();
  HostFileSystem files;
  auto environment = dlldoctor::env::environment_from_flags(flags, files);
  REQUIRE_MESSAGE(environment.ok(), (environment.ok() ? "" : environment.error().message));
  CHECK(environment->api_sets.source() == (system32 / "apisetschema.dll").string());
  CHECK(environment->api_sets.resolve(name) == "kernel32.dll");
  CHECK(environment->api_sets.size() == ApiSetSchema::from_file(host_files, wine_schema)->size());

  // The same sysroot without the file keeps the built-in table.
  fs::remove(system32 / "apisetschema.dll");
  HostFileSystem fresh_files;
  auto without = dlldoctor::env::environment_from_flags(flags, fresh_files);
  REQUIRE(without.ok());
  CHECK(without->api_sets.source() == ApiSetSchema::builtin().source());
  CHECK(without->api_sets.resolve(name) == "kernelbase.dll");
}

TEST_CASE("each folder is read from the disk once, however many case variants are asked for") {
  const fs::path root = fresh_folder("listing");
  fs::create_directories(root / "a" / "Sub");
  fs::create_directories(root / "b");
  std::ofstream(root / "a" / "CUDNN64_9.DLL") << "x";
  std::ofstream(root / "b" / "zlibwapi.dll") << "x";
  const std::string a = (root / "a").string();
  const std::string b = (root / "b").string();

  HostFileSystem files;
  for (const char* name : {"cudnn64_9.dll", "CUDNN64_9.DLL", "Cudnn64_9.Dll", "cUdNn64_9.dLl", "cudnn64_9.DLL"}) {
    CAPTURE(name);
    CHECK(files.find_file(a, name) == a + "/CUDNN64_9.DLL");
    CHECK_FALSE(files.find_file(b, name));
  }
  for (const char* name : {"zlibwapi.dll", "ZLIBWAPI.DLL", "ZlibWapi.dll", "zlibwapi.DlL"}) {
    CAPTURE(name);
    CHECK(files.find_file(b, name) == b + "/zlibwapi.dll");
    CHECK_FALSE(files.find_file(a, name));
  }
  CHECK(files.find_folder(a, "SUB") == a + "/Sub");
  CHECK(files.find_folder(a, "sub") == a + "/Sub");
  CHECK_FALSE(files.find_file(a, "sub"));  // a folder is not a file
  CHECK(files.folder_exists(a));
  CHECK(files.file_names(a) == std::vector<std::string>{"CUDNN64_9.DLL"});
  CHECK(files.folder_names(a) == std::vector<std::string>{"Sub"});
  CHECK(files.folders_listed() == 2);

  // A folder not asked about before is one more listing; a folder that does not exist is never listed.
  CHECK_FALSE(files.find_file(a + "/Sub", "cudnn64_9.dll"));
  CHECK(files.folders_listed() == 3);
  CHECK_FALSE(files.folder_exists((root / "missing").string()));
  CHECK_FALSE(files.find_file((root / "missing").string(), "ZLIBWAPI.DLL"));
  CHECK(files.folders_listed() == 3);
}

// The listing every folder index and the rules folder are made of, read with raw getdents64 on Linux: each
// entry once, across the many reads a large folder takes, with folders (and links to them) told apart.
TEST_CASE("list_folder visits each entry once and tells folders, links to them and missing folders apart") {
  using dlldoctor::FolderListing;
  const fs::path root = fresh_folder("list_folder");
  fs::create_directories(root / "sub");
  std::ofstream(root / "file.dll") << "x";
  fs::create_directory_symlink(root / "sub", root / "link_to_sub");
  fs::create_symlink(root / "file.dll", root / "link_to_file");
  fs::create_symlink(root / "gone", root / "dangling");
  // Names long enough that 1,000 of them take several 32 KiB reads of the folder.
  constexpr int kMany = 1000;
  for (int i = 0; i < kMany; ++i) std::ofstream(root / (std::string(60, 'n') + std::to_string(i) + ".dll")) << "";

  std::map<std::string, int> seen;
  std::map<std::string, bool> folder;
  const FolderListing listed = dlldoctor::list_folder(root.string(), [&](std::string name, bool is_folder) {
    ++seen[name];
    folder[name] = is_folder;
  });
  CHECK(listed.outcome == FolderListing::Outcome::Listed);
  CHECK(seen.size() == kMany + 5);  // no "." or ".."
  for (const auto& [name, count] : seen) {
    CAPTURE(name);
    CHECK(count == 1);
  }
  CHECK(folder["sub"]);
  CHECK(folder["link_to_sub"]);
  CHECK_FALSE(folder["file.dll"]);
  CHECK_FALSE(folder["link_to_file"]);
  CHECK_FALSE(folder["dangling"]);

  int visits = 0;
  const auto count = [&](std::string, bool) { ++visits; };
  CHECK(dlldoctor::list_folder((root / "missing").string(), count).outcome == FolderListing::Outcome::Missing);
  CHECK(dlldoctor::list_folder((root / "file.dll").string(), count).outcome == FolderListing::Outcome::Missing);
  CHECK(dlldoctor::list_folder((root / "dangling").string(), count).outcome == FolderListing::Outcome::Missing);
  CHECK(dlldoctor::list_folder((root / "link_to_sub").string(), count).outcome == FolderListing::Outcome::Listed);
  CHECK(visits == 0);
}

TEST_CASE("a PE without an .apiset section is not a schema" * doctest::test_suite("needs-wine64")) {
  const std::string path = DLLDOCTOR_WINE_APISETSCHEMA;
  const std::string kernel32 = path.substr(0, path.rfind('/')) + "/kernel32.dll";
  if (!have_wine_file(kernel32)) return;
  CHECK_FALSE(ApiSetSchema::from_file(host_files, kernel32).ok());
  CHECK_FALSE(ApiSetSchema::from_file(host_files, kernel32 + ".missing").ok());
}

TEST_CASE("the SYSTEM fixture reads back as system.reg wrote it" * doctest::test_suite("needs-libwin-hivex-perl")) {
  if (!have_registry_fixtures()) return;
  const RegistryHive hive = open_hive("SYSTEM");
  CHECK(*hive.current_control_set() == "ControlSet001");

  const auto select = values_of(hive, "Select");
  CHECK(select.size() == 4);
  check_dword(select, "Current", 1);
  check_dword(select, "Default", 1);
  check_dword(select, "Failed", 0);
  check_dword(select, "LastKnownGood", 1);

  const auto session = values_of(hive, kSessionManager);
  CHECK(session.size() == 4);
  check_dword(session, "CriticalSectionTimeout", 0x278d00);
  check_dword(session, "GlobalFlag", 0);
  CHECK(session.at("BootExecute").strings() == std::vector<std::string>{"autocheck autochk *"});
  CHECK(session.at("ObjectDirectories").strings() == std::vector<std::string>{"\\Windows", "\\RPC Control"});
  CHECK(session.count("SafeDllSearchMode") == 0);

  const std::map<std::string, std::string> known{
      {"_wow64", "wow64.dll"},      {"_wow64cpu", "wow64cpu.dll"}, {"_wow64win", "wow64win.dll"},
      {"advapi32", "advapi32.dll"}, {"clbcatq", "clbcatq.dll"},    {"combase", "combase.dll"},
      {"COMDLG32", "COMDLG32.dll"}, {"coml2", "coml2.dll"},        {"DifxApi", "difxapi.dll"},
      {"gdi32", "gdi32.dll"},       {"gdiplus", "gdiplus.dll"},    {"IMAGEHLP", "IMAGEHLP.dll"},
      {"IMM32", "IMM32.dll"},       {"kernel32", "kernel32.dll"},  {"MSCTF", "MSCTF.dll"},
      {"MSVCRT", "MSVCRT.dll"},     {"NORMALIZ", "NORMALIZ.dll"},  {"NSI", "NSI.dll"},
      {"ole32", "ole32.dll"},       {"OLEAUT32", "OLEAUT32.dll"},  {"PSAPI", "PSAPI.DLL"},
      {"rpcrt4", "rpcrt4.dll"},     {"sechost", "sechost.dll"},    {"Setupapi", "Setupapi.dll"},
      {"SHCORE", "SHCORE.dll"},     {"SHELL32", "SHELL32.dll"},    {"SHLWAPI", "SHLWAPI.dll"},
      {"user32", "user32.dll"},     {"WLDAP32", "WLDAP32.dll"},    {"WS2_32", "WS2_32.dll"},
  };
  const auto known_dlls = values_of(hive, std::string(kSessionManager) + "\\KnownDLLs");
  CHECK(known_dlls.size() == known.size() + 2);
  for (const auto& [name, dll] : known) check_text(known_dlls, name, reg_type::kSz, dll);
  check_text(known_dlls, "DllDirectory", reg_type::kExpandSz, "%SystemRoot%\\system32");
  check_text(known_dlls, "DllDirectory32", reg_type::kExpandSz, "%SystemRoot%\\syswow64");

  const auto env = values_of(hive, std::string("controlset001\\CONTROL\\session manager") + "\\Environment");
  CHECK(env.size() == 10);
  check_text(env, "ComSpec", reg_type::kExpandSz, "%SystemRoot%\\system32\\cmd.exe");
  check_text(env, "CUDA_PATH", reg_type::kSz, "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4");
  check_text(env, "CUDA_PATH_V12_4", reg_type::kSz, "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4");
  check_text(env, "NUMBER_OF_PROCESSORS", reg_type::kSz, "16");
  check_text(env, "OS", reg_type::kSz, "Windows_NT");
  check_text(env, "PROCESSOR_ARCHITECTURE", reg_type::kSz, "AMD64");
  check_text(env, "TEMP", reg_type::kExpandSz, "%SystemRoot%\\TEMP");
  check_text(env, "TMP", reg_type::kExpandSz, "%SystemRoot%\\TEMP");
  check_text(env, "windir", reg_type::kExpandSz, "%SystemRoot%");
  check_text(env, "Path", reg_type::kExpandSz, kMachinePath);
  CHECK(kMachinePath.size() > 1024);  // past what setx keeps

  const std::string expanded =
      dlldoctor::env::expand_environment_strings(*env.at("Path").text(), {{"SystemRoot", "C:\\WINDOWS"}});
  CHECK(expanded.find("%") == std::string::npos);
  CHECK(expanded.find(";C:\\WINDOWS\\system32;C:\\WINDOWS;C:\\WINDOWS\\System32\\Wbem;") != std::string::npos);
}

TEST_CASE("the SafeDllSearchMode variant turns it off" * doctest::test_suite("needs-libwin-hivex-perl")) {
  if (!have_registry_fixtures()) return;
  const RegistryHive hive = open_hive("SYSTEM-SafeDllSearchMode0");
  const auto session = values_of(hive, kSessionManager);
  check_dword(session, "SafeDllSearchMode", 0);
  CHECK(values_of(hive, std::string(kSessionManager) + "\\KnownDLLs").size() == 32);
}

TEST_CASE("the NTUSER.DAT fixture reads back as ntuser.reg wrote it" * doctest::test_suite("needs-libwin-hivex-perl")) {
  if (!have_registry_fixtures()) return;
  const RegistryHive hive = open_hive("NTUSER.DAT");
  const auto env = values_of(hive, "Environment");
  CHECK(env.size() == 4);
  check_text(env, "OneDrive", reg_type::kExpandSz, "C:\\Users\\Zo\xc3\xab\\OneDrive");
  check_text(env, "Path", reg_type::kExpandSz,
             "%USERPROFILE%\\AppData\\Local\\Microsoft\\WindowsApps;C:\\Program Files\\NVIDIA\\CUDNN\\v9.1\\bin\\12.4;"
             "%USERPROFILE%\\AppData\\Local\\Programs\\Python\\Python312\\Scripts\\;"
             "%USERPROFILE%\\AppData\\Local\\Programs\\Python\\Python312\\");
  check_text(env, "TEMP", reg_type::kExpandSz, "%USERPROFILE%\\AppData\\Local\\Temp");
  check_text(env, "TMP", reg_type::kExpandSz, "%USERPROFILE%\\AppData\\Local\\Temp");
}

TEST_CASE("a sysroot's registry gives the process its variables; a snapshot keeps only those recipes read" *
          doctest::test_suite("needs-libwin-hivex-perl")) {
  if (!have_registry_fixtures()) return;
  const fs::path root = fresh_folder("variables-sysroot");
  fs::create_directories(root / "Windows" / "System32" / "config");
  fs::copy_file(kRegistryDir + "/SYSTEM-cuda-elsewhere", root / "Windows" / "System32" / "config" / "SYSTEM");
  fs::create_directories(root / "Users" / "zoe");
  fs::copy_file(kRegistryDir + "/NTUSER.DAT", root / "Users" / "zoe" / "NTUSER.DAT");
  dlldoctor::env::EnvironmentFlags flags;
  flags.sysroot = root.string();
  HostFileSystem files;
  auto environment = dlldoctor::env::environment_from_flags(flags, files);
  REQUIRE_MESSAGE(environment.ok(), (environment.ok() ? "" : environment.error().message));
  const auto& variables = environment->variables;
  REQUIRE(variables.count("cuda_path_v12_4"));
  CHECK(variables.at("cuda_path_v12_4").value == "C:\\Tools\\CUDA\\v12.4");
  CHECK(variables.at("cuda_path_v12_4").source == "registry: machine");
  // %SystemRoot% expanded; a user variable hides the machine's of the same name; Path is not a variable here.
  CHECK(variables.at("comspec").value == "C:\\Windows\\system32\\cmd.exe");
  CHECK(variables.at("temp").value == "C:\\Users\\zoe\\AppData\\Local\\Temp");
  CHECK(variables.at("temp").source == "registry: user (zoe)");
  CHECK(variables.at("onedrive").value == "C:\\Users\\Zo\xc3\xab\\OneDrive");
  CHECK(variables.count("path") == 0);

  dlldoctor::env::SnapshotInfo info;
  info.variable_patterns = {"cuda_path_v*_*"};
  const auto snapshot = dlldoctor::env::snapshot_to_json(*environment, info);
  CHECK(snapshot["variables"] == nlohmann::json{{"cuda_path_v12_4", "C:\\Tools\\CUDA\\v12.4"}});
  auto replayed = dlldoctor::env::environment_from_snapshot(snapshot.dump(), {}, files);
  REQUIRE(replayed.ok());
  CHECK(replayed->variables.at("cuda_path_v12_4").source == "snapshot");
  CHECK(replayed->variables.size() == 1);
}

TEST_CASE("truncated and corrupted copies of the SYSTEM fixture give errors, not crashes" *
          doctest::test_suite("needs-libwin-hivex-perl")) {
  if (!have_registry_fixtures()) return;
  const auto good = slurp(kRegistryDir + "/SYSTEM");
  REQUIRE(good.size() > 8192);

  for (std::size_t length = 0; length < good.size(); length += 512) {
    CAPTURE(length);
    CHECK_FALSE(RegistryHive::from_bytes(BoundedReader(good.data(), length)).ok());
  }

  // Every 4th byte of the hive bins overwritten with 0xff bytes: walking the paths dlldoctor uses must
  // return (an error or a value), whatever the damage hits.
  std::size_t failures = 0;
  for (std::size_t at = 4096; at < good.size(); at += 4) {
    auto bytes = good;
    for (std::size_t i = 0; i < 4; ++i) bytes[at + i] = 0xff;
    auto hive = RegistryHive::from_bytes(BoundedReader(bytes.data(), bytes.size()));
    if (!hive.ok()) {
      ++failures;
      continue;
    }
    for (const char* path : {"Select", "ControlSet001\\Control\\Session Manager\\KnownDLLs",
                             "ControlSet001\\Control\\Session Manager\\Environment"}) {
      auto key = hive->find_key(path);
      if (!key.ok()) {
        ++failures;
        continue;
      }
      if (!key->has_value()) continue;
      auto values = hive->values(**key);
      if (!values.ok()) ++failures;
      (void)hive->subkey_names(**key);
    }
  }
  CHECK(failures > 0);  // some of the damage must have been noticed
}
