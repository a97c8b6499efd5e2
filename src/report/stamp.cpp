#include <fmt/format.h>

#include <cstdint>
#include <ctime>

#include "core/build_info.hpp"
#include "dlldoctor/report/writers.hpp"

namespace dlldoctor::report {

Stamp Stamp::now() { return at(static_cast<std::int64_t>(std::time(nullptr))); }

Stamp Stamp::at(std::int64_t seconds) {
  // Not gmtime: glibc's reads the local time zone (/etc/localtime) first, for a time printed in UTC. The
  // date is counted from the days since 1970-01-01 instead (Howard Hinnant's civil_from_days, for the
  // proleptic Gregorian calendar in eras of 400 years); POSIX time has no leap seconds.
  const std::int64_t days = (seconds >= 0 ? seconds : seconds - 86399) / 86400;
  const std::int64_t second_of_day = seconds - days * 86400;
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t day_of_era = z - era * 146097;  // [0, 146096]
  const std::int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;                    // [0, 399]
  const std::int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);  // [0, 365]
  const std::int64_t month_index = (5 * day_of_year + 2) / 153;  // [0, 11], from March
  const std::int64_t day = day_of_year - (153 * month_index + 2) / 5 + 1;
  const std::int64_t month = month_index < 10 ? month_index + 3 : month_index - 9;
  const std::int64_t year = year_of_era + era * 400 + (month <= 2 ? 1 : 0);
  return {kVersion, fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", year, month, day, second_of_day / 3600,
                                second_of_day / 60 % 60, second_of_day % 60)};
}

}  // namespace dlldoctor::report
