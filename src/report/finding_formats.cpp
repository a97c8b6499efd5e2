#include "report/finding_formats.hpp"

#include <fmt/format.h>

#include "report/html_page.hpp"
#include "report/markdown.hpp"
#include "report/plan_report.hpp"

namespace dlldoctor::report {

std::vector<std::optional<std::size_t>> same_fix_as(const std::vector<const rules::Finding*>& findings) {
  std::vector<std::optional<std::size_t>> same(findings.size());
  for (std::size_t i = 0; i < findings.size(); ++i) {
    for (std::size_t earlier = 0; earlier < i && !findings[i]->fix.empty(); ++earlier) {
      if (findings[earlier]->fix == findings[i]->fix) {
        same[i] = same[earlier].value_or(earlier);
        break;
      }
    }
  }
  return same;
}

std::vector<FixShown> fixes_shown(const std::vector<const rules::Finding*>& findings,
                                  const std::vector<std::vector<std::size_t>>& plan_steps) {
  const std::vector<std::optional<std::size_t>> same = same_fix_as(findings);
  std::vector<FixShown> fixes;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    FixShown fix;
    if (i < plan_steps.size() && !plan_steps[i].empty()) {
      fix = {FixShown::Kind::PlanSteps, plan_steps[i], 0};
    } else if (same[i]) {
      fix = {FixShown::Kind::SameAs, {}, *same[i]};
    } else if (!findings[i]->fix.empty()) {
      fix.kind = FixShown::Kind::Own;
    }
    fixes.push_back(std::move(fix));
  }
  return fixes;
}

void append_error_text(TextOut& out, const std::optional<rules::LoaderErrorText>& error,
                       const std::vector<std::string>& says) {
  if (!error && says.empty()) return;
  out.wrapped("  ", error_heading(error, !says.empty()), kTextWidth - 2, "    ");
  // Wrapped at words like the rest of the prose (a search box reads a line break as a space); a path in it
  // stays whole. Markdown and HTML keep each line as it appears.
  for (const std::string& line : says) out.wrapped("    ", line, kTextWidth - 4, "      ");
}

// In a code block: the text as it appears, searchable and never reflowed.
void append_error_markdown(TextOut& out, const std::optional<rules::LoaderErrorText>& error,
                           const std::vector<std::string>& says, const std::string& indent) {
  if (!error && says.empty()) return;
  out.line();
  out.line(indent + "*" + markdown_cell(error_heading(error, !says.empty())) + "*");
  out.line();
  if (says.empty()) return;
  out.line(indent + "```text");
  for (const std::string& line : says) out.line(indent + line);
  out.line(indent + "```");
  out.line();
}

// Each line as it appears (pre: never reflowed, so a search for the pasted text finds it).
void append_error_html(TextOut& out, const std::optional<rules::LoaderErrorText>& error,
                       const std::vector<std::string>& says) {
  if (!error && says.empty()) return;
  out.line("<p class=\"seen\">" + html_text(error_heading(error, !says.empty())) + "</p>");
  if (says.empty()) return;
  for (std::size_t i = 0; i < says.size(); ++i) out.line((i == 0 ? "<pre class=\"says\">" : "") + html_text(says[i]));
  out.line("</pre>");
}

namespace {

std::string found_in_text(const FindingsShown& shown, std::size_t i) {
  if (i >= shown.found_in.size() || shown.found_in[i].empty()) return {};
  std::string text;
  for (const std::string& process : shown.found_in[i]) text += (text.empty() ? "" : "; ") + process;
  return text;
}

}  // namespace

void append_findings_text(TextOut& out, const FindingsShown& shown, const rules::RuleData* rules,
                          const WriteStyle& style) {
  for (std::size_t i = 0; i < shown.findings.size(); ++i) {
    const rules::Finding& finding = *shown.findings[i];
    const rules::FailureMode* mode = rules ? rules->failure_mode(finding.failure_mode) : nullptr;
    const bool error = finding.severity == rules::Severity::Error;
    const std::string label = std::string(rules::severity_name(finding.severity));
    const std::string shown_label = style.color ? (error ? "\x1b[31m" : "\x1b[33m") + label + "\x1b[0m" : label;
    // A long id and title wrap like the message, so that the heading fits kTextWidth too.
    out.wrapped(
        "", fmt::format("{} [{}] {}{}", shown_label, finding.id, mode ? mode->id + ": " : std::string(), finding.title),
        kTextWidth, "  ");
    out.wrapped("  ", finding.message, kTextWidth - 2, "  ");
    const std::string in = found_in_text(shown, i);
    if (!in.empty()) out.wrapped("  in: ", in, kTextWidth - 6, "    ");
    append_error_text(out, finding.error, finding.says);
    const FixShown& fix = shown.fixes[i];
    switch (fix.kind) {
      case FixShown::Kind::PlanSteps: out.line("  fix: " + plan_steps_text(fix.steps) + " of the plan above"); break;
      case FixShown::Kind::SameAs:
        out.line(fmt::format("  fix: as for {} above", rules::finding_label(shown.findings[fix.same_as]->key())));
        break;
      case FixShown::Kind::Own:
        out.line("  fix:");
        for (const std::string& fix_line : finding.fix) out.fix(fix_line);
        break;
      case FixShown::Kind::None: break;
    }
    out.line();
  }
}

