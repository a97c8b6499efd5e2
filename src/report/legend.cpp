#include "dlldoctor/report/legend.hpp"

#include "dlldoctor/core/utf8.hpp"
#include "dlldoctor/report/html_page.hpp"
#include "dlldoctor/report/markdown.hpp"
#include "dlldoctor/report/text_layout.hpp"
#include "dlldoctor/rules/command_paths.hpp"

namespace dlldoctor::report {
namespace {

constexpr const char* kHeading = "Placeholders in the commands (folders with no Windows path known here)";
constexpr const char* kHow =
    "Put each one's Windows path in its place before running a line (a PATH edit would keep the placeholder), "
    "or rerun with --map HOSTDIR=WINDOWSDIR.";

std::string shown(const std::string& text) { return escape_bytes(text, Escape::Controls); }

}  // namespace

std::vector<rules::Placeholder> report_placeholders(std::vector<rules::Placeholder> first,
                                                    const std::vector<rules::Finding>& findings) {
  for (const rules::Finding& finding : findings)
    first.insert(first.end(), finding.placeholders.begin(), finding.placeholders.end());
  return rules::first_uses(first);
}

std::string legend_text(const std::vector<rules::Placeholder>& placeholders) {
  if (placeholders.empty()) return "";
  std::string out = wrap(std::string(kHeading) + ":", kTextWidth, "  ") + "\n";
  // A folder is never broken across lines (it is what the user looks for on the disk): a long one goes
  // on a line of its own.
  for (const rules::Placeholder& placeholder : placeholders)
    out += line_with_path("  " + shown(placeholder.name) + " is", shown(placeholder.host), "", "    ");
  return out + "  " + wrap(kHow, kTextWidth - 2, "  ") + "\n\n";
}

std::string legend_markdown(const std::vector<rules::Placeholder>& placeholders) {
  if (placeholders.empty()) return "";
  std::string out = std::string("*") + kHeading + ":*\n\n";
  for (const rules::Placeholder& placeholder : placeholders)
    out += "- " + markdown_code(shown(placeholder.name)) + " is " + markdown_code(shown(placeholder.host)) + "\n";
  return out + "\n" + markdown_cell(kHow) + "\n\n";
}

std::string legend_html(const std::vector<rules::Placeholder>& placeholders) {
  if (placeholders.empty()) return "";
  std::string out = "<div class=\"legend\" id=\"legend\">\n<p>" + html_text(kHeading) + ":</p>\n<ul>\n";
  for (const rules::Placeholder& placeholder : placeholders)
    out += "<li><code>" + html_text(shown(placeholder.name)) + "</code> is <span class=\"path\">" +
           html_text(shown(placeholder.host)) + "</span></li>\n";
  return out + "</ul>\n<p>" + html_text(kHow) + "</p>\n</div>\n";
}

Json placeholders_json(const std::vector<rules::Placeholder>& placeholders) {
  Json out = Json::array();
  for (const rules::Placeholder& placeholder : placeholders)
    out.push_back({{"name", placeholder.name}, {"host", placeholder.host}});
  return out;
}

}  // namespace dlldoctor::report
