#pragma once
// What `dlldoctor inspect` prints for one file, as JSON (documented in docs/inspect-json.md) or text.
#include <nlohmann/json.hpp>
#include <string>

#include "dlldoctor/pe/image.hpp"

namespace dlldoctor::report {

using Json = nlohmann::ordered_json;

Json image_to_json(const std::string& path, const pe::Image& image);
Json image_error_to_json(const std::string& path, const std::string& error);

// Appends the human-readable listing of one file to `out`.
void append_image_text(std::string& out, const std::string& path, const pe::Image& image);

}  // namespace dlldoctor::report
