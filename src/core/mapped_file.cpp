#include "core/mapped_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#ifdef _WIN32
#include "core/utf8_windows.hpp"
#include "core/windows_api.hpp"
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
  mapped.file_ = file;  // closed by release() from here on
  if (mapped.size_ == 0) return mapped;
  HANDLE mapping = CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
  if (!mapping) return Error{"cannot map: " + last_error_text()};
  mapped.mapping_ = mapping;
  const void* view = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
  if (!view) return Error{"cannot map: " + last_error_text()};
  mapped.data_ = static_cast<const std::uint8_t*>(view);
  return mapped;
}

std::size_t MappedFile::read_at(std::uint64_t offset, std::uint8_t* out, std::size_t size) const {
  std::size_t done = 0;
  while (done < size) {
    OVERLAPPED at{};
    const std::uint64_t where = offset + done;
    at.Offset = static_cast<DWORD>(where);
    at.OffsetHigh = static_cast<DWORD>(where >> 32);
    const DWORD want = static_cast<DWORD>(std::min<std::size_t>(size - done, 1u << 30));
    DWORD got = 0;
    if (!ReadFile(file_, out + done, want, &got, &at) || got == 0) break;
    done += got;
  }
  return done;
}

void MappedFile::release() {
  if (data_) UnmapViewOfFile(data_);
  if (mapping_) CloseHandle(mapping_);
  if (file_) CloseHandle(file_);
  data_ = nullptr;
  mapping_ = nullptr;
  file_ = nullptr;
  size_ = 0;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapping_(std::exchange(other.mapping_, nullptr)),
      file_(std::exchange(other.file_, nullptr)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapping_ = std::exchange(other.mapping_, nullptr);
    file_ = std::exchange(other.file_, nullptr);
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
  mapped.fd_ = fd;  // closed by release() from here on
  if (mapped.size_ == 0) return mapped;
  // A small file is read into memory instead: mapping, faulting and unmapping it cost three times the read
  // (docs/PERFORMANCE.md, "The closure against objdump, a third time").
  constexpr std::size_t kReadWhole = 64 * 1024;
  if (mapped.size_ <= kReadWhole) {
    std::unique_ptr<std::uint8_t[]> copy(new std::uint8_t[mapped.size_]);  // no zeroing: the read fills it
    if (mapped.read_at(0, copy.get(), mapped.size_) == mapped.size_) {
      mapped.copy_ = std::move(copy);
      mapped.data_ = mapped.copy_.get();
      return mapped;
    }
    // Shorter than fstat said: it shrank since, or the read failed. Mapped, it is read as any file that
    // shrinks while it is read, and said so (ShrinkGuard), not taken for a file cut short.
  }
  void* view = mmap(nullptr, mapped.size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (view == MAP_FAILED) return Error{std::string("cannot map: ") + std::strerror(errno)};
  // The reader jumps between a handful of directories; read-ahead of the whole file would only cost I/O.
  // A file within Linux's default read-ahead window (128 KiB) is read whole by the first fault either
  // way: left as it is, it keeps the mapping of cached neighbour pages that MADV_RANDOM turns off, and a
  // system call.
  constexpr std::size_t kReadAheadWindow = 128 * 1024;
  if (mapped.size_ > kReadAheadWindow) madvise(view, mapped.size_, MADV_RANDOM);
  mapped.data_ = static_cast<const std::uint8_t*>(view);
  return mapped;
}

std::size_t MappedFile::read_at(std::uint64_t offset, std::uint8_t* out, std::size_t size) const {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd_, out + done, size - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

void MappedFile::release() {
  if (data_ && !copy_) munmap(const_cast<std::uint8_t*>(data_), size_);
  copy_.reset();
  if (fd_ >= 0) ::close(fd_);
  data_ = nullptr;
  fd_ = -1;
  size_ = 0;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      copy_(std::move(other.copy_)),
      fd_(std::exchange(other.fd_, -1)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    copy_ = std::move(other.copy_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

#endif

MappedFile::~MappedFile() { release(); }

}  // namespace dlldoctor
