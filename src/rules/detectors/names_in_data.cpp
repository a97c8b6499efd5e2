// DLLs a module names only in its data: a hint of what its code may load, never a need on its own.
// One information finding per module for the hinted names no search of this process finds; where the
// others would come from is in the report's tree and JSON (Module::may_load).
#include "rules/detectors/common.hpp"

namespace dlldoctor::rules {

void detect_names_in_data(const RuleInput& input, FindingSink& sink) {
  for (const graph::Module& module : input.closure.modules) {
    std::vector<std::string> missing;
    detail::Json searched = detail::Json::array();
    for (const graph::MayLoad& hint : module.may_load) {
      if (hint.resolution.failure == resolve::Failure::None) continue;
      missing.push_back(hint.dll);
      detail::Json folders = detail::Json::array();
      for (const auto& s : hint.resolution.searched) folders.push_back(detail::shown(s.folder));
      searched.push_back({{"dll", hint.dll}, {"searched", std::move(folders)}});
    }
    if (missing.empty()) continue;
    sink.emit("may-load-missing", missing.size() == 1 ? "default" : "several", missing.front(),
              {{"by", module.name}, {"dll", Value::list(missing)}, {"count", std::to_string(missing.size())}},
              {{"by", module.name}, {"hints", std::move(searched)}});
  }
}

}  // namespace dlldoctor::rules
