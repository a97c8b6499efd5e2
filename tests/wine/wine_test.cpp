// The scenarios marked `wine = true`, run under Wine's real loader (DOMAIN.md §7) and compared with
// dlldoctor's prediction for the same tree: every module the program imports at start-up must be loaded
// from the file dlldoctor predicts, a module it predicts missing must not be loaded at all, and the
// program must start exactly when dlldoctor says it does. Where Wine is known to differ from Windows the
// difference is listed in kDifferences below (scenario, what differs, why) rather than skipped; an entry
// that stops showing up fails the test too, so the table stays true.
//
// One private WINEPREFIX under the build folder, booted once (wineboot -i) and reused; one persistent
// wineserver for the whole batch, killed at the end.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "scenarios/scenario.hpp"
#include "support/run_process.hpp"
#include "support/skip.hpp"
#include "wine/wine_prefix.hpp"

namespace fs = std::filesystem;
using dlldoctor::test::lower;
using dlldoctor::test::Scenario;
using nlohmann::json;
using namespace dlldoctor::test;

namespace {

const fs::path kScenarios = DLLDOCTOR_SCENARIOS_DIR;
const fs::path kFixtures = DLLDOCTOR_FIXTURES_DIR;
const std::string kDlldoctor = DLLDOCTOR_BINARY;
const fs::path kWork = DLLDOCTOR_WINE_WORK_DIR;

// Where Wine's loader is known to differ from Windows (DOMAIN.md §7). `what` is "outcome" (start-up
// success) or a module name whose loaded path differs. Each entry must actually be observed.
struct Difference {
  const char* scenario;
  const char* what;
  const char* difference;
  const char* why;
};
constexpr Difference kDifferences[] = {
    {"missing_export_wrong_dll_under_right_name", "outcome",
     "Windows fails start-up with 127 (0xC0000139) before main; under Wine the program starts and dies only "
     "when it calls the unresolved import (\"Call ... to unimplemented function cudnn64_9.dll.cudnnGetVersion\")",
     "Wine treats a missing export as a warning and binds a stub that aborts when called (DOMAIN.md §7)"},
    {"dotlocal_folder_redirects", "cudnn64_9.dll",
     "Windows takes cudnn64_9.dll from the app_delay.exe.local folder (DLL redirection, step 1); Wine loads the "
     "exe folder copy",
     "Wine 8.0's loader does not implement .local DLL redirection (it is only mentioned as a Windows feature in "
     "DOMAIN.md §1; dlldoctor follows Windows)"},
    {"missing_export_by_ordinal", "outcome",
     "Windows fails start-up with 127 for the import by ordinal 5 that the DLL does not export; under Wine the "
     "program starts and dies when it calls the unresolved import",
     "Wine treats a missing export as a warning and binds a stub that aborts when called (DOMAIN.md §7)"},
    {"missing_export_forwarder_target", "outcome",
     "Windows fails start-up with 127: the forwarder's target DLL does not export the function; under Wine the "
     "program starts and dies when it calls the unresolved import",
     "Wine treats a missing export as a warning and binds a stub that aborts when called (DOMAIN.md §7)"},
    {"known_dll_assumed_beats_app_dir", "kernel32.dll",
     "Wine's log names the fake app\\kernel32.dll, but with \": builtin\": it maps its own kernel32, so the "
     "fake file is not used, as on Windows where the KnownDLL wins",
     "Wine cannot tell KnownDLLs apart from its builtins and reports a builtin under the path it was asked "
     "for (DOMAIN.md §7)"},
};

// The scenarios this test does not run under Wine, and why: with the wine = true ones, every scenario outside
// the rule engine's (finding_*) is accounted for, and the test below keeps it so.
struct NotRun {
  const char* scenario;
  const char* why;
};
constexpr const char* kProbedAsHost =
    "a --host scenario: this test runs start-ups only; tests/wine/windows_exe_test.cpp makes its LoadLibraryExW "
    "calls in the host under Wine (probe) and compares them call by call";
constexpr const char* kOwnWindowsFolders =
    "--sysroot: the competing copies sit in the scenario's own Windows folders; under Wine those are the "
    "prefix's, shared by the whole batch, so the tree cannot be placed there";
constexpr const char* kDriverInSysroot =
    "--sysroot with a driver's nvcuda.dll in its System32: under Wine System32 is the prefix's";
constexpr const char* kRecipe =
    "an --import scenario (a load recipe, issue 10): this test runs start-ups only; tests/wine/"
    "windows_exe_test.cpp replays the recipe's calls in the interpreter under Wine (probe --import: the "
    "AddDllDirectory calls interleaved with the loads, PyTorch's retry) and compares them call by call";
constexpr const char* kPackagedApp =
    "an --import scenario of a Microsoft Store Python: its DLL search leaves PATH out only inside its packaged "
    "app, and no process started under Wine is one, so probe refuses to replay it (windows_exe_test.cpp checks "
    "that refusal)";
constexpr const char* kRecipeOwnEnvironment =
    "an --import scenario whose variables come from its own --sysroot registry or --env snapshot: under Wine "
    "the registry and environment are the prefix's, and probe describes this machine only";
constexpr const char* kStackSummary =
    "checks the report's stack summary (issue 10), a view of the closure; which files load on its tree is "
    "what other scenarios compare with Wine";
constexpr NotRun kNotRun[] = {
    {"owners_cuda_toolkit", kProbedAsHost},
    {"owners_python_packages", kRecipe},
    {"healthy_packages_same_cudnn", kRecipe},
    {"framework_torch_user_base_library_bin", kOwnWindowsFolders},
    {"altered_search_path_finds_dependency", kProbedAsHost},
    {"healthy_plugin_altered_search_path_own_onnxruntime", kOwnWindowsFolders},
    {"framework_ctranslate2_cuda_path_set_dll_directory", kOwnWindowsFolders},
    {"framework_ctranslate2_cudnn_siblings_missing", kOwnWindowsFolders},
    {"framework_tensorflow_210_eight_libraries", kOwnWindowsFolders},
    {"framework_user_site_python_org", kOwnWindowsFolders},
    {"framework_user_site_assumed_profile", kOwnWindowsFolders},
    {"framework_user_site_store_tensorflow", kOwnWindowsFolders},
    {"framework_venv_launcher_base_folder", kOwnWindowsFolders},
    {"framework_user_site_before_global_site", kOwnWindowsFolders},
    {"framework_venv_hides_user_site", kOwnWindowsFolders},
    {"framework_onnxruntime_cuda_no_cudnn_lazy", kRecipe},
    {"framework_tensorflow_210_eight_libraries_wine", kRecipe},
    {"framework_ctranslate2_cuda_path_set_dll_directory_wine", kRecipe},
    {"healthy_identical_copy_beside_plugin", kOwnWindowsFolders},
    {"api_set_schema_cycle_is_unresolved",
     "--sysroot with its own System32 apisetschema.dll, crafted to cycle; Wine resolves API sets from its own "
     "builtin schema, which cannot be replaced per run"},
    {"registry_dirty_hive_logs_applied",
     "--sysroot with its own dirty SYSTEM hive and log; under Wine the registry is the prefix's, which the batch "
     "shares"},
    {"registry_dirty_hive_without_logs",
     "--sysroot with its own dirty SYSTEM hive; under Wine the registry is the prefix's, which the batch shares"},
    {"framework_recipe_outside_its_versions", kRecipe},
    {"delay_load_hook_file_missing", kProbedAsHost},
    {"delay_load_hooks_node_addon", kProbedAsHost},
    {"api_set_resolved_by_schema", kProbedAsHost},
    {"api_set_eventing_service_appmodel_without_sysroot",
     "the prediction uses Windows 11's hosts (api-ms-win-appmodel-runtime-l1-1 in kernel.appcore.dll); Wine 8.0's "
     "schema sends that set to kernelbase.dll, so the files loaded differ by design"},
    {"api_set_unknown_assumed",
     "no Windows has api-ms-win-made-up-l1-1-0.dll: Wine's loader fails the start-up, which is right; dlldoctor "
     "without --sysroot cannot know that and assumes the set (DECISIONS.md, \"Assumed API sets\")"},
    {"default_dirs_path_not_searched", kProbedAsHost},
    {"default_dirs_user_dir_found", kProbedAsHost},
    {"dependency_next_to_dll_not_searched", kProbedAsHost},  // start-up counterpart: dependency_in_folder_not_on_path
    {"full_path_load_of_another_copy", kProbedAsHost},
    {"load_flags_by_name", kProbedAsHost},
    {"preloaded_module_step_is_loaded", kProbedAsHost},
    {"preloaded_module_wins_by_name", kProbedAsHost},
    {"python_ctypes_profile", kProbedAsHost},
    {"python_extension_profile", kProbedAsHost},
    {"set_default_dirs_system32_only", kProbedAsHost},
    {"set_dll_dir_replaces_cwd", kProbedAsHost},
    {"two_loads_own_flags", kProbedAsHost},
    {"dotlocal_file_exe_folder_first_for_full_path",
     "a --host scenario that Wine decides differently: Wine 8.0 has no .local redirection (see "
     "dotlocal_folder_redirects in kDifferences), so windows_exe_test.cpp leaves it out as well"},
    {"healthy_cuda12_driver_ok",
     "--sysroot with a driver's nvcuda.dll in its System32 and a SYSTEM hive: under Wine both are the prefix's"},
    {"stack_healthy_cuda12_cudnn9_driver", kDriverInSysroot},
    {"stack_driver_too_old_marked", kDriverInSysroot},
    {"stack_frameworks_torch_cu118_with_onnxruntime_cuda12", kStackSummary},
    {"stack_readme_demo_mixed_cudnn", kStackSummary},
    {"stack_plain_program_empty", kStackSummary},
    {"named_in_data_lazy_cudnn_load", kProbedAsHost},
    {"framework_onnxruntime_cuda_lazy_cudnn_path_walk", kRecipe},
    {"framework_dirs_added_after_the_last_load", kRecipe},
    {"framework_import_order_onnxruntime_before_torch", kRecipe},
    {"framework_onnxruntime_preload_dlls_after_torch", kRecipe},
    {"framework_onnxruntime_preload_dlls_nvidia_wheels", kRecipe},
    {"framework_onnxruntime_cuda_cudnn_only_in_wheel", kRecipe},
    {"framework_cuda13_library_only_in_wheel", kRecipe},
    {"relative_load_from_process_cwd", kProbedAsHost},
    {"sysroot_path_from_registry",
     "--sysroot whose SYSTEM hive and NTUSER.DAT give the PATH: under Wine the registry is the prefix's, which "
     "the batch shares"},
    {"framework_torch_cuda_path_from_snapshot", kRecipeOwnEnvironment},
    {"framework_torch_cuda_path_from_registry", kRecipeOwnEnvironment},
    {"framework_torch_bundled_cudnn_wins_over_path", kRecipe},
    {"framework_torch_retry_with_path", kRecipe},
    {"framework_conda_startup_dirs", kRecipe},
    {"framework_onnxruntime_cuda_altered_search_path", kRecipe},
    {"framework_store_python_path_not_searched", kPackagedApp},
    {"framework_tensorflow_210_with_cudnn9", kRecipe},
    {"known_dll_beats_app_dir",
     "--sysroot with its own System32 kernel32.dll; the same rule without --sysroot is "
     "known_dll_assumed_beats_app_dir, which runs under Wine"},
    {"safe_search_off_cwd_beats_system32",
     "--sysroot, and SafeDllSearchMode would have to be set in the prefix's registry, which the batch shares "
     "(Wine 8.0's ntdll does read Session Manager\\SafeDllSearchMode)"},
    {"safe_search_on_system32_beats_cwd", kOwnWindowsFolders},
    {"safe_search_off_from_registry",
     "--sysroot with its own SYSTEM hive; under Wine the registry is the prefix's, which the batch shares"},
    {"system16_and_windows_steps", kOwnWindowsFolders},
    {"healthy_app_local_msvc_runtime_older_than_system", kOwnWindowsFolders},
    {"arm64ec_dll_in_x64_process",
     "its ARM64EC and ARM64X DLLs are x64 and ARM64 files given a CHPE pointer by the malformed-set generator: "
     "they hold no hybrid code, and what the scenario asks is what an x64 process on ARM64 Windows accepts, "
     "which Wine on x86-64 cannot show"},
    {"missing_root_cause_first",
     "--sysroot with an empty System32: under Wine kernel32.dll and msvcrt.dll are always there (builtins), so "
     "the missing system DLLs this scenario needs cannot be set up"},
    {"x86_app_uses_syswow64",
     "--sysroot with its own SysWOW64, and this test runs wine64 only (the 32-bit loader is not installed "
     "here: /usr/lib/wine has wine64 alone)"},
    {"known_dlls_flag",
     "--known-dlls sets the KnownDLLs list; Wine's KnownDLLs are its builtins and cannot be set per run "
     "(DOMAIN.md §7)"},
    {"env_snapshot_path_through_map",
     "--env replays the PATH of another machine, found here through --map; under Wine the process gets the "
     "test's own PATH"},
    {"known_dlls_snapshot_names_without_extension",
     "--env replays a snapshot's KnownDLLs list; Wine's KnownDLLs are its builtins and cannot be set per run "
     "(DOMAIN.md §7)"},
    {"wrong_machine_first_fails",
     "the documented policy (fail with 193); Wine skips wrong-machine files (DOMAIN.md §7), so the same tree is "
     "compared as wrong_machine_first_skipped"},
    {"forwarder_loop_terminates",
     "Wine 8.0 maps the DLL without a word and the program runs (exit code 1); what Windows does with a "
     "forwarder loop is not documented, so there is no reference loader to compare with: the scenario only "
     "checks that the simulator ends"},
};

// Not differences between the loaders but limits of what the fixtures do when run, applied to every scenario:
//  - load "runtime" modules: the fake cuDNN dispatcher does not LoadLibrary its siblings (rules/cudnn.toml
//    lists them for the real one), so Wine never loads them; they are not compared.
//  - load "delay" modules: app_delay.exe only calls its delay import when cuDNN 9 is missing.

struct Comparison {
  std::vector<std::string> mismatches;                     // "what: text"
  std::vector<std::pair<std::string, std::string>> keyed;  // (what, text) for the difference table
  std::string context;  // how Wine was run and what it logged, for the failure messages
};

Comparison compare(const json& report, const WineRun& wine) {
  Comparison c;
  const auto add = [&](const std::string& what, const std::string& text) { c.keyed.emplace_back(what, text); };
  const bool predicted_ok = report["outcome"].value("status", "") == "ok";
  for (const auto& m : report["modules"]) {
    const std::string name = m.value("name", "");
    const std::string load = m.value("load", "");
    if (m.value("found_by", json()) == "root" || load == "runtime" || load == "delay") continue;
    // The file Wine chose: loaded, or mapped and then abandoned because one of its own imports is missing.
    std::optional<std::string> chosen;
    if (auto got = wine.loaded.find(lower(name)); got != wine.loaded.end()) chosen = got->second;
    if (auto got = wine.failed_importers.find(lower(name)); !chosen && got != wine.failed_importers.end())
      chosen = got->second;
    const std::string status = m.value("status", "");
    if (status == "ok") {
      std::string want;
      if (m["path"].is_string())
        want = wine_path(m["path"].get<std::string>());
      else if (m["windows_path"].is_string())
        want = m["windows_path"].get<std::string>();
      if (want.empty()) continue;
      if (chosen) {
        if (lower(*chosen) != lower(want))
          add(lower(name), "dlldoctor predicts " + want + ", Wine loaded " + *chosen +
                               (wine.builtin.count(lower(name)) ? " (builtin)" : " (native)"));
      } else if (wine.not_found.count(lower(name))) {
        add(lower(name), "dlldoctor predicts " + want + ", Wine did not find it");
      } else if (!predicted_ok && wine.exit_code != 0) {
        // The loader stops at the first failure: a module it would have come to later is never reached.
        continue;
      } else {
        add(lower(name), "dlldoctor predicts " + want + ", Wine did not load it");
      }
    } else if (chosen) {
      add(lower(name), "dlldoctor predicts " + status + ", Wine loaded " + *chosen);
    }
  }
  // A missing export: Windows stops before main; Wine runs the program until it calls the stub.
  if (report["outcome"].value("error", json()) == 127 &&
      lower(wine.log).find("unimplemented function") != std::string::npos)
    add("outcome",
        "dlldoctor predicts start-up fails with 127; Wine started the program, which then called an "
        "unimplemented function (exit code " +
            std::to_string(wine.exit_code) + ")");
  if (predicted_ok != (wine.exit_code == 0))
    add("outcome", std::string("dlldoctor predicts start-up ") + (predicted_ok ? "ok" : "fails") + ", Wine exit code " +
                       std::to_string(wine.exit_code));
  for (const auto& [what, text] : c.keyed) c.mismatches.push_back(what + ": " + text);
  return c;
}

// The program, PATH and current folder of a start-up scenario, from its dlldoctor arguments.
struct StartUp {
  std::string program;
  std::vector<std::string> path;
  std::string cwd;
};

StartUp start_up(const std::vector<std::string>& args) {
  StartUp s;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      if (s.program.empty()) s.program = a;
      continue;
    }
    const std::string value = i + 1 < args.size() ? args[i + 1] : "";
    ++i;
    if (a == "--path") {
      size_t start = 0;
      for (size_t semi; (semi = value.find(';', start)) != std::string::npos; start = semi + 1)
        s.path.push_back(value.substr(start, semi - start));
      s.path.push_back(value.substr(start));
    } else if (a == "--cwd") {
      s.cwd = value;
    } else if (a == "--host" || a == "--load" || a == "--sysroot" || a == "--preload") {
      throw std::runtime_error(a + " cannot be run under Wine: only start-up scenarios without --sysroot can");
    }
  }
  return s;
}

}  // namespace

