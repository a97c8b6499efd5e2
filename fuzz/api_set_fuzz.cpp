// libFuzzer entry point for the API set schema reader (the ".apiset" section of apisetschema.dll under
// --sysroot): any bytes as a section, then a few lookups the resolver makes, with and without an importer.
// Built as a fuzzer by fuzz/CMakeLists.txt (clang, DLLDOCTOR_FUZZ) and replayed by replay_main.cpp.
#include <cstddef>
#include <cstdint>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/env/api_set.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const dlldoctor::BoundedReader bytes(data, size);
  const auto schema = dlldoctor::env::ApiSetSchema::from_bytes(bytes);
  if (!schema) return 0;
  for (const char* name : {"api-ms-win-crt-runtime-l1-1-0.dll", "api-ms-win-core-synch-l1-2-0", "ext-ms-win-x-l1-1-0",
                           "api-", "api-ms-win-core-com-l1-1-1.dll"}) {
    (void)schema->resolve(name);
    (void)schema->resolve(name, "kernel32.dll");
    (void)schema->lists(name);
  }
  return 0;
}
