#include <fmt/format.h>

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
  // Not strftime: glibc's calls tzset, which reads /etc/localtime for a time printed in UTC.
  return {kVersion, fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                                utc.tm_hour, utc.tm_min, utc.tm_sec)};
}

}  // namespace dlldoctor::report
