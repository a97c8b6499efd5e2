#pragma once
// What the text reports share: they are written for a terminal of 80 columns (docs/DECISIONS.md).
#include <cstddef>
#include <string>
#include <string_view>

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

}  // namespace dlldoctor::report
