#pragma once
// The whole diagnosis of one request, from the environment to the findings: resolver, closure, inventory,
// rule engine. The CLI runs it once per report; the pipeline fuzz target runs it on hostile bytes; a fix
// plan can run it again over an overlay of the file system. Nothing here reads the live machine.
#include <string>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/file_system.hpp"
#include "dlldoctor/env/inventory.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/pe/image_cache.hpp"
#include "dlldoctor/resolve/resolver.hpp"
#include "dlldoctor/rules/rule_data.hpp"
#include "dlldoctor/rules/rule_engine.hpp"

namespace dlldoctor::pipeline {

struct Diagnosis {
  graph::Closure closure;
  // The standard search order of the program's process, for the report's environment section.
  std::vector<resolve::SearchFolder> search_order;
  env::Inventory inventory;
  rules::RuleOutput rules;
};

struct DiagnoseOptions {
  resolve::WrongMachinePolicy policy = resolve::WrongMachinePolicy::Fail;
  std::vector<std::string> look_in;               // host folders searched recursively for copies (--look-in)
  std::vector<std::string> site_packages;         // the Python environment's: pip wheels' folders hold copies too
  std::vector<rules::FrameworkInUse> frameworks;  // what --import brought in, for their recipes' requirements
  // Folders another version of an imported framework adds and this one does not (host folder, what to say):
  // a missing DLL's copy there is named with that.
  std::vector<std::pair<std::string, std::string>> not_added;
};

// Errors only when the program cannot be read at all (build_closure's errors).
Result<Diagnosis> diagnose(const graph::ClosureRequest& request, const env::Environment& environment,
                           const rules::RuleData& rules, const DiagnoseOptions& options, env::FileSystem& files,
                           pe::ImageCache& images);

}  // namespace dlldoctor::pipeline