TEST_CASE("wine harness: only a run that exits non-zero without printing anything is repeated") {
  const fs::path dir = fs::path(DLLDOCTOR_WINE_WORK_DIR) / "harness";
  fs::create_directories(dir);
  const auto attempts = [&](const std::string& script) {
    fs::remove(dir / "count");
    run_wine({"/bin/sh", "-c", "echo x >> count; " + script}, {}, dir, dir / "out", dir / "err");
    const std::string count = read_text(dir / "count");
    return std::count(count.begin(), count.end(), 'x');
  };
  CHECK(attempts("exit 1") == 3);
  CHECK(attempts("echo said >&2; exit 1") == 1);
  CHECK(attempts("echo said; exit 1") == 1);
  CHECK(attempts("exit 0") == 1);
}

TEST_CASE("wine: every documented difference names a wine = true scenario") {
  std::set<std::string> names;
  for (const auto& s : dlldoctor::test::load_scenarios(kScenarios))
    if (s.wine) names.insert(s.name);
  for (const auto& d : kDifferences)
    CHECK_MESSAGE(names.count(d.scenario),
                  "kDifferences lists " << std::string(d.scenario) << ", not a wine = true scenario");
}

TEST_CASE("wine: every scenario is run under Wine or listed in kNotRun with the reason it is not") {
  std::map<std::string, const Scenario*> by_name;
  const auto scenarios = dlldoctor::test::load_scenarios(kScenarios);
  for (const auto& s : scenarios) by_name[s.name] = &s;
  std::set<std::string> listed;
  for (const auto& n : kNotRun) {
    CAPTURE(std::string(n.scenario));
    CHECK_MESSAGE(listed.insert(n.scenario).second, "listed twice");
    const auto found = by_name.find(n.scenario);
    if (found == by_name.end()) {
      FAIL_CHECK("kNotRun lists a scenario that does not exist");
      continue;
    }
    const Scenario& s = *found->second;
    CHECK_MESSAGE(!s.wine, "wine = true: remove it from kNotRun");
    const auto has = [&](const char* flag) { return std::find(s.args.begin(), s.args.end(), flag) != s.args.end(); };
    // The probe claim holds only for what windows_exe_test.cpp probes: --host without --sysroot.
    if (n.why == kProbedAsHost) CHECK((has("--host") && !has("--sysroot")));
    if (n.why == kOwnWindowsFolders) CHECK(has("--sysroot"));
    // Likewise for the replay of a recipe: --import without --sysroot.
    if (n.why == kRecipe || n.why == kPackagedApp) CHECK((has("--import") && !has("--sysroot")));
  }
  for (const auto& s : scenarios) {
    // check_*: `dlldoctor check` on a drive under --sysroot; windows_exe_test compares it live under Wine.
    if (s.wine || s.name.rfind("finding_", 0) == 0 || s.name.rfind("check_", 0) == 0) continue;
    CHECK_MESSAGE(listed.count(s.name), s.name << " is neither wine = true nor in kNotRun: run it or say why not");
  }
}

