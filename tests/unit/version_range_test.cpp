#include "dlldoctor/core/version_range.hpp"

#include <doctest/doctest.h>

using dlldoctor::compare_versions;
using dlldoctor::leading_version;
using dlldoctor::VersionParts;
using dlldoctor::VersionRange;

TEST_CASE("a version's leading numbers: a framework's version string, a rule's bound") {
  CHECK(leading_version("2.5.1+cu124") == VersionParts{2, 5, 1});
  CHECK(leading_version("9.20") == VersionParts{9, 20});
  CHECK(leading_version("2.10.0.dev20260101") == VersionParts{2, 10, 0});
  CHECK(leading_version("10.") == VersionParts{10});  // a trailing dot ends the version
  CHECK_FALSE(leading_version("v2.9"));
  CHECK_FALSE(leading_version(""));
}

TEST_CASE("versions compare part by part as numbers, missing parts as 0") {
  CHECK(compare_versions({9, 3}, {9, 20}) < 0);  // not as text: 9.3 comes before 9.20
  CHECK(compare_versions({9, 20, 0, 0}, {9, 20}) == 0);
  CHECK(compare_versions({14, 16, 27012}, {14, 40}) < 0);
  CHECK(compare_versions({2, 10}, {2, 9}) > 0);
}

TEST_CASE("a range is at least `from` and below `before`") {
  const VersionRange cudnn8_zlib{VersionParts{8, 3}, VersionParts{9}};
  CHECK(cudnn8_zlib.contains({8, 9, 7, 29}));
  CHECK(cudnn8_zlib.contains({8, 3}));
  CHECK_FALSE(cudnn8_zlib.contains({8, 2, 4}));
  CHECK_FALSE(cudnn8_zlib.contains({9, 0, 0}));
  CHECK(cudnn8_zlib.text() == "8.3 up to (not including) 9");
  const VersionRange newer{VersionParts{9, 20}, std::nullopt};
  CHECK(newer.contains({9, 24, 0, 43}));
  CHECK_FALSE(newer.contains({9, 1, 0, 70}));
  CHECK(newer.text() == "9.20 and later");
}
