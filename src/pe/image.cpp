#include "dlldoctor/pe/image.hpp"

#include <fmt/format.h>

#include <charconv>

namespace dlldoctor::pe {

std::string machine_name(std::uint16_t value) {
  switch (value) {
    case machine::kI386: return "x86";
    case machine::kAmd64: return "x64";
    case machine::kArm64: return "arm64";
    case machine::kArm64Ec: return "arm64ec";
    case machine::kArm64X: return "arm64x";
    default: return fmt::format("0x{:04x}", value);
  }
}

const char* format_name(Format format) { return format == Format::Pe32Plus ? "PE32+" : "PE32"; }

std::string Version::to_string() const { return fmt::format("{}.{}.{}.{}", parts[0], parts[1], parts[2], parts[3]); }

Forwarder parse_forwarder(std::string text) {
  Forwarder forwarder;
  forwarder.text = std::move(text);
  const std::string& t = forwarder.text;
  const auto dot = t.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == t.size()) return forwarder;
  forwarder.dll = t.substr(0, dot) + ".dll";
  const std::string_view target = std::string_view(t).substr(dot + 1);
  if (target.front() != '#') {
    forwarder.function = std::string(target);
    return forwarder;
  }
  // from_chars: no exception, no locale, no sign or space accepted; the whole rest must be the number.
  std::uint16_t ordinal = 0;
  const char* begin = target.data() + 1;
  const char* end = target.data() + target.size();
  const auto [stop, error] = std::from_chars(begin, end, ordinal);
  if (begin != end && error == std::errc() && stop == end) forwarder.ordinal = ordinal;
  return forwarder;
}

std::optional<std::string> unmappable_reason(const Image& image) {
  if (!image.cut_short) return std::nullopt;
  return fmt::format("{}, past the end of the file ({} bytes): the file is cut short", image.cut_short->first_cut,
                     image.cut_short->file_size);
}

}  // namespace dlldoctor::pe
