#include "core/shrink_guard.hpp"

#ifndef _WIN32
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mutex>
#endif

namespace dlldoctor {

#ifdef _WIN32

ShrinkGuard::ShrinkGuard(const BoundedReader&) {}
ShrinkGuard::~ShrinkGuard() = default;

#else

// The handler reads only this thread's guards (SIGBUS from a read is delivered to the thread that read).
struct ShrinkGuardAccess {
  static thread_local ShrinkGuard* innermost;
  static struct sigaction previous;
  static std::uintptr_t page_size;

  static void on_sigbus(int signal, siginfo_t* info, void* context) {
    const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (ShrinkGuard* guard = innermost; guard; guard = guard->outer_) {
      if (address < guard->begin_ || address >= guard->end_) continue;
      // mmap is a plain system call; MAP_FIXED replaces the page of the file mapping, and the guard's
      // owner unmaps the whole range later, this page with it.
      void* page = reinterpret_cast<void*>(address & ~(page_size - 1));
      if (mmap(page, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) break;
      guard->shrank_ = 1;
      return;
    }
    // Not a guarded read: what would have happened without this handler.
    if (previous.sa_flags & SA_SIGINFO) {
      if (previous.sa_sigaction) return previous.sa_sigaction(signal, info, context);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
      return previous.sa_handler(signal);
    }
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigaction(SIGBUS, &fallback, nullptr);
    raise(SIGBUS);
  }

  static void install() {
    static std::once_flag once;
    std::call_once(once, [] {
      page_size = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
      struct sigaction action {};
      action.sa_sigaction = on_sigbus;
      action.sa_flags = SA_SIGINFO;
      sigemptyset(&action.sa_mask);
      sigaction(SIGBUS, &action, &previous);
    });
  }
};

thread_local ShrinkGuard* ShrinkGuardAccess::innermost = nullptr;
struct sigaction ShrinkGuardAccess::previous {};
std::uintptr_t ShrinkGuardAccess::page_size = 4096;

ShrinkGuard::ShrinkGuard(const BoundedReader& mapped)
    : begin_(reinterpret_cast<std::uintptr_t>(mapped.data())),
      end_(reinterpret_cast<std::uintptr_t>(mapped.data()) + mapped.size()),
      outer_(ShrinkGuardAccess::innermost) {
  ShrinkGuardAccess::install();
  ShrinkGuardAccess::innermost = this;
}

ShrinkGuard::~ShrinkGuard() { ShrinkGuardAccess::innermost = outer_; }

#endif

}  // namespace dlldoctor
