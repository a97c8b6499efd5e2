#pragma once
// The stack in one view (seed §6): the NVIDIA driver, the CUDA runtimes, the cuDNN and the MSVC runtime
// a process loads, side by side, each with the findings that concern it. Computed once from the closure,
// the families' kinds (rules/*.toml) and the findings; the writers only format it. It concludes nothing:
// a mismatch is shown by naming the finding the rule engine raised about it.
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/recipes/expand.hpp"
#include "dlldoctor/resolve/resolver.hpp"
#include "dlldoctor/rules/finding.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::session {

struct StackDll {
  std::string name;
  std::optional<std::string> file_version;
};

// The DLLs of one family that load from one folder (for a family whose members carry one version, such
// as cuDNN, also of one file version: two releases are two entries).
struct StackEntry {
  std::string family;  // id from rules/: "cudnn9"
  std::string name;    // "cuDNN 9"
  // The release: the driver number ("552.44"), the CUDA release ("12.4"), else the file version of the
  // family's main DLL; empty when the files do not tell.
  std::string version;
  std::vector<StackDll> dlls;  // in the closure's order, the main DLL first
  // Of the first DLL: where it loads from and the search step that found it.
  std::optional<std::string> path;  // host path; none for a DLL assumed present
  std::optional<std::string> windows_path;
  resolve::SearchStep found_by = resolve::SearchStep::Path;
  bool assumed = false;
  std::vector<std::string> findings;  // ids of the findings that name one of its DLLs, in report order
};

struct StackDriver {
  StackEntry entry;
  std::string newest_cuda;  // the newest CUDA release the driver runs ([driver] minimum); empty if none
};

// A framework --import brought in (its recipe's values, from the package's own files), and how the
// stack that loads fits what it was built for.
struct StackFramework {
  std::string recipe;   // "torch"
  std::string name;     // "PyTorch"
  std::string version;  // "2.5.1+cu124"; empty when its files do not say
  std::string cuda;     // the CUDA release it was built for ("12.4"); empty for a CPU build or unknown
  std::string cudnn;    // the cuDNN it was built for (onnxruntime's version_info); empty when unknown
  // The cuDNN that loads from the package's own folder (torch\lib): its version, else empty.
  std::string own_cudnn;
  // What loads against what it was built for: "built for CUDA 12.4; CUDA 13.0 loads (cudart64_13.dll)".
  std::vector<std::string> mismatches;
};

struct Stack {
  std::optional<StackDriver> driver;
  std::vector<StackEntry> cuda_runtimes;
  std::vector<StackEntry> cudnn;
  std::vector<StackEntry> msvc_runtime;
  std::vector<StackFramework> frameworks;

  bool empty() const {
    return !driver && cuda_runtimes.empty() && cudnn.empty() && msvc_runtime.empty() && frameworks.empty();
  }
};

// One line of the stack as the reports show it: "cuDNN 9.1.0.70", with its entry.
struct StackRow {
  std::string part;
  const StackEntry* entry;
};
std::vector<StackRow> stack_rows(const Stack& stack);

// "PyTorch 2.5.1+cu124, built for CUDA 12.4: its own cuDNN 9.1.0.70 loads".
std::string framework_line(const StackFramework& framework);

// Where an entry loads from: its Windows path when known, "(assumed)" after an assumed one.
std::string stack_where(const StackEntry& entry);

// `expansion`: the --import recipes, when there are any.
Stack stack_of(const graph::Closure& closure, const rules::RuleData& rules, const std::vector<rules::Finding>& findings,
               const recipes::Expansion* expansion);

}  // namespace dlldoctor::session
