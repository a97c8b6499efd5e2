// Options a command would ignore are refused, not dropped: a user who adds --load to a scan, or a
// program to --sdk, expects it to change the answer.
#include "cli/commands.hpp"
#include "cli/output.hpp"

namespace dlldoctor::cli {

int refuse_options_except(const CLI::App& app, const std::set<std::string>& allowed, const std::string& mode,
                          const std::string& why) {
  for (const CLI::Option* option : app.parse_order()) {
    const std::string name = option->get_name();
    if (allowed.count(name) > 0) continue;
    const std::string given = option->get_positional() ? "a program (" + option->as<std::string>() + ")" : name;
    print_message(given + " cannot be used with " + mode + ": " + why);
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace dlldoctor::cli
