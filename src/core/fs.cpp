#include "core/fs.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>

#if defined(_WIN32)
#include "core/utf8_windows.hpp"
#include "core/windows_api.hpp"
#else
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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
std::ifstream open_input_file(const std::string& utf8) {
#if !defined(_WIN32)
  // Only regular files: opening a FIFO waits for a writer forever, and a device can be endless.
  struct stat info {};
  if (::stat(utf8.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::ifstream();
#endif
  return std::ifstream(utf8, std::ios::binary);
}
std::FILE* open_output_file(const std::string& utf8) { return std::fopen(utf8.c_str(), "wb"); }
#endif

#if !defined(_WIN32)
namespace {
// A regular file opened for reading, and its size; none for anything else (O_NONBLOCK: opening a FIFO does
// not wait for a writer, and it is refused as no regular file).
struct OpenedFile {
  int fd = -1;
  std::uint64_t size = 0;
};
std::optional<OpenedFile> open_regular(const std::string& utf8) {
  const int fd = ::open(utf8.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return std::nullopt;
  }
  return OpenedFile{fd, static_cast<std::uint64_t>(info.st_size)};
}
}  // namespace
#endif

std::optional<std::string> read_whole_file(const std::string& utf8) {
#if defined(_WIN32)
  std::ifstream in = open_input_file(utf8);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
#else
  // One read of the size fstat gives and one that meets the end: the stream's 8 KB buffer made a read per
  // 8 KB of the compiled rules at every start. Regular files only, as open_input_file.
  const std::optional<OpenedFile> file = open_regular(utf8);
  if (!file) return std::nullopt;
  const int fd = file->fd;
  std::string text(static_cast<std::size_t>(file->size) + 1, '\0');
  std::size_t used = 0;
  for (;;) {
    if (used == text.size()) text.resize(text.size() * 2);
    const ssize_t got = ::read(fd, text.data() + used, text.size() - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  ::close(fd);
  text.resize(used);
  return text;
#endif
}

std::optional<bool> file_holds(const std::string& utf8, std::string_view text) {
#if defined(_WIN32)
  const std::optional<std::string> read = read_whole_file(utf8);
  if (!read) return std::nullopt;
  return *read == text;
#else
  const std::optional<OpenedFile> file = open_regular(utf8);
  if (!file) return std::nullopt;
  const int fd = file->fd;
  const auto done = [fd](std::optional<bool> answer) {
    ::close(fd);
    return answer;
  };
  // A size that differs says it without a read (an edited rules folder is then read whole anyway).
  if (file->size != text.size()) return done(false);
  char piece[16384];
  std::size_t compared = 0;
  while (compared < text.size()) {
    const ssize_t got = ::read(fd, piece, std::min(sizeof piece, text.size() - compared));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return done(std::nullopt);
    if (got == 0) return done(false);  // shorter than fstat said: changed while read
    if (std::memcmp(piece, text.data() + compared, static_cast<std::size_t>(got)) != 0) return done(false);
    compared += static_cast<std::size_t>(got);
  }
  return done(true);
#endif
}

#if !defined(_WIN32)
namespace {
FsErrorCode system_error(int error) {
#if defined(DLLDOCTOR_USE_BOOST_FILESYSTEM)
  return FsErrorCode(error, boost::system::system_category());
#else
  return FsErrorCode(error, std::system_category());
#endif
}
}  // namespace
#endif

FolderListing list_folder(const std::string& utf8, const std::function<void(std::string name, bool is_folder)>& visit) {
  const std::string folder = utf8.empty() ? std::string(".") : utf8;
  FolderListing listing;
#if defined(_WIN32)
  // The Windows listing carries the attributes already.
  FsErrorCode ec;
  if (!fs::is_directory(to_fs_path(folder), ec)) return listing;
  fs::directory_iterator it(to_fs_path(folder), ec), end;
  listing.outcome = ec ? FolderListing::Outcome::Unreadable : FolderListing::Outcome::Listed;
  listing.error = ec;
  for (; !ec && it != end; it.increment(ec)) {
    FsErrorCode type_ec;
    visit(from_fs_path(it->path().filename()), it->is_directory(type_ec));
  }
  if (ec) {
    listing.outcome = FolderListing::Outcome::Unreadable;
    listing.error = ec;
  }
  return listing;
#else
  // The folder opened and read as it is, without opendir's fstat or a stat before it: each system call costs
  // a few microseconds in a short process, and a run lists a dozen folders (docs/PERFORMANCE.md). The
  // entries carry their types (d_type): only links and unknown types cost a stat, so a System32 of
  // thousands of files is listed with a handful of system calls.
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    // Not there, or not a folder: what a stat would say too. Otherwise (permissions, a parent that cannot be
    // searched, no descriptor left) the stat says whether a folder is there to be unreadable.
    if (error == ENOENT || error == ENOTDIR) return listing;
    struct stat info {};
    if (::stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return listing;
    listing.outcome = FolderListing::Outcome::Unreadable;
    listing.error = system_error(error);
    return listing;
  }
  listing.outcome = FolderListing::Outcome::Listed;
  // On the heap, as opendir's: on the stack it touched pages no other call did (12 more page faults in a
  // closure).
  constexpr std::size_t kBuffer = 32 * 1024;
  const std::unique_ptr<char[]> buffer(new char[kBuffer]);
  for (;;) {
    const ssize_t got = ::getdents64(fd, buffer.get(), kBuffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      listing.outcome = FolderListing::Outcome::Unreadable;
      listing.error = system_error(errno);
      break;
    }
    if (got == 0) break;
    for (ssize_t at = 0; at < got;) {
      const auto* entry = reinterpret_cast<const dirent64*>(buffer.get() + at);
      if (entry->d_reclen == 0) break;  // the kernel writes none; one would stop this loop from moving on
      at += entry->d_reclen;
      const char* name = entry->d_name;
      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
      bool is_folder = entry->d_type == DT_DIR;
      if (entry->d_type == DT_LNK || entry->d_type == DT_UNKNOWN) {
        struct stat info {};
        is_folder = ::fstatat(fd, name, &info, 0) == 0 && S_ISDIR(info.st_mode);
      }
      visit(std::string(name), is_folder);
    }
  }
  ::close(fd);
  return listing;
#endif
}

fs::path running_executable(const std::string& argv0) {
  FsErrorCode ec;
#if defined(_WIN32)
  std::wstring buffer(32768, L'\0');
  const DWORD length = GetModuleFileNameW(nullptr, buffer.data(), static_cast<DWORD>(buffer.size()));
  if (length > 0 && length < buffer.size()) {
    buffer.resize(length);
    return to_fs_path(narrow(buffer));
  }
#else
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) return self;
#endif
  fs::path given = fs::canonical(to_fs_path(argv0), ec);
  return ec ? to_fs_path(argv0) : given;
}

}  // namespace dlldoctor
