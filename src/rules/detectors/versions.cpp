// Versions that must fit together: the driver against the CUDA runtime, the MSVC runtime against the
// newest toolset in the process, a DLL against what the framework that imports it needs.
#include <algorithm>
#include <map>

#include "rules/cuda_versions.hpp"
#include "rules/detectors/common.hpp"
#include "rules/recipe_chain.hpp"

namespace dlldoctor::rules {
namespace {

struct ProcessCuda {
  CudaRelease release;
  std::string dll;
};

// The CUDA release of the process, from the runtime libraries that load: the newest one they say.
std::optional<ProcessCuda> process_cuda(const RuleInput& input) {
  std::optional<ProcessCuda> best;
  for (const graph::Module& module : input.closure.modules) {
    const Family* family = input.rules.family_of(module.key);
    if (!family || family->kind != "cuda" || !module.resolution.image || !module.resolution.image->file_version)
      continue;
    const auto release = cuda_release(*family, *module.resolution.image->file_version);
    if (!release) continue;
    if (!best || std::tie(best->release.major, best->release.minor) < std::tie(release->major, release->minor))
      best = ProcessCuda{*release, module.name};
  }
  return best;
}

void driver(const RuleInput& input, FindingSink& sink) {
  const auto cuda = process_cuda(input);
  if (!cuda) return;
  const DriverMinimum* minimum = minimum_driver(input.rules, cuda->release);
  if (!minimum) return;
  const std::string cuda_text = cuda->release.text();
  const graph::Module* nvcuda = driver_module(input.closure, input.rules);
  if (!nvcuda || !nvcuda->resolution.image || !nvcuda->resolution.image->file_version) {
    if (input.environment.assume_system_dlls) {
      const std::string why =
          input.environment.sysroot
              ? "the sysroot has no System32\\nvcuda.dll and --assume-system-dlls says it is a partial copy"
              : "no --sysroot to read System32 from";
      sink.emit("driver-not-checked", "default", "nvcuda.dll",
                {{"why", why}, {"minimum", minimum->driver}, {"cuda", cuda_text}},
                {{"cuda", cuda_text}, {"cuda_dll", cuda->dll}, {"minimum_driver", minimum->driver}}, std::nullopt,
                {DllName(cuda->dll)});
    }
    return;
  }
  const pe::Version& file_version = *nvcuda->resolution.image->file_version;
  const std::string installed = driver_version(file_version);
  detail::Json evidence = {
      {"cuda", cuda_text},
      {"cuda_dll", cuda->dll},
      {"driver", installed},
      {"nvcuda", display_path(nvcuda->resolution.windows_path, nvcuda->resolution.path.value_or(""))},
      {"nvcuda_version", file_version.to_string()},
      {"minimum_driver", minimum->driver}};
  const DriverVerdict verdict = judge_driver(input.rules, cuda->release, installed);
  if (verdict.fit == DriverFit::enough) return;
  const bool compatible = verdict.fit == DriverFit::minor_compatible;
  Vars vars = {{"driver", installed}, {"driver_file_version", file_version.to_string()},   {"minimum", minimum->driver},
               {"cuda", cuda_text},   {"cuda_major", std::to_string(cuda->release.major)}, {"cuda_dll", cuda->dll}};
  if (verdict.floor) {
    vars.emplace("floor", verdict.floor->driver);
    evidence["minor_compatible_driver"] = verdict.floor->driver;
  }
  sink.emit("driver-too-old", compatible ? "minor_compat" : "default", "nvcuda.dll", vars, evidence,
            compatible ? std::optional<Severity>(Severity::Warning) : std::nullopt, {DllName(cuda->dll)});
}

// MSVC linkers write 14.x into the optional header; GNU ld and lld (MinGW mode) write their own
// numbers, which say nothing about the C++ runtime.
constexpr int kMsvcLinkerMajor = 14;

void msvc_runtime(const RuleInput& input, FindingSink& sink) {
  const graph::Module* newest = nullptr;
  for (const graph::Module& module : input.closure.modules) {
    const auto& image = module.resolution.image;
    if (!image || image->linker_major != kMsvcLinkerMajor) continue;
    const Family* family = input.rules.family_of(module.key);
    if (family && family->kind == "msvc") continue;
    if (!newest || newest->resolution.image->linker_minor < image->linker_minor) newest = &module;
  }
  if (!newest) return;
  const int toolset_minor = newest->resolution.image->linker_minor;
  for (const graph::Module& module : input.closure.modules) {
    const Family* family = input.rules.family_of(module.key);
    if (!family || family->kind != "msvc" || !module.resolution.image || !module.resolution.image->file_version)
      continue;
    const auto& version = *module.resolution.image->file_version;
    if (version.parts[0] != kMsvcLinkerMajor || version.parts[1] >= toolset_minor) continue;
    const resolve::Candidate* winner = detail::chosen(module);
    const std::string path = display_path(module.resolution.windows_path, module.resolution.path.value_or(""));
    const bool system = winner && winner->step == resolve::SearchStep::System32;
    sink.emit("msvc-runtime-too-old", system ? "system" : "default", module.name,
              {{"dll", module.name},
               {"version", version.to_string()},
               {"path", path},
               {"backup", base_name(path) + ".bak"},
               {"step", winner ? std::string(resolve::step_label(winner->step)) : std::string("?")},
               {"toolset", fmt::format("{}.{}", kMsvcLinkerMajor, toolset_minor)},
               {"built_by", newest->name}},
              {{"runtime", path},
               {"runtime_version", version.to_string()},
               {"toolset", fmt::format("{}.{}", kMsvcLinkerMajor, toolset_minor)},
               {"built_by", newest->name}},
              std::nullopt, {newest->key});
  }
}

const resolve::Candidate* chosen_with_version(const graph::Module& module) {
  const resolve::Candidate* winner = detail::chosen(module);
  return winner && winner->file_version && !winner->assumed ? winner : nullptr;
}

// The modules a framework's own calls returned, by name: what it brought into the process.
std::map<DllName, const graph::Module*> brought_by(const RuleInput& input, const FrameworkInUse& framework) {
  std::map<DllName, const graph::Module*> modules;
  const auto& loads = input.closure.loads;
  for (std::size_t i = framework.first_load; i < framework.first_load + framework.loads && i < loads.size(); ++i) {
    if (!loads[i].ok || !loads[i].module_index) continue;
    const graph::Module& module = input.closure.modules[*loads[i].module_index];
    modules.emplace(module.key, &module);
  }
  return modules;
}

// Imports in an order one of them breaks ([[recipe.not_before]]: onnxruntime.preload_dlls() before torch),
// when it does here: the later one loads by full path a file of a name the earlier one already brought in
// from another file (with a torch of the same CUDA major, preload_dlls loads torch's own files: no harm).
void import_order(const RuleInput& input, FindingSink& sink) {
  const auto& frameworks = input.frameworks;
  for (std::size_t first = 0; first < frameworks.size(); ++first) {
    for (const Recipe* recipe : recipe_chain(input.rules, frameworks[first].recipe)) {
      for (const RecipeOrder& order : recipe->not_before) {
        for (std::size_t later = first + 1; later < frameworks.size(); ++later) {
          const auto chain = recipe_chain(input.rules, frameworks[later].recipe);
          if (std::none_of(chain.begin(), chain.end(), [&](const Recipe* r) { return r->id == order.recipe; }))
            continue;
          const auto earlier = brought_by(input, frameworks[first]);
          std::vector<std::string> clashes;
          std::vector<DllName> both;  // the modules of either import that clash
          nlohmann::ordered_json evidence = nlohmann::ordered_json::array();
          for (const auto& [key, module] : brought_by(input, frameworks[later])) {
            const auto found = earlier.find(key);
            if (found == earlier.end() || found->second->resolution.path == module->resolution.path) continue;
            clashes.push_back(module->name);
            both.push_back(module->key);
            evidence.push_back({{"dll", module->name},
                                {"first", found->second->resolution.path.value_or("")},
                                {"second", module->resolution.path.value_or("")}});
          }
          if (clashes.empty()) continue;
          sink.emit("import-order", "default", "",
                    {{"first", frameworks[first].recipe},
                     {"second", frameworks[later].recipe},
                     {"dlls", Value::list(clashes)},
                     {"why", order.why}},
                    {{"first", frameworks[first].recipe}, {"second", frameworks[later].recipe}, {"dlls", evidence}},
                    std::nullopt, both);
        }
      }
    }
  }
}

// What a framework's recipe says its releases need (rules/*.toml, [[recipe.requirement]]): a DLL of the
// process older than that is reported with the finding the requirement names.
void framework_requirements(const RuleInput& input, FindingSink& sink) {
  for (const FrameworkInUse& framework : input.frameworks) {
    const std::optional<VersionParts> version = leading_version(framework.version);
    if (!version) continue;
    // A recipe that extends another (onnxruntime[cuda]) needs what that one needs.
    for (const Recipe* recipe : recipe_chain(input.rules, framework.recipe)) {
      for (const RecipeRequirement& requirement : recipe->requirements) {
        if (!requirement.versions.contains(*version)) continue;
        for (const graph::Module& module : input.closure.modules) {
          const resolve::Candidate* winner = module.key == requirement.dll ? chosen_with_version(module) : nullptr;
          if (!winner) continue;
          const auto& parts = winner->file_version->parts;
          if (compare_versions({parts.begin(), parts.end()}, requirement.minimum) >= 0) continue;
          const std::string path = detail::shown(*winner);
          // System32's own copy is replaced by the redistributable, never renamed away.
          const bool system = winner->step == resolve::SearchStep::System32;
          sink.emit(requirement.finding, system ? "framework_system" : "framework", module.name,
                    {{"dll", module.name},
                     {"version", winner->file_version->to_string()},
                     {"path", path},
                     {"backup", base_name(path) + ".bak"},
                     {"step", std::string(resolve::step_label(winner->step))},
                     {"minimum", version_text(requirement.minimum)},
                     {"framework", recipe->name},
                     {"framework_version", framework.version},
                     {"versions", requirement.versions.text()},
                     {"why", requirement.why},
                     {"effect", requirement.effect}},
                    {{"runtime", path},
                     {"runtime_version", winner->file_version->to_string()},
                     {"minimum", version_text(requirement.minimum)},
                     {"framework", framework.recipe},
                     {"framework_version", framework.version},
                     {"requirement", requirement.source}});
        }
      }
    }
  }
}

}  // namespace

void detect_versions(const RuleInput& input, FindingSink& sink) {
  driver(input, sink);
  msvc_runtime(input, sink);
  framework_requirements(input, sink);
  import_order(input, sink);
}

}  // namespace dlldoctor::rules
