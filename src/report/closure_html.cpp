// The closure report as one self-contained HTML page (--format html -o report.html): the verdict, the
// stack, the findings with a copy button per command, the dependency tree (collapsible, in the colours
// of the pictures) and the modules table with a filter box.
#include <fmt/format.h>

#include "dlldoctor/report/closure_formats.hpp"
#include "dlldoctor/report/html_page.hpp"
#include "dlldoctor/report/legend.hpp"
#include "dlldoctor/report/picture.hpp"
#include "dlldoctor/report/plan_report.hpp"

namespace dlldoctor::report {
namespace {

std::string node_style(const NodeLook& look) {
  return fmt::format("background:{};border-color:{};color:{}", look.fill, look.border, look.text);
}

std::string node_span(const PictureNode& node, const std::string& text) {
  const NodeLook look = look_of(node);
  std::string classes = "node";
  if (look.thick) classes += " thick";
  if (look.dashed) classes += " dashed";
  if (node.failed()) classes += " failed";
  return fmt::format("<span class=\"{}\" style=\"{}\">{}</span>", classes, node_style(look), html_text(text));
}

class HtmlTree {
 public:
  HtmlTree(std::string& out, const ClosureView& view, const Picture& picture)
      : out_(out), view_(view), picture_(picture) {}

  void write(const TreeNode& node) {
    const graph::Module& module = view_.shown().closure->modules[node.module];
    const ModuleShown& shown = view_.modules()[node.module];
    // Module nodes come first in a picture, in the closure's order.
    const PictureNode& look = picture_.nodes[node.module];
    std::string label = node_span(look, module.name + (shown.version.empty() ? "" : " " + shown.version));
    if (!shown.where.empty() && !node.repeat) label += " <span class=\"path\">" + html_text(shown.where) + "</span>";
    std::string note;
    if (shown.found_by) note += fmt::format("[{}]", resolve::step_name(*shown.found_by));
    if (!module.is_root && module.load != graph::LoadKind::Static) note += " (" + shown.load + ")";
    if (!look.note.empty()) note += " " + look.note;
    if (node.repeat) note += " (see above)";
    if (!note.empty()) label += " <span class=\"note\">" + html_text(note) + "</span>";
    for (const PictureEdge& edge : picture_.edges) {
      if (edge.kind != PictureEdge::Kind::Shadows || edge.to != node.module || node.repeat) continue;
      const PictureNode& copy = picture_.nodes[edge.from];
      label += "<br>" + node_span(copy, copy.name + (copy.version.empty() ? "" : " " + copy.version)) +
               " <span class=\"path\">" + html_text(copy.folder) + "</span> <span class=\"note\">" +
               html_text(copy.note) + "</span>";
    }
    if (node.children.empty()) {
      out_ += "<div class=\"leaf\">" + label + "</div>\n";
      return;
    }
    // Open where something below fails or an error or warning names a module, so what matters shows
    // first; the rest is a click away.
    out_ += std::string(fails_below(node) ? "<details open>" : "<details>") + "<summary>" + label + "</summary>\n";
    for (const TreeNode& child : node.children) write(child);
    out_ += "</details>\n";
  }

 private:
  bool fails_below(const TreeNode& node) const {
    const PictureNode& here = picture_.nodes[node.module];
    if (here.failed() || (here.finding && *here.finding != rules::Severity::Info)) return true;
    for (const TreeNode& child : node.children) {
      if (fails_below(child)) return true;
    }
    return false;
  }

