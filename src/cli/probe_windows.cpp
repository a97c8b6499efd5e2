// The real loader as a second opinion: every probe starts a process under the debugging API, where
// each LOAD_DLL_DEBUG_EVENT gives the full path of a module the loader mapped. Explicit opt-in: the
// probed program's code runs (its DllMains at least).
//  - a program: it simply runs, for the time allowed;
//  - a DLL: a child dlldoctor.exe loads it (`--probe-child-load`);
//  - a host with --load calls: the host starts; at its entry point, after the loader has done the
//    start-up and before the program's own code runs, its main thread is made to call
//    SetDefaultDllDirectories / AddDllDirectory / SetDllDirectoryW / LoadLibraryExW, one call at a time,
//    and then the process is ended. The calls happen in the host itself, so the loader sees its
//    application folder, its PATH and its current folder. A load recipe (--import) is replayed the same
//    way: each load's AddDllDirectory calls just before it, and PyTorch's retry (SetEnvironmentVariableW
//    of PATH, then LoadLibraryW) only when the load failed with 126.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>

#include "cli/commands.hpp"
#include "core/utf8_windows.hpp"
#include "core/windows_api.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/pe/reader.hpp"

namespace dlldoctor::cli {
namespace {

std::string path_of_handle(HANDLE file) {
  if (!file) return {};
  wchar_t buffer[1024];
  const DWORD n = GetFinalPathNameByHandleW(file, buffer, 1024, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
  if (n == 0 || n >= 1024) return {};
  std::string path = narrow(std::wstring_view(buffer, n));
  // GetFinalPathNameByHandleW answers in the \\?\ form.
  if (path.rfind("\\\\?\\UNC\\", 0) == 0) return "\\\\" + path.substr(8);
  if (path.rfind("\\\\?\\", 0) == 0) return path.substr(4);
  return path;
}

// A loaded module by its file name (the loader reports paths of files).
DllName module_file(const std::string& path) { return DllName::of_file(base_name(path)); }

// This process's environment block with PATH replaced: `Name=value` strings, each NUL-terminated, and
// one more NUL at the end.
std::wstring environment_with_path(const std::wstring& path) {
  std::wstring block;
  if (wchar_t* strings = GetEnvironmentStringsW()) {
    for (const wchar_t* entry = strings; *entry; entry += wcslen(entry) + 1) {
      if (_wcsnicmp(entry, L"PATH=", 5) != 0) block.append(entry).push_back(L'\0');
    }
    FreeEnvironmentStringsW(strings);
  }
  block.append(L"PATH=" + path).push_back(L'\0');
  block.push_back(L'\0');
  return block;
}

// What a probe does inside the debugged process beyond watching it: the host probe's calls.
class ProcessScript {
 public:
  virtual ~ProcessScript() = default;
  // The process exists (CREATE_PROCESS_DEBUG_EVENT); `base` is where its exe is mapped. An error ends it.
  virtual std::optional<Error> on_start(HANDLE process, std::uint64_t base) = 0;
  // A breakpoint in the process: true when it was the script's own (the thread's context may have been
  // changed); false for any other (the loader's initial breakpoint).
  virtual Result<bool> on_breakpoint(HANDLE process, HANDLE thread, std::uint64_t address, ProbeResult& result) = 0;
};

// Runs `program` with `command_line` under the debugging API and records every DLL the loader maps.
Result<ProbeResult> run_under_debugger(const std::string& program, std::wstring command_line, const ProbeProcess& how,
                                       ProcessScript* script = nullptr) {
  // No "the code execution cannot proceed" dialog box: the child inherits the error mode.
  const UINT previous_mode = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION process{};
  std::wstring environment = how.path ? environment_with_path(widen(*how.path)) : std::wstring();
  const std::wstring cwd = how.cwd ? widen(*how.cwd) : std::wstring();
  const BOOL started =
      CreateProcessW(widen(program).c_str(), command_line.data(), nullptr, nullptr, FALSE,
                     DEBUG_ONLY_THIS_PROCESS | CREATE_NO_WINDOW | CREATE_UNICODE_ENVIRONMENT,
                     how.path ? environment.data() : nullptr, how.cwd ? cwd.c_str() : nullptr, &startup, &process);
  SetErrorMode(previous_mode);
  if (!started) return Error{"cannot start " + program + " (error " + std::to_string(GetLastError()) + ")"};
  ProbeResult result;
  if (const HMODULE ntdll = GetModuleHandleW(L"ntdll.dll"))
    result.wine = GetProcAddress(ntdll, "wine_get_version") != nullptr;
  std::optional<Error> failure;
  auto stop = [&](Error error) {
    if (!failure) failure = std::move(error);
    TerminateProcess(process.hProcess, 1);
  };
  const ULONGLONG deadline = GetTickCount64() + how.timeout_ms;
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
        if (script) {
          const auto base = reinterpret_cast<std::uintptr_t>(event.u.CreateProcessInfo.lpBaseOfImage);
          if (auto error = script->on_start(process.hProcess, base)) stop(*error);
        }
        break;
      case LOAD_DLL_DEBUG_EVENT:
        if (event.u.LoadDll.hFile) {
          const std::string path = path_of_handle(event.u.LoadDll.hFile);
          if (!path.empty()) {
            result.modules.push_back(path);
            result.bases[reinterpret_cast<std::uintptr_t>(event.u.LoadDll.lpBaseOfDll)] = path;
          }
          CloseHandle(event.u.LoadDll.hFile);
        }
        break;
      case EXCEPTION_DEBUG_EVENT: {
        const EXCEPTION_RECORD& record = event.u.Exception.ExceptionRecord;
        const auto address = reinterpret_cast<std::uintptr_t>(record.ExceptionAddress);
        if (record.ExceptionCode != EXCEPTION_BREAKPOINT) {
          // The program's own exceptions are its own, unless the script's calls are running.
          status = DBG_EXCEPTION_NOT_HANDLED;
          if (script && event.u.Exception.dwFirstChance == 0)
            stop(Error{"the probed process crashed (exception " + std::to_string(record.ExceptionCode) + ")"});
          break;
        }
        if (!script) break;  // the loader's initial breakpoint is ours to swallow
        HANDLE thread = OpenThread(THREAD_GET_CONTEXT | THREAD_SET_CONTEXT, FALSE, event.dwThreadId);
        auto handled = thread ? script->on_breakpoint(process.hProcess, thread, address, result)
                              : Result<bool>(Error{"cannot open the probed thread"});
        if (thread) CloseHandle(thread);
        if (!handled) stop(handled.error());
        break;
      }
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
  if (failure) return *failure;
  return result;
}

std::string self_path() {
  wchar_t buffer[1024];
  const DWORD n = GetModuleFileNameW(nullptr, buffer, 1024);
  return n == 0 || n >= 1024 ? std::string() : narrow(std::wstring_view(buffer, n));
}

#if defined(_M_X64) || defined(__x86_64__)

// A function of a system DLL as the probed process sees it. System DLLs of one machine type map at the
// same address in every process of a boot; the address is still rebased on the module the probed process
// reported, in case it did not.
struct RemoteFunction {
  DllName module;  // the file it is in
  std::uint64_t offset = 0;
};

Result<RemoteFunction> find_function(const char* name) {
  const FARPROC address = GetProcAddress(GetModuleHandleW(L"kernel32.dll"), name);
  HMODULE owner = nullptr;
  if (!address ||
      !GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          reinterpret_cast<LPCWSTR>(address), &owner))
    return Error{std::string("this Windows has no kernel32 function ") + name};
  wchar_t buffer[1024];
  const DWORD n = GetModuleFileNameW(owner, buffer, 1024);
  if (n == 0 || n >= 1024) return Error{std::string("cannot name the module of ") + name};
  return RemoteFunction{module_file(narrow(std::wstring_view(buffer, n))),
                        reinterpret_cast<std::uintptr_t>(address) - reinterpret_cast<std::uintptr_t>(owner)};
}

// This process's PATH, which a probed process started without --path inherits.
std::wstring own_path() {
  const DWORD size = GetEnvironmentVariableW(L"PATH", nullptr, 0);
  if (size == 0) return {};
  std::wstring path(size, L'\0');
  const DWORD n = GetEnvironmentVariableW(L"PATH", path.data(), size);
  path.resize(n < size ? n : 0);
  return path;
}

// The host probe: the exe's entry point gets an int3; when the main thread reaches it, the loader has
// finished the start-up. From there the thread is pointed at one kernel32 function after another, with the
// entry point as the return address, so each call ends at the same int3 and hands the thread back.
class HostScript final : public ProcessScript {
 public:
  HostScript(std::uint32_t entry_rva, const HostCalls& calls, std::wstring started_path)
      : entry_rva_(entry_rva), calls_(calls), started_path_(std::move(started_path)) {}

