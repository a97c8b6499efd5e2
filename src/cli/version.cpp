// `dlldoctor --version [--format json] [--rules DIR]`: what this binary is (version, commit), which rules
// it reads, and which Windows its built-in API set table comes from: the first lines of a bug ticket.
// Parsed by CLI11 with the rest of the command line (src/cli/main.cpp).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "core/build_info.hpp"
#include "dlldoctor/session/shipped_rules.hpp"
#include "env/api_set_table.hpp"

namespace dlldoctor::cli {

int print_version(const CLI::App& app, const std::string& argv0) {
  const int refused = refuse_options_except(app, {"--version", "--format", "--rules"}, "--version",
                                            "it says what the binary is and which rules it reads (--format, --rules)");
  if (refused != kExitOk) return refused;
  // The main command's flags are bound only when given (src/cli/main.cpp): an absent one is nullptr.
  const auto given = [&app](const char* name) {
    const CLI::Option* option = app.get_option_no_throw(name);
    return option != nullptr && option->count() > 0 ? option : nullptr;
  };
  const std::string format = given("--format") ? given("--format")->as<std::string>() : "text";
  const std::vector<std::string> extra =
      given("--rules") ? given("--rules")->as<std::vector<std::string>>() : std::vector<std::string>();
  if (format != "text" && format != "json") {
    print_message(fmt::format("--version has no --format {} (it writes text, json)", format));
    return kExitFailure;
  }
  auto rules = session::load_shipped_rules(argv0, extra);
  if (!rules) {
    print_message(rules.error().message);
    return kExitFailure;
  }
  const rules::RulesOrigin& origin = rules->origin;
  if (format == "json") {
    nlohmann::ordered_json rules_json{{"source", origin.folder ? "folder" : "built-in"},
                                      {"builtin_version", origin.builtin_version},
                                      {"folder", origin.folder ? nlohmann::ordered_json(*origin.folder) : nullptr},
                                      {"edited", origin.edited},
                                      {"extra", extra}};
    const nlohmann::ordered_json out{{"name", "dlldoctor"},
                                     {"version", std::string(kVersion)},
                                     {"commit", std::string(kCommit)},
                                     {"rules", rules_json},
                                     {"api_set_table", std::string(env::detail::kBuiltinApiSetWindows)}};
    return write_output(out.dump(2) + "\n", "");
  }
  return write_output(fmt::format("dlldoctor {}\ncommit: {}\nrules: {}\nAPI set table (without --sysroot): {}\n",
                                  kVersion, kCommit, origin.text(), env::detail::kBuiltinApiSetWindows),
                      "");
}

}  // namespace dlldoctor::cli
