#pragma once
// A read-only memory map of a whole file. The kernel brings in only the pages that are touched, which is
// what lets the PE reader look at a 600 MB DLL for the cost of a few pages.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/core/result.hpp"

namespace dlldoctor {

class MappedFile {
 public:
  static Result<MappedFile> open(const std::string& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  BoundedReader bytes() const { return BoundedReader(data_, size_); }
  std::uint64_t size() const { return size_; }

 private:
  MappedFile() = default;
  void release();

  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
#ifdef _WIN32
  void* mapping_ = nullptr;
#endif
};

}  // namespace dlldoctor
