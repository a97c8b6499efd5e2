#pragma once
// The PE reader: bounds-checked, lazy, never reads a whole file. read_image() is the in-memory entry
// point (bytes in, model out) that unit tests and the fuzzer drive; read_image_file() maps a file.
#include <string>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/core/result.hpp"
#include "dlldoctor/pe/image.hpp"

namespace dlldoctor::pe {

// Which parts to decode. The headers are always read; the scan asks for versions only.
struct ReadParts {
  bool imports = true;  // import, delay-import and bound-import directories
  bool exports = true;
  bool resources = true;  // version resource and manifest
};

// Limits that keep hostile files from costing unbounded time or memory. Real DLLs stay far below them
// (the largest Wine DLL exports ~2,500 functions; cuDNN imports a few hundred).
struct ReadLimits {
  std::size_t max_import_dlls = 4096;
  // Over all DLLs of a file. Real programs import a few thousand functions at most; descriptors that share
  // one thunk array can otherwise multiply a small file into millions of entries.
  std::size_t max_import_functions = 1u << 16;
  std::size_t max_exports = 1u << 20;
  std::size_t max_name_length = 4096;
  std::size_t max_resource_entries = 4096;
  std::size_t max_manifest_bytes = 1u << 20;
};

// Errors mean "not a PE file" (or headers too damaged to say); anything past the headers degrades into
// warnings on the returned image.
Result<Image> read_image(const BoundedReader& bytes, const ReadParts& parts = {}, const ReadLimits& limits = {});

Result<Image> read_image_file(const std::string& path, const ReadParts& parts = {}, const ReadLimits& limits = {});

}  // namespace dlldoctor::pe
