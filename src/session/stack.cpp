#include "dlldoctor/session/stack.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "dlldoctor/core/paths.hpp"
#include "rules/cuda_versions.hpp"
#include "rules/recipe_chain.hpp"

namespace dlldoctor::session {
namespace {

using graph::Module;
using rules::Family;

// The families' kinds the stack shows; the others (zlib, a user's own) stay in the tree.
const char* const kKinds[] = {"driver", "cuda", "cudnn", "msvc"};

std::optional<pe::Version> file_version(const Module& module) {
  if (module.resolution.image) return module.resolution.image->file_version;
  return std::nullopt;
}

std::string shown_path(const Module& module) {
  return module.resolution.windows_path.value_or(module.resolution.path.value_or(""));
}

// One entry's DLLs: same family and folder, and for a family whose members carry one version, same
// version (so two releases of cuDNN are two entries, next to the finding that says they mix).
struct Group {
  const Family* family = nullptr;
  std::string folder;
  std::optional<pe::Version> version;
  std::vector<const Module*> modules;
};

std::vector<Group> groups_of(const graph::Closure& closure, const rules::RuleData& rules) {
  std::vector<Group> groups;
  for (const Module& module : closure.modules) {
    const Family* family = rules.family_of(module.key);
    if (module.resolution.failure != resolve::Failure::None || module.resolution.api_set_host || !family ||
        std::none_of(std::begin(kKinds), std::end(kKinds), [&](const char* k) { return family->kind == k; }))
      continue;
    const std::string folder = folder_of(shown_path(module));
    const auto version = family->same_version ? file_version(module) : std::nullopt;
    const auto group = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.family == family && g.folder == folder && g.version == version;
    });
    if (group != groups.end()) {
      group->modules.push_back(&module);
    } else {
      groups.push_back({family, folder, version, {&module}});
    }
  }
  return groups;
}

// The ids of the findings about one of the group's modules (Finding::modules and related), in report order.
std::vector<std::string> concerning(const Group& group, const graph::Closure& closure,
                                    const std::vector<rules::Finding>& findings) {
  std::vector<std::string> ids;
  for (const rules::Finding& finding : findings) {
    const bool about_one = std::any_of(group.modules.begin(), group.modules.end(), [&](const Module* m) {
      const auto index = static_cast<std::size_t>(m - closure.modules.data());
      return std::find(finding.modules.begin(), finding.modules.end(), index) != finding.modules.end() ||
             std::find(finding.related.begin(), finding.related.end(), index) != finding.related.end();
    });
    if (about_one && std::find(ids.begin(), ids.end(), finding.id) == ids.end()) ids.push_back(finding.id);
  }
  return ids;
}

// What the family's files say its release is (see StackEntry::version).
std::string release_of(const Family& family, const std::vector<const Module*>& modules) {
  for (const Module* module : modules) {
    const auto version = file_version(*module);
    if (!version) continue;
    if (family.version_format == "nvidia_driver") return rules::driver_version(*version);
    if (family.kind != "cuda") return version->to_string();
    if (const auto release = rules::cuda_release(family, *version)) return release->text();
  }
  return {};
}

StackEntry entry_of(Group group, const graph::Closure& closure, const std::vector<rules::Finding>& findings) {
  // The main DLL (cudart, the cuDNN dispatcher, msvcp140) leads: its path and step are the entry's.
  std::stable_partition(group.modules.begin(), group.modules.end(), [&](const Module* m) {
    return std::find(group.family->main.begin(), group.family->main.end(), m->key) != group.family->main.end();
  });
  const Module& first = *group.modules.front();
  StackEntry entry;
  entry.family = group.family->id;
  entry.name = group.family->name;
  entry.version = release_of(*group.family, group.modules);
  for (const Module* m : group.modules) {
    const auto version = file_version(*m);
    entry.dlls.push_back({m->name, version ? std::optional(version->to_string()) : std::nullopt});
  }
  entry.path = first.resolution.assumed ? std::nullopt : first.resolution.path;
  entry.windows_path = first.resolution.windows_path;
  entry.found_by = first.resolution.found_by;
  entry.assumed = first.resolution.assumed;
  entry.findings = concerning(group, closure, findings);
  return entry;
}

void add_entry(Stack& stack, const Family& family, StackEntry entry, const rules::RuleData& rules) {
  // The stack's driver is the one CUDA runs on; other GPU drivers' DLLs (the Vulkan loader) are no part of it.
  if (family.kind == "driver" && family.version_format != "nvidia_driver") return;
  if (family.kind == "driver") {
    const rules::DriverMinimum* newest =
        entry.version.empty() ? nullptr : rules::newest_cuda_supported(rules, entry.version);
    const std::string newest_cuda =
        newest ? rules::CudaRelease{newest->cuda_major, newest->cuda_minor}.text() : std::string();
    stack.driver = StackDriver{std::move(entry), newest_cuda};
  } else if (family.kind == "cuda") {
    stack.cuda_runtimes.push_back(std::move(entry));
  } else if (family.kind == "cudnn") {
    stack.cudnn.push_back(std::move(entry));
  } else {
    stack.msvc_runtime.push_back(std::move(entry));
  }
}

