#pragma once
// Version ranges written in rules/*.toml ("9.20", "8.3" up to "9"): which releases of a DLL load a given
// sibling, which releases of a framework need a newer runtime. Versions compare part by part as numbers
// (9.3 < 9.20), missing parts are 0.
#include <optional>
#include <string>
#include <vector>

namespace dlldoctor {

using VersionParts = std::vector<unsigned long>;

// The leading "1.2.3" of a text ("2.5.1+cu124" -> 2.5.1); none when it does not start with a digit.
std::optional<VersionParts> leading_version(const std::string& text);

// "9.20": the parts joined with dots.
std::string version_text(const VersionParts& parts);

// A half-open range: at least `from` (when given) and below `before` (when given).
struct VersionRange {
  std::optional<VersionParts> from;
  std::optional<VersionParts> before;

  bool contains(const VersionParts& version) const;
  // "9.20 and later", "8.3 up to (not including) 9": for reports and errors.
  std::string text() const;
};

// Part by part, missing parts as 0: -1, 0 or 1.
int compare_versions(const VersionParts& a, const VersionParts& b);

}  // namespace dlldoctor
