#pragma once
// What the rule engine concludes: one failure mode met by one module, with the evidence that shows it and
// the commands that fix it. Writers only format findings.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlldoctor::rules {

enum class Severity { Error, Warning, Info };
std::string_view severity_name(Severity severity);

// One change to the machine that may mend a finding, as data the planner can try on an overlay of the file
// system before it proposes it (plan/planner.hpp): a step of rules/findings.toml's steps.<variant>, its
// fields filled with the detector's values (paths spelled as the report shows them).
struct FixStep {
  std::string kind;  // a plan::StepKind name: "rename", "copy", "install", "path_add", ...
  std::map<std::string, std::vector<std::string>> fields;  // "path", "from", "to", "entry", "names", ...
  // The field's first value, or "" (a field is one value except path, from, names and entry).
  std::string value(const std::string& field) const;
  const std::vector<std::string>& values(const std::string& field) const;
};

// The kinds of step and the fields each takes (the others are rejected when the rules are read).
//   rename       path: files to keep as <name>.bak (the user's write-up's habit)
//   copy         from: files; to: the folder they go to
//   install      names: DLLs a download or an installer brings; to: where they land; version; what: from
//                where (prose); command: the rules' own install line (only code values, never a file's bytes);
//                copy_from: files in a folder only the user knows ('<the unpacked zip>\bin\*.dll')
//   path_add     entry: a folder; position: first | last; scope: process | user | machine
//   path_remove  entry: PATH entries as written; scope
//   path_replace entry: one PATH entry as written; with: the folder that takes its place; scope
//   unblock      path: files whose Mark of the Web goes
//   new_terminal (none): a process started now, with the registry's PATH
//   by_hand      what: a change only a person can make (code, an installer's dialog); never checked
const std::vector<std::string>* fix_step_fields(const std::string& kind);

// A folder of this machine with no Windows path, as a fix command names it (rules/command_paths.hpp).
struct Placeholder {
  std::string name;  // "<folder of app.exe>", "<...\cuda\bin>"
  std::string host;  // the folder of this machine it stands for
};

// A loader error as Windows words it (rules/errors.toml).
struct LoaderErrorText {
  int code = 0;      // 126
  std::string name;  // "ERROR_MOD_NOT_FOUND"
  std::string text;  // "The specified module could not be found."
};

// Which finding a finding is, across the diagnoses a plan runs (a step proposed after an earlier one mends
// the finding of that id about that module in the report): its id and the module it is about.
struct FindingKey {
  std::string id;
  std::string module;
  bool operator==(const FindingKey& other) const { return id == other.id && module == other.module; }
};
// "[older-copy-wins] (cudnn64_9.dll)": how a report names a finding.
std::string finding_label(const FindingKey& key);

struct Finding {
  std::string id;            // what was detected: "not-on-search-path", "older-copy-wins", ...
  std::string title;         // what was found, in a few words: "A PATH entry does not exist"
  std::string failure_mode;  // the failure mode it maps to: "5.1" ... "5.5" (seed), or a mode of its own
  Severity severity = Severity::Error;
  std::string module;  // the DLL (or file) it is about; empty when about the environment
  // The modules of the closure it is about, by their place in Closure::modules: those that are `module`
  // (by name), and others it concerns too, as its detector says (every release of a mix). Empty for a
  // finding about the environment or a folder. The stack and the pictures follow these.
  std::vector<std::size_t> modules;
  std::vector<std::size_t> related;
  std::string message;  // one or two sentences, paths and versions included
  // A finding about a folder that mixes releases or generations of a family (the scan report lists them):
  // the folder, and what it mixes. Its JSON evidence begins with these, as "folder", "host_folder", "mixes".
  struct FolderMix {
    std::string folder;       // as shown: its Windows path when known
    std::string host_folder;  // on this machine
    std::string mixes;        // "cuDNN 8 and cuDNN 9", "cuDNN 9 versions 9.0.0.312 and 9.1.0.70"
  };
  std::optional<FolderMix> folder_mix;
  nlohmann::ordered_json evidence = nlohmann::ordered_json::object();  // the rest: paths, versions, steps
  std::vector<std::string> fix;  // commands to type (PowerShell unless said otherwise)
  // The placeholders the fix writes, each once: a report explains them once for all its commands.
  std::vector<Placeholder> placeholders;
  std::vector<FixStep> steps;  // alternatives the planner may try, each one change; empty: none it can check
  // The error the user sees: the loader's, and what the program or the framework that made the call
  // prints for it, as they print it (a user searches the report for the line they pasted).
  std::optional<LoaderErrorText> error;
  std::vector<std::string> says;

  FindingKey key() const { return {id, module}; }
};

}  // namespace dlldoctor::rules
