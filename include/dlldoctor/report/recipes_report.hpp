#pragma once
// The report of `dlldoctor recipes`: the load recipes the rules hold, shipped and --rules ones,
// with their packages, the versions each holds for and the code each replays.
#include "dlldoctor/report/writers.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::report {

// recipes' formats: text, json (dlldoctor.recipes/1).
const Writers<rules::RuleData>& recipes_writers();

}  // namespace dlldoctor::report
