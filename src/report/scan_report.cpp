#include "dlldoctor/report/scan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/report/closure_report.hpp"
#include "dlldoctor/report/closure_view.hpp"
#include "dlldoctor/report/json_text.hpp"
#include "report/finding_formats.hpp"
#include "report/html_page.hpp"
#include "report/legend.hpp"
#include "report/markdown.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {

using scan::ScannedFile;

// The analysis every format prints: computed once from the scan result.
struct ScanSummary {
  struct Group {
    std::string key;
    const rules::Family* family = nullptr;
    std::vector<const ScannedFile*> copies;
    std::vector<std::vector<const ScannedFile*>> identical;  // sets of two or more copies that are one file
    std::set<std::string> versions;
  };
  // A folder finding of the rule engine (mixed-family-versions, mixed-generations-folder).
  struct MixedFolder {
    std::string folder;  // host path
    std::string what;    // "cuDNN 8 and cuDNN 9", "cuDNN 9 versions 9.0.0.312 and 9.1.0.70"
    const rules::Finding* finding;
  };
  struct FamilyVersions {
    const rules::Family* family;
    std::set<std::string> versions;  // of its main DLLs
  };
  std::vector<Group> groups;
  std::vector<FamilyVersions> families;
  std::vector<MixedFolder> mixed_folders;
  std::vector<const ScannedFile*> backups;
};

