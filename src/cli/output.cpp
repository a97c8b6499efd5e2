#include "cli/output.hpp"

#include <cstdlib>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

namespace dlldoctor::cli {

bool OutputSink::open() {
  if (file_ || error_) return file_.has_value();
  auto opened = OutputFile::open(path_);
  if (opened) {
    file_.emplace(std::move(opened).value());
  } else {
    error_ = opened.error().message;
  }
  return file_.has_value();
}

void OutputSink::put(std::string_view text) {
  if (failed_) return;
  if (to_stdout()) {
    failed_ = std::fwrite(text.data(), 1, text.size(), stdout) != text.size();
    return;
  }
  failed_ = !open() || !file_->write(text);
}

int OutputSink::finish() {
  if (to_stdout()) {
    // A report on a closed pipe or a full disk is not a report.
    if (std::fflush(stdout) != 0) failed_ = true;
    if (failed_) print_message("cannot write the report to stdout");
    return failed_ ? kExitFailure : kExitOk;
  }
  // An empty report still replaces the file.
  if (!failed_ && open()) {
    if (std::optional<Error> error = file_->commit()) error_ = error->message;
  } else if (!error_) {
    error_ = "cannot write " + path_;
  }
  if (!error_) return kExitOk;
  print_message(*error_);
  return kExitFailure;
}

int refuse_writing_over(const std::string& flag, const std::string& output, const std::vector<FileRead>& read) {
  std::vector<std::string> paths;
  paths.reserve(read.size());
  for (const FileRead& file : read) paths.push_back(file.path);
  const std::optional<std::size_t> found = output_overwrites(output, paths);
  if (!found) return kExitOk;
  const FileRead& file = read[*found];
  print_message(flag + " " + output + " is " + file.what +
                (file.path != output ? " (" + file.path + ")" : std::string()) +
                ", which this run reads: writing there would replace it; name another file (nothing was written)");
  return kExitFailure;
}

int write_fix_script(const plan::Plan* plan, const std::string& path, report::ScriptHeader header) {
  if (path.empty()) return kExitOk;
  if (!plan) {
    print_message("--fix-script: nothing to mend (no error or warning), so no script was written");
    return kExitOk;
  }
  header.byte_order_mark = path != "-";
  auto script = report::fix_script(*plan, header);
  if (!script) {
    print_message(script.error().message);
    return kExitFailure;
  }
  return write_output(*script, path);
}

bool use_color(const OutputHabits& habits, bool no_color_flag, const std::string& output_file) {
  if (habits.color == "always") return true;
  if (habits.color == "never" || no_color_flag) return false;
  const char* no_color = std::getenv("NO_COLOR");
  return (no_color == nullptr || *no_color == '\0') && output_file.empty() && is_terminal(stdout);
}

int apply_output_habits(const OutputHabits& habits, std::string& format, bool no_color) {
  if (habits.json) {
    if (format != "text" && format != "json") {
      print_message("--json is --format json: --format " + format + " contradicts it");
      return kExitFailure;
    }
    format = "json";
  }
  if (habits.color == "always" && no_color) {
    print_message("--color always and --no-color contradict each other: give one");
    return kExitFailure;
  }
#ifdef _WIN32
  const char* nowhere = "NUL";
#else
  const char* nowhere = "/dev/null";
#endif
  if (habits.quiet && std::freopen(nowhere, "w", stdout) == nullptr) {
    print_message(std::string("-q: cannot send the report to ") + nowhere);
    return kExitFailure;
  }
  return kExitOk;
}

bool is_terminal(std::FILE* stream) {
#ifdef _WIN32
  return _isatty(_fileno(stream)) != 0;
#else
  return isatty(fileno(stream)) != 0;
#endif
}

}  // namespace dlldoctor::cli
