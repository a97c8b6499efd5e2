#pragma once
// API set names (api-ms-win-*, ext-ms-*) are not files: the loader maps them to a host DLL through the
// schema in System32\apisetschema.dll (docs/DOMAIN.md §1, step 2). This reads that schema, or stands in for
// it with a built-in table of stock Windows 10/11 x64 when no Windows disk is at hand.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/result.hpp"

namespace dlldoctor::env {

class FileSystem;

class ApiSetSchema {
 public:
  // The stock mapping of Windows 10/11 x64 (rules/api-sets/windows-10-11-x64.txt, compiled in), for when
  // no schema file is available. A name it does not list is not proof of absence: is_builtin() tells the
  // resolver to assume such a set rather than fail (DECISIONS.md, "Assumed API sets").
  static ApiSetSchema builtin();

  // The contents of the ".apiset" section (schema version 6, Windows 10 and later). Offsets inside are
  // relative to the section start. Windows 7/8 layouts (versions 2 and 4) are reported as unsupported.
  static Result<ApiSetSchema> from_bytes(const BoundedReader& apiset_section);

  // apisetschema.dll's bytes: finds its ".apiset" section and reads it; `source` names it in messages.
  static Result<ApiSetSchema> from_dll(const BoundedReader& apisetschema_dll, const std::string& source);
  // The same, for the file at `path` of `files` (mapped from a disk, or held in memory).
  static Result<ApiSetSchema> from_file(FileSystem& files, const std::string& apisetschema_dll);

  // The host DLL of `name` ("api-ms-win-crt-runtime-l1-1-0.dll", any case, ".dll" optional) as seen by
  // `importer` (a module name or path; empty for the default host). The loader matches on the part before
  // the last hyphen, so any final minor digit resolves. nullopt: not an API set in this schema, or one
  // without a host.
  std::optional<std::string> resolve(std::string_view name, std::string_view importer = {}) const;

  // The schema lists `name` (any case, ".dll" optional), with a host or without one.
  bool lists(std::string_view name) const;

  // Every set the schema lists, by the part of its name the loader matches ("api-ms-win-core-synch-l1-2").
  std::vector<std::string> contracts() const;

  // "api-" or "ext-" prefix, case-insensitive: the names the loader sends to the schema, never to folders.
  static bool is_api_set_name(std::string_view name);

  // A DLL the built-in table names as a host: part of every stock Windows 10/11 x64 System32.
  static bool is_builtin_host(const DllName& name);

  const std::string& source() const { return source_; }
  bool is_builtin() const { return builtin_; }
  std::size_t size() const;

 private:
  struct Entry {
    std::string host;                            // the host's DllName key; empty: no host
    std::map<DllName, std::string> by_importer;  // importer -> host (its key)
  };

  // The host listed for `name`: nullopt when the schema does not list it, "" when it lists it without one.
  std::optional<std::string_view> lookup(std::string_view name, std::string_view importer) const;

  std::string source_;
  // The compiled-in table answers instead of entries_ (which stays empty): it is not copied per process.
  bool builtin_ = false;
  // A schema file's entries, keyed by the lower-case name up to its last hyphen ("api-ms-win-core-synch-l1-2").
  std::map<std::string, Entry> entries_;
};

}  // namespace dlldoctor::env
