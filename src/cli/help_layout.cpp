// --help at 80 columns: CLI11 2.1 prints a description on one line however long it is, so the
// descriptions are wrapped here, at the width left after CLI11's name column.
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::cli {
namespace {

// CLI11's default name column (Formatter::column_width).
constexpr std::size_t kNameColumn = 30;

void fit(CLI::App& app, std::size_t description_width) {
  app.description(report::wrap(app.get_description(), description_width, ""));
  for (CLI::Option* option : app.get_options())
    option->description(report::wrap(option->get_description(), report::kTextWidth - kNameColumn, ""));
  // A subcommand's description is a row of the list above it, and the heading of its own help.
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) fit(*sub, report::kTextWidth - kNameColumn);
}

}  // namespace

void fit_help_to_80_columns(CLI::App& app) {
  app.get_formatter()->column_width(kNameColumn);
  fit(app, report::kTextWidth);
}

}  // namespace dlldoctor::cli
