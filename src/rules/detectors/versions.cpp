// Versions that must fit together: the driver against the CUDA runtime, the MSVC runtime against the
// newest toolset in the process.
#include <algorithm>

#include "rules/detectors/common.hpp"

namespace dlldoctor::rules {
namespace {

struct CudaVersion {
  int major = 0;
  int minor = 0;
  std::string dll;
};

// The CUDA release of the process, from the runtime library that loads.
std::optional<CudaVersion> process_cuda(const RuleInput& input) {
  std::optional<CudaVersion> best;
  for (const graph::Module& module : input.closure.modules) {
    const Family* family = input.rules.family_of(module.key);
    if (!family || family->kind != "cuda" || !module.resolution.image || !module.resolution.image->file_version)
      continue;
    const auto& parts = module.resolution.image->file_version->parts;
    CudaVersion version;
    version.dll = module.name;
    if (family->version_format == "cudart") {
      version.major = parts[3] / 1000;
      version.minor = (parts[3] % 1000) / 10;
    } else {
      version.major = parts[0];
      version.minor = parts[1];
    }
    if (!best || std::tie(best->major, best->minor) < std::tie(version.major, version.minor)) best = version;
  }
  return best;
}

// nvcuda.dll file version A.B.C.D is driver ((C - 10) * 10000 + D) / 100 (DOMAIN.md §4).
std::string driver_of(const pe::Version& version) {
  const int number = (version.parts[2] - 10) * 10000 + version.parts[3];
  return fmt::format("{}.{:02}", number / 100, number % 100);
}

int driver_number(const std::string& text) {
  int whole = 0, fraction = 0;
  std::sscanf(text.c_str(), "%d.%d", &whole, &fraction);
  return whole * 100 + fraction;
}

void driver(const RuleInput& input, FindingSink& sink) {
  const auto cuda = process_cuda(input);
  if (!cuda) return;
  const DriverMinimum* minimum = nullptr;
  for (const DriverMinimum& m : input.rules.driver_minimums) {
    if (std::tie(m.cuda_major, m.cuda_minor) <= std::tie(cuda->major, cuda->minor)) minimum = &m;
  }
  if (!minimum) return;
  const std::string cuda_text = fmt::format("{}.{}", cuda->major, cuda->minor);
  const auto nvcuda = std::find_if(input.closure.modules.begin(), input.closure.modules.end(),
                                   [](const graph::Module& m) { return m.key == DllName("nvcuda.dll"); });
  if (nvcuda == input.closure.modules.end() || !nvcuda->resolution.image || !nvcuda->resolution.image->file_version) {
    if (input.environment.assume_system_dlls) {
      const std::string why =
          input.environment.sysroot
              ? "the sysroot has no System32\\nvcuda.dll and --assume-system-dlls says it is a partial copy"
              : "no --sysroot to read System32 from";
      sink.emit("driver-not-checked", "default", "nvcuda.dll",
                {{"why", why}, {"minimum", minimum->driver}, {"cuda", cuda_text}},
                {{"cuda", cuda_text}, {"cuda_dll", cuda->dll}, {"minimum_driver", minimum->driver}});
    }
    return;
  }
  const pe::Version& file_version = *nvcuda->resolution.image->file_version;
  const std::string installed = driver_of(file_version);
  detail::Json evidence = {
      {"cuda", cuda_text},
      {"cuda_dll", cuda->dll},
      {"driver", installed},
      {"nvcuda", display_path(nvcuda->resolution.windows_path, nvcuda->resolution.path.value_or(""))},
      {"nvcuda_version", file_version.to_string()},
      {"minimum_driver", minimum->driver}};
  if (driver_number(installed) >= driver_number(minimum->driver)) return;
  sink.emit("driver-too-old", "default", "nvcuda.dll",
            {{"driver", installed},
             {"driver_file_version", file_version.to_string()},
             {"minimum", minimum->driver},
             {"cuda", cuda_text},
             {"cuda_dll", cuda->dll}},
            evidence);
}

// MSVC linkers write 14.x into the optional header; GNU ld and lld (MinGW mode) write their own
// numbers, which say nothing about the C++ runtime.
constexpr int kMsvcLinkerMajor = 14;

void msvc_runtime(const RuleInput& input, FindingSink& sink) {
  const graph::Module* newest = nullptr;
  for (const graph::Module& module : input.closure.modules) {
    const auto& image = module.resolution.image;
    if (!image || image->linker_major != kMsvcLinkerMajor) continue;
    const Family* family = input.rules.family_of(module.key);
    if (family && family->kind == "msvc") continue;
    if (!newest || newest->resolution.image->linker_minor < image->linker_minor) newest = &module;
  }
  if (!newest) return;
  const int toolset_minor = newest->resolution.image->linker_minor;
  for (const graph::Module& module : input.closure.modules) {
    const Family* family = input.rules.family_of(module.key);
    if (!family || family->kind != "msvc" || !module.resolution.image || !module.resolution.image->file_version)
      continue;
    const auto& version = *module.resolution.image->file_version;
    if (version.parts[0] != kMsvcLinkerMajor || version.parts[1] >= toolset_minor) continue;
    const resolve::Candidate* winner = detail::chosen(module);
    const std::string path = display_path(module.resolution.windows_path, module.resolution.path.value_or(""));
    sink.emit("msvc-runtime-too-old", "default", module.name,
              {{"dll", module.name},
               {"version", version.to_string()},
               {"path", path},
               {"backup", base_name(path) + ".bak"},
               {"step", winner ? std::string(resolve::step_label(winner->step)) : std::string("?")},
               {"toolset", fmt::format("{}.{}", kMsvcLinkerMajor, toolset_minor)},
               {"built_by", newest->name}},
              {{"runtime", path},
               {"runtime_version", version.to_string()},
               {"toolset", fmt::format("{}.{}", kMsvcLinkerMajor, toolset_minor)},
               {"built_by", newest->name}});
  }
}

}  // namespace

void detect_versions(const RuleInput& input, FindingSink& sink) {
  driver(input, sink);
  msvc_runtime(input, sink);
}

}  // namespace dlldoctor::rules
