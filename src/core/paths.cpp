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

}  // namespace dlldoctor
