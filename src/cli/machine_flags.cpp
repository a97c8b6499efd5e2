#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace dlldoctor::cli {
namespace {

// "a.dll,b.dll" as its items, empty ones dropped.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find(',', start);
    std::string item = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!item.empty()) items.push_back(item);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return items;
}

}  // namespace

session::MachineSpec machine_spec(const MachineFlags& given) {
  session::MachineSpec spec;
  spec.argv0 = given.argv0;
  spec.rules = given.rules;
  env::EnvironmentFlags& flags = spec.flags;
  if (!given.sysroot.empty()) flags.sysroot = given.sysroot;
  flags.path = given.path;
  if (!given.cwd.empty()) flags.cwd = given.cwd;
  if (!given.safe_mode.empty()) flags.safe_dll_search_mode = given.safe_mode == "on";
  if (!given.known_dlls.empty()) flags.known_dlls = split_list(given.known_dlls);
  if (!given.windows_user.empty()) flags.windows_user = given.windows_user;
  flags.assume_system_dlls = given.assume_system_dlls;
  flags.maps = given.maps;
  spec.snapshot = given.env_file;
  spec.setenv = given.setenv;
  return spec;
}

}  // namespace dlldoctor::cli
