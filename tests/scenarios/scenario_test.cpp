// Every tests/scenarios/*.toml run through the real CLI on a real folder tree (STYLE.md "Tests": each
// search-order rule and failure mode has a scenario asserting the exact file chosen). Scenarios listed in
// known_failures.txt are checked inverted: they must still fail, and one that starts passing fails the
// test so the list stays true.
#include "scenarios/scenario.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include "support/run_process.hpp"

namespace fs = std::filesystem;
using dlldoctor::test::check_report;
using dlldoctor::test::KnownFailure;
using dlldoctor::test::run_process;
using dlldoctor::test::Scenario;
using nlohmann::json;

namespace {

const fs::path kScenarios = DLLDOCTOR_SCENARIOS_DIR;
const fs::path kFixtures = DLLDOCTOR_FIXTURES_DIR;
const std::string kDlldoctor = DLLDOCTOR_BINARY;
const fs::path kWork = DLLDOCTOR_SCENARIO_WORK_DIR;

// DLLDOCTOR_SCENARIO_SHARD=K/N: this process runs every N-th scenario from the K-th (1-based), so that CTest
// runs N processes side by side (tests/CMakeLists.txt); unset, all of them.
std::vector<Scenario> scenarios_of_this_shard() {
  std::vector<Scenario> all = dlldoctor::test::load_scenarios(kScenarios);
  const char* shard = std::getenv("DLLDOCTOR_SCENARIO_SHARD");
  if (shard == nullptr || *shard == '\0') return all;
  const std::string text = shard;
  const std::size_t slash = text.find('/');
  const std::size_t k = std::stoul(text.substr(0, slash)), n = std::stoul(text.substr(slash + 1));
  REQUIRE_MESSAGE((k >= 1 && k <= n), "DLLDOCTOR_SCENARIO_SHARD=" << text << ": write K/N with 1 <= K <= N");
  std::vector<Scenario> mine;
  for (std::size_t i = k - 1; i < all.size(); i += n) mine.push_back(std::move(all[i]));
  return mine;
}

struct RunResult {
  std::vector<std::string> failures;
  std::string command;
  std::string stderr_text;
};

RunResult run(const Scenario& s) {
  RunResult r;
  fs::create_directories(kWork);
  // canonical: the report prints real paths, and the build folder may sit behind a symbolic link.
  const fs::path root = fs::canonical(kWork) / s.name;
  dlldoctor::test::build_tree(s, kFixtures, root);
  std::vector<std::string> argv{kDlldoctor};
  for (const auto& a : s.args) argv.push_back(dlldoctor::test::expand(a, root, kFixtures));
  argv.insert(argv.end(), {"--format", "json"});
  for (const auto& a : argv) r.command += (r.command.empty() ? "" : " ") + ("'" + a + "'");
  const fs::path cwd = root / s.cwd;
  fs::create_directories(cwd);
  const auto result = run_process(argv, {}, cwd.string());
  r.stderr_text = result.err;
  json report;
  try {
    report = json::parse(result.out);
  } catch (const json::exception& e) {
    r.failures.push_back("exit code " + std::to_string(result.exit_code) + ", output is not JSON (" + e.what() +
                         "); stderr: " + result.err);
    return r;
  }
  r.failures = check_report(s, report, result.exit_code, root);
  // A finding template naming a value its detector did not give is a bug in rules/ or the detector.
  if (result.err.find("dlldoctor: internal:") != std::string::npos)
    r.failures.push_back("internal problem: " + result.err);
  // Kept for the schema test below.
  fs::create_directories(kWork / "reports");
  std::ofstream(kWork / "reports" / (s.name + ".json")) << result.out;
  return r;
}

}  // namespace

TEST_CASE("scenarios: every entry of known_failures.txt names a scenario") {
  std::set<std::string> names;
  for (const auto& s : dlldoctor::test::load_scenarios(kScenarios)) names.insert(s.name);
  for (const auto& k : dlldoctor::test::load_known_failures(kScenarios / "known_failures.txt"))
    CHECK_MESSAGE(names.count(k.name), "known_failures.txt lists " << k.name << ", which is not a scenario");
}

