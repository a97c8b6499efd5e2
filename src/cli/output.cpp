#include "cli/output.hpp"

#include <cstdlib>
#include <ctime>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

namespace dlldoctor::cli {

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
