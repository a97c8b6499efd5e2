#include "dlldoctor/core/output_file.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>

#include "core/fs.hpp"

#ifdef _WIN32
#include <process.h>

#include "core/utf8_windows.hpp"
#include "core/windows_api.hpp"
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace dlldoctor {
namespace {

// A name no other writer picks: a second dlldoctor writing beside the same target gets its own.
std::string temporary_name(const std::string& target_name) {
  static std::atomic<unsigned> counter{0};
#ifdef _WIN32
  const long pid = _getpid();
#else
  const long pid = static_cast<long>(::getpid());
#endif
  const auto noise =
      std::random_device{}() ^ static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count());
  return "." + target_name + ".dlldoctor-" + std::to_string(pid) + "-" + std::to_string(counter++) + "-" +
         std::to_string(noise % 100000) + ".tmp";
}

bool replace(const std::string& from, const std::string& to) {
#ifdef _WIN32
  return MoveFileExW(widen(from).c_str(), widen(to).c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) != 0;
#else
  return ::rename(from.c_str(), to.c_str()) == 0;
#endif
}

std::string comparable(const std::string& path) {
  FsErrorCode ec;
  fs::path absolute = fs::absolute(to_fs_path(path), ec);
  std::string text = from_fs_path((ec ? to_fs_path(path) : absolute).lexically_normal());
#ifdef _WIN32
  // Windows names are case-insensitive.
  for (char& c : text)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
#endif
  return text;
}

}  // namespace

Result<OutputFile> OutputFile::open(const std::string& target) {
  OutputFile out;
  out.target_ = target;
  FsErrorCode ec;
  const fs::path path = to_fs_path(target);
  const fs::file_status status = fs::status(path, ec);  // follows links: a link's file is replaced, not the link
  if (fs::is_directory(status)) return Error{target + " is a folder: name a file to write"};
  const bool in_place = fs::exists(status) && !fs::is_regular_file(status);
  fs::path real = path;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    const fs::path resolved = fs::canonical(path, ec);
    if (!ec) real = resolved;
  }
  if (in_place) {
    out.written_ = target;
  } else {
    fs::path folder = real.parent_path();
    out.target_ = from_fs_path(real);
    out.written_ = from_fs_path(folder / to_fs_path(temporary_name(from_fs_path(real.filename()))));
  }
  out.file_ = open_output_file(out.written_);
  if (!out.file_) {
    const std::string why = std::strerror(errno);
    out.written_ = out.target_;  // nothing to remove
    return Error{"cannot write " + target + ": " + why};
  }
#ifndef _WIN32
  // A report written again over an older one keeps its permissions.
  struct stat info {};
  if (!in_place && ::stat(out.target_.c_str(), &info) == 0) ::fchmod(fileno(out.file_), info.st_mode & 07777);
#endif
  return out;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : target_(std::move(other.target_)),
      written_(std::move(other.written_)),
      file_(other.file_),
      failed_(other.failed_) {
  other.file_ = nullptr;
  other.written_ = other.target_;
}

OutputFile::~OutputFile() {
  if (file_) std::fclose(file_);
  if (!written_.empty() && written_ != target_) {
    FsErrorCode ec;
    fs::remove(to_fs_path(written_), ec);
  }
}

bool OutputFile::write(std::string_view bytes) {
  if (failed_ || !file_) return false;
  failed_ = std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size();
  return !failed_;
}

std::optional<Error> OutputFile::commit() {
  if (!file_) return Error{"cannot write " + target_};
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (failed_ || !closed) return Error{"cannot write " + target_ + " (the disk is full or the file went away)"};
  if (written_ == target_) return std::nullopt;
  if (!replace(written_, target_)) return Error{"cannot put the report in place of " + target_};
  written_ = target_;
  return std::nullopt;
}

bool same_file(const std::string& a, const std::string& b) {
  FsErrorCode ec_a, ec_b;
  const fs::path pa = to_fs_path(a), pb = to_fs_path(b);
  if (fs::exists(pa, ec_a) && fs::exists(pb, ec_b)) {
    FsErrorCode ec;
    const bool same = fs::equivalent(pa, pb, ec);
    if (!ec) return same;
  }
  return comparable(a) == comparable(b);
}

std::optional<std::size_t> output_overwrites(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty() || output == "-") return std::nullopt;
    // A file that is not there was read by no one: only a file that exists can be an input.
#ifdef _WIN32
  FsErrorCode ec;
  if (!fs::exists(to_fs_path(output), ec)) return std::nullopt;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].empty() && same_file(output, inputs[i])) return i;
  }
#else
  // One stat of the output, one of each input: a scan's inputs are every file it read.
  struct stat target {};
  if (::stat(output.c_str(), &target) != 0) return std::nullopt;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    struct stat info {};
    if (!inputs[i].empty() && ::stat(inputs[i].c_str(), &info) == 0 && info.st_dev == target.st_dev &&
        info.st_ino == target.st_ino)
      return i;
  }
#endif
  return std::nullopt;
}

}  // namespace dlldoctor
