// The picture a Markdown report carries: a Mermaid flowchart, which GitHub and GitLab draw where the
// report is pasted.
#include <fmt/format.h>

#include "report/closure_formats.hpp"
#include "report/picture.hpp"

namespace dlldoctor::report {
namespace {

// A ticket shows this many modules at most; the modules table below has every one.
constexpr std::size_t kMermaidNodes = 40;

// Text inside a quoted Mermaid label. Labels are HTML, and Mermaid reads #name; as an entity: so quotes,
// angle brackets, ampersands and '#' are written as entities, and a backtick too (a label starting with
// one is Markdown, and three would end the fence around the block).
std::string mermaid_text(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '"': out += "#quot;"; break;
      case '<': out += "#lt;"; break;
      case '>': out += "#gt;"; break;
      case '&': out += "#amp;"; break;
      case '#': out += "#35;"; break;
      case '`': out += "#96;"; break;
      case '|': out += "#124;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string arrow(const PictureEdge& edge) {
  const EdgeLook look = look_of(edge);
  const std::string text = look.labelled ? "|\"" + mermaid_text(edge.label) + "\"|" : "";
  if (edge.kind == PictureEdge::Kind::Shadows) return "-.-" + text;
  switch (look.line) {
    case EdgeLook::Line::Solid: return "-->" + text;
    case EdgeLook::Line::Bold: return "==>" + text;
    case EdgeLook::Line::Dashed:
    case EdgeLook::Line::Dotted: return "-.->" + text;
  }
  return "-->" + text;
}

}  // namespace

void mermaid_block(TextOut& out, const ClosureView& view) {
  const Picture picture = what_matters(view, picture_of(view), kMermaidNodes);
  if (picture.nodes.empty()) return;
  out.line();
  out.line("### What loads what");
  out.line();
  out.line("```mermaid");
  out.line("flowchart LR");
  for (std::size_t i = 0; i < picture.nodes.size(); ++i) {
    std::string label;
    for (const std::string& line : label_lines(picture.nodes[i]))
      label += (label.empty() ? "" : "<br/>") + mermaid_text(line);
    out.line(fmt::format("  n{}[\"{}\"]", i, label));
  }
  for (const PictureEdge& edge : picture.edges) out.line(fmt::format("  n{} {} n{}", edge.from, arrow(edge), edge.to));
  for (std::size_t i = 0; i < picture.nodes.size(); ++i) {
    const NodeLook look = look_of(picture.nodes[i]);
    out.line(fmt::format("  style n{} fill:{},stroke:{},color:{}{}{}", i, look.fill, look.border, look.text,
                         look.thick ? ",stroke-width:2px" : "", look.dashed ? ",stroke-dasharray:4 3" : ""));
  }
  out.line("```");
  if (picture.left_out > 0) {
    out.line();
    out.line(fmt::format("{} more modules that matter are left out of the picture; the table below lists them.",
                         picture.left_out));
  }
}

}  // namespace dlldoctor::report
