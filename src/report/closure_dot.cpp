// The closure report as a Graphviz graph (--format dot): `dot -Tsvg report.dot -o report.svg`.
#include <fmt/format.h>

#include "core/utf8.hpp"
#include "report/closure_formats.hpp"
#include "report/picture.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {
namespace {

// A DOT double-quoted string: a backslash would start an escape of Graphviz's own (\n, \l, \N), and a
// Windows path is full of them; a quote would end the string.
std::string dot_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

// Lines of a label, joined by Graphviz's centred line break. A newline inside a line (a name from a file)
// is a line's text, not a break: written \x0a as the other formats write it.
std::string label(const std::vector<std::string>& lines) {
  std::string joined;
  for (const std::string& line : lines) joined += (joined.empty() ? "" : "\n") + escape_bytes(line, Escape::Controls);
  std::string out;
  for (char c : dot_string(joined)) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return out;
}

const char* line_style(EdgeLook::Line line) {
  switch (line) {
    case EdgeLook::Line::Solid: return "solid";
    case EdgeLook::Line::Dashed: return "dashed";
    case EdgeLook::Line::Dotted: return "dotted";
    case EdgeLook::Line::Bold: return "bold";
  }
  return "solid";
}

}  // namespace

void write_closure_dot(Sink& sink, const ClosureView& view, const WriteStyle&) {
  const Picture picture = picture_of(view);
  // The verdict in its tone's colour, as the HTML page has it.
  const char* verdict_color = view.tone() == Tone::Fails || view.tone() == Tone::Broken ? "#b71c1c"
                              : view.tone() == Tone::Warnings                           ? "#e65100"
                                                                                        : "#1b5e20";
  TextOut out(sink);
  out.line(fmt::format("// dlldoctor {}: dot -Tsvg this.dot -o this.svg", view.input().tool_version));
  out.line("digraph dlldoctor {");
  // The verdict names files: wrapped at spaces only, like the text report's.
  out.line(fmt::format("  graph [rankdir=LR, labelloc=t, fontname=\"Helvetica\", fontsize=12, fontcolor={}, label={}];",
                       dot_string(verdict_color), label(wrap_lines(view.verdict(), 100, "", view.unbreakable()))));
  out.line("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];");
  out.line("  edge [fontname=\"Helvetica\", fontsize=9];");
  for (std::size_t i = 0; i < picture.nodes.size(); ++i) {
    const PictureNode& node = picture.nodes[i];
    const NodeLook look = look_of(node);
    out.line(fmt::format("  n{} [label={}, fillcolor={}, color={}, fontcolor={}{}{}];", i, label(label_lines(node)),
                         dot_string(look.fill), dot_string(look.border), dot_string(look.text),
                         look.dashed ? ", style=\"rounded,filled,dashed\"" : "", look.thick ? ", penwidth=2" : ""));
  }
  for (const PictureEdge& edge : picture.edges) {
    const EdgeLook look = look_of(edge);
    out.line(fmt::format("  n{} -> n{} [color={}, style={}{}{}];", edge.from, edge.to, dot_string(look.color),
                         line_style(look.line), look.labelled ? ", label=" + dot_string(edge.label) : std::string(),
                         // A copy that lost loads nothing.
                         edge.kind == PictureEdge::Kind::Shadows ? ", arrowhead=none" : ""));
  }
  // A copy that lost stands beside its winner (one rank: above or below it, the graph running left to right).
  for (const PictureEdge& edge : picture.edges) {
    if (edge.kind == PictureEdge::Kind::Shadows)
      out.line(fmt::format("  {{ rank=same; n{}; n{}; }}", edge.to, edge.from));
  }
  out.line("}");
}

}  // namespace dlldoctor::report
