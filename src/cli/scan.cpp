// `dlldoctor --scan DIR...`: every copy of the DLL families in rules/ (or every DLL) under the folders.
#include "cli/scan.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "dlldoctor/report/scan_report.hpp"
#include "dlldoctor/session/scan.hpp"

namespace dlldoctor::cli {

int run_scan(const ScanCommand& command) {
  // --format is the main command's: one the scan has no writer for is refused before a disk is walked.
  if (!has_writer(report::scan_writers(), command.format, "--scan")) return kExitFailure;
  auto machine = session::open_machine(command.machine);
  if (!machine) {
    print_message(machine.error().message);
    return kExitFailure;
  }
  session::ScanRequest request;
  request.roots = command.roots;
  request.all_dlls = command.all_dlls;
  const bool terminal = is_terminal(stderr);
  if (terminal) {
    const auto started = std::chrono::steady_clock::now();
    request.progress = [started](std::uint64_t folders, std::uint64_t entries, std::uint64_t copies) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "\rscanning: %llu folders, %llu entries, %llu copies, %.0f entries/s ",
                   static_cast<unsigned long long>(folders), static_cast<unsigned long long>(entries),
                   static_cast<unsigned long long>(copies), seconds > 0 ? static_cast<double>(entries) / seconds : 0.0);
    };
  }
  auto run = session::scan(*machine, request);
  if (terminal) std::fprintf(stderr, "\r%79s\r", "");  // the progress line fits in 80 columns
  if (!run) {
    print_message(run.error().message);
    return kExitFailure;
  }
  for (const auto& problem : run->checks.problems) print_message("internal: " + problem);
  std::vector<FileRead> read;
  for (const scan::ScannedFile& file : run->result.files) read.push_back({file.path, "a DLL the scan read"});
  for (FileRead& file : machine->files_read()) read.push_back(std::move(file));
  if (refuse_writing_over("-o", command.output, read) != kExitOk) return kExitFailure;
  const report::ScanView view(*run, report::Stamp::now());
  const int written = write_report(report::scan_writers(), command.format, view, command.output,
                                   {use_color(command.habits, command.no_color, command.output)}, "--scan");
  // The main command's contract: 1 when there is a finding of error severity, 2 when it could not run.
  if (written != kExitOk) return written;
  return view.errors() > 0 ? kExitFindings : kExitOk;
}

}  // namespace dlldoctor::cli
