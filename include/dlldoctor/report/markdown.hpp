#pragma once
// What the Markdown reports share.
#include <string>
#include <string_view>

namespace dlldoctor::report {

// Text for a cell of a Markdown table: an unescaped '|' would end the cell, and the row, early.
inline std::string markdown_cell(std::string_view text) {
  std::string escaped;
  for (char c : text) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

}  // namespace dlldoctor::report