  std::optional<Error> on_start(HANDLE process, std::uint64_t base) override {
    entry_ = base + entry_rva_;
    const std::uint8_t int3 = 0xCC;
    if (!WriteProcessMemory(process, reinterpret_cast<void*>(entry_), &int3, 1, nullptr))
      return Error{"cannot set a breakpoint at the host's entry point (error " + std::to_string(GetLastError()) + ")"};
    FlushInstructionCache(process, reinterpret_cast<void*>(entry_), 1);
    return std::nullopt;
  }

  Result<bool> on_breakpoint(HANDLE process, HANDLE thread, std::uint64_t address, ProbeResult& result) override {
    if (address != entry_) return false;
    CONTEXT context{};
    context.ContextFlags = CONTEXT_FULL;
    if (!GetThreadContext(thread, &context)) return Error{"cannot read the host's main thread"};
    if (step_ == Step::Start) {
      // Below the entry point's frame: stack the loader's start-up has used, so it is committed.
      frame_ = ((context.Rsp - 0x100) & ~std::uint64_t{0xF}) - 8;
      result.loads.clear();
      return begin(Step::Allocate, process, thread, context, result);
    }
    return finish(process, thread, context, result);
  }

 private:
  enum class Step { Start, Allocate, Call, LastError, Done };
  struct Call {
    const char* function;
    std::array<std::uint64_t, 4> arguments;
    std::optional<std::size_t> load;  // index of the --load, for LoadLibraryExW of a --load
    std::string what;                 // for messages
    // Made only when that load's LoadLibraryExW failed with 126: PyTorch's retry.
    std::optional<std::size_t> retry_of{};
    bool sets_path = false;  // SetEnvironmentVariableW(L"PATH", ...): its value is written when it is made
  };

