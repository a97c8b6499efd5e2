#pragma once
// `dlldoctor check`: the whole machine before there is a program to name (seed §3.3 and §6): the NVIDIA
// driver, every CUDA toolkit, every cuDNN copy and the one a new process finds, System32's MSVC runtime,
// and each Python environment with the frameworks it has, side by side. The questions about loading are
// asked of simulated processes (session::explain): a new process that loads each cuDNN generation's main
// DLL, each installed framework's import, ctypes.CDLL in each Python. Their findings, the folder checks and
// the machine's own (rules::run_machine_rules) are one list, mended by one plan checked on all of them.
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/env/python_env.hpp"
#include "dlldoctor/plan/planner.hpp"
#include "dlldoctor/rules/finding.hpp"
#include "dlldoctor/session/explain.hpp"
#include "dlldoctor/session/machine.hpp"
#include "dlldoctor/session/new_process.hpp"
#include "dlldoctor/session/owners.hpp"

namespace dlldoctor::session {

struct CheckRequest {
  std::vector<std::string> pythons;  // --python: interpreters to check besides those found (a venv's)
};

// One file as the tables show it: where it is and its version.
struct CheckedFile {
  std::string path;                    // host path
  std::string shown;                   // as a report shows it (its Windows path when known)
  std::optional<std::string> version;  // the file version; none when it has no version resource
};

// A package of the display driver in the driver store (one per installed driver; old ones stay).
struct DriverPackage {
  std::string folder;  // as shown
  std::vector<CheckedFile> dlls;
  std::string driver;   // "552.44", from its nvcuda; empty when it has none
  bool active = false;  // System32's nvcuda.dll is its copy (same driver)
};

struct DriverCheck {
  bool looked = false;                // a Windows system to look at: System32 is there
  std::optional<CheckedFile> nvcuda;  // System32's; none when it is not there
  std::string driver;                 // "552.44"; empty without nvcuda.dll
  std::string newest_cuda;            // the newest CUDA release it runs ([driver] minimum table)
  std::vector<DriverPackage> packages;
};

struct ToolkitCheck {
  std::string root;  // host folder
  std::string shown_root;
  std::string release;                // "12.4", from cudart's version resource; empty when not told
  std::optional<CheckedFile> cudart;  // the file the release was read from
  std::string bin;                    // host folder of its DLLs (bin, bin\x64); empty when none holds cudart
  std::string shown_bin;
  std::vector<std::string> named_by;  // "CUDA_PATH (registry: machine)", "C:\Program Files\...\CUDA\v*"
  bool on_path = false;               // a new process's PATH has its DLL folder
};

// A copy of a cuDNN generation's main DLL on the machine, and its folder's set of siblings.
struct CudnnCopy {
  CheckedFile main;
  std::string folder;                       // host folder
  std::string found_as;                     // "PATH entry 2", "System32", "an install place, not on PATH", ...
  std::vector<std::string> missing;         // the siblings this release loads that its folder lacks
  std::vector<std::string> other_versions;  // siblings of another release in the folder ("cudnn_ops64_9.dll 9.0.0.312")
  std::vector<std::string> renamed;   // the family's DLLs renamed to .bak beside it ("cudnn64_9.dll.bak 9.0.0.312")
  std::optional<int> zone_id;         // the main DLL's Mark of the Web (3: Internet), when it has one
  std::optional<std::string> header;  // cudnn_version.h's version beside it, as "9.1.0" (shown path after)
  std::string header_path;
  std::string python;          // the Python whose environment holds it (pip's wheel, conda's DLL folder), as shown
  std::optional<Owner> owner;  // who installed it, when a manifest or the folder says
  bool wins = false;           // the copy a new process loads
};

struct CudnnCheck {
  std::string family;             // "cudnn9"
  std::string name;               // "cuDNN 9"
  std::string dll;                // the main DLL: "cudnn64_9.dll"
  std::vector<CudnnCopy> copies;  // search order first (PATH, System32), then the others
  ExplainRun process;             // a new process that loads the main DLL by name
  // Whether what that process meets counts: a copy is where new processes are meant to find it (System32, a
  // PATH entry, below one, the registry's PATH), or this is the newest generation the machine has. An older
  // generation only unpacked somewhere (a cuDNN 8 zip beside cuDNN 9) is listed, not judged.
  bool judged = true;
};

// What one LoadLibrary call in one Python gives: ctypes.CDLL('cudnn64_9.dll').
struct CtypesCheck {
  std::string dll;
  ExplainRun run;
};

struct PythonCheck {
  env::PythonEnvironment python;
  std::string program;   // the interpreter as found (a venv's Scripts\python.exe)
  std::string shown;     // as shown
  std::string found_by;  // "PATH", "--python", a [machine] place, "conda env of ..."
  std::vector<CtypesCheck> ctypes;
  std::vector<ExplainRun> frameworks;  // `import X` of each installed framework whose recipe says check
  // What was not judged in it, and why: an import whose version is outside what the recipe holds for
  // (TensorFlow 2.15, a CPU-only build on Windows, against the 2.10 recipe), a load that could not be set up.
  std::vector<std::string> not_judged;
  std::string problem;  // why it could not be looked at (its environment unreadable); then nothing else
};

// A finding and the processes it was made in; none for the machine's own findings and the folder checks.
using CheckFinding = ProcessFinding;

struct CheckRun {
  const env::Environment* environment = nullptr;
  const rules::RuleData* rules = nullptr;
  DriverCheck driver;
  std::vector<ToolkitCheck> toolkits;
  std::vector<CudnnCheck> cudnn;
  std::vector<CheckedFile> msvc_runtime;  // System32's copies of the MSVC runtime's main DLLs
  std::vector<PythonCheck> pythons;
  std::vector<CheckFinding> findings;                // errors first, then warnings, then information
  std::optional<plan::Plan> plan;                    // when there is an error or a warning to mend
  std::vector<std::vector<std::size_t>> plan_steps;  // per finding, the plan's steps (1-based) that mend it
  Verdict verdict;
  std::vector<std::string> notes;  // what was assumed or could not be read

  int exit_status() const;  // 0: no error and every process loads; 1 otherwise
};

// Errors: a --python that is not there.
Result<CheckRun> check(Machine& machine, const CheckRequest& request);

}  // namespace dlldoctor::session
