#include "dlldoctor/session/scan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "dlldoctor/resolve/resolver.hpp"

namespace dlldoctor::session {
namespace {

// Which copy a 64-bit process of this environment would load, for every DLL name the scan found.
ScanSearch search(const scan::ScanResult& result, Machine& machine) {
  const env::Environment& environment = machine.environment();
  ScanSearch search;
  resolve::ProcessState process;
  process.app_dir = environment.cwd;
  process.machine = pe::machine::kAmd64;
  resolve::Resolver resolver(environment, machine.files(), machine.images(), resolve::WrongMachinePolicy::Skip);
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

Result<ScanRun> scan(Machine& machine, const ScanRequest& request) {
  // `--scan C:\ app.exe` means two things at once: a scan of folders and a program to diagnose.
  for (const std::string& root : request.roots) {
    if (!scan::exists_but_not_folder(root)) continue;
    return Error{root + " is a file: --scan lists the DLLs under folders (a program is diagnosed with dlldoctor " +
                 root + ", one DLL read with dlldoctor inspect " + root + ")"};
  }
  ScanRun run;
  run.rules = &machine.rules();
  // Absolute, so the copies compare equal to what the resolver finds through --path. A Windows path is one on
  // the mounted drive (--sysroot, --map); away from Windows without one it names nothing here.
  for (const std::string& root : request.roots) {
    if (env::is_windows_absolute(root) && machine.has_environment() && machine.environment().sysroot) {
      const env::FolderRef folder = env::resolve_folder(machine.environment(), root, machine.files());
      run.options.roots.push_back(folder.exists ? folder.host : root);
      continue;
    }
#ifndef _WIN32
    if (env::is_windows_absolute(root))
      return Error{"--scan " + root +
                   " is a Windows path: name the mounted Windows drive with --sysroot (--sysroot /mnt/c --scan " +
                   root + " looks under it), or give the folder's path on this machine (--scan /mnt/c)"};
#endif
    run.options.roots.push_back(env::absolute_path(root));
  }
  run.options.all_dlls = request.all_dlls;
  run.options.progress = request.progress;
  // The scan keys files by their lower-case file name (each ends in .dll): a family member's key is that.
  for (const auto& family : machine.rules().families) {
    for (const DllName& member : family.members) run.options.names.insert(member.key());
  }
  run.result = scan::scan(run.options);
  if (run.result.missing_roots.size() == run.options.roots.size()) {
    std::string lines;
    for (const auto& root : run.result.missing_roots) lines += (lines.empty() ? "" : "\n") + root + ": no such folder";
    return Error{lines};
  }
  if (machine.has_environment()) {
    run.search = search(run.result, machine);
    if (machine.environment().sysroot) {
      const env::Environment* environment = &machine.environment();
      run.windows_path = [environment](const std::string& path) { return env::windows_path_of(*environment, path); };
    }
  }
  // The rule engine concludes; the report shows its findings.
  run.checks = rules::run_folder_rules(rules::scanned_folders(run.result.files, machine.rules(), run.windows_path),
                                       machine.rules());
  std::vector<ProcessFinding> findings;
  for (const rules::Finding& finding : run.checks.findings) add_finding(findings, finding, "");
  // With a PATH to judge, the copies that win are judged as `check` judges them: by a process that loads them.
  // Only a generation a new process finds (System32, the PATH): a copy only in a program's folder or a
  // Python package is that program's, and "not found" would contradict the list above.
  if (machine.has_environment()) {
    for (const rules::Family& family : machine.rules().families) {
      const std::string main = family.main.front().key();
      if (family.kind != "cudnn" || !run.search || run.search->chosen.count(main) == 0) continue;
      auto process = new_process_loading(machine, family.main.front().display());
      if (!process) return process.error();
      for (const rules::Finding& finding : process->findings()) {
        // Without a Windows to look at (no --sysroot), System32's MSVC runtime is unknown, not missing.
        const rules::Family* of = machine.rules().family_of(DllName(finding.module));
        if (!machine.environment().system32.exists && of && of->kind == "msvc") continue;
        add_finding(findings, finding, new_process_label(family.main.front().display()));
      }
      for (const std::string& problem : process->diagnosis.rules.problems) run.checks.problems.push_back(problem);
    }
  }
  std::stable_sort(findings.begin(), findings.end(), [](const ProcessFinding& a, const ProcessFinding& b) {
    return a.finding.severity < b.finding.severity;
  });
  run.checks.findings.clear();
  for (ProcessFinding& finding : findings) {
    run.checks.findings.push_back(std::move(finding.finding));
    run.found_in.push_back(std::move(finding.processes));
  }
  return run;
}

}  // namespace dlldoctor::session