  // The calls, in the simulation's order, with their strings placed in the memory VirtualAlloc returned.
  Result<std::vector<Call>> plan(HANDLE process, std::uint64_t memory) {
    std::vector<Call> planned;
    std::wstring strings;
    auto place = [&](const std::string& text) {
      const std::uint64_t at = memory + strings.size() * sizeof(wchar_t);
      strings += widen(text);
      strings.push_back(L'\0');
      return at;
    };
    auto add_directory = [&](const std::string& dir) {
      planned.push_back({"AddDllDirectory", {place(dir), 0, 0, 0}, std::nullopt, "AddDllDirectory(" + dir + ")"});
    };
    auto set_directory = [&](const std::string& dir) {
      planned.push_back({"SetDllDirectoryW", {place(dir), 0, 0, 0}, std::nullopt, "SetDllDirectoryW(" + dir + ")"});
    };
    if (calls_.default_dirs)
      planned.push_back(
          {"SetDefaultDllDirectories", {*calls_.default_dirs, 0, 0, 0}, std::nullopt, "SetDefaultDllDirectories"});
    for (const auto& dir : calls_.add_dll_dirs) add_directory(dir);
    if (calls_.dll_directory) set_directory(*calls_.dll_directory);
    for (const auto& path : calls_.preload)
      planned.push_back({"LoadLibraryExW", {place(path), 0, 0, 0}, std::nullopt, "preloading " + path});
    for (std::size_t i = 0; i < calls_.loads.size(); ++i) {
      const HostLoad& load = calls_.loads[i];
      for (const auto& dir : load.add_dll_dirs) add_directory(dir);
      if (load.dll_directory) set_directory(*load.dll_directory);
      const std::uint64_t name = place(load.name);
      planned.push_back({"LoadLibraryExW", {name, 0, load.flags, 0}, i, ""});
      if (load.retry_path.empty()) continue;
      planned.push_back({"SetEnvironmentVariableW",
                         {place("PATH"), 0, 0, 0},
                         std::nullopt,
                         "SetEnvironmentVariableW(PATH) for the retry of " + load.name,
                         i,
                         true});
      planned.push_back({"LoadLibraryW", {name, 0, 0, 0}, i, "", i});
    }
    for (const auto& dir : calls_.dirs_after_loads) add_directory(dir);
    strings_end_ = strings.size() * sizeof(wchar_t);
    if (strings_end_ > kStringsSize) return Error{"the --load names are too long to probe"};
    if (!WriteProcessMemory(process, reinterpret_cast<void*>(memory), strings.data(), strings_end_, nullptr))
      return Error{"cannot write the call arguments into the host"};
    memory_ = memory;
    return planned;
  }

