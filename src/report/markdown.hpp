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

// `text` as an inline code span: a fence one backtick longer than any run of backticks the text holds (a
// name from a file may hold some), with a space inside when the text starts or ends with one.
inline std::string markdown_code(std::string_view text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = run > longest ? run : longest;
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  return fence + (pad ? " " : "") + std::string(text) + (pad ? " " : "") + fence;
}

}  // namespace dlldoctor::report
