// The closure report as one self-contained HTML page (--format html -o report.html): the verdict, the
// stack, the findings with a copy button per command, the dependency tree (collapsible, in the colours
// of the pictures) and the modules table with a filter box.
#include <fmt/format.h>

#include "report/closure_formats.hpp"
#include "report/finding_formats.hpp"
#include "report/html_page.hpp"
#include "report/legend.hpp"
#include "report/picture.hpp"
#include "report/plan_report.hpp"

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
  HtmlTree(TextOut& out, const ClosureView& view, const Picture& picture) : out_(out), view_(view), picture_(picture) {}

  void write(const TreeNode& node) {
    const graph::Module& module = view_.input().closure->modules[node.module];
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
    if (node.children.empty()) return out_.line("<div class=\"leaf\">" + label + "</div>");
    // Open where something below fails or an error or warning names a module, so what matters shows
    // first; the rest is a click away.
    out_.line(std::string(fails_below(node) ? "<details open>" : "<details>") + "<summary>" + label + "</summary>");
    for (const TreeNode& child : node.children) write(child);
    out_.line("</details>");
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

  TextOut& out_;
  const ClosureView& view_;
  const Picture& picture_;
};

void append_findings(TextOut& out, const ClosureView& view) {
  out.line("<h2>Findings</h2>");
  append_findings_html(out, view.findings_shown(), view.input().rules);
}

void append_python(TextOut& out, const ReportInput& input) {
  out.line("<h2>Python</h2>");
  out.line("<ul class=\"python\" id=\"python\">");
  const std::vector<PythonLine> lines = python_lines(*input.expansion, input.environment);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    // The nested lines after a line go in a list of its own.
    if (i + 1 < lines.size() && lines[i + 1].nested) {
      out.line("<li>" + html_text(lines[i].text));
      out.line("<ul>");
      while (i + 1 < lines.size() && lines[i + 1].nested) out.line("<li>" + html_text(lines[++i].text) + "</li>");
      out.line("</ul>");
      out.line("</li>");
    } else {
      out.line("<li>" + html_text(lines[i].text) + "</li>");
    }
  }
  out.line("</ul>");
}

void append_stack(TextOut& out, const Stack& stack) {
  out.line("<h2>Stack</h2>");
  out.line("<table id=\"stack\">");
  out.line("<thead><tr><th>part</th><th>path</th><th>found by</th><th>findings</th></tr></thead>");
  out.line("<tbody>");
  for (const StackRow& row : stack_rows(stack)) {
    std::string ids;
    for (const std::string& id : row.entry->findings)
      ids += (ids.empty() ? "" : ", ") + ("<code>" + html_text(id) + "</code>");
    out.line(fmt::format("<tr><td>{}{}</td><td class=\"path\">{}</td><td>{}</td><td>{}</td></tr>", html_text(row.part),
                         dll_count(*row.entry), html_text(stack_where(*row.entry)),
                         resolve::step_name(row.entry->found_by), ids));
  }
  out.line("</tbody>");
  out.line("</table>");
  for (const StackFramework& framework : stack.frameworks) {
    out.line("<p>" + html_text(framework_line(framework)) + "</p>");
    for (const std::string& mismatch : framework.mismatches)
      out.line("<p><b>mismatch:</b> " + html_text(mismatch) + "</p>");
  }
}

void append_tree(TextOut& out, const ClosureView& view, const Picture& picture) {
  out.line("<h2>Dependency tree</h2>");
  out.line("<div class=\"tree\" id=\"tree\">");
  HtmlTree tree(out, view, picture);
  for (const TreeNode& top : view.trees()) tree.write(top);
  out.line("</div>");
}

void append_modules(TextOut& out, const ClosureView& view, const Picture& picture) {
  const graph::Closure& closure = *view.input().closure;
  out.line("<h2>Modules</h2>");
  out.line(
      "<input class=\"filter\" data-target=\"modules\" type=\"search\" "
      "placeholder=\"filter: a DLL, a folder, a step, NOT FOUND\">");
  out.line("<table id=\"modules\">");
  out.line(
      "<thead><tr><th>DLL</th><th>version</th><th>path</th><th>found by</th><th>load</th><th>belongs "
      "to</th></tr></thead>");
  out.line("<tbody>");
  for (std::size_t i = 0; i < closure.modules.size(); ++i) {
    const ModuleShown& shown = view.modules()[i];
    const PictureNode& node = picture.nodes[i];
    std::string where = html_text(shown.where);
    if (!node.note.empty())
      where += (where.empty() ? "" : " ") + ("<span class=\"note\">" + html_text(node.note) + "</span>");
    out.line(fmt::format("<tr><td>{}</td><td>{}</td><td class=\"path\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                         node_span(node, closure.modules[i].name),
                         html_text(shown.version.empty() ? "-" : shown.version), where,
                         shown.found_by ? resolve::step_name(*shown.found_by) : "-", html_text(shown.load),
                         html_text(shown.owner.empty() ? "-" : shown.owner)));
  }
  out.line("</tbody>");
  out.line("</table>");
}

void append_notes(TextOut& out, const ReportInput& input) {
  const std::vector<std::string>* notes[] = {&input.environment->notes, &input.closure->notes};
  for (const auto* list : notes) {
    for (const std::string& note : *list) out.line("<p class=\"note\">note: " + html_text(note) + "</p>");
  }
}

}  // namespace

void write_closure_html(Sink& sink, const ClosureView& view, const WriteStyle&) {
  const ReportInput& input = view.input();
  const Picture picture = picture_of(view);
  TextOut out(sink);
  html_page_start(out, "dlldoctor: " + input.closure->outcome.request);
  for (const Part part : view.parts()) {
    switch (part) {
      case Part::Verdict:
        out.line("<h1>dlldoctor report</h1>");
        out.line(fmt::format("<p class=\"verdict tone-{}\" id=\"verdict\">{}</p>", tone_name(view.tone()),
                             html_text(view.verdict())));
        append_error_html(out, input.outcome_error, input.outcome_says);
        break;
      case Part::Stack: append_stack(out, view.stack()); break;
      case Part::Plan: append_plan_html(out, *input.plan); break;
      case Part::Legend: legend_html(out, view.placeholders()); break;
      case Part::Findings: append_findings(out, view); break;
      case Part::Python: append_python(out, input); break;
      case Part::Tree: append_tree(out, view, picture); break;
      case Part::Modules: append_modules(out, view, picture); break;
      case Part::Environment: append_notes(out, input); break;
      case Part::Footer:
        out.line("<p><small>dlldoctor " + html_text(input.tool_version) +
                 (input.rules ? ", rules: " + html_text(input.rules->origin.text()) : std::string()) + "</small></p>");
        break;
    }
  }
  html_page_end(out);
}

}  // namespace dlldoctor::report
