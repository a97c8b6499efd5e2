#pragma once
// Who each loaded DLL belongs to, when that can be known: Windows, the GPU driver, the Visual C++
// redistributable, a CUDA toolkit, a Python package (its dist-info), a conda package (conda-meta) or an npm
// package (package.json). A report names it beside the DLL, so "which install put this file here" needs
// no second tool.
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/inventory.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::session {

struct Owner {
  // windows, driver, msvc_redist, cuda_toolkit, python_package, conda_package, npm_package
  std::string kind;
  std::string name;      // Windows, the family's name, CUDA Toolkit, torch, nvidia-cudnn-cu12, sharp
  std::string version;   // empty when nothing says it
  std::string evidence;  // what says so: the manifest read (host path), or the folder the file is in
  // As a report says it: "torch 2.3.1 (pip)", "CUDA Toolkit 12.4", "Windows".
  std::string text() const;
};

// The owner of one file, when known: at host `path` (none for a file only assumed), `windows_path` where the
// machine has it, a member of `family` (null when no family knows its name), listed in the manifests of
// `claims` (the first counts: a second one is packages-share-file's).
std::optional<Owner> owner_of(const std::optional<std::string>& path, const std::optional<std::string>& windows_path,
                              const rules::Family* family, const std::vector<env::PackageClaim>& claims,
                              const env::Environment& environment, const rules::RuleData& rules);

// One entry per module of `closure`, in its order: the owner of the copy that loads, when known.
std::vector<std::optional<Owner>> find_owners(const graph::Closure& closure, const env::Environment& environment,
                                              const env::Inventory& inventory, const rules::RuleData& rules);

}  // namespace dlldoctor::session
