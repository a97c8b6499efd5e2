#pragma once
// API set names (api-ms-win-*, ext-ms-*) are not files: the loader maps them to a host DLL through the
// schema in System32\apisetschema.dll (docs/DOMAIN.md §1, step 2). This reads that schema, or stands in for
// it with a small built-in table when no Windows disk is at hand.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/core/result.hpp"

namespace dlldoctor::env {

class ApiSetSchema {
 public:
  // The common stock mapping of Windows 10/11 x64, for when no schema file is available. It only knows
  // families (api-ms-win-crt-*, api-ms-win-core-*); ext-ms-* answers nullopt, since whether an extension
  // is hosted differs between editions.
  static ApiSetSchema builtin();

  // The contents of the ".apiset" section (schema version 6, Windows 10 and later). Offsets inside are
  // relative to the section start. Windows 7/8 layouts (versions 2 and 4) are reported as unsupported.
  static Result<ApiSetSchema> from_bytes(const BoundedReader& apiset_section);

  // apisetschema.dll: finds its ".apiset" section and reads it.
  static Result<ApiSetSchema> from_file(const std::string& apisetschema_dll);

  // The host DLL of `name` ("api-ms-win-crt-runtime-l1-1-0.dll", any case, ".dll" optional) as seen by
  // `importer` (a module name or path; empty for the default host). The loader matches on the part before
  // the last hyphen, so any final minor digit resolves. nullopt: not an API set in this schema, or one
  // without a host.
  std::optional<std::string> resolve(std::string_view name, std::string_view importer = {}) const;

  // "api-" or "ext-" prefix, case-insensitive: the names the loader sends to the schema, never to folders.
  static bool is_api_set_name(std::string_view name);

  const std::string& source() const { return source_; }
  std::size_t size() const { return entries_.size() + prefixes_.size(); }

 private:
  struct Entry {
    std::string host;                                // empty: no host
    std::map<std::string, std::string> by_importer;  // lower-case importer name -> host
  };

  std::string source_;
  // Exact entries, keyed by the lower-case name up to its last hyphen ("api-ms-win-core-synch-l1-2").
  std::map<std::string, Entry> entries_;
  // Family rules of the built-in table (prefix -> host, longest prefix wins), checked after entries_.
  std::vector<std::pair<std::string, std::string>> prefixes_;
};

}  // namespace dlldoctor::env
