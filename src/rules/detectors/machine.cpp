// The machine by itself, for `dlldoctor check` and `--scan`: what a folder's set of one release lacks, the
// driver against what is installed, a cuDNN header against the DLL beside it. The questions of loading are
// the other detectors', asked of the processes `check` simulates.
#include <algorithm>
#include <regex>

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

std::optional<int> cuda_major_in_path(const RuleData& rules, const std::string& windows_path) {
  for (const std::string& pattern : rules.machine.cuda_in_path) {
    // Checked when the rules were read.
    const std::regex expression(pattern, std::regex::icase);
    std::smatch match;
    if (std::regex_search(windows_path, match, expression) && match.size() > 1) {
      try {
        return std::stoi(match[1].str());
      } catch (const std::exception&) {
        continue;  // a group that is no number, or one too large: the path says nothing
      }
    }
  }
  return std::nullopt;
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
  // An nvcuda.dll whose version cannot be read (no version resource, a stub such as ZLUDA's) says nothing.
  if (facts.driver && !facts.driver->empty() && facts.driver->front() != '-') {
    for (const MachineFacts::Toolkit& toolkit : facts.toolkits) {
      int major = 0, minor = 0;
      if (std::sscanf(toolkit.release.c_str(), "%d.%d", &major, &minor) != 2) continue;
      const DriverVerdict verdict = judge_driver(rules, CudaRelease{major, minor}, *facts.driver);
      if (verdict.fit == DriverFit::enough) continue;
      const bool compatible = verdict.fit == DriverFit::minor_compatible;
      Vars vars = {{"driver", *facts.driver},
                   {"driver_file_version", facts.driver_file_version},
                   {"minimum", verdict.minimum->driver},
                   {"cuda", toolkit.release},
                   {"cuda_major", std::to_string(major)},
                   {"root", toolkit.root}};
      detail::Json evidence = {
          {"driver", *facts.driver}, {"minimum", verdict.minimum->driver}, {"cuda", toolkit.release}};
      if (verdict.floor) {
        vars.emplace("floor", verdict.floor->driver);
        evidence["minor_compatible_driver"] = verdict.floor->driver;
      }
      sink.emit("driver-too-old", compatible ? "toolkit_minor_compat" : "toolkit", "nvcuda.dll", vars,
                std::move(evidence), compatible ? std::optional<Severity>(Severity::Warning) : std::nullopt);
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
  // A cuDNN build for a CUDA major no toolkit has: its engines load that major's libraries (cublasLt64_13.dll),
  // which nothing here provides. Without a toolkit there is nothing to compare with (frameworks bring theirs).
  std::vector<std::string> present;
  std::vector<std::string> roots;
  for (const MachineFacts::Toolkit& toolkit : facts.toolkits) {
    const std::string major = toolkit.release.substr(0, toolkit.release.find('.'));
    if (std::find(present.begin(), present.end(), major) == present.end()) present.push_back(major);
    roots.push_back(toolkit.root);
  }
  for (const MachineFacts::CudnnBuild& build : facts.cudnn_builds) {
    if (present.empty() || std::find(present.begin(), present.end(), std::to_string(build.cuda_major)) != present.end())
      continue;
    const std::string wanted = std::to_string(build.cuda_major);
    Vars vars{{"dll", base_name(build.dll)},     {"copy", build.dll},
              {"folder", build.folder},          {"wanted", wanted},
              {"present", Value::list(present)}, {"toolkits", Value::list(roots)}};
    if (build.other_builds.empty()) {
      sink.emit("cuda-major-mismatch", "cudnn_build", base_name(build.dll), vars,
                {{"dll", build.dll}, {"wanted", wanted}});
    } else {
      vars["other"] = build.other_builds.front();
      sink.emit("cuda-major-mismatch", "cudnn_build_other", base_name(build.dll), vars,
                {{"dll", build.dll}, {"wanted", wanted}, {"other", build.other_builds.front()}});
    }
  }
  return sink.take();
}

}  // namespace dlldoctor::rules
