// The closure report for a terminal (--format text, the default): the verdict first, the stack, the plan,
// the findings with their fixes, the Python section, then the tree of what loads what; 80 columns.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/closure_formats.hpp"
#include "report/finding_formats.hpp"
#include "report/legend.hpp"
#include "report/plan_report.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {
namespace {

using graph::Module;
using resolve::Failure;

class TreeWriter {
 public:
  TreeWriter(TextOut& out, const graph::Closure& closure, const std::vector<ModuleShown>& shown,
             const WriteStyle& style)
      : out_(out), closure_(closure), shown_(shown), style_(style) {}

  // One top-level tree, laid out by the view (a `├─` then always has a sibling below it).
  void write(const TreeNode& tree) { draw(tree, "", true, true); }

 private:
  // A text tree lists this many missing exports of a module; JSON lists them all.
  static constexpr std::size_t kMissingExportsShown = 5;

  void draw(const TreeNode& node, const std::string& prefix, bool last, bool top) {
    const Module& module = closure_.modules[node.module];
    const std::string branch = top ? "" : (last ? "└─ " : "├─ ");
    const std::string child_prefix = top ? "" : prefix + (last ? "   " : "│  ");
    const std::string detail_prefix = child_prefix + (node.children.empty() ? "   " : "│  ");
    const Line line = describe(module, shown_[node.module]);
    // A module drawn before is named again without its path.
    out_.with_path(prefix + branch + line.head, node.repeat ? std::string() : line.path,
                   line.tail + (node.repeat ? " (see above)" : ""), detail_prefix + "  ");
    if (node.repeat) return;
    for (const auto& c : module.resolution.candidates) {
      // A program that cannot be mapped is its own only candidate, and its line above says why already.
      if (c.verdict == resolve::Verdict::Chosen || module.is_root) continue;
      const std::string tail =
          fmt::format("{}{} [{}]", c.file_version ? " " + c.file_version->to_string() : std::string(),
                      c.verdict == resolve::Verdict::WrongMachine
                          ? fmt::format(" ({}: wrong machine)", c.machine ? pe::machine_name(*c.machine) : "?")
                          : (c.verdict == resolve::Verdict::NotLoadable ? " (" + c.problem + ")" : std::string()),
                      resolve::step_name(c.step));
      out_.with_path(detail_prefix + "  " + (c.verdict == resolve::Verdict::Shadowed ? "shadows" : "skipped"),
                     c.windows_path ? *c.windows_path : c.path, tail, detail_prefix + "    ");
    }
    const auto& missing = module.missing_exports;
    for (std::size_t i = 0; i < missing.size() && i < kMissingExportsShown; ++i) {
      out_.line(fmt::format("{}  {} missing export {} (needed by {}): {}", detail_prefix, paint("✗", true),
                            missing[i].function, missing[i].needed_by, missing[i].detail));
    }
    if (missing.size() > kMissingExportsShown) {
      out_.line(fmt::format("{}  {} and {} more missing exports, {} in all (--format json lists every one)",
                            detail_prefix, paint("✗", true), missing.size() - kMissingExportsShown, missing.size()));
    }
    // What its code may load by a name in its data (no rule says it does): where it would come from.
    for (const graph::MayLoad& hint : module.may_load) {
      const auto& h = hint.resolution;
      if (h.failure == Failure::NotFound) {
        out_.line(fmt::format("{}  may load {}: not found", detail_prefix, hint.dll));
        continue;
      }
      const std::string tail = fmt::format(
          "{} [{}]{}", h.image && h.image->file_version ? " " + h.image->file_version->to_string() : std::string(),
          resolve::step_name(h.found_by), h.failure == Failure::BadImage ? " (cannot be loaded)" : "");
      out_.with_path(detail_prefix + "  may load " + hint.dll, h.windows_path ? *h.windows_path : h.path.value_or(""),
                     tail, detail_prefix + "    ");
    }
    if (!module.other_major.empty()) {
      out_.wrapped("",
                   fmt::format("{}  names for another major, not loaded here: {}", detail_prefix,
                               fmt::join(module.other_major, ", ")),
                   kTextWidth, detail_prefix + "    ");
    }
    for (std::size_t i = 0; i < node.children.size(); ++i) {
      draw(node.children[i], child_prefix, i + 1 == node.children.size(), false);
    }
  }

  std::string paint(const std::string& text, bool bad) const {
    if (!style_.color) return text;
    return (bad ? "\x1b[31m" : "\x1b[32m") + text + "\x1b[0m";
  }

  // A tree line: "head path tail" (with_path keeps it within kTextWidth).
  struct Line {
    std::string head, path, tail;
  };

  Line describe(const Module& module, const ModuleShown& shown) const {
    const std::string kind = shown.load == "program" || module.load == graph::LoadKind::Static
                                 ? std::string()
                                 : fmt::format(" ({})", shown.load);
    std::string step = shown.found_by ? fmt::format(" [{}]{}", resolve::step_name(*shown.found_by), kind) : kind;
    // Who installed the copy; System32's own files go without saying.
    if (!shown.owner.empty() && shown.owner_kind != "windows") step += " from " + shown.owner;
    switch (shown.state) {
      case ModuleShown::State::ApiSet:
        return {fmt::format("{} -> {}{}", module.name, *module.resolution.api_set_host, step), "", ""};
      case ModuleShown::State::ApiSetUnknown:
        return {fmt::format("{} -> host unknown, assumed present{}", module.name, step), "", ""};
      case ModuleShown::State::NotFound: return {paint(module.name + " NOT FOUND", true) + kind, "", ""};
      case ModuleShown::State::CannotLoad: return {paint(module.name + " CANNOT LOAD", true), shown.where, step};
      case ModuleShown::State::Assumed:
        return {module.name + (shown.version.empty() ? "" : " " + shown.version), shown.where + " (assumed)", step};
      case ModuleShown::State::Loads: break;
    }
    return {module.name + (shown.version.empty() ? "" : " " + shown.version), shown.where, step};
  }