// The major of a release written "12.4", "9.1.0.70" or "12".
std::string major_of(const std::string& version) { return version.substr(0, version.find('.')); }

bool under(const std::optional<std::string>& path, const std::string& folder) {
  return path && path->size() > folder.size() && path->compare(0, folder.size(), folder) == 0 &&
         ((*path)[folder.size()] == '/' || (*path)[folder.size()] == '\\');
}

std::string value_of(const recipes::ExpandedRecipe& recipe, const std::string& name) {
  const auto found = recipe.values.find(name);
  return found == recipe.values.end() ? std::string() : found->second;
}

// One entry per package (onnxruntime and onnxruntime.preload_dlls are one framework), in import order.
std::vector<StackFramework> frameworks_of(const Stack& stack, const recipes::Expansion& expansion,
                                          const rules::RuleData& rules) {
  std::vector<StackFramework> out;
  std::set<std::string> packages;
  for (const recipes::ExpandedRecipe& recipe : expansion.recipes) {
    if (recipe.package_dir.empty() || !packages.insert(recipe.package_dir).second) continue;
    // Named by the recipe that names the package (onnxruntime, not onnxruntime.preload_dlls).
    const rules::Recipe* named = rules::package_recipe(rules, recipe.id);
    StackFramework framework{named ? named->id : recipe.id,
                             named ? named->name : recipe.name,
                             value_of(recipe, "version"),
                             value_of(recipe, "cuda"),
                             value_of(recipe, "cudnn"),
                             {},
                             {}};
    for (const StackEntry& cudnn : stack.cudnn) {
      if (under(cudnn.path, recipe.package_dir)) framework.own_cudnn = cudnn.version;
    }
    for (const StackEntry& runtime : stack.cuda_runtimes) {
      if (framework.cuda.empty() || runtime.version.empty() || major_of(runtime.version) == major_of(framework.cuda))
        continue;
      framework.mismatches.push_back(fmt::format("built for CUDA {}; CUDA {} loads ({})", framework.cuda,
                                                 runtime.version, runtime.dlls.front().name));
    }
    for (const StackEntry& cudnn : stack.cudnn) {
      if (framework.cudnn.empty() || cudnn.version.empty() || major_of(cudnn.version) == major_of(framework.cudnn))
        continue;
      framework.mismatches.push_back(fmt::format("built for cuDNN {}; cuDNN {} loads ({})", framework.cudnn,
                                                 cudnn.version, cudnn.dlls.front().name));
    }
    out.push_back(std::move(framework));
  }
  return out;
}

}  // namespace

Stack stack_of(const graph::Closure& closure, const rules::RuleData& rules, const std::vector<rules::Finding>& findings,
               const recipes::Expansion* expansion) {
  Stack stack;
  for (Group& group : groups_of(closure, rules)) {
    const Family& family = *group.family;
    add_entry(stack, family, entry_of(std::move(group), closure, findings), rules);
  }
  if (expansion) stack.frameworks = frameworks_of(stack, *expansion, rules);
  return stack;
}

std::vector<StackRow> stack_rows(const Stack& stack) {
  std::vector<StackRow> rows;
  auto label = [](const char* part, const StackEntry& entry) {
    // A family whose files do not say its release (curand's name spans CUDA majors) is named instead.
    return entry.version.empty() ? entry.name : fmt::format("{} {}", part, entry.version);
  };
  if (stack.driver) {
    const std::string newest = stack.driver->newest_cuda;
    rows.push_back({label("driver", stack.driver->entry) +
                        (newest.empty() ? std::string() : fmt::format(" (CUDA {} and older)", newest)),
                    &stack.driver->entry});
  }
  for (const StackEntry& entry : stack.cuda_runtimes) rows.push_back({label("CUDA", entry), &entry});
  for (const StackEntry& entry : stack.cudnn) rows.push_back({label("cuDNN", entry), &entry});
  for (const StackEntry& entry : stack.msvc_runtime) rows.push_back({label("MSVC", entry), &entry});
  return rows;
}

std::string framework_line(const StackFramework& framework) {
  std::string line = framework.name + (framework.version.empty() ? "" : " " + framework.version);
  std::vector<std::string> built;
  if (!framework.cuda.empty()) built.push_back("CUDA " + framework.cuda);
  if (!framework.cudnn.empty()) built.push_back("cuDNN " + framework.cudnn);
  if (!built.empty()) line += ", built for " + fmt::format("{}", fmt::join(built, " and "));
  if (!framework.own_cudnn.empty()) line += ": its own cuDNN " + framework.own_cudnn + " loads";
  return line;
}

std::string stack_where(const StackEntry& entry) {
  return entry.assumed ? entry.windows_path.value_or("") + " (assumed)"
                       : entry.windows_path.value_or(entry.path.value_or(""));
}

}  // namespace dlldoctor::session
