#pragma once
// Load recipes expanded into the closure request: `dlldoctor python.exe --import torch` becomes the
// AddDllDirectory and LoadLibraryExW calls torch's __init__.py makes, in order, with their flags, after
// the calls the Python environment itself makes at start-up (conda's folders, the Store's PATH rule).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/file_system.hpp"
#include "dlldoctor/env/python_env.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::recipes {

// What became of one step, for the report: "added", "2 loads", "skipped: ...".
struct StepOutcome {
  std::string step;     // the step with its values: "add_dll_directory C:\...\torch\lib"
  std::string outcome;  // what it did
  std::string why;      // the source line it stands for (from the recipe)
};

struct ExpandedRecipe {
  std::string id;                             // "torch", "conda"
  std::string name;                           // "PyTorch"
  std::string package_dir;                    // host path; empty for a start-up recipe
  std::map<std::string, std::string> values;  // version and attributes read from the package's files
  std::vector<StepOutcome> steps;
  std::size_t first_load = 0, loads = 0;  // its calls in ClosureRequest::loads
  std::string code;                       // the loading code it replays (Recipe::code)
  // The package's version is outside the versions the recipe holds for (Recipe::covers): what the report
  // says then ("the recipe holds for torch 2.0 to 2.9; this is 3.1.0: its loading code may differ"), else empty.
  std::string outside_covers;
  // Folders a step of another version of the framework adds and this one does not (host path, what to say:
  // "PyTorch 2.3.0 does not add that folder (PyTorch 2.3.1 and later do)").
  std::vector<std::pair<std::string, std::string>> not_added;
};

struct Expansion {
  env::PythonEnvironment python;
  std::vector<ExpandedRecipe> recipes;      // start-up recipes first, then each --import in order
  std::vector<std::string> variables_used;  // "CUDA_PATH_V12_4 = C:\... (registry)"
};

// Appends the calls to `request` (its loads and start-up settings). Errors: an import no recipe
// describes, or a package that is not installed (naming the folders looked in).
Result<Expansion> expand_python(const rules::RuleData& rules, const env::PythonEnvironment& python,
                                const std::vector<std::string>& imports, const env::Environment& environment,
                                env::FileSystem& files, graph::ClosureRequest& request);

}  // namespace dlldoctor::recipes
