#include "dlldoctor/report/closure_view.hpp"

#include <fmt/format.h>

#include <set>

#include "dlldoctor/report/legend.hpp"
#include "dlldoctor/report/plan_report.hpp"

namespace dlldoctor::report {
namespace {

using resolve::Failure;

// Without rule data (no families to tell a cuDNN from any DLL) there is no stack.
Stack stack_for(const ReportInput& input) {
  return input.rules ? stack_of(*input.closure, *input.rules, *input.findings, input.expansion) : Stack{};
}

ModuleShown module_shown(const graph::Module& module) {
  const resolve::Resolution& r = module.resolution;
  ModuleShown shown;
  shown.load = module.is_root ? "program" : std::string(graph::load_kind_name(module.load));
  if (r.image && r.image->file_version) shown.version = r.image->file_version->to_string();
  // A Windows user reads the Windows path (--sysroot, --map); the host path is in the JSON.
  const std::string path = r.windows_path ? *r.windows_path : r.path.value_or("");
  if (r.api_set_host) {
    shown.state = ModuleShown::State::ApiSet;
    shown.found_by = r.found_by;
  } else if (r.found_by == resolve::SearchStep::ApiSet && r.assumed) {
    shown.state = ModuleShown::State::ApiSetUnknown;
    shown.found_by = r.found_by;
  } else if (r.failure == Failure::NotFound) {
    shown.state = ModuleShown::State::NotFound;
  } else if (r.failure == Failure::BadImage) {
    shown.state = ModuleShown::State::CannotLoad;
    shown.where = path;
    shown.found_by = r.found_by;
  } else {
    shown.state = r.assumed ? ModuleShown::State::Assumed : ModuleShown::State::Loads;
    shown.where = path;
    shown.found_by = r.found_by;
  }
  return shown;
}

// Which children a tree draws depends on what was drawn before them, so trees are laid out in the
// order they are drawn.
class TreeLayout {
 public:
  explicit TreeLayout(const graph::Closure& closure) : closure_(closure) {}

  bool drawn(std::size_t index) const { return drawn_.count(index) > 0; }

  TreeNode lay_out(std::size_t index) {
    TreeNode node{index, drawn(index), {}};
    drawn_.insert(index);
    if (node.repeat) return node;
    for (std::size_t child : closure_.modules[index].children) {
      if (!hidden(child)) node.children.push_back(lay_out(child));
    }
    return node;
  }

 private:
  // System DLLs that resolved fine are shown once; repeating them under every importer is noise.
  bool hidden(std::size_t child) const {
    const graph::Module& c = closure_.modules[child];
    return drawn(child) && c.resolution.failure == Failure::None && is_system(c);
  }

  static bool is_system(const graph::Module& module) {
    const auto step = module.resolution.found_by;
    return module.resolution.assumed || step == resolve::SearchStep::KnownDll || step == resolve::SearchStep::ApiSet ||
           step == resolve::SearchStep::System32;
  }

  const graph::Closure& closure_;
  std::set<std::size_t> drawn_;
};

struct Verdict {
  Tone tone;
  std::string text;
};

Verdict verdict_of(const ReportInput& input) {
  const graph::Outcome& outcome = input.closure->outcome;
  std::size_t errors = 0, warnings = 0;
  const rules::Finding* first_error = nullptr;
  for (const auto& finding : *input.findings) {
    if (finding.severity == rules::Severity::Error) {
      if (!first_error) first_error = &finding;
      ++errors;
    } else if (finding.severity == rules::Severity::Warning) {
      ++warnings;
    }
  }
  if (!outcome.ok) {
    return {Tone::Fails, fmt::format("FAILS: {} fails with error {}: {}", outcome.request, outcome.error.value_or(0),
                                     outcome.reason)};
  }
  if (first_error) {
    return {Tone::Broken, fmt::format("BROKEN: {} succeeds, but {} error{} below will stop it later ({}{})",
                                      outcome.request, errors, errors == 1 ? "" : "s", first_error->id,
                                      first_error->module.empty() ? std::string() : ": " + first_error->module)};
  }
  if (warnings) {
    return {Tone::Warnings, fmt::format("WARNINGS: {} succeeds; {} warning{} below", outcome.request, warnings,
                                        warnings == 1 ? "" : "s")};
  }
  return {Tone::Healthy, fmt::format("HEALTHY: {} succeeds, and every DLL it needs is found", outcome.request)};
}

}  // namespace

std::string error_heading(const std::optional<rules::LoaderErrorText>& error, bool says) {
  if (!error) return "what you see:";
  if (!says) return fmt::format("error {}, {}: {}", error->code, error->name, error->text);
  return fmt::format("what you see (error {}, {}: {}):", error->code, error->name, error->text);
}

std::string_view tone_name(Tone tone) {
  switch (tone) {
    case Tone::Healthy: return "healthy";
    case Tone::Warnings: return "warnings";
    case Tone::Broken: return "broken";
    case Tone::Fails: return "fails";
  }
  return "?";
}

ClosureView::ClosureView(const ReportInput& input)
    : raw_(input), copy_(input), raw_stack_(stack_for(input)), stack_(stack_for(copy_.input())) {
  const ReportInput& shown_input = copy_.input();
  Verdict verdict = verdict_of(shown_input);
  verdict_ = std::move(verdict.text);
  tone_ = verdict.tone;
  raw_verdict_ = verdict_of(raw_).text;
  same_fix_ = same_fix_as(*shown_input.findings);
  for (const rules::Finding& finding : *raw_.findings)
    plan_steps_.push_back(raw_.plan ? plan::steps_mending(*raw_.plan, finding) : std::vector<std::size_t>());
  placeholders_ = report_placeholders(raw_.plan ? plan_placeholders(*raw_.plan) : std::vector<rules::Placeholder>(),
                                      *raw_.findings);
  const graph::Closure& closure = *shown_input.closure;
  unbreakable_.push_back(closure.outcome.request);
  for (const graph::Module& module : closure.modules) {
    modules_.push_back(module_shown(module));
    unbreakable_.push_back(module.name);
    if (module.resolution.path) unbreakable_.push_back(*module.resolution.path);
    if (module.resolution.windows_path) unbreakable_.push_back(*module.resolution.windows_path);
  }
  std::vector<std::size_t> tops;
  for (std::size_t i = 1; i < closure.modules.size(); ++i) {
    if (closure.modules[i].depth == 0) tops.push_back(i);
  }
  if (!closure.modules.empty()) {
    if (shown_input.request->loads.empty()) {
      tops.insert(tops.begin(), 0);
    } else {
      tops.push_back(0);
    }
  }
  TreeLayout layout(closure);
  for (std::size_t top : tops) {
    if (!layout.drawn(top)) trees_.push_back(layout.lay_out(top));
  }
}

}  // namespace dlldoctor::report
