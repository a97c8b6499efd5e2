// The machine by itself, for `dlldoctor check` and `--scan`: what a folder's set of one release lacks, the
// driver against what is installed, a cuDNN header against the DLL beside it. The questions of loading are
// the other detectors', asked of the processes `check` simulates.
#include <algorithm>

#include "dlldoctor/core/version_range.hpp"
#include "rules/cuda_versions.hpp"
#include "rules/detectors/common.hpp"

namespace dlldoctor::rules {

std::vector<DllName> runtime_loads_of(const Family& family, const std::optional<pe::Version>& version) {
  std::vector<DllName> loads = family.runtime_loads;
  for (const VersionedLoads& versioned : family.versioned_loads) {
    if (version) {
      const pe::Version& v = *version;
      if (!versioned.versions.contains({v.parts[0], v.parts[1], v.parts[2], v.parts[3]})) continue;
    }
    for (const DllName& dll : versioned.loads) {
      if (std::find(loads.begin(), loads.end(), dll) == loads.end()) loads.push_back(dll);
    }
  }
  return loads;
}

void detect_incomplete_sets(const std::vector<env::FolderContents>& folders, const RuleData& rules, FindingSink& sink) {
  for (const env::FolderContents& folder : folders) {
    for (const env::DllCopy& copy : folder.dlls) {
      const DllName name = DllName::of_file(copy.name);
      const Family* family = rules.family_of(name);
      if (!family || std::find(family->main.begin(), family->main.end(), name) == family->main.end()) continue;
      std::vector<std::string> missing;
      std::vector<DllName> related;
      for (const DllName& sibling : runtime_loads_of(*family, copy.file_version)) {
        const bool there = std::any_of(folder.dlls.begin(), folder.dlls.end(),
                                       [&](const env::DllCopy& d) { return DllName::of_file(d.name) == sibling; });
        if (there) continue;
        missing.push_back(sibling.display());
        related.push_back(sibling);
      }
      if (missing.empty()) continue;
      const std::string version = copy.file_version ? copy.file_version->to_string() : std::string();
      detail::Json list = detail::Json::array();
      for (const std::string& dll : missing) list.push_back(dll);
      sink.emit("missing-sibling", "folder", copy.name,
                {{"main", copy.name},
                 {"main_version", version},
                 {"family", family->name},
                 {"main_folder", detail::shown(folder.folder)},
                 {"dll", Value::list(missing)},
                 {"dlls", Value::list(missing)}},
                {{"main", detail::shown(copy)}, {"missing", std::move(list)}}, Severity::Info, std::move(related));
    }
  }
}

RuleOutput run_machine_rules(const MachineFacts& facts, const RuleData& rules) {
  FindingSink sink(rules);
  const Family* driver_family = nullptr;
  for (const Family& family : rules.families) {
    if (family.version_format == "nvidia_driver") driver_family = &family;
  }
  if (facts.system_looked_at && !facts.driver && !facts.needs_driver.empty() && driver_family) {
    detail::Json needs = detail::Json::array();
    for (const std::string& what : facts.needs_driver) needs.push_back(what);
    sink.emit("no-gpu-driver", "default", driver_family->main.front().display(),
              {{"dll", driver_family->main.front().display()},
               {"family", driver_family->name},
               {"installed", Value::list(facts.needs_driver)},
               {"install", Value::code(driver_family->install)}},
              {{"needs_driver", std::move(needs)}});
  }
  if (facts.driver) {
    for (const MachineFacts::Toolkit& toolkit : facts.toolkits) {
      int major = 0, minor = 0;
      if (std::sscanf(toolkit.release.c_str(), "%d.%d", &major, &minor) != 2) continue;
      const DriverMinimum* minimum = minimum_driver(rules, CudaRelease{major, minor});
      if (!minimum || !driver_older(*facts.driver, minimum->driver)) continue;
      sink.emit("driver-too-old", "toolkit", "nvcuda.dll",
                {{"driver", *facts.driver},
                 {"driver_file_version", facts.driver_file_version},
                 {"minimum", minimum->driver},
                 {"cuda", toolkit.release},
                 {"root", toolkit.root}},
                {{"driver", *facts.driver}, {"minimum", minimum->driver}, {"cuda", toolkit.release}});
    }
  }
  for (const MachineFacts::Header& header : facts.headers) {
    sink.emit("cudnn-header-mismatch", "default", base_name(header.dll),
              {{"header", header.header},
               {"header_version", header.header_version},
               {"dll", header.dll},
               {"dll_version", header.dll_version},
               {"include", header.include}},
              {{"header", header.header},
               {"header_version", header.header_version},
               {"dll", header.dll},
               {"dll_version", header.dll_version}});
  }
  return sink.take();
}

}  // namespace dlldoctor::rules
