// dlldoctor.exe (the mingw cross build) run inside Wine's Windows, on the scenario trees marked
// `wine = true` that need no flags beyond --path and --cwd:
//  (a) live environment, no flags (WINEPATH gives PATH): the prediction names the file Wine's loader loads;
//  (b) `snapshot` under Wine, replayed on Linux with --env --sysroot drive_c: the same modules from the
//      same Windows paths, apart from environment.source;
//  (c) `probe` agrees with the prediction (no "probe-differs" finding).
// The trees are built under the prefix's drive_c, so the snapshot's C:\ paths map through --sysroot.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "scenarios/scenario.hpp"
#include "support/run_process.hpp"
#include "support/skip.hpp"
#include "wine/wine_prefix.hpp"

namespace fs = std::filesystem;
using namespace dlldoctor::test;
using nlohmann::json;

namespace {

const fs::path kScenarios = DLLDOCTOR_SCENARIOS_DIR;
const fs::path kFixtures = DLLDOCTOR_FIXTURES_DIR;
const std::string kDlldoctor = DLLDOCTOR_BINARY;
const std::string kDlldoctorExe = DLLDOCTOR_EXE;
const fs::path kWork = DLLDOCTOR_WINE_WORK_DIR;

// Scenarios whose outcome Wine is known to decide differently (tests/wine/wine_test.cpp, kDifferences):
// the live prediction follows Windows there, so they are not compared with Wine's loader.
// dotlocal_file_exe_folder_first_for_full_path: a --host scenario (not run by wine_test.cpp), the same
// missing .local redirection as dotlocal_folder_redirects. dependency_in_folder_not_on_path: its missing
// DLL is a forwarder's target; Windows fails start-up, Wine binds a stub and the program starts, dying with
// 0x80000100 (Wine's unimplemented-function exception) only when it calls it, which probe reads as started.
// finding_error_text_127_load_library: a missing export, which Wine binds to a stub where Windows fails
// the call with 127 (DOMAIN.md §7).
const std::set<std::string> kWineDiffers = {
    "missing_export_wrong_dll_under_right_name", "missing_export_by_ordinal",
    "missing_export_forwarder_target",           "dotlocal_folder_redirects",
    "known_dll_assumed_beats_app_dir",           "dotlocal_file_exe_folder_first_for_full_path",
    "dependency_in_folder_not_on_path",          "finding_error_text_127_load_library"};

std::string c_path(const fs::path& drive_c, const fs::path& host) {
  std::string rel = fs::relative(host, drive_c).string();
  for (auto& c : rel)
    if (c == '/') c = '\\';
  return "C:\\" + rel;
}

// Copies x64 fixtures (by file name) into `folder`, creating it.
void copy_fixtures(const fs::path& folder, std::initializer_list<const char*> files) {
  fs::create_directories(folder);
  for (const char* file : files)
    fs::copy_file(kFixtures / "x64" / file, folder / file, fs::copy_options::overwrite_existing);
}

// The prefix's environment, with the fixtures' msvcp140/vcruntime140 taking precedence over Wine's own
// and no crash dialog from winedbg. Wine prefers its builtin copy of a DLL it ships wherever a native one
// is, a load order Windows does not have: vcruntime140_1.dll (onnxruntime.preload_dlls loads it by name)
// and msvcp140_1.dll (TensorFlow's self_check.py does) are native first too, and builtin only where the
// search finds no file (Wine's builtin msvcp140_1 beside the fixtures' native msvcp140 fails its
// initialisation with 1114).
std::map<std::string, std::string> loader_env(WinePrefix& prefix) {
  auto env = prefix.env();
  env["WINEDLLOVERRIDES"] = "msvcp140,vcruntime140=n;vcruntime140_1,msvcp140_1=n,b;winedbg.exe=d";
  return env;
}

json parse_report(const std::string& text) {
  const auto brace = text.find('{');
  if (brace == std::string::npos) return json();
  return json::parse(text.substr(brace), nullptr, false);
}

// The JSON report of a dlldoctor.exe run under Wine, written to <root>/<name>.json with its errors in
// <name>.err; the test case stops when there is none.
json wine_report(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                 const fs::path& cwd, const fs::path& root, const std::string& name) {
  run_wine(argv, env, cwd, root / (name + ".json"), root / (name + ".err"));
  const json report = parse_report(read_text(root / (name + ".json")));
  REQUIRE_MESSAGE(report.is_object(), "no JSON from " << name << ": " << read_text(root / (name + ".err")));
  return report;
}

// The messages of a report's probe-differs findings: the calls Wine's loader answered otherwise.
std::vector<std::string> probe_differences(const json& report) {
  std::vector<std::string> differences;
  for (const auto& finding : report["findings"]) {
    if (finding.value("id", "") == "probe-differs") differences.push_back(finding.value("message", ""));
  }
  return differences;
}

// name -> (status, windows path) of every module of a report.
std::map<std::string, std::pair<std::string, std::string>> modules_of(const json& report) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  for (const auto& m : report["modules"]) {
    out[lower(m.value("name", ""))] = {
        m.value("status", ""),
        lower(m["windows_path"].is_string() ? m["windows_path"].get<std::string>() : std::string())};
  }
  return out;
}

// (id, module) of every finding of a report, in order.
std::vector<std::pair<std::string, std::string>> findings_of(const json& report) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : report["findings"])
    out.emplace_back(f.value("id", ""), f["module"].is_string() ? f["module"].get<std::string>() : "");
  return out;
}

