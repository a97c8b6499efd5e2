// The closure report's writers (report::closure_writers) on runs of session::explain in memory: each writes a
// report, JSON that parses, the parts in the view's order, and no raw byte of a hostile name.
#include "dlldoctor/report/writers.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/report/closure_report.hpp"
#include "dlldoctor/report/closure_view.hpp"
#include "dlldoctor/session/explain.hpp"
#include "support/memory_world.hpp"

using namespace dlldoctor;
using report::Part;
using test::root_path;

namespace {

const report::Stamp kStamp{"unit-test", "2000-01-01T00:00:00Z"};

session::ExplainRun explain_ok(session::Machine& machine, const session::ExplainRequest& request) {
  auto run = session::explain(machine, request);
  REQUIRE_MESSAGE(run, (run ? std::string() : run.error().message));
  return std::move(run).value();
}

// Every closure format's report of `view`, by format name.
std::map<std::string, std::string> write_all(const report::ClosureView& view, bool color = false) {
  std::map<std::string, std::string> reports;
  for (const auto& writer : report::closure_writers()) {
    report::StringSink sink;
    writer.write(sink, view, report::WriteStyle{color});
    reports[std::string(writer.name)] = sink.text();
  }
  return reports;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::size_t count_of(const std::string& text, const std::string& piece) {
  std::size_t count = 0;
  for (std::size_t at = text.find(piece); at != std::string::npos; at = text.find(piece, at + piece.size())) ++count;
  return count;
}

// torch imported into a plain CPython whose torch\lib holds the cuDNN 9 dispatcher without its siblings:
// a run that has every part of a report (stack, plan, placeholders, findings, the Python section, notes).
// The run points into its machine, which therefore stays where it was made.
struct BrokenTorch {
  std::unique_ptr<session::Machine> machine;
  session::ExplainRun run;
};
BrokenTorch broken_torch() {
  test::MemoryWorld world;
  const std::string python = world.add_python_with_torch();
  world.add_cudnn9(test::kTorchLib, test::kCudnn91, {});
  auto machine = std::make_unique<session::Machine>(std::move(world).into_machine());
  session::ExplainRequest request;
  request.program = python;
  request.imports = {"torch"};
  // A folder that does not exist: the environment's note, so that the report's notes are not empty.
  request.add_dll_dirs = {root_path("nowhere")};
  session::ExplainRun run = explain_ok(*machine, request);
  return {std::move(machine), std::move(run)};
}

// Where each part of a report for people starts: the first line that starts so. Parts that a format shows
// by no line of its own are left out (the text report's Modules: its tree names every module).
using Markers = std::map<Part, std::string>;

// Checks that the markers of `parts` start lines of `report` in that order.
void check_order(const std::string& format, const std::string& report, const std::vector<Part>& parts,
                 const Markers& markers) {
  CAPTURE(format);
  const std::vector<std::string> lines = lines_of(report);
  std::size_t previous = 0;
  bool first = true;
  for (const Part part : parts) {
    const auto marker = markers.find(part);
    if (marker == markers.end()) continue;
    CAPTURE(marker->second);
    const auto found = std::find_if(lines.begin(), lines.end(),
                                    [&](const std::string& line) { return line.rfind(marker->second, 0) == 0; });
    REQUIRE_MESSAGE(found != lines.end(), "no line starts with the marker");
    const auto at = static_cast<std::size_t>(found - lines.begin());
    CHECK((first || at > previous));
    previous = at;
    first = false;
  }
}

}  // namespace

TEST_CASE("writers: every closure writer writes its report of a broken run; JSON parses and says the same") {
  BrokenTorch broken = broken_torch();
  const session::ExplainRun& run = broken.run;
  REQUIRE(run.verdict.tone == session::Tone::Broken);
  REQUIRE(run.plan);
  const report::ClosureView view(run, kStamp);
  CHECK(report::writer_names(report::closure_writers()) ==
        std::vector<std::string>{"text", "json", "markdown", "dot", "html"});
  const auto reports = write_all(view);
  for (const auto& [format, text] : reports) {
    CAPTURE(format);
    CHECK(text.size() > 100);
    CHECK(text.back() == '\n');
  }

  const auto json = nlohmann::json::parse(reports.at("json"));
  CHECK(json.at("schema") == report::kReportSchema);
  CHECK(json.at("tool_version") == kStamp.tool_version);
  CHECK(json.at("generated_at") == kStamp.generated_at);
  CHECK(json.at("verdict").at("tone") == "broken");
  CHECK(json.at("verdict").at("text") == run.verdict.text);
  CHECK(json.at("modules").size() == run.closure().modules.size());
  REQUIRE(json.at("findings").size() == run.findings().size());
  for (std::size_t i = 0; i < run.findings().size(); ++i) {
    CAPTURE(i);
    CHECK(json.at("findings")[i].at("id") == run.findings()[i].id);
    CHECK(json.at("findings")[i].at("plan_steps").get<std::vector<std::size_t>>() == run.plan_steps[i]);
  }
  CHECK(json.at("plan").at("verified") == run.plan->verified);
  CHECK(json.at("plan").at("steps").size() == run.plan->steps.size());
  CHECK(json.at("stack").at("frameworks")[0].at("recipe") == "torch");
  CHECK(json.at("request").at("loads").size() == run.request.loads.size());

  // The text report leads with the verdict, whole words of it on its first line.
  const std::string first_line = lines_of(reports.at("text")).front();
  CHECK(first_line.rfind("BROKEN: ", 0) == 0);
  CHECK(run.verdict.text.rfind(first_line, 0) == 0);
  CHECK(reports.at("markdown").find("**" + run.verdict.text + "**") != std::string::npos);
  CHECK(reports.at("html").find("class=\"verdict tone-broken\"") != std::string::npos);
  CHECK(reports.at("dot").find("\ndigraph dlldoctor {\n") != std::string::npos);
}

TEST_CASE("writers: the text, Markdown and HTML reports show the parts in the order ClosureView::parts gives") {
  BrokenTorch broken = broken_torch();
  const report::ClosureView view(broken.run, kStamp);
  // This run has something for every part: none is left out, but for the legend on Windows, where the
  // commands name this machine's own paths and need no placeholder.
  std::vector<Part> every_part{Part::Verdict, Part::Stack, Part::Plan,    Part::Legend,      Part::Findings,
                               Part::Python,  Part::Tree,  Part::Modules, Part::Environment, Part::Footer};
#ifdef _WIN32
  every_part.erase(std::find(every_part.begin(), every_part.end(), Part::Legend));
#endif
  REQUIRE(view.parts() == every_part);
  const auto reports = write_all(view);
  const rules::Finding& first_finding = broken.run.findings().front();
  const std::string placeholders = "Placeholders in the commands";
  REQUIRE(!view.trees().empty());
  const std::string first_tree = broken.run.closure().modules[view.trees().front().module].name;

  check_order("text", reports.at("text"), view.parts(),
              {{Part::Verdict, "BROKEN: "},
               {Part::Stack, "Stack:"},
               {Part::Plan, "Plan: "},
               {Part::Legend, placeholders},
               {Part::Findings, std::string(rules::severity_name(first_finding.severity)) + " [" + first_finding.id},
               {Part::Python, "Python: "},
               {Part::Tree, first_tree},
               {Part::Environment, "note: "},
               {Part::Footer, "rules: "}});
  check_order("markdown", reports.at("markdown"), view.parts(),
              {{Part::Verdict, "## dlldoctor report"},
               {Part::Stack, "### Stack"},
               {Part::Plan, "### Plan"},
               {Part::Legend, "*" + placeholders},
               {Part::Findings, "### Findings"},
               {Part::Python, "### Python"},
               {Part::Tree, "```mermaid"},
               {Part::Modules, "### Modules"},
               {Part::Environment, "<details><summary>Environment"},
               {Part::Footer, "<sub>dlldoctor"}});
  check_order("html", reports.at("html"), view.parts(),
              {{Part::Verdict, "<h1>dlldoctor report</h1>"},
               {Part::Stack, "<h2>Stack</h2>"},
               {Part::Plan, "<h2>Plan</h2>"},
               {Part::Legend, "<div class=\"legend\""},
               {Part::Findings, "<h2>Findings</h2>"},
               {Part::Python, "<h2>Python</h2>"},
               {Part::Tree, "<h2>Dependency tree</h2>"},
               {Part::Modules, "<h2>Modules</h2>"},
               {Part::Environment, "<p class=\"note\">"},
               {Part::Footer, "<p><small>dlldoctor"}});
}

TEST_CASE("writers: a healthy run's reports have no plan, no findings and no stack left empty") {
  test::MemoryWorld world;
  const std::string app = world.add_program("app/app.exe", {{"lib.dll", {"F"}}});
  world.add_dll("app/lib.dll", {"F"});
  session::Machine machine = std::move(world).into_machine();
  session::ExplainRequest request;
  request.program = app;
  const session::ExplainRun run = explain_ok(machine, request);
  REQUIRE(run.verdict.tone == session::Tone::Healthy);
  const report::ClosureView view(run, kStamp);
  CHECK(view.parts() == std::vector<Part>{Part::Verdict, Part::Tree, Part::Modules, Part::Environment, Part::Footer});
  const auto reports = write_all(view);
  const auto json = nlohmann::json::parse(reports.at("json"));
  CHECK(json.at("plan").is_null());
  CHECK(json.at("findings").empty());
  CHECK(json.at("verdict").at("tone") == "healthy");
  const std::vector<std::string> text = lines_of(reports.at("text"));
  CHECK(text.front() == run.verdict.text.substr(0, text.front().size()));
  CHECK(std::none_of(text.begin(), text.end(), [](const std::string& line) {
    return line.rfind("Plan: ", 0) == 0 || line.rfind("Stack:", 0) == 0;
  }));
  CHECK(reports.at("markdown").find("### Findings") == std::string::npos);
  CHECK(reports.at("html").find("<h2>Plan</h2>") == std::string::npos);
}

TEST_CASE("writers: a DLL name holding a newline and a terminal escape never reaches a report raw") {
  const std::string hostile = "evil\n\x1b[2J.dll";
  test::MemoryWorld world;
  const std::string app = world.add_program("app/app.exe", {{hostile, {"F"}}});
  session::Machine machine = std::move(world).into_machine();
  session::ExplainRequest request;
  request.program = app;
  const session::ExplainRun run = explain_ok(machine, request);
  REQUIRE(run.verdict.tone == session::Tone::Fails);
  REQUIRE(run.closure().outcome.missing.size() == 1);
  REQUIRE(run.closure().outcome.missing.front().dll == hostile);
  const report::ClosureView view(run, kStamp);

  for (const bool color : {false, true}) {
    CAPTURE(color);
    const auto reports = write_all(view, color);
    for (const std::string format : {"text", "markdown", "html"}) {
      CAPTURE(format);
      const std::string& text = reports.at(format);
      // The name's bytes as \xNN (TextOut): its newline ends no line and its escape moves no cursor.
      const std::string lower = ascii_lower(text);
      CHECK(count_of(lower, "[2j.dll") > 0);
      // A fix command names it as a PowerShell literal instead, its control characters as [char] codes (in
      // HTML with its quotes as &#39;).
      std::string literal;
      for (const char c : std::string("'evil' + [char]0x0a + '' + [char]0x1b + '[2j.dll'"))
        literal += c == '\'' && format == "html" ? std::string("&#39;") : std::string(1, c);
      CHECK(count_of(lower, "[2j.dll") == count_of(lower, "evil\\x0a\\x1b[2j.dll") + count_of(lower, literal));
      // Only the writers' own colours are escape sequences, and only when asked for.
      if (!color) CHECK(text.find('\x1b') == std::string::npos);
      for (std::size_t at = text.find('\x1b'); at != std::string::npos; at = text.find('\x1b', at + 1)) {
        const std::size_t end = text.find('m', at);
        REQUIRE(end != std::string::npos);
        const std::string sequence = text.substr(at + 1, end - at - 1);
        CHECK(sequence.size() >= 2);
        CHECK(sequence.front() == '[');
        CHECK(sequence.find_first_not_of("[0123456789;") == std::string::npos);
      }
    }
    CHECK(reports.at("dot").find('\x1b') == std::string::npos);
    // JSON escapes both: the name parses back to its bytes.
    CHECK(reports.at("json").find('\x1b') == std::string::npos);
    const auto json = nlohmann::json::parse(reports.at("json"));
    const auto& modules = json.at("modules");
    CHECK(std::any_of(modules.begin(), modules.end(),
                      [&](const nlohmann::json& module) { return module.at("name") == hostile; }));
    CHECK(json.at("outcome").at("missing")[0].at("dll") == hostile);
  }
}

TEST_CASE("a report's stamp is the time in UTC, as ISO 8601 seconds, as gmtime and strftime say it") {
  // The stamp counts the date itself (gmtime reads the local time zone first): strftime's spelling of
  // gmtime's answer, from 1900 to 2200, every three days and an hour, the leap days and centuries on the way.
  const auto utc_text = [](std::int64_t seconds) {
    const std::time_t at = static_cast<std::time_t>(seconds);
    std::tm utc{};
#ifdef _WIN32
    if (gmtime_s(&utc, &at) != 0) return std::string("(gmtime refused)");
#else
    gmtime_r(&at, &utc);
#endif
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return std::string(text);
  };
  // Windows' gmtime_s takes no time before 1970.
#ifdef _WIN32
  const std::int64_t first = 0;
#else
  const std::int64_t first = -2208988800;  // 1900-01-01
#endif
  int differ = 0;
  for (std::int64_t seconds = first; seconds < 7258118400; seconds += 3 * 86400 + 3607) {
    if (report::Stamp::at(seconds).generated_at != utc_text(seconds)) ++differ;
  }
  CHECK(differ == 0);
  CHECK(report::Stamp::at(951782400).generated_at == "2000-02-29T00:00:00Z");
  CHECK(report::Stamp::at(4107542399).generated_at == "2100-02-28T23:59:59Z");
  const std::int64_t before = static_cast<std::int64_t>(std::time(nullptr));
  const report::Stamp stamp = report::Stamp::now();
  const std::int64_t after = static_cast<std::int64_t>(std::time(nullptr));
  CHECK((stamp.generated_at == utc_text(before) || stamp.generated_at == utc_text(after)));
  CHECK(!stamp.tool_version.empty());
}
