#include "dlldoctor/core/dll_name.hpp"

namespace dlldoctor {

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

DllName::DllName(std::string_view name) : display_(name), key_(ascii_lower(name)) {
  // LoadLibrary appends ".dll" to a name without an extension; a trailing dot means "no extension". The
  // loader does the same for the names in import tables (Windows' LdrpLoadDll path and Wine's loader
  // both apply the default extension to every name they are given), so imports are keyed alike: an
  // import of "zlibwapi" is the module "zlibwapi.dll". A name with a dot then goes through the Win32 path
  // rules, which drop the trailing dots and spaces of a path's last part: corkami's ownexportsdot.asm
  // imports "ownexportsdot.exe.  ... " and loads itself.
  if (key_.find('.') == std::string::npos) {
    key_ += ".dll";
  } else {
    while (!key_.empty() && (key_.back() == '.' || key_.back() == ' ')) key_.pop_back();
  }
}

DllName DllName::of_file(std::string_view file_name) {
  DllName name;
  name.display_ = std::string(file_name);
  name.key_ = ascii_lower(file_name);
  return name;
}

std::vector<std::string> dll_keys(const std::vector<DllName>& names) {
  std::vector<std::string> keys;
  keys.reserve(names.size());
  for (const DllName& name : names) keys.push_back(name.key());
  return keys;
}

}  // namespace dlldoctor
