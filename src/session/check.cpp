#include "dlldoctor/session/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/env/inventory.hpp"
#include "dlldoctor/env/mark_of_the_web.hpp"
#include "dlldoctor/rules/rule_engine.hpp"
#include "dlldoctor/rules/sdk_check.hpp"
#include "rules/cuda_versions.hpp"
#include "rules/recipe_chain.hpp"

namespace dlldoctor::session {
namespace {
// Named, so that a unity build (the fuzz targets) can put this file beside another one's helpers.
namespace machine_check {

std::string lower(const std::string& text) { return ascii_lower(text); }

// Environment variable names are kept lower-cased (Environment::variables); reports write them as Windows does.
std::string upper(std::string text) {
  for (char& c : text) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  return text;
}

// "bin\x64" -> {"bin", "x64"}.
std::vector<std::string> parts_of(const std::string& relative) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= relative.size()) {
    std::size_t end = relative.find_first_of("\\/", start);
    if (end == std::string::npos) end = relative.size();
    if (end > start) parts.push_back(relative.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::optional<CheckedFile> checked_file(Machine& machine, const std::string& folder, const std::string& name) {
  auto found = machine.files().find_file(folder, name);
  if (!found) return std::nullopt;
  CheckedFile file;
  file.path = *found;
  file.shown = env::shown_path(machine.environment(), *found);
  auto image = machine.images().get(machine.files().content_path(*found));
  if (image->ok() && image->value().file_version) file.version = image->value().file_version->to_string();
  return file;
}

std::optional<pe::Version> file_version(Machine& machine, const std::string& path) {
  auto image = machine.images().get(machine.files().content_path(path));
  if (image->ok()) return image->value().file_version;
  return std::nullopt;
}

const rules::Family* driver_family(const rules::RuleData& rules) {
  for (const rules::Family& family : rules.families)
    if (family.version_format == "nvidia_driver") return &family;
  return nullptr;
}

DriverCheck check_driver(Machine& machine) {
  DriverCheck driver;
  const env::Environment& environment = machine.environment();
  const rules::RuleData& rules = machine.rules();
  const rules::Family* family = driver_family(rules);
  driver.looked = environment.system32.exists;
  if (!family || !driver.looked) return driver;
  driver.nvcuda = checked_file(machine, environment.system32.host, family->main.front().display());
  if (driver.nvcuda) {
    if (auto version = file_version(machine, driver.nvcuda->path)) driver.driver = rules::driver_version(*version);
    if (const rules::DriverMinimum* newest = rules::newest_cuda_supported(rules, driver.driver))
      driver.newest_cuda = fmt::format("{}.{}", newest->cuda_major, newest->cuda_minor);
  }
  for (const std::string& pattern : rules.machine.driver_store) {
    for (const std::string& folder : env::matching_folders(environment, pattern, machine.files())) {
      DriverPackage package;
      package.folder = env::shown_path(environment, folder);
      for (const std::string& name : rules.machine.driver_store_dlls) {
        auto file = checked_file(machine, folder, name);
        if (!file) continue;
        if (package.driver.empty() && lower(name).rfind("nvcuda", 0) == 0) {
          if (auto version = file_version(machine, file->path)) package.driver = rules::driver_version(*version);
        }
        package.dlls.push_back(std::move(*file));
      }
      if (package.dlls.empty()) continue;
      package.active = !driver.driver.empty() && package.driver == driver.driver;
      driver.packages.push_back(std::move(package));
    }
  }
  return driver;
}

// The CUDA family whose main DLL (cudart64_12.dll) is in `folder`, and that DLL.
std::optional<std::pair<const rules::Family*, CheckedFile>> cudart_in(Machine& machine, const std::string& folder) {
  for (const rules::Family& family : machine.rules().families) {
    if (family.kind != "cuda" || family.version_format != "cudart") continue;
    for (const DllName& main : family.main) {
      if (auto file = checked_file(machine, folder, main.display())) return std::make_pair(&family, *file);
    }
  }
  return std::nullopt;
}

std::vector<ToolkitCheck> check_toolkits(Machine& machine) {
  const env::Environment& environment = machine.environment();
  const rules::MachinePlaces& places = machine.rules().machine;
  std::vector<ToolkitCheck> toolkits;
  auto add = [&](const std::string& root, const std::string& named_by) {
    if (!machine.files().folder_exists(root)) return;
    for (ToolkitCheck& known : toolkits) {
      if (!same_path(known.root, root)) continue;
      if (std::find(known.named_by.begin(), known.named_by.end(), named_by) == known.named_by.end())
        known.named_by.push_back(named_by);
      return;
    }
    ToolkitCheck toolkit;
    toolkit.root = root;
    toolkit.shown_root = env::shown_path(environment, root);
    toolkit.named_by.push_back(named_by);
    toolkits.push_back(std::move(toolkit));
  };
  // The variables first: they say which toolkit programs are told to use.
  for (const auto& [name, variable] : environment.variables) {
    for (const std::string& pattern : places.toolkit_variables) {
      if (!env::wildcard_match(pattern, name)) continue;
      const env::FolderRef folder = env::resolve_folder(environment, variable.value, machine.files());
      if (folder.exists) add(folder.host, fmt::format("{} ({})", upper(name), variable.source));
      break;
    }
  }
  // The installer's registrations: KEY\*\VALUE under HKLM\SOFTWARE, each subkey a toolkit whose VALUE is its root.
  for (const std::string& entry : places.toolkit_keys) {
    const std::string value = base_name(entry);
    const std::string key = folder_of(folder_of(entry));
    for (const auto& [subkey, root] : env::software_subkey_values(environment, machine.files(), key, value)) {
      const env::FolderRef folder = env::resolve_folder(environment, root, machine.files());
      if (folder.exists) add(folder.host, fmt::format("HKLM\\SOFTWARE\\{}\\{}", key, subkey));
    }
  }
  for (const std::string& pattern : places.toolkits) {
    for (const std::string& root : env::matching_folders(environment, pattern, machine.files())) add(root, pattern);
  }
  for (ToolkitCheck& toolkit : toolkits) {
    for (const std::string& bin : places.toolkit_bins) {
      std::string folder = toolkit.root;
      bool there = true;
      for (const std::string& part : parts_of(bin)) {
        auto sub = machine.files().find_folder(folder, part);
        if (!sub) {
          there = false;
          break;
        }
        folder = *sub;
      }
      if (!there) continue;
      auto cudart = cudart_in(machine, folder);
      if (!cudart) continue;
      toolkit.bin = folder;
      toolkit.shown_bin = env::shown_path(environment, folder);
      if (cudart->second.version) {
        if (auto version = file_version(machine, cudart->second.path)) {
          if (auto release = rules::cuda_release(*cudart->first, *version)) toolkit.release = release->text();
        }
      }
      toolkit.cudart = std::move(cudart->second);
      break;
    }
    for (const env::PathEntry& entry : environment.path) {
      if (!toolkit.bin.empty() && entry.folder.exists && same_path(entry.folder.host, toolkit.bin))
        toolkit.on_path = true;
    }
  }
  std::sort(toolkits.begin(), toolkits.end(), [](const ToolkitCheck& a, const ToolkitCheck& b) {
    return compare_versions(leading_version(a.release).value_or(VersionParts{}),
                            leading_version(b.release).value_or(VersionParts{})) > 0;
  });
  return toolkits;
}

// The folder `relative` ("nvidia\\cudnn\\bin") names below `folder`, as the file system spells it.
std::optional<std::string> folder_below(Machine& machine, const std::string& folder, const std::string& relative) {
  std::string path = folder;
  for (const std::string& part : parts_of(relative)) {
    auto sub = machine.files().find_folder(path, part);
    if (!sub) return std::nullopt;
    path = std::move(*sub);
  }
  return path;
}

// What a copy's folder holds of its family: the siblings its release loads that are not there, and those
// of another release.
void judge_folder(Machine& machine, const rules::Family& family, CudnnCopy& copy) {
  const std::optional<pe::Version> version = file_version(machine, copy.main.path);
  for (const DllName& sibling : rules::runtime_loads_of(family, version)) {
    auto there = machine.files().find_file(copy.folder, sibling.display());
    if (!there) {
      copy.missing.push_back(sibling.display());
      continue;
    }
    // Only the family's own siblings share its release (cuDNN 8's zlibwapi.dll is 1.2.3).
    if (std::find(family.members.begin(), family.members.end(), sibling) == family.members.end()) continue;
    const std::optional<pe::Version> theirs = file_version(machine, *there);
    if (version && theirs && *theirs != *version)
      copy.other_versions.push_back(fmt::format("{} {}", base_name(*there), theirs->to_string()));
  }
  // A plan's rename step (or a user putting an old copy aside) leaves NAME.bak: never loaded, worth knowing
  // when the copy it replaced is missed.
  for (const std::string& name : machine.files().file_names(copy.folder)) {
    const std::string lowered = lower(name);
    if (lowered.size() <= 4 || lowered.compare(lowered.size() - 4, 4, ".bak") != 0) continue;
    const DllName renamed = DllName::of_file(name.substr(0, name.size() - 4));
    if (std::find(family.members.begin(), family.members.end(), renamed) == family.members.end()) continue;
    const std::optional<pe::Version> theirs = file_version(machine, env::join_path(copy.folder, name));
    copy.renamed.push_back(theirs ? fmt::format("{} {}", name, theirs->to_string()) : name);
  }
  std::sort(copy.renamed.begin(), copy.renamed.end());
  if (auto mark = env::read_mark_of_the_web(machine.files(), copy.main.path)) copy.zone_id = mark->zone_id;
}

// The cudnn_version.h that goes with a copy: include\ beside its bin folder (a zip: bin, bin\x64), or for the
// installer's bin\<cuda>[\x64] the include\<cuda> of the same CUDA build.
void find_header(Machine& machine, CudnnCopy& copy) {
  env::FileSystem& files = machine.files();
  std::vector<std::string> parts;  // the folders from the copy's up, nearest first
  std::string folder = copy.folder;
  for (int i = 0; i < 4 && !folder.empty(); ++i) {
    parts.push_back(folder);
    const std::string up = folder_of(folder);
    if (up == folder) break;
    folder = up;
  }
  // Below the `bin` folder: the names to follow under `include` (12.4, x64), in order.
  for (std::size_t up = 0; up < parts.size(); ++up) {
    if (lower(base_name(parts[up])) != "bin" || up + 1 >= parts.size()) continue;
    std::string include = parts[up + 1];
    auto found = files.find_folder(include, "include");
    if (!found) return;
    std::string path = *found;
    for (std::size_t down = up; down-- > 0;) {
      auto sub = files.find_folder(path, base_name(parts[down]));
      if (!sub) break;
      path = *sub;
    }
    auto header = files.find_file(path, "cudnn_version.h");
    if (!header) return;
    // This header, the one beside the copy's own bin: the SDK check would pick the newest CUDA build's.
    const std::string shown = env::shown_path(machine.environment(), *header);
    auto version = rules::read_cudnn_header(files, *header, shown);
    if (!version) return;
    copy.header = version->to_string();
    copy.header_path = shown;
    return;
  }
}

// Every copy of the family's main DLL in the places a new process or an install would put it: the PATH,
// System32, the family's install places and the toolkits' folders, in the order a new process searches;
// then those in each Python's own environment (pip's wheels, conda's DLL folders), which only that
// Python's frameworks may load.
std::vector<CudnnCopy> find_copies(Machine& machine, const rules::Family& family,
                                   const std::vector<ToolkitCheck>& toolkits, const std::vector<PythonCheck>& pythons,
                                   env::PackageClaims& packages) {
  const env::Environment& environment = machine.environment();
  struct Place {
    std::string folder;  // host
    std::string found_as;
    std::string python;  // shown; empty when the place is the machine's
  };
  std::vector<Place> places;
  if (environment.system32.exists) places.push_back({environment.system32.host, "System32", ""});
  for (std::size_t i = 0; i < environment.path.size(); ++i) {
    const env::PathEntry& entry = environment.path[i];
    if (entry.folder.exists) places.push_back({entry.folder.host, fmt::format("PATH entry {}", i + 1), ""});
  }
  for (const std::string& pattern : family.install_places) {
    for (const std::string& folder : env::matching_folders(environment, pattern, machine.files()))
      places.push_back({folder, "not on PATH", ""});
  }
  for (const ToolkitCheck& toolkit : toolkits) {
    if (!toolkit.bin.empty()) places.push_back({toolkit.bin, "not on PATH", ""});
  }
  for (const PythonCheck& python : pythons) {
    if (!python.problem.empty()) continue;
    for (const std::string& site : python.python.site_packages) {
      for (const std::string& relative : family.wheel_places) {
        if (auto folder = folder_below(machine, site, relative))
          places.push_back({*folder, "pip's wheel in the site-packages of " + python.shown, python.shown});
      }
    }
    if (python.python.layout != env::PythonEnvironment::Layout::Conda) continue;
    for (const std::string& relative : machine.rules().machine.conda_dll_folders) {
      if (auto folder = folder_below(machine, python.python.prefix, relative))
        places.push_back({*folder, "conda's " + relative + " of " + python.shown, python.shown});
    }
  }
  std::vector<CudnnCopy> copies;
  std::set<std::string> seen;
  for (const Place& place : places) {
    // One folder spelled two ways (live Windows: a PATH entry typed in lower case) is one place.
    if (!seen.insert(lower(place.folder)).second) continue;
    auto main = checked_file(machine, place.folder, family.main.front().display());
    if (!main) continue;
    CudnnCopy copy;
    copy.main = std::move(*main);
    copy.folder = place.folder;
    copy.found_as = place.found_as;
    copy.python = place.python;
    judge_folder(machine, family, copy);
    find_header(machine, copy);
    copy.owner = owner_of(copy.main.path, env::windows_path_of(environment, copy.main.path), &family,
                          packages.of(copy.main.path), environment, machine.rules());
    copies.push_back(std::move(copy));
  }
  return copies;
}

// ExplainRequest of a running Python that loads `dll` as ctypes.CDLL does.
ExplainRequest ctypes_request(const std::string& python, const std::string& dll) {
  ExplainRequest request;
  request.program = python;
  request.program_is_host = true;
  request.loads.push_back({dll, {}});
  request.profile = "python-ctypes";
  request.python_start_up = true;
  request.plan = false;
  return request;
}

// Whether new processes are meant to find `copy`: it is in System32 or on their PATH, below an entry of it
// (the installer's), or in a folder the registry's PATH has (a terminal opened before PATH changed).
bool meant_for_new_processes(Machine& machine, const CudnnCopy& copy) {
  const env::Environment& environment = machine.environment();
  if (!copy.python.empty()) return false;
  if (copy.found_as != "not on PATH") return true;
  for (const env::PathEntry& entry : environment.path) {
    if (entry.folder.exists && is_below(copy.folder, entry.folder.host)) return true;
  }
  for (const std::optional<std::string>* value : {&environment.user_path, &environment.machine_path}) {
    if (!*value) continue;
    for (const env::FolderRef& folder : env::path_folders(environment, **value, machine.files()))
      if (folder.exists && same_path(folder.host, copy.folder)) return true;
  }
  return false;
}

// A found interpreter, once.
struct FoundPython {
  std::string program;
  std::string found_by;
};

void add_python(std::vector<FoundPython>& found, const std::string& program, const std::string& found_by) {
  for (const FoundPython& known : found) {
    if (known.program == program) return;
  }
  found.push_back({program, found_by});
}

// python.exe in `folder` when it is a program (the Store's execution alias on PATH is an empty reparse point,
// which the copy of a drive keeps as an empty file).
std::optional<std::string> python_in(Machine& machine, const std::string& folder,
                                     const std::string& name = "python.exe") {
  auto program = machine.files().find_file(folder, name);
  if (!program) return std::nullopt;
  auto image = machine.images().get(machine.files().content_path(*program));
  if (!image->ok()) return std::nullopt;
  return program;
}

Result<std::vector<FoundPython>> find_pythons(Machine& machine, const CheckRequest& request) {
  const env::Environment& environment = machine.environment();
  const rules::MachinePlaces& places = machine.rules().machine;
  std::vector<FoundPython> found;
  for (const std::string& given : request.pythons) {
    const std::string folder_text = given.substr(0, given.size() - base_name(given).size());
    const env::FolderRef folder =
        env::resolve_folder(environment, folder_text.empty() ? "." : folder_text, machine.files());
    auto program = folder.exists ? machine.files().find_file(folder.host, base_name(given)) : std::nullopt;
    if (!program) return Error{"--python " + given + ": no such file"};
    add_python(found, *program, "--python");
  }
  for (const env::PathEntry& entry : environment.path) {
    if (!entry.folder.exists) continue;
    if (auto program = python_in(machine, entry.folder.host)) {
      add_python(found, *program, "the first python.exe on PATH");
      break;
    }
  }
  for (const env::RegisteredPython& registered : env::registered_pythons(environment, machine.files())) {
    const env::FolderRef folder = env::resolve_folder(environment, folder_of(registered.executable), machine.files());
    // A registration outlives an uninstall: a missing or empty interpreter is skipped, as one on PATH is.
    auto program = folder.exists ? python_in(machine, folder.host, base_name(registered.executable)) : std::nullopt;
    if (program) add_python(found, *program, "the py launcher's registration (" + registered.key + ")");
  }
  for (const std::string& pattern : places.pythons) {
    const std::string folder_pattern = pattern.substr(0, pattern.size() - base_name(pattern).size() - 1);
    for (const std::string& folder : env::matching_folders(environment, folder_pattern, machine.files())) {
      if (auto program = python_in(machine, folder)) add_python(found, *program, pattern);
    }
  }
  for (const std::string& pattern : places.conda) {
    for (const std::string& prefix : env::matching_folders(environment, pattern, machine.files())) {
      if (auto program = python_in(machine, prefix)) add_python(found, *program, "conda: " + pattern);
      auto envs = machine.files().find_folder(prefix, "envs");
      if (!envs) continue;
      for (const std::string& name : machine.files().folder_names(*envs)) {
        if (auto program = python_in(machine, env::join_path(*envs, name)))
          add_python(found, *program, "conda env of " + env::shown_path(environment, prefix));
      }
    }
  }
  return found;
}

// Whether `python`'s site-packages hold the package of `recipe` (and the file its check needs).
bool installed(Machine& machine, const env::PythonEnvironment& python, const rules::Recipe& recipe) {
  const rules::Recipe* owner = rules::package_recipe(machine.rules(), recipe.id);
  if (!owner) return false;
  for (const std::string& site : python.site_packages) {
    auto package = machine.files().find_folder(site, owner->package);
    if (!package) continue;
    if (recipe.check_needs.empty()) return true;
    const std::vector<std::string> parts = parts_of(recipe.check_needs);
    if (parts.empty()) continue;
    auto folder = parts.size() == 1 ? package : folder_below(machine, *package, folder_of(recipe.check_needs));
    if (folder && machine.files().find_file(*folder, parts.back())) return true;
  }
  return false;
}

bool mends_something(const pipeline::Diagnosis& diagnosis) {
  return !diagnosis.closure.outcome.ok ||
         std::any_of(diagnosis.rules.findings.begin(), diagnosis.rules.findings.end(),
                     [](const rules::Finding& f) { return f.severity != rules::Severity::Info; });
}

std::string python_label(const PythonCheck& python, const std::string& what) {
  return fmt::format("{}, {}", python.shown, what);
}

Verdict verdict_of(const CheckRun& run, const std::vector<const ExplainRun*>& processes,
                   const std::vector<std::string>& labels) {
  std::size_t errors = 0, warnings = 0;
  const CheckFinding* first_error = nullptr;
  for (const CheckFinding& finding : run.findings) {
    if (finding.finding.severity == rules::Severity::Error) {
      if (!first_error) first_error = &finding;
      ++errors;
    } else if (finding.finding.severity == rules::Severity::Warning) {
      ++warnings;
    }
  }
  for (std::size_t i = 0; i < processes.size(); ++i) {
    const graph::Outcome& outcome = processes[i]->closure().outcome;
    if (outcome.ok) continue;
    // An import's request names the import already ("import torch: LoadLibraryExW(...)").
    const std::string& label = labels[i];
    const std::string where = processes[i]->expansion ? label.substr(0, label.rfind(", import ")) : label;
    return {Tone::Fails, fmt::format("FAILS: in {}, {} fails with error {}: {}", where, outcome.request,
                                     outcome.error.value_or(0), outcome.reason)};
  }
  if (first_error) {
    return {Tone::Broken,
            fmt::format("BROKEN: {} error{} below ({}{})", errors, errors == 1 ? "" : "s", first_error->finding.id,
                        first_error->finding.module.empty() ? std::string() : ": " + first_error->finding.module)};
  }
  if (warnings)
    return {Tone::Warnings, fmt::format("WARNINGS: {} warning{} below", warnings, warnings == 1 ? "" : "s")};
  std::vector<std::string> parts;
  if (!run.driver.driver.empty()) parts.push_back("driver " + run.driver.driver);
  for (const ToolkitCheck& toolkit : run.toolkits)
    if (!toolkit.release.empty()) parts.push_back("CUDA " + toolkit.release);
  for (const CudnnCheck& cudnn : run.cudnn) {
    for (const CudnnCopy& copy : cudnn.copies)
      if (copy.wins)
        parts.push_back(cudnn.name.substr(0, cudnn.name.find(' ')) + " " + copy.main.version.value_or("?"));
  }
  if (!run.pythons.empty())
    parts.push_back(fmt::format("{} Python{}", run.pythons.size(), run.pythons.size() == 1 ? "" : "s"));
  std::string summary;
  for (const std::string& part : parts) summary += (summary.empty() ? "" : ", ") + part;
  return {Tone::Healthy, summary.empty() ? "HEALTHY: no error or warning on this machine"
                                         : "HEALTHY: no error or warning on this machine (" + summary + ")"};
}

}  // namespace machine_check
}  // namespace

int CheckRun::exit_status() const {
  const bool error = std::any_of(findings.begin(), findings.end(),
                                 [](const CheckFinding& f) { return f.finding.severity == rules::Severity::Error; });
  return error || verdict.tone == Tone::Fails ? 1 : 0;
}

Result<CheckRun> check(Machine& machine, const CheckRequest& request) {
  const env::Environment& environment = machine.environment();
  const rules::RuleData& rules = machine.rules();
  CheckRun run;
  run.environment = &environment;
  run.rules = &rules;
  run.driver = machine_check::check_driver(machine);
  run.toolkits = machine_check::check_toolkits(machine);
  auto pythons = machine_check::find_pythons(machine, request);
  if (!pythons) return pythons.error();
  for (const machine_check::FoundPython& found : *pythons) {
    PythonCheck python;
    python.program = found.program;
    python.shown = env::shown_path(environment, found.program);
    python.found_by = found.found_by;
    auto read = env::find_python_environment(environment, machine.files(), found.program, {});
    if (read)
      python.python = std::move(read).value();
    else
      python.problem = read.error().message;
    run.pythons.push_back(std::move(python));
  }

  // Each cuDNN generation with a copy in a place of the machine's own: which one a new process finds. The
  // packages' manifests (a conda prefix's records, the dist-infos) are read once for all of them.
  env::PackageClaims packages(machine.files());
  for (const rules::Family& family : rules.families) {
    if (family.kind != "cudnn") continue;
    CudnnCheck cudnn;
    cudnn.family = family.id;
    cudnn.name = family.name;
    cudnn.dll = family.main.front().display();
    cudnn.copies = machine_check::find_copies(machine, family, run.toolkits, run.pythons, packages);
    if (cudnn.copies.empty()) continue;
    auto process = new_process_loading(machine, cudnn.dll);
    if (!process) return process.error();
    cudnn.process = std::move(process).value();
    cudnn.judged = std::any_of(cudnn.copies.begin(), cudnn.copies.end(), [&](const CudnnCopy& copy) {
      return machine_check::meant_for_new_processes(machine, copy);
    });
    for (const graph::Module& module : cudnn.process.closure().modules) {
      if (module.key != family.main.front() || !module.resolution.path) continue;
      for (CudnnCopy& copy : cudnn.copies) copy.wins = copy.main.path == *module.resolution.path;
    }
    run.cudnn.push_back(std::move(cudnn));
  }
  // The newest generation installed for the machine is judged whatever: its copies lying only in an install
  // place is seed §5.1. Copies in a Python's own environment are that Python's frameworks' business.
  CudnnCheck* newest = nullptr;
  for (CudnnCheck& cudnn : run.cudnn) {
    const bool for_machine = std::any_of(cudnn.copies.begin(), cudnn.copies.end(),
                                         [](const CudnnCopy& copy) { return copy.python.empty(); });
    if (for_machine && (!newest || std::stoi("0" + rules.family(newest->family)->generation) <
                                       std::stoi("0" + rules.family(cudnn.family)->generation)))
      newest = &cudnn;
  }
  if (newest) newest->judged = true;
  for (const rules::Family& family : rules.families) {
    if (family.kind != "msvc" || !environment.system32.exists) continue;
    for (const DllName& main : family.main) {
      if (auto file = machine_check::checked_file(machine, environment.system32.host, main.display()))
        run.msvc_runtime.push_back(std::move(*file));
    }
  }

  for (PythonCheck& python : run.pythons) {
    if (!python.problem.empty()) continue;
    for (const CudnnCheck& cudnn : run.cudnn) {
      if (!cudnn.judged) continue;
      auto loaded = explain(machine, machine_check::ctypes_request(python.python.interpreter, cudnn.dll));
      if (!loaded) {
        python.not_judged.push_back(fmt::format("ctypes.CDLL('{}'): {}", cudnn.dll, loaded.error().message));
        continue;
      }
      python.ctypes.push_back({cudnn.dll, std::move(loaded).value()});
    }
    for (const rules::Recipe& recipe : rules.recipes) {
      if (!recipe.check || !machine_check::installed(machine, python.python, recipe)) continue;
      ExplainRequest imports;
      imports.program = python.program;
      imports.imports = {recipe.id};
      imports.plan = false;
      auto imported = explain(machine, imports);
      if (!imported) {
        python.not_judged.push_back(fmt::format("import {}: {}", recipe.id, imported.error().message));
        continue;
      }
      // A version the recipe does not hold for loads by other code: its findings would be guesses.
      const std::string& outside = imported->expansion->recipes.back().outside_covers;
      if (!outside.empty()) {
        python.not_judged.push_back(fmt::format("import {}: not judged: {}", recipe.id, outside));
        continue;
      }
      python.frameworks.push_back(std::move(imported).value());
    }
  }

  // The processes whose findings count, and what the report calls them.
  std::vector<const ExplainRun*> processes;
  std::vector<std::string> labels;
  for (const CudnnCheck& cudnn : run.cudnn) {
    if (!cudnn.judged) continue;
    processes.push_back(&cudnn.process);
    labels.push_back(new_process_label(cudnn.dll));
  }
  const std::size_t first_import = processes.size();
  for (const PythonCheck& python : run.pythons) {
    for (const ExplainRun& framework : python.frameworks) {
      processes.push_back(&framework);
      labels.push_back(machine_check::python_label(python, "import " + framework.expansion->recipes.back().id));
    }
  }

  // The machine's own findings: the driver against what is installed, headers against DLLs.
  rules::MachineFacts facts;
  facts.system_looked_at = run.driver.looked;
  if (run.driver.nvcuda) {
    facts.driver = run.driver.driver;
    facts.driver_file_version = run.driver.nvcuda->version.value_or("");
  }
  for (const ToolkitCheck& toolkit : run.toolkits) {
    if (toolkit.release.empty()) continue;
    facts.toolkits.push_back({toolkit.release, toolkit.shown_root});
    facts.needs_driver.push_back(fmt::format("CUDA {} ({})", toolkit.release, toolkit.shown_root));
  }
  // A CUDA major whose runtime a process already misses (TensorFlow 2.10's cudart64_110.dll) is said there,
  // with the stacks that work; the cuDNN build for it would say the same twice.
  std::set<std::string> majors_missed;
  for (const ExplainRun* process : processes) {
    for (const rules::Finding& finding : process->findings()) {
      const rules::Family* family = rules.family_of(DllName(finding.module));
      if (finding.severity == rules::Severity::Error && family && family->kind == "cuda")
        majors_missed.insert(family->generation);
    }
  }
  for (const CudnnCheck& cudnn : run.cudnn) {
    for (const CudnnCopy& copy : cudnn.copies) {
      if (!copy.wins || !cudnn.judged) continue;
      const std::optional<int> major = rules::cuda_major_in_path(rules, copy.main.shown);
      if (!major || majors_missed.count(std::to_string(*major))) continue;
      rules::MachineFacts::CudnnBuild build{copy.main.shown, env::shown_path(environment, copy.folder), *major, {}};
      for (const CudnnCopy& other : cudnn.copies) {
        const std::optional<int> theirs = rules::cuda_major_in_path(rules, other.main.shown);
        const bool installed =
            theirs && std::any_of(run.toolkits.begin(), run.toolkits.end(), [&](const ToolkitCheck& t) {
              return t.release.substr(0, t.release.find('.')) == std::to_string(*theirs);
            });
        if (installed && other.python.empty() && other.missing.empty())
          build.other_builds.push_back(env::shown_path(environment, other.folder));
      }
      facts.cudnn_builds.push_back(std::move(build));
    }
  }
  for (const CudnnCheck& cudnn : run.cudnn) {
    for (const CudnnCopy& copy : cudnn.copies) {
      if (copy.wins) facts.needs_driver.push_back(fmt::format("{} ({})", cudnn.name, copy.main.shown));
      if (!copy.header || !copy.main.version) continue;
      // The header says three parts, the DLL four: 9.1.0 against 9.1.0.70.
      if (copy.main.version->rfind(*copy.header + ".", 0) == 0) continue;
      facts.headers.push_back({copy.header_path, *copy.header, copy.main.shown, *copy.main.version,
                               env::shown_path(environment, folder_of(copy.header_path))});
    }
  }
  for (const PythonCheck& python : run.pythons) {
    for (const ExplainRun& framework : python.frameworks) {
      for (const StackFramework& stack : framework.stack.frameworks) {
        if (!stack.cuda.empty())
          facts.needs_driver.push_back(fmt::format("{} {} ({})", stack.name, stack.version, python.shown));
      }
    }
  }
  const rules::RuleOutput machine_findings = rules::run_machine_rules(facts, rules);
  const bool no_driver = std::any_of(machine_findings.findings.begin(), machine_findings.findings.end(),
                                     [](const rules::Finding& f) { return f.id == "no-gpu-driver"; });
  const std::set<DllName> driver_dlls = rules::driver_dlls(rules);

  for (const rules::Finding& finding : machine_findings.findings) add_finding(run.findings, finding, "");
  // The machine's finding says once why every CUDA program fails: each process's own about the driver would
  // repeat it. In a framework's import, what the GPU libraries lack is moot too without a driver (copying
  // cuDNN into a package would mend nothing); the machine's own cuDNN install stays judged, since it is
  // what every CUDA program will meet once the driver is there. A process left with no finding of its own
  // is neither planned for nor the verdict's.
  auto moot = [&](const rules::Finding& finding, bool import) {
    if (!no_driver) return false;
    if (driver_dlls.count(DllName(finding.module))) return true;
    const rules::Family* family = rules.family_of(DllName(finding.module));
    return import && family && (family->kind == "cuda" || family->kind == "cudnn");
  };
  std::vector<const ExplainRun*> judged;
  std::vector<std::string> judged_labels;
  for (std::size_t i = 0; i < processes.size(); ++i) {
    bool own = false;
    for (const rules::Finding& finding : processes[i]->findings()) {
      if (moot(finding, i >= first_import)) continue;
      add_finding(run.findings, finding, labels[i]);
      own = own || finding.severity != rules::Severity::Info;
    }
    if (!no_driver || own) {
      judged.push_back(processes[i]);
      judged_labels.push_back(labels[i]);
    }
  }
  // The folders no process loads from: what they mix, and what their sets lack (information).
  std::vector<env::FolderContents> folders;
  for (const CudnnCheck& cudnn : run.cudnn) {
    for (const CudnnCopy& copy : cudnn.copies) {
      if (copy.wins) continue;
      env::FolderContents contents;
      contents.folder = env::resolve_folder(environment, copy.folder, machine.files());
      for (const std::string& name : machine.files().file_names(copy.folder)) {
        if (!rules.family_of(DllName::of_file(name))) continue;
        env::DllCopy dll;
        dll.name = name;
        dll.path = env::join_path(copy.folder, name);
        dll.windows_path = env::windows_path_of(environment, dll.path);
        dll.folder = copy.folder;
        dll.file_version = machine_check::file_version(machine, dll.path);
        contents.dlls.push_back(std::move(dll));
      }
      folders.push_back(std::move(contents));
    }
  }
  for (const rules::Finding& finding : rules::run_folder_rules(folders, rules).findings)
    add_finding(run.findings, finding, "");
  std::stable_sort(run.findings.begin(), run.findings.end(), [](const CheckFinding& a, const CheckFinding& b) {
    return a.finding.severity < b.finding.severity;
  });

  // One plan for every process at once.
  const bool to_mend = std::any_of(judged.begin(), judged.end(),
                                   [](const ExplainRun* p) { return machine_check::mends_something(p->diagnosis); });
  if (to_mend) {
    std::vector<plan::PlanInput> inputs;
    std::vector<const pipeline::Diagnosis*> diagnoses;
    for (const ExplainRun* process : judged) {
      inputs.push_back({process->request, environment, rules, process->options, machine.files(), machine.images()});
      diagnoses.push_back(&process->diagnosis);
    }
    run.plan = plan::make_plan(inputs, diagnoses);
  }
  for (const CheckFinding& finding : run.findings)
    run.plan_steps.push_back(run.plan ? plan::steps_mending(*run.plan, finding.finding) : std::vector<std::size_t>());
  run.verdict = machine_check::verdict_of(run, judged, judged_labels);
  return run;
}

}  // namespace dlldoctor::session
