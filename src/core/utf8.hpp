#pragma once
// UTF-8 as the reports need it: names from files and file systems are bytes, not always valid text.
#include <cstddef>
#include <string>
#include <string_view>

namespace dlldoctor {

// Length of the valid UTF-8 sequence that starts at text[at], 0 if none does: a lone continuation byte,
// an overlong form, a surrogate, a code point past U+10FFFF or a sequence cut short. ASCII is length 1.
std::size_t utf8_sequence_length(std::string_view text, std::size_t at);

bool valid_utf8(std::string_view text);

// The end of the run of printable ASCII (0x20-0x7E) that starts at `at`, leaving out the bytes of
// `except` too (at most a few: JSON's quote and backslash). Read eight bytes at a time: reports are mostly
// such runs, and the per-byte checks of the escapes start past them.
std::size_t printable_ascii_end(std::string_view text, std::size_t at, std::string_view except = {});

// Which bytes escape_bytes writes as the four characters \xNN: only those that are not valid UTF-8 (JSON
// strings, which escape their own controls); also every control character, C0, DEL and C1 (a value shown
// on one line: a name, a path in a message or a comment); or the controls but newline and tab (a report
// on its way to a terminal).
enum class Escape { InvalidUtf8, Controls, ControlsButLayout };
std::string escape_bytes(std::string_view text, Escape what);

}  // namespace dlldoctor
