#include "dlldoctor/pipeline/diagnose.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dlldoctor::pipeline {

Result<Diagnosis> diagnose(const graph::ClosureRequest& request, const env::Environment& environment,
                           const rules::RuleData& rules, const DiagnoseOptions& options, env::FileSystem& files,
                           pe::ImageCache& images) {
  resolve::Resolver resolver(environment, files, images, options.policy);
  resolver.assume_also(rules::driver_dlls(rules));
  graph::ClosureRequest known = request;
  known.knowledge = rules::load_knowledge(rules);
  auto closure = graph::build_closure(known, resolver, files, environment);
  if (!closure) return closure.error();
  Diagnosis diagnosis;
  diagnosis.closure = std::move(closure).value();
  env::InventoryRequest wanted = rules::inventory_request(diagnosis.closure, environment, rules, options.site_packages);
  // The order a plain LoadLibrary of the process would use: the LoadLibraryEx calls' own settings aside.
  resolve::ProcessState startup_process = diagnosis.closure.process;
  startup_process.settings = {};
  diagnosis.search_order = resolver.search_order(startup_process, {});
  for (const auto& folder : diagnosis.search_order) wanted.search_folders.push_back(folder.folder);
  wanted.look_in = options.look_in;
  for (const auto& [folder, why] : options.not_added)
    wanted.named_folders.emplace_back(folder, env::CopySource{env::CopySource::Kind::NotAdded, why});
  diagnosis.inventory = env::build_inventory(environment, wanted, files, images);
  // A searched folder that exists but cannot be listed answers every lookup with "not here": say so, or a
  // DLL in it would look missing. (Folders only looked in for copies are not the process's to load from.)
  for (const std::string& folder : files.unreadable_folders()) {
    const bool searched = std::any_of(diagnosis.search_order.begin(), diagnosis.search_order.end(),
                                      [&](const resolve::SearchFolder& f) { return f.folder.host == folder; });
    if (!searched) continue;
    diagnosis.closure.notes.push_back(
        fmt::format("{} could not be read (permissions): which DLLs it holds is unknown to dlldoctor, and this "
                    "process may load from it; run dlldoctor as a user who can read it",
                    env::windows_path_of(environment, folder).value_or(folder)));
  }
  diagnosis.rules = rules::run_rules(
      {diagnosis.closure, known, environment, diagnosis.inventory, rules, options.policy, options.frameworks});
  return diagnosis;
}

}  // namespace dlldoctor::pipeline
