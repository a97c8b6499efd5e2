#pragma once
// Windows compares module names without regard to case (ASCII folding is what the loader does for the
// names that matter here). Every map and set of module names is keyed by this type, so that they all agree
// with the loader on which names are one module.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace dlldoctor {

// Plain ASCII lower-casing, for text that is not a module name (registry value names, folders, paths).
std::string ascii_lower(std::string_view text);

class DllName {
 public:
  DllName() = default;
  // A name as a program asks for it: an import, a delay import, a forwarder's DLL, LoadLibrary's argument
  // (its base name when it is a path), a KnownDLLs entry, a family member of the rules. The key is the
  // loader's: lower case, ".dll" appended when the name has no dot, and otherwise its trailing dots and
  // spaces dropped ("foo." is the file "foo", without an extension; "foo.exe. " is "foo.exe").
  explicit DllName(std::string_view name);

  // The name of a file on disk (a folder listing, a copy found by the inventory): lower case only. A file
  // called "foo" is what the request "foo." loads, not what "foo" loads (that is "foo.dll").
  static DllName of_file(std::string_view file_name);

  const std::string& display() const { return display_; }  // as written
  const std::string& key() const { return key_; }          // as the loader compares it

  friend bool operator==(const DllName& a, const DllName& b) { return a.key_ == b.key_; }
  friend bool operator!=(const DllName& a, const DllName& b) { return a.key_ != b.key_; }
  friend bool operator<(const DllName& a, const DllName& b) { return a.key_ < b.key_; }

 private:
  std::string display_;
  std::string key_;
};

// The keys of a list of names, in its order (the reports list KnownDLLs so).
std::vector<std::string> dll_keys(const std::vector<DllName>& names);

}  // namespace dlldoctor

template <>
struct std::hash<dlldoctor::DllName> {
  std::size_t operator()(const dlldoctor::DllName& name) const noexcept { return std::hash<std::string>()(name.key()); }
};
