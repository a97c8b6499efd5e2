// What a report may send to a terminal (safe_for_terminal) and the UTF-8 check under it.
#include <doctest/doctest.h>

#include <string>

#include "dlldoctor/core/utf8.hpp"
#include "dlldoctor/report/text_layout.hpp"

using dlldoctor::utf8_sequence_length;
using dlldoctor::valid_utf8;
using dlldoctor::report::safe_for_terminal;

TEST_CASE("UTF-8: valid sequences by length, invalid ones 0") {
  CHECK(utf8_sequence_length("a", 0) == 1);
  CHECK(utf8_sequence_length("\xc3\xbc", 0) == 2);          // ü
  CHECK(utf8_sequence_length("\xe6\x97\xa5", 0) == 3);      // 日
  CHECK(utf8_sequence_length("\xf0\x9f\x98\x80", 0) == 4);  // U+1F600
  CHECK(utf8_sequence_length("\x80", 0) == 0);              // a lone continuation byte
  CHECK(utf8_sequence_length("\xc0\xaf", 0) == 0);          // overlong '/'
  CHECK(utf8_sequence_length("\xe0\x80\xaf", 0) == 0);      // overlong '/'
  CHECK(utf8_sequence_length("\xed\xa0\x80", 0) == 0);      // a surrogate
  CHECK(utf8_sequence_length("\xf4\x90\x80\x80", 0) == 0);  // past U+10FFFF
  CHECK(utf8_sequence_length("\xe6\x97", 0) == 0);          // cut short
  CHECK(utf8_sequence_length("\xff", 0) == 0);
  CHECK(valid_utf8("C:\\t\xc3\xbc\\\xe6\x97\xa5\xe6\x9c\xac app"));
  CHECK_FALSE(valid_utf8("bad\xff\xfe"));
  CHECK(valid_utf8(""));
}

TEST_CASE("safe_for_terminal: text, newlines, tabs and dlldoctor's own colours pass; controls and bad bytes do not") {
  CHECK(safe_for_terminal("cudnn64_9.dll 9.1.0.70\n\tC:\\tools\n") == "cudnn64_9.dll 9.1.0.70\n\tC:\\tools\n");
  CHECK(safe_for_terminal("├─ 日本 ü") == "├─ 日本 ü");
  CHECK(safe_for_terminal("\x1b[31mNOT FOUND\x1b[0m \x1b[1;32mHEALTHY\x1b[0m") ==
        "\x1b[31mNOT FOUND\x1b[0m \x1b[1;32mHEALTHY\x1b[0m");
  CHECK(safe_for_terminal("a\x1b[2Jb") == "a\\x1b[2Jb");                 // erase the screen
  CHECK(safe_for_terminal("\x1b]0;title\x07") == "\\x1b]0;title\\x07");  // set the window title
  CHECK(safe_for_terminal("x\ry") == "x\\x0dy");
  CHECK(safe_for_terminal("del\x7f") == "del\\x7f");
  CHECK(safe_for_terminal("\xc2\x9b"
                          "2J") == "\\xc2\\x9b2J");    // C1 CSI in UTF-8
  CHECK(safe_for_terminal("\xc2\xa0") == "\xc2\xa0");  // U+00A0 is text
  CHECK(safe_for_terminal("bad\xff\xfe.dll") == "bad\\xff\\xfe.dll");
  CHECK(safe_for_terminal("cut \xe6\x97") == "cut \\xe6\\x97");
  CHECK(safe_for_terminal("{\"dll\": \"\\u001bibwapi.dll\"}") == "{\"dll\": \"\\u001bibwapi.dll\"}");
}