// The prefix of tests/wine/wine_test.cpp (the tests run one after the other: RUN_SERIAL), booted once for
// every test case of this binary.
WinePrefix& shared_prefix(const fs::path& work) {
  static WinePrefix prefix(work / "prefix");
  return prefix;
}

// A scenario's command line for `dlldoctor.exe probe` under Wine: the tree's files and folders by their
// C:\ paths, --path as WINEPATH (the live PATH, which the probed process inherits) and --cwd as the folder
// dlldoctor.exe runs in (the process's own current folder). Every flag of these scenarios takes a value.
struct ProbeCommand {
  std::vector<std::string> args;
  std::string winepath;
  fs::path cwd;
};

ProbeCommand probe_command(const Scenario& s, const fs::path& root, const fs::path& drive_c, const fs::path& exe) {
  const std::set<std::string> path_flags = {"--host",    "--load",          "--add-dll-dir", "--set-dll-dir",
                                            "--preload", "--site-packages", "--rules"};
  auto windows = [&](const std::string& value) {
    return value.rfind(drive_c.string(), 0) == 0 ? c_path(drive_c, value) : value;
  };
  ProbeCommand command{{kWine, exe.string(), "probe"}, "", root / s.cwd};
  for (size_t i = 0; i < s.args.size(); ++i) {
    const std::string flag = s.args[i];
    if (flag.rfind("--", 0) != 0) {  // the program: the Python interpreter of --import
      command.args.push_back(windows(expand(flag, root, kFixtures)));
      continue;
    }
    const std::string value = i + 1 < s.args.size() ? expand(s.args[i + 1], root, kFixtures) : "";
    ++i;
    if (flag == "--path") {
      size_t start = 0;
      for (size_t semi; (semi = value.find(';', start)) != std::string::npos; start = semi + 1)
        command.winepath += (command.winepath.empty() ? "" : ";") + c_path(drive_c, value.substr(start, semi - start));
      command.winepath += (command.winepath.empty() ? "" : ";") + c_path(drive_c, value.substr(start));
    } else if (flag == "--cwd") {
      command.cwd = value;
    } else if (flag == "--setenv" && value.find('=') != std::string::npos) {
      // A variable naming a folder of the tree (CUDA_PATH) names it by its C:\ path in the probed process.
      const std::size_t equals = value.find('=');
      command.args.push_back(flag);
      command.args.push_back(value.substr(0, equals + 1) + windows(value.substr(equals + 1)));
    } else {
      command.args.push_back(flag);
      command.args.push_back(path_flags.count(flag) ? windows(value) : value);
    }
  }
  for (const char* extra : {"--wrong-machine", "skip", "--format", "json", "--probe-timeout", "5"})
    command.args.push_back(extra);
  return command;
}

// The lines in which probe says what the real loader answered to each call of the host.
size_t answered_calls(const std::string& err) {
  size_t answered = 0;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("probe: ") != std::string::npos && line.find("LoadLibrary") != std::string::npos &&
        (line.find(" returned ") != std::string::npos || line.find(" failed with error ") != std::string::npos))
      ++answered;
  }
  return answered;
}

const std::string& prefix_error(WinePrefix& prefix) {
  static const std::string error = prefix.start();
  return error;
}

// What every test case here starts from: the booted prefix, and dlldoctor.exe inside its drive_c with a
// copy of rules/ beside it (where it looks for them). Empty when Wine is not installed.
struct WineSetup {
  WinePrefix* prefix;
  fs::path drive_c;
  fs::path exe;
};

std::optional<WineSetup> set_up() {
  if (!fs::exists(kWine)) {
    skip(kWine, "wine64");
    return std::nullopt;
  }
  REQUIRE_MESSAGE(fs::exists(kDlldoctorExe), kDlldoctorExe << " was not built");
  fs::create_directories(kWork);
  WinePrefix& prefix = shared_prefix(fs::canonical(kWork));
  REQUIRE_MESSAGE(prefix_error(prefix).empty(), prefix_error(prefix));
  const fs::path drive_c = prefix.path() / "drive_c";
  const fs::path exe = drive_c / "dlldoctor" / "dlldoctor.exe";
  fs::create_directories(exe.parent_path());
  fs::copy_file(kDlldoctorExe, exe, fs::copy_options::overwrite_existing);
  fs::remove_all(exe.parent_path() / "rules");
  // The cross build puts the rules beside dlldoctor.exe, as a release ships them.
  fs::copy(fs::path(kDlldoctorExe).parent_path() / "rules", exe.parent_path() / "rules", fs::copy_options::recursive);
  return WineSetup{&prefix, drive_c, exe};
}

}  // namespace

