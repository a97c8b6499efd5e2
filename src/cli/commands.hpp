#pragma once
// Each command binds its flags onto a CLI11 subcommand and returns the callback that runs it.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/rules/probe_comparison.hpp"
#include "dlldoctor/rules/rule_engine.hpp"
#include "dlldoctor/session/machine.hpp"

namespace dlldoctor::cli {

// Exit statuses shared by every command: 0 fine, 1 problems found, 2 the tool could not do its job.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitFailure = 2;

using Runner = std::function<int()>;

// The flags that say which Windows machine a command looks at, as given, and the one mapping of them to
// the session's MachineSpec: explain, probe and check take the same flags to mean the same machine.
struct MachineFlags {
  std::string argv0;                // where the rules beside the binary are looked for
  std::vector<std::string> rules;   // --rules
  std::string sysroot;              // --sysroot
  std::vector<std::string> path;    // --path, one entry or PATH each
  std::string cwd;                  // --cwd
  std::string safe_mode;            // --safe-dll-search-mode on|off ("": the machine's)
  std::string known_dlls;           // --known-dlls A,B,...
  std::string windows_user;         // --windows-user
  bool assume_system_dlls = false;  // --assume-system-dlls
  std::vector<std::string> maps;    // --map HOSTDIR=WINDOWSDIR
  std::string env_file;             // --env: a snapshot to replay
  std::vector<std::string> setenv;  // --setenv NAME=VALUE: variables a recipe reads
};
session::MachineSpec machine_spec(const MachineFlags& flags);

// The arguments of a command line, so that only what it can name is bound: CLI11 compares every flag it
// binds with each one bound before it, which cost more than the rest of a run's start-up. A line CLI11
// refuses (an unbound flag is one it refuses) and --help are parsed again with `every` set, so usage
// text and messages know every flag (src/cli/main.cpp).
class CommandLine {
 public:
  CommandLine(const std::vector<char*>& args, bool every);
  // Whether an argument is `command`: CLI11 names a subcommand by a whole argument.
  bool names_command(std::string_view command) const;
  // Whether an argument starts with one of `names` (CLI11's list: "-o,--output"), which covers "--output",
  // "--output=x", "-o" and "-ox". A yes in vain costs only time.
  bool names_flag(std::string_view names) const;

