#pragma once
// Knowledge kept as data in rules/*.toml (read with toml++): DLL families, failure modes, what each
// detector reports (message and fix templates), the driver table, and load recipes (recipe.hpp). docs/rules-format.md
// describes it.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/result.hpp"
#include "dlldoctor/core/version_range.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/rules/finding.hpp"
#include "dlldoctor/rules/recipe.hpp"

namespace dlldoctor::rules {

// Run-time loads that only some releases of a main DLL make (cuDNN 9.20 added siblings; cuDNN 8.3-8.9 load
// zlibwapi): the range is matched against the main DLL's file version.
struct VersionedLoads {
  VersionRange versions;
  std::vector<DllName> loads;
  std::string why;  // what the user sees when they are missing, and why they may be (for missing-sibling)
};

struct Family {
  std::string id;                               // "cudnn9"
  std::string name;                             // "cuDNN 9"
  std::string kind;                             // "cudnn", "cuda", "msvc", "zlib", "driver", "library"
  std::string generation;                       // "9", "12": the major version that names the DLLs
  std::vector<DllName> main;                    // DLLs whose presence brings the family in
  std::vector<DllName> members;                 // every DLL of the family (main included)
  std::vector<DllName> runtime_loads;           // loaded by bare name at run time by a main DLL (any family's)
  std::vector<VersionedLoads> versioned_loads;  // more of them, made only by the main DLL's releases in a range
  std::vector<std::string> install_places;      // Windows folder patterns ('*' = one name) to look for copies
  std::vector<std::string> wheel_places;        // pip wheels' folders, relative to a site-packages folder
  std::string install;                          // the command (or hint) that installs it
  std::string redist_folder;                    // msvc: its folder in Visual Studio's VC\Redist\MSVC\<version>\x64
  // The release a plan installs when no copy of the family is on the machine, and NVIDIA's archive for it:
  // the install step's stand-ins carry that version (and so ask for what that release loads).
  std::string release;
  std::string archive;
  bool same_version = false;  // all members must carry one file version
  // "cudart": CUDA version in the last part (12040 = 12.4); "nvidia_driver": the NVIDIA driver's number
  // (nvcuda.dll 31.0.15.5244 is 552.44), which the CUDA releases' minimum drivers are compared with.
  std::string version_format = "plain";
  // What the main DLL prints when a run-time load fails, by loader error ("126", "default"): cuDNN's
  // "Could not locate {dll}. Please make sure it is in your library path!"
  std::map<std::string, std::string> runtime_says;
  std::string source;  // file:line of the definition
};

// A loader error as Windows words it (rules/errors.toml): what FormatMessage says for the code, what a
// program's start-up shows for it, and what MSVC's delay-load helper raises. The texts users paste.
struct LoaderError {
  int code = 0;                // 126
  std::string name;            // "ERROR_MOD_NOT_FOUND"
  std::string text;            // "The specified module could not be found."
  std::string startup_status;  // "0xC0000135"
  std::string startup;  // the start-up dialog: "The code execution cannot proceed because {dll} was not found. ..."
  std::string delay;    // a delay load's failure: "... exception 0xC06D007E ..."
  std::string source;
};

// What is known of one DLL, whoever ships it ([[library]]): that Windows itself has a copy in System32, and
// what a module built against a newer copy meets when an older one loads.
struct LibraryNote {
  DllName dll;
  std::string windows_component;  // a copy in System32 (or SysWOW64) is Windows' own: "Windows ML"
  // {chosen_version}, {newer_version}, {chosen_minor}, {newer_minor}: the copy that loads and the newer one.
  std::string older;
  std::string source;
};

struct FailureMode {
  std::string id;
  std::string seed_section;  // "5.1" for the modes of the user's write-up, empty otherwise
  std::string title;
  std::string explanation;
};

struct FindingRule {
  std::string id;
  std::string title;
  std::string failure_mode;
  Severity severity = Severity::Error;
  std::map<std::string, std::string> messages;            // variant -> template
  std::map<std::string, std::vector<std::string>> fixes;  // variant -> command templates
  // variant -> the changes the planner may try (steps.<variant>): a kind and its fields' templates.
  struct StepTemplate {
    std::string kind;
    std::map<std::string, std::string> fields;
  };
  std::map<std::string, std::vector<StepTemplate>> steps;
  // variant -> the loader error the finding explains (126, 127, 193, 1114): its words go with the finding.
  std::map<std::string, int> errors;
  // variant -> what the program prints for it when that is no loader error ("CUDA driver version is
  // insufficient for CUDA runtime version"); a template of the finding's values.
  std::map<std::string, std::string> says;
  std::string source;
};

// The findings' rules. Those of the compiled rules stay packed until a run first asks for one: a run
// raises a few of about 70, and making every one of them into strings and maps was a tenth of a closure
// report's instructions (docs/PERFORMANCE.md). Read safely from several threads (the scan's workers).
class FindingRules {
 public:
  // Makes a rule of its packed bytes, which were checked when they were read: it cannot fail.
  using Unpack = std::function<FindingRule(std::string_view packed)>;

  FindingRules();
  FindingRules(const FindingRules& other);
  FindingRules& operator=(const FindingRules& other);
  FindingRules(FindingRules&&) noexcept;
  FindingRules& operator=(FindingRules&&) noexcept;
  ~FindingRules();

  void push_back(FindingRule rule);
  // A rule named `id`, made of `packed` by `unpack` when first asked for; `packed` must outlive the list.
  void push_back_packed(std::string id, std::string_view packed, std::shared_ptr<const Unpack> unpack);
  void append(FindingRules&& more);

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const FindingRule& operator[](std::size_t index) const;
  const FindingRule* find(std::string_view id) const;

