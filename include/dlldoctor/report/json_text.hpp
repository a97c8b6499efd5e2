#pragma once
// JSON as dlldoctor prints it: valid JSON whatever bytes the inspected files hold. Names come from import
// tables, export tables, version resources and file systems, so they may be any bytes; nlohmann's dump()
// would refuse (or silently replace) invalid UTF-8 and passes DEL and C1 controls through raw, which a
// terminal obeys. docs/report-json.md, "Bytes that are not text".
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace dlldoctor::report {

// A dump (indent 2, UTF-8 kept) in which DEL and the C1 controls U+0080-U+009F are \u00XX escapes; the
// other controls nlohmann already escapes. Only valid for the output of dump(), where those bytes can
// only stand inside strings.
std::string escape_remaining_controls(std::string dumped);

// Every string and key of `document` with its invalid UTF-8 written as \xNN (the text reports' spelling of
// the same bytes; escape_bytes), dumped, escape_remaining_controls, newline.
template <typename BasicJson>
std::string json_text(const BasicJson& document);

}  // namespace dlldoctor::report
