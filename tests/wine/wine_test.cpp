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

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "scenarios/scenario.hpp"
#include "support/run_process.hpp"
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
     "when it calls the unresolved import (\"Call ... to unimplemented function zlibwapi.dll.zlibVersion\")",
     "Wine treats a missing export as a warning and binds a stub that aborts when called (DOMAIN.md §7)"},
    {"dotlocal_folder_redirects", "cudnn64_9.dll",
     "Windows takes cudnn64_9.dll from the app_delay.exe.local folder (DLL redirection, step 1); Wine loads the "
     "exe folder copy",
     "Wine 8.0's loader does not implement .local DLL redirection (it is only mentioned as a Windows feature in "
     "DOMAIN.md §1; dlldoctor follows Windows)"},
    {"known_dll_assumed_beats_app_dir", "kernel32.dll",
     "Wine's log names the fake app\\kernel32.dll, but with \": builtin\": it maps its own kernel32, so the "
     "fake file is not used, as on Windows where the KnownDLL wins",
     "Wine cannot tell KnownDLLs apart from its builtins and reports a builtin under the path it was asked "
     "for (DOMAIN.md §7)"},
};

// Not differences between the loaders but limits of what the fixtures do when run, applied to every scenario:
//  - load "runtime" modules: the fake cuDNN dispatcher does not LoadLibrary its siblings (rules/cudnn.toml
//    lists them for the real one), so Wine never loads them; they are not compared.
//  - load "delay" modules: app_delay.exe only calls its delay import when cuDNN 9 is missing.

struct Comparison {
  std::vector<std::string> mismatches;                     // "what: text"
  std::vector<std::pair<std::string, std::string>> keyed;  // (what, text) for the difference table
};

Comparison compare(const json& report, const WineRun& wine) {
  Comparison c;
  const auto add = [&](const std::string& what, const std::string& text) { c.keyed.emplace_back(what, text); };
  for (const auto& m : report["modules"]) {
    const std::string name = m.value("name", "");
    const std::string load = m.value("load", "");
    if (m.value("found_by", json()) == "root" || load == "runtime" || load == "delay") continue;
    const auto got = wine.loaded.find(lower(name));
    const std::string status = m.value("status", "");
    if (status == "ok") {
      std::string want;
      if (m["path"].is_string())
        want = wine_path(m["path"].get<std::string>());
      else if (m["windows_path"].is_string())
        want = m["windows_path"].get<std::string>();
      if (want.empty()) continue;
      if (got == wine.loaded.end())
        add(lower(name), "dlldoctor predicts " + want + ", Wine did not load it");
      else if (lower(got->second) != lower(want))
        add(lower(name), "dlldoctor predicts " + want + ", Wine loaded " + got->second +
                             (wine.builtin.count(lower(name)) ? " (builtin)" : " (native)"));
    } else if (got != wine.loaded.end()) {
      add(lower(name), "dlldoctor predicts " + status + ", Wine loaded " + got->second);
    }
  }
  // A missing export: Windows stops before main; Wine runs the program until it calls the stub.
  if (report["outcome"].value("error", json()) == 127 &&
      lower(wine.log).find("unimplemented function") != std::string::npos)
    add("outcome",
        "dlldoctor predicts start-up fails with 127; Wine started the program, which then called an "
        "unimplemented function (exit code " +
            std::to_string(wine.exit_code) + ")");
  const bool predicted_ok = report["outcome"].value("status", "") == "ok";
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

TEST_CASE("wine: every documented difference names a wine = true scenario") {
  std::set<std::string> names;
  for (const auto& s : dlldoctor::test::load_scenarios(kScenarios))
    if (s.wine) names.insert(s.name);
  for (const auto& d : kDifferences)
    CHECK_MESSAGE(names.count(d.scenario),
                  "kDifferences lists " << std::string(d.scenario) << ", not a wine = true scenario");
}

TEST_CASE("wine: the real loader agrees with dlldoctor on the scenarios marked wine = true") {
  if (!fs::exists(kWine)) {
    MESSAGE("skipped: Wine not installed (" << kWine << ")");
    return;
  }
  std::vector<Scenario> scenarios;
  for (auto& s : dlldoctor::test::load_scenarios(kScenarios))
    if (s.wine) scenarios.push_back(std::move(s));
  REQUIRE(!scenarios.empty());

  fs::create_directories(kWork);
  const fs::path work = fs::canonical(kWork);
  // doctest enters the test case once per SUBCASE: the prefix and its server are started on the first
  // entry only and the server is killed when the program exits.
  static WinePrefix prefix(work / "prefix");
  static const std::string error = prefix.start();
  REQUIRE_MESSAGE(error.empty(), error);

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
      const fs::path cwd = up.cwd.empty() ? root / s.cwd : fs::path(up.cwd);
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
      env["WINEDEBUG"] = "-all,+loaddll";
      env["WINEPATH"] = winepath;
      // Our fake MSVC runtime, not Wine's builtin one (Wine would otherwise prefer its own).
      // winedbg disabled: a program that crashes just exits instead of starting the debugger.
      env["WINEDLLOVERRIDES"] = "msvcp140,vcruntime140=n;winedbg.exe=d";
      const fs::path program = fs::path(up.program);
      const int rc = run_to_files({kWine, program.string()}, env, cwd, root / "wine.out", root / "wine.err");
      WineRun wine = parse_loaddll(read_text(root / "wine.err"), wine_path(program.string()));
      wine.exit_code = rc;
      INFO("WINEPATH=" << winepath << " cwd=" << cwd.string() << " exit " << rc);
      INFO("Wine log (" << (root / "wine.err").string() << "):\n" << wine.log.substr(0, 4000));

      const Comparison c = compare(report, wine);
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
