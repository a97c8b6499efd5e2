// Two packages of one environment that install the same file (onnxruntime beside onnxruntime-gpu): their
// manifests both list it (env/packages.cpp), and the copy is whichever was installed last.
#include <algorithm>

#include "rules/detectors/common.hpp"
#include "rules/fix_template.hpp"

namespace dlldoctor::rules {

void detect_shared_files(const RuleInput& input, FindingSink& sink) {
  for (const graph::Module& module : input.closure.modules) {
    const auto& r = module.resolution;
    if (!r.path || r.failure != resolve::Failure::None) continue;
    const auto claims = input.inventory.claims.find(*r.path);
    if (claims == input.inventory.claims.end() || claims->second.size() < 2) continue;
    std::vector<std::string> names, packages, manifests;
    for (const env::PackageClaim& claim : claims->second) {
      names.push_back(claim.name);
      packages.push_back(claim.version.empty() ? claim.name : claim.name + " " + claim.version);
      manifests.push_back(claim.manifest);
    }
    std::string listed;
    for (const std::string& package : packages) listed += (listed.empty() ? "" : ", ") + package;
    const bool conda = claims->second.front().kind == env::PackageClaim::Kind::Conda;
    sink.emit("packages-share-file", conda ? "conda" : "default", module.name,
              {{"dll", module.name},
               {"copy", display_path(r.windows_path, *r.path)},
               {"count", std::to_string(packages.size())},
               {"packages", listed},
               {"names", Value::list(names)},
               {"manifests_note", std::string(conda ? "conda-meta" : "their RECORD files") + " list it"}},
              detail::Json{{"path", *r.path}, {"manifests", manifests}}, std::nullopt, {});
  }
}

}  // namespace dlldoctor::rules
