#pragma once
// The question `where.exe cudnn64_9.dll` and a new terminal ask: a process started fresh on the machine
// that loads a DLL by name first thing. `check` asks it of every cuDNN generation installed, `--scan` of
// every main DLL it found, when the machine has a PATH to judge.
#include <string>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/session/explain.hpp"
#include "dlldoctor/session/machine.hpp"

namespace dlldoctor::session {

// Its application folder is System32 (searched right after it anyway, so the order is a new process's),
// or the current folder with no Windows system to look at; no file is read for the program itself. No plan
// of its own: the caller plans for all its processes at once.
Result<ExplainRun> new_process_loading(Machine& machine, const std::string& dll);

// "a new process loading cudnn64_9.dll", as a finding's "in:" line says.
std::string new_process_label(const std::string& dll);

// The processes' findings in one list, each once with the processes it was found in, errors first.
struct ProcessFinding {
  rules::Finding finding;
  std::vector<std::string> processes;  // empty for a finding about the machine or a folder
};
void add_finding(std::vector<ProcessFinding>& findings, const rules::Finding& finding, const std::string& process);

}  // namespace dlldoctor::session
