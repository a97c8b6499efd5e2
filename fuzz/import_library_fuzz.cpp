// libFuzzer entry point for the import library reader (`dlldoctor --sdk` reads lib/x64/cudnn.lib, a COFF
// archive from wherever the user unpacked it): any bytes through read_import_library with the real
// limits, then again with tiny ones to reach the "too many" branches.
// Built as a fuzzer by fuzz/CMakeLists.txt (clang, DLLDOCTOR_FUZZ) and replayed by replay_main.cpp.
#include <cstddef>
#include <cstdint>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/pe/import_library.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const dlldoctor::BoundedReader bytes(data, size);
  const auto library = dlldoctor::pe::read_import_library(bytes);
  dlldoctor::pe::ImportLibraryLimits tiny;
  tiny.max_members = 3;
  tiny.max_name_length = 8;
  tiny.max_warnings = 2;
  const auto limited = dlldoctor::pe::read_import_library(bytes, tiny);
  // Limits cut members short; whether the bytes are an archive at all is the signature's call.
  if (limited.ok() != library.ok()) __builtin_trap();
  if (library) {
    for (const auto& import : library->imports) {
      (void)dlldoctor::pe::import_type_name(import.type);
      (void)dlldoctor::pe::import_name_type_name(import.name_type);
    }
  }
  return 0;
}
