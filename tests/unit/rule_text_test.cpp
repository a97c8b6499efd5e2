// Rule files toml++ 3.3.0 cannot read safely (src/rules/toml_headers.hpp: table headers, bytes outside
// ASCII): refused with their line before toml++ sees them; valid TOML that merely looks like such a
// header is read as before.
// Built with assertions, so a header that reaches toml++'s parse_key aborts this test instead of passing.
#include <doctest/doctest.h>

#include <string>

#include "dlldoctor/rules/rule_data.hpp"

using dlldoctor::rules::parse_rule_files;
using dlldoctor::rules::RuleFile;

namespace {

std::string refusal(const std::string& text) {
  auto parsed = parse_rule_files({RuleFile{"C:/rules/x.toml", "x.toml", text}});
  return parsed ? std::string() : parsed.error().message;
}

constexpr const char* kHeaderRefusal = "a table header must start with a name";

}  // namespace

TEST_CASE("a table header toml++ 3.3 would assert on is refused with its line") {
  struct Case {
    std::string text;
    std::string where_and_what;
  };
  const Case cases[] = {
      {"[&", "x.toml:1: a table header must start with a name (a bare key or a quoted one), saw '&'"},
      {"[[=]]", "x.toml:1:"},
      {"[[[1]]]", "x.toml:1:"},
      {"[ \t#x]", "saw a comment"},
      {"[\n", "saw the line's end"},
      {"[\r\n", "saw the line's end"},
      {"a = 1\n\n  [ \x01]", "x.toml:3:"},
      {"\xEF\xBB\xBF[.]", "x.toml:1:"},
      {"a = [1,\n 2]\n[*]", "x.toml:3:"},
      {"a = \"\"\"\nx\n\"\"\"\n[\xC3\xA9]", "x.toml:4:"},
      {"a = '''x\n'''''\n[%]", "x.toml:3:"},
      {"a = \"x\\\"[\" # [\n[\x7f]", "saw the byte 0x7F"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const std::string message = refusal(c.text);
    CHECK(message.find(kHeaderRefusal) != std::string::npos);
    CHECK(message.find(c.where_and_what) != std::string::npos);
  }
}

TEST_CASE("valid TOML whose lines start with brackets inside values and strings reaches toml++") {
  // Each is valid TOML (toml++ reads it; the rules then refuse the unknown section by name).
  const std::string texts[] = {
      "a = [\n  [\n    1\n  ],\n  [ # a comment\n  2 ],\n]\n",
      "a = [\n[\"x\"], [{b = 1}],\n]\n",
      "a = \"\"\"\n[&\n[\n\"\"\"\n",
      "a = '''\n[=\n'''\n",
      "a = \"\"\"x\"\"\"\"\n[b]\n",
      "a = '''x'''''\n[b]\n",
      "a = \"\\\"\"\n[b]\n",
      "\"[&\" = 1\n[ 'b' ]\n",
      "# [&\n[b] # [&\n[[c]]\n[[ \"d\" ]]\n",
      "[b]\nc = { d = [1, [2]] }\n[e]\n",
  };
  for (const auto& text : texts) {
    CAPTURE(text);
    const std::string message = refusal(text);
    CHECK(message.find(kHeaderRefusal) == std::string::npos);
    CHECK(message.find("unknown section") != std::string::npos);
  }
}

TEST_CASE("a character outside ASCII outside strings and comments is refused with its line") {
  // "x \uFEF7" (the machine fuzzer's find) made toml++ 3.3 reach an unreachable branch: undefined behaviour.
  CHECK(refusal("[ok]\nx \xEF\xBB\xB7]\n") ==
        "C:/rules/x.toml:2: a character outside ASCII (the byte 0xEF) may stand only in a string or a comment");
  CHECK(refusal("a = 1 \xC2\xA0\n").find("x.toml:1: a character outside ASCII (the byte 0xC2)") != std::string::npos);
  CHECK(refusal("a = \"\"\"\n\xC3\xA9\n\"\"\" \xC3\xA9").find("x.toml:3: a character outside ASCII") !=
        std::string::npos);
  // In strings and comments, and as the byte order mark, such characters are TOML's and reach toml++.
  for (const std::string text : {"\xEF\xBB\xBF[b]\nk = \"\xC3\xA9\\u00e9\" # \xEF\xBB\xB7\n",
                                 "[b]\nk = '\xEF\xBB\xB7'\nl = '''\n\xC2\xA0'''\n\"\xC3\xA9\" = 1\n"}) {
    CAPTURE(text);
    CHECK(refusal(text).find("unknown section") != std::string::npos);
  }
}

TEST_CASE("in a multi-line string, a character outside ASCII that toml++ 3.3 tests as whitespace is refused") {
  // After a line-ending backslash (valid TOML, and undefined behaviour in toml++ 3.3), and after a backslash.
  CHECK(refusal("a = \"\"\"x \\\n  \xC3\xA9\"\"\"\n")
            .find("x.toml:2: a character outside ASCII (the byte 0xC3) "
                  "right after a backslash") != std::string::npos);
  CHECK(refusal("a = \"\"\"x \\  \r\n\n\xEF\xBB\xB7\"\"\"\n").find("x.toml:3: a character outside ASCII") !=
        std::string::npos);
  CHECK(refusal("a = \"\"\"\\\xC3\xA9\"\"\"\n").find("x.toml:1: a character outside ASCII") != std::string::npos);
  // An escaped backslash, another escape, a one-line string or a literal one: toml++ asks nothing there.
  for (const std::string text : {"a = \"\"\"\\\\\xC3\xA9\"\"\"\n", "a = \"\"\"\\n\xC3\xA9\"\"\"\n",
                                 "a = \"\\\\\xC3\xA9\"\n", "a = '''\\\n\xC3\xA9'''\n"}) {
    CAPTURE(text);
    CHECK(refusal(text).find("unknown section") != std::string::npos);
  }
}

TEST_CASE("[driver] minor_compatible: one floor per CUDA major, named by the major alone") {
  CHECK(refusal("[driver]\nminor_compatible = [{ cuda = \"12.4\", driver = \"527.41\" }]\n")
            .find("cuda must be a major release alone") != std::string::npos);
  const std::string twice =
      "[driver]\nminor_compatible = [{ cuda = \"12\", driver = \"527.41\" }, { cuda = \"12\", driver = \"528.33\" }]\n";
  auto parsed = parse_rule_files({RuleFile{"C:/rules/x.toml", "x.toml", twice}});
  REQUIRE(parsed);
  CHECK(parsed->driver_floors.size() == 2);
  auto checked = dlldoctor::rules::add_rule_folders(*parsed, {});
  REQUIRE_FALSE(checked);
  CHECK(checked.error().message.find("CUDA 12 is given twice") != std::string::npos);
}
