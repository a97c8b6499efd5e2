#include "dlldoctor/core/paths.hpp"

namespace dlldoctor {

std::string base_name(std::string_view path) {
  const auto slash = path.find_last_of("\\/");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string folder_of(std::string_view path) {
  const auto slash = path.find_last_of("\\/");
  return slash == std::string_view::npos ? std::string(".") : std::string(path.substr(0, slash));
}

std::vector<std::string> split_path_list(std::string_view list) {
  std::vector<std::string> entries;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = list.find(';', start);
    entries.emplace_back(list.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return entries;
    start = end + 1;
  }
}

namespace {
char folded(char c) {
  if (c == '/') return '\\';
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
bool separator(char c) { return c == '/' || c == '\\'; }
}  // namespace

bool same_path(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (folded(a[i]) != folded(b[i])) return false;
  }
  return true;
}

bool is_below(std::string_view path, std::string_view folder) {
  while (!folder.empty() && separator(folder.back())) folder.remove_suffix(1);
  if (folder.empty() || path.size() <= folder.size() + 1 || !separator(path[folder.size()])) return false;
  return same_path(path.substr(0, folder.size()), folder);
}

}  // namespace dlldoctor
