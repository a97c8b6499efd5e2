#include <algorithm>

#include "cli/commands.hpp"

namespace dlldoctor::cli {

CommandLine::CommandLine(const std::vector<char*>& args, bool every) : every_(every) {
  for (std::size_t i = 1; i < args.size(); ++i) arguments_.emplace_back(args[i]);
}

bool CommandLine::names_command(std::string_view command) const {
  return every_ || std::find(arguments_.begin(), arguments_.end(), command) != arguments_.end();
}

bool CommandLine::names_flag(std::string_view names) const {
  if (every_) return true;
  for (std::size_t start = 0; start < names.size();) {
    const std::size_t comma = std::min(names.find(',', start), names.size());
    std::string_view name = names.substr(start, comma - start);
    // CLI11 takes "-o, --output" too.
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty() && std::any_of(arguments_.begin(), arguments_.end(), [name](std::string_view argument) {
          return argument.substr(0, name.size()) == name;
        }))
      return true;
    start = comma + 1;
  }
  return false;
}

}  // namespace dlldoctor::cli
