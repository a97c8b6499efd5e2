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

std::optional<Owner> owner_of(const std::optional<std::string>& path, const std::optional<std::string>& windows_path,
                              const rules::Family* family, const std::vector<env::PackageClaim>& claims,
                              const env::Environment& environment, const rules::RuleData& rules) {
  const std::string kind = family ? family->kind : "";
  const std::string windows_folder = windows_path ? folder_of(*windows_path) : "";
  // A file in the system folders: Windows' own when no family knows its name, the driver's or the
  // redistributable's for theirs; a cuDNN or CUDA DLL someone copied there is nobody's the disk can name.
  if (!windows_folder.empty() &&
      (in_folder(windows_folder, environment.system32) || in_folder(windows_folder, environment.syswow64))) {
    if (kind == "driver") return Owner{"driver", family->name, "", windows_folder};
    if (kind == "msvc") return Owner{"msvc_redist", "Visual C++ Redistributable", "", windows_folder};
    if (kind.empty()) return Owner{"windows", "Windows", "", windows_folder};
    return std::nullopt;
  }
  if (kind == "driver") return Owner{"driver", family->name, "", windows_folder};
  if (!path) return std::nullopt;
  if (!claims.empty()) {
    const env::PackageClaim& claim = claims.front();
    const char* kinds[] = {"python_package", "conda_package", "npm_package"};
    return Owner{kinds[static_cast<int>(claim.kind)], claim.name, claim.version, claim.manifest};
  }
  // A toolkit's folder holds its own DLLs (a cuda family's, or a name no family knows: nvJitLink, cupti), and
  // whatever a user copied in: cuDNN's zip unpacked into CUDA\vX.Y\bin is the classic install, not the toolkit's.
  const bool toolkits_kind = kind.empty() || kind == "cuda";
  if (!windows_folder.empty() && toolkits_kind) {
    if (const auto root = rules::toolkit_root(rules.machine, environment, windows_folder)) {
      std::string version = base_name(*root);
      if (!version.empty() && (version.front() == 'v' || version.front() == 'V')) version.erase(0, 1);
      return Owner{"cuda_toolkit", "CUDA Toolkit", version, windows_folder};
    }
  }
  return std::nullopt;
}

std::vector<std::optional<Owner>> find_owners(const graph::Closure& closure, const env::Environment& environment,
                                              const env::Inventory& inventory, const rules::RuleData& rules) {
  static const std::vector<env::PackageClaim> kNone;
  std::vector<std::optional<Owner>> owners(closure.modules.size());
  for (std::size_t i = 0; i < closure.modules.size(); ++i) {
    const graph::Module& module = closure.modules[i];
    const resolve::Resolution& r = module.resolution;
    if (r.failure == resolve::Failure::NotFound || (!r.path && !r.windows_path)) continue;
    const auto claims = r.path ? inventory.claims.find(*r.path) : inventory.claims.end();
    owners[i] = owner_of(r.path, r.windows_path, rules.family_of(module.key),
                         claims == inventory.claims.end() ? kNone : claims->second, environment, rules);
  }
  return owners;
}

}  // namespace dlldoctor::session
