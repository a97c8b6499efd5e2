#include "dlldoctor/report/sdk_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "dlldoctor/report/image_report.hpp"
#include "dlldoctor/report/json_text.hpp"
#include "report/legend.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {
namespace {

inline constexpr const char* kSdkSchema = "dlldoctor.sdk/1";

std::string machines_text(const std::vector<std::uint16_t>& machines) {
  std::vector<std::string> names;
  for (std::uint16_t m : machines) names.push_back(pe::machine_name(m));
  return fmt::format("{}", fmt::join(names, "+"));
}

Json sdk_finding_json(const rules::Finding& f) {
  return {{"id", f.id},
          {"failure_mode", f.failure_mode},
          {"severity", rules::severity_name(f.severity)},
          {"module", f.module},
          {"message", f.message},
          {"evidence", f.evidence},
          {"fix", f.fix},
          {"placeholders", placeholders_json(f.placeholders)}};
}

Json library_to_json(const rules::SdkImportLibrary& library) {
  Json out = {{"path", library.path}};
  if (!library.contents) {
    out["error"] = library.error;
    return out;
  }
  const pe::ImportLibrary& contents = *library.contents;
  out["machine"] = machines_text(contents.machines);
  out["dll"] = contents.dlls.empty() ? Json(nullptr) : Json(contents.dlls.front());
  out["dlls"] = contents.dlls;
  Json members = Json::array();
  for (const pe::LibraryImport& item : contents.imports) {
    Json member = {{"symbol", item.symbol},
                   {"dll", item.dll},
                   {"machine", pe::machine_name(item.machine)},
                   {"format", item.format == pe::MemberFormat::Short ? "short" : "long"},
                   {"type", pe::import_type_name(item.type)},
                   {"name_type", pe::import_name_type_name(item.name_type)}};
    member[item.by_ordinal ? "ordinal" : "hint"] = item.ordinal_or_hint;
    members.push_back(std::move(member));
  }
  out["members"] = std::move(members);
  out["warnings"] = contents.warnings;
  return out;
}

void write_json(Sink& sink, const rules::SdkReport& report, const WriteStyle&) {
  Json out = {{"schema", kSdkSchema}, {"root", report.root}, {"layout", rules::sdk_layout_name(report.layout)}};
  if (!report.cuda_folder.empty()) out["cuda_folder"] = report.cuda_folder;
  out["sdk_root"] = report.sdk_root;
  out["include_dir"] = report.include_dir;
  out["library_dir"] = report.library_dir;
  out["bin_dir"] = report.bin_dir;
  if (report.header_version) {
    out["header_version"] = {{"version", report.header_version->to_string()},
                             {"number", report.header_version->number()},
                             {"header", report.header_version->header}};
  } else {
    out["header_version"] = nullptr;
  }
  out["import_library"] = report.import_library ? library_to_json(*report.import_library) : Json(nullptr);
  Json dlls = Json::array();
  for (const rules::SdkDll& dll : report.dlls) {
    Json item = {{"name", dll.name}, {"path", dll.path}};
    if (dll.error.empty()) {
      item["machine"] = pe::machine_name(dll.machine);
      item["file_version"] = dll.file_version ? Json(dll.file_version->to_string()) : Json(nullptr);
    } else {
      item["error"] = dll.error;
    }
    dlls.push_back(std::move(item));
  }
  out["dlls"] = std::move(dlls);
  Json findings = Json::array();
  for (const rules::Finding& f : report.findings) findings.push_back(sdk_finding_json(f));
  out["findings"] = std::move(findings);
  sink.put(json_text(out));
}

// Written for 80 columns like the closure report (docs/DECISIONS.md): a heading and a message wrap, a
// path too long for its line moves to a line of its own, and only a fix command (pasted whole) runs on.
void write_text(Sink& sink, const rules::SdkReport& report, const WriteStyle&) {
  TextOut out(sink);
  std::size_t errors = 0, warnings = 0;
  for (const rules::Finding& f : report.findings) {
    if (f.severity == rules::Severity::Error) ++errors;
    if (f.severity == rules::Severity::Warning) ++warnings;
  }
  const std::string verdict =
      errors > 0 ? fmt::format("cuDNN SDK in {}: NOT usable to build with ({} error{}, {} warning{})", report.root,
                               errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s")
                 : fmt::format("cuDNN SDK in {}: usable{}{}", report.root,
                               report.header_version ? ", cuDNN " + report.header_version->to_string() : "",
                               warnings > 0 ? fmt::format(" ({} warning{})", warnings, warnings == 1 ? "" : "s") : "");
  out.wrapped("", verdict, kTextWidth, "  ", {report.root});
  for (const rules::Finding& f : report.findings) {
    out.line();
    out.wrapped("",
                fmt::format("{} [{}] {}: {}{}", rules::severity_name(f.severity), f.id, f.failure_mode, f.title,
                            f.module.empty() ? "" : " (" + f.module + ")"),
                kTextWidth, "  ");
    out.wrapped("  ", f.message, kTextWidth - 2, "  ");
    for (const std::string& command : f.fix) out.fix(command);
  }
  const std::vector<rules::Placeholder> placeholders = report_placeholders({}, report.findings);
  if (!placeholders.empty()) {
    out.line();
    legend_text(out, placeholders, /*blank_after=*/false);  // the inventory's heading brings its own blank line
  }
  // "  label    text": the text wraps under itself. (wrap keeps no leading spaces: the indent goes first.)
  auto item = [&](const char* label, const std::string& text) {
    out.wrapped("  ", fmt::format("{:<8} {}", label, text), kTextWidth - 2, std::string(11, ' '));
  };
  out.line();
  out.line(fmt::format("Inventory ({} layout{})", rules::sdk_layout_name(report.layout),
                       report.cuda_folder.empty() ? "" : ", CUDA folder " + report.cuda_folder));
  item("header", report.header_version ? fmt::format("{} (CUDNN_VERSION {}) in {}", report.header_version->to_string(),
                                                     report.header_version->number(), report.header_version->header)
                                       : "no version found in " + report.include_dir);
  if (!report.import_library) {
    item("library", "missing: " + report.library);
  } else if (!report.import_library->contents) {
    item("library", report.import_library->path + ": " + report.import_library->error);
  } else {
    const pe::ImportLibrary& contents = *report.import_library->contents;
    std::size_t by_ordinal = 0;
    for (const pe::LibraryImport& import : contents.imports) by_ordinal += import.by_ordinal ? 1 : 0;
    item("library", fmt::format("{}: {}, links to {}, {} imports ({} by ordinal)", report.import_library->path,
                                machines_text(contents.machines), fmt::join(contents.dlls, ", "),
                                contents.imports.size(), by_ordinal));
  }
  item("bin", report.bin_dir + (report.dlls.empty() ? ": no cudnn*.dll" : ""));
  for (const rules::SdkDll& dll : report.dlls) {
    const std::string details =
        dll.error.empty() ? fmt::format("{}  {}", dll.file_version ? dll.file_version->to_string() : "(no version)",
                                        pe::machine_name(dll.machine))
                          : dll.error;
    out.wrapped("    ", fmt::format("{:<40} {}", dll.name, details), kTextWidth - 4, std::string(45, ' '));
  }
}

}  // namespace

const Writers<rules::SdkReport>& sdk_writers() {
  static const Writers<rules::SdkReport> writers{{"text", write_text}, {"json", write_json}};
  return writers;
}

}  // namespace dlldoctor::report
