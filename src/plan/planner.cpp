#include "dlldoctor/plan/planner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "dlldoctor/core/paths.hpp"
#include "env/overlay_file_system.hpp"
#include "plan/changes.hpp"

namespace dlldoctor::plan {

namespace {

// Plans up to kBeamSteps long are searched with a beam of kBeam; longer ones grow one best step a round, for
// as long as each round heals something (eight vendor DLLs in eight folders need eight PATH entries). Each
// trial is one whole diagnosis: kMaxTrials bounds a hostile input's plan, not an honest one's length.
constexpr std::size_t kBeamSteps = 6;
constexpr std::size_t kBeam = 3;
constexpr std::size_t kMaxTrials = 300;

// How bad a predicted state is: a failing start-up or load, then errors, then warnings. Information
// findings (a long PATH, a folder that does not exist) do not make a process fail: no step is taken for them.
using Score = std::tuple<int, std::size_t, std::size_t>;

// Of several processes, the sum: a plan for a machine is as good as what it leaves in all of them.
Score score_of(const std::vector<pipeline::Diagnosis>& diagnoses) {
  int fails = 0;
  std::size_t errors = 0, warnings = 0;
  for (const pipeline::Diagnosis& diagnosis : diagnoses) {
    for (const rules::Finding& finding : diagnosis.rules.findings) {
      if (finding.severity == rules::Severity::Error) ++errors;
      if (finding.severity == rules::Severity::Warning) ++warnings;
    }
    fails += diagnosis.closure.outcome.ok ? 0 : 1;
  }
  return {fails, errors, warnings};
}

std::string verdict_word(const std::vector<pipeline::Diagnosis>& diagnoses) {
  const auto [fails, errors, warnings] = score_of(diagnoses);
  return fails ? "FAILS" : errors ? "BROKEN" : warnings ? "WARNINGS" : "HEALTHY";
}

// Two steps are the same change when their kind and fields are.
std::string key_of(const rules::FixStep& step) {
  std::string key = step.kind;
  for (const auto& [field, values] : step.fields) {
    key += "|" + field;
    for (const auto& value : values) key += "=" + value;
  }
  return key;
}

struct State {
  std::vector<Step> steps;
  std::vector<pipeline::Diagnosis> diagnoses;  // one per input
  Score score;
};

// The diagnoses of every input after `steps`, carried out once on one overlay and one copy of the environment.
Result<std::vector<pipeline::Diagnosis>> diagnoses_after(const std::vector<PlanInput>& inputs,
                                                         const std::vector<Step>& steps,
                                                         const std::vector<const graph::Closure*>& before) {
  const PlanInput& first = inputs.front();
  env::OverlayFileSystem files(first.files);
  env::Environment environment = first.environment;
  for (const Step& step : steps) apply_step(step, before, environment, files, first.images);
  std::vector<pipeline::Diagnosis> diagnoses;
  for (const PlanInput& input : inputs) {
    auto diagnosis = pipeline::diagnose(input.request, environment, first.rules, input.options, files, first.images);
    if (!diagnosis) return diagnosis.error();
    diagnoses.push_back(std::move(diagnosis).value());
  }
  return diagnoses;
}

class Search {
 public:
  Search(const std::vector<PlanInput>& inputs, const std::vector<const pipeline::Diagnosis*>& before)
      : inputs_(inputs) {
    for (const pipeline::Diagnosis* diagnosis : before) before_.push_back(&diagnosis->closure);
  }

  std::optional<State> run(const std::vector<Step>& steps) {
    ++trials_;
    auto after = diagnoses_after(inputs_, steps, before_);
    if (!after) return std::nullopt;
    State state{steps, std::move(after).value(), {}};
    state.score = score_of(state.diagnoses);
    return state;
  }

