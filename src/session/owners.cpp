#include "dlldoctor/session/owners.hpp"

#include <algorithm>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/env/inventory.hpp"
#include "dlldoctor/rules/rule_engine.hpp"

namespace dlldoctor::session {
namespace {

bool in_folder(const std::string& windows_folder, const env::FolderRef& folder) {
  return folder.windows && same_path(windows_folder, *folder.windows);
}

}  // namespace

std::string Owner::text() const {
  const std::string named = version.empty() ? name : name + " " + version;
  if (kind == "python_package") return named + " (pip)";
  if (kind == "conda_package") return named + " (conda)";
  if (kind == "npm_package") return named + " (npm)";
  return named;
}

std::vector<std::optional<Owner>> find_owners(const graph::Closure& closure, const env::Environment& environment,
                                              const env::Inventory& inventory, const rules::RuleData& rules) {
  std::vector<std::optional<Owner>> owners(closure.modules.size());
  for (std::size_t i = 0; i < closure.modules.size(); ++i) {
    const graph::Module& module = closure.modules[i];
    const resolve::Resolution& r = module.resolution;
    if (r.failure == resolve::Failure::NotFound || (!r.path && !r.windows_path)) continue;
    const rules::Family* family = rules.family_of(module.key);
    const std::string kind = family ? family->kind : "";
    const std::string windows_folder = r.windows_path ? folder_of(*r.windows_path) : "";
    // A file in the system folders: Windows', unless a driver or the redistributable put it there.
    if (!windows_folder.empty() &&
        (in_folder(windows_folder, environment.system32) || in_folder(windows_folder, environment.syswow64))) {
      if (kind == "driver") {
        owners[i] = Owner{"driver", family->name, "", windows_folder};
      } else if (kind == "msvc") {
        owners[i] = Owner{"msvc_redist", "Visual C++ Redistributable", "", windows_folder};
      } else {
        owners[i] = Owner{"windows", "Windows", "", windows_folder};
      }
      continue;
    }
    if (kind == "driver") {
      owners[i] = Owner{"driver", family->name, "", windows_folder};
      continue;
    }
    if (!r.path) continue;
    // A package's manifest that lists the file: the first claim (a second one is packages-share-dll's).
    if (const auto claims = inventory.claims.find(*r.path); claims != inventory.claims.end()) {
      const env::PackageClaim& claim = claims->second.front();
      const char* kinds[] = {"python_package", "conda_package", "npm_package"};
      owners[i] = Owner{kinds[static_cast<int>(claim.kind)], claim.name, claim.version, claim.manifest};
      continue;
    }
    if (!windows_folder.empty()) {
      if (const auto root = rules::toolkit_root(rules.machine, environment, windows_folder)) {
        std::string version = base_name(*root);
        if (!version.empty() && (version.front() == 'v' || version.front() == 'V')) version.erase(0, 1);
        owners[i] = Owner{"cuda_toolkit", "CUDA Toolkit", version, windows_folder};
      }
    }
  }
  return owners;
}

}  // namespace dlldoctor::session
