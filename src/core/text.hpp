#pragma once
// Small text helpers shared by the readers of text files (Zone.Identifier streams, pyvenv.cfg, recipe
// conditions, file names).
#include <string_view>

namespace dlldoctor {

// `text` without the spaces, tabs and line ends around it.
inline std::string_view trim_whitespace(std::string_view text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

inline bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace dlldoctor
