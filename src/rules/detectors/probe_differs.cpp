// The probe's comparison: what Windows' (or Wine's) loader really mapped, against the prediction. Each
// difference is a "probe-differs" finding: another copy, a DLL that loaded although predicted missing,
// one predicted but not loaded, a start-up or a LoadLibraryExW call that went the other way.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/rules/probe_comparison.hpp"

namespace dlldoctor::rules {
namespace {

std::string lower_windows_path(std::string path) {
  for (char& c : path) {
    if (c == '/') c = '\\';
  }
  return ascii_lower(path);
}

}  // namespace

void compare_with_probe(const ProbeResult& probe, const graph::Closure& closure, const RuleData& rule_data,
                        RuleOutput& output) {
  FindingSink sink(rule_data);
  sink.set_closure(closure);
  // file name -> lower-case full paths, in load order (a full-path load can add a second copy)
  std::map<DllName, std::vector<std::string>> loaded;
  for (const std::string& module : probe.modules) {
    const std::string lower = lower_windows_path(module);
    loaded[DllName::of_file(base_name(lower))].push_back(lower);
  }
  auto predicted_path = [](const resolve::Resolution& r) {
    return r.failure == resolve::Failure::None ? lower_windows_path(r.windows_path.value_or(r.path.value_or("")))
                                               : std::string();
  };
  // Wine maps its builtin DLLs from its own folder (...\x86_64-windows\), standing in for the system
  // folder's copy: the same decision as a predicted system DLL.
  auto same_copy = [&probe](const resolve::Resolution& r, const std::string& predicted, const std::string& real) {
    const bool wine_builtin_for_system =
        probe.wine &&
        (real.find("\\x86_64-windows\\") != std::string::npos || real.find("\\i386-windows\\") != std::string::npos) &&
        (r.found_by == resolve::SearchStep::KnownDll || r.found_by == resolve::SearchStep::System32);
    return real == predicted || wine_builtin_for_system;
  };
  const bool predicted_ok = closure.startup.value_or(closure.outcome).ok;
  const bool startup_failed = probe.load_failed;
  // A module missing from the real loads counts only when everything was predicted to load and did.
  bool all_loaded = predicted_ok && !startup_failed && probe.loads.size() == closure.loads.size();
  for (std::size_t i = 0; i < closure.loads.size() && all_loaded; ++i)
    all_loaded = closure.loads[i].ok && probe.loads[i].error == 0;
  // The module a --load call returns is compared call by call below.
  std::vector<bool> call_root(closure.modules.size(), false);
  for (std::size_t i = 0; i < closure.loads.size() && i < probe.loads.size(); ++i)
    if (closure.loads[i].module_index) call_root[*closure.loads[i].module_index] = true;
  for (std::size_t m = 0; m < closure.modules.size(); ++m) {
    const graph::Module& module = closure.modules[m];
    // An API set name is never a module of the real process (its host is); an assumed one has no host
    // to compare either.
    if (module.is_root || module.resolution.found_by == resolve::SearchStep::ApiSet || call_root[m]) continue;
    const resolve::Resolution& r = module.resolution;
    const bool predicted_loaded = r.failure == resolve::Failure::None;
    const std::string predicted = predicted_path(r);
    const auto copies = loaded.find(module.key);
    const bool any = copies != loaded.end();
    const bool same = any && std::any_of(copies->second.begin(), copies->second.end(),
                                         [&](const std::string& real) { return same_copy(r, predicted, real); });
    const std::string first = any ? copies->second.front() : "";
    nlohmann::ordered_json evidence = {
        {"predicted", predicted_loaded ? nlohmann::ordered_json(predicted) : nullptr},
        {"loaded", any ? nlohmann::ordered_json(first) : nullptr},
        {"exit_code", probe.exit_code ? nlohmann::ordered_json(*probe.exit_code) : nullptr}};
    if (any && predicted_loaded && !same) {
      sink.emit("probe-differs", "other_copy", module.name,
                {{"dll", module.name}, {"predicted", predicted}, {"loaded", first}}, evidence);
    } else if (any && !predicted_loaded) {
      sink.emit("probe-differs", "loaded_anyway", module.name, {{"dll", module.name}, {"loaded", first}}, evidence);
    } else if (!any && predicted_loaded &&
               (module.load == graph::LoadKind::Static || module.load == graph::LoadKind::Dynamic) && all_loaded) {
      sink.emit("probe-differs", "not_loaded", module.name, {{"dll", module.name}, {"predicted", predicted}}, evidence);
    }
  }
  if (predicted_ok == startup_failed) {
    const std::string code = probe.exit_code ? fmt::format("0x{:08X}", *probe.exit_code) : "none";
    sink.emit("probe-differs", predicted_ok ? "startup_failed" : "startup_ok", "", {{"exit_code", code}},
              {{"exit_code", probe.exit_code ? nlohmann::ordered_json(*probe.exit_code) : nullptr},
               {"predicted_ok", predicted_ok}});
  }
  // --host: each LoadLibraryExW call's own answer, the module it returned or its error code.
  for (std::size_t i = 0; i < closure.loads.size() && i < probe.loads.size(); ++i) {
    const graph::Outcome& predicted = closure.loads[i];
    const ProbeCallResult& real = probe.loads[i];
    auto module = predicted.module_index ? closure.modules.begin() + *predicted.module_index : closure.modules.end();
    // An API set name loads its host, whose handle LoadLibrary returns.
    if (module != closure.modules.end() && module->resolution.api_set_host) {
      const DllName host(*module->resolution.api_set_host);
      module = std::find_if(closure.modules.begin(), closure.modules.end(),
                            [&](const graph::Module& m) { return m.key == host; });
    }
    const std::string predicted_module = module != closure.modules.end() ? predicted_path(module->resolution) : "";
    const std::string real_module = lower_windows_path(real.module);
    const std::string predicted_error = predicted.error ? std::to_string(*predicted.error) : "none";
    const nlohmann::ordered_json evidence = {
        {"call", predicted.request},
        {"predicted_error", predicted.error ? nlohmann::ordered_json(*predicted.error) : nullptr},
        {"predicted", predicted.ok ? nlohmann::ordered_json(predicted_module) : nullptr},
        {"error", real.error ? nlohmann::ordered_json(real.error) : nullptr},
        {"loaded", real.error ? nullptr : nlohmann::ordered_json(real_module)}};
    if (predicted.ok && real.error != 0) {
      sink.emit("probe-differs", "call_failed", predicted.module.value_or(""),
                {{"call", predicted.request}, {"predicted", predicted_module}, {"error", std::to_string(real.error)}},
                evidence);
    } else if (!predicted.ok && real.error == 0) {
      sink.emit("probe-differs", "call_loaded", predicted.module.value_or(""),
                {{"call", predicted.request}, {"predicted_error", predicted_error}, {"loaded", real_module}}, evidence);
    } else if (!predicted.ok && predicted.error && static_cast<std::uint32_t>(*predicted.error) != real.error) {
      sink.emit(
          "probe-differs", "call_error", predicted.module.value_or(""),
          {{"call", predicted.request}, {"predicted_error", predicted_error}, {"error", std::to_string(real.error)}},
          evidence);
    } else if (predicted.ok && module != closure.modules.end() &&
               !same_copy(module->resolution, predicted_module, real_module)) {
      sink.emit("probe-differs", "call_other_copy", predicted.module.value_or(""),
                {{"call", predicted.request}, {"predicted", predicted_module}, {"loaded", real_module}}, evidence);
    }
  }
  RuleOutput mine = sink.take();
  for (auto& problem : mine.problems) output.problems.push_back(std::move(problem));
  for (auto& finding : mine.findings) output.findings.push_back(std::move(finding));
  std::stable_sort(output.findings.begin(), output.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
}

}  // namespace dlldoctor::rules
