#pragma once
// The only way PE parsing code touches file bytes. Every read names an offset and a size taken from
// untrusted input; the reader checks both (overflow included) and answers "absent" instead of reading
// out of bounds. Reads are little-endian whatever the host.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dlldoctor {

// a + b without wrap-around; nullopt when the sum does not fit.
inline std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  if (a > UINT64_MAX - b) return std::nullopt;
  return a + b;
}

inline std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return std::nullopt;
  return a * b;
}

class BoundedReader {
 public:
  BoundedReader() = default;
  BoundedReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::size_t size() const { return size_; }
  const std::uint8_t* data() const { return data_; }

  // True when [offset, offset + length) lies inside the bytes.
  bool contains(std::uint64_t offset, std::uint64_t length) const {
    auto end = checked_add(offset, length);
    return end && *end <= size_;
  }

  // A reader over [offset, offset + length); nullopt when that range is not inside.
  std::optional<BoundedReader> sub(std::uint64_t offset, std::uint64_t length) const {
    if (!contains(offset, length)) return std::nullopt;
    return BoundedReader(data_ + offset, static_cast<std::size_t>(length));
  }

  std::optional<std::uint8_t> u8(std::uint64_t offset) const { return read_le<std::uint8_t>(offset); }
  std::optional<std::uint16_t> u16(std::uint64_t offset) const { return read_le<std::uint16_t>(offset); }
  std::optional<std::uint32_t> u32(std::uint64_t offset) const { return read_le<std::uint32_t>(offset); }
  std::optional<std::uint64_t> u64(std::uint64_t offset) const { return read_le<std::uint64_t>(offset); }

  // A NUL-terminated byte string of at most max_length bytes. nullopt when it starts outside the bytes
  // or runs to their end (or past max_length) without a terminator.
  std::optional<std::string> c_string(std::uint64_t offset, std::size_t max_length) const;
  // The same, not copied: the bytes in place.
  std::optional<std::string_view> c_string_view(std::uint64_t offset, std::size_t max_length) const;

  // A UTF-16LE string of `units` code units, converted to UTF-8 (unpaired surrogates become U+FFFD).
  std::optional<std::string> utf16(std::uint64_t offset, std::size_t units) const;

  // Length in code units of a NUL-terminated UTF-16LE string, at most max_units; nullopt if unterminated.
  std::optional<std::size_t> utf16_length(std::uint64_t offset, std::size_t max_units) const;

 private:
  template <typename T>
  std::optional<T> read_le(std::uint64_t offset) const {
    if (!contains(offset, sizeof(T))) return std::nullopt;
    const std::uint8_t* p = data_ + offset;
    T value = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) value = static_cast<T>(value | (static_cast<T>(p[i]) << (8 * i)));
    return value;
  }

  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

// Appends the UTF-8 encoding of a code point (no validation beyond range).
void append_utf8(std::string& out, std::uint32_t code_point);

}  // namespace dlldoctor
