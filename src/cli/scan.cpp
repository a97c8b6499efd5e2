// `dlldoctor --scan DIR...`: every copy of the DLL families in rules/ (or every DLL) under the folders.
#include "cli/scan.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "dlldoctor/core/build_info.hpp"
#include "dlldoctor/env/file_system.hpp"
#include "dlldoctor/pe/image_cache.hpp"
#include "dlldoctor/report/scan_report.hpp"
#include "dlldoctor/resolve/resolver.hpp"
#include "dlldoctor/rules/rule_engine.hpp"

namespace dlldoctor::cli {
namespace {

// Which copy a process in this environment would load, for every DLL name the scan found.
std::optional<report::ScanSearch> search(const ScanCommand& command, const scan::ScanResult& result,
                                         env::FileSystem& files, const env::Environment& environment) {
  if (!command.environment_given) return std::nullopt;
  report::ScanSearch search;
  resolve::ProcessState process;
  process.app_dir = environment.cwd;
  process.machine = pe::machine::kAmd64;
  pe::ImageCache images;
  resolve::Resolver resolver(environment, files, images, resolve::WrongMachinePolicy::Skip);
  search.description = fmt::format("a 64-bit process started in {} with the {} PATH entries given",
                                   environment.cwd.windows.value_or(environment.cwd.host), environment.path.size());
  std::string last;
  for (const auto& file : result.files) {
    if (file.key == last) continue;
    last = file.key;
    const resolve::Resolution resolution = resolver.resolve(file.key, process, {});
    if (resolution.path) search.chosen[file.key] = *resolution.path;
    for (const auto& candidate : resolution.candidates) {
      if (candidate.verdict == resolve::Verdict::Shadowed) search.shadowed[file.key].push_back(candidate.path);
    }
  }
  return search;
}

}  // namespace

int run_scan(const ScanCommand& command, const rules::RuleData& rules) {
  // --format is the main command's: one the scan has no writer for is refused before a disk is walked.
  if (!has_writer(report::scan_writers(), command.format, "--scan")) return kExitFailure;
  // `--scan C:\ app.exe` means two things at once: a scan of folders and a program to diagnose.
  for (const std::string& root : command.roots) {
    if (!scan::exists_but_not_folder(root)) continue;
    print_message(root + " is a file: --scan lists the DLLs under folders (a program is diagnosed with dlldoctor " +
                  root + ", one DLL read with dlldoctor inspect " + root + ")");
    return kExitFailure;
  }
  scan::ScanOptions options;
  // Absolute, so the copies compare equal to what the resolver finds through --path.
  for (const std::string& root : command.roots) options.roots.push_back(env::absolute_path(root));
  options.all_dlls = command.all_dlls;
  // The scan keys files by their lower-case file name (each ends in .dll): a family member's key is that.
  for (const auto& family : rules.families) {
    for (const DllName& member : family.members) options.names.insert(member.key());
  }
  const bool terminal = is_terminal(stderr);
  if (terminal) {
    const auto started = std::chrono::steady_clock::now();
    options.progress = [started](std::uint64_t folders, std::uint64_t entries, std::uint64_t copies) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "\rscanning: %llu folders, %llu entries, %llu copies, %.0f entries/s ",
                   static_cast<unsigned long long>(folders), static_cast<unsigned long long>(entries),
                   static_cast<unsigned long long>(copies), seconds > 0 ? static_cast<double>(entries) / seconds : 0.0);
    };
  }
  env::HostFileSystem files;
  std::optional<env::Environment> environment;
  if (command.environment_given) {
    auto built = env::environment_from_flags(command.environment, files);
    if (!built) {
      print_message(built.error().message);
      return kExitFailure;
    }
    environment = std::move(built).value();
  }
  const scan::ScanResult result = scan::scan(options);
  if (terminal) std::fprintf(stderr, "\r%79s\r", "");  // the progress line fits in 80 columns
  if (result.missing_roots.size() == options.roots.size()) {
    for (const auto& root : result.missing_roots) print_message(root + ": no such folder");
    return kExitFailure;
  }
  const auto found = environment ? search(command, result, files, *environment) : std::nullopt;

  report::ScanInput input;
  input.tool_version = kVersion;
  input.generated_at = utc_now();
  input.options = &options;
  input.result = &result;
  input.rules = &rules;
  input.search = found ? &*found : nullptr;
  if (environment && environment->sysroot) {
    input.windows_path = [&](const std::string& path) { return env::windows_path_of(*environment, path); };
  }
  // The rule engine concludes; the report shows its findings.
  const rules::RuleOutput checks =
      rules::run_folder_rules(rules::scanned_folders(result.files, rules, input.windows_path), rules);
  for (const auto& problem : checks.problems) print_message("internal: " + problem);
  input.findings = &checks.findings;
  const report::ScanView view(input);
  const int written = write_report(report::scan_writers(), command.format, view, command.output,
                                   {use_color(command.no_color, command.output)}, "--scan");
  // The main command's contract: 1 when there is a finding of error severity, 2 when it could not run.
  if (written != kExitOk) return written;
  return view.errors() > 0 ? kExitFindings : kExitOk;
}

}  // namespace dlldoctor::cli
