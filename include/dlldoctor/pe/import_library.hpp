#pragma once
// Import libraries (.lib / .a): COFF archives whose members tell the linker which DLL provides each symbol.
// This is what LNK1181 is about (seed 5.3): the folder holds a cudnn.lib, but for which machine, and
// pointing at which DLL? read_import_library() is the in-memory entry point (bytes in, model out) for the
// unit tests and fuzzers; read_import_library_file() maps a file.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/core/result.hpp"

namespace dlldoctor::pe {

// IMPORT_OBJECT_TYPE (Microsoft "PE Format", "Import Type").
enum class ImportType { Code, Data, Const, Unknown };
// IMPORT_OBJECT_NAME_TYPE: how the linker turns the symbol into the name the DLL exports.
enum class ImportNameType { Ordinal, Name, NoPrefix, Undecorate, ExportAs, Unknown };

const char* import_type_name(ImportType type);
const char* import_name_type_name(ImportNameType type);

// How a member describes its import: the 20-byte short import object that MSVC and llvm-dlltool write, or
// an ordinary COFF object with .idata$N sections (GNU dlltool; MSVC before 6.0).
enum class MemberFormat { Short, Long };

// One imported symbol.
struct LibraryImport {
  std::string member;  // archive member name ("cudnn64_9.dll", "ds00001.o")
  MemberFormat format = MemberFormat::Short;
  std::uint16_t machine = 0;
  std::string symbol;  // empty for a long-format import by ordinal (the member names no symbol then)
  std::string dll;     // empty when a long-format member does not say and the library names several DLLs
  bool by_ordinal = false;
  std::uint16_t ordinal_or_hint = 0;  // the ordinal when by_ordinal, else the hint
  ImportType type = ImportType::Code;
  ImportNameType name_type = ImportNameType::Name;
};

struct ImportLibrary {
  std::size_t member_count = 0;  // object members, without the linker and long-name members
  std::vector<LibraryImport> imports;
  std::vector<std::string> dlls;        // distinct DLL names (case-insensitive), in the order first seen
  std::vector<std::uint16_t> machines;  // distinct machines of the import and object members
  // One entry per member that was skipped or cut short ("member 3 (foo.o): format not recognised").
  std::vector<std::string> warnings;
};

// Bounds that keep a hostile archive from costing unbounded time or memory. cuDNN's cudnn.lib has a few
// hundred members; the Windows SDK's largest import libraries a few tens of thousands.
struct ImportLibraryLimits {
  std::size_t max_members = 1u << 20;
  std::size_t max_name_length = 4096;
  std::size_t max_warnings = 64;
};

// Errors mean "not a COFF archive"; damaged members degrade into warnings.
Result<ImportLibrary> read_import_library(const BoundedReader& bytes, const ImportLibraryLimits& limits = {});
Result<ImportLibrary> read_import_library_file(const std::string& path, const ImportLibraryLimits& limits = {});

}  // namespace dlldoctor::pe
