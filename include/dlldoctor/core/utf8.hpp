#pragma once
// UTF-8 as the reports need it: names from files and file systems are bytes, not always valid text.
#include <cstddef>
#include <string_view>

namespace dlldoctor {

// Length of the valid UTF-8 sequence that starts at text[at], 0 if none does: a lone continuation byte,
// an overlong form, a surrogate, a code point past U+10FFFF or a sequence cut short. ASCII is length 1.
std::size_t utf8_sequence_length(std::string_view text, std::size_t at);

bool valid_utf8(std::string_view text);

}  // namespace dlldoctor