  // The checked steps the findings of `state` offer, each once and not already taken.
  std::vector<Step> candidates(const State& state) const {
    std::set<std::string> taken;
    for (const Step& step : state.steps) taken.insert(key_of(step.change));
    std::vector<Step> out;
    for (const pipeline::Diagnosis& diagnosis : state.diagnoses) {
      for (const rules::Finding& finding : diagnosis.rules.findings) {
        if (finding.severity == rules::Severity::Info) continue;
        for (const rules::FixStep& change : finding.steps) {
          if (change.kind == "by_hand") continue;
          auto host = host_fields(change, inputs_.front().environment, inputs_.front().files);
          if (!host) continue;  // a placeholder ("<the download folder>"): nothing to try
          const std::string key = key_of(change);
          auto same = std::find_if(out.begin(), out.end(), [&](const Step& s) { return key_of(s.change) == key; });
          if (same != out.end()) {
            same->mends.push_back(finding.key());
            continue;
          }
          if (!taken.insert(key).second) continue;
          out.push_back({change, std::move(host).value(), {finding.key()}, {}});
        }
      }
    }
    // Findings with one cause (one partial copy of a zip, one folder of old copies) are also offered as one
    // step: the step a person would take, and one trial instead of one a finding.
    const std::size_t singles = out.size();
    std::vector<bool> grouped(singles, false);
    for (std::size_t i = 0; i < singles; ++i) {
      if (grouped[i]) continue;
      std::optional<Step> group;
      for (std::size_t j = i + 1; j < singles; ++j) {
        if (auto merged = merged_step(group ? *group : out[i], out[j])) {
          group = std::move(merged);
          grouped[j] = true;
        }
      }
      if (group) out.push_back(std::move(*group));
    }
    return out;
  }

  std::size_t trials() const { return trials_; }

 private:
  const std::vector<PlanInput>& inputs_;
  std::vector<const graph::Closure*> before_;
  std::size_t trials_ = 0;
};

}  // namespace

std::vector<std::size_t> steps_mending(const Plan& plan, const rules::Finding& finding) {
  const rules::FindingKey key = finding.key();
  std::vector<std::size_t> steps;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& mends = plan.steps[i].mends;
    if (std::find(mends.begin(), mends.end(), key) != mends.end()) steps.push_back(i + 1);
  }
  return steps;
}

Result<pipeline::Diagnosis> diagnose_after(const PlanInput& input, const std::vector<Step>& steps,
                                           const graph::Closure& before) {
  auto after = diagnoses_after({input}, steps, {&before});
  if (!after) return after.error();
  return std::move(after->front());
}

Plan make_plan(const PlanInput& input, const pipeline::Diagnosis& diagnosis) {
  return make_plan(std::vector<PlanInput>{input}, {&diagnosis});
}

