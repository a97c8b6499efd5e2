#pragma once
// The built-in API set table, generated at build time from rules/api-sets/windows-10-11-x64.txt
// (cmake/api_set_table.cmake): knowledge stays data, and start-up does not parse it.
#include <cstddef>

namespace dlldoctor::env::detail {

struct BuiltinApiSet {
  const char* name;  // lower case, up to the last hyphen: "api-ms-win-core-synch-l1-2"
  const char* host;  // lower case; "" when the schema lists the set without a host
};

// Sorted by name (byte order), so that lookups can bisect.
extern const BuiltinApiSet kBuiltinApiSets[];
extern const std::size_t kBuiltinApiSetCount;

// The distinct hosts of those sets, sorted (byte order): is_builtin_host bisects them instead of reading
// every set (it is asked for every module of a closure).
extern const char* const kBuiltinApiSetHosts[];
extern const std::size_t kBuiltinApiSetHostCount;

// The Windows the table was read from (its "@windows" line): "Windows 11 22H2 x64, apisetschema.dll ...".
extern const char kBuiltinApiSetWindows[];

}  // namespace dlldoctor::env::detail
