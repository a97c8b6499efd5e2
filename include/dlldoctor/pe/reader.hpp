#pragma once
// The PE reader: bounds-checked, lazy, never reads a whole file. read_image() is the in-memory entry
// point (bytes in, model out) that unit tests and the fuzzer drive; read_image_file() maps a file.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/core/result.hpp"
#include "dlldoctor/pe/image.hpp"

namespace dlldoctor::pe {

// Which parts to decode. The headers are always read; the scan asks for versions only.
struct ReadParts {
  bool imports = true;  // import, delay-import and bound-import directories
  bool exports = true;
  bool resources = true;  // version resource and manifest
  // DLL names in the read-only data sections. Off by default: unlike the directories it reads whole
  // sections (24 MB of onnxruntime_providers_cuda.dll), so only callers that use the names ask for it.
  bool named_in_data = false;
};

// Limits that keep hostile files from costing unbounded time or memory. Real DLLs stay far below them
// (the largest Wine DLL exports ~2,500 functions; cuDNN imports a few hundred).
struct ReadLimits {
  std::size_t max_import_dlls = 4096;
  // Over all DLLs of a file. Real programs import a few thousand functions at most; descriptors that share
  // one thunk array can otherwise multiply a small file into millions of entries.
  std::size_t max_import_functions = 1u << 16;
  std::size_t max_exports = 1u << 20;
  // A name in an import or export table. The loader has no cap (corkami dllweirdexp-ld.asm imports a 131 KB
  // name, and runs); what all names cost together, scans that find no end included, is bounded by the
  // file's name budget (pe_view.hpp), so a long name is read whole up to this far larger cap.
  std::size_t max_name_length = 1u << 20;
  std::size_t max_resource_entries = 4096;
  std::size_t max_manifest_bytes = 1u << 20;
  std::size_t max_names_in_data = 4096;
};

// Copies up to `size` bytes at `offset` of the file `bytes` maps into `out` and returns how many there were:
// a way to read long stretches (MappedFile::read_at) that is faster than touching every page of a mapping.
using FileReads = std::function<std::size_t(std::uint64_t offset, std::uint8_t* out, std::size_t size)>;

// Errors mean "not a PE file" (or headers too damaged to say); anything past the headers degrades into
// warnings on the returned image. `reads`, when given, reads the same file as `bytes` for the long passes.
Result<Image> read_image(const BoundedReader& bytes, const ReadParts& parts = {}, const ReadLimits& limits = {},
                         const FileReads& reads = {});

// What a file that shrank while it was mapped and read is (core/shrink_guard.hpp): what was parsed is dropped.
inline constexpr const char* kShrankWhileRead =
    "the file shrank while it was read (it is being written or replaced): read it again once it is complete";

// The DLL names written in `bytes` as ASCII or UTF-16LE strings (Image::named_in_data says which sections
// the reader gives it): runs of file-name characters ending in ".dll", without any path before them, each
// once whatever its case, in order of first appearance, at most max_names.
std::vector<std::string> dll_names_in(const BoundedReader& bytes, std::size_t max_names);
// The same for `size` bytes at `offset`, read through `reads` a piece of `piece` bytes at a time (with the
// few bytes around each piece a name can span); nullopt when the file ended before them.
std::optional<std::vector<std::string>> dll_names_in(const FileReads& reads, std::uint64_t offset, std::uint64_t size,
                                                     std::size_t max_names, std::size_t piece);

Result<Image> read_image_file(const std::string& path, const ReadParts& parts = {}, const ReadLimits& limits = {});

}  // namespace dlldoctor::pe
