#pragma once
// What the reports for people share: lines for a terminal of 80 columns (docs/DECISIONS.md), and the one
// place their text is made safe (TextOut).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/report/writers.hpp"

namespace dlldoctor::report {

inline constexpr std::size_t kTextWidth = 80;

// Columns a line takes once TextOut has written it: UTF-8 continuation bytes and dlldoctor's own colour
// sequences take none, and a control character or a byte that is not UTF-8 the four of its \xNN.
std::size_t columns(std::string_view text);

// Words (split at spaces) to lines of at most `width` columns, every line after the first starting with
// `indent`. A word longer than a line (a path, a command) stays whole on its own, and so does every
// occurrence of a `whole` piece (a path with spaces: "C:\Program Files\...").
std::vector<std::string> wrap_lines(const std::string& text, std::size_t width, const std::string& indent,
                                    const std::vector<std::string>& whole = {});
// The same lines joined by newlines (--help's descriptions, which CLI11 prints).
std::string wrap(const std::string& text, std::size_t width, const std::string& indent,
                 const std::vector<std::string>& whole = {});

// Whether a TextOut keeps the six colour sequences the text writers put in themselves (SGR 0, 31, 32, 33,
// 1;31, 1;32): only for a terminal that shows colours. Otherwise every escape byte is \x1b, so a file or
// folder name that holds one of those six reaches a file, a pipe or a Markdown report as text; on a
// colour terminal it can at most change the colour (docs/DECISIONS.md, "Colours").
enum class Colours { escaped, kept };
inline Colours colours_of(const WriteStyle& style) { return style.color ? Colours::kept : Colours::escaped; }

// Text for people (the text, Markdown, HTML and DOT formats) reaches a report through this, line by line:
// the one place where the bytes of names and paths are made safe. Each line goes out with every control
// character, every C1 control and every byte that is not UTF-8 as \xNN (the writers' own colours kept when
// `colours` says so), then a newline. A writer never hands it a newline inside a line, so no byte a file
// holds (a DLL name in an import table, a folder name, a registry value) can end a line of the report,
// start a new one or move a terminal's cursor, and a field a writer prints for the first time is as safe
// as the others. It goes to the sink in pieces of 64 KiB.
class TextOut {
 public:
  explicit TextOut(Sink& sink, Colours colours = Colours::escaped) : sink_(sink), colours_(colours) {}
  TextOut(const TextOut&) = delete;
  TextOut& operator=(const TextOut&) = delete;
  ~TextOut() { flush(); }

  void line(std::string_view text = {});
  // `text` wrapped (wrap_lines) after `first` on its first line.
  void wrapped(const std::string& first, const std::string& text, std::size_t width, const std::string& indent,
               const std::vector<std::string>& whole = {});
  // "head path tail" on one line; when that would pass kTextWidth columns, "head tail" and the path on a
  // line of its own below, after `path_indent`, so that names, versions and steps stay readable.
  void with_path(const std::string& head, const std::string& path, const std::string& tail,
                 const std::string& path_indent);
  // One fix line, indented under "fix:". A command stays whole, since it must paste as one line; its
  // trailing comment moves above it when the line would pass kTextWidth, and comments wrap as comments.
  void fix(const std::string& command);
  // Text dlldoctor wrote itself, several lines of it (a page's style sheet): one line per newline.
  void own_lines(std::string_view text);
  void flush();

 private:
  Sink& sink_;
  Colours colours_;
  std::string pending_;
};

// A message on its way to a terminal (dlldoctor's own stderr lines, which quote names from files): every
// control character but newline and tab, every C1 control and every byte that is not UTF-8 as \xNN. None of
// them is coloured, so no escape sequence is kept.
std::string safe_for_terminal(std::string_view text);

}  // namespace dlldoctor::report
