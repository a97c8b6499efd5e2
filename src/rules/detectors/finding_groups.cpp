#include "rules/detectors/finding_groups.hpp"

#include <algorithm>

namespace dlldoctor::rules::detail {

void FindingGroups::add(const std::string& cause, const std::string& variant, const std::string& module, Vars vars,
                        Json evidence, std::optional<Severity> severity, const std::vector<DllName>& related) {
  Group* group = nullptr;
  for (Group& g : groups_) {
    if (g.cause == cause && g.variant == variant && g.severity == severity) group = &g;
  }
  if (!group) {
    group = &groups_.emplace_back();
    group->cause = cause;
    group->variant = variant;
    group->module = module;
    group->severity = severity;
    group->vars = vars;
    group->evidence = evidence;
  }
  for (const DllName& name : related) {
    if (std::find(group->related.begin(), group->related.end(), name) == group->related.end())
      group->related.push_back(name);
  }
  group->each_vars.push_back(std::move(vars));
  group->each.push_back(std::move(evidence));
}

void FindingGroups::emit(FindingSink& sink) {
  for (Group& group : groups_) {
    const bool several = group.each_vars.size() > 1;
    for (const Listed& listed : listed_) {
      std::vector<std::string> items;
      for (const Vars& vars : group.each_vars) {
        auto it = vars.find(listed.each);
        if (it != vars.end()) items.insert(items.end(), it->second.items().begin(), it->second.items().end());
      }
      group.evidence[listed.all] = items;
      if (several) group.vars[listed.each] = Value::list(items);
      group.vars[listed.all] = Value::list(std::move(items));
    }
    group.vars["count"] = std::to_string(group.each_vars.size());
    if (several) group.evidence["each"] = std::move(group.each);
    const std::string variant = !several                     ? group.variant
                                : group.variant == "default" ? std::string("several")
                                                             : group.variant + "_several";
    sink.emit(id_, variant, group.module, group.vars, group.evidence, group.severity, group.related);
  }
}

}  // namespace dlldoctor::rules::detail