// The only test case here that runs Wine: tests/CMakeLists.txt runs the test suite needs-wine64 as its own
// CTest entry, so the checks of the tables above still run (and pass or fail) without Wine.
namespace {

// dlldoctor's prediction for a start-up scenario's arguments (its tree at `root`), and Wine's loader
// starting the same program with the same PATH and folder, compared.
Comparison predict_and_run(WinePrefix& prefix, const fs::path& root, const std::string& scenario_cwd,
                           const std::vector<std::string>& args, const StartUp& up) {
  // dlldoctor with Wine's policy for wrong-machine files (it skips them).
  std::vector<std::string> argv{kDlldoctor};
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--wrong-machine") {
      ++i;
      continue;
    }
    argv.push_back(args[i]);
  }
  argv.insert(argv.end(), {"--wrong-machine", "skip", "--format", "json"});
  const fs::path cwd = up.cwd.empty() ? root / scenario_cwd : fs::path(up.cwd);
  fs::create_directories(cwd);
  const auto predicted = dlldoctor::test::run_process(argv, {}, cwd.string());
  json report;
  try {
    report = json::parse(predicted.out);
  } catch (const json::exception&) {
    FAIL("dlldoctor printed no JSON: " << predicted.err);
  }

  std::string winepath;
  for (size_t i = 0; i < up.path.size(); ++i) winepath += (i ? ";" : "") + wine_path(up.path[i]);
  auto env = prefix.env();
  // err+module names the module whose import is missing, which +loaddll never logs as loaded.
  env["WINEDEBUG"] = "-all,+loaddll,err+module";
  env["WINEPATH"] = winepath;
  // Our fake MSVC runtime, not Wine's builtin one (Wine would otherwise prefer its own).
  // winedbg disabled: a program that crashes just exits instead of starting the debugger.
  env["WINEDLLOVERRIDES"] = "msvcp140,vcruntime140=n;winedbg.exe=d";
  const fs::path program = fs::path(up.program);
  const WineRun wine =
      run_traced(program.string(), wine_path(program.string()), env, cwd, root / "wine.out", root / "wine.err");
  Comparison c = compare(report, wine);
  c.context = "WINEPATH=" + winepath + " cwd=" + cwd.string() + " exit " + std::to_string(wine.exit_code) +
              "\nWine stdout: " + read_text(root / "wine.out").substr(0, 1000) + "\nWine log (" +
              (root / "wine.err").string() + "):\n" + wine.log.substr(0, 4000);
  return c;
}