  TextOut& out_;
  const graph::Closure& closure_;
  const std::vector<ModuleShown>& shown_;
  const WriteStyle& style_;
};

std::string ids_text(const std::vector<std::string>& ids) {
  std::string text;
  for (const std::string& id : ids) text += (text.empty() ? "" : ", ") + ("[" + id + "]");
  return text;
}

// A few lines between the verdict and the findings.
void write_stack(TextOut& out, const Stack& stack) {
  out.line("Stack:");
  for (const StackRow& row : stack_rows(stack)) {
    const StackEntry& entry = *row.entry;
    out.with_path("  " + row.part + dll_count(entry), stack_where(entry),
                  fmt::format(" [{}]", resolve::step_name(entry.found_by)), "      ");
    if (!entry.findings.empty())
      out.wrapped("    ", "see " + ids_text(entry.findings) + " below", kTextWidth - 4, "    ");
  }
  for (const StackFramework& framework : stack.frameworks) {
    out.wrapped("  ", framework_line(framework), kTextWidth - 2, "      ");
    for (const std::string& mismatch : framework.mismatches)
      out.wrapped("    ", "mismatch: " + mismatch, kTextWidth - 4, "      ");
  }
  out.line();
}

void write_verdict(TextOut& out, const ClosureView& view, const WriteStyle& style) {
  const bool bad = view.tone() == Tone::Fails || view.tone() == Tone::Broken;
  // A verdict names files ("C:\\Program Files\\...\\x.dll is ..."): a path is never broken across lines.
  std::vector<std::string> lines = wrap_lines(view.verdict(), kTextWidth, "  ", view.unbreakable());
  if (style.color) {
    lines.front() = (bad ? "\x1b[1;31m" : "\x1b[1;32m") + lines.front();
    lines.back() += "\x1b[0m";
  }
  for (const std::string& line : lines) out.line(line);
  append_error_text(out, view.input().outcome_error, view.input().outcome_says);
  out.line();
}

void write_findings(TextOut& out, const ClosureView& view, const WriteStyle& style) {
  append_findings_text(out, view.findings_shown(), view.input().rules, style);
}

// Before the trees of the recipes' loads.
void write_python(TextOut& out, const ReportInput& input) {
  for (const PythonLine& line : python_lines(*input.expansion, input.environment)) {
    if (line.nested) {
      out.wrapped("  ", line.text, kTextWidth - 2, "    ");
    } else {
      out.wrapped("", line.text, kTextWidth, "  ");
    }
  }
  out.line();
}

// Modules no start-up import reaches (preloaded and LoadLibrary'd ones) have trees of their own. The loads
// asked about come first, and the host's own start-up after them: it is context.
void write_trees(TextOut& out, const ClosureView& view, const WriteStyle& style) {
  TreeWriter tree(out, *view.input().closure, view.modules(), style);
  bool first = true;
  for (const TreeNode& top : view.trees()) {
    if (!first) out.line();
    first = false;
    tree.write(top);
  }
}

void write_notes(TextOut& out, const ReportInput& input) {
  const std::vector<std::string>* notes[] = {&input.environment->notes, &input.closure->notes};
  if (notes[0]->empty() && notes[1]->empty()) return;
  out.line();
  for (const auto* list : notes) {
    for (const std::string& note : *list) out.wrapped("", "note: " + note, kTextWidth, "  ");
  }
}

void write_rules_line(TextOut& out, const ReportInput& input) {
  if (!input.rules) return;
  // A long folder goes on a line of its own, whole, as the scan report puts its paths.
  const rules::RulesOrigin& origin = input.rules->origin;
  const std::string line = "rules: " + origin.text();
  if (columns(line) <= kTextWidth || !origin.folder) return out.line(line);
  out.line("rules: " + origin.summary() + ":");
  out.line("    " + *origin.folder);
}

}  // namespace

void write_closure_text(Sink& sink, const ClosureView& view, const WriteStyle& style) {
  TextOut out(sink, colours_of(style));
  for (const Part part : view.parts()) {
    switch (part) {
      case Part::Verdict: write_verdict(out, view, style); break;
      case Part::Stack: write_stack(out, view.stack()); break;
      case Part::Plan: append_plan_text(out, *view.input().plan); break;
      case Part::Legend: legend_text(out, view.placeholders()); break;
      case Part::Findings: write_findings(out, view, style); break;
      case Part::Python: write_python(out, view.input()); break;
      case Part::Tree: write_trees(out, view, style); break;
      case Part::Modules: break;  // the tree names every module
      case Part::Environment: write_notes(out, view.input()); break;
      case Part::Footer: write_rules_line(out, view.input()); break;
    }
  }
}

}  // namespace dlldoctor::report