TEST_CASE("dlldoctor.exe under Wine: live prediction, snapshot replay and probe agree with the loader") {
  const auto setup = set_up();
  if (!setup) return;
  WinePrefix& prefix = *setup->prefix;
  const fs::path& drive_c = setup->drive_c;
  const fs::path& exe = setup->exe;

  int compared = 0;
  for (const auto& s : load_scenarios(kScenarios)) {
    if (!s.wine || kWineDiffers.count(s.name)) continue;
    bool simple = true;
    std::string program;
    std::vector<std::string> path;
    std::string cwd_arg;
    const fs::path root = drive_c / "trees" / s.name;
    for (size_t i = 0; i < s.args.size(); ++i) {
      const std::string a = expand(s.args[i], root, kFixtures);
      if (a.rfind("--", 0) != 0) {
        if (program.empty()) program = a;
        continue;
      }
      const std::string value = i + 1 < s.args.size() ? expand(s.args[i + 1], root, kFixtures) : "";
      ++i;
      if (a == "--path") {
        size_t start = 0;
        for (size_t semi; (semi = value.find(';', start)) != std::string::npos; start = semi + 1)
          path.push_back(value.substr(start, semi - start));
        path.push_back(value.substr(start));
      } else if (a == "--cwd") {
        cwd_arg = value;
      } else if (a != "--wrong-machine") {
        simple = false;
      }
    }
    if (!simple || program.empty()) continue;
    SUBCASE(s.name.c_str()) {
      INFO("scenario " << s.name);
      build_tree(s, kFixtures, root);
      const fs::path cwd = cwd_arg.empty() ? root / s.cwd : fs::path(cwd_arg);
      fs::create_directories(cwd);
      std::string winepath;
      for (size_t i = 0; i < path.size(); ++i) winepath += (i ? ";" : "") + c_path(drive_c, path[i]);
      auto env = loader_env(prefix);
      env["WINEPATH"] = winepath;
      const std::string program_c = c_path(drive_c, program);

      // (a) the live prediction against Wine's loader.
      const json live = wine_report({kWine, exe.string(), program_c, "--wrong-machine", "skip", "--format", "json"},
                                    env, cwd, root, "live");
      CHECK(live["environment"]["source"] == "live");
      auto trace = env;
      trace["WINEDEBUG"] = "-all,+loaddll";
      const WineRun wine =
          run_traced(program, c_path(drive_c, program), trace, cwd, root / "wine.out", root / "wine.err");
      const int rc = wine.exit_code;
      for (const auto& [name, module] : modules_of(live)) {
        const auto got = wine.loaded.find(name);
        if (module.first != "ok" || module.second.empty() || got == wine.loaded.end()) continue;
        if (wine.builtin.count(name)) continue;  // Wine's own copy, whatever path it prints
        CHECK_MESSAGE(lower(got->second) == module.second,
                      name << ": dlldoctor.exe predicts " << module.second << ", Wine loaded " << got->second);
      }
      // The findings the scenario expects on Linux, found again by dlldoctor.exe in Wine's live Windows
      // (Mark of the Web, say, read from the file's Zone.Identifier stream by its Windows name).
      if (s.finding_ids) {
        std::multiset<std::string> want(s.finding_ids->begin(), s.finding_ids->end()), got;
        for (const auto& [id, module] : findings_of(live)) got.insert(id);
        CHECK(std::set<std::string>(got.begin(), got.end()) == std::set<std::string>(want.begin(), want.end()));
      }
      CHECK_MESSAGE((live["outcome"].value("status", "") == "ok") == (rc == 0),
                    "outcome " << live["outcome"].dump() << ", Wine exit code " << rc);

      // (b) snapshot under Wine, replay on Linux.
      const fs::path snapshot = root / "env.json";
      run_wine({kWine, exe.string(), "snapshot", "-o", c_path(drive_c, snapshot)}, env, cwd, root / "snap.out",
               root / "snap.err");
      REQUIRE_MESSAGE(fs::exists(snapshot), read_text(root / "snap.err"));
      const auto replay = run_process({kDlldoctor, program, "--env", snapshot.string(), "--sysroot", drive_c.string(),
                                       "--wrong-machine", "skip", "--format", "json"},
                                      {}, cwd.string());
      const json replayed = parse_report(replay.out);
      REQUIRE_MESSAGE(replayed.is_object(), "no JSON from the replay: " << replay.err);
      CHECK(replayed["environment"]["source"] == "snapshot");
      CHECK(modules_of(replayed) == modules_of(live));
      CHECK(replayed["outcome"] == live["outcome"]);
      CHECK(findings_of(replayed) == findings_of(live));

      // (c) probe: the real loader as a second opinion agrees.
      const json probed = wine_report({kWine, exe.string(), "probe", program_c, "--wrong-machine", "skip", "--format",
                                       "json", "--probe-timeout", "5"},
                                      env, cwd, root, "probe");
      for (const std::string& difference : probe_differences(probed)) FAIL_CHECK(difference);
      ++compared;
    }
  }
  MESSAGE(compared << " scenario(s) compared");
}

// Nothing in offline mode runs target code: marker.dll's DllMain writes a file when it is loaded.
// `dlldoctor marker_app.exe` (on Linux and as dlldoctor.exe under Wine) must leave no marker; `probe`,
// which says it runs the program, must leave one.
TEST_CASE("dlldoctor never runs what it inspects, unless `probe` is asked for") {
  const auto setup = set_up();
  if (!setup) return;
  WinePrefix& prefix = *setup->prefix;
  const fs::path& drive_c = setup->drive_c;
  const fs::path& exe = setup->exe;
  const fs::path root = drive_c / "trees" / "marker";
  fs::remove_all(root);
  fs::create_directories(root);
  copy_fixtures(root, {"marker_app.exe", "marker.dll"});
  const fs::path marker = root / "dllmain_ran.txt";

  const auto linux_run = run_process({kDlldoctor, (root / "marker_app.exe").string()},
                                     {{"DLLDOCTOR_MARKER", marker.string()}}, root.string());
  CHECK(linux_run.exit_code == 0);
  CHECK_FALSE(fs::exists(marker));

  auto env = prefix.env();
  env["DLLDOCTOR_MARKER"] = c_path(drive_c, marker);
  const int offline = run_wine({kWine, exe.string(), c_path(drive_c, root / "marker_app.exe")}, env, root,
                               root / "offline.out", root / "offline.err");
  CHECK_MESSAGE(offline == 0, read_text(root / "offline.out") << read_text(root / "offline.err"));
  CHECK_FALSE(fs::exists(marker));

  run_wine({kWine, exe.string(), "probe", c_path(drive_c, root / "marker_app.exe"), "--probe-timeout", "5"}, env, root,
           root / "probe.out", root / "probe.err");
  CHECK_MESSAGE(fs::exists(marker), "probe did not run the program: " << read_text(root / "probe.err"));
}

