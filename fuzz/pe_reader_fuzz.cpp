// libFuzzer entry point for the PE reader: any bytes go through read_image with every part enabled,
// then through both renderings `dlldoctor inspect` uses. A second read with tiny limits reaches the
// "too many" branches that real-sized limits would need megabytes of input to hit.
// Built as a fuzzer by fuzz/CMakeLists.txt (clang, DLLDOCTOR_FUZZ) and replayed over the corpus by
// replay_main.cpp with any compiler.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/pe/reader.hpp"
#include "dlldoctor/report/image_report.hpp"

namespace {

void render(const dlldoctor::pe::Image& image) {
  // Names in hostile files are not UTF-8; the JSON must be valid all the same.
  const std::string json = dlldoctor::report::image_json_text("fuzz.dll", image);
  if (!nlohmann::json::accept(json)) __builtin_trap();
  std::string text;
  dlldoctor::report::append_image_text(text, "fuzz.dll", image);
  if (json.empty() || text.empty()) __builtin_trap();
}

dlldoctor::pe::ReadLimits tiny_limits() {
  dlldoctor::pe::ReadLimits limits;
  limits.max_import_dlls = 2;
  limits.max_import_functions = 3;
  limits.max_exports = 3;
  limits.max_name_length = 8;
  limits.max_resource_entries = 2;
  limits.max_manifest_bytes = 16;
  limits.max_names_in_data = 1;
  return limits;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const dlldoctor::BoundedReader bytes(data, size);
  const dlldoctor::pe::ReadParts all{true, true, true, true};
  const auto image = dlldoctor::pe::read_image(bytes, all);
  if (image) render(*image);
  const auto limited = dlldoctor::pe::read_image(bytes, all, tiny_limits());
  // Limits only ever cut directories short; whether the file is a PE at all is the headers' call.
  if (limited.ok() != image.ok()) __builtin_trap();
  if (limited) render(*limited);
  return 0;
}
