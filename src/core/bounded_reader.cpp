#include "dlldoctor/core/bounded_reader.hpp"

#include <algorithm>
#include <cstring>

namespace dlldoctor {

std::optional<std::string_view> BoundedReader::c_string_view(std::uint64_t offset, std::size_t max_length) const {
  if (offset >= size_) return std::nullopt;
  const std::size_t available = size_ - static_cast<std::size_t>(offset);
  const std::size_t limit = available < max_length ? available : max_length;
  const auto* begin = reinterpret_cast<const char*>(data_ + offset);
  const auto* end = static_cast<const char*>(std::memchr(begin, '\0', limit));
  if (end == nullptr) return std::nullopt;
  return std::string_view(begin, static_cast<std::size_t>(end - begin));
}

std::optional<std::string> BoundedReader::c_string(std::uint64_t offset, std::size_t max_length) const {
  auto text = c_string_view(offset, max_length);
  if (!text) return std::nullopt;
  return std::string(*text);
}

std::optional<std::size_t> BoundedReader::utf16_length(std::uint64_t offset, std::size_t max_units) const {
  // The units inside the bytes are read straight (version resources hold hundreds of these strings).
  const std::uint64_t inside = offset < size_ ? (size_ - offset) / 2 : 0;
  const std::size_t units = static_cast<std::size_t>(std::min<std::uint64_t>(max_units, inside));
  for (std::size_t i = 0; i < units; ++i) {
    if (data_[offset + 2 * i] == 0 && data_[offset + 2 * i + 1] == 0) return i;
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
  // Inside the bytes, checked above: the units are read straight.
  const std::uint8_t* bytes_at = data_ + offset;
  const auto unit_at = [bytes_at](std::size_t i) {
    return static_cast<std::uint32_t>(bytes_at[2 * i] | (bytes_at[2 * i + 1] << 8));
  };
  std::string out;
  out.reserve(units);
  for (std::size_t i = 0; i < units; ++i) {
    const std::uint32_t unit = unit_at(i);
    if (unit < 0x80) {
      out += static_cast<char>(unit);
      continue;
    }
    if (unit >= 0xD800 && unit <= 0xDBFF && i + 1 < units) {
      const std::uint32_t low = unit_at(i + 1);
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
