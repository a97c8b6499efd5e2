// `dlldoctor snapshot -o env.json`: the environment as JSON, to replay elsewhere with `--env env.json`.
#include "dlldoctor/env/snapshot.hpp"

#include <memory>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "core/build_info.hpp"
#include "dlldoctor/report/json_text.hpp"
#include "dlldoctor/rules/rule_data.hpp"
#include "dlldoctor/session/machine.hpp"
#include "env/system_names.hpp"

namespace dlldoctor::cli {

namespace {

struct SnapshotOptions {
  std::string output;
  std::string format = "json";
  MachineFlags machine;  // --sysroot, --path, --cwd, --safe-dll-search-mode, --windows-user, ...
};

int run_snapshot(const SnapshotOptions& options) {
  // The variables the shipped recipes read (and those of --rules folders, when given) are kept.
  const session::MachineSpec spec = machine_spec(options.machine);
#ifndef _WIN32
  // Off Windows there is no live environment to capture: a snapshot holds a mounted drive or the flags.
  if (!spec.flags.sysroot && spec.flags.path.empty()) {
    print_message(
        "snapshot captures a Windows machine: run dlldoctor.exe snapshot on it; here, name a mounted Windows "
        "drive with --sysroot (its registry PATH, KnownDLLs and System32), or describe one with --path");
    return kExitFailure;
  }
#endif
  auto machine = session::open_machine(spec);
  if (!machine) {
    print_message(machine.error().message);
    return kExitFailure;
  }
  const env::Environment& environment = machine->environment();
  env::SnapshotInfo info;
  info.tool_version = kVersion;
#ifdef _WIN32
  info.os_version = environment.source == "live" ? env::live_os_version() : "Windows (flags)";
#else
  info.os_version = environment.sysroot ? "a mounted Windows (--sysroot)" : "Windows described by flags";
#endif
  info.variable_patterns = rules::variables_read(machine->rules());
  info.system32_dlls = env::list_system_dlls(environment.system32, machine->files());
  info.syswow64_dlls = env::list_system_dlls(environment.syswow64, machine->files());
  if (refuse_writing_over("-o", options.output, machine->files_read()) != kExitOk) return kExitFailure;
  return write_output(report::json_text(env::snapshot_to_json(environment, info)), options.output);
}

}  // namespace

Runner setup_snapshot(CLI::App& app, const std::string& argv0, bool bind_flags) {
  auto options = std::make_shared<SnapshotOptions>();
  options->machine.argv0 = argv0;
  CLI::App* command = app.add_subcommand(
      "snapshot",
      "Save the environment (folders, PATHs, KnownDLLs, flags, OS version, System32 DLLs with versions) as JSON, "
      "to replay with `dlldoctor APP.exe --env FILE` elsewhere. On Windows: this machine; else the flags.");
  if (!bind_flags) return {};
  command->footer(
      "Examples:\n  dlldoctor snapshot -o env.json            (on the Windows machine)\n"
      "  dlldoctor app.exe --env env.json --sysroot /mnt/c\n"
      "                                            (on Linux, with its disk mounted)");
  command->add_option("-o,--output", options->output, "Write the snapshot to this file instead of stdout");
  // Only JSON: a snapshot is read back by --env, not by people. The flag is there so that scripts can
  // pass --format json to every command.
  command->add_option("--format", options->format, "Output format (a snapshot is JSON)")
      ->check(CLI::IsMember({"json"}))
      ->capture_default_str();
  command->add_option("--sysroot", options->machine.sysroot,
                      "A mounted Windows drive, or a copy holding Windows/System32");
  one_value_each(command->add_option("--path", options->machine.path,
                                     "A PATH entry or a ;-separated PATH (repeatable, order kept)"));
  command->add_option("--cwd", options->machine.cwd, "The current folder of the process");
  command->add_option("--safe-dll-search-mode", options->machine.safe_mode, "SafeDllSearchMode (default on)")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--windows-user", options->machine.windows_user,
                      "The profile under Users/ whose registry PATH to save");
  command->add_flag("--assume-system-dlls", options->machine.assume_system_dlls,
                    "The sysroot is a partial copy: stock Windows DLLs missing from it are taken as present");
  one_value_each(
      command->add_option("--rules", options->machine.rules,
                          "A folder of extra rule files: the variables its recipes read are saved too (repeatable)"));
  return [options] { return run_snapshot(*options); };
}

}  // namespace dlldoctor::cli
