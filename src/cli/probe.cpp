// `dlldoctor probe ...`: the real loader as a second opinion. The probes themselves need Windows'
// own loader (src/cli/probe_windows.cpp); the rule engine compares what they saw with the
// prediction (rules/probe_comparison.hpp).
#include <cstdio>

#include "cli/commands.hpp"

namespace dlldoctor::cli {
namespace {

// A folder as the host's own calls name it: AddDllDirectory wants the Windows path.
std::string windows_folder(const env::FolderRef& folder) { return folder.windows.value_or(folder.host); }

std::vector<std::string> windows_folders(const std::vector<env::FolderRef>& folders) {
  std::vector<std::string> out;
  for (const env::FolderRef& folder : folders) out.push_back(windows_folder(folder));
  return out;
}

}  // namespace

HostCalls host_calls(const graph::ClosureRequest& request) {
  HostCalls calls;
  calls.default_dirs = request.settings.default_dirs;
  calls.add_dll_dirs = windows_folders(request.settings.user_dirs);
  if (request.settings.dll_directory) calls.dll_directory = windows_folder(*request.settings.dll_directory);
  calls.preload = request.preload;
  for (const graph::LoadCall& load : request.loads) {
    calls.loads.push_back(
        {load.name, load.flags, windows_folders(load.add_dll_directories), windows_folders(load.retry_with_path), {}});
    if (load.set_dll_directory) calls.loads.back().dll_directory = windows_folder(*load.set_dll_directory);
  }
  calls.dirs_after_loads = windows_folders(request.dirs_after_loads);
  return calls;
}

#ifndef _WIN32
// The CLI refuses `probe` before it gets here; these keep the one command line working everywhere.
Result<ProbeResult> probe_program(const std::string&, const ProbeProcess&) {
  return Error{"probe needs Windows (or Wine)"};
}
Result<ProbeResult> probe_dll(const std::string&, const ProbeProcess&) {
  return Error{"probe needs Windows (or Wine)"};
}
Result<ProbeResult> probe_host(const std::string&, const HostCalls&, const ProbeProcess&) {
  return Error{"probe needs Windows (or Wine)"};
}
int probe_child_load(const std::string&) { return kExitFailure; }
#endif

}  // namespace dlldoctor::cli
