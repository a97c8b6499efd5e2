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

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "scenarios/scenario.hpp"
#include "support/run_process.hpp"

namespace fs = std::filesystem;
using dlldoctor::test::lower;
using dlldoctor::test::Scenario;
using nlohmann::json;

namespace {

const fs::path kScenarios = DLLDOCTOR_SCENARIOS_DIR;
const fs::path kFixtures = DLLDOCTOR_FIXTURES_DIR;
const std::string kDlldoctor = DLLDOCTOR_BINARY;
const fs::path kWork = DLLDOCTOR_WINE_WORK_DIR;
const std::string kWine = "/usr/lib/wine/wine64";
const std::string kWineserver = "/usr/lib/wine/wineserver";

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

std::string wine_path(const std::string& host) {
  if (host.empty() || host.front() != '/') return host;
  std::string out = "Z:" + host;
  for (auto& c : out)
    if (c == '/') c = '\\';
  return out;
}

std::string base_name(const std::string& windows_path) {
  const auto slash = windows_path.find_last_of("\\/");
  return lower(slash == std::string::npos ? windows_path : windows_path.substr(slash + 1));
}

// Runs a program with stdout and stderr going to files: Wine's background processes (services.exe,
// explorer.exe) inherit them and outlive the program, so pipes would never reach end of file.
int run_to_files(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                 const fs::path& cwd, const fs::path& out_file, const fs::path& err_file) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int out = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0) _exit(127);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    for (const auto& [key, value] : env) setenv(key.c_str(), value.c_str(), 1);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(127);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

class WinePrefix {
 public:
  explicit WinePrefix(fs::path prefix) : prefix_(std::move(prefix)) {}
  ~WinePrefix() {
    if (server_started_) run_to_files({kWineserver, "-k"}, env(), {}, log("kill.out"), log("kill.err"));
  }
  WinePrefix(const WinePrefix&) = delete;
  WinePrefix& operator=(const WinePrefix&) = delete;

  std::map<std::string, std::string> env() const { return {{"WINEPREFIX", prefix_.string()}, {"WINEDEBUG", "-all"}}; }
  fs::path log(const std::string& name) const { return prefix_.parent_path() / ("prefix-" + name); }

  // Boots the prefix once; returns an error text or "".
  std::string start() {
    const fs::path ready = prefix_ / "dlldoctor-ready";
    if (!fs::exists(ready)) {
      fs::remove_all(prefix_);
      fs::create_directories(prefix_.parent_path());
      const int rc = run_to_files({kWine, "wineboot", "-i"}, env(), {}, log("boot.out"), log("boot.err"));
      if (rc != 0) return "wineboot -i failed with " + std::to_string(rc) + ": " + read_text(log("boot.err"));
      run_to_files({kWineserver, "-w"}, env(), {}, log("wait.out"), log("wait.err"));
      // Wine installs its own msvcp140.dll/vcruntime140.dll in system32, where they would win over every
      // copy the scenarios place (step 8 comes before the current folder and PATH). A stock Windows has
      // them only after the VC++ redistributable is installed: remove them so the prefix is that machine.
      for (const char* name : {"msvcp140.dll", "vcruntime140.dll"}) {
        fs::remove(prefix_ / "drive_c/windows/system32" / name);
        fs::remove(prefix_ / "drive_c/windows/syswow64" / name);
      }
      std::ofstream(ready) << "booted by tests/wine/wine_test.cpp\n";
    }
    // One persistent server for the batch (killed in the destructor).
    if (run_to_files({kWineserver, "-p"}, env(), {}, log("server.out"), log("server.err")) != 0)
      return "wineserver -p failed: " + read_text(log("server.err"));
    server_started_ = true;
    // Start the prefix's background services now, so their start-up is not part of the first scenario.
    run_to_files({kWine, "wineboot"}, env(), {}, log("warm.out"), log("warm.err"));
    return {};
  }

  const fs::path& path() const { return prefix_; }

 private:
  fs::path prefix_;
  bool server_started_ = false;
};

struct WineRun {
  int exit_code = -1;
  std::map<std::string, std::string> loaded;  // lower-case base name -> Windows path Wine loaded
  std::set<std::string> builtin;              // lower-case base names Wine mapped from its own builtins
  std::string log;
};

// `Loaded L"Z:\\...\\x.dll" at 0000000180000000: native` from the program's own thread only: the
// background processes write their own loaddll lines into the same stream (DOMAIN.md §7).
WineRun parse_loaddll(const std::string& text, const std::string& program_windows_path) {
  WineRun run;
  run.log = text;
  static const std::regex kLoaded(
      R"re(^([0-9a-f]+):trace:loaddll:\w+ Loaded L"(.*)" at [0-9A-Fa-f]+: (native|builtin)\s*$)re");
  std::string thread;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, kLoaded)) continue;
    std::string path = m[2];
    for (size_t at = path.find("\\\\"); at != std::string::npos; at = path.find("\\\\", at + 1)) path.erase(at, 1);
    if (thread.empty()) {
      if (lower(path) != lower(program_windows_path)) continue;
      thread = m[1];
    }
    if (m[1] != thread) continue;
    run.loaded.emplace(base_name(path), path);
    if (m[3] == "builtin") run.builtin.insert(base_name(path));
  }
  return run;
}

struct Comparison {
  std::vector<std::string> mismatches;  // "what: text"
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
      if (m["path"].is_string()) want = wine_path(m["path"].get<std::string>());
      else if (m["windows_path"].is_string()) want = m["windows_path"].get<std::string>();
      if (want.empty()) continue;
      if (got == wine.loaded.end()) add(lower(name), "dlldoctor predicts " + want + ", Wine did not load it");
      else if (lower(got->second) != lower(want))
        add(lower(name), "dlldoctor predicts " + want + ", Wine loaded " + got->second +
                             (wine.builtin.count(lower(name)) ? " (builtin)" : " (native)"));
    } else if (got != wine.loaded.end()) {
      add(lower(name), "dlldoctor predicts " + status + ", Wine loaded " + got->second);
    }
  }
  // A missing export: Windows stops before main; Wine runs the program until it calls the stub.
  if (report["outcome"].value("error", json()) == 127 && lower(wine.log).find("unimplemented function") != std::string::npos)
    add("outcome", "dlldoctor predicts start-up fails with 127; Wine started the program, which then called an "
                   "unimplemented function (exit code " + std::to_string(wine.exit_code) + ")");
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
          MESSAGE("documented Wine difference in " << s.name << " (" << what << "): " << text << "\n  difference: "
                                                   << std::string(documented->difference) << "\n  why: "
                                                   << std::string(documented->why));
        } else {
          FAIL_CHECK(what << ": " << text);
        }
      }
      for (const auto& d : kDifferences)
        if (s.name == d.scenario && !observed.count(d.what))
          FAIL_CHECK("documented difference not observed any more (" << std::string(d.what) << ": "
                                                                     << std::string(d.difference)
                                                                     << "): remove it from kDifferences");
    }
  }
}
