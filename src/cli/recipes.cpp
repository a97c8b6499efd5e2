// `dlldoctor recipes`: the load recipes --import can replay, the shipped ones and those of each
// --rules folder, with the versions each holds for and the code it stands for.
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "dlldoctor/report/recipes_report.hpp"
#include "dlldoctor/session/machine.hpp"

namespace dlldoctor::cli {
namespace {

struct RecipesOptions {
  std::vector<std::string> rules;
  std::string format = "text";
  std::string output;
  std::string argv0;
  OutputHabits habits;
};

int run_recipes(const RecipesOptions& given) {
  RecipesOptions options = given;
  if (apply_output_habits(options.habits, options.format, false) != kExitOk) return kExitFailure;
  session::MachineSpec spec;
  spec.argv0 = options.argv0;
  spec.rules = options.rules;
  spec.environment = session::EnvironmentChoice::None;
  auto machine = session::open_machine(spec);
  if (!machine) {
    print_message(machine.error().message);
    return kExitFailure;
  }
  if (refuse_writing_over("-o", options.output, machine->files_read()) != kExitOk) return kExitFailure;
  return write_report(report::recipes_writers(), options.format, machine->rules(), options.output, {}, "the recipes");
}

}  // namespace

Runner setup_recipes(CLI::App& app, const std::string& argv0, bool bind_flags) {
  auto options = std::make_shared<RecipesOptions>();
  options->argv0 = argv0;
  CLI::App* command = app.add_subcommand(
      "recipes",
      "List the load recipes --import replays: packages, the versions each holds for, the code it stands for");
  if (!bind_flags) return {};
  one_value_each(
      command->add_option("--rules", options->rules, "More rule files (their recipes are listed too); repeatable"));
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember(report::writer_names(report::recipes_writers())))
      ->capture_default_str();
  command->add_option("-o,--output", options->output, "Write the list to this file instead of stdout");
  CommandBinder bind(*command);
  bind_output_habits(bind, options->habits, false);
  command->footer("Examples:\n  dlldoctor recipes\n  dlldoctor recipes --rules my-rules --format json");
  return [options] { return run_recipes(*options); };
}

}  // namespace dlldoctor::cli
