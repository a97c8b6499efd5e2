#pragma once
// A read-only memory map of a whole file. The kernel brings in only the pages that are touched, which is
// what lets the PE reader look at a 600 MB DLL for the cost of a few pages. On Linux a file of 64 KiB or
// less is read instead (cheaper than a mapping; the bytes are then a copy of the file as it was read).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/core/result.hpp"

namespace dlldoctor {

class MappedFile {
 public:
  // Why the file could not be opened, for callers that tell a file gone since it was listed (Missing)
  // from one they may not read (Denied: permissions, or locked by another process on Windows).
  enum class OpenFailure { None, Missing, Denied, Other };

  // `failure`, when given, says why opening failed (None when it did not, or when a later step did).
  static Result<MappedFile> open(const std::string& path, OpenFailure* failure = nullptr);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  BoundedReader bytes() const { return BoundedReader(data_, size_); }
  std::uint64_t size() const { return size_; }

  // Copies up to `size` bytes at `offset` through the file, not the mapping; returns how many there were
  // (fewer: the file ends there now). A long pass over a file is faster this way: through the mapping each
  // 64 KiB costs a page fault, while a read costs one system call for a large piece (docs/PERFORMANCE.md,
  // "Real npm binaries, and the machine fuzzer's rate").
  std::size_t read_at(std::uint64_t offset, std::uint8_t* out, std::size_t size) const;

 private:
  MappedFile() = default;
  void release();

  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
#ifdef _WIN32
  void* mapping_ = nullptr;
  void* file_ = nullptr;  // kept open for read_at
#else
  std::unique_ptr<std::uint8_t[]> copy_;  // a small file's bytes, read instead of mapped
  int fd_ = -1;                           // kept open for read_at
#endif
};

}  // namespace dlldoctor
