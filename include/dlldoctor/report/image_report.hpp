#pragma once
// What `dlldoctor inspect` prints for one file, as JSON (documented in docs/inspect-json.md) or text.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/pe/image.hpp"
#include "dlldoctor/report/writers.hpp"

namespace dlldoctor::report {

using Json = nlohmann::ordered_json;

Json image_to_json(const std::string& path, const pe::Image& image);
Json image_error_to_json(const std::string& path, const std::string& error);

// Appends the human-readable listing of one file to `out`.
void append_image_text(std::string& out, const std::string& path, const pe::Image& image);

// The files `dlldoctor inspect` was given, each read when a writer reaches it: a report of 694 files
// holds one file's image at a time, and its text or JSON goes out before the next is read.
struct ImageFiles {
  std::vector<std::string> paths;
  std::function<Result<pe::Image>(const std::string& path)> read;
};

// inspect's formats: text, json (docs/inspect-json.md: one file's object, or an array of them).
const Writers<ImageFiles>& image_writers();

}  // namespace dlldoctor::report
