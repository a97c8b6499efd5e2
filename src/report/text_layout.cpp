#include "dlldoctor/report/text_layout.hpp"

#include <algorithm>
#include <array>

#include "dlldoctor/core/utf8.hpp"

namespace dlldoctor::report {
namespace {

constexpr std::array<std::string_view, 6> kOwnColours = {"\x1b[0m",  "\x1b[31m",   "\x1b[32m",
                                                         "\x1b[33m", "\x1b[1;31m", "\x1b[1;32m"};

}  // namespace

std::string wrap(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out, line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
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
  for (std::size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte == 0x1b) {
      const auto own = std::find_if(kOwnColours.begin(), kOwnColours.end(),
                                    [&](std::string_view colour) { return text.substr(at, colour.size()) == colour; });
      if (own != kOwnColours.end()) {
        out += *own;
        at += own->size();
        continue;
      }
    }
    const bool control = byte < 0x20 ? byte != '\n' && byte != '\t' : byte == 0x7F;
    const std::size_t length = control ? 0 : utf8_sequence_length(text, at);
    const bool c1 = length == 2 && byte == 0xC2 && static_cast<unsigned char>(text[at + 1]) < 0xA0;
    if (length == 0 || c1) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
      ++at;
      continue;
    }
    out.append(text.substr(at, length));
    at += length;
  }
  return out;
}

}  // namespace dlldoctor::report
