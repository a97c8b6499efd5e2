#pragma once
// Data-driven scenarios (tests/scenarios/*.toml): a folder tree built from the PE fixtures, the dlldoctor
// arguments, and what the report must say. Shared by the scenario runner (the simulator against the
// expectations written by a person) and the Wine runner (the simulator against Wine's real loader).
// The file format is described in tests/scenarios/README.md.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace dlldoctor::test {

// One entry of [files]: what to put at `dest` (relative to {root}).
struct ScenarioFile {
  enum class Kind { kFixture, kEmpty, kText, kFolder, kFixtureSet };
  std::string dest;
  Kind kind = Kind::kFixture;
  std::string source;  // fixture path (kFixture), a pattern like "x64/cudnn*64_9.dll" (kFixtureSet), or the text
  std::optional<std::uint64_t> cut;  // kFixture: keep only this many bytes (a copy cut short)
};

// [modules."name"]: every key is optional; absent keys are not checked.
struct ModuleExpectation {
  std::string name;
  std::optional<std::string> status, path, found_by, load, machine, file_version, api_set_host, windows_path, owner;
  std::optional<bool> assumed;
  std::optional<std::vector<std::string>> shadowed;           // exact set, relative to {root}
  std::vector<std::pair<std::string, std::string>> verdicts;  // candidate path -> verdict
  std::optional<std::vector<std::string>> missing_exports;    // exact set of function names
  std::optional<std::string> missing_export_detail;           // a part of some missing export's detail
  std::optional<std::vector<std::string>> needed_by;          // subset that must be present
  // Names in its data that are hints (may_load): dll -> the path a plain LoadLibrary finds, relative to
  // {root}, or "not_found"; exact set.
  std::optional<std::vector<std::pair<std::string, std::string>>> may_load;
  std::optional<std::vector<std::string>> other_major;  // exact set
};

// [[json]]: a free-form check on one value of the report, for what the typed keys do not cover.
struct JsonExpectation {
  std::string pointer;                  // RFC 6901, e.g. "/environment/path/0/exists"
  nlohmann::json equals;                // strings have {root} replaced
  std::optional<std::string> contains;  // instead of equals: a text value holding this
};

// [[findings]]: a finding the report must hold (matched by id, and module when given).
struct FindingExpectation {
  std::string id;
  std::optional<std::string> failure_mode, module, severity, message_contains, fix_contains, fix_excludes;
  std::optional<std::string> says_contains;  // a line of what the user sees holds this
  // JSON pointers into the finding's evidence and the value there (strings have {root} replaced).
  std::vector<std::pair<std::string, nlohmann::json>> evidence;
};

struct Scenario {
  std::string name;  // the file's stem
  std::filesystem::path file;
  std::string description;
  bool wine = false;
  std::vector<ScenarioFile> files;
  std::vector<std::string> args;  // dlldoctor arguments, placeholders not yet replaced
  std::string cwd;                // process working folder, relative to {root} ("" = {root})
  std::optional<int> exit_code;
  // [outcome]
  std::optional<std::string> outcome_status;
  std::optional<nlohmann::json> outcome_error;                                      // a number, or null for "none"
  std::optional<std::vector<std::pair<std::string, std::string>>> outcome_missing;  // (dll, needed_by), ordered
  std::optional<std::string> reason_contains;
  std::vector<ModuleExpectation> modules;
  std::vector<std::string> absent_modules;  // names that must not appear in the report at all
  std::vector<JsonExpectation> json_checks;
  std::vector<FindingExpectation> findings;
  std::optional<std::vector<std::string>> finding_ids;  // the exact ids of all findings, any order
  // A healthy install (docs/DECISIONS.md, "What earns an error or a warning"): the outcome is ok, the exit
  // status 0, and no finding is an error or a warning, whatever else the scenario checks.
  bool healthy = false;
};

// Reads one scenario file; throws std::runtime_error with the file name on a malformed one.
Scenario load_scenario(const std::filesystem::path& file);
// Every *.toml in `folder`, sorted by name.
std::vector<Scenario> load_scenarios(const std::filesystem::path& folder);

// Builds the tree of `scenario` in a fresh `root` (removed first), copying fixture files (never links).
void build_tree(const Scenario& scenario, const std::filesystem::path& fixtures, const std::filesystem::path& root);

// {root} and {fixtures} replaced.
std::string expand(const std::string& text, const std::filesystem::path& root, const std::filesystem::path& fixtures);

// Compares a report with the scenario's expectations; one human-readable line per mismatch.
// A report of `dlldoctor check` (dlldoctor.check/1): several processes, a verdict for the machine.
bool is_check_report(const nlohmann::json& report);

std::vector<std::string> check_report(const Scenario& scenario, const nlohmann::json& report, int exit_code,
                                      const std::filesystem::path& root);

// A host path shown relative to root when it is inside it (what scenario files write).
std::string relative_to_root(const std::string& host_path, const std::filesystem::path& root);

// The module entry of `report` with this name (compared case-insensitively), or nullptr.
const nlohmann::json* find_module(const nlohmann::json& report, const std::string& name);

std::string lower(std::string text);

// A report's plan (report["plan"]["steps"]) carried out for real on `planned`, a fresh copy of the
// scenario's tree at `root`: files renamed, copied (with a Zone.Identifier stream file, as CopyFile
// copies the stream), installed from a fixture of the same name, machine and version; PATH steps change
// the next run's --path (the entries the report's environment lists), a new terminal drops --path so
// that the registry's PATH is used. `args` are dlldoctor's arguments for the next run (no program name,
// no --format); `why_not` says why the plan cannot be carried out here (no fixture stands in).
struct PlannedRun {
  std::vector<std::string> args;
  std::string why_not;
};
PlannedRun carry_out_plan(const Scenario& s, const nlohmann::json& report, const std::filesystem::path& root,
                          const std::filesystem::path& planned, const std::filesystem::path& fixtures,
                          const std::string& dlldoctor);

// known_failures.txt: "<scenario name> <reason>" per line, '#' starts a comment.
struct KnownFailure {
  std::string name;
  std::string reason;
};
std::vector<KnownFailure> load_known_failures(const std::filesystem::path& file);

}  // namespace dlldoctor::test