Plan make_plan(const std::vector<PlanInput>& inputs, const std::vector<const pipeline::Diagnosis*>& diagnoses) {
  const PlanInput& input = inputs.front();
  Search search(inputs, diagnoses);
  State start{{}, {}, {}};
  for (const pipeline::Diagnosis* diagnosis : diagnoses) start.diagnoses.push_back(*diagnosis);
  start.score = score_of(start.diagnoses);
  State best = start;
  std::vector<State> beam;
  beam.push_back(start);
  const Score healthy{0, 0, 0};
  // A beam search over plans, a step longer each round: a step is kept only where it makes the prediction
  // better, so the plan never holds a step that does nothing, and the best few plans of each length go on
  // (the first step that helps most is not always the one a good plan starts with: renaming an old
  // dispatcher first, then completing the newer release's folder, beats completing the old one).
  for (std::size_t length = 1; best.score != healthy && search.trials() < kMaxTrials; ++length) {
    std::vector<State> next;
    for (const State& state : beam) {
      for (Step& step : search.candidates(state)) {
        if (search.trials() >= kMaxTrials) break;
        std::vector<Step> steps = state.steps;
        steps.push_back(std::move(step));
        auto tried = search.run(steps);
        // A step that changes nothing yet may be the first half of a pair (renaming the odd copy out,
        // then bringing the release's own): kept too, as long as it does not make things worse.
        if (tried && !(state.score < tried->score)) next.push_back(std::move(*tried));
      }
    }
    if (next.empty()) break;
    std::stable_sort(next.begin(), next.end(), [](const State& a, const State& b) { return a.score < b.score; });
    const std::size_t width = length < kBeamSteps ? kBeam : 1;
    if (next.size() > width) next.resize(width);
    const bool healed = next.front().score < best.score;
    if (healed) best = next.front();
    // Past the beam's length, a round that heals nothing ends the search (shorter plans keep a step that
    // changes nothing yet: the first half of a pair).
    if (!healed && length >= kBeamSteps) break;
    beam = std::move(next);
  }
  // Leave out any step the best plan does as well without.
  for (std::size_t i = best.steps.size(); i-- > 0 && best.steps.size() > 1;) {
    std::vector<Step> fewer = best.steps;
    fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
    auto tried = search.run(fewer);
    if (tried && !(best.score < tried->score)) best = std::move(*tried);
  }

  // Steps found apart that are one change (a folder completed in two rounds) become one, where the plan
  // does as well with it.
  // Its own budget: each merge tried is a diagnosis, and a hostile plan may hold many steps of one kind.
  const std::size_t merge_budget = search.trials() + kMaxTrials;
  for (std::size_t i = 0; i < best.steps.size() && search.trials() < merge_budget; ++i) {
    for (std::size_t j = i + 1; j < best.steps.size() && search.trials() < merge_budget;) {
      auto merged = merged_step(best.steps[i], best.steps[j]);
      std::optional<State> tried;
      if (merged) {
        std::vector<Step> fewer = best.steps;
        fewer[i] = std::move(*merged);
        fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(j));
        tried = search.run(fewer);
      }
      if (tried && !(best.score < tried->score)) {
        best = std::move(*tried);
      } else {
        ++j;
      }
    }
  }

  Plan plan;
  plan.paths = rules::CommandPaths::of(input.environment, diagnoses.front()->closure, diagnoses.front()->inventory);
  plan.steps = best.steps;
  for (Step& step : plan.steps) {
    for (const char* field : {"path", "from"}) {
      const auto& shown = step.change.values(field);
      auto host = step.host.find(field);
      for (std::size_t i = 0; host != step.host.end() && i < shown.size() && i < host->second.size(); ++i) {
        auto image = input.images.get(input.files.content_path(host->second[i]));
        if (image->ok() && image->value().file_version)
          step.versions[shown[i]] = image->value().file_version->to_string();
      }
    }
  }
  plan.predicted = verdict_word(best.diagnoses);
  plan.verified = best.score == healthy;
  for (const pipeline::Diagnosis& diagnosis : best.diagnoses) {
    const std::size_t earlier = plan.remaining.size();
    for (const rules::Finding& finding : diagnosis.rules.findings) {
      if (finding.severity == rules::Severity::Info) continue;
      // Two processes left with the same finding (one folder, two loads of it) leave one thing to do.
      const auto end = plan.remaining.begin() + static_cast<std::ptrdiff_t>(earlier);
      if (std::any_of(plan.remaining.begin(), end, [&](const rules::Finding& other) {
            return other.key() == finding.key() && other.message == finding.message;
          }))
        continue;
      plan.remaining.push_back(finding);
      for (const rules::FixStep& change : finding.steps) {
        if (change.kind != "by_hand") continue;
        // One line for the findings one change mends (three extension modules, one add_dll_directory).
        auto same = std::find_if(plan.by_hand.begin(), plan.by_hand.end(),
                                 [&](const Step& s) { return key_of(s.change) == key_of(change); });
        if (same != plan.by_hand.end()) {
          same->mends.push_back(finding.key());
        } else {
          plan.by_hand.push_back({change, {}, {finding.key()}, {}});
        }
      }
    }
  }
  plan.trials = search.trials();
  return plan;
}

}  // namespace dlldoctor::plan
