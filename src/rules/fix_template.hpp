#pragma once
// Fix commands are PowerShell, written as templates in rules/findings.toml with {name} placeholders that
// detectors fill with names of DLLs, paths, PATH entries and versions: bytes from the inspected files, the
// file system, the registry or the command line. None of them may run when a user pastes the command, so
// a value enters a command only as a single-quoted literal, the one PowerShell string form in which
// nothing is expanded ($(...), $var, backtick escapes); in a comment it is written with its control
// characters escaped, so that a newline cannot end the comment. A template that puts a placeholder inside
// quotes of its own is rejected when the rules are read.
#include <string>
#include <string_view>
#include <vector>

namespace dlldoctor::rules {

// 'text', with every ' doubled (and the typographic single quotes PowerShell also accepts as quotes); a text
// holding control characters is ('a' + [char]0x0a + 'b'), still one line and exactly the value.
std::string powershell_literal(std::string_view text);

// "text" as a Python string literal (for the few fix lines that are Python, os.add_dll_directory): \ and "
// escaped, controls and bytes that are not UTF-8 as \xNN.
std::string python_literal(std::string_view text);

// Where a piece of a fix template stands, as PowerShell reads the template's own characters.
enum class TemplateContext { Code, Comment, Quoted };

struct TemplatePiece {
  bool placeholder = false;
  std::string text;  // the literal text, or the placeholder's name
  TemplateContext context = TemplateContext::Code;
};

// A template as literal text and {name} placeholders (name: a-z and _); other braces are literal text
// (PowerShell script blocks, @{}).
std::vector<TemplatePiece> parse_fix_template(std::string_view text);

}  // namespace dlldoctor::rules
