#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/console.hpp"
#include "cli/output.hpp"
#include "report/text_layout.hpp"

namespace {

// Which command has the option `name`, for an option given to a command that does not take it: "" when
// none has it.
std::string command_with_option(const CLI::App& app, const std::string& name) {
  if (app.get_option_no_throw(name) != nullptr) return "dlldoctor APP.exe";
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; }))
    if (command->get_option_no_throw(name) != nullptr) return "dlldoctor " + command->get_name();
  return "";
}

// CLI11's parse errors read like dlldoctor's own messages (prefix, stderr, safe for a terminal); an
// option of another command says which one has it.
std::string failure_message(const CLI::App* app, const CLI::Error& error) {
  std::string message = error.what();
  // Not get_name(): CLI11 names an ExtrasError after the command that raised it.
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    for (const std::string& argument : app->remaining(true)) {
      if (argument.size() < 2 || argument[0] != '-') continue;
      const std::string name = argument.substr(0, argument.find('='));  // --probe-timeout=5
      const std::string command = command_with_option(*app, name);
      if (!command.empty()) {
        message += " (" + name + " is an option of " + command + ")";
      } else {
        const std::string closest = dlldoctor::cli::closest_option(*app, name);
        if (!closest.empty()) message += " (did you mean " + closest + "?)";
      }
    }
  }
  return "dlldoctor: " + dlldoctor::report::safe_for_terminal(message) + "\n";
}

// Parses `args` and runs the command they name. Binding a flag costs CLI11 a comparison with every flag
// bound before it, which made binding all of them a large part of a run's start-up (probe binds the main
// command's flags again): unless `bind_all`, only the subcommands and flags an argument names are bound
// (CommandLine); the others are listed with their help, since that command line cannot use them. Any
// line CLI11 refuses (a flag not bound is one it refuses), and --help, is parsed again with every flag
// bound, so help, messages and exit statuses are the same either way (nullopt asks for that).
std::optional<int> parse_and_run(std::vector<char*>& args, bool bind_all) {
  using namespace dlldoctor::cli;
  const int argc = static_cast<int>(args.size());
  char** argv = args.data();
  const CommandLine line(args, bind_all);
  CLI::App app{"dlldoctor: explains why a Windows program cannot load its DLLs, or loads the wrong copy"};
  const CLI::Option* version = app.add_flag(
      "-V,--version", "the version, the commit, the rules read and the API set table (with --format json)");
  app.require_subcommand(0, 1);
  const std::string argv0 = argc > 0 ? argv[0] : "dlldoctor";
  Runner inspect = setup_inspect(app, line.names_command("inspect"));
  Runner sdk = setup_sdk(app, argv0, line.names_command("sdk"));
  Runner snapshot = setup_snapshot(app, argv0, line.names_command("snapshot"));
  Runner recipes = setup_recipes(app, argv0, line.names_command("recipes"));
  Runner check = setup_check(app, argv0, line.names_command("check"));
  Runner explain = setup_explain(app, argv0, line);
  Runner probe = setup_probe(app, argv0, line);
  check_windows_path_values(app);
  app.failure_message(failure_message);
  app.footer(
      "Examples:\n"
      "  dlldoctor app.exe --path 'C:\\cudnn\\bin;C:\\CUDA\\v12.4\\bin' --sysroot /mnt/c\n"
      "  dlldoctor app.exe --format json > report.json\n"
      "  dlldoctor app.exe --format markdown -o report.md  (to paste into an issue)\n"
      "  dlldoctor app.exe --format dot | dot -Tsvg -o deps.svg  (the dependency graph)\n"
      "  dlldoctor --scan 'C:\\'   (every cuDNN, CUDA and MSVC runtime copy on a disk)\n"
      "  dlldoctor --scan /mnt/c --all-dlls --format json -o dlls.json\n"
      "  dlldoctor --host python.exe --load cudnn64_9.dll --profile python-ctypes\n"
      "  dlldoctor check --sysroot /mnt/c   (the whole machine: driver, CUDA, cuDNN)\n"
      "  dlldoctor inspect cudnn64_9.dll\n"
      "  dlldoctor recipes            (what --import replays, and from whose code)\n"
      "  dlldoctor snapshot -o env.json                 (on Windows; then on Linux:)\n"
      "  dlldoctor app.exe --env env.json --sysroot /mnt/c\n"
      "  dlldoctor probe app.exe      (Windows: RUNS app.exe, compares its real loads)\n"
      "  dlldoctor probe --host python.exe --load ext.pyd --profile python-extension\n"
      "                                   (Windows: the host runs and makes the call)\n"
      "\n"
      "Exit status:\n"
      "  0  the load succeeds and no error was found (warnings leave it 0)\n"
      "  1  an error was found, or the load fails (the report says which and why)\n"
      "  2  dlldoctor could not answer: bad input, options that contradict,\n"
      "     a file it cannot write");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (!bind_all && dynamic_cast<const CLI::CallForVersion*>(&e) == nullptr) return std::nullopt;
    // Wrapping every description costs every run time (docs/PERFORMANCE.md); only help shows them.
    if (dynamic_cast<const CLI::CallForHelp*>(&e) != nullptr) fit_help_to_80_columns(app);
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitFailure;
  }
  if (version->count() > 0) return print_version(app, argv0);
  if (app.got_subcommand("inspect")) return inspect();
  if (app.got_subcommand("snapshot")) return snapshot();
  if (app.got_subcommand("recipes")) return recipes();
  if (app.got_subcommand("check")) return check();
  if (app.got_subcommand("probe")) return probe();
  if (app.got_subcommand("sdk") || app.count("--sdk") > 0) return sdk();
  return explain();
}

int run(int argc, char** argv) {
  using namespace dlldoctor::cli;
  use_utf8_console();
  std::vector<std::string> arguments = utf8_arguments(argc, argv);
  // The child process of `dlldoctor probe DLL` (src/cli/probe_windows.cpp): load the DLL, report the error.
  if (arguments.size() == 3 && arguments[1] == "--probe-child-load") return probe_child_load(arguments[2]);
  // `dlldoctor help [COMMAND]` is --help, as in git and cargo (a program named help is help.exe).
  if (arguments.size() >= 2 && arguments[1] == "help") {
    static const char* const kCommands[] = {"check", "inspect", "probe", "recipes", "sdk", "snapshot"};
    if (arguments.size() >= 3 &&
        std::find(std::begin(kCommands), std::end(kCommands), arguments[2]) == std::end(kCommands)) {
      print_message("help: no command named " + arguments[2] +
                    " (commands: check, inspect, probe, recipes, sdk, snapshot; `dlldoctor --help` for the main one)");
      return kExitFailure;
    }
    arguments.erase(arguments.begin() + 1);
    arguments.emplace_back("--help");
  }
  std::vector<char*> args;
  for (std::string& argument : arguments) args.push_back(argument.data());
  if (const std::optional<int> status = parse_and_run(args, false)) return *status;
  return *parse_and_run(args, true);
}

}  // namespace

int main(int argc, char** argv) {
  // Whatever a file holds, the user gets a message and exit 2, never an abort: a bug that lets an
  // exception through is still a bug, but it must not look like a crash of the inspected program.
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    dlldoctor::cli::print_message(std::string("internal error: ") + e.what());
  } catch (...) {
    dlldoctor::cli::print_message("internal error: an unknown exception");
  }
  return dlldoctor::cli::kExitFailure;
}
