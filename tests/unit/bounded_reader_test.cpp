#include "dlldoctor/core/bounded_reader.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

using dlldoctor::BoundedReader;

TEST_CASE("reads little-endian fields inside the bytes and nothing outside") {
  const std::vector<std::uint8_t> bytes{0x01, 0x02, 0x03, 0x04, 0x05};
  const BoundedReader r(bytes.data(), bytes.size());
  CHECK(*r.u16(0) == 0x0201);
  CHECK(*r.u32(1) == 0x05040302);
  CHECK_FALSE(r.u32(2));
  CHECK_FALSE(r.u8(5));
  CHECK_FALSE(r.u16(UINT64_MAX));  // offset + size wraps around
  CHECK_FALSE(r.sub(UINT64_MAX - 1, 4));
  CHECK_FALSE(r.sub(3, 3));
  auto tail = r.sub(3, 2);
  REQUIRE(tail);
  CHECK(*tail->u16(0) == 0x0504);
  CHECK_FALSE(tail->u8(2));
}

TEST_CASE("C strings need a terminator within the bytes and the limit") {
  const std::vector<std::uint8_t> bytes{'a', 'b', 0, 'c', 'd'};
  const BoundedReader r(bytes.data(), bytes.size());
  CHECK(*r.c_string(0, 16) == "ab");
  CHECK_FALSE(r.c_string(3, 16));  // runs off the end
  CHECK_FALSE(r.c_string(0, 2));   // longer than allowed
  CHECK_FALSE(r.c_string(9, 16));
}

TEST_CASE("UTF-16 converts to UTF-8, surrogate pairs included, lone surrogates replaced") {
  // "é€😀" then a lone high surrogate
  const std::vector<std::uint8_t> bytes{0xE9, 0x00, 0xAC, 0x20, 0x3D, 0xD8, 0x00, 0xDE, 0x00, 0xD8, 0, 0};
  const BoundedReader r(bytes.data(), bytes.size());
  CHECK(*r.utf16(0, 5) == "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBD");
  CHECK(*r.utf16_length(0, 16) == 5);
  CHECK_FALSE(r.utf16_length(0, 3));
  CHECK_FALSE(r.utf16(0, 7));
}

TEST_CASE("checked arithmetic refuses to wrap") {
  CHECK_FALSE(dlldoctor::checked_add(UINT64_MAX, 1));
  CHECK(*dlldoctor::checked_add(2, 3) == 5);
  CHECK_FALSE(dlldoctor::checked_mul(UINT64_MAX / 2, 3));
  CHECK(*dlldoctor::checked_mul(0, UINT64_MAX) == 0);
}
