// Values from files reach the fix commands only as PowerShell literals (rules/fix_template.hpp), and JSON
// stays JSON whatever bytes a name holds (report/json_text.hpp).
#include "rules/fix_template.hpp"

#include <doctest/doctest.h>

#include <string>

#include "core/utf8.hpp"
#include "dlldoctor/report/json_text.hpp"
#include "dlldoctor/rules/rule_engine.hpp"

using namespace dlldoctor;
using rules::TemplateContext;

TEST_CASE("powershell_literal doubles every quote PowerShell ends a single-quoted string with") {
  CHECK(rules::powershell_literal("C:\\tools\\cudnn\\bin") == "'C:\\tools\\cudnn\\bin'");
  CHECK(rules::powershell_literal("a'b") == "'a''b'");
  CHECK(rules::powershell_literal("$(calc);`x\"y") == "'$(calc);`x\"y'");
  // U+2019 RIGHT SINGLE QUOTATION MARK ends the string too: doubled as well.
  CHECK(rules::powershell_literal("a\xe2\x80\x99"
                                  "b") ==
        "'a\xe2\x80\x99\xe2\x80\x99"
        "b'");
  CHECK(rules::powershell_literal("") == "''");
  CHECK(rules::powershell_literal("nl\ncalc") == "('nl' + [char]0x0a + 'calc')");
  CHECK(rules::powershell_literal("\x7f"
                                  "\xc2\x85") == "('' + [char]0x7f + '' + [char]0x85 + '')");
}

TEST_CASE("python_literal escapes backslashes, quotes and controls") {
  CHECK(rules::python_literal("C:\\x \"y\"") == "\"C:\\\\x \\\"y\\\"\"");
  CHECK(rules::python_literal("a\nb\x7f") == "\"a\\x0ab\\x7f\"");
}

TEST_CASE("parse_fix_template: where each placeholder stands") {
  const auto pieces = rules::parse_fix_template("Copy-Item {a} -Destination ('x' + {b})   # to {c}");
  std::vector<std::pair<std::string, TemplateContext>> placeholders;
  for (const auto& p : pieces)
    if (p.placeholder) placeholders.emplace_back(p.text, p.context);
  REQUIRE(placeholders.size() == 3);
  CHECK(placeholders[0] == std::make_pair(std::string("a"), TemplateContext::Code));
  CHECK(placeholders[1] == std::make_pair(std::string("b"), TemplateContext::Code));
  CHECK(placeholders[2] == std::make_pair(std::string("c"), TemplateContext::Comment));
  for (const char* quoted : {"Copy-Item '{a}'", "Copy-Item \"x{a}\"", "'it''s {a}'"}) {
    bool inside = false;
    for (const auto& p : rules::parse_fix_template(quoted))
      inside |= p.placeholder && p.context == TemplateContext::Quoted;
    CHECK_MESSAGE(inside, quoted);
  }
  // Script blocks and @{} are text, not placeholders.
  for (const auto& p : rules::parse_fix_template("$seen = @{}; $p | ForEach-Object { $_ }")) CHECK_FALSE(p.placeholder);
}

TEST_CASE("a hostile name fills a fix as a literal and a comment as escaped text") {
  rules::RuleData data;
  data.findings.push_back({"x",
                           "A test finding",
                           "5.1",
                           rules::Severity::Error,
                           {{"default", "{dll} is missing"}},
                           {{"default", {"Get-ChildItem -Filter {dll} {list}   # {dll}", "{code}"}}},
                           {},
                           {},
                           {},
                           "test"});
  rules::FindingSink sink(data);
  const std::string hostile = "x;calc;a'$(calc)`\n.dll";
  sink.emit("x", "default", "m",
            {{"dll", hostile}, {"list", rules::Value::list({"a", "b'"})}, {"code", rules::Value::code("winget x")}},
            nlohmann::ordered_json::object());
  const rules::RuleOutput out = sink.take();
  CHECK(out.problems.empty());
  REQUIRE(out.findings.size() == 1);
  CHECK(out.findings[0].message == "x;calc;a'$(calc)`\\x0a.dll is missing");
  REQUIRE(out.findings[0].fix.size() == 2);
  CHECK(out.findings[0].fix[0] ==
        "Get-ChildItem -Filter ('x;calc;a''$(calc)`' + [char]0x0a + '.dll') 'a', 'b'''   # x;calc;a'$(calc)`\\x0a.dll");
  CHECK(out.findings[0].fix[1] == "winget x");
}

