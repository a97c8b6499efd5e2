#include "dlldoctor/core/mapped_file.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#ifdef _WIN32
#include "dlldoctor/core/utf8_windows.hpp"
#include "dlldoctor/core/windows_api.hpp"
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace dlldoctor {

#ifdef _WIN32

namespace {
std::string last_error_text() {
  char buffer[256] = {};
  FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr, GetLastError(), 0, buffer,
                 sizeof buffer, nullptr);
  std::string text(buffer);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}
}  // namespace

Result<MappedFile> MappedFile::open(const std::string& path, OpenFailure* failure) {
  if (failure) *failure = OpenFailure::None;
  HANDLE file = CreateFileW(widen(path).c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                            nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE) {
    const DWORD code = GetLastError();  // before FormatMessage can change it
    if (failure) {
      *failure = code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND ? OpenFailure::Missing
                 : code == ERROR_ACCESS_DENIED || code == ERROR_SHARING_VIOLATION || code == ERROR_LOCK_VIOLATION
                     ? OpenFailure::Denied
                     : OpenFailure::Other;
    }
    return Error{"cannot open: " + last_error_text()};
  }
  // A device (CON, NUL, COM1: names a hostile import table can ask for) or a pipe is not a file to map.
  if (GetFileType(file) != FILE_TYPE_DISK) {
    CloseHandle(file);
    return Error{"is not a regular file"};
  }
  LARGE_INTEGER size{};
  if (!GetFileSizeEx(file, &size)) {
    CloseHandle(file);
    return Error{"cannot read size: " + last_error_text()};
  }
  MappedFile mapped;
  mapped.size_ = static_cast<std::size_t>(size.QuadPart);
  if (mapped.size_ == 0) {
    CloseHandle(file);
    return mapped;
  }
  HANDLE mapping = CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
  CloseHandle(file);
  if (!mapping) return Error{"cannot map: " + last_error_text()};
  const void* view = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
  if (!view) {
    CloseHandle(mapping);
    return Error{"cannot map: " + last_error_text()};
  }
  mapped.mapping_ = mapping;
  mapped.data_ = static_cast<const std::uint8_t*>(view);
  return mapped;
}

void MappedFile::release() {
  if (data_) UnmapViewOfFile(data_);
  if (mapping_) CloseHandle(mapping_);
  data_ = nullptr;
  mapping_ = nullptr;
  size_ = 0;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapping_(std::exchange(other.mapping_, nullptr)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapping_ = std::exchange(other.mapping_, nullptr);
  }
  return *this;
}

#else

Result<MappedFile> MappedFile::open(const std::string& path, OpenFailure* failure) {
  if (failure) *failure = OpenFailure::None;
  // O_NONBLOCK: opening a FIFO (a hostile folder can hold one named like a DLL) would otherwise wait for a
  // writer forever; it is refused below as not a regular file. Reads of regular files are unaffected.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int code = errno;
    if (failure) {
      *failure = code == ENOENT || code == ENOTDIR ? OpenFailure::Missing
                 : code == EACCES || code == EPERM ? OpenFailure::Denied
                                                   : OpenFailure::Other;
    }
    return Error{std::string("cannot open: ") + std::strerror(code)};
  }
  struct stat info {};
  if (fstat(fd, &info) != 0) {
    const int saved = errno;
    ::close(fd);
    return Error{std::string("cannot stat: ") + std::strerror(saved)};
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return Error{S_ISDIR(info.st_mode) ? "is a folder, not a file" : "is not a regular file"};
  }
  MappedFile mapped;
  mapped.size_ = static_cast<std::size_t>(info.st_size);
  if (mapped.size_ == 0) {
    ::close(fd);
    return mapped;
  }
  void* view = mmap(nullptr, mapped.size_, PROT_READ, MAP_PRIVATE, fd, 0);
  const int saved = errno;
  ::close(fd);
  if (view == MAP_FAILED) return Error{std::string("cannot map: ") + std::strerror(saved)};
  // The reader jumps between a handful of directories; read-ahead of the whole file would only cost I/O.
  madvise(view, mapped.size_, MADV_RANDOM);
  mapped.data_ = static_cast<const std::uint8_t*>(view);
  return mapped;
}

void MappedFile::release() {
  if (data_) munmap(const_cast<std::uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

#endif

MappedFile::~MappedFile() { release(); }

}  // namespace dlldoctor
