#include <ctime>

#include "core/build_info.hpp"
#include "dlldoctor/report/writers.hpp"

namespace dlldoctor::report {

Stamp Stamp::now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
#ifdef _WIN32
  gmtime_s(&utc, &now);
#else
  gmtime_r(&now, &utc);
#endif
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return {kVersion, text};
}

}  // namespace dlldoctor::report