TEST_CASE("json_text is JSON for every byte value, in strings and in keys") {
  for (int b = 0; b < 256; ++b) {
    const std::string byte(1, static_cast<char>(b));
    nlohmann::ordered_json document = {{"k" + byte, "a" + byte + "z"}, {"list", {byte + byte}}};
    const std::string text = report::json_text(document);
    CHECK_MESSAGE(valid_utf8(text), "byte " << b);
    bool raw_control = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      raw_control |= (c < 0x20 && c != '\n') || c == 0x7F ||
                     (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xA0);
    }
    CHECK_MESSAGE(!raw_control, "byte " << b << ": " << text);
    nlohmann::ordered_json parsed;
    CHECK_NOTHROW(parsed = nlohmann::ordered_json::parse(text));
    if (b < 0x80) {
      // ASCII, controls included, comes back as it was; other lone bytes are not text and read as \xNN.
      CHECK(parsed.at("k" + byte) == "a" + byte + "z");
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      const std::string escaped = std::string("\\x") + kHex[b >> 4] + kHex[b & 15];
      CHECK(parsed.at("k" + escaped) == "a" + escaped + "z");
    }
  }
  // Valid UTF-8 stays readable; DEL and C1 controls are escapes.
  CHECK(report::json_text(nlohmann::json("t\xc3\xbc")) == "\"t\xc3\xbc\"\n");
  CHECK(report::json_text(nlohmann::json("\x7f\xc2\x9b")) == "\"\\u007f\\u009b\"\n");
}

TEST_CASE("a finding's steps take the detector's values as they came; a command only the rules' own code") {
  rules::RuleData data;
  rules::FindingRule rule;
  rule.id = "x";
  rule.title = "A test finding";
  rule.failure_mode = "5.1";
  rule.messages = {{"default", "{dll}"}};
  rule.fixes = {{"default", {"# {dll}"}}};
  rule.steps = {
      {"default",
       {{"rename", {{"path", "{paths}"}}},
        {"install", {{"names", "{dll}"}, {"to", "{folder}"}, {"what", "{dll} from {folder}"}, {"command", "{code}"}}},
        {"install", {{"names", "{dll}"}, {"to", "{folder}"}, {"command", "{dll}"}}}}}};
  rule.source = "test";
  data.findings.push_back(rule);
  rules::FindingSink sink(data);
  const std::string hostile = "a'$(calc)\n.dll";
  sink.emit("x", "default", "m",
            {{"dll", hostile},
             {"paths", rules::Value::list({"C:\\a b\\x.dll", "C:\\c'd\\y.dll"})},
             {"folder", "C:\\f"},
             {"code", rules::Value::code("winget install x")}},
            nlohmann::ordered_json::object());
  const rules::RuleOutput out = sink.take();
  REQUIRE(out.findings.size() == 1);
  const auto& steps = out.findings[0].steps;
  REQUIRE(steps.size() == 3);
  // A list stays a list, each value unquoted: whoever writes a command quotes it (plan/commands.cpp).
  CHECK(steps[0].kind == "rename");
  CHECK(steps[0].values("path") == std::vector<std::string>{"C:\\a b\\x.dll", "C:\\c'd\\y.dll"});
  CHECK(steps[1].value("names") == hostile);
  CHECK(steps[1].value("what") == hostile + " from C:\\f");
  CHECK(steps[1].value("command") == "winget install x");
  // A name from a file never becomes a command that runs as it is.
  REQUIRE(out.problems.size() == 1);
  CHECK(out.problems[0].find("{dll} is not code") != std::string::npos);
  CHECK(steps[2].value("command").empty());
}