// The finding's page in docs/findings/ (tests/support/finding_pages.py writes one per id): what it means, the
// texts users see, how to fix it by hand.
std::string finding_page(const std::string& id) {
  return "https://github.com/dlldoctor/dlldoctor/blob/main/docs/findings/" + id + ".md";
}

void append_findings_markdown(TextOut& out, const FindingsShown& shown, const rules::RuleData* rules) {
  for (std::size_t i = 0; i < shown.findings.size(); ++i) {
    const rules::Finding& finding = *shown.findings[i];
    const rules::FailureMode* mode = rules ? rules->failure_mode(finding.failure_mode) : nullptr;
    out.line(fmt::format("- **{}** [`{}`]({}){}: {}", rules::severity_name(finding.severity), finding.id,
                         finding_page(finding.id),
                         " (" + (mode ? mode->id + ": " : std::string()) + finding.title + ")", finding.message));
    const std::string in = found_in_text(shown, i);
    if (!in.empty()) {
      out.line();
      out.line("  *In:* " + markdown_cell(in));
    }
    append_error_markdown(out, finding.error, finding.says, "  ");
    // Whoever reads the ticket gets the failure mode's explanation, not only its name.
    if (mode && !mode->explanation.empty()) {
      out.line();
      out.line("  *Why:* " + mode->explanation);
    }
    const FixShown& fix = shown.fixes[i];
    switch (fix.kind) {
      case FixShown::Kind::PlanSteps:
        out.line();
        out.line("  *Fix:* " + plan_steps_text(fix.steps) + " of the plan above.");
        out.line();
        break;
      case FixShown::Kind::SameAs:
        out.line();
        out.line("  *Fix:* as for " + rules::finding_label(shown.findings[fix.same_as]->key()) + " above.");
        out.line();
        break;
      case FixShown::Kind::Own:
        out.line();
        out.line("  ```powershell");
        for (const std::string& line : finding.fix) out.line("  " + line);
        out.line("  ```");
        out.line();
        break;
      case FixShown::Kind::None: break;
    }
  }
}

void append_findings_html(TextOut& out, const FindingsShown& shown, const rules::RuleData* rules) {
  for (std::size_t i = 0; i < shown.findings.size(); ++i) {
    const rules::Finding& finding = *shown.findings[i];
    const rules::FailureMode* mode = rules ? rules->failure_mode(finding.failure_mode) : nullptr;
    const std::string_view severity = rules::severity_name(finding.severity);
    out.line(fmt::format("<div class=\"finding\" id=\"finding-{}\">", i));
    out.line(
        fmt::format("<p><span class=\"severity severity-{}\">{}</span> <a href=\"{}\"><code>{}</code></a> {}{}</p>",
                    severity, severity, html_text(finding_page(finding.id)), html_text(finding.id),
                    html_text(mode ? mode->id + ": " : std::string()), html_text(finding.title)));
    out.line("<p>" + html_text(finding.message) + "</p>");
    const std::string in = found_in_text(shown, i);
    if (!in.empty()) out.line("<p class=\"why\">In: " + html_text(in) + "</p>");
    append_error_html(out, finding.error, finding.says);
    if (mode && !mode->explanation.empty()) out.line("<p class=\"why\">Why: " + html_text(mode->explanation) + "</p>");
    const FixShown& fix = shown.fixes[i];
    switch (fix.kind) {
      case FixShown::Kind::PlanSteps:
        out.line(fmt::format("<p>Fix: <a href=\"#plan-step-{}\">{}</a> of the plan above.</p>", fix.steps.front(),
                             plan_steps_text(fix.steps)));
        break;
      case FixShown::Kind::SameAs:
        out.line(fmt::format("<p>Fix: as for <a href=\"#finding-{}\"><code>{}</code></a> above.</p>", fix.same_as,
                             html_text(shown.findings[fix.same_as]->id)));
        break;
      case FixShown::Kind::Own: html_fix_list(out, finding.fix); break;
      case FixShown::Kind::None: break;
    }
    out.line("</div>");
  }
}

}  // namespace dlldoctor::report
