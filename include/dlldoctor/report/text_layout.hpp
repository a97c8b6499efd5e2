#pragma once
// What the text reports share: they are written for a terminal of 80 columns (docs/DECISIONS.md).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dlldoctor::report {

inline constexpr std::size_t kTextWidth = 80;

// Columns a terminal gives the text: UTF-8 continuation bytes and colour sequences take none.
inline std::size_t columns(std::string_view text) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b') {
      while (i < text.size() && text[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++count;
  }
  return count;
}

// Words (split at spaces) to lines of at most `width` columns, joined by newlines, every line after the
// first starting with `indent`. A word longer than a line (a path, a command) stays whole on its own, and
// so does every occurrence of a `whole` piece (a path with spaces: "C:\Program Files\...").
std::string wrap(const std::string& text, std::size_t width, const std::string& indent,
                 const std::vector<std::string>& whole = {});

// A line "head path tail" with its newline. When it would pass kTextWidth columns, the path moves to a
// line of its own below, after `path_indent`, so that names, versions and steps stay readable.
std::string line_with_path(const std::string& head, const std::string& path, const std::string& tail,
                           const std::string& path_indent);

// One fix line, indented under "fix:", with its newline. A command stays whole, since it must paste as
// one line; its trailing comment moves above it when the line would pass kTextWidth, and comments wrap
// as comments.
std::string fix_text(const std::string& line);

// A report as it may reach a terminal. Names in a report come from the files inspected (a DLL name in an
// import table is whatever bytes the file holds), and a terminal obeys the control sequences it is sent.
// So every control character but newline and tab, every C1 control (U+0080-U+009F) and every byte that
// is not valid UTF-8 is written as \xNN; the only escape sequences kept are the colours the text writers
// use themselves (SGR 0, 31, 32, 33, 1;31, 1;32). Valid UTF-8 and JSON (which escapes its controls) pass
// unchanged.
std::string safe_for_terminal(std::string_view text);

}  // namespace dlldoctor::report
