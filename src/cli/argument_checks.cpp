// What a command line's values and names say about how it was typed: a Windows path whose backslashes a
// POSIX shell removed (C:\work -> C:work), an option name with a typo.
#include <algorithm>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"

namespace dlldoctor::cli {
namespace {

// "C:work", "C:siteext.pyd": a drive letter and a colon, then a name with no separator. Windows would read
// it relative to the drive's current folder, which no one means on a command line; unquoted in bash it is
// what C:\work becomes.
bool lost_its_backslashes(std::string_view piece) {
  if (piece.size() < 4 || piece[1] != ':') return false;
  const char drive = piece[0];
  if (!((drive >= 'A' && drive <= 'Z') || (drive >= 'a' && drive <= 'z'))) return false;
  return piece.find_first_of("\\/") == std::string_view::npos;
}

// A value is checked whole and in its pieces: PATH's entries (;), and what follows the first '=' of
// HOSTDIR=WINDOWSDIR or NAME=VALUE.
std::string stripped_path_message(const std::string& value) {
  std::vector<std::string_view> pieces;
  std::string_view rest = value;
  while (true) {
    const std::size_t semicolon = rest.find(';');
    std::string_view piece = rest.substr(0, semicolon);
    pieces.push_back(piece);
    const std::size_t equals = piece.find('=');
    if (equals != std::string_view::npos) pieces.push_back(piece.substr(equals + 1));
    if (semicolon == std::string_view::npos) break;
    rest.remove_prefix(semicolon + 1);
  }
  for (std::string_view piece : pieces) {
    if (!lost_its_backslashes(piece)) continue;
    return std::string(piece) +
           " looks like a Windows path whose backslashes the shell removed: quote it ('C:\\...' in single "
           "quotes), or write it with forward slashes (a path relative to a drive's current folder is not taken)";
  }
  return "";
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

void collect_long_names(const CLI::App& app, std::vector<std::string>& names) {
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) collect_long_names(*sub, names);
}

}  // namespace

void check_windows_path_values(CLI::App& app) {
  const CLI::Validator intact(stripped_path_message, "", "intact Windows path");
  for (CLI::Option* option : app.get_options()) {
    if (option->get_expected_max() > 0) option->check(intact);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) check_windows_path_values(*sub);
}

std::string closest_option(const CLI::App& app, const std::string& typed) {
  if (typed.size() < 4 || typed.compare(0, 2, "--") != 0) return "";
  std::vector<std::string> names;
  collect_long_names(app, names);
  std::string best;
  std::size_t best_distance = std::min<std::size_t>(2, (typed.size() - 2) / 3) + 1;
  for (const std::string& name : names) {
    const std::size_t distance = edit_distance(typed, name);
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  return best;
}

}  // namespace dlldoctor::cli
