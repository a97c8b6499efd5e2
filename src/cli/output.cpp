#include "cli/output.hpp"

#include <cstdlib>
#include <ctime>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

namespace dlldoctor::cli {

OutputSink::~OutputSink() {
  if (file_) std::fclose(file_);
}

void OutputSink::put(std::string_view text) {
  if (failed_) return;
  std::string filtered;
  if (filter_) {
    filtered = report::safe_for_terminal(text);
    text = filtered;
  }
  if (path_.empty() || path_ == "-") {
    failed_ = std::fwrite(text.data(), 1, text.size(), stdout) != text.size();
    return;
  }
  if (!file_) file_ = open_output_file(path_);
  failed_ = !file_ || std::fwrite(text.data(), 1, text.size(), file_) != text.size();
}

int OutputSink::finish() {
  if (path_.empty() || path_ == "-") {
    // A report on a closed pipe or a full disk is not a report.
    if (std::fflush(stdout) != 0) failed_ = true;
  } else {
    if (!file_ && !failed_) file_ = open_output_file(path_);  // an empty report still replaces the file
    if (!file_ || std::fclose(file_) != 0) failed_ = true;
    file_ = nullptr;
  }
  if (failed_) {
    print_message("cannot write " + (path_.empty() || path_ == "-" ? std::string("the report to stdout") : path_));
    return kExitFailure;
  }
  return kExitOk;
}

bool use_color(bool no_color_flag, const std::string& output_file) {
  const char* no_color = std::getenv("NO_COLOR");
  return !no_color_flag && (no_color == nullptr || *no_color == '\0') && output_file.empty() && is_terminal(stdout);
}

bool is_terminal(std::FILE* stream) {
#ifdef _WIN32
  return _isatty(_fileno(stream)) != 0;
#else
  return isatty(fileno(stream)) != 0;
#endif
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
#ifdef _WIN32
  gmtime_s(&utc, &now);
#else
  gmtime_r(&now, &utc);
#endif
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace dlldoctor::cli