  // A retry's PATH: the folders of every retry made so far (the simulation keeps each folder once, first
  // come first), then the PATH the host was started with. Written after the other strings.
  Result<std::uint64_t> place_path(HANDLE process, const HostLoad& load) {
    for (const auto& dir : load.retry_path)
      if (std::find(prepended_.begin(), prepended_.end(), dir) == prepended_.end()) prepended_.push_back(dir);
    std::wstring path;
    for (const auto& dir : prepended_) path += widen(dir) + L";";
    if (started_path_.empty()) {
      path.pop_back();
    } else {
      path += started_path_;
    }
    path.push_back(L'\0');
    const std::size_t bytes = path.size() * sizeof(wchar_t);
    if (strings_end_ + bytes > kMemorySize) return Error{"the PATH of the retry of " + load.name + " is too long"};
    const std::uint64_t at = memory_ + strings_end_;
    if (!WriteProcessMemory(process, reinterpret_cast<void*>(at), path.data(), bytes, nullptr))
      return Error{"cannot write the retry's PATH into the host"};
    return at;
  }

  Result<bool> begin(Step step, HANDLE process, HANDLE thread, CONTEXT& context, ProbeResult& result) {
    step_ = step;
    if (step == Step::Allocate)
      return call(process, thread, context, result, "VirtualAlloc",
                  {0, kMemorySize, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE});
    if (step == Step::Call) {
      // A retry is made only after its load failed with 126.
      while (next_ < planned_.size() && planned_[next_].retry_of &&
             result.loads[*planned_[next_].retry_of].error != 126)
        ++next_;
      if (next_ == planned_.size()) {
        step_ = Step::Done;
        TerminateProcess(process, 0);
        return true;
      }
      Call& planned = planned_[next_];
      if (planned.sets_path) {
        auto path = place_path(process, calls_.loads[*planned.retry_of]);
        if (!path) return path.error();
        planned.arguments[1] = *path;
      }
      return call(process, thread, context, result, planned.function, planned.arguments);
    }
    return call(process, thread, context, result, "GetLastError", {0, 0, 0, 0});
  }

  Result<bool> finish(HANDLE process, HANDLE thread, CONTEXT& context, ProbeResult& result) {
    const std::uint64_t value = context.Rax;
    switch (step_) {
      case Step::Allocate: {
        if (value == 0) return Error{"VirtualAlloc failed in the host"};
        auto planned = plan(process, value);
        if (!planned) return planned.error();
        planned_ = std::move(*planned);
        result.loads.assign(calls_.loads.size(), {});
        return begin(Step::Call, process, thread, context, result);
      }
      case Step::Call:
        if (const auto load = planned_[next_].load; load && value != 0) {
          const auto module = result.bases.find(value);
          result.loads[*load] = {0, module != result.bases.end() ? module->second : ""};
        }
        if (value == 0) return begin(Step::LastError, process, thread, context, result);
        ++next_;
        return begin(Step::Call, process, thread, context, result);
      case Step::LastError: {
        const auto error = static_cast<std::uint32_t>(value);
        if (const auto load = planned_[next_].load) {
          result.loads[*load].error = error;
        } else {
          return Error{planned_[next_].what + " failed in the host (error " + std::to_string(error) + ")"};
        }
        ++next_;
        return begin(Step::Call, process, thread, context, result);
      }
      default: return true;
    }
  }

