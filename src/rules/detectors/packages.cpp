// Two packages of one environment that install the same file (onnxruntime beside onnxruntime-gpu): their
// manifests both list it (env/packages.cpp), and the copy is whichever was installed last. Or each ships
// its own copy of one DLL, and the process gets the copy of the package imported first.
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
  // Another package's own copy of a loaded DLL, of another release.
  for (const graph::Module& module : input.closure.modules) {
    const auto& r = module.resolution;
    if (!r.path || r.failure != resolve::Failure::None || !r.image || !r.image->file_version) continue;
    const auto claims = input.inventory.claims.find(*r.path);
    if (claims == input.inventory.claims.end()) continue;
    const env::PackageClaim& loaded = claims->second.front();
    for (const env::DllCopy& copy : input.inventory.shipped) {
      if (DllName::of_file(copy.name) != module.key || !copy.file_version ||
          *copy.file_version == *r.image->file_version)
        continue;
      const auto other_claims = input.inventory.claims.find(copy.path);
      if (other_claims == input.inventory.claims.end()) continue;
      const env::PackageClaim& other = other_claims->second.front();
      if (other.name == loaded.name) continue;
      auto named = [](const env::PackageClaim& c) { return c.version.empty() ? c.name : c.name + " " + c.version; };
      sink.emit("packages-share-file", "other_copy", module.name,
                {{"dll", module.name},
                 {"copy", display_path(r.windows_path, *r.path)},
                 {"version", r.image->file_version->to_string()},
                 {"package", named(loaded)},
                 {"name", loaded.name},
                 {"other_copy", detail::shown(copy)},
                 {"other_version", copy.file_version->to_string()},
                 {"other_package", named(other)},
                 {"other_name", other.name}},
                detail::Json{{"path", *r.path}, {"other_path", copy.path}}, std::nullopt, {});
      break;  // one finding a module: its id and module are its key
    }
  }
}

}  // namespace dlldoctor::rules