// One Wine prefix and server for the whole run (doctest enters a test case once per SUBCASE); the server
// is killed when the program exits.
WinePrefix& wine_prefix(const fs::path& work) {
  static WinePrefix prefix(work / "prefix");
  static const std::string error = prefix.start();
  REQUIRE_MESSAGE(error.empty(), error);
  return prefix;
}

}  // namespace

TEST_CASE("wine: the real loader agrees with dlldoctor on the scenarios marked wine = true" *
          doctest::test_suite("needs-wine64")) {
  if (!fs::exists(kWine)) {
    skip(kWine, "wine64");
    return;
  }
  std::vector<Scenario> scenarios;
  for (auto& s : dlldoctor::test::load_scenarios(kScenarios))
    if (s.wine) scenarios.push_back(std::move(s));
  REQUIRE(!scenarios.empty());

  fs::create_directories(kWork);
  const fs::path work = fs::canonical(kWork);
  WinePrefix& prefix = wine_prefix(work);

  for (const auto& s : scenarios) {
    SUBCASE(s.name.c_str()) {
      INFO("scenario " << s.name << ": " << s.description);
      const fs::path root = work / "trees" / s.name;
      dlldoctor::test::build_tree(s, kFixtures, root);
      std::vector<std::string> args;
      for (const auto& a : s.args) args.push_back(dlldoctor::test::expand(a, root, kFixtures));
      StartUp up;
      try {
        up = start_up(args);
      } catch (const std::exception& e) {
        FAIL(s.name << ": " << e.what());
      }

      const Comparison c = predict_and_run(prefix, root, s.cwd, args, up);
      INFO(c.context);
      std::set<std::string> observed;
      for (const auto& [what, text] : c.keyed) {
        const Difference* documented = nullptr;
        for (const auto& d : kDifferences)
          if (s.name == d.scenario && what == d.what) documented = &d;
        if (documented) {
          observed.insert(what);
          MESSAGE("documented Wine difference in " << s.name << " (" << what << "): " << text
                                                   << "\n  difference: " << std::string(documented->difference)
                                                   << "\n  why: " << std::string(documented->why));
        } else {
          FAIL_CHECK(what << ": " << text);
        }
      }
      for (const auto& d : kDifferences)
        if (s.name == d.scenario && !observed.count(d.what))
          FAIL_CHECK("documented difference not observed any more ("
                     << std::string(d.what) << ": " << std::string(d.difference) << "): remove it from kDifferences");
    }
  }
}

