#pragma once
// Where a command's report goes: stdout, or the file named by -o. Errors always go to stderr.
#include <cstdio>
#include <string>

#include "cli/commands.hpp"
#include "dlldoctor/core/fs.hpp"
#include "dlldoctor/report/text_layout.hpp"

namespace dlldoctor::cli {

// "dlldoctor: MESSAGE" on stderr, made safe for a terminal: messages quote paths and names from files.
inline void print_message(const std::string& message) {
  const std::string line = "dlldoctor: " + report::safe_for_terminal(message) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

// Writes a report to `path` ("" or "-" = stdout), made safe for a terminal first (names in it come from the
// files inspected). Returns kExitFailure (with a message) if it cannot.
inline int write_output(const std::string& contents, const std::string& path) {
  const std::string text = report::safe_for_terminal(contents);
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kExitOk;
  }
  FILE* file = open_output_file(path);
  if (!file || std::fwrite(text.data(), 1, text.size(), file) != text.size() || std::fclose(file) != 0) {
    print_message("cannot write " + path);
    return kExitFailure;
  }
  return kExitOk;
}

// Whether a stream is a terminal (colours, progress): isatty on POSIX, _isatty on Windows.
bool is_terminal(std::FILE* stream);

// Colour in text written to stdout: only on a terminal, never with --no-color, -o FILE, or NO_COLOR set
// to a non-empty value (no-color.org).
bool use_color(bool no_color_flag, const std::string& output_file);

// An ISO 8601 UTC time for the one field of a JSON report that differs between runs.
std::string utc_now();

}  // namespace dlldoctor::cli
