#include "dlldoctor/resolve/load_request.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdlib>

#include "dlldoctor/core/dll_name.hpp"

namespace dlldoctor::resolve {
namespace {

struct FlagName {
  const char* name;
  std::uint32_t value;
};

constexpr std::array<FlagName, 6> kFlagNames = {{
    {"altered-search-path", load_flags::kAlteredSearchPath},
    {"search-dll-load-dir", load_flags::kSearchDllLoadDir},
    {"search-application-dir", load_flags::kSearchApplicationDir},
    {"search-user-dirs", load_flags::kSearchUserDirs},
    {"search-system32", load_flags::kSearchSystem32},
    {"search-default-dirs", load_flags::kSearchDefaultDirs},
}};

// "LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR" and "LOAD_WITH_ALTERED_SEARCH_PATH" read as the short names.
std::string short_name(std::string text) {
  text = ascii_lower(text);
  for (char& c : text) {
    if (c == '_') c = '-';
  }
  for (const char* prefix : {"load-library-", "load-with-"}) {
    if (text.rfind(prefix, 0) == 0) text.erase(0, std::char_traits<char>::length(prefix));
  }
  return text;
}

}  // namespace

Result<std::uint32_t> parse_load_flags(std::string_view list) {
  std::uint32_t flags = 0;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = list.find_first_of(",|", start);
    std::string item(list.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    while (!item.empty() && item.front() == ' ') item.erase(0, 1);
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) {
      char* rest = nullptr;
      const unsigned long number = std::strtoul(item.c_str(), &rest, 0);
      if (rest && *rest == '\0') {
        flags |= static_cast<std::uint32_t>(number);
      } else {
        const std::string wanted = short_name(item);
        bool known = false;
        for (const FlagName& flag : kFlagNames) {
          if (wanted == flag.name) {
            flags |= flag.value;
            known = true;
          }
        }
        if (!known) {
          return Error{
              fmt::format("unknown load flag '{}' (use altered-search-path, search-dll-load-dir, "
                          "search-application-dir, search-user-dirs, search-system32, search-default-dirs "
                          "or a number)",
                          item)};
        }
      }
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return flags;
}

std::vector<std::string> load_flag_names(std::uint32_t flags) {
  std::vector<std::string> names;
  for (const FlagName& flag : kFlagNames) {
    if (flags & flag.value) {
      names.emplace_back(flag.name);
      flags &= ~flag.value;
    }
  }
  if (flags) names.push_back(fmt::format("0x{:x}", flags));
  return names;
}

}  // namespace dlldoctor::resolve
