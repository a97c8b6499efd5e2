#pragma once
// The tests' own count of the columns a line takes on a terminal, to check "readable at 80 columns"
// independently of the product's layout code.
#include <cstddef>
#include <string>

namespace dlldoctor::test {

// UTF-8 continuation bytes take no column.
inline std::size_t columns(const std::string& text) {
  std::size_t count = 0;
  for (char ch : text) count += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return count;
}

}  // namespace dlldoctor::test
