// `dlldoctor probe APP.exe [flags]`: the real loader as a second opinion (issue 6). Explicit opt-in: it
// RUNS the program. The program starts under the debugging API, every LOAD_DLL_DEBUG_EVENT gives the full
// path of a module the loader mapped, and the list is compared with the prediction; any difference is a
// finding of its own ("probe-differs"). Windows only: elsewhere the command says so and exits with 2.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "cli/commands.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/rules/rule_engine.hpp"

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#endif

namespace dlldoctor::cli {
namespace {

std::string lower_windows_path(std::string path) {
  // GetFinalPathNameByHandleW answers in the \\?\ form.
  if (path.rfind("\\\\?\\UNC\\", 0) == 0) {
    path = "\\\\" + path.substr(8);
  } else if (path.rfind("\\\\?\\", 0) == 0) {
    path = path.substr(4);
  }
  for (char& c : path) {
    if (c == '/') c = '\\';
  }
  return ascii_lower(path);
}

std::string base_of(const std::string& path) {
  const auto slash = path.find_last_of("\\/");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

#ifdef _WIN32
std::wstring widen(const std::string& utf8) {
  const int n = MultiByteToWideChar(CP_UTF8, 0, utf8.c_str(), -1, nullptr, 0);
  std::wstring out(static_cast<std::size_t>(n > 0 ? n - 1 : 0), L'\0');
  if (n > 1) MultiByteToWideChar(CP_UTF8, 0, utf8.c_str(), -1, out.data(), n);
  return out;
}

std::string narrow(const wchar_t* wide, std::size_t length) {
  const int n = WideCharToMultiByte(CP_UTF8, 0, wide, static_cast<int>(length), nullptr, 0, nullptr, nullptr);
  std::string out(static_cast<std::size_t>(n > 0 ? n : 0), '\0');
  if (n > 0) WideCharToMultiByte(CP_UTF8, 0, wide, static_cast<int>(length), out.data(), n, nullptr, nullptr);
  return out;
}

std::string path_of_handle(HANDLE file) {
  if (!file) return {};
  wchar_t buffer[1024];
  const DWORD n = GetFinalPathNameByHandleW(file, buffer, 1024, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
  if (n == 0 || n >= 1024) return {};
  return narrow(buffer, n);
}
#endif

}  // namespace

#ifdef _WIN32
namespace {

// Runs `program` with `command_line` under the debugging API and records every DLL the loader maps.
Result<ProbeResult> run_under_debugger(const std::string& program, std::wstring command_line, unsigned timeout_ms) {
  // No "the code execution cannot proceed" dialog box: the child inherits the error mode.
  const UINT previous_mode = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION process{};
  const BOOL started = CreateProcessW(widen(program).c_str(), command_line.data(), nullptr, nullptr, FALSE,
                                      DEBUG_ONLY_THIS_PROCESS | CREATE_NO_WINDOW, nullptr, nullptr, &startup, &process);
  SetErrorMode(previous_mode);
  if (!started) return Error{"cannot start " + program + " (error " + std::to_string(GetLastError()) + ")"};
  ProbeResult result;
  if (const HMODULE ntdll = GetModuleHandleW(L"ntdll.dll"))
    result.wine = GetProcAddress(ntdll, "wine_get_version") != nullptr;
  const ULONGLONG deadline = GetTickCount64() + timeout_ms;
  bool running = true;
  while (running) {
    DEBUG_EVENT event{};
    const ULONGLONG now = GetTickCount64();
    if (now >= deadline || !WaitForDebugEvent(&event, static_cast<DWORD>(deadline - now))) {
      // Still running after the time allowed (a program that waits for input, a GUI): the loads so far count.
      result.timed_out = true;
      TerminateProcess(process.hProcess, 1);
      DebugActiveProcessStop(process.dwProcessId);
      break;
    }
    DWORD status = DBG_CONTINUE;
    switch (event.dwDebugEventCode) {
      case CREATE_PROCESS_DEBUG_EVENT:
        if (event.u.CreateProcessInfo.hFile) CloseHandle(event.u.CreateProcessInfo.hFile);
        break;
      case LOAD_DLL_DEBUG_EVENT:
        if (event.u.LoadDll.hFile) {
          const std::string path = path_of_handle(event.u.LoadDll.hFile);
          if (!path.empty()) result.modules.push_back(path);
          CloseHandle(event.u.LoadDll.hFile);
        }
        break;
      case EXCEPTION_DEBUG_EVENT:
        // The loader's initial breakpoint is ours to swallow; the program's own exceptions are its own.
        if (event.u.Exception.ExceptionRecord.ExceptionCode != EXCEPTION_BREAKPOINT) status = DBG_EXCEPTION_NOT_HANDLED;
        break;
      case EXIT_PROCESS_DEBUG_EVENT:
        result.exit_code = event.u.ExitProcess.dwExitCode;
        running = false;
        break;
      default: break;
    }
    ContinueDebugEvent(event.dwProcessId, event.dwThreadId, status);
  }
  CloseHandle(process.hThread);
  CloseHandle(process.hProcess);
  return result;
}

std::string self_path() {
  wchar_t buffer[1024];
  const DWORD n = GetModuleFileNameW(nullptr, buffer, 1024);
  return n == 0 || n >= 1024 ? std::string() : narrow(buffer, n);
}

}  // namespace
#endif

Result<ProbeResult> probe_program(const std::string& program, unsigned timeout_ms) {
#ifdef _WIN32
  auto result = run_under_debugger(program, L"\"" + widen(program) + L"\"", timeout_ms);
  if (result) {
    // The NTSTATUS a process ends with when the loader refuses it: not found, bad image, missing export.
    const auto code = result->exit_code;
    result->load_failed = code && (*code == 0xC0000135u || *code == 0xC000007Bu || *code == 0xC0000139u);
  }
  return result;
#else
  (void)program;
  (void)timeout_ms;
  return Error{"probe runs the program under Windows' own loader: it needs Windows (or Wine)"};
#endif
}

Result<ProbeResult> probe_dll(const std::string& dll, unsigned timeout_ms) {
#ifdef _WIN32
  const std::string self = self_path();
  if (self.empty()) return Error{"cannot find dlldoctor.exe itself to load the DLL in a child process"};
  auto result =
      run_under_debugger(self, L"\"" + widen(self) + L"\" --probe-child-load \"" + widen(dll) + L"\"", timeout_ms);
  if (result) result->load_failed = result->exit_code.value_or(0) != 0;
  return result;
#else
  (void)dll;
  (void)timeout_ms;
  return Error{"probe loads the DLL with Windows' own loader: it needs Windows (or Wine)"};
#endif
}

int probe_child_load(const std::string& dll) {
#ifdef _WIN32
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  const HMODULE module = LoadLibraryExW(widen(dll).c_str(), nullptr, LOAD_WITH_ALTERED_SEARCH_PATH);
  return module ? 0 : static_cast<int>(GetLastError());
#else
  (void)dll;
  return kExitFailure;
#endif
}

void compare_with_probe(const ProbeResult& probe, const graph::Closure& closure, const rules::RuleData& rule_data,
                        rules::RuleOutput& output) {
  rules::FindingSink sink(rule_data);
  std::map<std::string, std::string> loaded;  // base name -> lower-case full path, first load wins
  for (const std::string& module : probe.modules) {
    const std::string lower = lower_windows_path(module);
    loaded.emplace(base_of(lower), lower);
  }
  const bool predicted_ok = closure.startup.value_or(closure.outcome).ok;
  const bool startup_failed = probe.load_failed;
  for (const graph::Module& module : closure.modules) {
    if (module.is_root || module.resolution.api_set_host) continue;
    const resolve::Resolution& r = module.resolution;
    const bool predicted_loaded = r.failure == resolve::Failure::None;
    const std::string predicted =
        predicted_loaded ? lower_windows_path(r.windows_path.value_or(r.path.value_or(""))) : "";
    auto real = loaded.find(module.key);
    nlohmann::ordered_json evidence = {
        {"predicted", predicted_loaded ? nlohmann::ordered_json(predicted) : nullptr},
        {"loaded", real != loaded.end() ? nlohmann::ordered_json(real->second) : nullptr},
        {"exit_code", probe.exit_code ? nlohmann::ordered_json(*probe.exit_code) : nullptr}};
    // Wine maps its builtin DLLs from its own folder (...\x86_64-windows\), standing in for the system
    // folder's copy: the same decision as a predicted system DLL.
    const bool wine_builtin_for_system =
        probe.wine && real != loaded.end() &&
        (real->second.find("\\x86_64-windows\\") != std::string::npos ||
         real->second.find("\\i386-windows\\") != std::string::npos) &&
        (r.found_by == resolve::SearchStep::KnownDll || r.found_by == resolve::SearchStep::System32);
    if (real != loaded.end() && predicted_loaded && real->second != predicted && !wine_builtin_for_system) {
      sink.emit("probe-differs", "other_copy", module.name,
                {{"dll", module.name}, {"predicted", predicted}, {"loaded", real->second}}, evidence);
    } else if (real != loaded.end() && !predicted_loaded) {
      sink.emit("probe-differs", "loaded_anyway", module.name, {{"dll", module.name}, {"loaded", real->second}},
                evidence);
    } else if (real == loaded.end() && predicted_loaded && module.load == graph::LoadKind::Static && !startup_failed &&
               predicted_ok) {
      sink.emit("probe-differs", "not_loaded", module.name, {{"dll", module.name}, {"predicted", predicted}}, evidence);
    }
  }
  if (predicted_ok == startup_failed) {
    const std::string code = probe.exit_code ? fmt::format("0x{:08X}", *probe.exit_code) : "none";
    sink.emit("probe-differs", predicted_ok ? "startup_failed" : "startup_ok", "", {{"exit_code", code}},
              {{"exit_code", probe.exit_code ? nlohmann::ordered_json(*probe.exit_code) : nullptr},
               {"predicted_ok", predicted_ok}});
  }
  rules::RuleOutput mine = sink.take();
  for (auto& problem : mine.problems) output.problems.push_back(std::move(problem));
  for (auto& finding : mine.findings) output.findings.push_back(std::move(finding));
  std::stable_sort(output.findings.begin(), output.findings.end(),
                   [](const rules::Finding& a, const rules::Finding& b) { return a.severity < b.severity; });
}

}  // namespace dlldoctor::cli