// `probe DLL`: a child dlldoctor.exe loads the DLL with LoadLibraryExW (altered search path), the load the
// simulation of a DLL models; whether it loads or fails, the real loader must agree with the prediction.
TEST_CASE("probe of a DLL agrees with the prediction, when it loads and when a dependency is missing") {
  const auto setup = set_up();
  if (!setup) return;
  WinePrefix& prefix = *setup->prefix;
  const fs::path& drive_c = setup->drive_c;
  const fs::path& exe = setup->exe;
  auto env = loader_env(prefix);

  for (const bool complete : {true, false}) {
    CAPTURE(complete);
    const fs::path root = drive_c / "trees" / (complete ? "probe-dll" : "probe-dll-missing");
    fs::remove_all(root);
    fs::create_directories(root);
    // cudnn_ops64_9.dll imports cudnn_graph64_9.dll, which Wine has no builtin of (it would stand in for a
    // missing msvcp140.dll or vcruntime140.dll).
    for (const char* file : {"cudnn_ops64_9.dll", "cudnn_graph64_9.dll"}) {
      if (!complete && std::string(file) == "cudnn_graph64_9.dll") continue;
      fs::copy_file(kFixtures / "x64" / file, root / file, fs::copy_options::overwrite_existing);
    }
    const json report = wine_report({kWine, exe.string(), "probe", c_path(drive_c, root / "cudnn_ops64_9.dll"),
                                     "--format", "json", "--probe-timeout", "5"},
                                    env, root, root, "probe");
    CHECK(report["outcome"]["status"] == (complete ? "ok" : "fails"));
    CHECK(read_text(root / "probe.err").find(complete ? "exit code 0" : "exit code 126") != std::string::npos);
    for (const std::string& difference : probe_differences(report)) FAIL_CHECK(difference);
  }
}

// A recipe's environment variable from the live process: dlldoctor.exe under Wine reads its own
// environment block, so torch's CUDA_PATH_V12_4 fallback finds the toolkit folder the variable names
// (no --setenv, no default folder), and the report says the value came from the live process.
TEST_CASE("dlldoctor.exe reads a recipe's variable from the live process") {
  const auto setup = set_up();
  if (!setup) return;
  const fs::path& drive_c = setup->drive_c;
  const fs::path root = drive_c / "trees" / "live-variable";
  fs::remove_all(root);
  const fs::path site = root / "py" / "Lib" / "site-packages" / "torch";
  fs::create_directories(site / "lib");
  copy_fixtures(root / "py", {"marker_app.exe", "marker.dll"});
  fs::rename(root / "py" / "marker_app.exe", root / "py" / "python.exe");
  std::ofstream(site / "version.py") << "__version__ = '2.5.1+cu124'\ncuda: Optional[str] = '12.4'\n";
  fs::copy_file(kFixtures / "x64" / "marker.dll", site / "_C.cp311-win_amd64.pyd");
  fs::copy_file(kFixtures / "x64" / "cublas64_12.dll", site / "lib" / "cublas64_12.dll");
  copy_fixtures(root / "toolkit" / "bin", {"cublasLt64_12.dll"});
  auto env = loader_env(*setup->prefix);
  env["CUDA_PATH_V12_4"] = c_path(drive_c, root / "toolkit");
  const json report = wine_report({kWine, setup->exe.string(), c_path(drive_c, root / "py" / "python.exe"), "--import",
                                   "torch", "--format", "json"},
                                  env, root, root, "report");
  const json& used = report["request"]["python"]["variables_used"];
  REQUIRE_MESSAGE(used.size() == 1, used.dump());
  CHECK(used[0].get<std::string>() == "CUDA_PATH_V12_4 = " + c_path(drive_c, root / "toolkit") + " (live process)");
  bool found = false;
  for (const auto& module : report["modules"]) {
    if (module.value("name", "") == "cublasLt64_12.dll") {
      found = true;
      CHECK(module["status"] == "ok");
      CHECK(module["found_by"] == "user_dir");
    }
  }
  CHECK_MESSAGE(found, "cublasLt64_12.dll is not in the report");
}

