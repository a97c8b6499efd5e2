#include "dlldoctor/core/bounded_reader.hpp"

namespace dlldoctor {

std::optional<std::string> BoundedReader::c_string(std::uint64_t offset, std::size_t max_length) const {
  if (offset >= size_) return std::nullopt;
  const std::size_t available = size_ - static_cast<std::size_t>(offset);
  const std::size_t limit = available < max_length ? available : max_length;
  const auto* begin = reinterpret_cast<const char*>(data_ + offset);
  for (std::size_t i = 0; i < limit; ++i) {
    if (begin[i] == '\0') return std::string(begin, i);
  }
  return std::nullopt;
}

std::optional<std::size_t> BoundedReader::utf16_length(std::uint64_t offset, std::size_t max_units) const {
  for (std::size_t i = 0; i < max_units; ++i) {
    auto unit = u16(offset + 2 * static_cast<std::uint64_t>(i));
    if (!unit) return std::nullopt;
    if (*unit == 0) return i;
  }
  return std::nullopt;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::optional<std::string> BoundedReader::utf16(std::uint64_t offset, std::size_t units) const {
  auto bytes = checked_mul(units, 2);
  if (!bytes || !contains(offset, *bytes)) return std::nullopt;
  constexpr std::uint32_t kReplacement = 0xFFFD;
  std::string out;
  out.reserve(units);
  for (std::size_t i = 0; i < units; ++i) {
    const std::uint32_t unit = *u16(offset + 2 * static_cast<std::uint64_t>(i));
    if (unit >= 0xD800 && unit <= 0xDBFF && i + 1 < units) {
      const std::uint32_t low = *u16(offset + 2 * static_cast<std::uint64_t>(i + 1));
      if (low >= 0xDC00 && low <= 0xDFFF) {
        append_utf8(out, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
        ++i;
        continue;
      }
    }
    append_utf8(out, (unit >= 0xD800 && unit <= 0xDFFF) ? kReplacement : unit);
  }
  return out;
}

}  // namespace dlldoctor
