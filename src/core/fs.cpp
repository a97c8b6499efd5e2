#include "dlldoctor/core/fs.hpp"

#if defined(_WIN32)
#include "dlldoctor/core/utf8_windows.hpp"
#endif

namespace dlldoctor {

#if defined(_WIN32) && !defined(DLLDOCTOR_USE_BOOST_FILESYSTEM)
fs::path to_fs_path(const std::string& utf8) { return fs::path(widen(utf8)); }
std::string from_fs_path(const fs::path& path) { return narrow(path.native()); }
std::ifstream open_input_file(const std::string& utf8) { return std::ifstream(to_fs_path(utf8), std::ios::binary); }
std::FILE* open_output_file(const std::string& utf8) { return _wfopen(widen(utf8).c_str(), L"wb"); }
#else
fs::path to_fs_path(const std::string& utf8) { return fs::path(utf8); }
std::string from_fs_path(const fs::path& path) { return path.string(); }
std::ifstream open_input_file(const std::string& utf8) { return std::ifstream(utf8, std::ios::binary); }
std::FILE* open_output_file(const std::string& utf8) { return std::fopen(utf8.c_str(), "wb"); }
#endif

}  // namespace dlldoctor
