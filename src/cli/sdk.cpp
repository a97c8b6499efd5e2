// `dlldoctor sdk DIR` (also `dlldoctor --sdk DIR`): is this unpacked cuDNN usable to build a program, and
// with which settings (seed 5.3).
#include "dlldoctor/session/sdk.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "dlldoctor/report/sdk_report.hpp"

namespace dlldoctor::cli {
namespace {

struct SdkOptions {
  std::string root;
  std::string format = "text";
  std::string arch = "x64";
  std::string output;
  std::string argv0;
  std::string sysroot;            // a mounted Windows drive: the root may be its C:\ path
  std::vector<std::string> maps;  // --map HOSTDIR=WINDOWSDIR
  OutputHabits habits;
};

std::uint16_t arch_machine(const std::string& arch) {
  if (arch == "x86") return pe::machine::kI386;
  if (arch == "arm64") return pe::machine::kArm64;
  return pe::machine::kAmd64;
}

int run_sdk(const SdkOptions& given) {
  SdkOptions options = given;
  if (apply_output_habits(options.habits, options.format, false) != kExitOk) return kExitFailure;
  session::MachineSpec spec;
  spec.argv0 = options.argv0;
  // A mounted drive or a copied folder: the root may be its Windows path, and the settings use Windows paths.
  spec.environment = !options.sysroot.empty() || !options.maps.empty() ? session::EnvironmentChoice::Flags
                                                                       : session::EnvironmentChoice::None;
  if (!options.sysroot.empty()) spec.flags.sysroot = options.sysroot;
  spec.flags.maps = options.maps;
  auto machine = session::open_machine(spec);
  if (!machine) {
    print_message(machine.error().message);
    return kExitFailure;
  }
  auto report = session::check_sdk(*machine, {options.root, arch_machine(options.arch)});
  if (!report) {
    print_message(report.error().message);
    return kExitFailure;
  }
  for (const auto& problem : report->problems) print_message("internal: " + problem);
  if (refuse_writing_over("-o", options.output, machine->files_read()) != kExitOk) return kExitFailure;
  if (write_report(report::sdk_writers(), options.format, *report, options.output, {}, "sdk") != kExitOk)
    return kExitFailure;
  return report->has_errors() ? kExitFindings : kExitOk;
}

}  // namespace

Runner setup_sdk(CLI::App& app, const std::string& argv0, bool bind_flags) {
  auto options = std::make_shared<SdkOptions>();
  options->argv0 = argv0;
  auto top_level_root = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "sdk",
      "Check an unpacked cuDNN for building (header, cudnn.lib, DLLs) and print the compiler and linker settings");
  // The subcommand's own flags; --sdk's runner below reads only their defaults when they are not bound.
  if (bind_flags) {
    command->add_option("root", options->root, "The folder the cuDNN zip was unpacked into")->required();
    command->add_option("--format", options->format, "Output format")
        ->check(CLI::IsMember(report::writer_names(report::sdk_writers())))
        ->capture_default_str();
    command->add_option("--arch", options->arch, "The platform the project builds for")
        ->check(CLI::IsMember({"x64", "x86", "arm64"}))
        ->capture_default_str();
    command->add_option("-o,--output", options->output, "Write the report to this file instead of stdout");
    CommandBinder bind(*command);
    bind_output_habits(bind, options->habits, false);
    command->add_option(
        "--sysroot", options->sysroot,
        "A mounted Windows drive: the root may be a C:\\ path on it, and the settings use Windows paths");
    one_value_each(command->add_option(
        "--map", options->maps,
        "HOSTDIR=WINDOWSDIR: a folder copied from the Windows machine, and where it is there; the settings use "
        "its Windows paths (repeatable)"));
    command->footer(
        "Examples:\n  dlldoctor sdk 'C:\\tools\\cudnn-9.1.0.70'\n"
        "  dlldoctor sdk 'C:\\tools\\cudnn-9.1.0.70' --sysroot /mnt/windows\n"
        "  dlldoctor --sdk 'C:\\tools\\cudnn-9.1.0.70' --format json -o sdk.json");
  }
  CLI::Option* top_level =
      app.add_option("--sdk", *top_level_root, "Same as `dlldoctor sdk DIR`: check a cuDNN folder for building");
  // `--sdk DIR` shares the top level with the main command, whose --format and -o it reads back after
  // parsing; the main command's other flags describe a process, which the SDK check has none of.
  return [options, top_level_root, top_level, &app] {
    if (top_level->count() > 0) {
      const int refused =
          refuse_options_except(app, {"--sdk", "--format", "--output", "--sysroot", "--map"}, "--sdk",
                                "the SDK check reads the cuDNN folder only (--format, -o, --sysroot, --map)");
      if (refused != kExitOk) return refused;
      options->root = *top_level_root;
      // The main command's flags are bound only when given (src/cli/main.cpp): an absent one is nullptr.
      const auto given = [&app](const char* name) {
        const CLI::Option* option = app.get_option_no_throw(name);
        return option != nullptr && option->count() > 0 ? option : nullptr;
      };
      if (const CLI::Option* format = given("--format")) options->format = format->as<std::string>();
      if (!report::find_writer(report::sdk_writers(), options->format)) {
        print_message("--sdk writes --format text or json, not " + options->format);
        return kExitFailure;
      }
      if (const CLI::Option* output = given("--output")) options->output = output->as<std::string>();
      if (const CLI::Option* sysroot = given("--sysroot")) options->sysroot = sysroot->as<std::string>();
      if (const CLI::Option* maps = given("--map")) options->maps = maps->as<std::vector<std::string>>();
    }
    return run_sdk(*options);
  };
}

}  // namespace dlldoctor::cli