// `probe --host APP.exe --load ...`: the host's own main thread makes the LoadLibraryExW calls (with the
// scenario's flags, AddDllDirectory and SetDllDirectory folders and preloads) once its start-up is done.
// Every --host scenario whose tree is self-contained (no --sysroot, no --env) must see the real loader agree with the
// prediction, call by call.
TEST_CASE("probe of LoadLibraryExW calls made by a host agrees with the prediction") {
  const auto setup = set_up();
  if (!setup) return;
  WinePrefix& prefix = *setup->prefix;
  const fs::path& drive_c = setup->drive_c;
  const fs::path& exe = setup->exe;
  int compared = 0;
  for (const auto& s : load_scenarios(kScenarios)) {
    // A --sysroot or a snapshot (--env) describes another machine; probe runs on this one.
    if (std::find(s.args.begin(), s.args.end(), "--host") == s.args.end() ||
        std::find(s.args.begin(), s.args.end(), "--sysroot") != s.args.end() ||
        std::find(s.args.begin(), s.args.end(), "--env") != s.args.end() || kWineDiffers.count(s.name))
      continue;
    SUBCASE(s.name.c_str()) {
      INFO("scenario " << s.name);
      const fs::path root = drive_c / "trees" / ("host-" + s.name);
      build_tree(s, kFixtures, root);
      const auto host = std::find(s.args.begin(), s.args.end(), "--host");
      if (!fs::exists(expand(*(host + 1), root, kFixtures))) {
        MESSAGE("not probed: the host is not in the tree (the simulation takes only its folder)");
        continue;
      }
      const ProbeCommand command = probe_command(s, root, drive_c, exe);
      fs::create_directories(command.cwd);
      auto env = loader_env(prefix);
      env["WINEPATH"] = command.winepath;
      run_wine(command.args, env, command.cwd, root / "probe.json", root / "probe.err");
      const std::string err = read_text(root / "probe.err");
      const json report = parse_report(read_text(root / "probe.json"));
      REQUIRE_MESSAGE(report.is_object(), "no JSON from probe: " << err);
      for (const std::string& difference : probe_differences(report)) FAIL_CHECK(difference);
      // The calls really ran in the host: one line per --load with what the real loader answered.
      CHECK_MESSAGE(answered_calls(err) == static_cast<size_t>(std::count(s.args.begin(), s.args.end(), "--load")),
                    err);
      ++compared;
    }
  }
  MESSAGE(compared << " host scenario(s) probed call by call");
}

// Load recipes whose replay outside a packaged app would not be the process the prediction describes:
// probe refuses them (exit 2) and says why.
const std::set<std::string> kNotReplayable = {"framework_store_python_path_not_searched",
                                              "finding_python_path_only_store"};

// `probe PYTHON --import PKG ...`: the recipe's calls, made by the interpreter (a stand-in exe) in order:
// the start-up AddDllDirectory folders (conda), then each load's own AddDllDirectory calls just before its
// LoadLibraryExW, and PyTorch's retry (PATH first, LoadLibraryW) when a load fails with 126. Every
// --import scenario must see the real loader agree with the prediction, call by call.
TEST_CASE("probe replays a load recipe's calls in the interpreter and agrees with the prediction") {
  const auto setup = set_up();
  if (!setup) return;
  const fs::path& drive_c = setup->drive_c;
  int replayed = 0;
  for (const auto& s : load_scenarios(kScenarios)) {
    if (std::find(s.args.begin(), s.args.end(), "--import") == s.args.end() ||
        std::find(s.args.begin(), s.args.end(), "--sysroot") != s.args.end())
      continue;
    SUBCASE(s.name.c_str()) {
      INFO("scenario " << s.name);
      const fs::path root = drive_c / "trees" / ("import-" + s.name);
      fs::remove_all(root);
      build_tree(s, kFixtures, root);
      const ProbeCommand command = probe_command(s, root, drive_c, setup->exe);
      fs::create_directories(command.cwd);
      auto env = loader_env(*setup->prefix);
      env["WINEPATH"] = command.winepath;
      const int rc = run_wine(command.args, env, command.cwd, root / "probe.json", root / "probe.err");
      const std::string err = read_text(root / "probe.err");
      if (kNotReplayable.count(s.name)) {
        CHECK(rc == 2);
        CHECK_MESSAGE(err.find("is a Microsoft Store Python") != std::string::npos, err);
        continue;
      }
      const json report = parse_report(read_text(root / "probe.json"));
      REQUIRE_MESSAGE(report.is_object(), "no JSON from probe: " << err);
      for (const std::string& difference : probe_differences(report)) FAIL_CHECK(difference);
      // The calls really ran in the interpreter: one answered line per load of the expanded recipe.
      REQUIRE(!report["request"]["loads"].empty());
      CHECK_MESSAGE(answered_calls(err) == report["request"]["loads"].size(), err);
      ++replayed;
    }
  }
  MESSAGE(replayed << " load recipe scenario(s) replayed call by call");
}

// A host whose own start-up fails (app.exe without its cuDNN) never reaches its entry point, so it makes no
// call: the probe says so and compares the start-up, which the prediction has failing too.
TEST_CASE("probe --host of a host that cannot start makes no call and says so") {
  const auto setup = set_up();
  if (!setup) return;
  const fs::path& drive_c = setup->drive_c;
  const fs::path root = drive_c / "trees" / "host-cannot-start";
  fs::remove_all(root);
  copy_fixtures(root / "app", {"app.exe", "msvcp140.dll", "vcruntime140.dll"});
  copy_fixtures(root / "lib", {"zlibwapi.dll"});
  run_wine({kWine, setup->exe.string(), "probe", "--host", c_path(drive_c, root / "app" / "app.exe"), "--load",
            c_path(drive_c, root / "lib" / "zlibwapi.dll"), "--format", "json", "--probe-timeout", "5"},
           loader_env(*setup->prefix), root, root / "probe.json", root / "probe.err");
  const std::string err = read_text(root / "probe.err");
  const json report = parse_report(read_text(root / "probe.json"));
  REQUIRE_MESSAGE(report.is_object(), err);
  CHECK_MESSAGE(err.find("the host did not reach its entry point, so no --load call was made") != std::string::npos,
                err);
  CHECK(err.find("probe: LoadLibraryExW") == std::string::npos);
  for (const std::string& difference : probe_differences(report)) FAIL_CHECK(difference);
}

