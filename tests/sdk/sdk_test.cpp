// Seed 5.3 (LNK1181 and friends): the import library reader on the fixture .lib files, and `dlldoctor sdk`
// run as a user runs it on copies of the fixture cuDNN zip root, each broken one way.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "dlldoctor/pe/image.hpp"
#include "dlldoctor/pe/import_library.hpp"
#include "support/run_process.hpp"
#include "support/text_columns.hpp"

namespace fs = std::filesystem;
using dlldoctor::test::run_process;
using nlohmann::json;

namespace {

const std::string kFixtures = DLLDOCTOR_FIXTURES_DIR;
const std::string kDlldoctor = DLLDOCTOR_BINARY;
const fs::path kWork = DLLDOCTOR_SDK_WORK_DIR;
const fs::path kSdk = fs::path(kFixtures) / "sdk" / "cudnn-9.1.0.70";

// A fresh copy of the fixture zip root, named after the test.
fs::path sdk_copy(const std::string& name) {
  const fs::path root = kWork / name;
  fs::remove_all(root);
  fs::create_directories(root);
  fs::copy(kSdk, root, fs::copy_options::recursive);
  return root;
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

void copy_into(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

struct SdkRun {
  int exit_code = -1;
  json report;
};

SdkRun run_sdk(const fs::path& root, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv{kDlldoctor, "sdk", root.string(), "--format", "json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const auto result = run_process(argv);
  INFO(result.err);
  SdkRun run;
  run.exit_code = result.exit_code;
  run.report = json::parse(result.out);
  CHECK(run.report["schema"] == "dlldoctor.sdk/1");
  return run;
}

// The one finding with this id (fails the test when there is not exactly one).
json finding(const json& report, const std::string& id) {
  json found;
  int count = 0;
  for (const json& f : report["findings"]) {
    if (f["id"] == id) {
      found = f;
      ++count;
    }
  }
  INFO("finding " << id << " in " << report["findings"].dump(2));
  REQUIRE(count == 1);
  CHECK(found["failure_mode"] == "5.3");
  return found;
}

int count_severity(const json& report, const std::string& severity) {
  int count = 0;
  for (const json& f : report["findings"]) count += f["severity"] == severity ? 1 : 0;
  return count;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("the x64 fixture cudnn.lib: machine x64, every member points at cudnn64_9.dll, one by ordinal") {
  const auto library = dlldoctor::pe::read_import_library_file(kFixtures + "/x64/lib/cudnn.lib");
  REQUIRE(library.ok());
  CHECK(library->warnings.empty());
  CHECK(library->machines == std::vector<std::uint16_t>{dlldoctor::pe::machine::kAmd64});
  CHECK(library->dlls == std::vector<std::string>{"cudnn64_9.dll"});
  REQUIRE(library->imports.size() == 5);
  bool ordinal_only = false;
  for (const auto& item : library->imports) {
    CHECK(item.dll == "cudnn64_9.dll");
    CHECK(item.format == dlldoctor::pe::MemberFormat::Short);
    if (item.symbol == "cudnnGetCudartVersion") ordinal_only = item.by_ordinal && item.ordinal_or_hint == 5;
  }
  CHECK(ordinal_only);
}

TEST_CASE("the x86 fixture cudnn.lib: machine x86, C symbols with their underscore") {
  const auto library = dlldoctor::pe::read_import_library_file(kFixtures + "/x86/lib/cudnn.lib");
  REQUIRE(library.ok());
  CHECK(library->machines == std::vector<std::uint16_t>{dlldoctor::pe::machine::kI386});
  CHECK(library->dlls == std::vector<std::string>{"cudnn64_9.dll"});
  REQUIRE_FALSE(library->imports.empty());
  CHECK(library->imports[0].symbol == "_cudnnGetVersion");
}

TEST_CASE("a GNU dlltool import library (long-format members) names its DLL and its ordinal import") {
  const fs::path dir = kWork / "gnu-implib";
  fs::remove_all(dir);
  const fs::path lib = dir / "libcudnn64_9.a";
  write_text(dir / "cudnn64_9.def",
             "LIBRARY cudnn64_9.dll\nEXPORTS\n  cudnnCreate @2\n  cudnnGetCudartVersion @5 NONAME\n");
  const auto made = run_process({DLLDOCTOR_GNU_DLLTOOL, "-d", (dir / "cudnn64_9.def").string(), "-l", lib.string()}, {},
                                dir.string());
  REQUIRE_MESSAGE(made.exit_code == 0, made.err);
  const auto library = dlldoctor::pe::read_import_library_file(lib.string());
  REQUIRE(library.ok());
  CHECK(library->warnings.empty());
  CHECK(library->dlls == std::vector<std::string>{"cudnn64_9.dll"});
  CHECK(library->machines == std::vector<std::uint16_t>{dlldoctor::pe::machine::kAmd64});
  bool by_name = false, by_ordinal = false;
  for (const auto& item : library->imports) {
    CHECK(item.format == dlldoctor::pe::MemberFormat::Long);
    CHECK(item.dll == "cudnn64_9.dll");
    if (item.symbol == "cudnnCreate") by_name = !item.by_ordinal;
    if (item.symbol == "cudnnGetCudartVersion") by_ordinal = item.by_ordinal && item.ordinal_or_hint == 5;
  }
  CHECK(by_name);
  CHECK(by_ordinal);
}

TEST_CASE("a healthy zip root: no errors or warnings, the settings to use, exit 0") {
  const fs::path root = sdk_copy("healthy");
  const SdkRun run = run_sdk(root);
  CHECK(run.exit_code == 0);
  CHECK(count_severity(run.report, "error") == 0);
  CHECK(count_severity(run.report, "warning") == 0);
  CHECK(run.report["layout"] == "zip");
  CHECK(run.report["header_version"]["version"] == "9.1.0");
  CHECK(run.report["header_version"]["number"] == 90100);
  CHECK(run.report["import_library"]["machine"] == "x64");
  CHECK(run.report["import_library"]["dll"] == "cudnn64_9.dll");
  CHECK(run.report["import_library"]["members"].size() == 5);
  CHECK(run.report["dlls"].size() == 8);
  const json settings = finding(run.report, "sdk-settings");
  CHECK(settings["severity"] == "info");
  CHECK(settings["evidence"]["cudnn_root"] == root.string());
  CHECK(settings["evidence"]["include_dir"] == (root / "include").string());
  CHECK(settings["evidence"]["library"] == (root / "lib" / "x64" / "cudnn.lib").string());
  CHECK(settings["evidence"]["additional_dependencies"] == "cudnn.lib");
  const auto& fix = settings["fix"];
  REQUIRE(fix.size() >= 4);
  // A folder of this machine with no Windows path (no --sysroot, no --map) is a placeholder in a command,
  // and the report's legend says once which folder it stands for.
  CHECK(contains(fix[0].get<std::string>(), "('-DCUDNN_ROOT=' + '<...\\sdk-trees\\healthy>')"));
  CHECK(!contains(fix[0].get<std::string>(), root.string()));
  CHECK(settings["placeholders"] == json::array({{{"name", "<...\\sdk-trees\\healthy>"}, {"host", root.string()}}}));
  const std::string text = run_process({kDlldoctor, "sdk", root.string()}).out;
  const std::string legend_line = "\n  <...\\sdk-trees\\healthy> is " + root.string() + "\n";
  CHECK(contains(text, legend_line));
  CHECK(text.find(legend_line) == text.rfind(legend_line));
  CHECK(contains(fix[0].get<std::string>(), "-DCUDNN_LIBRARY="));
  CHECK(contains(fix[1].get<std::string>(), "Include Directories: " + (root / "include").string()));
  CHECK(contains(fix[3].get<std::string>(), "Additional Dependencies: cudnn.lib"));

  SUBCASE("the top-level spelling --sdk DIR gives the same report") {
    const auto result = run_process({kDlldoctor, "--sdk", root.string(), "--format", "json"});
    CHECK(result.exit_code == 0);
    CHECK(json::parse(result.out) == run.report);
  }
  SUBCASE("text output starts with the verdict, and fits 80 columns") {
    const auto result = run_process({kDlldoctor, "sdk", root.string()});
    CHECK(result.exit_code == 0);
    // The verdict wraps like any text line: compare it with its line breaks undone.
    std::string verdict = result.out.substr(0, result.out.find("\n\n"));
    for (auto at = verdict.find("\n  "); at != std::string::npos; at = verdict.find("\n  "))
      verdict.replace(at, 3, " ");
    CHECK(verdict == "cuDNN SDK in " + root.string() + ": usable, cuDNN 9.1.0");
    CHECK(contains(result.out, "info [sdk-settings] 5.3: Build settings for this cuDNN"));
    // Only a fix command (pasted whole) or a path alone on its line may run longer.
    std::istringstream lines(result.out);
    for (std::string line; std::getline(lines, line);) {
      if (dlldoctor::test::columns(line) <= 80) continue;
      const std::string content = line.substr(line.find_first_not_of(' '));
      const bool command = line.rfind("    ", 0) == 0 && content.rfind("#", 0) != 0;
      const bool lone_word = content.find(' ') == std::string::npos;
      CHECK_MESSAGE((command || lone_word), "longer than 80 columns: " << line);
    }
  }
}

TEST_CASE("folder and file names are matched whatever their case") {
  const fs::path root = sdk_copy("case");
  fs::rename(root / "lib" / "x64" / "cudnn.lib", root / "lib" / "x64" / "CUDNN.LIB");
  fs::rename(root / "lib" / "x64", root / "lib" / "X64");
  fs::rename(root / "include", root / "Include");
  const SdkRun run = run_sdk(root);
  CHECK(run.exit_code == 0);
  CHECK(count_severity(run.report, "error") == 0);
  CHECK(run.report["import_library"]["path"] == (root / "lib" / "X64" / "CUDNN.LIB").string());
}

TEST_CASE("cudnn.lib missing from lib/x64 is LNK1181; a stray copy elsewhere is the source of the fix") {
  const fs::path root = sdk_copy("lib-missing");
  fs::rename(root / "lib" / "x64" / "cudnn.lib", root / "lib" / "cudnn.lib");
  const SdkRun run = run_sdk(root);
  CHECK(run.exit_code == 1);
  const json f = finding(run.report, "sdk-import-library-missing");
  CHECK(f["severity"] == "error");
  CHECK(f["evidence"]["library"] == (root / "lib" / "x64" / "cudnn.lib").string());
  CHECK(f["evidence"]["found_elsewhere"] == (root / "lib" / "cudnn.lib").string());
  CHECK(contains(f["message"].get<std::string>(), "LNK1181"));
  const auto& fix = f["fix"];
  REQUIRE(fix.size() >= 2);
  CHECK(contains(fix.back().get<std::string>(), "Copy-Item -Path '<...\\sdk-trees\\lib-missing>\\lib\\cudnn.lib'"));
  CHECK(f["placeholders"] == json::array({{{"name", "<...\\sdk-trees\\lib-missing>"}, {"host", root.string()}}}));
  CHECK(run.report["import_library"].is_null());
}

TEST_CASE("an x86 cudnn.lib in lib/x64 is the wrong machine for an x64 project") {
  const fs::path root = sdk_copy("x86-lib");
  copy_into(kFixtures + "/x86/lib/cudnn.lib", root / "lib" / "x64" / "cudnn.lib");
  const SdkRun run = run_sdk(root);
  CHECK(run.exit_code == 1);
  const json f = finding(run.report, "sdk-import-library-wrong-machine");
  CHECK(f["evidence"]["machine"] == "x86");
  CHECK(f["evidence"]["target_machine"] == "x64");
  CHECK(run.report["import_library"]["machine"] == "x86");
}

TEST_CASE("an x86 project cannot use cuDNN's x64-only import library") {
  const fs::path root = sdk_copy("x86-project");
  const SdkRun run = run_sdk(root, {"--arch", "x86"});
  CHECK(run.exit_code == 1);
  const json f = finding(run.report, "sdk-import-library-wrong-machine");
  CHECK(f["evidence"]["machine"] == "x64");
  CHECK(f["evidence"]["target_machine"] == "x86");
  CHECK(contains(f["fix"][0].get<std::string>(), "x64"));
}

TEST_CASE("header 9.1.0 with a 9.0.0.312 cudnn64_9.dll in bin is a version mismatch") {
  const fs::path root = sdk_copy("version-mismatch");
  copy_into(kFixtures + "/x64/cudnn-9.0/cudnn64_9.dll", root / "bin" / "cudnn64_9.dll");
  const SdkRun run = run_sdk(root);
  CHECK(run.exit_code == 1);
  const json f = finding(run.report, "sdk-version-mismatch");
  CHECK(f["module"] == "cudnn64_9.dll");
  CHECK(f["evidence"]["expected"] == "9.1.0");
  CHECK(f["evidence"]["header_version_number"] == 90100);
  REQUIRE(f["evidence"]["mismatched_dlls"].size() == 1);
  CHECK(f["evidence"]["mismatched_dlls"][0]["file_version"] == "9.0.0.312");
  CHECK(ends_with(f["evidence"]["mismatched_dlls"][0]["path"].get<std::string>(), "cudnn64_9.dll"));
}

TEST_CASE("a cudnn.lib that names cudnn64_9.dll while bin holds only cudnn64_8.dll points elsewhere") {
  const fs::path root = sdk_copy("points-elsewhere");
  fs::remove_all(root / "bin");
  copy_into(kFixtures + "/x64/cudnn64_8.dll", root / "bin" / "cudnn64_8.dll");
  const SdkRun run = run_sdk(root);
  CHECK(run.exit_code == 1);
  const json f = finding(run.report, "sdk-import-library-points-elsewhere");
  CHECK(f["module"] == "cudnn64_9.dll");
  CHECK(f["evidence"]["dll"] == "cudnn64_9.dll");
  CHECK(f["evidence"]["bin_dlls"] == json::array({"cudnn64_8.dll"}));
  // The 8.9.7 DLL does not match the 9.1.0 header either.
  CHECK(finding(run.report, "sdk-version-mismatch")["evidence"]["mismatched_dlls"][0]["file_version"] == "8.9.7.29");
}

TEST_CASE("an 8.x zip with the cuda/ prefix: paths adjusted, 8.x version formula, no errors") {
  const fs::path root = kWork / "cuda-prefix";
  fs::remove_all(root);
  const fs::path cuda = root / "cuda";
  write_text(cuda / "include" / "cudnn_version.h",
             "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n"
             "#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n");
  copy_into(kSdk / "include" / "cudnn.h", cuda / "include" / "cudnn.h");
  copy_into(kFixtures + "/x64/cudnn64_8.dll", cuda / "bin" / "cudnn64_8.dll");
  write_text(root / "cudnn64_8.def", "LIBRARY cudnn64_8.dll\nEXPORTS\n  cudnnGetVersion @1\n  cudnnCreate @2\n");
  fs::create_directories(cuda / "lib" / "x64");
  const auto made = run_process({DLLDOCTOR_LLVM_DLLTOOL, "-m", "i386:x86-64", "-d", (root / "cudnn64_8.def").string(),
                                 "-l", (cuda / "lib" / "x64" / "cudnn.lib").string()});
  REQUIRE_MESSAGE(made.exit_code == 0, made.err);

  const SdkRun run = run_sdk(root);
  CHECK(run.exit_code == 0);
  CHECK(count_severity(run.report, "error") == 0);
  CHECK(count_severity(run.report, "warning") == 0);
  CHECK(run.report["layout"] == "zip-cuda-prefix");
  CHECK(run.report["header_version"]["number"] == 8907);
  CHECK(run.report["import_library"]["dll"] == "cudnn64_8.dll");
  const json old = finding(run.report, "sdk-old-layout");
  CHECK(old["severity"] == "info");
  CHECK(old["evidence"]["sdk_root"] == cuda.string());
  const json settings = finding(run.report, "sdk-settings");
  CHECK(settings["evidence"]["cudnn_root"] == cuda.string());
  CHECK(settings["evidence"]["library"] == (cuda / "lib" / "x64" / "cudnn.lib").string());
}

TEST_CASE("the 9.x graphical installer layout: per-CUDA folders under bin, include and lib") {
  const fs::path root = kWork / "installer";
  fs::remove_all(root);
  for (const auto& entry : fs::directory_iterator(kSdk / "bin")) {
    copy_into(entry.path(), root / "bin" / "12.4" / entry.path().filename());
  }
  fs::create_directories(root / "bin" / "11.8");
  for (const char* header : {"cudnn.h", "cudnn_version.h"}) {
    copy_into(kSdk / "include" / header, root / "include" / "12.4" / header);
  }
  copy_into(kSdk / "lib" / "x64" / "cudnn.lib", root / "lib" / "12.4" / "x64" / "cudnn.lib");
  const SdkRun run = run_sdk(root);
  CHECK(run.exit_code == 0);
  CHECK(count_severity(run.report, "error") == 0);
  CHECK(run.report["layout"] == "installer");
  CHECK(run.report["cuda_folder"] == "12.4");
  CHECK(run.report["dlls"].size() == 8);
  CHECK(finding(run.report, "sdk-settings")["evidence"]["include_dir"] == (root / "include" / "12.4").string());
}

TEST_CASE("a missing header is reported with the folder it belongs in") {
  const fs::path root = sdk_copy("header-missing");
  fs::remove(root / "include" / "cudnn.h");
  const SdkRun run = run_sdk(root);
  CHECK(run.exit_code == 1);
  const json f = finding(run.report, "sdk-header-missing");
  CHECK(f["module"] == "cudnn.h");
  CHECK(f["evidence"]["include_dir"] == (root / "include").string());
}

TEST_CASE("a root that does not exist: exit 2") {
  const auto result = run_process({kDlldoctor, "sdk", (kWork / "no-such-folder").string()});
  CHECK(result.exit_code == 2);
  CHECK(contains(result.err, "no such folder"));
}

TEST_CASE("a cudnn.lib that is not an import library: garbage, or an archive without import members") {
  const fs::path root = sdk_copy("lib-garbage");
  write_text(root / "lib" / "x64" / "cudnn.lib", "<!DOCTYPE html><title>404 Not Found</title>");
  SdkRun run = run_sdk(root);
  CHECK(run.exit_code == 1);
  json f = finding(run.report, "sdk-import-library-unreadable");
  CHECK(f["severity"] == "error");
  CHECK(f["evidence"]["library"] == (root / "lib" / "x64" / "cudnn.lib").string());
  CHECK_MESSAGE(contains(f["evidence"]["error"].get<std::string>(), "!<arch>"), f.dump(2));
  CHECK(contains(f["fix"][0].get<std::string>(), "Copy-Item"));

  // A static library of ordinary objects (a build that went wrong) has no import members at all.
  std::string member = "hello.o/";
  member.resize(16, ' ');
  for (const auto& [value, width] :
       std::vector<std::pair<std::string, std::size_t>>{{"0", 12}, {"0", 6}, {"0", 6}, {"644", 8}, {"4", 10}}) {
    member += value + std::string(width - value.size(), ' ');
  }
  write_text(root / "lib" / "x64" / "cudnn.lib", "!<arch>\n" + member + "`\nabcd");
  run = run_sdk(root);
  CHECK(run.exit_code == 1);
  f = finding(run.report, "sdk-import-library-unreadable");
  CHECK_MESSAGE(contains(f["message"].get<std::string>(), "is not an import library (no import members)"), f.dump(2));
  CHECK(f["evidence"].count("error") == 0);
}

TEST_CASE("--sysroot: a C:\\ root on a mounted Windows drive, and settings with its Windows paths; --map likewise") {
  const fs::path drive = kWork / "drive";
  fs::remove_all(drive);
  fs::create_directories(drive / "Windows" / "System32");
  fs::create_directories(drive / "tools");
  fs::copy(kSdk, drive / "tools" / "cudnn", fs::copy_options::recursive);
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"C:\\tools\\cudnn", "--sysroot", drive.string()},
           {(drive / "tools" / "cudnn").string(), "--map", (drive / "tools").string() + "=C:\\tools"}}) {
    CAPTURE(extra[1]);
    const auto result = run_process({kDlldoctor, "sdk", extra[0], extra[1], extra[2], "--format", "json"});
    INFO(result.err);
    CHECK(result.exit_code == 0);
    const json report = json::parse(result.out);
    CHECK(report["root"] == "C:\\tools\\cudnn");
    CHECK(report["include_dir"] == "C:\\tools\\cudnn\\include");
    const json settings = finding(report, "sdk-settings");
    CHECK(settings["evidence"]["cudnn_root"] == "C:\\tools\\cudnn");
    CHECK(settings["evidence"]["library"] == "C:\\tools\\cudnn\\lib\\x64\\cudnn.lib");
    CHECK(contains(settings["fix"][0].get<std::string>(), "('-DCUDNN_ROOT=' + 'C:\\tools\\cudnn')"));
    CHECK(result.out.find(drive.string()) == std::string::npos);
    const auto text = run_process({kDlldoctor, "sdk", extra[0], extra[1], extra[2]});
    CHECK(text.out.rfind("cuDNN SDK in C:\\tools\\cudnn: usable, cuDNN 9.1.0", 0) == 0);
  }
  // The top-level spelling takes them too.
  const auto top =
      run_process({kDlldoctor, "--sdk", "C:\\tools\\cudnn", "--sysroot", drive.string(), "--format", "json"});
  CHECK(top.exit_code == 0);
  CHECK(json::parse(top.out)["root"] == "C:\\tools\\cudnn");
  // A C:\ root the sysroot does not hold, and a sysroot that is not a Windows drive, exit 2.
  const auto missing = run_process({kDlldoctor, "sdk", "C:\\tools\\nothing", "--sysroot", drive.string()});
  CHECK(missing.exit_code == 2);
  CHECK(contains(missing.err, "no such folder"));
  const auto not_windows =
      run_process({kDlldoctor, "sdk", "C:\\tools\\cudnn", "--sysroot", (drive / "tools").string()});
  CHECK(not_windows.exit_code == 2);
  CHECK(contains(not_windows.err, "System32"));
}
