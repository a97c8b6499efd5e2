#include "report/legend.hpp"

#include "dlldoctor/rules/command_paths.hpp"
#include "report/html_page.hpp"
#include "report/markdown.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {
namespace {

constexpr const char* kHeading = "Placeholders in the commands (folders with no Windows path known here)";
constexpr const char* kHow =
    "Put each one's Windows path in its place before running a line (a PATH edit would keep the placeholder), "
    "or rerun with --map HOSTDIR=WINDOWSDIR.";

}  // namespace

std::vector<rules::Placeholder> report_placeholders(std::vector<rules::Placeholder> first,
                                                    const std::vector<rules::Finding>& findings) {
  for (const rules::Finding& finding : findings)
    first.insert(first.end(), finding.placeholders.begin(), finding.placeholders.end());
  return rules::first_uses(first);
}

void legend_text(TextOut& out, const std::vector<rules::Placeholder>& placeholders, bool blank_after) {
  if (placeholders.empty()) return;
  out.wrapped("", std::string(kHeading) + ":", kTextWidth, "  ");
  // A folder is never broken across lines (it is what the user looks for on the disk): a long one goes
  // on a line of its own.
  for (const rules::Placeholder& placeholder : placeholders)
    out.with_path("  " + placeholder.name + " is", placeholder.host, "", "    ");
  out.wrapped("  ", kHow, kTextWidth - 2, "  ");
  if (blank_after) out.line();
}

void legend_markdown(TextOut& out, const std::vector<rules::Placeholder>& placeholders) {
  if (placeholders.empty()) return;
  out.line(std::string("*") + kHeading + ":*");
  out.line();
  for (const rules::Placeholder& placeholder : placeholders)
    out.line("- " + markdown_code(placeholder.name) + " is " + markdown_code(placeholder.host));
  out.line();
  out.line(markdown_cell(kHow));
  out.line();
}

void legend_html(TextOut& out, const std::vector<rules::Placeholder>& placeholders) {
  if (placeholders.empty()) return;
  out.line("<div class=\"legend\" id=\"legend\">");
  out.line("<p>" + html_text(kHeading) + ":</p>");
  out.line("<ul>");
  for (const rules::Placeholder& placeholder : placeholders)
    out.line("<li><code>" + html_text(placeholder.name) + "</code> is <span class=\"path\">" +
             html_text(placeholder.host) + "</span></li>");
  out.line("</ul>");
  out.line("<p>" + html_text(kHow) + "</p>");
  out.line("</div>");
}

Json placeholders_json(const std::vector<rules::Placeholder>& placeholders) {
  Json out = Json::array();
  for (const rules::Placeholder& placeholder : placeholders)
    out.push_back({{"name", placeholder.name}, {"host", placeholder.host}});
  return out;
}

}  // namespace dlldoctor::report
