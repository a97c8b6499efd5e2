#pragma once
// Windows compares module names without regard to case (ASCII folding is what the loader does for the
// names that matter here). All name comparisons go through this type.
#include <string>
#include <string_view>

namespace dlldoctor {

std::string ascii_lower(std::string_view text);

class DllName {
 public:
  DllName() = default;
  explicit DllName(std::string_view name) : display_(name), key_(ascii_lower(name)) {}

  const std::string& display() const { return display_; }
  const std::string& key() const { return key_; }

  friend bool operator==(const DllName& a, const DllName& b) { return a.key_ == b.key_; }
  friend bool operator!=(const DllName& a, const DllName& b) { return a.key_ != b.key_; }
  friend bool operator<(const DllName& a, const DllName& b) { return a.key_ < b.key_; }

 private:
  std::string display_;
  std::string key_;
};

}  // namespace dlldoctor
