// What a report may send to a terminal (safe_for_terminal) and the UTF-8 check under it.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "core/utf8.hpp"
#include "report/text_layout.hpp"

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

TEST_CASE("safe_for_terminal: text, newlines and tabs pass; controls, escape sequences and bad bytes do not") {
  CHECK(safe_for_terminal("cudnn64_9.dll 9.1.0.70\n\tC:\\tools\n") == "cudnn64_9.dll 9.1.0.70\n\tC:\\tools\n");
  CHECK(safe_for_terminal("├─ 日本 ü") == "├─ 日本 ü");
  // A message is never coloured: a colour sequence in it came from a file.
  CHECK(safe_for_terminal("C:\\tools\\\x1b[31mred\x1b[0m\\x.dll") == "C:\\tools\\\\x1b[31mred\\x1b[0m\\x.dll");
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

// A report's text keeps the colours its writer put in only for a colour terminal; a folder name holding the
// very same sequences is text in a file, a pipe or a Markdown report.
TEST_CASE("TextOut: the writers' colours are kept only when it is told to keep them") {
  using dlldoctor::report::Colours;
  using dlldoctor::report::StringSink;
  using dlldoctor::report::TextOut;
  const std::string hostile = "C:\\\x1b[31mred\x1b[0m\\cudnn64_9.dll";
  const std::string line = "\x1b[1;31mBROKEN\x1b[0m " + hostile;
  StringSink plain;
  TextOut(plain).line(line);
  CHECK(plain.text() == "\\x1b[1;31mBROKEN\\x1b[0m C:\\\\x1b[31mred\\x1b[0m\\cudnn64_9.dll\n");
  StringSink coloured;
  TextOut(coloured, Colours::kept).line(line);
  CHECK(coloured.text() == line + "\n");
  StringSink other;
  TextOut(other, Colours::kept).line("\x1b[2J\x1b]0;title\x07");  // erase the screen, set the title
  CHECK(other.text() == "\\x1b[2J\\x1b]0;title\\x07\n");
}

// printable_ascii_end reads eight bytes at a time; the answer must be the one a byte-by-byte reading
// gives, wherever the stopping byte stands in a word and whatever it is.
TEST_CASE("printable_ascii_end stops where a byte-by-byte reading stops") {
  using dlldoctor::printable_ascii_end;
  const auto slow = [](std::string_view text, std::size_t at, std::string_view except) {
    while (at < text.size()) {
      const auto byte = static_cast<unsigned char>(text[at]);
      if (byte < 0x20 || byte > 0x7e || except.find(text[at]) != std::string_view::npos) break;
      ++at;
    }
    return at;
  };
  std::string first_wrong;
  for (const std::string_view except : {std::string_view(), std::string_view("\"\\")}) {
    for (unsigned value = 0; value < 256; ++value) {
      for (std::size_t place = 0; place < 24; ++place) {
        std::string text(24, 'a');
        text[place] = static_cast<char>(value);
        for (std::size_t at = 0; at <= text.size(); ++at) {
          if (first_wrong.empty() && printable_ascii_end(text, at, except) != slow(text, at, except))
            first_wrong = "byte " + std::to_string(value) + " at " + std::to_string(place) + " from " +
                          std::to_string(at) + (except.empty() ? "" : " (quote and backslash excepted)");
        }
      }
    }
  }
  CHECK_MESSAGE(first_wrong.empty(), first_wrong);
  // Two stopping bytes in one word: the first counts (a borrow from it must not hide it or invent one).
  const std::string two = std::string("abc\x1f") + "\xff" + "xyz0123";
  CHECK(printable_ascii_end(two, 0) == 3);
  CHECK(printable_ascii_end(two, 5) == two.size());
  CHECK(printable_ascii_end("", 0) == 0);
}
