#include "dlldoctor/env/mark_of_the_web.hpp"

#include <cstdlib>

#include "core/text.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"

namespace dlldoctor::env {
namespace {
constexpr std::size_t kMaxStreamBytes = 4096;
constexpr const char* kStreamSuffix = ":Zone.Identifier";

}  // namespace

std::optional<MarkOfTheWeb> parse_zone_identifier(const std::string& text) {
  std::optional<MarkOfTheWeb> mark;
  bool in_zone_transfer = false;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line(trim_whitespace(std::string_view(text).substr(start, end - start)));
    start = end + 1;
    if (!line.empty() && line.front() == '[') {
      in_zone_transfer = ascii_lower(line) == "[zonetransfer]";
      continue;
    }
    const auto equals = line.find('=');
    if (!in_zone_transfer || equals == std::string::npos) continue;
    const std::string key = ascii_lower(trim_whitespace(std::string_view(line).substr(0, equals)));
    const std::string value(trim_whitespace(std::string_view(line).substr(equals + 1)));
    if (key == "zoneid") {
      if (!mark) mark = MarkOfTheWeb{};
      mark->zone_id = std::atoi(value.c_str());
    } else if (key == "hosturl") {
      if (!mark) mark = MarkOfTheWeb{};
      mark->host_url = value;
    }
  }
  return mark;
}

std::optional<MarkOfTheWeb> read_mark_of_the_web(FileSystem& files, const std::string& path) {
#ifdef _WIN32
  const std::string stream = path + kStreamSuffix;
#else
  const auto found = files.find_file(folder_of(path), base_name(path) + kStreamSuffix);
  if (!found) return std::nullopt;
  const std::string stream = *found;
#endif
  auto text = files.read_small_file(stream, kMaxStreamBytes);
  if (!text) return std::nullopt;
  auto mark = parse_zone_identifier(*text);
  if (mark) mark->stream = stream;
  return mark;
}

}  // namespace dlldoctor::env
