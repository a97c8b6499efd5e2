#pragma once
// One plan for all findings, checked before it is shown: the planner tries the steps the findings offer
// (rules/findings.toml steps.<variant>) on an overlay of the file system and a copy of the environment,
// runs the whole diagnosis again after each, and keeps the fewest steps after which the simulation and
// the rules predict a healthy process. Nothing is written to the disk.
#include <string>
#include <vector>

#include "dlldoctor/pipeline/diagnose.hpp"
#include "dlldoctor/rules/command_paths.hpp"
#include "dlldoctor/rules/finding.hpp"

namespace dlldoctor::plan {

struct Step {
  rules::FixStep change;  // kind and fields, paths as the report shows them (Windows paths when known)
  // The same fields' paths on this machine, for whoever carries the step out here (tests, --map).
  std::map<std::string, std::vector<std::string>> host;
  std::vector<rules::FindingKey> mends;  // the findings it came from
  // The file version dlldoctor read in each file a rename or copy takes (its field's value -> version), so
  // that the script leaves alone a file that changed since.
  std::map<std::string, std::string> versions;
};

struct Plan {
  std::vector<Step> steps;                // checked, in order
  std::vector<Step> by_hand;              // only a person can make these (code, a dialog): never checked
  bool verified = false;                  // after `steps` dlldoctor predicts HEALTHY
  std::string predicted;                  // the verdict after the steps: "HEALTHY", "WARNINGS", "BROKEN", "FAILS"
  std::vector<rules::Finding> remaining;  // errors and warnings still predicted after the steps
  std::size_t trials = 0;                 // diagnoses run to find the plan
  rules::CommandPaths paths;              // how the commands write host paths with no Windows path
};

struct PlanInput {
  const graph::ClosureRequest& request;
  const env::Environment& environment;
  const rules::RuleData& rules;
  const pipeline::DiagnoseOptions& options;
  env::FileSystem& files;
  pe::ImageCache& images;
};

// The plan's steps (1-based) that mend `finding`: a report points the finding's fix at them.
std::vector<std::size_t> steps_mending(const Plan& plan, const rules::Finding& finding);

// The plan for `diagnosis` (the diagnosis of `input` as it is now).
Plan make_plan(const PlanInput& input, const pipeline::Diagnosis& diagnosis);

// Several processes of one machine (`dlldoctor check`): one plan after which every one of them is predicted
// healthy, its steps tried on all of them at once. Each input with its diagnosis as it is now; they share
// the first input's environment, rules, file system and image cache.
Plan make_plan(const std::vector<PlanInput>& inputs, const std::vector<const pipeline::Diagnosis*>& diagnoses);

// The diagnosis after `steps`, simulated (tests compare it with the same steps carried out on a disk).
Result<pipeline::Diagnosis> diagnose_after(const PlanInput& input, const std::vector<Step>& steps,
                                           const graph::Closure& before);

}  // namespace dlldoctor::plan