  // Points the thread at `function(arguments)` with the entry point's int3 as the return address.
  Result<bool> call(HANDLE process, HANDLE thread, CONTEXT& context, const ProbeResult& result, const char* function,
                    const std::array<std::uint64_t, 4>& arguments) {
    auto target = find_function(function);
    if (!target) return target.error();
    const std::uint64_t base = module_base(result, target->module);
    if (base == 0) return Error{"the host has no " + target->module.key() + " loaded"};
    if (!WriteProcessMemory(process, reinterpret_cast<void*>(frame_), &entry_, sizeof entry_, nullptr))
      return Error{"cannot write to the host's stack"};
    // x64 calling convention: four arguments in registers, 32 bytes of home space above the return address.
    context.Rsp = frame_;
    context.Rip = base + target->offset;
    context.Rcx = arguments[0];
    context.Rdx = arguments[1];
    context.R8 = arguments[2];
    context.R9 = arguments[3];
    if (!SetThreadContext(thread, &context)) return Error{"cannot set the host's main thread"};
    return true;
  }

  // Where the host mapped a module: as its load event said, else where this process has it.
  static std::uint64_t module_base(const ProbeResult& result, const DllName& module) {
    for (const auto& [base, path] : result.bases)
      if (module_file(path) == module) return base;
    return reinterpret_cast<std::uintptr_t>(GetModuleHandleW(widen(module.key()).c_str()));
  }

  // The call's strings, then room for a retry's PATH (up to 32767 characters).
  static constexpr std::uint64_t kStringsSize = 0x10000;
  static constexpr std::uint64_t kMemorySize = kStringsSize + 0x12000;
  std::uint32_t entry_rva_;
  const HostCalls& calls_;
  std::wstring started_path_;  // the PATH the host was started with
  std::vector<std::string> prepended_;
  std::uint64_t memory_ = 0;
  std::size_t strings_end_ = 0;
  std::uint64_t entry_ = 0;
  std::uint64_t frame_ = 0;
  Step step_ = Step::Start;
  std::vector<Call> planned_;
  std::size_t next_ = 0;
};
#endif

}  // namespace

Result<ProbeResult> probe_program(const std::string& program, const ProbeProcess& process) {
  auto result = run_under_debugger(program, L"\"" + widen(program) + L"\"", process);
  if (result) {
    // The NTSTATUS a process ends with when the loader refuses it: not found, bad image, missing export.
    const auto code = result->exit_code;
    result->load_failed = code && (*code == 0xC0000135u || *code == 0xC000007Bu || *code == 0xC0000139u);
  }
  return result;
}

Result<ProbeResult> probe_dll(const std::string& dll, const ProbeProcess& process) {
  const std::string self = self_path();
  if (self.empty()) return Error{"cannot find dlldoctor.exe itself to load the DLL in a child process"};
  auto result =
      run_under_debugger(self, L"\"" + widen(self) + L"\" --probe-child-load \"" + widen(dll) + L"\"", process);
  if (result) result->load_failed = result->exit_code.value_or(0) != 0;
  return result;
}

Result<ProbeResult> probe_host(const std::string& host, const HostCalls& calls, const ProbeProcess& process) {
#if defined(_M_X64) || defined(__x86_64__)
  auto image = pe::read_image_file(host);
  if (!image) return Error{host + ": " + image.error().message};
  if (image->machine != 0x8664)
    return Error{"probe --host makes the calls inside the host, which dlldoctor.exe can do for x64 programs only; " +
                 host + " is " + pe::machine_name(image->machine)};
  if (image->is_dll || image->entry_point == 0) return Error{"probe --host needs a program with an entry point"};
  HostScript script(image->entry_point, calls, process.path ? widen(*process.path) : own_path());
  auto result = run_under_debugger(host, L"\"" + widen(host) + L"\"", process, &script);
  if (!result) return result;
  // The calls ran only if the start-up reached the entry point; otherwise the exit code says why not.
  const auto code = result->exit_code;
  result->load_failed =
      result->loads.empty() && code && (*code == 0xC0000135u || *code == 0xC000007Bu || *code == 0xC0000139u);
  return result;
#else
  (void)host;
  (void)calls;
  (void)process;
  return Error{"probe --host makes the calls inside the host's main thread, which needs dlldoctor.exe for x64"};
#endif
}

int probe_child_load(const std::string& dll) {
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  const HMODULE module = LoadLibraryExW(widen(dll).c_str(), nullptr, LOAD_WITH_ALTERED_SEARCH_PATH);
  return module ? 0 : static_cast<int>(GetLastError());
}

}  // namespace dlldoctor::cli