TEST_CASE("scenarios: the simulator against tests/scenarios/*.toml") {
  const auto scenarios = scenarios_of_this_shard();
  REQUIRE(!scenarios.empty());
  std::map<std::string, std::string> known;
  for (const auto& k : dlldoctor::test::load_known_failures(kScenarios / "known_failures.txt"))
    known[k.name] = k.reason;

  for (const auto& s : scenarios) {
    SUBCASE(s.name.c_str()) {
      INFO("scenario " << s.name << ": " << s.description);
      const RunResult r = run(s);
      INFO("command: " << r.command);
      const auto k = known.find(s.name);
      if (k != known.end()) {
        // A known failure must keep failing; when it passes the simulator was fixed.
        CHECK_MESSAGE(!r.failures.empty(),
                      s.name << " passes now: remove it from known_failures.txt (listed as: " << k->second << ")");
        std::string shown;
        for (const auto& f : r.failures) shown += "\n    " + f;
        MESSAGE("known failure " << s.name << " (" << k->second << "):" << shown);
      } else {
        const std::string err = r.stderr_text.empty() ? "" : "\n  dlldoctor stderr: " + r.stderr_text;
        for (const auto& f : r.failures) FAIL_CHECK(f << err);
      }
    }
  }
}

// Runs after the scenarios (doctest keeps file order): every report they printed must match the schema
// published in docs/, checked by an independent validator (python3-jsonschema).
TEST_CASE("scenarios: every report validates against its schema (docs/report-schema.json, docs/check-schema.json)") {
  const auto scenarios = scenarios_of_this_shard();
  // `check`'s schema takes the definitions it shares with the program report's from that file.
  std::vector<std::string> reports{"/usr/bin/python3", DLLDOCTOR_JSON_VALIDATOR, DLLDOCTOR_REPORT_SCHEMA};
  std::vector<std::string> checks{"/usr/bin/python3", DLLDOCTOR_JSON_VALIDATOR, "--defs-from", DLLDOCTOR_REPORT_SCHEMA,
                                  DLLDOCTOR_CHECK_SCHEMA};
  for (const auto& s : scenarios) {
    const fs::path report = kWork / "reports" / (s.name + ".json");
    REQUIRE_MESSAGE(fs::exists(report), report << " is missing: run the whole scenario_tests binary");
    std::ifstream in(report);
    const json parsed = json::parse(in, nullptr, false);
    (dlldoctor::test::is_check_report(parsed) ? checks : reports).push_back(report.string());
  }
  for (const auto* argv : {&reports, &checks}) {
    const std::size_t files = argv->size() - (argv == &checks ? 5 : 3);
    if (files == 0) continue;
    const auto result = run_process(*argv);
    INFO(result.out << result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.out.find(std::to_string(files) + " passed, 0 failed") != std::string::npos);
  }
}

TEST_CASE("scenarios: two runs print the same bytes in every format, apart from generated_at") {
  const auto scenarios = scenarios_of_this_shard();
  REQUIRE(!scenarios.empty());
  auto without_time = [](std::string text) {
    const auto at = text.find("generated_at");
    return at == std::string::npos ? text : text.erase(at, text.find('\n', at) - at);
  };
  for (const Scenario& s : scenarios) {
    const fs::path root = fs::canonical(kWork) / s.name;
    dlldoctor::test::build_tree(s, kFixtures, root);
    fs::create_directories(root / s.cwd);
    for (const char* format : {"json", "text", "markdown"}) {
      std::vector<std::string> argv{kDlldoctor};
      for (const auto& a : s.args) argv.push_back(dlldoctor::test::expand(a, root, kFixtures));
      argv.insert(argv.end(), {"--format", format});
      const auto first = run_process(argv, {}, (root / s.cwd).string()).out;
      const auto second = run_process(argv, {}, (root / s.cwd).string()).out;
      CHECK_MESSAGE(!first.empty(), s.name << " " << format);
      CHECK_MESSAGE(without_time(first) == without_time(second), s.name << " " << format);
    }
  }
}