 private:
  struct Entry;
  std::vector<std::unique_ptr<Entry>> entries_;  // each where it is: a rule given out stays valid
};

struct DriverMinimum {
  int cuda_major = 0;
  int cuda_minor = 0;
  std::string driver;  // "551.61"
};

// The oldest driver a runtime of CUDA major.x starts on at all (minor version compatibility): between it
// and the release's own minimum, the program runs but newer PTX and newer calls fail.
struct DriverFloor {
  int cuda_major = 0;
  std::string driver;  // "527.41"
};

// Which rules a run used (--version and every report's environment section say it): the ones built into
// the binary, or a rules folder beside it that overrides them, and the --rules folders that extend them.
struct RulesOrigin {
  std::string builtin_version;        // the version of the rules built into the binary
  std::optional<std::string> folder;  // the shipped rules folder read instead of the built-in rules
  std::vector<std::string> edited;    // its files that differ from the built-in ones, or that they lack
  std::vector<std::string> extra;     // --rules folders, in order

  // "built-in 2cf07b189291", "folder (the built-in 2cf07b189291, unchanged)", ..., without the folder
  std::string summary() const;
  // summary(), then ": <folder>" when a folder was read (last, so that a long one can go on a line alone)
  std::string text() const;
};

// Where `dlldoctor check` looks for what a machine has installed, besides the PATH and the environment
// variables ([machine], rules/machine.toml): Windows path patterns, '*' matching one name. Later files add
// places to the earlier ones' lists.
struct MachinePlaces {
  std::vector<std::string> pythons;            // python.exe files: python.org's installs, the Store's packages
  std::vector<std::string> conda;              // conda installs; their envs\* are looked at too
  std::vector<std::string> conda_dll_folders;  // a conda prefix's DLL folders, relative: Library\bin
  std::vector<std::string> toolkits;           // CUDA toolkits' root folders
  std::vector<std::string> toolkit_variables;  // variables that name a toolkit's root: CUDA_PATH, CUDA_PATH_V*_*
  std::vector<std::string> toolkit_bins;       // a toolkit's DLL folder under its root, first found wins
  std::vector<std::string> toolkit_keys;       // HKLM\SOFTWARE\<key>\*\<value>: each toolkit's root
  std::vector<std::string> driver_store;       // the display driver's packages (DriverStore\FileRepository)
  std::vector<std::string> driver_store_dlls;  // the files of a package that say its driver: nvcuda64.dll
  std::vector<std::string> cuda_in_path;       // regexes whose first group is a cuDNN copy's CUDA major
  // A package's root above a DLL that needs a missing one: the folder holding one of package_markers, or the
  // folder right inside one of package_boundaries; package_dll_folders are where packages keep their DLLs.
  std::vector<std::string> package_markers;      // file names: package.json
  std::vector<std::string> package_boundaries;   // folder names: site-packages, node_modules
  std::vector<std::string> package_dll_folders;  // relative to a package's root: lib, build\Release, ...
  std::string source;                            // file:line of the first [machine] table
};

struct RuleData {
  std::vector<Family> families;
  std::vector<FailureMode> failure_modes;
  FindingRules findings;
  std::vector<DriverMinimum> driver_minimums;  // ascending by CUDA version
  std::vector<DriverFloor> driver_floors;      // one per CUDA major at most
  std::vector<Recipe> recipes;
  std::vector<LoadProfile> profiles;
  std::vector<graph::DelayLoadHook> delay_load_hooks;
  std::vector<graph::LazyLoad> lazy_loads;
  std::vector<LoaderError> loader_errors;
  std::vector<LibraryNote> libraries;
  MachinePlaces machine;
  std::vector<std::string> files;  // the rule files read, in order
  RulesOrigin origin;              // which rules a run read (session/shipped_rules.hpp)

  const Family* family_of(const DllName& dll) const;
  const Family* family(const std::string& id) const;
  const FailureMode* failure_mode(const std::string& id) const;
  const FindingRule* finding(const std::string& id) const;
  const Recipe* recipe(const std::string& id) const;
  const LoadProfile* profile(const std::string& id) const;
  const LoaderError* loader_error(int code) const;
  const LibraryNote* library(const DllName& dll) const;
};

// The environment variables the recipes read ({env:NAME|default}), as patterns: a placeholder inside a
// name is '*' (CUDA_PATH_V{cuda_major}_{cuda_minor} gives CUDA_PATH_V*_*). A snapshot keeps only these.
std::vector<std::string> variables_read(const RuleData& rules);

// One rule file of a folder: its path as the rules' sources name it (the folder joined with its file name),
// its file name and its text.
struct RuleFile {
  std::string path;
  std::string name;
  std::string text;
};

// The *.toml files of a folder, in name order, without their texts.
Result<std::vector<RuleFile>> rule_file_list(const std::string& folder);

// The *.toml files of a folder, in name order, with their texts.
Result<std::vector<RuleFile>> rule_files(const std::string& folder);

// What those files define, read from their TOML, without the checks across files of load_rules.
Result<RuleData> parse_rule_files(const std::vector<RuleFile>& files);

// Reads every *.toml file of each folder, in name order, folders in the order given; later files add to
// (and may not redefine) what earlier ones defined. A malformed file is an error naming file and line.
Result<RuleData> load_rules(const std::vector<std::string>& folders);

// `first` (rules read already: the shipped ones), then every *.toml file of each folder as load_rules
// reads them, with the checks across all of them.
Result<RuleData> add_rule_folders(RuleData first, const std::vector<std::string>& folders);

// The files of the disk that reading `rules` opened.
std::vector<std::string> rule_files_read(const RuleData& rules);

}  // namespace dlldoctor::rules
