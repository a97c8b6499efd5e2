#include "dlldoctor/report/text_layout.hpp"

#include <algorithm>
#include <array>

#include "dlldoctor/core/utf8.hpp"

namespace dlldoctor::report {
namespace {

constexpr std::array<std::string_view, 6> kOwnColours = {"\x1b[0m",  "\x1b[31m",   "\x1b[32m",
                                                         "\x1b[33m", "\x1b[1;31m", "\x1b[1;32m"};

}  // namespace

std::string fix_text(const std::string& line) {
  constexpr std::size_t kWidth = kTextWidth - 4;
  const std::string indent = "    ";
  if (columns(line) <= kWidth) return indent + line + "\n";
  if (line.rfind("# ", 0) == 0) return indent + wrap(line, kWidth, indent + "# ") + "\n";
  const auto comment = line.find("   # ");
  if (comment == std::string::npos) return indent + line + "\n";
  return indent + wrap(line.substr(comment + 3), kWidth, indent + "# ") + "\n" + indent + line.substr(0, comment) +
         "\n";
}

std::string line_with_path(const std::string& head, const std::string& path, const std::string& tail,
                           const std::string& path_indent) {
  const std::string whole = head + (path.empty() ? "" : " " + path) + tail;
  if (path.empty() || columns(whole) <= kTextWidth) return whole + '\n';
  return head + tail + '\n' + path_indent + path + '\n';
}

std::string wrap(const std::string& text, std::size_t width, const std::string& indent,
                 const std::vector<std::string>& whole) {
  // The spaces inside an occurrence of a `whole` piece are not places to break.
  std::vector<bool> kept(text.size(), false);
  for (const std::string& piece : whole) {
    if (piece.find(' ') == std::string::npos) continue;
    for (std::size_t at = text.find(piece); at != std::string::npos; at = text.find(piece, at + 1))
      std::fill(kept.begin() + static_cast<std::ptrdiff_t>(at),
                kept.begin() + static_cast<std::ptrdiff_t>(at + piece.size()), true);
  }
  auto next_break = [&](std::size_t from) {
    std::size_t at = text.find(' ', from);
    while (at != std::string::npos && kept[at]) at = text.find(' ', at + 1);
    return at;
  };
  std::string out, line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = next_break(start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && columns(line) + 1 + columns(word) > width) {
      out += line + "\n";
      line = indent;
    }
    line += (line.empty() || line == indent ? "" : " ") + word;
  }
  return out + line;
}

std::string safe_for_terminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t plain = 0;  // start of the text since the last colour sequence of our own
  for (std::size_t at = text.find('\x1b'); at != std::string_view::npos; at = text.find('\x1b', at + 1)) {
    const auto own = std::find_if(kOwnColours.begin(), kOwnColours.end(),
                                  [&](std::string_view colour) { return text.substr(at, colour.size()) == colour; });
    if (own == kOwnColours.end()) continue;
    out += escape_bytes(text.substr(plain, at - plain), Escape::ControlsButLayout);
    out += *own;
    plain = at + own->size();
    at = plain - 1;
  }
  out += escape_bytes(text.substr(plain), Escape::ControlsButLayout);
  return out;
}

}  // namespace dlldoctor::report
