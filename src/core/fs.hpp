#pragma once
// The one place that picks the filesystem library: Boost.Filesystem where Debian provides it, and
// std::filesystem for the mingw-w64 cross build (Debian ships no mingw Boost).
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#if defined(DLLDOCTOR_USE_BOOST_FILESYSTEM)
#include <boost/filesystem.hpp>
namespace dlldoctor {
namespace fs = boost::filesystem;
using FsErrorCode = boost::system::error_code;
}  // namespace dlldoctor
#else
#include <filesystem>
#include <system_error>
namespace dlldoctor {
namespace fs = std::filesystem;
using FsErrorCode = std::error_code;
}  // namespace dlldoctor
#endif

namespace dlldoctor {

// dlldoctor's paths are UTF-8 std::strings on every system. On Windows, std::filesystem reads a narrow
// string in the ANSI code page, and so do fopen and std::ifstream: a folder named in another script
// would not be found. Every path that reaches the file system goes through these.
fs::path to_fs_path(const std::string& utf8);
std::string from_fs_path(const fs::path& path);
std::ifstream open_input_file(const std::string& utf8);  // binary; regular files only (not a FIFO)
std::FILE* open_output_file(const std::string& utf8);    // "wb"; nullptr when it cannot
// A whole file through open_input_file; none when it cannot be opened (small files: rules, snapshots).
std::optional<std::string> read_whole_file(const std::string& utf8);
// Whether the file's bytes are exactly `text`; none when it cannot be read. On POSIX systems it is read a
// piece at a time into no new memory, after a size that differs has said no.
std::optional<bool> file_holds(const std::string& utf8, std::string_view text);

// How listing a folder went: not there (or not a folder), there but not readable (`error` says why), or
// every entry visited.
struct FolderListing {
  enum class Outcome { Listed, Missing, Unreadable };
  Outcome outcome = Outcome::Missing;
  FsErrorCode error;
};
// Calls visit(name, is_folder) for each entry of the folder but "." and ".."; a link to a folder counts as a
// folder, as on Windows. "" is the current folder.
FolderListing list_folder(const std::string& utf8, const std::function<void(std::string name, bool is_folder)>& visit);

// The running program's own file. argv[0] is only what the shell was given ("dlldoctor" when it came
// from PATH), so it is the fallback, not the answer.
fs::path running_executable(const std::string& argv0);

}  // namespace dlldoctor
