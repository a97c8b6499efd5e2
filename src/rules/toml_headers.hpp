#pragma once
// A rule file's table headers checked before toml++ reads it (internal to src/rules).
#include <optional>
#include <string>
#include <string_view>

#include "dlldoctor/core/result.hpp"

namespace dlldoctor::rules {

// What toml++ 3.3.0 (Debian 12's) would misread instead of refusing, refused with its line before toml++
// sees the text. The text is read the way toml++'s document loop reads it (strings, comments and the
// brackets of values told apart), and these are refused:
// - a table header whose name does not start with a key character: "[&", "[[=", "[[[1]]]" or "[" at a
//   line's end abort a build with assertions instead of giving a parse_error, and clang's release builds
//   take it as an assumption (marzer/tomlplusplus#294, fixed upstream by #301);
// - a byte outside ASCII, which TOML allows only in strings and comments: toml++ asks whether it is Unicode
//   whitespace, and for U+00A1-U+0499, U+2C5E-U+3057 (but U+3000) and U+FB26-U+FEFE that question reaches
//   an unreachable branch (undefined behaviour; the machine fuzzer found "x \uFEF7" in a rules file).
//   It asks the same in a multi-line basic string of the character after a backslash and of the first
//   one after a line-ending backslash: a byte outside ASCII there is refused too, though TOML allows it
//   after a line-ending backslash (a rules text can start that line with an ASCII character instead).
std::optional<Error> unreadable_toml(std::string_view text, const std::string& file);

}  // namespace dlldoctor::rules