  std::string& out_;
  const ClosureView& view_;
  const Picture& picture_;
};

// What the user sees, each line as it appears (pre: never reflowed, so a search for the pasted text finds it).
void append_error(std::string& out, const std::optional<rules::LoaderErrorText>& error,
                  const std::vector<std::string>& says) {
  if (!error && says.empty()) return;
  out += "<p class=\"seen\">" + html_text(error_heading(error, !says.empty())) + "</p>\n";
  if (says.empty()) return;
  out += "<pre class=\"says\">";
  for (const std::string& line : says) out += html_text(line) + "\n";
  out += "</pre>\n";
}

void append_findings(std::string& out, const ClosureView& view) {
  const ReportInput& input = view.shown();
  if (input.findings->empty()) return;
  out += "<h2>Findings</h2>\n";
  for (std::size_t i = 0; i < input.findings->size(); ++i) {
    const rules::Finding& finding = (*input.findings)[i];
    const rules::FailureMode* mode = input.rules ? input.rules->failure_mode(finding.failure_mode) : nullptr;
    const std::string_view severity = rules::severity_name(finding.severity);
    out += fmt::format(
        "<div class=\"finding\" id=\"finding-{}\">\n<p><span class=\"severity severity-{}\">{}</span> <code>{}</code> "
        "{}{}</p>\n<p>{}</p>\n",
        i, severity, severity, html_text(finding.id), html_text(mode ? mode->id + ": " : std::string()),
        html_text(finding.title), html_text(finding.message));
    append_error(out, finding.error, finding.says);
    if (mode && !mode->explanation.empty()) out += "<p class=\"why\">Why: " + html_text(mode->explanation) + "</p>\n";
    if (const auto& steps = view.plan_steps()[i]; !steps.empty()) {
      out += fmt::format("<p>Fix: <a href=\"#plan-step-{}\">{}</a> of the plan above.</p>\n", steps.front(),
                         plan_steps_text(steps));
    } else if (const auto same = view.same_fix()[i]) {
      const rules::Finding& earlier = (*input.findings)[*same];
      out += fmt::format("<p>Fix: as for <a href=\"#finding-{}\"><code>{}</code></a> above.</p>\n", *same,
                         html_text(earlier.id));
    } else if (!finding.fix.empty()) {
      out += html_fix_list(finding.fix);
    }
    out += "</div>\n";
  }
}

void append_python(std::string& out, const recipes::Expansion& expansion, const env::Environment* environment) {
  out += "<h2>Python</h2>\n<ul class=\"python\" id=\"python\">\n";
  const std::vector<PythonLine> lines = python_lines(expansion, environment);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    // The nested lines after a line go in a list of its own.
    out += "<li>" + html_text(lines[i].text);
    if (i + 1 < lines.size() && lines[i + 1].nested) {
      out += "\n<ul>\n";
      while (i + 1 < lines.size() && lines[i + 1].nested) out += "<li>" + html_text(lines[++i].text) + "</li>\n";
      out += "</ul>\n";
    }
    out += "</li>\n";
  }
  out += "</ul>\n";
}

void append_stack(std::string& out, const Stack& stack) {
  if (stack.empty()) return;
  out +=
      "<h2>Stack</h2>\n<table id=\"stack\">\n<thead><tr><th>part</th><th>path</th><th>found by</th>"
      "<th>findings</th></tr></thead>\n<tbody>\n";
  for (const StackRow& row : stack_rows(stack)) {
    std::string ids;
    for (const std::string& id : row.entry->findings)
      ids += (ids.empty() ? "" : ", ") + ("<code>" + html_text(id) + "</code>");
    out += fmt::format("<tr><td>{}{}</td><td class=\"path\">{}</td><td>{}</td><td>{}</td></tr>\n", html_text(row.part),
                       row.entry->dlls.size() > 1 ? fmt::format(" ({} DLLs)", row.entry->dlls.size()) : "",
                       html_text(stack_where(*row.entry)), resolve::step_name(row.entry->found_by), ids);
  }
  out += "</tbody>\n</table>\n";
  for (const StackFramework& framework : stack.frameworks) {
    out += "<p>" + html_text(framework_line(framework)) + "</p>\n";
    for (const std::string& mismatch : framework.mismatches)
      out += "<p><b>mismatch:</b> " + html_text(mismatch) + "</p>\n";
  }
}

void append_modules(std::string& out, const ClosureView& view, const Picture& picture) {
  const graph::Closure& closure = *view.shown().closure;
  out +=
      "<h2>Modules</h2>\n<input class=\"filter\" data-target=\"modules\" type=\"search\" "
      "placeholder=\"filter: a DLL, a folder, a step, NOT FOUND\">\n<table id=\"modules\">\n<thead><tr><th>DLL</th>"
      "<th>version</th><th>path</th><th>found by</th><th>load</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < closure.modules.size(); ++i) {
    const ModuleShown& shown = view.modules()[i];
    const PictureNode& node = picture.nodes[i];
    std::string where = html_text(shown.where);
    if (!node.note.empty())
      where += (where.empty() ? "" : " ") + ("<span class=\"note\">" + html_text(node.note) + "</span>");
    out += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"path\">{}</td><td>{}</td><td>{}</td></tr>\n",
                       node_span(node, closure.modules[i].name), html_text(shown.version.empty() ? "-" : shown.version),
                       where, shown.found_by ? resolve::step_name(*shown.found_by) : "-", html_text(shown.load));
  }
  out += "</tbody>\n</table>\n";
}

}  // namespace

void write_closure_html(Sink& sink, const ClosureView& view, const WriteStyle&) {
  const ReportInput& input = view.shown();
  const Picture picture = picture_of(view);
  std::string out = html_page_start("dlldoctor: " + input.closure->outcome.request);
  out += fmt::format("<h1>dlldoctor report</h1>\n<p class=\"verdict tone-{}\" id=\"verdict\">{}</p>\n",
                     tone_name(view.tone()), html_text(view.verdict()));
  append_error(out, input.outcome_error, input.outcome_says);
  append_stack(out, view.stack());
  // The order of the text report; the legend under the plan, whose commands are run first.
  const std::string legend = legend_html(view.placeholders());
  if (input.plan) {
    append_plan_html(out, *input.plan);
    out += legend;
  }
  append_findings(out, view);
  if (!input.plan) out += legend;
  if (input.expansion) append_python(out, *input.expansion, input.environment);
  out += "<h2>Dependency tree</h2>\n<div class=\"tree\" id=\"tree\">\n";
  HtmlTree tree(out, view, picture);
  for (const TreeNode& top : view.trees()) tree.write(top);
  out += "</div>\n";
  append_modules(out, view, picture);
  const std::vector<std::string>* notes[] = {&input.environment->notes, &input.closure->notes};
  for (const auto* list : notes) {
    for (const std::string& note : *list) out += "<p class=\"note\">note: " + html_text(note) + "</p>\n";
  }
  out += "<p><small>dlldoctor " + html_text(input.tool_version) +
         (input.rules ? ", rules: " + html_text(input.rules->origin.text()) : std::string()) + "</small></p>\n";
  out += html_page_end();
  sink.put(out);
}

}  // namespace dlldoctor::report
