#pragma once
// The report of a simulation: the `dlldoctor.report/1` JSON object (docs/report-json.md) and the text
// tree. Writers only format; everything they print was decided by the stages before them.
#include <string>
#include <vector>

#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/plan/planner.hpp"
#include "dlldoctor/recipes/expand.hpp"
#include "dlldoctor/report/image_report.hpp"
#include "dlldoctor/report/writers.hpp"
#include "dlldoctor/resolve/resolver.hpp"
#include "dlldoctor/rules/finding.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::report {

inline constexpr const char* kReportSchema = "dlldoctor.report/1";

// What the writers read of a run, pointing into it (ClosureView makes it, and a copy of it with the names
// from files made displayable).
struct ReportInput {
  std::string tool_version;
  const graph::ClosureRequest* request = nullptr;
  std::string profile;                            // empty when none
  const recipes::Expansion* expansion = nullptr;  // --import: the Python environment and the recipes run
  resolve::WrongMachinePolicy policy = resolve::WrongMachinePolicy::Fail;
  const env::Environment* environment = nullptr;
  // The standard search order of the program's process, for the environment section.
  std::vector<resolve::SearchFolder> search_order;
  const graph::Closure* closure = nullptr;
  const std::vector<rules::Finding>* findings = nullptr;
  const rules::RuleData* rules = nullptr;  // the failure modes' titles
  const plan::Plan* plan = nullptr;        // the checked plan, when there are errors or warnings
  // The error the user sees for the outcome, when it fails (rules::RuleOutput::outcome_error, outcome_says).
  std::optional<rules::LoaderErrorText> outcome_error;
  std::vector<std::string> outcome_says;
  std::string generated_at;
};

// One finding as the JSON reports give it (docs/report-json.md, "findings"), closure and scan alike.
Json finding_to_json(const rules::Finding& finding, const rules::RuleData* rules);

class ClosureView;

// The closure report's formats: text (the default: a terminal), json (dlldoctor.report/1, for scripts
// and tickets, streamed module by module), markdown (to paste into an issue, with a Mermaid picture),
// dot (the graph for Graphviz), html (one self-contained page).
const Writers<ClosureView>& closure_writers();

}  // namespace dlldoctor::report
