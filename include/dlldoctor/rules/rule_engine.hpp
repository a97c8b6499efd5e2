#pragma once
// The rule engine: reads the resolved closure, the environment and the inventory, and says what is wrong
// and what to type. Knowledge is data (rules/*.toml); each detector is one small function per kind of
// check (src/rules/detectors/).
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/inventory.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/rules/command_paths.hpp"
#include "dlldoctor/rules/finding.hpp"
#include "dlldoctor/rules/rule_data.hpp"
#include "dlldoctor/scan/scanner.hpp"

namespace dlldoctor::rules {

// A framework the process imports (--import): its recipe and the version the package's files say.
struct FrameworkInUse {
  std::string recipe;                     // "torch"
  std::string version;                    // "2.9.1+cu128"; empty when unknown
  std::size_t first_load = 0, loads = 0;  // its calls in ClosureRequest::loads (and Closure::loads)
};

struct RuleInput {
  const graph::Closure& closure;
  const graph::ClosureRequest& request;
  const env::Environment& environment;
  const env::Inventory& inventory;
  const RuleData& rules;
  resolve::WrongMachinePolicy policy = resolve::WrongMachinePolicy::Fail;
  std::vector<FrameworkInUse> frameworks;
};

// The rule that makes `module` a need of its loader's code ([[lazy_load]]), for a module loaded so.
const graph::LazyLoad* lazy_rule(const RuleInput& input, const graph::Module& module);

// The framework whose own LoadLibrary call asked for `module` (TensorFlow's load of cudnn64_8.dll), if any.
const FrameworkInUse* framework_loading(const RuleInput& input, const graph::Module& module);

struct RuleOutput {
  std::vector<Finding> findings;  // errors first, then warnings, then info; detector order within
  // The error the user sees for the outcome the verdict names, when it fails (Finding::error, says).
  std::optional<LoaderErrorText> outcome_error;
  std::vector<std::string> outcome_says;
  // Internal problems (a template naming a value the detector did not give): tests require none.
  std::vector<std::string> problems;
};

RuleOutput run_rules(const RuleInput& input);

// The checks of folders by themselves, not of one process (--scan): a folder that mixes one family's
// releases (mixed-family-versions, variant "folder") or a kind's generations (mixed-generations-folder).
// The same findings, ids, fixes and plan steps the closure report gives; evidence has "folder" (as
// shown), "host_folder" and "mixes" ("cuDNN 8 and cuDNN 9", "cuDNN 9 versions 9.0.0.312 and 9.1.0.70").
RuleOutput run_folder_rules(const std::vector<env::FolderContents>& folders, const RuleData& rules);

// The scanned copies of the families' DLLs, folder by folder, for run_folder_rules: backups and files
// that are not images left out, as no process loads them. `windows_path`: host path -> Windows path,
// when a sysroot maps them (may be empty).
std::vector<env::FolderContents> scanned_folders(
    const std::vector<scan::ScannedFile>& files, const RuleData& rules,
    const std::function<std::optional<std::string>(const std::string&)>& windows_path);

// What `dlldoctor check` found on the machine outside its simulated processes, for the machine's own
// findings: the driver against what is installed, and cuDNN headers against the DLLs beside them.
struct MachineFacts {
  bool system_looked_at = false;          // System32 is there to look at (a sysroot, a snapshot, live)
  std::optional<std::string> driver;      // "552.44"; none: System32 has no nvcuda.dll
  std::string driver_file_version;        // nvcuda.dll's
  std::vector<std::string> needs_driver;  // what is installed that runs on it: "CUDA 12.4 (C:\...)", ...
  struct Toolkit {
    std::string release;  // "12.4"
    std::string root;     // as shown
  };
  std::vector<Toolkit> toolkits;
  struct Header {
    std::string header;          // cudnn_version.h, as shown
    std::string header_version;  // "9.1.0"
    std::string dll;             // the main DLL beside it, as shown
    std::string dll_version;     // "9.0.0.312"
    std::string include;         // the include folder, as shown
  };
  std::vector<Header> headers;  // only those that disagree with their DLL
  // The cuDNN copies new processes load whose path says the CUDA major they were built for.
  struct CudnnBuild {
    std::string dll;                        // as shown
    std::string folder;                     // as shown
    int cuda_major = 0;                     // what its path says: 13
    std::vector<std::string> other_builds;  // the family's copies for a major a toolkit here has, folders as shown
  };
  std::vector<CudnnBuild> cudnn_builds;
};

// The CUDA major a cuDNN copy's Windows path says it was built for ([machine] cuda_in_path): the installer's
// bin\13.0\x64, a zip unpacked as ..._cuda13-archive.
std::optional<int> cuda_major_in_path(const RuleData& rules, const std::string& windows_path);

// no-gpu-driver (something needs it and there is none), driver-too-old (variant toolkit: an installed
// toolkit needs a newer one), cudnn-header-mismatch, cuda-major-mismatch (variant cudnn_build: the cuDNN new
// processes load is built for a CUDA major no toolkit here has).
RuleOutput run_machine_rules(const MachineFacts& facts, const RuleData& rules);

// The siblings a family's main DLL of `version` loads by name at run time (runtime_loads, and the
// versioned loads whose range holds it; all of them when the version is unknown).
std::vector<DllName> runtime_loads_of(const Family& family, const std::optional<pe::Version>& version);

// The DLLs that come with a driver, never with a program (families of kind "driver").
std::set<DllName> driver_dlls(const RuleData& rules);

// Whether `importer`'s import or delay-import table names `dll`.
bool imports(const graph::Module& importer, const DllName& dll);

// Whether a loaded module is one whose copy beside its importer matters (bundled-copy-loses): an import
// found by search, not a system DLL, not the MSVC runtime, not of a family whose DLLs share one release.
bool bundled_copy_candidate(const graph::Module& module, const RuleData& rules);

// What the closure needs of the families: the family of each member, the run-time loads of main DLLs.
graph::LoadKnowledge load_knowledge(const RuleData& rules);

// The names the inventory should look for and list, for a closure (what the detectors will ask about).
// `site_packages`: the Python environment's folders, whose pip wheels' folders (a family's wheel_places)
// may hold a missing DLL.
env::InventoryRequest inventory_request(const graph::Closure& closure, const env::Environment& environment,
                                        const RuleData& rules, const std::vector<std::string>& site_packages = {});

// A value a detector gives a finding's templates. Text and lists come from files, folder names, the
// registry or the command line: a fix command gets them as PowerShell single-quoted literals (a list as
// 'a', 'b'), a comment or a message with their control characters escaped (fix_template.hpp). Code is
// PowerShell that dlldoctor's rules wrote (a family's install command): it goes in as it is.
class Value {
 public:
  Value() = default;
  Value(std::string text) : items_{std::move(text)} {}  // NOLINT(google-explicit-constructor)
  Value(const char* text) : items_{text} {}             // NOLINT(google-explicit-constructor)
  static Value list(std::vector<std::string> items);
  static Value code(std::string powershell);
  // A folder as a Python string literal (os.add_dll_directory): code, and in a fix line a host path with
  // no Windows path becomes its placeholder, as in PowerShell.
  static Value python_path(const std::string& path);