// The comparison can fail: with the documented rule (--wrong-machine fail) an x86 cudnn64_9.dll in the exe
// folder stops LoadLibraryExW with error 193, but Wine's loader skips it and loads the x64 copy on PATH
// (DOMAIN.md §7). The probe must report exactly that difference, and none with --wrong-machine skip.
TEST_CASE("probe --host reports a LoadLibraryExW call the real loader answers differently") {
  const auto setup = set_up();
  if (!setup) return;
  const fs::path& drive_c = setup->drive_c;
  const fs::path root = drive_c / "trees" / "host-wrong-machine";
  fs::remove_all(root);
  for (const char* folder : {"app", "onpath", "work"}) fs::create_directories(root / folder);
  copy_fixtures(root / "app", {"marker_app.exe", "marker.dll"});
  fs::copy_file(kFixtures / "x86" / "cudnn64_9.dll", root / "app" / "cudnn64_9.dll");
  copy_fixtures(root / "onpath",
                {"cudnn64_9.dll", "cudnn_graph64_9.dll", "msvcp140.dll", "vcruntime140.dll", "zlibwapi.dll"});
  auto env = loader_env(*setup->prefix);
  env["WINEPATH"] = c_path(drive_c, root / "onpath");
  for (const std::string policy : {"fail", "skip"}) {
    CAPTURE(policy);
    const json report =
        wine_report({kWine, setup->exe.string(), "probe", "--host", c_path(drive_c, root / "app" / "marker_app.exe"),
                     "--load", "cudnn64_9.dll", "--wrong-machine", policy, "--format", "json", "--probe-timeout", "5"},
                    env, root / "work", root, "probe");
    const std::vector<std::string> differences = probe_differences(report);
    if (policy == "skip") {
      CHECK_MESSAGE(differences.empty(), differences.front());
      continue;
    }
    REQUIRE(differences.size() == 1);
    CHECK_MESSAGE(differences[0].find("predicted it fails with error 193") != std::string::npos, differences[0]);
    CHECK_MESSAGE(
        lower(differences[0]).find(lower(c_path(drive_c, root / "onpath" / "cudnn64_9.dll"))) != std::string::npos,
        differences[0]);
  }
}

// Folder names in any script: dlldoctor.exe takes its arguments from the UTF-16 command line and hands
// UTF-8 to the file system through the wide functions, so a tree under "C:\tü\日本 app" is read, reported
// and written to (-o) by its real name. (argv and std::filesystem's narrow strings are in the ANSI code
// page, which has no 日本.)
TEST_CASE("dlldoctor.exe reads and writes paths that are not ASCII") {
  const auto setup = set_up();
  if (!setup) return;
  const fs::path& drive_c = setup->drive_c;
  const std::string folder = "t\xC3\xBC/\xE6\x97\xA5\xE6\x9C\xAC app";  // tü/日本 app, in UTF-8
  const fs::path root = drive_c / "trees" / fs::path(folder);
  fs::remove_all(root.parent_path());
  fs::create_directories(root);
  copy_fixtures(
      root, {"app.exe", "cudnn64_9.dll", "cudnn_graph64_9.dll", "msvcp140.dll", "vcruntime140.dll", "zlibwapi.dll"});
  auto env = loader_env(*setup->prefix);
  env["LANG"] = "C.UTF-8";  // Wine reads the Unix command line in the locale's encoding
  const std::string app = c_path(drive_c, root / "app.exe");
  const std::string report_file = c_path(drive_c, root / "report.json");
  run_wine({kWine, setup->exe.string(), app, "--format", "json", "-o", report_file}, env, root,
           root.parent_path() / "out.txt", root.parent_path() / "err.txt");
  REQUIRE_MESSAGE(fs::exists(root / "report.json"), read_text(root.parent_path() / "err.txt"));
  const json report = parse_report(read_text(root / "report.json"));
  REQUIRE(report.is_object());
  CHECK(report["outcome"]["status"] == "ok");
  CHECK(report["modules"][0]["windows_path"] == app);
  for (const auto& module : report["modules"]) {
    if (module.value("name", "") == "cudnn64_9.dll")
      CHECK(module["windows_path"] == c_path(drive_c, root / "cudnn64_9.dll"));
  }
}

