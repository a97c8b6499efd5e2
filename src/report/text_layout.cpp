#include "report/text_layout.hpp"

#include <algorithm>
#include <array>

#include "core/utf8.hpp"

namespace dlldoctor::report {
namespace {

constexpr std::array<std::string_view, 6> kOwnColours = {"\x1b[0m",  "\x1b[31m",   "\x1b[32m",
                                                         "\x1b[33m", "\x1b[1;31m", "\x1b[1;32m"};

// The colour sequence of dlldoctor's own that starts at `at`, if one does.
std::string_view own_colour_at(std::string_view text, std::size_t at) {
  for (std::string_view colour : kOwnColours) {
    if (text.substr(at, colour.size()) == colour) return colour;
  }
  return {};
}

// `text` with what escape_bytes escapes as \xNN, dlldoctor's own colours kept if `colours` says so.
void append_escaped(std::string& out, std::string_view text, Escape what, Colours colours) {
  if (colours == Colours::escaped) return void(out += escape_bytes(text, what));
  std::size_t plain = 0;  // start of the text since the last colour sequence of our own
  for (std::size_t at = text.find('\x1b'); at != std::string_view::npos; at = text.find('\x1b', at + 1)) {
    const std::string_view own = own_colour_at(text, at);
    if (own.empty()) continue;
    out += escape_bytes(text.substr(plain, at - plain), what);
    out += own;
    plain = at + own.size();
    at = plain - 1;
  }
  out += escape_bytes(text.substr(plain), what);
}

constexpr std::size_t kPiece = 64 * 1024;

}  // namespace

std::size_t columns(std::string_view text) {
  std::size_t count = 0;
  for (std::size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte == 0x1b) {
      const std::string_view own = own_colour_at(text, at);
      if (!own.empty()) {
        at += own.size();
        continue;
      }
    }
    const std::size_t length = utf8_sequence_length(text, at);
    const bool c0 = byte < 0x20 || byte == 0x7F;
    const bool c1 = length == 2 && byte == 0xC2 && static_cast<unsigned char>(text[at + 1]) < 0xA0;
    if (length == 0 || c0 || c1) {
      count += 4 * (length == 0 ? 1 : length);  // \xNN for each byte TextOut escapes
      at += length == 0 ? 1 : length;
      continue;
    }
    ++count;
    at += length;
  }
  return count;
}

std::vector<std::string> wrap_lines(const std::string& text, std::size_t width, const std::string& indent,
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
  std::vector<std::string> lines;
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = next_break(start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && columns(line) + 1 + columns(word) > width) {
      lines.push_back(std::move(line));
      line = indent;
    }
    line += (line.empty() || line == indent ? "" : " ") + word;
  }
  lines.push_back(std::move(line));
  return lines;
}

std::string wrap(const std::string& text, std::size_t width, const std::string& indent,
                 const std::vector<std::string>& whole) {
  std::string out;
  for (const std::string& line : wrap_lines(text, width, indent, whole)) out += (out.empty() ? "" : "\n") + line;
  return out;
}

void TextOut::line(std::string_view text) {
  append_escaped(pending_, text, Escape::Controls, colours_);
  pending_ += '\n';
  if (pending_.size() >= kPiece) flush();
}

void TextOut::wrapped(const std::string& first, const std::string& text, std::size_t width, const std::string& indent,
                      const std::vector<std::string>& whole) {
  const std::vector<std::string> lines = wrap_lines(text, width, indent, whole);
  for (std::size_t i = 0; i < lines.size(); ++i) line(i == 0 ? first + lines[i] : lines[i]);
}

void TextOut::with_path(const std::string& head, const std::string& path, const std::string& tail,
                        const std::string& path_indent) {
  const std::string whole = head + (path.empty() ? "" : " " + path) + tail;
  if (path.empty() || columns(whole) <= kTextWidth) return line(whole);
  line(head + tail);
  line(path_indent + path);
}

void TextOut::fix(const std::string& command) {
  constexpr std::size_t kWidth = kTextWidth - 4;
  const std::string indent = "    ";
  if (columns(command) <= kWidth) return line(indent + command);
  if (command.rfind("# ", 0) == 0) return wrapped(indent, command, kWidth, indent + "# ");
  const auto comment = command.find("   # ");
  if (comment == std::string::npos) return line(indent + command);
  wrapped(indent, command.substr(comment + 3), kWidth, indent + "# ");
  line(indent + command.substr(0, comment));
}

void TextOut::own_lines(std::string_view text) {
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    line(text.substr(start, end - start));
    start = end + 1;
  }
}

void TextOut::flush() {
  if (pending_.empty()) return;
  sink_.put(pending_);
  pending_.clear();
}

std::string safe_for_terminal(std::string_view text) { return escape_bytes(text, Escape::ControlsButLayout); }

}  // namespace dlldoctor::report
