#pragma once
// The rule engine: reads the resolved closure, the environment and the inventory, and says what is wrong
// and what to type. Knowledge is data (rules/*.toml); each detector is one small function per kind of
// check (src/rules/detectors/).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/inventory.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/rules/finding.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::rules {

struct RuleInput {
  const graph::Closure& closure;
  const graph::ClosureRequest& request;
  const env::Environment& environment;
  const env::Inventory& inventory;
  const RuleData& rules;
  resolve::WrongMachinePolicy policy = resolve::WrongMachinePolicy::Fail;
};

struct RuleOutput {
  std::vector<Finding> findings;  // errors first, then warnings, then info; detector order within
  // Internal problems (a template naming a value the detector did not give): tests require none.
  std::vector<std::string> problems;
};

RuleOutput run_rules(const RuleInput& input);

// The names the inventory should look for and list, for a closure (what the detectors will ask about).
env::InventoryRequest inventory_request(const graph::Closure& closure, const env::Environment& environment,
                                        const RuleData& rules);

using Vars = std::map<std::string, std::string>;

// Collects findings, filling the templates of rules/findings.toml.
class FindingSink {
 public:
  explicit FindingSink(const RuleData& rules) : rules_(rules) {}

  void emit(const std::string& id, const std::string& variant, const std::string& module, const Vars& vars,
            nlohmann::ordered_json evidence, std::optional<Severity> severity = std::nullopt);

  RuleOutput take();

 private:
  std::string fill(const std::string& text, const Vars& vars, const std::string& where);

  const RuleData& rules_;
  RuleOutput output_;
};

// Shared helpers for detectors.
std::string display_path(const std::optional<std::string>& windows, const std::string& host);
std::string folder_of(const std::string& path);
std::string file_of(const std::string& path);

// Detectors, one per kind of check.
void detect_missing_dlls(const RuleInput& input, FindingSink& sink);
void detect_unloadable(const RuleInput& input, FindingSink& sink);
void detect_shadowing(const RuleInput& input, FindingSink& sink);
void detect_path_defects(const RuleInput& input, FindingSink& sink);
void detect_missing_exports(const RuleInput& input, FindingSink& sink);
void detect_versions(const RuleInput& input, FindingSink& sink);

}  // namespace dlldoctor::rules
