#include "dlldoctor/report/closure_view.hpp"

#include <fmt/format.h>

#include <set>

#include "report/finding_formats.hpp"
#include "report/legend.hpp"
#include "report/plan_report.hpp"

namespace dlldoctor::report {
namespace {

using resolve::Failure;

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

}  // namespace

std::string error_heading(const std::optional<rules::LoaderErrorText>& error, bool says) {
  if (!error) return "what you see:";
  if (!says) return fmt::format("error {}, {}: {}", error->code, error->name, error->text);
  return fmt::format("what you see (error {}, {}: {}):", error->code, error->name, error->text);
}

std::string dll_count(const StackEntry& entry) {
  return entry.dlls.size() > 1 ? fmt::format(" ({} DLLs)", entry.dlls.size()) : std::string();
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

namespace {

ReportInput input_of(const session::ExplainRun& run, const Stamp& stamp) {
  ReportInput input;
  input.tool_version = stamp.tool_version;
  input.generated_at = stamp.generated_at;
  input.request = &run.request;
  input.profile = run.profile;
  input.expansion = run.expansion ? &*run.expansion : nullptr;
  input.policy = run.policy;
  input.environment = run.environment;
  input.search_order = run.diagnosis.search_order;
  input.closure = &run.closure();
  input.findings = &run.findings();
  input.rules = run.rules;
  input.plan = run.plan ? &*run.plan : nullptr;
  input.outcome_error = run.diagnosis.rules.outcome_error;
  input.outcome_says = run.diagnosis.rules.outcome_says;
  return input;
}

}  // namespace

std::vector<std::optional<std::size_t>> same_fix_as(const std::vector<rules::Finding>& findings) {
  std::vector<const rules::Finding*> pointers;
  for (const rules::Finding& finding : findings) pointers.push_back(&finding);
  return same_fix_as(pointers);
}

ClosureView::ClosureView(const session::ExplainRun& run, const Stamp& stamp) : run_(run), input_(input_of(run, stamp)) {
  const std::vector<rules::Finding>& findings = run.findings();
  for (const rules::Finding& finding : findings) shown_.findings.push_back(&finding);
  same_fix_ = same_fix_as(shown_.findings);
  shown_.fixes = fixes_shown(shown_.findings, run.plan_steps);
  placeholders_ =
      report_placeholders(run.plan ? plan_placeholders(*run.plan) : std::vector<rules::Placeholder>(), findings);
  parts_.push_back(Part::Verdict);
  if (!run.stack.empty()) parts_.push_back(Part::Stack);
  if (run.plan) parts_.push_back(Part::Plan);
  if (run.plan && !placeholders_.empty()) parts_.push_back(Part::Legend);
  if (!findings.empty()) parts_.push_back(Part::Findings);
  if (!run.plan && !placeholders_.empty()) parts_.push_back(Part::Legend);
  if (run.expansion) parts_.push_back(Part::Python);
  parts_.insert(parts_.end(), {Part::Tree, Part::Modules, Part::Environment, Part::Footer});
  const graph::Closure& closure = run.closure();
  unbreakable_.push_back(closure.outcome.request);
  for (std::size_t i = 0; i < closure.modules.size(); ++i) {
    const graph::Module& module = closure.modules[i];
    modules_.push_back(module_shown(module));
    if (i < run.owners.size() && run.owners[i]) {
      modules_.back().owner = run.owners[i]->text();
      modules_.back().owner_kind = run.owners[i]->kind;
    }
    unbreakable_.push_back(module.name);
    if (module.resolution.path) unbreakable_.push_back(*module.resolution.path);
    if (module.resolution.windows_path) unbreakable_.push_back(*module.resolution.windows_path);
  }
  std::vector<std::size_t> tops;
  for (std::size_t i = 1; i < closure.modules.size(); ++i) {
    if (closure.modules[i].depth == 0) tops.push_back(i);
  }
  if (!closure.modules.empty()) {
    if (run.request.loads.empty()) {
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