// Seed §5.1 with the live registry: the user PATH (HKCU\Environment, REG_EXPAND_SZ with %SystemDrive%)
// lists the cuDNN folder, but the terminal dlldoctor.exe runs in set its PATH before that (cmd's `set`
// stands for a terminal opened earlier): not-on-search-path, variant stale_terminal, naming the expanded
// folder. Started without that `set`, the process gets the registry's PATH, as a new terminal would, and
// the program starts.
TEST_CASE("live environment: a terminal older than the registry's PATH is named as the cause") {
  const auto setup = set_up();
  if (!setup) return;
  const fs::path& drive_c = setup->drive_c;
  const fs::path root = drive_c / "trees" / "stale-terminal";
  fs::remove_all(root);
  for (const char* folder : {"app", "cudnn"}) fs::create_directories(root / folder);
  copy_fixtures(root / "app", {"app.exe", "msvcp140.dll", "vcruntime140.dll"});
  copy_fixtures(root / "cudnn", {"cudnn64_9.dll", "cudnn_graph64_9.dll", "zlibwapi.dll"});
  auto env = loader_env(*setup->prefix);
  const std::string cudnn = c_path(drive_c, root / "cudnn");
  const std::string user_path = "%SystemDrive%" + cudnn.substr(2);
  REQUIRE(
      run_wine({kWine, "reg", "add", "HKCU\\Environment", "/v", "Path", "/t", "REG_EXPAND_SZ", "/d", user_path, "/f"},
               env, root, root / "reg.out", root / "reg.err") == 0);
  const std::string app = c_path(drive_c, root / "app" / "app.exe");
  const std::string dlldoctor = c_path(drive_c, setup->exe);
  run_wine({kWine, "cmd", "/c", "set PATH=C:\\windows\\system32&& " + dlldoctor + " " + app + " --format json"}, env,
           root, root / "stale.json", root / "stale.err");
  run_wine({kWine, dlldoctor, app, "--format", "json"}, env, root, root / "fresh.json", root / "fresh.err");
  run_wine({kWine, "reg", "delete", "HKCU\\Environment", "/v", "Path", "/f"}, env, root, root / "reg.out",
           root / "reg.err");

  const json stale = parse_report(read_text(root / "stale.json"));
  REQUIRE_MESSAGE(stale.is_object(), read_text(root / "stale.err"));
  CHECK(stale["environment"]["source"] == "live");
  CHECK(stale["outcome"]["error"] == 126);
  bool named = false;
  for (const auto& finding : stale["findings"]) {
    if (finding.value("id", "") != "not-on-search-path") continue;
    const std::string message = finding.value("message", "");
    named = message.find(cudnn) != std::string::npos && message.find("user PATH in the registry") != std::string::npos;
    CHECK_MESSAGE(named, message);
  }
  CHECK(named);
  const json fresh = parse_report(read_text(root / "fresh.json"));
  REQUIRE_MESSAGE(fresh.is_object(), read_text(root / "fresh.err"));
  CHECK(fresh["outcome"]["status"] == "ok");
}

// `probe` with --path and --cwd: the probed process gets that PATH and current folder, the ones the
// prediction used, whatever dlldoctor.exe's own are (cudnn\ is on neither; zlibwapi.dll is only in work\).
TEST_CASE("probe starts the program with the PATH and current folder given by --path and --cwd") {
  const auto setup = set_up();
  if (!setup) return;
  const fs::path& drive_c = setup->drive_c;
  const fs::path root = drive_c / "trees" / "probe-path-cwd";
  fs::remove_all(root);
  for (const char* folder : {"app", "cudnn", "work"}) fs::create_directories(root / folder);
  copy_fixtures(root / "app", {"app.exe", "msvcp140.dll", "vcruntime140.dll"});
  copy_fixtures(root / "cudnn", {"cudnn64_9.dll", "cudnn_graph64_9.dll"});
  copy_fixtures(root / "work", {"zlibwapi.dll"});
  auto env = loader_env(*setup->prefix);
  run_wine({kWine, setup->exe.string(), "probe", c_path(drive_c, root / "app" / "app.exe"), "--path",
            c_path(drive_c, root / "cudnn"), "--cwd", c_path(drive_c, root / "work"), "--format", "json",
            "--probe-timeout", "5"},
           env, root, root / "probe.json", root / "probe.err");
  const std::string err = read_text(root / "probe.err");
  const json report = parse_report(read_text(root / "probe.json"));
  REQUIRE_MESSAGE(report.is_object(), err);
  CHECK(report["outcome"]["status"] == "ok");
  CHECK_MESSAGE(err.find("exit code 0") != std::string::npos, err);
  for (const std::string& difference : probe_differences(report)) FAIL_CHECK(difference);
}

// `--scan` on Windows: Wine reports a Unix symbolic link to a folder as a reparse point, as Windows does a
// junction or a symbolic link. The scan must not enter one: not a link back up the tree (a loop), nor one
// to a folder elsewhere. Paths come back with the Windows separator.
TEST_CASE("dlldoctor.exe --scan skips reparse points: no loop, nothing from outside the tree") {
  const auto setup = set_up();
  if (!setup) return;
  const fs::path& drive_c = setup->drive_c;
  const fs::path root = drive_c / "trees" / "scan-reparse";
  const fs::path outside = drive_c / "trees" / "scan-outside";
  fs::remove_all(root);
  fs::remove_all(outside);
  copy_fixtures(root / "bin", {"cudnn64_9.dll"});
  copy_fixtures(outside, {"cudnn64_8.dll"});
  fs::create_directory_symlink("..", root / "bin" / "up");  // C:\trees\scan-reparse\bin\up\bin\up\...
  fs::create_directory_symlink(outside, root / "bin" / "elsewhere");
  run_wine({kWine, setup->exe.string(), "--scan", c_path(drive_c, root), "--format", "json"},
           loader_env(*setup->prefix), root, root.parent_path() / "scan.json", root.parent_path() / "scan.err");
  const json report = parse_report(read_text(root.parent_path() / "scan.json"));
  REQUIRE_MESSAGE(report.is_object(), read_text(root.parent_path() / "scan.err"));
  CHECK(report["counts"]["folders"] == 2);  // the root and bin, once each
  CHECK(report["counts"]["copies"] == 1);
  REQUIRE(report["dlls"].size() == 1);
  CHECK(report["dlls"][0]["name"] == "cudnn64_9.dll");
  CHECK(report["dlls"][0]["copies"][0]["path"] == c_path(drive_c, root / "bin" / "cudnn64_9.dll"));
}