// A verified plan, carried out on a copy of a start-up scenario's tree, must make Wine's loader start the
// program with the files dlldoctor predicted for the mended tree (the documented differences of the
// scenario are allowed, not required).
TEST_CASE("wine: after a scenario's verified plan, the real loader loads what dlldoctor predicts" *
          doctest::test_suite("needs-wine64")) {
  if (!fs::exists(kWine)) {
    skip(kWine, "wine64");
    return;
  }
  fs::create_directories(kWork);
  const fs::path work = fs::canonical(kWork);
  WinePrefix& prefix = wine_prefix(work);
  std::size_t checked = 0;
  for (const auto& s : dlldoctor::test::load_scenarios(kScenarios)) {
    if (!s.wine) continue;
    const fs::path root = work / "trees" / s.name;
    dlldoctor::test::build_tree(s, kFixtures, root);
    std::vector<std::string> argv{kDlldoctor};
    for (const auto& a : s.args) argv.push_back(dlldoctor::test::expand(a, root, kFixtures));
    argv.insert(argv.end(), {"--format", "json"});
    fs::create_directories(root / s.cwd);
    const json report =
        json::parse(dlldoctor::test::run_process(argv, {}, (root / s.cwd).string()).out, nullptr, false);
    if (!report.is_object() || !report["plan"].is_object() || report["plan"]["verified"] != true) continue;
    INFO("scenario " << s.name);
    const fs::path planned = work / "trees" / (s.name + ".planned");
    fs::remove_all(planned);
    fs::copy(root, planned, fs::copy_options::recursive);
    const auto run = dlldoctor::test::carry_out_plan(s, report, root, planned, kFixtures, kDlldoctor);
    if (!run.why_not.empty()) {
      MESSAGE(s.name << ": plan not carried out: " << run.why_not);
      continue;
    }
    const StartUp up = start_up(run.args);
    const Comparison c = predict_and_run(prefix, planned, s.cwd, run.args, up);
    INFO(c.context);
    ++checked;
    for (const auto& [what, text] : c.keyed) {
      const bool documented = std::any_of(std::begin(kDifferences), std::end(kDifferences),
                                          [&](const Difference& d) { return s.name == d.scenario && what == d.what; });
      if (documented) {
        MESSAGE("documented Wine difference in " << s.name << " after its plan (" << what << "): " << text);
      } else {
        FAIL_CHECK(what << ": " << text);
      }
    }
  }
  MESSAGE(checked << " verified plans started under Wine");
  CHECK(checked > 0);
}
