#include "core/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace dlldoctor {

std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range allowed for the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (length > text.size() - at) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
  return length;
}

std::size_t printable_ascii_end(std::string_view text, std::size_t at, std::string_view except) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  // Whether a word holds a byte below 0x20, above 0x7E, or equal to one of `except` ("Bit Twiddling
  // Hacks": hasless, hasmore, haszero). Each is exact about whether such a byte is there, which is all
  // the loop asks; the bytes of that word are then looked at one by one.
  const auto has_zero_byte = [](std::uint64_t word) { return ((word - kOnes) & ~word & kHigh) != 0; };
  for (; at <= text.size() && text.size() - at >= 8; at += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, text.data() + at, sizeof word);
    bool stop = ((word - kOnes * 0x20) & ~word & kHigh) != 0 || (((word + kOnes) | word) & kHigh) != 0;
    for (const char c : except) stop = stop || has_zero_byte(word ^ (kOnes * static_cast<unsigned char>(c)));
    if (stop) break;
  }
  // Names are short, so most bytes are looked at here: no call per byte (find() would be a memchr).
  const auto excepted = [except](char byte) {
    for (const char c : except) {
      if (byte == c) return true;
    }
    return false;
  };
  for (; at < text.size(); ++at) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte < 0x20 || byte > 0x7E || excepted(text[at])) break;
  }
  return at;
}

bool valid_utf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    at = printable_ascii_end(text, at);
    if (at == text.size()) break;
    const std::size_t length = utf8_sequence_length(text, at);
    if (length == 0) return false;
    at += length;
  }
  return true;
}

std::string escape_bytes(std::string_view text, Escape what) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  // ASCII that stays as it is, copied a run at a time: reports are mostly that.
  const auto kept = [what](unsigned char byte) {
    if (byte >= 0x80) return false;
    if (what == Escape::InvalidUtf8) return true;
    if (byte >= 0x20 && byte != 0x7F) return true;
    return what == Escape::ControlsButLayout && (byte == '\n' || byte == '\t');
  };
  for (std::size_t at = 0; at < text.size();) {
    std::size_t run = printable_ascii_end(text, at);
    while (run < text.size() && kept(static_cast<unsigned char>(text[run]))) run = printable_ascii_end(text, run + 1);
    out.append(text.substr(at, run - at));
    at = run;
    if (at == text.size()) break;
    const auto byte = static_cast<unsigned char>(text[at]);
    const bool layout = byte == '\n' || byte == '\t';
    const bool c0 = byte < 0x20 || byte == 0x7F;
    const std::size_t length = utf8_sequence_length(text, at);
    const bool c1 = length == 2 && byte == 0xC2 && static_cast<unsigned char>(text[at + 1]) < 0xA0;
    const bool control = (c0 || c1) && !(what == Escape::ControlsButLayout && layout);
    if (length == 0 || (what != Escape::InvalidUtf8 && control)) {
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

}  // namespace dlldoctor
