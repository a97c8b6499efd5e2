#include "rules/toml_headers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace dlldoctor::rules {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// What toml++ 3.3's parse_key may start at: an ASCII bare key character or a string delimiter.
bool is_key_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '"' || c == '\'';
}

std::string shown(char c) {
  if (c == '\n' || c == '\r') return "the line's end";
  if (c == '#') return "a comment";
  if (c > ' ' && c < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("the byte 0x{:02X}", static_cast<unsigned char>(c));
}

class TomlScan {
 public:
  explicit TomlScan(std::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") at_ = 3;  // toml++ skips a UTF-8 byte order mark
  }

  // The first table header whose name cannot start where toml++ would start reading it, or the first byte
  // outside ASCII that is not in a string or a comment: its line and what is wrong.
  std::optional<std::pair<std::size_t, std::string>> first_unreadable() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '\n') {
        ++line_;
        ++at_;
        in_header_ = false;
        statement_start_ = depth_ == 0;
        continue;
      }
      if (is_blank(c) || c == '\r') {
        ++at_;
        continue;
      }
      if (c == '#') {
        at_ = std::min(text_.find('\n', at_), text_.size());
        continue;
      }
      if (static_cast<unsigned char>(c) >= 0x80) {
        return std::pair{line_, fmt::format("a character outside ASCII (the byte 0x{:02X}) may stand only in a "
                                            "string or a comment",
                                            static_cast<unsigned char>(c))};
      }
      const bool header = statement_start_ && c == '[';
      statement_start_ = false;
      if (c == '"' || c == '\'') {
        if (auto bad = skip_string(c)) return std::pair{line_, std::move(*bad)};
        continue;
      }
      if (header) {
        if (auto bad = header_name_start()) {
          return std::pair{line_,
                           "a table header must start with a name (a bare key or a quoted one), saw " + shown(*bad)};
        }
        in_header_ = true;
      } else if (!in_header_) {
        if (c == '[' || c == '{') ++depth_;
        if ((c == ']' || c == '}') && depth_ > 0) --depth_;
      }
      ++at_;
    }
    return std::nullopt;
  }

 private:
  // at_ is on the header's '['. As toml++'s parse_table_header: blanks, a second '[' only right after the
  // first (after a blank toml++ refuses it itself), blanks; then the name, a closing ']' (refused by toml++
  // as a blank name) or the text's end.
  std::optional<char> header_name_start() const {
    std::size_t p = at_ + 1;
    const std::size_t after_bracket = p;
    while (p < text_.size() && is_blank(text_[p])) ++p;
    if (p < text_.size() && text_[p] == '[') {
      if (p != after_bracket) return std::nullopt;
      ++p;
      while (p < text_.size() && is_blank(text_[p])) ++p;
    }
    if (p >= text_.size() || text_[p] == ']' || is_key_start(text_[p])) return std::nullopt;
    return text_[p];
  }

  // at_ is on a string's opening quote; leaves at_ past its end (or on the line break ending an unclosed
  // one-line string), counting the lines a multi-line string spans. In a multi-line basic string toml++
  // asks whether the character after a backslash is whitespace, and past a line-ending backslash whether
  // each next one is: a byte outside ASCII there is refused (the message; line_ is its line).
  std::optional<std::string> skip_string(char quote) {
    const bool escapes = quote == '"';
    const bool multi_line = text_.compare(at_, 3, std::string(3, quote)) == 0;
    at_ += multi_line ? 3 : 1;
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (escapes && multi_line && c == '\\') {
        std::size_t next = at_ + 1;
        std::size_t lines = 0;
        while (next < text_.size() && (is_blank(text_[next]) || text_[next] == '\r' || text_[next] == '\n'))
          lines += text_[next++] == '\n';
        if (next < text_.size() && static_cast<unsigned char>(text_[next]) >= 0x80) {
          line_ += lines;
          return fmt::format(
              "a character outside ASCII (the byte 0x{:02X}) right after a backslash, or first after a line-ending "
              "backslash, in a multi-line string is misread by toml++ 3.3: put an ASCII character before it",
              static_cast<unsigned char>(text_[next]));
        }
      }
      if (escapes && c == '\\' && at_ + 1 < text_.size()) {
        if (text_[at_ + 1] == '\n') {
          if (!multi_line) return std::nullopt;
          ++line_;
        }
        at_ += 2;
        continue;
      }
      if (c == '\n') {
        if (!multi_line) return std::nullopt;
        ++line_;
      }
      if (c == quote) {
        if (!multi_line) {
          ++at_;
          return std::nullopt;
        }
        // A run of three to five quotes closes it: up to two belong to the string.
        std::size_t run = 0;
        while (at_ + run < text_.size() && text_[at_ + run] == quote) ++run;
        at_ += std::min<std::size_t>(run, 5);
        if (run >= 3) return std::nullopt;
        continue;
      }
      ++at_;
    }
    return std::nullopt;
  }

  std::string_view text_;
  std::size_t at_ = 0;
  std::size_t line_ = 1;
  int depth_ = 0;  // the '[' and '{' of values still open
  bool statement_start_ = true;
  bool in_header_ = false;
};

}  // namespace

std::optional<Error> unreadable_toml(std::string_view text, const std::string& file) {
  auto bad = TomlScan(text).first_unreadable();
  if (!bad) return std::nullopt;
  return Error{fmt::format("{}:{}: {}", file, bad->first, bad->second)};
}

}  // namespace dlldoctor::rules
