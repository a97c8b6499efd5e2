#pragma once
// What `dlldoctor inspect` prints for one file, as JSON (documented in docs/inspect-json.md) or text.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/pe/image.hpp"
#include "dlldoctor/report/json_text.hpp"
#include "dlldoctor/report/writers.hpp"

namespace dlldoctor::report {

// One file's JSON object (docs/inspect-json.md), or the object of a file that cannot be read, as the
// next value of `out`.
void put_image_json(JsonStream& out, const std::string& path, const pe::Image& image);
void put_image_error_json(JsonStream& out, const std::string& path, const std::string& error);
// A file version as the reports spell it ("9.1.0.70"), or null.
void put_version(JsonStream& out, std::string_view key, const std::optional<pe::Version>& version);
// One file's object as a whole document (with its newline).
std::string image_json_text(const std::string& path, const pe::Image& image);

// The human-readable listing of one file, written to `sink` in pieces; or appended to `out`.
void put_image_text(Sink& sink, const std::string& path, const pe::Image& image);
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
