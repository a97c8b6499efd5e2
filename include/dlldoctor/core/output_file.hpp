#pragma once
// A file written whole or not at all. A report or a script goes to a temporary file beside its target and
// is renamed over it only once every byte is out, so an interrupted run, a full disk or a refused write
// never leaves half a report in place of an old one. A target that is not a regular file (/dev/null, a
// FIFO, a console) is written in place: renaming over a device would replace the device.
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/result.hpp"

namespace dlldoctor {

class OutputFile {
 public:
  static Result<OutputFile> open(const std::string& target);
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // An uncommitted file's temporary copy is removed; the target is left as it was.
  ~OutputFile();

  bool write(std::string_view bytes);
  // Closes the file and puts it in the target's place; an error (the target unchanged) otherwise.
  std::optional<Error> commit();

 private:
  OutputFile() = default;
  std::string target_;
  std::string written_;  // the temporary file, or the target itself when it is written in place
  std::FILE* file_ = nullptr;
  bool failed_ = false;
};

// A file a run read, and what it is to the run ("the program", "a rules file"): what an output must never
// take the place of.
struct FileRead {
  std::string path;
  std::string what;
};

// Whether two paths name the same file: the same file on the disk when both exist (a link, a second hard
// link, another spelling of the folder), else the same absolute path once "." and ".." are resolved.
bool same_file(const std::string& a, const std::string& b);

// The index of the first of `inputs` that is the file `output`, if any ("" and "-", stdout, are none).
std::optional<std::size_t> output_overwrites(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace dlldoctor