  // For a message or a comment: the items joined with ", ", control characters as \xNN.
  std::string shown() const;
  // For a command: the literal(s), a host path with no Windows path as a placeholder (command_paths.hpp),
  // or the code.
  std::string in_command(const CommandPaths& paths, std::vector<Placeholder>* used) const;
  // The text as it came, for a detector that combines values.
  const std::vector<std::string>& items() const { return items_; }
  bool is_code() const { return code_; }

 private:
  std::vector<std::string> items_;
  bool list_ = false;
  bool code_ = false;
  std::optional<std::string> python_path_;
};

using Vars = std::map<std::string, Value>;

// Collects findings, filling the templates of rules/findings.toml.
class FindingSink {
 public:
  explicit FindingSink(const RuleData& rules, CommandPaths paths = {}) : rules_(rules), paths_(std::move(paths)) {}

  // `related`: the other modules of the closure the finding concerns, beside `module` (Finding::related).
  // The finding made, for its typed evidence (valid until the next emit); null when its rule is wrong.
  Finding* emit(const std::string& id, const std::string& variant, const std::string& module, const Vars& vars,
                nlohmann::ordered_json evidence, std::optional<Severity> severity = std::nullopt,
                std::vector<DllName> related = {});

  // How the error a finding explains (its rule's error.<variant>) is worded for its module: the closure
  // report's engine sets it; the scan's findings are about folders, not loads.
  using ErrorWording = std::function<void(const std::string& module, int code, Finding& finding)>;
  void set_error_wording(ErrorWording wording) { wording_ = std::move(wording); }
  // The closure whose modules the findings are about (Finding::modules, related): none for folder checks.
  void set_closure(const graph::Closure& closure) { closure_ = &closure; }

  RuleOutput take();

 private:
  const graph::Closure* closure_ = nullptr;
  // A message (every value shown) or a fix line (values placed by where they stand, fix_template.hpp).
  // `used` gets the placeholders a fix line writes.
  std::string fill(const std::string& text, const Vars& vars, const std::string& where, bool command,
                   std::vector<Placeholder>* used = nullptr);
  FixStep fill_step(const FindingRule::StepTemplate& step, const Vars& vars, const std::string& where);

  const RuleData& rules_;
  CommandPaths paths_;
  ErrorWording wording_;
  RuleOutput output_;
};

// Shared helpers for detectors.
std::string display_path(const std::optional<std::string>& windows, const std::string& host);
// The CUDA toolkit root whose DLL folder (one of [machine] toolkit_bins) `windows_folder` is: a root of
// [machine] toolkits, or one a toolkit variable (CUDA_PATH, CUDA_PATH_V12_4) names; none otherwise.
std::optional<std::string> toolkit_root(const MachinePlaces& places, const env::Environment& environment,
                                        const std::string& windows_folder);

// Detectors, one per kind of check.
void detect_missing_dlls(const RuleInput& input, FindingSink& sink);
void detect_unloadable(const RuleInput& input, FindingSink& sink);
void detect_shadowing(const RuleInput& input, FindingSink& sink);
void detect_path_defects(const RuleInput& input, FindingSink& sink);
void detect_missing_exports(const RuleInput& input, FindingSink& sink);
void detect_versions(const RuleInput& input, FindingSink& sink);
void detect_names_in_data(const RuleInput& input, FindingSink& sink);
void detect_shared_files(const RuleInput& input, FindingSink& sink);
void detect_mixed_generations(const std::vector<env::FolderContents>& folders, const RuleData& rules,
                              FindingSink& sink);
void detect_incomplete_sets(const std::vector<env::FolderContents>& folders, const RuleData& rules, FindingSink& sink);

}  // namespace dlldoctor::rules
