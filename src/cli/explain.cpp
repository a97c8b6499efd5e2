// `dlldoctor APP.exe [flags]`: which copy of every DLL loads, from where, why, and what fails.
#include "dlldoctor/session/explain.hpp"

#include <fmt/format.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/scan.hpp"
#include "dlldoctor/report/closure_report.hpp"
#include "dlldoctor/report/closure_view.hpp"
#include "dlldoctor/session/machine.hpp"

namespace dlldoctor::cli {
namespace {

struct ExplainOptions {
  std::string program;
  std::string host;
  std::vector<std::string> loads;
  std::vector<std::string> load_flags;   // paired with loads through the command line's order
  std::vector<std::size_t> flags_owner;  // index of the --load each --flags follows
  std::string set_default_dirs;
  std::vector<std::string> add_dll_dirs;
  std::string set_dll_dir;
  std::vector<std::string> preload;
  std::vector<std::string> imports;        // --import: load recipes run in the program, a Python interpreter
  std::vector<std::string> site_packages;  // --site-packages: instead of the interpreter's own
  std::string profile;
  std::string wrong_machine = "fail";
  std::string format = "text";
  bool no_color = false;
  OutputHabits habits;
  std::vector<std::string> look_in;
  std::vector<std::string> scan;
  bool all_dlls = false;
  std::string output;
  std::string fix_script;  // --fix-script FILE.ps1
  bool probe = false;      // `dlldoctor probe ...`: also run the program and compare (Windows only)
  unsigned probe_timeout = 10;
  MachineFlags machine;  // --sysroot, --path, --env, --rules, ...
};

// What the command line asks of the simulation; the checks that need no machine are made here.
Result<session::ExplainRequest> explain_request(const ExplainOptions& options) {
  session::ExplainRequest request;
  request.program = options.host.empty() ? options.program : options.host;
  // With --import the program is the Python interpreter the imports run in.
  request.program_is_host = !options.host.empty() || !options.imports.empty();
  if (request.program.empty())
    return Error{
        "name a program (dlldoctor APP.exe) or a host (--host APP.exe --load X); dlldoctor --help lists every "
        "command and flag"};
#ifndef _WIN32
  // Without a drive to map it onto, C:\Python312\python.exe is only a strange file name on this machine.
  if (options.machine.sysroot.empty() && options.machine.env_file.empty() && env::is_windows_absolute(request.program))
    return Error{request.program +
                 " is a Windows path: name the mounted Windows drive it is on with --sysroot (--sysroot /mnt/c), or "
                 "give the file's path on this machine"};
  // The same for a DLL loaded by full path: unmapped, it would be reported as "not installed".
  for (const std::string& load : options.loads) {
    if (options.machine.sysroot.empty() && options.machine.env_file.empty() && options.machine.maps.empty() &&
        env::is_windows_absolute(load))
      return Error{"--load " + load +
                   " is a Windows path: name the mounted Windows drive it is on with --sysroot (--sysroot /mnt/c), "
                   "or give the file's path on this machine"};
  }
#endif
  if (!options.site_packages.empty() && options.imports.empty())
    return Error{"--site-packages needs --import: it says where the imported packages are"};
  if (!options.loads.empty() && !request.program_is_host)
    return Error{"--load needs --host: the program that calls LoadLibrary"};
  if (options.loads.empty() && options.imports.empty() && !options.host.empty())
    return Error{"--host needs at least one --load"};
  for (std::size_t i = 0; i < options.loads.size(); ++i) {
    session::LoadRequest load{options.loads[i], {}};
    for (std::size_t f = 0; f < options.load_flags.size(); ++f) {
      if (options.flags_owner[f] == i) load.flags.push_back(options.load_flags[f]);
    }
    request.loads.push_back(std::move(load));
  }
  request.set_default_dirs = options.set_default_dirs;
  request.add_dll_dirs = options.add_dll_dirs;
  request.set_dll_dir = options.set_dll_dir;
  request.preload = options.preload;
  request.imports = options.imports;
  request.site_packages = options.site_packages;
  request.profile = options.profile;
  request.policy =
      options.wrong_machine == "skip" ? resolve::WrongMachinePolicy::Skip : resolve::WrongMachinePolicy::Fail;
  request.look_in = options.look_in;
  return request;
}

// `dlldoctor probe`: the real loader runs what the simulation predicted, and says what it did.
session::Probe probe_of(const ExplainOptions& options) {
  return [options](const graph::ClosureRequest& request, const graph::Closure& closure) -> Result<ProbeResult> {
    const bool dll = !closure.modules.empty() && closure.modules.front().resolution.image &&
                     closure.modules.front().resolution.image->is_dll;
    ProbeProcess process;
    process.timeout_ms = options.probe_timeout * 1000;
    for (const std::string& entry : options.machine.path)
      process.path = process.path ? *process.path + ";" + entry : entry;
    if (!options.machine.cwd.empty()) process.cwd = options.machine.cwd;
    auto probe = !request.program_is_host
                     ? (dll ? probe_dll(request.program, process) : probe_program(request.program, process))
                     : probe_host(request.program, host_calls(request), process);
    if (!probe) return probe;
    print_message("probe: " + std::to_string(probe->modules.size()) + " modules loaded, " +
                  (probe->timed_out ? "still running after the time allowed (ended)"
                                    : "exit code " + std::to_string(probe->exit_code.value_or(0))));
    if (request.program_is_host && probe->loads.empty())
      print_message("probe: the host did not reach its entry point, so no --load call was made");
    for (std::size_t i = 0; i < probe->loads.size() && i < closure.loads.size(); ++i) {
      const ProbeCallResult& call = probe->loads[i];
      print_message("probe: " + closure.loads[i].request + " " +
                    (call.error ? "failed with error " + std::to_string(call.error) : "returned " + call.module));
    }
    return probe;
  };
}

int run_explain(const ExplainOptions& given) {
  ExplainOptions options = given;
  if (apply_output_habits(options.habits, options.format, options.no_color) != kExitOk) return kExitFailure;
  if (!options.host.empty() && !options.program.empty())
    return fail("give a program (dlldoctor APP.exe) or a host (--host APP.exe --load X), not both: with --host, " +
                options.program + " would be ignored");
  if (!options.scan.empty()) {
    ScanCommand command;
    command.roots = options.scan;
    command.all_dlls = options.all_dlls;
    command.format = options.format;
    command.output = options.output;
    command.no_color = options.no_color;
    command.habits = options.habits;
    command.machine = machine_spec(options.machine);
    command.machine.environment =
        !options.machine.path.empty() || !options.machine.sysroot.empty() || !options.machine.cwd.empty()
            ? session::EnvironmentChoice::Flags
            : session::EnvironmentChoice::None;
    return run_scan(command);
  }
#ifndef _WIN32
  if (options.probe) {
    return fail(
        "probe runs the program under the real Windows loader: it needs Windows (run dlldoctor.exe probe "
        "there, or under Wine)");
  }
#endif
  if (options.probe && (!options.machine.sysroot.empty() || !options.machine.env_file.empty() ||
                        !options.machine.known_dlls.empty() || !options.machine.safe_mode.empty()))
    return fail(
        "probe runs on this machine (with --path and --cwd if given): --sysroot, --env, --known-dlls and "
        "--safe-dll-search-mode describe another one");
  auto request = explain_request(options);
  if (!request) return fail(request.error().message);
  if (options.probe) request->probe = probe_of(options);
  auto machine = session::open_machine(machine_spec(options.machine));
  if (!machine) return fail(machine.error().message);
  auto run = session::explain(*machine, *request);
  if (!run) return fail(run.error().message);
  for (const auto& problem : run->diagnosis.rules.problems) print_message("internal: " + problem);

  // Neither output may take the place of a file the run read (the program, a rules file, the snapshot), nor
  // of the other output.
  std::vector<FileRead> read;
  for (const graph::Module& module : run->closure().modules) {
    if (module.resolution.path && !module.resolution.assumed)
      read.push_back({*module.resolution.path, module.is_root ? "the program" : "a module of this process"});
  }
  for (FileRead& file : machine->files_read()) read.push_back(std::move(file));
  if (refuse_writing_over("-o", options.output, read) != kExitOk ||
      refuse_writing_over("--fix-script", options.fix_script, read) != kExitOk)
    return kExitFailure;
  if (!options.fix_script.empty() && !options.output.empty() && options.output != "-" &&
      same_file(options.output, options.fix_script))
    return fail("-o and --fix-script name the same file (" + options.output +
                "): one would replace the other; name two files (nothing was written)");
  {
    const report::ClosureView view(*run, report::Stamp::now());
    if (write_fix_script(run->plan ? &*run->plan : nullptr, options.fix_script,
                         {view.input().tool_version, run->closure().outcome.request, view.verdict()}) != kExitOk)
      return kExitFailure;
    if (write_report(report::closure_writers(), options.format, view, options.output,
                     {use_color(options.habits, options.no_color, options.output)}, "the report") != kExitOk)
      return kExitFailure;
  }
  const int status = run->exit_status() == 0 ? kExitOk : kExitFindings;
  leave_to_process_exit(std::move(*run));
  leave_to_process_exit(std::move(*machine));
  return status;
}

// The flags of the simulation, shared by the main command and `dlldoctor probe` (which checks the very
// simulation they describe), those `line` names. Returns the runner, which pairs each --flags with its --load.
Runner bind_simulation(CLI::App& app, const CommandLine& line, std::shared_ptr<ExplainOptions> options,
                       std::function<int(const ExplainOptions&)> run) {
  app.add_option("program", options->program, "The program whose start-up to simulate (APP.exe)");
  FlagBinder bind(app, line);
  auto* environment = "Environment (how the Windows machine looks)";
  bind.option("--sysroot", options->machine.sysroot, "A mounted Windows drive, or a copy holding Windows/System32",
              environment);
  bind.option("--path", options->machine.path, "A PATH entry or a ;-separated PATH (repeatable, order kept)",
              environment);
  bind.option("--cwd", options->machine.cwd, "The current folder of the process", environment);
  if (CLI::Option* safe_mode = bind.option("--safe-dll-search-mode", options->machine.safe_mode,
                                           "SafeDllSearchMode (default on)", environment))
    safe_mode->check(CLI::IsMember({"on", "off"}));
  bind.option("--known-dlls", options->machine.known_dlls, "KnownDLLs, comma-separated (default: Windows 10/11 list)",
              environment);
  bind.option("--windows-user", options->machine.windows_user,
              "The profile under Users/ whose registry PATH to compare with (default: the only one)", environment);
  bind.option("--env", options->machine.env_file,
              "Replay a snapshot (dlldoctor snapshot -o FILE); Windows paths in it map through --sysroot and --map",
              environment);
  bind.flag("--assume-system-dlls", options->machine.assume_system_dlls,
            "The sysroot is a partial copy: stock Windows DLLs missing from it are taken as present", environment);
  auto* calls = "LoadLibrary calls of a running program";
  bind.option("--host", options->host, "The running program that makes the --load calls", calls);
  const CLI::Option* load =
      bind.option("--load", options->loads, "A LoadLibraryEx call: a DLL name or path (repeatable)", calls);
  const CLI::Option* load_flags =
      bind.option("--flags", options->load_flags,
                  "Flags of the --load just before: names (search-default-dirs,...) or numbers (0x1100)", calls);
  bind.option("--set-default-dirs", options->set_default_dirs, "SetDefaultDllDirectories flags", calls);
  bind.option("--add-dll-dir", options->add_dll_dirs, "AddDllDirectory folder (repeatable)", calls);
  bind.option("--set-dll-dir", options->set_dll_dir, "SetDllDirectory folder", calls);
  bind.option("--preload", options->preload, "A module already in the process (repeatable)", calls);
  auto* frameworks = "Frameworks (load recipes, rules/*.toml)";
  bind.option("--import", options->imports,
              "Import a package in the Python interpreter named as the program, as its own loading code does "
              "(torch, onnxruntime, onnxruntime[cuda], ...; repeatable, in order)",
              frameworks);
  bind.option("--site-packages", options->site_packages,
              "The site-packages folder to import from, instead of the interpreter's own (repeatable)", frameworks);
  bind.option("--setenv", options->machine.setenv, "NAME=VALUE: an environment variable of the process (repeatable)",
              environment);
  bind.option("--profile", options->profile,
              "Flags of a kind of process for the --load calls: python-extension, python-ctypes, node-addon "
              "([[profile]] in rules/)",
              calls);
  if (CLI::Option* wrong_machine =
          bind.option("--wrong-machine", options->wrong_machine,
                      "A wrong-machine file found first: fail (documented, error 193) or skip (Dependencies, Wine)"))
    wrong_machine->check(CLI::IsMember({"fail", "skip"}))->capture_default_str();
  if (CLI::Option* format = bind.option("--format", options->format,
                                        "Output format (text on a terminal, json for scripts and tickets, markdown "
                                        "to paste into an issue, with a Mermaid picture; dot for Graphviz; html, "
                                        "one page)"))
    format->check(CLI::IsMember(report::writer_names(report::closure_writers())))->capture_default_str();
  bind.option("-o,--output", options->output, "Write the report to this file instead of stdout");
  bind.option("--fix-script", options->fix_script,
              "Also write the checked plan as a PowerShell script (FILE.ps1) to read and run on the Windows "
              "machine (-WhatIf to see what it would do)");
  bind.option("--map", options->machine.maps,
              "HOSTDIR=WINDOWSDIR: a folder copied from the Windows machine, and where it is there; its paths are "
              "shown and scripted as Windows paths (repeatable)",
              environment);
  bind.flag("--no-color", options->no_color, "No colours in text output (also: NO_COLOR set)");
  bind_output_habits(bind, options->habits, true);
  bind.option("--rules", options->machine.rules, "A folder of extra rule files (*.toml; repeatable)");
  bind.option("--look-in", options->look_in,
              "A folder to search (recursively) for copies of DLLs that are not found (repeatable)");
  // --flags belongs to the --load before it; CLI11 keeps each option's values apart, so the command
  // line's order is read back from parse_order().
  return [options, &app, load, load_flags, run] {
    std::size_t loads_seen = 0;
    options->flags_owner.clear();
    for (const CLI::Option* option : app.parse_order()) {
      if (option == load) ++loads_seen;
      if (option == load_flags) {
        if (loads_seen == 0) return fail("--flags must follow the --load it belongs to");
        options->flags_owner.push_back(loads_seen - 1);
      }
    }
    return run(*options);
  };
}

}  // namespace

Runner setup_explain(CLI::App& app, const std::string& argv0, const CommandLine& line) {
  auto options = std::make_shared<ExplainOptions>();
  options->machine.argv0 = argv0;
  FlagBinder bind(app, line);
  if (CLI::Option* scan =
          bind.option("--scan", options->scan, "Report every copy of the DLL families in rules/ under these folders"))
    scan->expected(1, -1)->allow_extra_args(true);  // several folders at once
  bind.flag("--all-dlls", options->all_dlls, "With --scan: every DLL, not only the families in rules/");
  return bind_simulation(app, line, options, [&app](const ExplainOptions& given) {
    if (given.scan.empty()) {
      if (given.all_dlls) return fail("--all-dlls needs --scan DIR: it widens the scan to every DLL");
      return run_explain(given);
    }
    // The scan reads folders and, with an environment, says which copy a process would load; it
    // simulates no program and no LoadLibrary call.
    const int refused = refuse_options_except(
        app,
        {"--scan", "--all-dlls", "--format", "--output", "--no-color", "--json", "--quiet", "--color", "--rules",
         "--sysroot", "--path", "--cwd", "--safe-dll-search-mode", "--known-dlls", "--windows-user",
         "--assume-system-dlls"},
        "--scan", "a scan lists the copies in folders, it simulates no program or LoadLibrary call");
    return refused != kExitOk ? refused : run_explain(given);
  });
}

Runner setup_probe(CLI::App& app, const std::string& argv0, const CommandLine& line) {
  auto options = std::make_shared<ExplainOptions>();
  options->machine.argv0 = argv0;
  options->probe = true;
  CLI::App* command = app.add_subcommand(
      "probe",
      "Windows only, opt-in: RUN the program (or load the DLL in a child process, or have --host make the "
      "--load calls, or have the Python interpreter make the calls of its --import recipes) under the real "
      "loader, with the PATH and folder of --path and --cwd, and report every difference from the prediction "
      "as a probe-differs finding. Takes the flags of dlldoctor APP.exe.");
  if (!line.names_command("probe")) return {};
  FlagBinder(*command, line)
      .option("--probe-timeout", options->probe_timeout,
              "Seconds the probed process may run before it is ended "
              "(default 10)");
  command->footer(
      "Examples:\n  dlldoctor probe app.exe --path 'C:\\cudnn\\bin'\n"
      "  dlldoctor probe --host python.exe --load ext.pyd --profile python-extension\n"
      "  dlldoctor probe python.exe --import torch");
  return bind_simulation(*command, line, options, run_explain);
}

}  // namespace dlldoctor::cli