namespace {

// Errors and warnings as "id module", sorted: what a plan says remains, and what a run reports.
std::vector<std::string> serious(const json& findings, bool from_plan) {
  std::vector<std::string> out;
  for (const json& f : findings) {
    if (!from_plan && f["severity"] == "info") continue;
    out.push_back(f["id"].get<std::string>() + " " + (f["module"].is_string() ? f["module"].get<std::string>() : ""));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

// Runs after the scenarios: each printed plan is carried out for real on a copy of the scenario's tree
// (files renamed, copied, installed from a fixture of the same name and version; PATH edits become the
// next run's --path), and the next run must report what the plan predicted: HEALTHY for a verified plan,
// the same remaining findings otherwise. The overlay's prediction and the disk must agree.
TEST_CASE("scenarios: every plan, carried out on a copy of the tree, gives what it predicted") {
  const auto scenarios = scenarios_of_this_shard();
  std::size_t carried = 0, verified = 0;
  std::vector<std::string> not_carried;
  for (const Scenario& s : scenarios) {
    const fs::path saved = kWork / "reports" / (s.name + ".json");
    REQUIRE_MESSAGE(fs::exists(saved), saved << " is missing: run the whole scenario_tests binary");
    std::ifstream in(saved);
    const json report = json::parse(in, nullptr, false);
    if (!report.is_object() || !report.contains("plan") || report["plan"].is_null()) continue;
    INFO("scenario " << s.name);
    const fs::path root = fs::canonical(kWork) / s.name;
    const fs::path planned = fs::canonical(kWork) / (s.name + ".planned");
    dlldoctor::test::build_tree(s, kFixtures, root);
    fs::remove_all(planned);
    fs::copy(root, planned, fs::copy_options::recursive);
    const auto carried_out = dlldoctor::test::carry_out_plan(s, report, root, planned, kFixtures, kDlldoctor);
    if (!carried_out.why_not.empty()) {
      not_carried.push_back(s.name + ": " + carried_out.why_not);
      continue;
    }
    fs::create_directories(planned / s.cwd);
    std::vector<std::string> argv{kDlldoctor};
    argv.insert(argv.end(), carried_out.args.begin(), carried_out.args.end());
    argv.insert(argv.end(), {"--format", "json"});
    std::string command;
    for (const auto& a : argv) command += "'" + a + "' ";
    INFO("after the plan: " << command);
    const auto result = run_process(argv, {}, (planned / s.cwd).string());
    const json after = json::parse(result.out, nullptr, false);
    REQUIRE_MESSAGE(after.is_object(), result.err);
    ++carried;
    const json& plan = report["plan"];
    if (plan["verified"].get<bool>()) {
      ++verified;
      if (dlldoctor::test::is_check_report(after)) {
        CHECK_MESSAGE(after["verdict"]["tone"] == "healthy", s.name << ": " << after["verdict"].dump());
      } else {
        CHECK_MESSAGE(after["outcome"]["status"] == "ok", s.name);
      }
      CHECK_MESSAGE(serious(after["findings"], false).empty(), s.name << ": " << after["findings"].dump(1));
    } else {
      CHECK_MESSAGE(serious(after["findings"], false) == serious(plan["remaining"], true),
                    s.name << ": the plan predicted " << plan["remaining"].dump() << ", the disk gives "
                           << after["findings"].dump(1));
    }
  }
  std::string skipped;
  for (const auto& n : not_carried) skipped += "\n  " + n;
  MESSAGE(carried << " plans carried out on disk (" << verified << " verified); not carried out:" << skipped);
  CHECK(carried > 0);
}
