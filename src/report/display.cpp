#include "dlldoctor/report/display.hpp"

#include "dlldoctor/core/utf8.hpp"

namespace dlldoctor::report {
namespace {

void shown(std::string& text) { text = escape_bytes(text, Escape::Controls); }

void shown(std::optional<std::string>& text) {
  if (text) shown(*text);
}

void shown(std::vector<std::string>& texts) {
  for (std::string& text : texts) shown(text);
}

void shown(env::FolderRef& folder) {
  shown(folder.host);
  shown(folder.windows);
}

void shown(graph::Outcome& outcome) {
  shown(outcome.request);
  shown(outcome.reason);
  shown(outcome.module);
  for (graph::MissingDll& missing : outcome.missing) {
    shown(missing.dll);
    shown(missing.needed_by);
  }
}

void shown(resolve::Resolution& r) {
  shown(r.requested);
  shown(r.path);
  shown(r.windows_path);
  shown(r.api_set_host);
  for (resolve::Candidate& c : r.candidates) {
    shown(c.path);
    shown(c.windows_path);
    shown(c.problem);
  }
  for (resolve::SearchFolder& folder : r.searched) shown(folder.folder);
}

void shown(graph::Module& module) {
  shown(module.name);
  shown(module.needed_by);
  shown(module.resolution);
  for (graph::MayLoad& hint : module.may_load) {
    shown(hint.dll);
    shown(hint.resolution);
  }
  shown(module.other_major);
  for (graph::MissingExport& missing : module.missing_exports) {
    shown(missing.function);
    shown(missing.needed_by);
    shown(missing.detail);
  }
}

void shown(recipes::Expansion& expansion) {
  env::PythonEnvironment& python = expansion.python;
  shown(python.interpreter);
  shown(python.launcher);
  shown(python.user_site);
  shown(python.user_site_why);
  shown(python.prefix);
  shown(python.base_prefix);
  shown(python.why);
  shown(python.site_packages);
  shown(expansion.variables_used);
  for (recipes::ExpandedRecipe& recipe : expansion.recipes) {
    shown(recipe.package_dir);
    shown(recipe.outside_covers);
    for (auto& [name, value] : recipe.values) shown(value);
    for (recipes::StepOutcome& step : recipe.steps) {
      shown(step.step);
      shown(step.outcome);
    }
  }
}

}  // namespace

DisplayCopy::DisplayCopy(const ReportInput& input)
    : request_(*input.request),
      environment_(*input.environment),
      closure_(*input.closure),
      findings_(*input.findings),
      input_(input) {
  shown(request_.program);
  shown(request_.preload);
  for (graph::LoadCall& call : request_.loads) {
    shown(call.name);
    shown(call.origin);
  }
  shown(environment_.notes);
  shown(environment_.sysroot);
  for (env::PathEntry& entry : environment_.path) {
    shown(entry.text);
    shown(entry.folder);
  }
  for (graph::Module& module : closure_.modules) shown(module);
  if (closure_.startup) shown(*closure_.startup);
  for (graph::Outcome& outcome : closure_.loads) shown(outcome);
  shown(closure_.outcome);
  shown(closure_.notes);
  shown(closure_.process.app_dir);
  for (rules::Finding& finding : findings_) {
    shown(finding.module);
    shown(finding.message);
    shown(finding.says);
  }
  shown(input_.outcome_says);
  for (resolve::SearchFolder& folder : input_.search_order) shown(folder.folder);
  if (input.expansion) {
    expansion_ = *input.expansion;
    shown(*expansion_);
    input_.expansion = &*expansion_;
  }
  input_.request = &request_;
  input_.environment = &environment_;
  input_.closure = &closure_;
  input_.findings = &findings_;
}

std::vector<std::optional<std::size_t>> same_fix_as(const std::vector<rules::Finding>& findings) {
  std::vector<std::optional<std::size_t>> same(findings.size());
  for (std::size_t i = 0; i < findings.size(); ++i) {
    for (std::size_t earlier = 0; earlier < i && !findings[i].fix.empty(); ++earlier) {
      if (findings[earlier].fix == findings[i].fix) {
        same[i] = same[earlier].value_or(earlier);
        break;
      }
    }
  }
  return same;
}

}  // namespace dlldoctor::report
