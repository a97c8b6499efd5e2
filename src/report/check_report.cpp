// `dlldoctor check`'s report: the lines of the machine side by side are decided once here (CheckView), and
// each format only lays them out; JSON is check_json.cpp.
#include "dlldoctor/report/check_report.hpp"

#include <fmt/format.h>

#include "dlldoctor/env/python_env.hpp"
#include "report/finding_formats.hpp"
#include "report/html_page.hpp"
#include "report/legend.hpp"
#include "report/markdown.hpp"
#include "report/plan_report.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {

void write_check_json(Sink& sink, const CheckView& view, const WriteStyle& style);

namespace {
// Named, so that a unity build (the fuzz targets) can put this file beside another one's helpers.
namespace check {

using session::CheckRun;

std::string joined(const std::vector<std::string>& items, const char* separator = ", ") {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// The module of `run`'s closure that the load of `dll` gave, if it loaded.
const graph::Module* loaded(const session::ExplainRun& run, const std::string& dll) {
  for (const graph::Module& module : run.closure().modules) {
    if (module.key == DllName(dll) && !module.is_root) return &module;
  }
  return nullptr;
}

std::string where_loaded(const graph::Module& module) {
  const std::string path = module.resolution.windows_path.value_or(module.resolution.path.value_or(module.name));
  const auto& version = module.resolution.image ? module.resolution.image->file_version : std::nullopt;
  return fmt::format("{}{} (found in {})", version ? version->to_string() + " from " : std::string(), path,
                     resolve::step_label(module.resolution.found_by));
}

std::string outcome_text(const session::ExplainRun& run) {
  const graph::Outcome& outcome = run.closure().outcome;
  return fmt::format("fails with error {}: {}", outcome.error.value_or(0), outcome.reason);
}

CheckSection driver_section(const CheckRun& run) {
  const session::DriverCheck& driver = run.driver;
  CheckSection section{"Driver", {}};
  if (!driver.looked) {
    section.lines.push_back({0,
                             "not looked at: no Windows system here (--sysroot names a mounted Windows drive; "
                             "on Windows, dlldoctor.exe check looks at the machine itself)"});
    return section;
  }
  if (!driver.nvcuda) {
    section.lines.push_back({0, "no NVIDIA driver: System32 has no nvcuda.dll"});
  } else {
    section.lines.push_back(
        {0, fmt::format("NVIDIA {}: {}{}", driver.driver.empty() ? "(version unknown)" : driver.driver,
                        driver.nvcuda->shown,
                        driver.newest_cuda.empty() ? std::string() : ", runs CUDA up to " + driver.newest_cuda)});
  }
  for (const session::DriverPackage& package : driver.packages) {
    section.lines.push_back(
        {1, fmt::format("driver store: {}{}{}", package.folder,
                        package.driver.empty() ? std::string() : " (" + package.driver + ")",
                        package.active                                    ? ", the driver System32 has"
                        : package.driver.empty() || driver.driver.empty() ? ""
                                                                          : ", not the one System32 has")});
  }
  return section;
}

CheckSection toolkits_section(const CheckRun& run) {
  CheckSection section{"CUDA toolkits", {}};
  if (run.toolkits.empty()) {
    std::vector<std::string> places = run.rules->machine.toolkit_variables;
    places.insert(places.end(), run.rules->machine.toolkits.begin(), run.rules->machine.toolkits.end());
    section.lines.push_back({0, "none found (looked at " + joined(places) + ")"});
  }
  for (const session::ToolkitCheck& toolkit : run.toolkits) {
    const std::string release = toolkit.release.empty() ? "CUDA (release unknown)" : "CUDA " + toolkit.release;
    if (toolkit.bin.empty()) {
      section.lines.push_back({0, fmt::format("{}: {}, with no CUDA runtime DLL in {}", release, toolkit.shown_root,
                                              joined(run.rules->machine.toolkit_bins, " or "))});
    } else {
      section.lines.push_back(
          {0, fmt::format("{}: {}, {}", release, toolkit.shown_bin,
                          toolkit.on_path ? "on a new process's PATH" : "not on a new process's PATH")});
    }
    section.lines.push_back({1, "named by " + joined(toolkit.named_by)});
  }
  return section;
}

CheckSection cudnn_section(const session::CudnnCheck& cudnn) {
  CheckSection section{fmt::format("{} ({})", cudnn.name, cudnn.dll), {}};
  const graph::Module* main = loaded(cudnn.process, cudnn.dll);
  const bool pythons_only = std::all_of(cudnn.copies.begin(), cudnn.copies.end(),
                                        [](const session::CudnnCopy& copy) { return !copy.python.empty(); });
  if (!cudnn.judged && pythons_only) {
    section.lines.push_back({0,
                             "not judged for new processes: every copy is in a Python's own environment, "
                             "for that Python's frameworks (see Python below)"});
  } else if (!cudnn.judged) {
    section.lines.push_back({0,
                             "not judged: no copy is where new processes look (System32, PATH, below a PATH "
                             "entry, the registry's PATH) and a newer generation is installed; a program that "
                             "needs this one must be given its folder"});
  } else if (main && main->resolution.path) {
    section.lines.push_back({0, "a new process loads " + where_loaded(*main)});
    if (!cudnn.process.closure().outcome.ok) section.lines.push_back({1, "then " + outcome_text(cudnn.process)});
  } else {
    section.lines.push_back({0, "a new process " + outcome_text(cudnn.process)});
  }
  section.lines.push_back({1, "copies, in the order a new process looks:"});
  for (const session::CudnnCopy& copy : cudnn.copies) {
    std::vector<std::string> notes{copy.found_as};
    if (copy.owner) notes.push_back("from " + copy.owner->text());
    if (copy.wins) notes.push_back("loads");
    if (copy.missing.empty() && copy.other_versions.empty()) notes.push_back("complete");
    if (!copy.missing.empty()) notes.push_back(fmt::format("lacks {}", joined(copy.missing)));
    if (!copy.other_versions.empty()) notes.push_back("with " + joined(copy.other_versions));
    if (copy.header) notes.push_back("cudnn_version.h " + *copy.header);
    if (copy.zone_id) notes.push_back(fmt::format("Mark of the Web, zone {}", *copy.zone_id));
    if (!copy.renamed.empty()) notes.push_back("renamed aside: " + joined(copy.renamed));
    section.lines.push_back({2, fmt::format("{} {} ({})", copy.main.version.value_or("(no version)"), copy.main.shown,
                                            joined(notes, "; "))});
  }
  return section;
}

CheckSection msvc_section(const CheckRun& run) {
  CheckSection section{"MSVC runtime (System32)", {}};
  if (!run.driver.looked) {
    section.lines.push_back({0, "not looked at: no Windows system here"});
    return section;
  }
  if (run.msvc_runtime.empty()) section.lines.push_back({0, "none in System32"});
  for (const session::CheckedFile& file : run.msvc_runtime)
    section.lines.push_back({0, fmt::format("{} {}", base_name(file.path), file.version.value_or("(no version)"))});
  return section;
}

std::string verdict_word(const session::ExplainRun& run) {
  const std::string& text = run.verdict.text;
  return text.substr(0, text.find(':'));
}

void python_lines(const CheckRun& run, const session::PythonCheck& python, CheckSection& section) {
  const env::PythonEnvironment& env = python.python;
  if (!python.problem.empty()) {
    section.lines.push_back({0, fmt::format("{} ({}): {}", python.shown, python.found_by, python.problem)});
    return;
  }
  section.lines.push_back(
      {0, fmt::format("{}: Python {}, {} ({})", python.shown, env.version.empty() ? "(version unknown)" : env.version,
                      env::layout_name(env.layout), python.found_by)});
  for (const session::CtypesCheck& ctypes : python.ctypes) {
    const std::string call = "ctypes.CDLL('" + ctypes.dll + "')";
    if (const graph::Module* main = loaded(ctypes.run, ctypes.dll); main && main->resolution.path) {
      section.lines.push_back({1, call + " loads " + where_loaded(*main)});
      continue;
    }
    section.lines.push_back({1, call + " " + outcome_text(ctypes.run)});
    // The seed's third check: a new process finds the DLL on PATH, and this call does not.
    for (const session::CudnnCheck& cudnn : run.cudnn) {
      const graph::Module* found = cudnn.dll == ctypes.dll ? loaded(cudnn.process, cudnn.dll) : nullptr;
      if (found && found->resolution.path && found->resolution.found_by == resolve::SearchStep::Path)
        section.lines.push_back({2,
                                 "a new process finds it on PATH, but Python 3.8+ leaves PATH out of this search "
                                 "(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS): os.add_dll_directory() its folder first"});
    }
  }
  for (const session::ExplainRun& framework : python.frameworks) {
    const std::string id = framework.expansion->recipes.back().id;
    for (const session::StackFramework& stack : framework.stack.frameworks) {
      section.lines.push_back(
          {1, fmt::format("import {}: {}: {}", id, verdict_word(framework), session::framework_line(stack))});
      for (const std::string& mismatch : stack.mismatches) section.lines.push_back({2, "mismatch: " + mismatch});
    }
    if (framework.stack.frameworks.empty())
      section.lines.push_back({1, fmt::format("import {}: {}", id, framework.verdict.text)});
  }
  for (const std::string& line : python.not_judged) section.lines.push_back({1, line});
}

// Text: a section's title, then its lines indented by level.
void write_text(Sink& sink, const CheckView& view, const WriteStyle& style) {
  const CheckRun& run = view.run();
  TextOut out(sink, colours_of(style));
  const bool bad = run.verdict.tone == session::Tone::Fails || run.verdict.tone == session::Tone::Broken;
  std::vector<std::string> lines = wrap_lines(run.verdict.text, kTextWidth, "  ");
  if (style.color) {
    lines.front() = (bad ? "\x1b[1;31m" : "\x1b[1;32m") + lines.front();
    lines.back() += "\x1b[0m";
  }
  for (const std::string& line : lines) out.line(line);
  out.line();
  for (const CheckSection& section : view.sections()) {
    out.line(section.title + ":");
    for (const CheckLine& line : section.lines) {
      const std::string indent(2 + 2 * static_cast<std::size_t>(line.level), ' ');
      out.wrapped(indent, line.text, kTextWidth - indent.size(), indent + "    ");
    }
    out.line();
  }
  if (run.plan) {
    append_plan_text(out, *run.plan);
    legend_text(out, view.placeholders());
  }
  append_findings_text(out, view.findings_shown(), run.rules, style);
  if (!run.plan) legend_text(out, view.placeholders());
  for (const std::string& note : run.environment->notes) out.wrapped("note: ", note, kTextWidth - 6, "  ");
  out.line("rules: " + run.rules->origin.text());
}

void write_markdown(Sink& sink, const CheckView& view, const WriteStyle&) {
  const CheckRun& run = view.run();
  TextOut out(sink);
  out.line("## dlldoctor check");
  out.line();
  out.line("**" + markdown_cell(run.verdict.text) + "**");
  out.line();
  for (const CheckSection& section : view.sections()) {
    out.line("### " + markdown_cell(section.title));
    out.line();
    for (const CheckLine& line : section.lines)
      out.line(std::string(2 * static_cast<std::size_t>(line.level), ' ') + "- " + markdown_cell(line.text));
    out.line();
  }
  if (run.plan) {
    append_plan_markdown(out, *run.plan);
    legend_markdown(out, view.placeholders());
  }
  if (!view.findings_shown().findings.empty()) {
    out.line("### Findings");
    out.line();
    append_findings_markdown(out, view.findings_shown(), run.rules);
  }
  if (!run.plan) legend_markdown(out, view.placeholders());
  for (const std::string& note : run.environment->notes) out.line("- note: " + markdown_cell(note));
  out.line();
  out.line("<sub>dlldoctor " + markdown_cell(view.stamp().tool_version) +
           ", rules: " + markdown_cell(run.rules->origin.text()) + "</sub>");
}

void write_html(Sink& sink, const CheckView& view, const WriteStyle&) {
  const CheckRun& run = view.run();
  TextOut out(sink);
  html_page_start(out, "dlldoctor check");
  out.line("<h1>dlldoctor check</h1>");
  out.line(fmt::format("<p class=\"verdict tone-{}\" id=\"verdict\">{}</p>", tone_name(run.verdict.tone),
                       html_text(run.verdict.text)));
  for (const CheckSection& section : view.sections()) {
    out.line("<h2>" + html_text(section.title) + "</h2>");
    // Lines of a deeper level go in a list inside the item before them.
    int open = 0;
    out.line("<ul>");
    for (std::size_t i = 0; i < section.lines.size(); ++i) {
      const CheckLine& line = section.lines[i];
      while (open > line.level) {
        out.line("</ul></li>");
        --open;
      }
      const bool parent = i + 1 < section.lines.size() && section.lines[i + 1].level > line.level;
      out.line("<li>" + html_text(line.text) + (parent ? "<ul>" : "</li>"));
      if (parent) ++open;
    }
    while (open-- > 0) out.line("</ul></li>");
    out.line("</ul>");
  }
  if (run.plan) {
    append_plan_html(out, *run.plan);
    legend_html(out, view.placeholders());
  }
  if (!view.findings_shown().findings.empty()) {
    out.line("<h2>Findings</h2>");
    append_findings_html(out, view.findings_shown(), run.rules);
  }
  if (!run.plan) legend_html(out, view.placeholders());
  for (const std::string& note : run.environment->notes)
    out.line("<p class=\"note\">note: " + html_text(note) + "</p>");
  out.line("<p><small>dlldoctor " + html_text(view.stamp().tool_version) +
           ", rules: " + html_text(run.rules->origin.text()) + "</small></p>");
  html_page_end(out);
}

}  // namespace check
}  // namespace

CheckView::CheckView(const session::CheckRun& run, const Stamp& stamp) : run_(run), stamp_(stamp) {
  sections_.push_back(check::driver_section(run));
  sections_.push_back(check::toolkits_section(run));
  for (const session::CudnnCheck& cudnn : run.cudnn) sections_.push_back(check::cudnn_section(cudnn));
  if (run.cudnn.empty()) {
    std::vector<std::string> names;
    for (const rules::Family& family : run.rules->families)
      if (family.kind == "cudnn") names.push_back(family.main.front().display());
    sections_.push_back({"cuDNN",
                         {{0, "no copy of " + check::joined(names, " or ") +
                                  " in System32, on the PATH, or where installers and zips put it"}}});
  }
  sections_.push_back(check::msvc_section(run));
  CheckSection pythons{"Python", {}};
  for (const session::PythonCheck& python : run.pythons) check::python_lines(run, python, pythons);
  if (run.pythons.empty()) pythons.lines.push_back({0, "none found on the PATH or where installers put it"});
  sections_.push_back(std::move(pythons));

  for (std::size_t i = 0; i < run.findings.size(); ++i) {
    shown_.findings.push_back(&run.findings[i].finding);
    shown_.found_in.push_back(run.findings[i].processes);
  }
  shown_.fixes = fixes_shown(shown_.findings, run.plan_steps);
  std::vector<rules::Finding> findings;
  for (const session::CheckFinding& finding : run.findings) findings.push_back(finding.finding);
  placeholders_ =
      report_placeholders(run.plan ? plan_placeholders(*run.plan) : std::vector<rules::Placeholder>(), findings);
}

const Writers<CheckView>& check_writers() {
  static const Writers<CheckView> writers{{"text", check::write_text},
                                          {"json", write_check_json},
                                          {"markdown", check::write_markdown},
                                          {"html", check::write_html}};
  return writers;
}

}  // namespace dlldoctor::report
