#include "dlldoctor/core/version_range.hpp"

#include <algorithm>
#include <cctype>

namespace dlldoctor {

std::optional<VersionParts> leading_version(const std::string& text) {
  VersionParts parts;
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    unsigned long value = 0;
    // At most 9 digits per part: no overflow, and no real version has more.
    for (int digits = 0; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, ++digits) {
      if (digits < 9) value = value * 10 + static_cast<unsigned long>(text[i] - '0');
    }
    parts.push_back(value);
    if (i + 1 < text.size() && text[i] == '.' && std::isdigit(static_cast<unsigned char>(text[i + 1])))
      ++i;
    else
      break;
  }
  if (parts.empty()) return std::nullopt;
  return parts;
}

int compare_versions(const VersionParts& a, const VersionParts& b) {
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const unsigned long x = i < a.size() ? a[i] : 0;
    const unsigned long y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

bool VersionRange::contains(const VersionParts& version) const {
  if (from && compare_versions(version, *from) < 0) return false;
  return !before || compare_versions(version, *before) < 0;
}

std::string version_text(const VersionParts& parts) {
  std::string out;
  for (unsigned long part : parts) out += (out.empty() ? "" : ".") + std::to_string(part);
  return out;
}

std::string VersionRange::text() const {
  if (from && before) return version_text(*from) + " up to (not including) " + version_text(*before);
  if (from) return version_text(*from) + " and later";
  if (before) return "before " + version_text(*before);
  return "every version";
}

}  // namespace dlldoctor