namespace {

// Which process the scan judged the copies for, or that it judged none.
std::string search_text(const ScanInput& input) {
  if (input.search) return input.search->description;
  return "not judged: no PATH given (--path, or --sysroot with its registry), so which copy a process loads is "
         "not said";
}

std::string version_text(const ScannedFile& f) { return f.file_version ? f.file_version->to_string() : "-"; }

ScanSummary summarize(const ScanInput& input) {
  ScanSummary summary;
  const auto& files = input.result->files;
  for (std::size_t i = 0; i < files.size();) {
    ScanSummary::Group group;
    group.key = files[i].key;
    group.family = input.rules->family_of(DllName::of_file(group.key));
    for (; i < files.size() && files[i].key == group.key; ++i) {
      group.copies.push_back(&files[i]);
      if (files[i].file_version) group.versions.insert(files[i].file_version->to_string());
      if (files[i].backup) summary.backups.push_back(&files[i]);
    }
    // One file under several names (hard links), or byte-for-byte the same build: same size, machine,
    // version and link time. Whole files are never read to compare them.
    std::vector<bool> used(group.copies.size(), false);
    for (std::size_t a = 0; a < group.copies.size(); ++a) {
      if (used[a] || !group.copies[a]->error.empty()) continue;
      std::vector<const ScannedFile*> same{group.copies[a]};
      for (std::size_t b = a + 1; b < group.copies.size(); ++b) {
        const ScannedFile& x = *group.copies[a];
        const ScannedFile& y = *group.copies[b];
        const bool linked = x.inode != 0 && x.inode == y.inode && x.device == y.device;
        const bool twin = x.size == y.size && x.machine == y.machine && x.file_version == y.file_version &&
                          x.timestamp == y.timestamp;
        if (!used[b] && y.error.empty() && (linked || twin)) {
          used[b] = true;
          same.push_back(&y);
        }
      }
      if (same.size() > 1) group.identical.push_back(std::move(same));
    }
    summary.groups.push_back(std::move(group));
  }

  for (const rules::Family& family : input.rules->families) {
    ScanSummary::FamilyVersions versions{&family, {}};
    for (const auto& group : summary.groups) {
      if (group.family != &family) continue;
      if (std::find(family.main.begin(), family.main.end(), DllName::of_file(group.key)) == family.main.end()) continue;
      for (const auto* copy : group.copies) {
        if (!copy->backup && copy->file_version) versions.versions.insert(copy->file_version->to_string());
      }
    }
    if (!versions.versions.empty()) summary.families.push_back(std::move(versions));
  }

  if (input.findings) {
    for (const rules::Finding& finding : *input.findings) {
      if (finding.folder_mix)
        summary.mixed_folders.push_back({finding.folder_mix->host_folder, finding.folder_mix->mixes, &finding});
    }
    // By folder, as the scan lists them (the rule engine gives errors first).
    std::stable_sort(
        summary.mixed_folders.begin(), summary.mixed_folders.end(),
        [](const ScanSummary::MixedFolder& a, const ScanSummary::MixedFolder& b) { return a.folder < b.folder; });
  }
  return summary;
}

// Whether a process in the environment given would load this copy.
const char* search_status(const ScanSearch& search, const ScannedFile& f) {
  auto chosen = search.chosen.find(f.key);
  if (chosen != search.chosen.end() && chosen->second == f.path) return "loads";
  auto shadowed = search.shadowed.find(f.key);
  const bool is_shadowed =
      shadowed != search.shadowed.end() &&
      std::find(shadowed->second.begin(), shadowed->second.end(), f.path) != shadowed->second.end();
  return is_shadowed ? "shadowed" : "not on the search path";
}

Json copy_json(const ScanInput& input, const ScannedFile& f) {
  Json j = {{"path", f.path}};
  if (input.windows_path) {
    auto windows = input.windows_path(f.path);
    j["windows_path"] = windows ? Json(*windows) : Json(nullptr);
  }
  j["file_version"] = f.file_version ? Json(f.file_version->to_string()) : Json(nullptr);
  j["machine"] = f.machine ? Json(pe::machine_name(*f.machine)) : Json(nullptr);
  j["size"] = f.size;
  j["backup"] = f.backup;
  j["error"] = f.error.empty() ? Json(nullptr) : Json(f.error);
  if (input.search) j["search"] = search_status(*input.search, f);
  return j;
}

// Streamed: a DLL name and its copies at a time.
void write_json(Sink& sink, const ScanView& view, const WriteStyle&) {
  const ScanInput& input = view.input();
  const ScanSummary& summary = view.summary();
  const auto& result = *input.result;
  Json families = Json::array();
  for (const auto& f : summary.families) {
    families.push_back({{"id", f.family->id},
                        {"name", f.family->name},
                        {"versions", f.versions},
                        {"multiple_versions", f.versions.size() > 1}});
  }
  Json mixed = Json::array();
  for (const auto& m : summary.mixed_folders) {
    mixed.push_back({{"folder", m.folder},
                     {"mixes", m.what},
                     {"finding", m.finding->id},
                     {"severity", rules::severity_name(m.finding->severity)}});
  }
  Json backups = Json::array();
  for (const auto* b : summary.backups) backups.push_back(b->path);
  JsonStream out(sink);
  out.open_object();
  out.put("schema", Json(kScanSchema));
  out.put("tool_version", Json(input.tool_version));
  out.put("generated_at", Json(input.generated_at));
  if (input.rules) {
    const rules::RulesOrigin& origin = input.rules->origin;
    out.put("rules", Json{{"source", origin.folder ? "folder" : "built-in"},
                          {"builtin_version", origin.builtin_version},
                          {"folder", origin.folder ? Json(*origin.folder) : Json()},
                          {"edited", origin.edited},
                          {"extra", origin.extra}});
  }
  out.put("roots", Json(input.options->roots));
  out.put("all_dlls", Json(input.options->all_dlls));
  out.put("counts", Json{{"folders", result.folders},
                         {"entries", result.entries},
                         {"copies", result.files.size()},
                         {"unreadable_folders", result.unreadable_folders},
                         {"unreadable_files", result.unreadable_files},
                         {"vanished", result.vanished},
                         {"invalid_names", result.invalid_names.size()}});
  out.put("missing_roots", Json(result.missing_roots));
  out.put("unreadable_examples", Json(result.unreadable_examples));
  out.put("unreadable_file_examples", Json(result.unreadable_file_examples));
  out.put("invalid_names", Json(result.invalid_names));
  out.put("families", families);
  out.put("mixed_folders", mixed);
  out.put("backups", backups);
  out.open_array("dlls");
  for (const auto& group : summary.groups) {
    Json copies = Json::array();
    for (const auto* copy : group.copies) copies.push_back(copy_json(input, *copy));
    Json identical = Json::array();
    for (const auto& same : group.identical) {
      Json paths = Json::array();
      for (const auto* copy : same) paths.push_back(copy->path);
      identical.push_back(std::move(paths));
    }
    out.put(Json{{"name", group.key},
                 {"family", group.family ? Json(group.family->id) : Json(nullptr)},
                 {"versions", group.versions},
                 {"copies", std::move(copies)},
                 {"identical", std::move(identical)}});
  }
  out.close();
  out.put("search", input.search ? Json(input.search->description) : Json(nullptr));
  Json findings = Json::array();
  if (input.findings) {
    const auto same_fix = same_fix_as(*input.findings);
    for (std::size_t i = 0; i < input.findings->size(); ++i) {
      Json finding = finding_to_json((*input.findings)[i], input.rules);
      finding["fix_same_as"] = same_fix[i] ? Json(*same_fix[i]) : Json(nullptr);
      finding["processes"] =
          input.found_in && i < input.found_in->size() ? (*input.found_in)[i] : std::vector<std::string>();
      findings.push_back(std::move(finding));
    }
  }
  out.put("findings", findings);
  out.close();
}

void write_text(Sink& sink, const ScanView& view, const WriteStyle& style) {
  const ScanInput& input = view.input();
  const ScanSummary& summary = view.summary();
  const bool color = style.color;
  const auto& result = *input.result;
  auto warn = [&](const std::string& text) { return color ? "\x1b[33m" + text + "\x1b[0m" : text; };
  auto red = [&](const std::string& text) { return color ? "\x1b[31m" + text + "\x1b[0m" : text; };
  TextOut out(sink, colours_of(style));
  // A line that names a path: `whole` when it fits in kTextWidth columns, otherwise `shorter` with the
  // path on a line of its own below it, so that what is said about the path stays readable.
  const auto put = [&](const std::string& whole, const std::string& shorter, const std::string& path) {
    if (columns(whole) <= kTextWidth) return out.line(whole);
    out.line(shorter);
    out.line("    " + path);
  };
  const auto name = [](const std::string& path) { return scan::printable(path); };
  out.line(fmt::format("Scanned {} folders ({} entries): {} copies of {} DLL names.", result.folders, result.entries,
                       result.files.size(), summary.groups.size()));
  for (const auto& f : summary.families) {
    std::string versions;
    for (const auto& v : f.versions) versions += (versions.empty() ? "" : ", ") + v;
    out.line(fmt::format("{}: {}{}", f.family->name, versions,
                         f.versions.size() > 1 ? warn(" (more than one version on this disk)") : std::string()));
  }
  for (const auto& m : summary.mixed_folders) {
    const std::string label = m.finding->severity == rules::Severity::Error ? red("error:") : warn("warning:");
    put(fmt::format("{} {} mixes {}", label, name(m.folder), m.what),
        fmt::format("{} this folder mixes {}:", label, m.what), name(m.folder));
    if (m.finding->fix.empty()) continue;
    out.line(fmt::format("  [{}] fix:", m.finding->id));
    for (const std::string& line : m.finding->fix) out.fix(line);
  }
  if (!view.other_findings().findings.empty()) {
    out.line();
    append_findings_text(out, view.other_findings(), input.rules, style);
  }
  if (input.findings) legend_text(out, report_placeholders({}, *input.findings));
  for (const auto* b : summary.backups) {
    put(fmt::format("backup copy: {} ({})", name(b->path), version_text(*b)),
        fmt::format("backup copy ({}):", version_text(*b)), name(b->path));
  }
  out.wrapped("search: ", search_text(input), kTextWidth - 8, "  ");
  for (const auto& group : summary.groups) {
    out.line();
    out.line(group.copies.front()->name + (group.family ? " (" + group.family->name + ")" : std::string()));
    // One layout for the whole group, so that its rows stay a table: paths on their own lines when
    // one row would not fit.
    struct Row {
      std::string before_path, path, tail;
    };
    std::vector<Row> rows;
    bool fits = true;
    for (const auto* copy : group.copies) {
      const std::string_view status = input.search ? search_status(*input.search, *copy) : "";
      const std::string search = status == "loads" ? "  <- loads" : status == "shadowed" ? "  (shadowed)" : "";
      Row row{fmt::format("  {:<14} {:<6} {:>12}", version_text(*copy),
                          copy->machine ? pe::machine_name(*copy->machine) : "-", copy->size),
              name(copy->path), (copy->error.empty() ? "" : "  [" + copy->error + "]") + search};
      fits = fits && columns(row.before_path + "  " + row.path + row.tail) <= kTextWidth;
      rows.push_back(std::move(row));
    }
    for (const auto& row : rows) {
      if (fits) {
        out.line(row.before_path + "  " + row.path + row.tail);
      } else {
        out.line(row.before_path + row.tail);
        out.line("    " + row.path);
      }
    }
    for (const auto& same : group.identical) {
      out.line(fmt::format("  identical: {} copies of {} ({} bytes)", same.size(), version_text(*same.front()),
                           same.front()->size));
    }
  }
  for (const auto& root : result.missing_roots) {
    put(fmt::format("{} {}: no such folder", warn("warning:"), name(root)),
        fmt::format("{} no such folder:", warn("warning:")), name(root));
  }
  if (result.unreadable_folders) {
    const std::string example = result.unreadable_examples.empty() ? "" : result.unreadable_examples.front();
    const std::string said = fmt::format("{} folders could not be read (skipped), e.g.", result.unreadable_folders);
    out.line();
    put(said + " " + example, said, example);
  }
  if (result.unreadable_files) {
    const std::string& example = result.unreadable_file_examples.front();
    const std::string said =
        fmt::format("{} files could not be read (no permission, or locked), e.g.", result.unreadable_files);
    put(said + " " + example, said, example);
  }
  if (result.vanished) out.line(fmt::format("{} files or folders vanished during the scan", result.vanished));
  for (const auto& invalid : result.invalid_names)
    put("name that is not UTF-8: " + invalid, "name that is not UTF-8:", invalid);
  if (input.rules) {
    const rules::RulesOrigin& origin = input.rules->origin;
    if (origin.folder) {
      put("rules: " + origin.text(), "rules: " + origin.summary() + ":", *origin.folder);
    } else {
      out.line("rules: " + origin.text());
    }
  }
}

void write_markdown(Sink& sink, const ScanView& view, const WriteStyle&) {
  const ScanInput& input = view.input();
  const ScanSummary& summary = view.summary();
  const auto& result = *input.result;
  // Inside a `code span`, in a paragraph or a table cell: readable UTF-8, no '|' that ends the cell.
  auto code = [](const std::string& path) { return "`" + markdown_cell(scan::printable(path)) + "`"; };
  TextOut out(sink);
  std::string roots;
  for (const auto& root : input.options->roots) roots += (roots.empty() ? "" : ", ") + code(root);
  out.line("## dlldoctor scan");
  out.line();
  out.line(fmt::format("Scanned {} folders ({} entries) under {}: {} copies of {} DLL names.", result.folders,
                       result.entries, roots, result.files.size(), summary.groups.size()));
  out.line();
  for (const auto& f : summary.families) {
    out.line(fmt::format("- **{}**: {}{}", f.family->name, fmt::join(f.versions, ", "),
                         f.versions.size() > 1 ? " — more than one version on this disk" : ""));
  }
  for (const auto& m : summary.mixed_folders) {
    out.line(fmt::format("- {} {} mixes {} (`{}`)",
                         m.finding->severity == rules::Severity::Error ? ":x: **error**" : ":warning:", code(m.folder),
                         m.what, m.finding->id));
    if (m.finding->fix.empty()) continue;
    out.line();
    out.line("  ```powershell");
    for (const std::string& line : m.finding->fix) out.line("  " + line);
    out.line("  ```");
    out.line();
  }
  if (!view.other_findings().findings.empty()) {
    out.line();
    append_findings_markdown(out, view.other_findings(), input.rules);
  }
  if (input.findings) legend_markdown(out, report_placeholders({}, *input.findings));
  for (const auto* b : summary.backups) out.line(fmt::format("- backup copy {} ({})", code(b->path), version_text(*b)));
  out.line("- search: " + markdown_cell(search_text(input)));
  out.line();
  if (input.search) {
    out.line("| DLL | version | machine | size | path | search |");
    out.line("| --- | --- | --- | ---: | --- | --- |");
  } else {
    out.line("| DLL | version | machine | size | path |");
    out.line("| --- | --- | --- | ---: | --- |");
  }
  for (const auto& group : summary.groups) {
    for (const auto* copy : group.copies) {
      std::string where = code(copy->path);
      if (!copy->error.empty()) where += " (" + markdown_cell(copy->error) + ")";
      if (input.search) where += std::string(" | ") + search_status(*input.search, *copy);
      out.line(fmt::format("| {} | {} | {} | {} | {} |", markdown_cell(group.key), version_text(*copy),
                           copy->machine ? pe::machine_name(*copy->machine) : "-", copy->size, where));
    }
  }
  bool identical_heading = false;
  for (const auto& group : summary.groups) {
    for (const auto& same : group.identical) {
      if (!identical_heading) {
        out.line();
        out.line("Identical copies (hard links, or the same build):");
        out.line();
      }
      identical_heading = true;
      std::string paths;
      for (const auto* copy : same) paths += (paths.empty() ? "" : ", ") + code(copy->path);
      out.line(
          fmt::format("- {} {} ({} bytes): {}", group.key, version_text(*same.front()), same.front()->size, paths));
    }
  }
  out.line();
  for (const auto& root : result.missing_roots) out.line(fmt::format("- :warning: {}: no such folder", code(root)));
  if (result.unreadable_folders) {
    out.line(fmt::format("- {} folders could not be read (skipped), e.g. {}", result.unreadable_folders,
                         code(result.unreadable_examples.front())));
  }
  if (result.unreadable_files) {
    out.line(fmt::format("- {} files could not be read (no permission, or locked), e.g. {}", result.unreadable_files,
                         code(result.unreadable_file_examples.front())));
  }
  if (result.vanished) out.line(fmt::format("- {} files or folders vanished during the scan", result.vanished));
  for (const auto& name : result.invalid_names) out.line(fmt::format("- name that is not UTF-8: {}", code(name)));
  out.line();
  out.line(fmt::format("<sub>dlldoctor {}{}</sub>", input.tool_version,
                       input.rules ? ", rules: " + code(input.rules->origin.text()) : std::string()));
}

// Every copy grouped by DLL name and version, with a filter box; the folder findings with their fixes.
void write_html(Sink& sink, const ScanView& view, const WriteStyle&) {
  const ScanInput& input = view.input();
  const ScanSummary& summary = view.summary();
  const auto& result = *input.result;
  const auto name = [](const std::string& path) { return html_text(scan::printable(path)); };
  TextOut out(sink);
  html_page_start(out, "dlldoctor scan");
  std::string roots;
  for (const auto& root : input.options->roots)
    roots += (roots.empty() ? "" : ", ") + ("<code>" + name(root) + "</code>");
  out.line("<h1>dlldoctor scan</h1>");
  out.line(fmt::format("<p id=\"summary\">Scanned {} folders ({} entries) under {}: {} copies of {} DLL names.</p>",
                       result.folders, result.entries, roots, result.files.size(), summary.groups.size()));
  if (!summary.families.empty()) {
    out.line("<ul>");
    for (const auto& f : summary.families) {
      out.line(fmt::format("<li><b>{}</b>: {}{}</li>", html_text(f.family->name),
                           html_text(fmt::format("{}", fmt::join(f.versions, ", "))),
                           f.versions.size() > 1 ? " (more than one version on this disk)" : ""));
    }
    out.line("</ul>");
  }
  for (const auto& m : summary.mixed_folders) {
    const std::string_view severity = rules::severity_name(m.finding->severity);
    out.line(
        fmt::format("<div class=\"finding\"><p><span class=\"severity severity-{}\">{}</span> <code>{}</code> <span "
                    "class=\"path\">{}</span> mixes {}</p>",
                    severity, severity, html_text(m.finding->id), name(m.folder), html_text(m.what)));
    out.line("<p>" + html_text(m.finding->message) + "</p>");
    if (!m.finding->fix.empty()) html_fix_list(out, m.finding->fix);
    out.line("</div>");
  }
  append_findings_html(out, view.other_findings(), input.rules);
  if (input.findings) legend_html(out, report_placeholders({}, *input.findings));
  for (const auto* b : summary.backups)
    out.line(fmt::format("<p>backup copy <span class=\"path\">{}</span> ({})</p>", name(b->path), version_text(*b)));
  out.line("<p>search: " + html_text(search_text(input)) + "</p>");
  out.line("<h2>Copies</h2>");
  out.line(
      "<input class=\"filter\" data-target=\"copies\" type=\"search\" placeholder=\"filter: a DLL, a version, a "
      "folder\">");
  out.line("<table id=\"copies\">");
  out.line(std::string("<thead><tr><th>version</th><th>machine</th><th>size</th><th>path</th>") +
           (input.search ? "<th>search</th></tr></thead>" : "</tr></thead>"));
  for (const auto& group : summary.groups) {
    // One body per DLL name and version: the filter hides a heading whose copies are all hidden.
    std::vector<std::string> versions;
    for (const auto* copy : group.copies) {
      if (std::find(versions.begin(), versions.end(), version_text(*copy)) == versions.end())
        versions.push_back(version_text(*copy));
    }
    for (const std::string& version : versions) {
      out.line("<tbody>");
      out.line(fmt::format("<tr class=\"group\"><th colspan=\"{}\">{}{} &mdash; {}</th></tr>", input.search ? 5 : 4,
                           name(group.copies.front()->name),
                           group.family ? " (" + html_text(group.family->name) + ")" : std::string(),
                           html_text(version)));
      for (const auto* copy : group.copies) {
        if (version_text(*copy) != version) continue;
        // The DLL's name is in each row too, hidden, so that the filter finds its copies by name.
        std::string row = fmt::format(
            "<tr><td>{}<span hidden> {}</span></td><td>{}</td><td>{}</td><td class=\"path\">{}{}</td>",
            html_text(version), name(group.key), copy->machine ? pe::machine_name(*copy->machine) : "-", copy->size,
            name(copy->path), copy->error.empty() ? "" : " <span class=\"note\">" + html_text(copy->error) + "</span>");
        if (input.search) row += fmt::format("<td>{}</td>", search_status(*input.search, *copy));
        out.line(row + "</tr>");
      }
      out.line("</tbody>");
    }
  }
  out.line("</table>");
  for (const auto& root : result.missing_roots)
    out.line(fmt::format("<p>warning: <span class=\"path\">{}</span>: no such folder</p>", name(root)));
  if (result.unreadable_folders) {
    out.line(fmt::format("<p>{} folders could not be read (skipped), e.g. <span class=\"path\">{}</span></p>",
                         result.unreadable_folders, name(result.unreadable_examples.front())));
  }
  if (result.unreadable_files) {
    out.line(
        fmt::format("<p>{} files could not be read (no permission, or locked), e.g. <span class=\"path\">{}</span></p>",
                    result.unreadable_files, name(result.unreadable_file_examples.front())));
  }
  if (result.vanished) out.line(fmt::format("<p>{} files or folders vanished during the scan</p>", result.vanished));
  for (const auto& invalid : result.invalid_names)
    out.line(fmt::format("<p>name that is not UTF-8: <span class=\"path\">{}</span></p>", name(invalid)));
  out.line(fmt::format("<p><small>dlldoctor {}{}</small></p>", html_text(input.tool_version),
                       input.rules ? ", rules: " + html_text(input.rules->origin.text()) : std::string()));
  html_page_end(out);
}

}  // namespace

