// The search order for every documented variant (DOMAIN.md §1), on an environment value: no disk.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/resolve/resolver.hpp"

using namespace dlldoctor;
using resolve::SearchStep;
namespace flags = resolve::load_flags;

namespace {

// Folders exist or not by name; files are never found (the order alone is under test).
class NoFiles final : public env::FileSystem {
 public:
  std::optional<std::string> find_file(const std::string&, std::string_view) override { return std::nullopt; }
  std::optional<std::string> find_folder(const std::string&, std::string_view) override { return std::nullopt; }
  bool folder_exists(const std::string&) override { return true; }
  std::vector<std::string> file_names(const std::string&) override { return {}; }
  std::vector<std::string> folder_names(const std::string&) override { return {}; }
  std::optional<std::string> read_small_file(const std::string&, std::size_t) override { return std::nullopt; }
  std::vector<std::string> unreadable_folders() const override { return {}; }
};

env::FolderRef folder(const std::string& name) { return env::FolderRef{name, std::nullopt, true}; }

struct Fixture {
  env::Environment environment;
  NoFiles files;
  pe::ImageCache images;
  resolve::ProcessState process;

  Fixture() {
    environment.system32 = folder("sys32");
    environment.syswow64 = folder("syswow64");
    environment.system16 = folder("system");
    environment.windows = folder("windows");
    environment.cwd = folder("cwd");
    environment.path = {{"p1", folder("p1"), "", std::nullopt}, {"p2", folder("p2"), "", std::nullopt}};
    process.app_dir = folder("app");
    process.machine = pe::machine::kAmd64;
  }

  // "step:folder" for each searched folder.
  std::vector<std::string> order(const resolve::SearchContext& context = {}) {
    resolve::Resolver resolver(environment, files, images, resolve::WrongMachinePolicy::Fail);
    std::vector<std::string> out;
    for (const auto& f : resolver.search_order(process, context)) {
      out.push_back(std::string(resolve::step_name(f.step)) + ":" + f.folder.host);
    }
    return out;
  }
};

using Order = std::vector<std::string>;

}  // namespace

TEST_CASE("standard order with SafeDllSearchMode on: app, System32, System, Windows, cwd, PATH") {
  Fixture f;
  CHECK(f.order() ==
        Order{"app_dir:app", "system32:sys32", "system16:system", "windows:windows", "cwd:cwd", "path:p1", "path:p2"});
}

TEST_CASE("SafeDllSearchMode off moves the current folder to second place") {
  Fixture f;
  f.environment.safe_dll_search_mode = false;
  CHECK(f.order() ==
        Order{"app_dir:app", "cwd:cwd", "system32:sys32", "system16:system", "windows:windows", "path:p1", "path:p2"});
}

TEST_CASE("a 32-bit process searches SysWOW64 in place of System32") {
  Fixture f;
  f.process.machine = pe::machine::kI386;
  CHECK(f.order()[1] == "system32:syswow64");
}

TEST_CASE("SetDllDirectory puts its folder second and removes the current folder") {
  Fixture f;
  f.process.settings.dll_directory = folder("setdir");
  CHECK(f.order() == Order{"app_dir:app", "dll_directory:setdir", "system32:sys32", "system16:system",
                           "windows:windows", "path:p1", "path:p2"});
}

TEST_CASE("LOAD_WITH_ALTERED_SEARCH_PATH with a full path: the DLL's folder replaces the program's") {
  Fixture f;
  resolve::SearchContext context;
  context.flags = flags::kAlteredSearchPath;
  context.dll_load_dir = folder("dlldir");
  CHECK(f.order(context) == Order{"dll_load_dir:dlldir", "system32:sys32", "system16:system", "windows:windows",
                                  "cwd:cwd", "path:p1", "path:p2"});
  // Without a path the flag changes nothing.
  context.dll_load_dir.reset();
  CHECK(f.order(context) == f.order());
}

