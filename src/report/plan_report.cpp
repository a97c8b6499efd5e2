#include "report/plan_report.hpp"

#include <fmt/format.h>

#include "core/utf8.hpp"
#include "plan/commands.hpp"
#include "report/html_page.hpp"
#include "report/legend.hpp"
#include "report/markdown.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {

namespace {

Json step_json(const plan::Step& step, bool checked, const rules::CommandPaths& paths) {
  Json out = {{"kind", step.change.kind}};
  for (const auto& [field, values] : step.change.fields) {
    // Lists are lists (files, DLL names, PATH entries); the other fields are one value.
    const bool list = field == "path" || field == "from" || field == "names" || field == "entry";
    out[field] = list ? Json(values) : Json(values.empty() ? std::string() : values.front());
  }
  if (checked) {
    Json host = Json::object();
    for (const auto& [field, values] : step.host) host[field] = values;
    out["host"] = std::move(host);
  }
  Json mends = Json::array();
  for (const rules::FindingKey& mended : step.mends) mends.push_back(rules::finding_label(mended));
  out["mends"] = std::move(mends);
  out["summary"] = plan::step_summary(step);
  out["commands"] = plan::step_commands(step, paths);
  return out;
}

// The line before the steps: what dlldoctor predicts after them, and never "verified" when it is not.
std::string headline(const plan::Plan& plan) {
  const std::size_t n = plan.steps.size();
  if (plan.verified)
    return fmt::format("verified: after {} step{} below dlldoctor predicts HEALTHY", n, n == 1 ? "" : "s");
  if (n == 0) return "no step dlldoctor can check mends these findings; see each finding's fix";
  return fmt::format("not verified: after {} step{} below dlldoctor still predicts {} ({} finding{} remain{})", n,
                     n == 1 ? "" : "s", plan.predicted, plan.remaining.size(), plan.remaining.size() == 1 ? "" : "s",
                     plan.remaining.size() == 1 ? "s" : "");
}

}  // namespace

std::vector<rules::Placeholder> plan_placeholders(const plan::Plan& plan) {
  std::vector<rules::Placeholder> used;
  for (const plan::Step& step : plan.steps) plan::step_commands(step, plan.paths, &used);
  return rules::first_uses(used);
}

std::string plan_steps_text(const std::vector<std::size_t>& steps) {
  std::string out = steps.size() == 1 ? "step " : "steps ";
  for (std::size_t i = 0; i < steps.size(); ++i)
    out += (i == 0 ? "" : i + 1 == steps.size() ? " and " : ", ") + std::to_string(steps[i]);
  return out;
}

Json plan_to_json(const plan::Plan& plan) {
  Json steps = Json::array();
  for (const plan::Step& step : plan.steps) steps.push_back(step_json(step, true, plan.paths));
  Json by_hand = Json::array();
  for (const plan::Step& step : plan.by_hand) by_hand.push_back(step_json(step, false, plan.paths));
  Json remaining = Json::array();
  for (const rules::Finding& finding : plan.remaining)
    remaining.push_back({{"id", finding.id}, {"module", finding.module}, {"message", finding.message}});
  return Json{{"verified", plan.verified},     {"predicted", plan.predicted},
              {"headline", headline(plan)},    {"steps", std::move(steps)},
              {"by_hand", std::move(by_hand)}, {"remaining", std::move(remaining)},
              {"trials", plan.trials},         {"placeholders", placeholders_json(plan_placeholders(plan))}};
}

void append_plan_text(TextOut& out, const plan::Plan& plan) {
  out.wrapped("Plan: ", headline(plan), kTextWidth - 6, "  ");
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const plan::Step& step = plan.steps[i];
    out.wrapped("  ", fmt::format("{}. {}", i + 1, plan::step_summary(step)), kTextWidth - 2, "     ");
    for (const std::string& command : plan::step_commands(step, plan.paths)) out.fix(command);
  }
  for (const plan::Step& step : plan.by_hand)
    out.wrapped("  ", "by hand: " + plan::step_summary(step), kTextWidth - 2, "     ");
  if (!plan.verified && !plan.remaining.empty()) {
    std::string left;
    for (const rules::Finding& finding : plan.remaining)
      left += (left.empty() ? "" : ", ") + rules::finding_label(finding.key());
    out.wrapped("  ", "still predicted after them: " + left, kTextWidth - 2, "    ");
  }
  out.line();
}

void append_plan_markdown(TextOut& out, const plan::Plan& plan) {
  out.line("### Plan");
  out.line();
  out.line("*" + headline(plan) + "*");
  out.line();
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const plan::Step& step = plan.steps[i];
    out.line(fmt::format("{}. {}", i + 1, markdown_cell(plan::step_summary(step))));
    out.line();
    out.line("   ```powershell");
    for (const std::string& command : plan::step_commands(step, plan.paths)) out.line("   " + command);
    out.line("   ```");
    out.line();
  }
  for (const plan::Step& step : plan.by_hand) out.line("- by hand: " + markdown_cell(plan::step_summary(step)));
  if (!plan.verified && !plan.remaining.empty()) {
    std::string left = "Still predicted after them:";
    for (const rules::Finding& finding : plan.remaining) left += " `" + rules::finding_label(finding.key()) + "`";
    out.line();
    out.line(left);
  }
  out.line();
}

void append_plan_html(TextOut& out, const plan::Plan& plan) {
  out.line("<h2>Plan</h2>");
  out.line("<p class=\"plan-headline\">" + html_text(headline(plan)) + "</p>");
  out.line("<ol class=\"plan\" id=\"plan\">");
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const plan::Step& step = plan.steps[i];
    out.line(fmt::format("<li id=\"plan-step-{}\"><p>{}</p>", i + 1, html_text(plan::step_summary(step))));
    html_fix_list(out, plan::step_commands(step, plan.paths));
    out.line("</li>");
  }
  out.line("</ol>");
  for (const plan::Step& step : plan.by_hand) out.line("<p>by hand: " + html_text(plan::step_summary(step)) + "</p>");
  if (!plan.verified && !plan.remaining.empty()) {
    std::string left = "<p>Still predicted after them:";
    for (const rules::Finding& finding : plan.remaining)
      left += " <code>" + html_text(rules::finding_label(finding.key())) + "</code>";
    out.line(left + "</p>");
  }
}

}  // namespace dlldoctor::report