 private:
  std::vector<std::string_view> arguments_;  // without the program's name
  bool every_;
};

// A repeatable option takes one value per occurrence (--path A --path B), as in other CLIs: CLI11's
// default for a list took every value up to the next flag and swallowed the program (`--path X app.exe`).
// An option that takes several values at once says so after this (--scan).
inline CLI::Option* one_value_each(CLI::Option* option) {
  if (option->get_expected_max() <= 1) return option;
  return option->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// Binds onto `app` the flags `line` names; a flag left out is nullptr. That leaving a flag out cannot change
// what a command line that parses means rests on how dlldoctor sets CLI11 up: no command allows extra
// arguments, falls through, ignores case or takes Windows-style options, and no flag is required, needs
// or excludes another or reads an environment variable or a config file.
class FlagBinder {
 public:
  FlagBinder(CLI::App& app, const CommandLine& line) : app_(app), line_(line) {}
  template <typename T>
  CLI::Option* option(const std::string& names, T& target, const std::string& description,
                      const char* group = nullptr) {
    return line_.names_flag(names) ? in_group(one_value_each(app_.add_option(names, target, description)), group)
                                   : nullptr;
  }
  CLI::Option* flag(const std::string& names, bool& target, const std::string& description,
                    const char* group = nullptr) {
    return line_.names_flag(names) ? in_group(app_.add_flag(names, target, description), group) : nullptr;
  }

 private:
  static CLI::Option* in_group(CLI::Option* option, const char* group) {
    return group != nullptr ? option->group(group) : option;
  }

  CLI::App& app_;
  const CommandLine& line_;
};

// The same calls as FlagBinder, binding onto a subcommand whatever the command line names (the subcommands
// are set up only when named), so that one binding function serves both.
class CommandBinder {
 public:
  explicit CommandBinder(CLI::App& command) : command_(command) {}
  template <typename T>
  CLI::Option* option(const std::string& names, T& target, const std::string& description) {
    return one_value_each(command_.add_option(names, target, description));
  }
  CLI::Option* flag(const std::string& names, bool& target, const std::string& description) {
    return command_.add_flag(names, target, description);
  }

 private:
  CLI::App& command_;
};

// A subcommand set up without `bind_flags` is only its name and help, for a command line that does not name
// it (src/cli/main.cpp); its runner is then empty, never called.
Runner setup_inspect(CLI::App& app, bool bind_flags);
// `dlldoctor sdk DIR`, and the top-level spelling `dlldoctor --sdk DIR` (main runs it when app.count("--sdk")),
// which is bound whatever `bind_flags` says.
Runner setup_sdk(CLI::App& app, const std::string& argv0, bool bind_flags);
// The main job binds onto the top-level command: `dlldoctor APP.exe [flags]`, and `dlldoctor --scan DIR`.
Runner setup_explain(CLI::App& app, const std::string& argv0, const CommandLine& line);
// `dlldoctor probe APP.exe [flags]`: the main job's simulation flags, so the probe checks the very
// simulation they describe, and --probe-timeout.
Runner setup_probe(CLI::App& app, const std::string& argv0, const CommandLine& line);
// `dlldoctor snapshot -o env.json`.
Runner setup_snapshot(CLI::App& app, const std::string& argv0, bool bind_flags);
Runner setup_recipes(CLI::App& app, const std::string& argv0, bool bind_flags);
// `dlldoctor check`: the whole machine.
Runner setup_check(CLI::App& app, const std::string& argv0, bool bind_flags);

// kExitFailure, with a message naming it and `why`, when the command line of `app` gave an option (or the
// positional program) outside `allowed` (long names, "program" for the positional): `mode` would ignore
// it. kExitOk otherwise.
int refuse_options_except(const CLI::App& app, const std::set<std::string>& allowed, const std::string& mode,
                          const std::string& why);

// Adds to every option of `app` and its subcommands that takes a value the check that the value is not a
// Windows path whose backslashes a shell removed (C:work): exit 2 with "quote it" (src/cli/argument_checks.cpp).
void check_windows_path_values(CLI::App& app);
// The long option of `app` or a subcommand closest to a mistyped `--name` ("" when none is close).
std::string closest_option(const CLI::App& app, const std::string& typed);

// Wraps every description in the help of `app` and its subcommands so that `--help` fits in 80 columns
// (CLI11 indents the lines after a description's newlines to its column). Call once, after every setup_*.
void fit_help_to_80_columns(CLI::App& app);

// What the real loader did (src/cli/probe_windows.cpp; Windows only, an error elsewhere).
using rules::ProbeCallResult;
using rules::ProbeResult;
// How a probed process starts: on this machine, with the PATH and current folder the simulation's flags
// gave (--path, --cwd), else dlldoctor's own.
struct ProbeProcess {
  unsigned timeout_ms = 10000;
  std::optional<std::string> path;
  std::optional<std::string> cwd;
};
Result<ProbeResult> probe_program(const std::string& program, const ProbeProcess& process);
// A DLL: a child copy of dlldoctor calls LoadLibraryExW(dll, LOAD_WITH_ALTERED_SEARCH_PATH), the call
// whose search the simulation of a DLL models (its own folder first for its dependencies).
Result<ProbeResult> probe_dll(const std::string& dll, const ProbeProcess& process);
// The child's side of probe_dll (`dlldoctor --probe-child-load DLL`): loads the DLL and exits with
// GetLastError's value (0 when it loaded).
int probe_child_load(const std::string& dll);
// `--host APP.exe --load ...` and `PYTHON --import ...`: the calls a running program makes, in the order
// the simulation applies them (settings, then preloads, then the loads), made by the host's own main
// thread once its start-up is done and before its code runs. Folders and files by their Windows names:
// the host resolves them.
struct HostLoad {
  std::string name;
  std::uint32_t flags = 0;
  std::vector<std::string> add_dll_dirs;  // AddDllDirectory calls made just before its LoadLibraryExW
  // PyTorch's fallback: on error 126, SetEnvironmentVariableW("PATH", these;<PATH at start>) and then
  // LoadLibraryW(name), whose answer is the load's.
  std::vector<std::string> retry_path;
  // SetDllDirectoryW made just before it (CTranslate2's cuBLAS stub: %CUDA_PATH%\bin at the first call).
  std::optional<std::string> dll_directory;
};
struct HostCalls {
  std::optional<std::uint32_t> default_dirs;  // SetDefaultDllDirectories
  std::vector<std::string> add_dll_dirs;      // AddDllDirectory, before any load (conda's start-up, --add-dll-dir)
  std::optional<std::string> dll_directory;   // SetDllDirectoryW
  std::vector<std::string> preload;           // LoadLibraryExW(path, 0): the plain LoadLibrary(path)
  std::vector<HostLoad> loads;                // LoadLibraryExW(name, flags), one per request load
  std::vector<std::string> dirs_after_loads;  // AddDllDirectory after the last load (for run-time loads)
};
// The calls that make `request` happen in the host, as the simulation reads it.
HostCalls host_calls(const graph::ClosureRequest& request);
Result<ProbeResult> probe_host(const std::string& host, const HostCalls& calls, const ProbeProcess& process);

// `--version [--format json] [--rules DIR]`, parsed on `app`: what the binary is and which rules it reads
// (src/cli/version.cpp).
int print_version(const CLI::App& app, const std::string& argv0);

}  // namespace dlldoctor::cli
