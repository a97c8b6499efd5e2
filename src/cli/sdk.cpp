// `dlldoctor sdk DIR` (also `dlldoctor --sdk DIR`): is this unpacked cuDNN usable to build a program, and
// with which settings (seed 5.3).
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/file_system.hpp"
#include "dlldoctor/report/json_text.hpp"
#include "dlldoctor/report/text_layout.hpp"
#include "dlldoctor/rules/sdk_check.hpp"

namespace dlldoctor::cli {
namespace {

using Json = nlohmann::ordered_json;

inline constexpr const char* kSdkSchema = "dlldoctor.sdk/1";

struct SdkOptions {
  std::string root;
  std::string format = "text";
  std::string arch = "x64";
  std::string output;
  std::string argv0;
  std::string sysroot;            // a mounted Windows drive: the root may be its C:\ path
  std::vector<std::string> maps;  // --map HOSTDIR=WINDOWSDIR
};

std::uint16_t arch_machine(const std::string& arch) {
  if (arch == "x86") return pe::machine::kI386;
  if (arch == "arm64") return pe::machine::kArm64;
  return pe::machine::kAmd64;
}

std::string machines_text(const std::vector<std::uint16_t>& machines) {
  std::vector<std::string> names;
  for (std::uint16_t m : machines) names.push_back(pe::machine_name(m));
  return fmt::format("{}", fmt::join(names, "+"));
}

Json finding_to_json(const rules::Finding& f) {
  return {{"id", f.id},         {"failure_mode", f.failure_mode}, {"severity", rules::severity_name(f.severity)},
          {"module", f.module}, {"message", f.message},           {"evidence", f.evidence},
          {"fix", f.fix}};
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

Json report_to_json(const rules::SdkReport& report) {
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
  for (const rules::Finding& f : report.findings) findings.push_back(finding_to_json(f));
  out["findings"] = std::move(findings);
  return out;
}

// Written for 80 columns like the closure report (docs/DECISIONS.md): a heading and a message wrap, a
// path too long for its line moves to a line of its own, and only a fix command (pasted whole) runs on.
void append_report_text(std::string& out, const rules::SdkReport& report) {
  using report::kTextWidth;
  using report::wrap;
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
  out += wrap(verdict, kTextWidth, "  ", {report.root}) + "\n";
  for (const rules::Finding& f : report.findings) {
    out += "\n" +
           wrap(fmt::format("{} [{}] {}: {}{}", rules::severity_name(f.severity), f.id, f.failure_mode, f.title,
                            f.module.empty() ? "" : " (" + f.module + ")"),
                kTextWidth, "  ") +
           "\n";
    out += "  " + wrap(f.message, kTextWidth - 2, "  ") + "\n";
    for (const std::string& command : f.fix) out += report::fix_text(command);
  }
  // "  label    text": the text wraps under itself. (wrap keeps no leading spaces: the indent goes first.)
  auto item = [&](const char* label, const std::string& text) {
    out += "  " + wrap(fmt::format("{:<8} {}", label, text), kTextWidth - 2, std::string(11, ' ')) + "\n";
  };
  out += fmt::format("\nInventory ({} layout{})\n", rules::sdk_layout_name(report.layout),
                     report.cuda_folder.empty() ? "" : ", CUDA folder " + report.cuda_folder);
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
    out += "    " + wrap(fmt::format("{:<40} {}", dll.name, details), kTextWidth - 4, std::string(45, ' ')) + "\n";
  }
}

int run_sdk(const SdkOptions& options) {
  rules::SdkCheckOptions check;
  check.target_machine = arch_machine(options.arch);
  auto rule_data = rules::load_rules_for(options.argv0, {});
  if (!rule_data) {
    print_message(rule_data.error().message);
    return kExitFailure;
  }
  env::HostFileSystem files;
  std::string root = options.root;
  std::optional<env::Environment> environment;
  if (!options.sysroot.empty() || !options.maps.empty()) {
    env::EnvironmentFlags flags;
    if (!options.sysroot.empty()) flags.sysroot = options.sysroot;
    flags.maps = options.maps;
    auto built = env::environment_from_flags(flags, files);
    if (!built) {
      print_message(built.error().message);
      return kExitFailure;
    }
    environment = std::move(built).value();
    const env::FolderRef folder = env::resolve_folder(*environment, options.root, files);
    if (folder.host.empty() || !folder.exists) {
      print_message(folder.host.empty() ? options.root + ": not under --sysroot or a --map folder"
                                        : options.root + ": no such folder (" + folder.host + ")");
      return kExitFailure;
    }
    root = folder.host;
    check.windows_path = [&environment](const std::string& path) { return env::windows_path_of(*environment, path); };
  }
  auto report = rules::check_cudnn_sdk(root, files, *rule_data, check);
  if (!report) {
    print_message(report.error().message);
    return kExitFailure;
  }
  std::string out;
  if (options.format == "json") {
    out = report::json_text(report_to_json(*report));
  } else {
    append_report_text(out, *report);
  }
  for (const auto& problem : report->problems) print_message("internal: " + problem);
  if (write_output(out, options.output) != kExitOk) return kExitFailure;
  return report->has_errors() ? kExitFindings : kExitOk;
}

}  // namespace

Runner setup_sdk(CLI::App& app, const std::string& argv0) {
  auto options = std::make_shared<SdkOptions>();
  options->argv0 = argv0;
  auto top_level_root = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "sdk",
      "Check an unpacked cuDNN for building (header, cudnn.lib, DLLs) and print the compiler and linker settings");
  command->add_option("root", options->root, "The folder the cuDNN zip was unpacked into")->required();
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  command->add_option("--arch", options->arch, "The platform the project builds for")
      ->check(CLI::IsMember({"x64", "x86", "arm64"}))
      ->capture_default_str();
  command->add_option("-o,--output", options->output, "Write the report to this file instead of stdout");
  command->add_option("--sysroot", options->sysroot,
                      "A mounted Windows drive: the root may be a C:\\ path on it, and the settings use Windows paths");
  command->add_option("--map", options->maps,
                      "HOSTDIR=WINDOWSDIR: a folder copied from the Windows machine, and where it is there; the "
                      "settings use its Windows paths (repeatable)");
  command->footer(
      "Examples:\n  dlldoctor sdk C:\\tools\\cudnn-9.1.0.70\n"
      "  dlldoctor sdk C:\\tools\\cudnn-9.1.0.70 --sysroot /mnt/windows\n"
      "  dlldoctor --sdk C:\\tools\\cudnn-9.1.0.70 --format json -o sdk.json");
  CLI::Option* top_level =
      app.add_option("--sdk", *top_level_root, "Same as `dlldoctor sdk DIR`: check a cuDNN folder for building");
  // `--sdk DIR` shares the top level with the main command, whose --format and -o it reads back after
  // parsing; the main command's other flags describe a process, which the SDK check has none of.
  return [options, top_level_root, top_level, &app] {
    if (top_level->count() > 0) {
      const int refused =
          refuse_options_except(app, {"--sdk", "--format", "--output", "--sysroot", "--map"}, "--sdk",
                                "the SDK check reads the cuDNN folder only (--format, -o, --sysroot, --map)");
      if (refused != kExitOk) return refused;
      options->root = *top_level_root;
      const CLI::Option* format = app.get_option("--format");
      if (format->count() > 0) options->format = format->as<std::string>();
      if (options->format != "text" && options->format != "json") {
        print_message("--sdk writes --format text or json, not " + options->format);
        return kExitFailure;
      }
      const CLI::Option* output = app.get_option("--output");
      if (output->count() > 0) options->output = output->as<std::string>();
      const CLI::Option* sysroot = app.get_option("--sysroot");
      if (sysroot->count() > 0) options->sysroot = sysroot->as<std::string>();
      const CLI::Option* maps = app.get_option("--map");
      if (maps->count() > 0) options->maps = maps->as<std::vector<std::string>>();
    }
    return run_sdk(*options);
  };
}

}  // namespace dlldoctor::cli
