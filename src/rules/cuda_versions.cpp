#include "rules/cuda_versions.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <tuple>

namespace dlldoctor::rules {
namespace {

int driver_number(const std::string& text) {
  int whole = 0, fraction = 0;
  std::sscanf(text.c_str(), "%d.%d", &whole, &fraction);
  return whole * 100 + fraction;
}

}  // namespace

std::string CudaRelease::text() const { return fmt::format("{}.{}", major, minor); }

std::optional<CudaRelease> cuda_release(const Family& family, const pe::Version& file_version) {
  if (family.generation == "any") return std::nullopt;
  const auto& parts = file_version.parts;
  if (family.version_format != "cudart") return CudaRelease{parts[0], parts[1]};
  // cudart and NVRTC end in major * 1000 + minor * 10 (6.14.11.12040 is CUDA 12.4); the family's other
  // members carry their own library's version, which the generation check tells apart.
  const int major = parts[3] / 1000;
  if (std::to_string(major) != family.generation) return std::nullopt;
  return CudaRelease{major, (parts[3] % 1000) / 10};
}

// nvcuda.dll file version A.B.C.D is driver ((C - 10) * 10000 + D) / 100 (DOMAIN.md §4).
std::string driver_version(const pe::Version& nvcuda_version) {
  const int number = (nvcuda_version.parts[2] - 10) * 10000 + nvcuda_version.parts[3];
  return fmt::format("{}.{:02}", number / 100, number % 100);
}

const DriverMinimum* minimum_driver(const RuleData& rules, const CudaRelease& cuda) {
  const DriverMinimum* minimum = nullptr;
  for (const DriverMinimum& m : rules.driver_minimums) {
    if (m.cuda_major == cuda.major && m.cuda_minor <= cuda.minor) minimum = &m;
  }
  return minimum;
}

const DriverMinimum* newest_cuda_supported(const RuleData& rules, const std::string& driver) {
  const DriverMinimum* newest = nullptr;
  for (const DriverMinimum& m : rules.driver_minimums) {
    if (!driver_older(driver, m.driver)) newest = &m;
  }
  return newest;
}

DriverVerdict judge_driver(const RuleData& rules, const CudaRelease& cuda, const std::string& driver) {
  DriverVerdict verdict;
  verdict.minimum = minimum_driver(rules, cuda);
  for (const DriverFloor& floor : rules.driver_floors)
    if (floor.cuda_major == cuda.major) verdict.floor = &floor;
  if (!verdict.minimum || !driver_older(driver, verdict.minimum->driver)) return verdict;
  const bool on_floor = verdict.floor && !driver_older(driver, verdict.floor->driver);
  verdict.fit = on_floor ? DriverFit::minor_compatible : DriverFit::too_old;
  return verdict;
}

bool driver_older(const std::string& driver, const std::string& minimum) {
  return driver_number(driver) < driver_number(minimum);
}

const graph::Module* driver_module(const graph::Closure& closure, const RuleData& rules) {
  for (const graph::Module& module : closure.modules) {
    const Family* family = rules.family_of(module.key);
    if (family && family->version_format == "nvidia_driver") return &module;
  }
  return nullptr;
}

}  // namespace dlldoctor::rules
