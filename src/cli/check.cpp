// `dlldoctor check`: the whole machine before there is a program to name (session/check.hpp).
#include "dlldoctor/session/check.hpp"

#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "dlldoctor/report/check_report.hpp"

namespace dlldoctor::cli {
namespace {

struct CheckOptions {
  MachineFlags machine;  // --sysroot, --path, --env, --rules, ...
  std::vector<std::string> pythons;
  std::string format = "text";
  std::string output;
  std::string fix_script;
  bool no_color = false;
  OutputHabits habits;
};

int run_check(const CheckOptions& given) {
  CheckOptions options = given;
  if (apply_output_habits(options.habits, options.format, options.no_color) != kExitOk) return kExitFailure;
  if (!has_writer(report::check_writers(), options.format, "check")) return kExitFailure;
#ifndef _WIN32
  // Away from Windows there is no machine to look at but a mounted drive: a snapshot alone holds the PATH and
  // the variables, not the driver, the toolkits or the copies, and a check of nothing must not say HEALTHY.
  if (options.machine.sysroot.empty())
    return fail(
        "check looks at a whole Windows machine: name its drive with --sysroot (a mounted C:, or a copy holding "
        "Windows/System32); --env adds a snapshot's PATH and variables to it (dlldoctor snapshot -o FILE there)");
#endif
  auto machine = session::open_machine(machine_spec(options.machine));
  if (!machine) return fail(machine.error().message);
  auto run = session::check(*machine, {options.pythons});
  if (!run) return fail(run.error().message);

  // Every image the run read (the processes' modules, the copies and the toolkits' files) is in the cache.
  std::vector<FileRead> read = machine->files_read();
  if (refuse_writing_over("-o", options.output, read) != kExitOk ||
      refuse_writing_over("--fix-script", options.fix_script, read) != kExitOk)
    return kExitFailure;
  if (!options.fix_script.empty() && !options.output.empty() && options.output != "-" &&
      same_file(options.output, options.fix_script))
    return fail("-o and --fix-script name the same file (" + options.output +
                "): one would replace the other; name two files (nothing was written)");
  {
    const report::Stamp stamp = report::Stamp::now();
    const report::CheckView view(*run, stamp);
    if (write_fix_script(run->plan ? &*run->plan : nullptr, options.fix_script,
                         {stamp.tool_version, "dlldoctor check", run->verdict.text}) != kExitOk)
      return kExitFailure;
    if (write_report(report::check_writers(), options.format, view, options.output,
                     {use_color(options.habits, options.no_color, options.output)}, "check") != kExitOk)
      return kExitFailure;
  }
  const int status = run->exit_status() == 0 ? kExitOk : kExitFindings;
  leave_to_process_exit(std::move(*run));
  leave_to_process_exit(std::move(*machine));
  return status;
}

}  // namespace

Runner setup_check(CLI::App& app, const std::string& argv0, bool bind_flags) {
  auto options = std::make_shared<CheckOptions>();
  options->machine.argv0 = argv0;
  CLI::App* command = app.add_subcommand(
      "check",
      "The whole machine, before there is a program to name: the NVIDIA driver, every CUDA toolkit, every cuDNN "
      "copy and the one a new process finds, System32's MSVC runtime, each Python and its frameworks; findings "
      "and one checked plan");
  if (!bind_flags) return {};
  auto* environment = "Environment (how the Windows machine looks)";
  command
      ->add_option("--sysroot", options->machine.sysroot, "A mounted Windows drive, or a copy holding Windows/System32")
      ->group(environment);
  one_value_each(command->add_option("--path", options->machine.path,
                                     "The PATH a new process gets: an entry or a ;-separated PATH (repeatable, order "
                                     "kept; default: the registry's, with --sysroot)"))
      ->group(environment);
  command->add_option("--cwd", options->machine.cwd, "The current folder of a new process")->group(environment);
  command
      ->add_option("--windows-user", options->machine.windows_user,
                   "The profile under Users/ whose registry PATH and Python user site count (default: the only one)")
      ->group(environment);
  command->add_option("--env", options->machine.env_file, "Replay a snapshot (dlldoctor snapshot -o FILE)")
      ->group(environment);
  one_value_each(command->add_option("--map", options->machine.maps,
                                     "HOSTDIR=WINDOWSDIR: a folder copied from the Windows machine, and where it is "
                                     "there (repeatable)"))
      ->group(environment);
  one_value_each(command->add_option("--setenv", options->machine.setenv,
                                     "NAME=VALUE: an environment variable of a new process (repeatable)"))
      ->group(environment);
  command
      ->add_flag("--assume-system-dlls", options->machine.assume_system_dlls,
                 "The sysroot is a partial copy: stock Windows DLLs missing from it are taken as present")
      ->group(environment);
  one_value_each(command->add_option(
      "--python", options->pythons,
      "A Python interpreter to check besides those found (a venv's Scripts\\python.exe; repeatable)"));
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember(report::writer_names(report::check_writers())))
      ->capture_default_str();
  command->add_option("-o,--output", options->output, "Write the report to this file instead of stdout");
  command->add_option("--fix-script", options->fix_script,
                      "Also write the checked plan as a PowerShell script (FILE.ps1) to read and run on the machine");
  command->add_flag("--no-color", options->no_color, "No colours in text output (also: NO_COLOR set)");
  CommandBinder bind(*command);
  bind_output_habits(bind, options->habits, true);
  one_value_each(
      command->add_option("--rules", options->machine.rules, "A folder of extra rule files (*.toml; repeatable)"));
  command->footer(
      "Examples:\n  dlldoctor check                  (on Windows: this machine)\n"
      "  dlldoctor check --sysroot /mnt/c (a mounted drive; PATH from its registry)\n"
      "  dlldoctor check --python 'C:\\work\\venv\\Scripts\\python.exe' --format json\n"
      "  dlldoctor check --format json -o machine.json");
  return [options] { return run_check(*options); };
}

}  // namespace dlldoctor::cli
