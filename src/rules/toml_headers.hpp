#pragma once
// A rule file's table headers checked before toml++ reads it (internal to src/rules).
#include <optional>
#include <string>
#include <string_view>

#include "dlldoctor/core/result.hpp"

namespace dlldoctor::rules {

// toml++ 3.3.0 (Debian 12's) asserts that a table header's name starts with a key character: "[&", "[[=",
// "[[[1]]]" or "[" at a line's end abort a build with assertions instead of giving a parse_error, and
// clang's release builds take it as an assumption (marzer/tomlplusplus#294, fixed upstream by #301). The
// headers are found the way toml++'s document loop finds them (outside strings, comments and the brackets
// of values) and such a header is refused with its line, before toml++ sees the text.
std::optional<Error> unreadable_table_header(std::string_view text, const std::string& file);

}  // namespace dlldoctor::rules
