#pragma once
// How the NVIDIA stack's versions read (DOMAIN.md §4, rules/cuda.toml): the CUDA release a runtime DLL
// belongs to, the driver an nvcuda.dll is, and what the driver table says about the two. The driver
// detector and the report's stack summary both use these, so both read a version the same way.
#include <optional>
#include <string>

#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/pe/image.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::rules {

struct CudaRelease {
  int major = 0;
  int minor = 0;
  std::string text() const;  // "12.4"
};

// The CUDA release a member of a `cuda` family says it is from, or none when its file version does
// not tell (cuBLAS and cuFFT number their own releases; a generation "any" name spans CUDA majors).
std::optional<CudaRelease> cuda_release(const Family& family, const pe::Version& file_version);

// The driver an nvcuda.dll file version is: "552.44" for 31.0.15.5244.
std::string driver_version(const pe::Version& nvcuda_version);

// The oldest driver the CUDA release needs, from the [driver] minimum table (the row of its major at or
// below it); none for a major the table does not know, whose needs it cannot tell.
const DriverMinimum* minimum_driver(const RuleData& rules, const CudaRelease& cuda);

// The newest CUDA release the driver ("552.44") runs, from the same table; none for a driver older than
// every entry.
const DriverMinimum* newest_cuda_supported(const RuleData& rules, const std::string& driver);

// How a driver fits a CUDA release: at or above the release's own minimum; below it but on its major's
// floor (minor version compatibility: programs start, newer PTX and newer calls fail); or below both (or no
// floor for that major), where the first CUDA call fails.
enum class DriverFit { enough, minor_compatible, too_old };
struct DriverVerdict {
  DriverFit fit = DriverFit::enough;
  const DriverMinimum* minimum = nullptr;  // none for a release older than the table (then `enough`)
  const DriverFloor* floor = nullptr;      // the major's, when the table has one
};
DriverVerdict judge_driver(const RuleData& rules, const CudaRelease& cuda, const std::string& driver);

// Whether `driver` is older than `minimum` ("536.23" < "551.61").
bool driver_older(const std::string& driver, const std::string& minimum);

// The module of the closure that is the driver (its family's kind is "driver"), if the process needs one.
const graph::Module* driver_module(const graph::Closure& closure, const RuleData& rules);

}  // namespace dlldoctor::rules