namespace {

ScanInput input_of(const session::ScanRun& run, const Stamp& stamp) {
  ScanInput input;
  input.tool_version = stamp.tool_version;
  input.generated_at = stamp.generated_at;
  input.options = &run.options;
  input.result = &run.result;
  input.rules = run.rules;
  input.search = run.search ? &*run.search : nullptr;
  input.findings = &run.checks.findings;
  input.found_in = &run.found_in;
  input.windows_path = run.windows_path;
  return input;
}

}  // namespace

ScanView::ScanView(const session::ScanRun& run, const Stamp& stamp)
    : input_(input_of(run, stamp)), summary_(std::make_unique<ScanSummary>(summarize(input_))) {
  for (std::size_t i = 0; i < run.checks.findings.size(); ++i) {
    const rules::Finding& finding = run.checks.findings[i];
    if (finding.folder_mix) continue;
    others_.findings.push_back(&finding);
    others_.found_in.push_back(i < run.found_in.size() ? run.found_in[i] : std::vector<std::string>());
  }
  others_.fixes = fixes_shown(others_.findings, {});
}

ScanView::~ScanView() = default;

std::size_t ScanView::errors() const {
  return static_cast<std::size_t>(
      std::count_if(input_.findings->begin(), input_.findings->end(),
                    [](const rules::Finding& f) { return f.severity == rules::Severity::Error; }));
}

const Writers<ScanView>& scan_writers() {
  static const Writers<ScanView> writers{
      {"text", write_text}, {"json", write_json}, {"markdown", write_markdown}, {"html", write_html}};
  return writers;
}

}  // namespace dlldoctor::report
