#pragma once
// `dlldoctor APP.exe`, `dlldoctor python.exe --import torch`, `dlldoctor --host H --load X`: one process on
// one machine, simulated, diagnosed and planned for, with every conclusion the reports show computed once.
// The command line, the probe, the fuzzers and the tests all come in here.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/pipeline/diagnose.hpp"
#include "dlldoctor/plan/planner.hpp"
#include "dlldoctor/recipes/expand.hpp"
#include "dlldoctor/rules/probe_comparison.hpp"
#include "dlldoctor/session/machine.hpp"
#include "dlldoctor/session/owners.hpp"
#include "dlldoctor/session/stack.hpp"

namespace dlldoctor::session {

// A LoadLibraryEx call to simulate, as the user wrote it.
struct LoadRequest {
  std::string name;                // a DLL name or path
  std::vector<std::string> flags;  // names (search-default-dirs, ...) or numbers (0x1100), or'ed
};

// What the real loader did, for the prediction just made (`dlldoctor probe`, Windows only): the front end
// runs it, since only it may start a process.
using Probe = std::function<Result<rules::ProbeResult>(const graph::ClosureRequest&, const graph::Closure&)>;

struct ExplainRequest {
  std::string program;  // the program whose start-up to simulate, or the host of the loads and imports
  bool program_is_host = false;
  std::vector<LoadRequest> loads;
  std::string set_default_dirs;  // SetDefaultDllDirectories flags
  std::vector<std::string> add_dll_dirs;
  std::string set_dll_dir;
  std::vector<std::string> preload;
  std::vector<std::string> imports;  // recipes run in the program, a Python interpreter
  // The program is a Python interpreter whose start-up (conda's AddDllDirectory, a Store Python's search
  // without PATH) comes before the loads, also when nothing is imported.
  bool python_start_up = false;
  std::vector<std::string> site_packages;  // instead of the interpreter's own
  std::string profile;                     // the flags of a kind of process for the loads
  resolve::WrongMachinePolicy policy = resolve::WrongMachinePolicy::Fail;
  std::vector<std::string> look_in;  // folders searched for copies of what is not found
  Probe probe;                       // empty: no probe
  bool plan = true;                  // false: no plan of its own (`check` makes one for all its processes)
};

// How the run reads as a whole: the verdict's first word.
enum class Tone { Healthy, Warnings, Broken, Fails };

struct Verdict {
  Tone tone = Tone::Healthy;
  std::string text;  // "BROKEN: start-up of app.exe succeeds, but 2 errors below will stop it later (...)"
};

// One simulated process and everything concluded about it. Points into the Machine it was made on.
struct ExplainRun {
  const env::Environment* environment = nullptr;
  const rules::RuleData* rules = nullptr;
  graph::ClosureRequest request;
  std::string profile;
  std::optional<recipes::Expansion> expansion;  // --import: the Python environment and the recipes run
  resolve::WrongMachinePolicy policy = resolve::WrongMachinePolicy::Fail;
  pipeline::DiagnoseOptions options;  // what the diagnosis was given (for a plan made later, over several runs)
  pipeline::Diagnosis diagnosis;      // the closure, the search order, the findings
  std::optional<plan::Plan> plan;     // when there is an error or a warning to mend
  std::optional<rules::ProbeResult> probe;
  std::vector<std::optional<Owner>> owners;  // per module of the closure: who installed the copy that loads

  // The conclusions, computed once from the above.
  Stack stack;
  Verdict verdict;
  // For each finding, the plan's steps (1-based) that mend it: its fix is those steps.
  std::vector<std::vector<std::size_t>> plan_steps;

  const graph::Closure& closure() const { return diagnosis.closure; }
  const std::vector<rules::Finding>& findings() const { return diagnosis.rules.findings; }
  // 0: no error finding and the outcome is ok; 1: otherwise.
  int exit_status() const;
};

// Simulates and diagnoses the request on `machine` (whose environment gets the notes of what the request
// assumes), plans for what it finds, runs the probe when there is one. Errors: a request that cannot be
// carried out (an unknown profile, a package that is not installed, a program that cannot be read).
Result<ExplainRun> explain(Machine& machine, const ExplainRequest& request);

// The verdict, the stack and the links of a run whose data is complete (explain calls it; a test that
// builds a run by hand may too).
void conclude(ExplainRun& run);

}  // namespace dlldoctor::session