// `dlldoctor check`: the machine as Wine's Windows shows it to dlldoctor.exe (its PATH, System32 and
// variables, live) and as dlldoctor reads the same drive_c from Linux with --sysroot, given that PATH,
// current folder and variable: the same driver, toolkits, copies, loads, Pythons and findings.
TEST_CASE("dlldoctor.exe check on a live prefix agrees with dlldoctor check --sysroot on the same drive") {
  const auto setup = set_up();
  if (!setup) return;
  const fs::path& drive_c = setup->drive_c;
  const fs::path root = drive_c / "trees" / "check-live";
  fs::remove_all(root);
  // An incomplete cuDNN 9.1 on PATH (missing-sibling), a toolkit named by CUDA_PATH, a Python on PATH.
  copy_fixtures(root / "cudnn" / "bin", {"cudnn64_9.dll", "cudnn_graph64_9.dll", "cudnn_ops64_9.dll"});
  copy_fixtures(root / "toolkit" / "bin", {"cudart64_12.dll"});
  copy_fixtures(root / "py", {"marker_app.exe", "marker.dll"});
  fs::rename(root / "py" / "marker_app.exe", root / "py" / "python.exe");
  auto env = loader_env(*setup->prefix);
  env["WINEPATH"] = c_path(drive_c, root / "cudnn" / "bin") + ";" + c_path(drive_c, root / "py");
  env["CUDA_PATH"] = c_path(drive_c, root / "toolkit");
  const json live = wine_report({kWine, setup->exe.string(), "check", "--format", "json"}, env, root, root, "live");
  CHECK(live["environment"]["source"] == "live");
  std::string path;
  for (const auto& entry : live["environment"]["path"])
    path += (path.empty() ? "" : ";") + entry["entry"].get<std::string>();
  const auto offline =
      run_process({kDlldoctor, "check", "--sysroot", drive_c.string(), "--path", path, "--cwd", c_path(drive_c, root),
                   "--setenv", "CUDA_PATH=" + c_path(drive_c, root / "toolkit"), "--format", "json"});
  const json read = parse_report(offline.out);
  REQUIRE_MESSAGE(read.is_object(), offline.err);
  INFO("live: " << live.dump(1).substr(0, 4000));
  INFO("--sysroot: " << read.dump(1).substr(0, 4000));
  const auto text = [](const json& value) {
    return lower(value.is_string() ? value.get<std::string>() : value.dump());
  };
  CHECK(live["driver"]["looked"] == read["driver"]["looked"]);
  CHECK(text(live["driver"]["nvcuda"].is_null() ? json() : live["driver"]["nvcuda"]["path"]) ==
        text(read["driver"]["nvcuda"].is_null() ? json() : read["driver"]["nvcuda"]["path"]));
  REQUIRE(live["toolkits"].size() == read["toolkits"].size());
  for (std::size_t i = 0; i < live["toolkits"].size(); ++i) {
    CHECK(text(live["toolkits"][i]["root"]) == text(read["toolkits"][i]["root"]));
    CHECK(live["toolkits"][i]["release"] == read["toolkits"][i]["release"]);
    CHECK(live["toolkits"][i]["on_path"] == read["toolkits"][i]["on_path"]);
  }
  REQUIRE(live["cudnn"].size() == 1);
  REQUIRE(read["cudnn"].size() == 1);
  const std::string dispatcher = lower(c_path(drive_c, root / "cudnn" / "bin" / "cudnn64_9.dll"));
  CHECK(text(live["cudnn"][0]["new_process"]["loads"]["path"]) == dispatcher);
  CHECK(text(read["cudnn"][0]["new_process"]["loads"]["path"]) == dispatcher);
  REQUIRE(live["cudnn"][0]["copies"].size() == read["cudnn"][0]["copies"].size());
  for (std::size_t i = 0; i < live["cudnn"][0]["copies"].size(); ++i) {
    CHECK(text(live["cudnn"][0]["copies"][i]["main"]["path"]) == text(read["cudnn"][0]["copies"][i]["main"]["path"]));
    CHECK(live["cudnn"][0]["copies"][i]["missing"] == read["cudnn"][0]["copies"][i]["missing"]);
  }
  std::vector<std::string> live_pythons, read_pythons;
  for (const auto& python : live["pythons"]) live_pythons.push_back(text(python["program"]));
  for (const auto& python : read["pythons"]) read_pythons.push_back(text(python["program"]));
  CHECK(live_pythons == read_pythons);
  const auto ids = [](const json& report) {
    std::vector<std::string> out;
    for (const auto& f : report["findings"])
      out.push_back(f.value("id", "") + " " + lower(f["module"].is_string() ? f["module"].get<std::string>() : ""));
    return out;
  };
  const std::vector<std::string> found = ids(read);
  CHECK(ids(live) == found);
  CHECK(std::find(found.begin(), found.end(), "missing-sibling cudnn_cnn64_9.dll") != found.end());
  CHECK(live["verdict"]["tone"] == read["verdict"]["tone"]);
}
