#include "dlldoctor/scan/scanner.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/mapped_file.hpp"
#include "core/shrink_guard.hpp"
#include "core/utf8.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/pe/reader.hpp"
#include "scan/walker.hpp"

namespace dlldoctor::scan {

std::optional<std::pair<std::string, bool>> dll_key(std::string_view file_name) {
  std::string lower = ascii_lower(file_name);
  bool backup = false;
  // Suffixes people add when they set a copy aside by hand (the seed's "留一个 .bak").
  for (const char* suffix : {".bak", ".old", ".orig", ".backup"}) {
    const std::size_t length = std::char_traits<char>::length(suffix);
    if (lower.size() > length && lower.compare(lower.size() - length, length, suffix) == 0) {
      lower.resize(lower.size() - length);
      backup = true;
      break;
    }
  }
  if (lower.size() <= 4 || lower.compare(lower.size() - 4, 4, ".dll") != 0) return std::nullopt;
  return std::make_pair(lower, backup);
}

std::string printable(std::string_view text) {
  const bool utf8 = valid_utf8(text);
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 0x80 && !utf8) || u < 0x20 || u == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

constexpr std::size_t kMaxExamples = 20;

// Keeps the kMaxExamples first paths in sorted order, whatever order the workers met them in, so two
// scans of one tree name the same examples.
void keep_example(std::vector<std::string>& examples, std::string path) {
  const auto at = std::lower_bound(examples.begin(), examples.end(), path);
  if (at == examples.end() && examples.size() >= kMaxExamples) return;
  examples.insert(at, std::move(path));
  if (examples.size() > kMaxExamples) examples.pop_back();
}

// The shared state of one walk: a stack of folders still to list, and what the workers found.
class Walk {
 public:
  explicit Walk(const ScanOptions& options) : options_(options) {}

  ScanResult run() {
    for (const std::string& root : options_.roots) {
      if (!is_folder(root)) {
        result_.missing_roots.push_back(root);
        continue;
      }
      pending_.push_back(root);
    }
    unsigned threads = options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> workers;
    for (unsigned i = 0; i < threads; ++i) workers.emplace_back([this] { work(); });
    for (auto& worker : workers) worker.join();
    // Output order must not depend on thread timing.
    std::sort(result_.files.begin(), result_.files.end(), [](const ScannedFile& a, const ScannedFile& b) {
      return std::tie(a.key, a.path) < std::tie(b.key, b.path);
    });
    std::sort(result_.invalid_names.begin(), result_.invalid_names.end());
    return std::move(result_);
  }

 private:
  void work() {
    std::vector<std::string> found_folders;
    std::vector<ScannedFile> found_files;
    WalkCounters counters;
    while (true) {
      std::string folder;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return !pending_.empty() || busy_ == 0; });
        if (pending_.empty()) break;
        // Depth first per worker keeps the stack small on deep trees.
        folder = std::move(pending_.back());
        pending_.pop_back();
        ++busy_;
      }
      found_folders.clear();
      // An exception in a worker thread would end the process (std::terminate): the folder is reported as
      // unreadable instead, and the walk goes on.
      try {
        list_folder(folder, options_, found_folders, found_files, counters, seen_folders_);
      } catch (const std::exception&) {
        counters.unreadable.push_back(folder);
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto& sub : found_folders) pending_.push_back(std::move(sub));
        --busy_;
        flush(found_files, counters);
      }
      ready_.notify_all();
      report_progress();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    flush(found_files, counters);
  }

  // Under the lock.
  void flush(std::vector<ScannedFile>& files, WalkCounters& counters) {
    for (auto& file : files) {
      if (!valid_utf8(file.path)) result_.invalid_names.push_back(printable(file.path));
      result_.files.push_back(std::move(file));
    }
    files.clear();
    result_.folders += counters.folders;
    result_.entries += counters.entries;
    result_.vanished += counters.vanished;
    result_.unreadable_folders += counters.unreadable.size();
    for (auto& path : counters.unreadable) keep_example(result_.unreadable_examples, printable(path));
    result_.unreadable_files += counters.unreadable_files.size();
    for (auto& path : counters.unreadable_files) keep_example(result_.unreadable_file_examples, printable(path));
    for (auto& name : counters.invalid_folder_names) result_.invalid_names.push_back(printable(name));
    counters = WalkCounters{};
    total_folders_ = result_.folders;
    total_entries_ = result_.entries;
    total_copies_ = result_.files.size();
  }

  void report_progress() {
    if (!options_.progress) return;
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    auto last = last_progress_.load();
    constexpr long long kInterval = 100'000'000;  // ns
    if (now - last < kInterval || !last_progress_.compare_exchange_strong(last, now)) return;
    options_.progress(total_folders_.load(), total_entries_.load(), total_copies_.load());
  }

  const ScanOptions& options_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<std::string> pending_;
  unsigned busy_ = 0;
  ScanResult result_;
  SeenFolders seen_folders_;
  std::atomic<long long> last_progress_{0};
  std::atomic<std::uint64_t> total_folders_{0}, total_entries_{0}, total_copies_{0};
};

}  // namespace

CandidateRead read_candidate(ScannedFile& file) {
  MappedFile::OpenFailure failure = MappedFile::OpenFailure::None;
  auto mapped = MappedFile::open(file.path, &failure);
  if (failure == MappedFile::OpenFailure::Missing) return CandidateRead::Vanished;
  if (failure == MappedFile::OpenFailure::Denied) return CandidateRead::Denied;
  if (!mapped) {
    file.error = mapped.error().message;
    return CandidateRead::Read;
  }
  file.size = mapped->size();
  if (mapped->size() == 0) {
    file.error = "the file is empty";
    return CandidateRead::Read;
  }
  pe::ReadParts parts;
  parts.imports = false;
  parts.exports = false;
  const ShrinkGuard guard(mapped->bytes());
  auto image = pe::read_image(mapped->bytes(), parts);
  if (guard.shrank()) {
    file.error = pe::kShrankWhileRead;
    return CandidateRead::Read;
  }
  if (!image) {
    file.error = image.error().message;
    return CandidateRead::Read;
  }
  file.machine = image->machine;
  file.file_version = image->file_version;
  file.timestamp = image->timestamp;
  // The headers read, but the loader would not map it (an interrupted copy, a quarantine): not a copy
  // that can load, whatever its version says.
  if (auto reason = pe::unmappable_reason(*image)) file.error = *reason;
  return CandidateRead::Read;
}

ScanResult scan(const ScanOptions& options) { return Walk(options).run(); }

}  // namespace dlldoctor::scan
