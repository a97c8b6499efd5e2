#include "dlldoctor/session/new_process.hpp"

#include <algorithm>

#include "dlldoctor/env/file_system.hpp"

namespace dlldoctor::session {

Result<ExplainRun> new_process_loading(Machine& machine, const std::string& dll) {
  const env::Environment& environment = machine.environment();
  const std::string folder = environment.system32.exists ? environment.system32.host : environment.cwd.host;
  ExplainRequest request;
  // A name no folder holds: explain takes a host it cannot find for its folder alone.
  request.program = env::join_path(folder, "a-new-process.exe");
  request.program_is_host = true;
  request.loads.push_back({dll, {}});
  request.plan = false;
  return explain(machine, request);
}

std::string new_process_label(const std::string& dll) { return "a new process loading " + dll; }

void add_finding(std::vector<ProcessFinding>& findings, const rules::Finding& finding, const std::string& process) {
  for (ProcessFinding& known : findings) {
    if (!(known.finding.key() == finding.key()) || known.finding.message != finding.message) continue;
    if (!process.empty() && std::find(known.processes.begin(), known.processes.end(), process) == known.processes.end())
      known.processes.push_back(process);
    return;
  }
  ProcessFinding added{finding, {}};
  if (!process.empty()) added.processes.push_back(process);
  findings.push_back(std::move(added));
}

}  // namespace dlldoctor::session
