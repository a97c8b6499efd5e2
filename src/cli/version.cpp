// `dlldoctor --version [--format json] [--rules DIR]`: what this binary is (version, commit), which rules
// it reads, and which Windows its built-in API set table comes from: the first lines of a bug ticket.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "dlldoctor/core/build_info.hpp"
#include "dlldoctor/rules/rule_data.hpp"
#include "env/api_set_table.hpp"

namespace dlldoctor::cli {

namespace {

// The value of `--name VALUE` or `--name=VALUE` at `i` (moved past VALUE), or nullopt when `i` is not it.
std::optional<std::string> option_value(const std::vector<std::string>& arguments, std::size_t& i,
                                        const std::string& name) {
  const std::string& argument = arguments[i];
  if (argument.rfind(name + "=", 0) == 0) return argument.substr(name.size() + 1);
  if (argument != name) return std::nullopt;
  if (i + 1 >= arguments.size()) return std::string();
  return arguments[++i];
}

}  // namespace

bool asks_for_version(const std::vector<std::string>& arguments) {
  return std::find(arguments.begin() + (arguments.empty() ? 0 : 1), arguments.end(), "--version") != arguments.end();
}

int print_version(const std::vector<std::string>& arguments) {
  std::string format = "text";
  std::vector<std::string> extra;
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    if (arguments[i] == "--version") continue;
    if (auto value = option_value(arguments, i, "--format")) {
      format = *value;
    } else if (auto folder = option_value(arguments, i, "--rules")) {
      extra.push_back(*folder);
    } else {
      print_message(fmt::format("--version takes only --format and --rules, not {}", arguments[i]));
      return kExitFailure;
    }
  }
  if (format != "text" && format != "json") {
    print_message(fmt::format("--version has no --format {} (it writes text, json)", format));
    return kExitFailure;
  }
  auto rules = rules::load_rules_for(arguments.empty() ? "dlldoctor" : arguments.front(), extra);
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
