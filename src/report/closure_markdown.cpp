// The closure report to paste into an issue (--format markdown): the verdict, the stack, the plan, the
// findings with their fixes, a Mermaid picture of what matters, the modules table and the environment.
#include <fmt/format.h>

#include "report/closure_formats.hpp"
#include "report/finding_formats.hpp"
#include "report/legend.hpp"
#include "report/markdown.hpp"
#include "report/plan_report.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {
namespace {

std::string ids_code(const std::vector<std::string>& ids) {
  std::string text;
  for (const std::string& id : ids) text += (text.empty() ? "" : ", ") + ("`" + id + "`");
  return text;
}

void write_verdict(TextOut& out, const ClosureView& view) {
  out.line("## dlldoctor report");
  out.line();
  out.line("**" + view.verdict() + "**");
  out.line();
  append_error_markdown(out, view.input().outcome_error, view.input().outcome_says, "");
}

void write_stack_table(TextOut& out, const Stack& stack) {
  out.line("### Stack");
  out.line();
  out.line("| part | path | found by | findings |");
  out.line("| --- | --- | --- | --- |");
  for (const StackRow& row : stack_rows(stack)) {
    const StackEntry& entry = *row.entry;
    out.line(fmt::format("| {} | `{}`{} | {} | {} |", markdown_cell(row.part), markdown_cell(stack_where(entry)),
                         dll_count(entry), resolve::step_name(entry.found_by), ids_code(entry.findings)));
  }
  out.line();
  for (const StackFramework& framework : stack.frameworks) {
    out.line("- " + markdown_cell(framework_line(framework)));
    for (const std::string& mismatch : framework.mismatches) out.line("  - **mismatch:** " + markdown_cell(mismatch));
  }
  if (!stack.frameworks.empty()) out.line();
}

void write_findings(TextOut& out, const ClosureView& view) {
  out.line("### Findings");
  out.line();
  append_findings_markdown(out, view.findings_shown(), view.input().rules);
}

void write_python_list(TextOut& out, const ReportInput& input) {
  out.line("### Python");
  out.line();
  for (const PythonLine& line : python_lines(*input.expansion, input.environment))
    out.line((line.nested ? "  - " : "- ") + markdown_cell(line.text));
  out.line();
}

void write_modules(TextOut& out, const ClosureView& view) {
  const graph::Closure& closure = *view.input().closure;
  out.line();
  out.line("### Modules");
  out.line();
  out.line("| DLL | version | path | found by | load | belongs to |");
  out.line("| --- | --- | --- | --- | --- | --- |");
  for (std::size_t i = 0; i < closure.modules.size(); ++i) {
    const ModuleShown& shown = view.modules()[i];
    std::string where = "`" + markdown_cell(shown.where) + "`";
    switch (shown.state) {
      case ModuleShown::State::Loads: break;
      case ModuleShown::State::Assumed: where += " (assumed)"; break;
      case ModuleShown::State::NotFound: where = "**not found**"; break;
      case ModuleShown::State::CannotLoad: where = "**cannot load** " + where; break;
      case ModuleShown::State::ApiSet: where = "API set -> " + *closure.modules[i].resolution.api_set_host; break;
      case ModuleShown::State::ApiSetUnknown: where = "API set, host unknown (assumed)"; break;
    }
    out.line(fmt::format("| {} | {} | {} | {} | {} | {} |", markdown_cell(closure.modules[i].name),
                         shown.version.empty() ? "-" : shown.version, where,
                         shown.found_by ? std::string(resolve::step_name(*shown.found_by)) : "-", shown.load,
                         shown.owner.empty() ? "-" : markdown_cell(shown.owner)));
  }
}

void write_environment(TextOut& out, const ReportInput& input) {
  const env::Environment& environment = *input.environment;
  const graph::Closure& closure = *input.closure;
  out.line();
  out.line("<details><summary>Environment</summary>");
  out.line();
  out.line(fmt::format("- source: {}{}", environment.source,
                       environment.sysroot ? ", sysroot `" + *environment.sysroot + "`" : std::string()));
  out.line(fmt::format("- process: {}", pe::machine_name(closure.process_machine)));
  out.line(fmt::format("- SafeDllSearchMode: {}", environment.safe_dll_search_mode ? "on" : "off"));
  out.line(fmt::format("- KnownDLLs: {} ({} names)", environment.known_dlls_source, environment.known_dlls.size()));
  out.line(fmt::format("- API sets: {}", environment.api_sets.source()));
  out.line("- search order:");
  for (const auto& folder : input.search_order) {
    out.line(fmt::format("  - {}: `{}`{}", resolve::step_name(folder.step),
                         folder.folder.windows.value_or(folder.folder.host),
                         folder.folder.exists ? "" : " (does not exist)"));
  }
  for (const auto& note : environment.notes) out.line("- note: " + note);
  for (const auto& note : closure.notes) out.line("- note: " + note);
  if (input.rules) out.line("- rules: " + markdown_cell(input.rules->origin.text()));
  out.line();
  out.line("</details>");
  out.line();
}

}  // namespace

void write_closure_markdown(Sink& sink, const ClosureView& view, const WriteStyle&) {
  TextOut out(sink);
  for (const Part part : view.parts()) {
    switch (part) {
      case Part::Verdict: write_verdict(out, view); break;
      case Part::Stack: write_stack_table(out, view.stack()); break;
      case Part::Plan: append_plan_markdown(out, *view.input().plan); break;
      case Part::Legend: legend_markdown(out, view.placeholders()); break;
      case Part::Findings: write_findings(out, view); break;
      case Part::Python: write_python_list(out, view.input()); break;
      case Part::Tree: mermaid_block(out, view); break;
      case Part::Modules: write_modules(out, view); break;
      case Part::Environment: write_environment(out, view.input()); break;
      case Part::Footer: out.line("<sub>dlldoctor " + view.input().tool_version + "</sub>"); break;
    }
  }
}

}  // namespace dlldoctor::report
