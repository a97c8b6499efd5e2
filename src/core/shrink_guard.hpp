#pragma once
// On POSIX, reading a page of a mapping that lies past the end of its file is SIGBUS: a file that shrinks
// while it is mapped (drvfs, network disks, a copy being rewritten while `--scan` reads it) would kill the
// process past every catch. While a ShrinkGuard lives, such a read on the guarding thread gets zeros
// instead (a zero page is mapped over the missing page) and shrank() says so; the caller then reports the
// file as changed while it was read and drops what it parsed. A SIGBUS anywhere else keeps its default
// action. Windows refuses to shrink a file that has a mapping, so the guard is a no-op there.
#include <csignal>
#include <cstddef>
#include <cstdint>

#include "dlldoctor/core/bounded_reader.hpp"

namespace dlldoctor {

class ShrinkGuard {
 public:
  explicit ShrinkGuard(const BoundedReader& mapped);
  ShrinkGuard(const ShrinkGuard&) = delete;
  ShrinkGuard& operator=(const ShrinkGuard&) = delete;
  ~ShrinkGuard();

  // Whether a read of the guarded bytes found the file shorter than its mapping.
  bool shrank() const { return shrank_ != 0; }

 private:
  friend struct ShrinkGuardAccess;
  std::uintptr_t begin_ = 0;
  std::uintptr_t end_ = 0;
  volatile std::sig_atomic_t shrank_ = 0;  // written by the signal handler
  ShrinkGuard* outer_ = nullptr;
};

}  // namespace dlldoctor
