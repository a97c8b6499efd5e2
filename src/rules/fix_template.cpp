#include "rules/fix_template.hpp"

#include <algorithm>

#include "core/utf8.hpp"

namespace dlldoctor::rules {

std::string powershell_literal(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  // A control character cannot stand in a one-line literal (a newline would split the command when it is
  // read or pasted): it joins the literal's pieces as [char]0xNN, so the value stays exact and one line.
  std::string out = "'";
  bool joined = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool c1 = byte == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) < 0xA0;
    if (byte < 0x20 || byte == 0x7F || c1) {
      const unsigned code = c1 ? static_cast<unsigned char>(text[++i]) : byte;
      out += "' + [char]0x";
      out += kHex[code >> 4];
      out += kHex[code & 15];
      out += " + '";
      joined = true;
      continue;
    }
    out += text[i];
    if (text[i] == '\'') {
      out += '\'';
      continue;
    }
    // U+2018, U+2019, U+201A and U+201B end a single-quoted string too (PowerShell's tokenizer); each is
    // E2 80 98..9B in UTF-8, doubled like '.
    if (byte == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
        static_cast<unsigned char>(text[i + 2]) >= 0x98 && static_cast<unsigned char>(text[i + 2]) <= 0x9B) {
      out.append(text.substr(i + 1, 2));
      out.append(text.substr(i, 3));
      i += 2;
    }
  }
  out += "'";
  return joined ? "(" + out + ")" : out;
}

std::string python_literal(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    const std::size_t length = utf8_sequence_length(text, at);
    const bool c1 = length == 2 && byte == 0xC2 && static_cast<unsigned char>(text[at + 1]) < 0xA0;
    if (length == 0 || byte < 0x20 || byte == 0x7F || c1) {
      // \xNN in a Python str is U+00NN: the same character for controls, a stand-in for a stray byte.
      const auto code = c1 ? static_cast<unsigned char>(text[at + 1]) : byte;
      out += "\\x";
      out += kHex[code >> 4];
      out += kHex[code & 15];
      at += c1 ? 2 : 1;
      continue;
    }
    if (byte == '\\' || byte == '"') out += '\\';
    out.append(text.substr(at, length));
    at += length;
  }
  return out + "\"";
}

std::vector<TemplatePiece> parse_fix_template(std::string_view text) {
  std::vector<TemplatePiece> pieces;
  TemplateContext context = TemplateContext::Code;
  char quote = 0;
  auto literal = [&](char c) {
    if (pieces.empty() || pieces.back().placeholder || pieces.back().context != context)
      pieces.push_back({false, std::string(), context});
    pieces.back().text += c;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{') {
      const std::size_t close = text.find('}', i);
      if (close != std::string_view::npos && close > i + 1) {
        const std::string_view name = text.substr(i + 1, close - i - 1);
        if (std::all_of(name.begin(), name.end(), [](char n) { return (n >= 'a' && n <= 'z') || n == '_'; })) {
          pieces.push_back({true, std::string(name), context});
          i = close;
          continue;
        }
      }
    }
    if (context == TemplateContext::Code) {
      // The opening quote or the # is text of the code before it; what follows is quoted or a comment.
      literal(c);
      if (c == '\'' || c == '"') {
        quote = c;
        context = TemplateContext::Quoted;
      } else if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) {
        context = TemplateContext::Comment;
      }
      continue;
    }
    if (context == TemplateContext::Quoted && c == quote) {
      // '' inside a single-quoted string is a quote, not its end.
      if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        literal(c);
        literal(text[++i]);
        continue;
      }
      literal(c);
      context = TemplateContext::Code;
      continue;
    }
    literal(c);
  }
  return pieces;
}

}  // namespace dlldoctor::rules
