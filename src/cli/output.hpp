#pragma once
// Where a command's report goes: stdout, or the file named by -o. Errors always go to stderr.
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "cli/commands.hpp"
#include "dlldoctor/core/fs.hpp"
#include "dlldoctor/report/text_layout.hpp"
#include "dlldoctor/report/writers.hpp"

namespace dlldoctor::cli {

// "dlldoctor: MESSAGE" on stderr, made safe for a terminal: messages quote paths and names from files.
inline void print_message(const std::string& message) {
  const std::string line = "dlldoctor: " + report::safe_for_terminal(message) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

// Where a report goes, piece by piece as its writer hands it over: stdout, or the file -o names
// ("" or "-" = stdout), each piece made safe for a terminal first (names in it come from the files
// inspected) unless the writer's text already is (`filter` false). The file is opened at the first piece.
class OutputSink : public report::Sink {
 public:
  explicit OutputSink(std::string path, bool filter = true) : path_(std::move(path)), filter_(filter) {}
  OutputSink(const OutputSink&) = delete;
  OutputSink& operator=(const OutputSink&) = delete;
  ~OutputSink() override;
  void put(std::string_view text) override;
  // Closes the file: kExitOk, or kExitFailure (with a message) if the report could not be written.
  int finish();

 private:
  std::string path_;
  bool filter_;
  std::FILE* file_ = nullptr;
  bool failed_ = false;
};

// Writes a whole report to `path` as OutputSink does.
inline int write_output(const std::string& contents, const std::string& path) {
  OutputSink out(path);
  out.put(contents);
  return out.finish();
}

// Whether `writers` has the --format `format`; if not, says so, with the formats it has.
template <typename View>
bool has_writer(const report::Writers<View>& writers, const std::string& format, const std::string& what) {
  if (report::find_writer(writers, format)) return true;
  std::string names;
  for (const std::string& name : report::writer_names(writers)) names += (names.empty() ? "" : ", ") + name;
  print_message(what + " has no --format " + format + " (it writes " + names + ")");
  return false;
}

// The report `view` in the --format `format`, chosen from `writers`, to `path`. A format the report has
// no writer for is refused before anything is written (kExitFailure).
template <typename View>
int write_report(const report::Writers<View>& writers, const std::string& format, const View& view,
                 const std::string& path, const report::WriteStyle& style, const std::string& what) {
  if (!has_writer(writers, format, what)) return kExitFailure;
  const report::Writer<View>* writer = report::find_writer(writers, format);
  OutputSink out(path, !writer->escapes_controls);
  writer->write(out, view, style);
  return out.finish();
}

// Whether a stream is a terminal (colours, progress): isatty on POSIX, _isatty on Windows.
bool is_terminal(std::FILE* stream);

// Colour in text written to stdout: only on a terminal, never with --no-color, -o FILE, or NO_COLOR set
// to a non-empty value (no-color.org).
bool use_color(bool no_color_flag, const std::string& output_file);

// An ISO 8601 UTC time for the one field of a JSON report that differs between runs.
std::string utc_now();

}  // namespace dlldoctor::cli