TEST_CASE("LOAD_LIBRARY_SEARCH_* flags: only the named places, in the documented order, never PATH or cwd") {
  Fixture f;
  f.process.settings.user_dirs = {folder("user1"), folder("user2")};
  resolve::SearchContext context;
  context.dll_load_dir = folder("dlldir");
  context.flags = flags::kSearchDefaultDirs;
  CHECK(f.order(context) == Order{"app_dir:app", "user_dir:user1", "user_dir:user2", "system32:sys32"});
  context.flags = flags::kSearchDefaultDirs | flags::kSearchDllLoadDir;
  CHECK(f.order(context) ==
        Order{"dll_load_dir:dlldir", "app_dir:app", "user_dir:user1", "user_dir:user2", "system32:sys32"});
  context.flags = flags::kSearchSystem32;
  CHECK(f.order(context) == Order{"system32:sys32"});
  context.flags = flags::kSearchApplicationDir | flags::kSearchSystem32;
  CHECK(f.order(context) == Order{"app_dir:app", "system32:sys32"});
}

TEST_CASE("SetDefaultDllDirectories applies to calls without search flags of their own") {
  Fixture f;
  f.process.settings.default_dirs = flags::kSearchDefaultDirs;
  f.process.settings.user_dirs = {folder("user1")};
  CHECK(f.order() == Order{"app_dir:app", "user_dir:user1", "system32:sys32"});
  resolve::SearchContext context;
  context.flags = flags::kSearchSystem32;
  CHECK(f.order(context) == Order{"system32:sys32"});
}

TEST_CASE("load flags parse from names, Windows constants and numbers") {
  CHECK(*resolve::parse_load_flags("search-default-dirs,search-dll-load-dir") == 0x1100);
  CHECK(*resolve::parse_load_flags("LOAD_LIBRARY_SEARCH_DEFAULT_DIRS|LOAD_WITH_ALTERED_SEARCH_PATH") == 0x1008);
  CHECK(*resolve::parse_load_flags("0x1100") == 0x1100);
  CHECK(*resolve::parse_load_flags("256, 0x800") == 0x900);
  CHECK_FALSE(resolve::parse_load_flags("search-everywhere").ok());
  CHECK(resolve::load_flag_names(0x1108) ==
        std::vector<std::string>{"altered-search-path", "search-dll-load-dir", "search-default-dirs"});
  CHECK(resolve::load_flag_names(0x20001) == std::vector<std::string>{"0x20001"});
}

TEST_CASE("names with a folder part are paths") {
  CHECK(resolve::has_path("C:\\x\\y.dll"));
  CHECK(resolve::has_path("lib/y.dll"));
  CHECK_FALSE(resolve::has_path("y.dll"));
  CHECK(base_name("C:\\x/y\\Z.dll") == "Z.dll");
}

TEST_CASE("machines that fit a process") {
  using namespace pe::machine;
  CHECK(resolve::machine_fits(kAmd64, kAmd64));
  CHECK_FALSE(resolve::machine_fits(kAmd64, kI386));
  CHECK_FALSE(resolve::machine_fits(kI386, kAmd64));
  CHECK_FALSE(resolve::machine_fits(kAmd64, kArm64));
  CHECK(resolve::machine_fits(kArm64, kArm64X));
  CHECK(resolve::machine_fits(kArm64Ec, kAmd64));
  // Hybrid DLLs (the reader names them from the load config) in x64 processes: ARM64EC is x64 to the
  // loader, ARM64X has an x64-compatible view; in ARM64 processes only ARM64X fits, in x86 neither.
  CHECK(resolve::machine_fits(kAmd64, kArm64Ec));
  CHECK(resolve::machine_fits(kAmd64, kArm64X));
  CHECK(resolve::machine_fits(kArm64Ec, kArm64X));
  CHECK_FALSE(resolve::machine_fits(kArm64, kArm64Ec));
  CHECK_FALSE(resolve::machine_fits(kI386, kArm64Ec));
  CHECK_FALSE(resolve::machine_fits(kI386, kArm64X));
  CHECK_FALSE(resolve::machine_fits(kArm64Ec, kArm64));
}
