#pragma once
// Small text helpers shared by the readers of text files (Zone.Identifier streams, pyvenv.cfg, recipe
// conditions).
#include <string_view>

namespace dlldoctor {

// `text` without the spaces, tabs and line ends around it.
inline std::string_view trim_whitespace(std::string_view text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

}  // namespace dlldoctor
