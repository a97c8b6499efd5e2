#pragma once
// Knowledge kept as data in rules/*.toml (read with toml++): DLL families and what they load at run time.
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/result.hpp"

namespace dlldoctor::rules {

struct Family {
  std::string id;    // "cudnn9"
  std::string name;  // "cuDNN 9"
  std::vector<std::string> main;           // lower-case DLL names whose presence brings the family in
  std::vector<std::string> members;        // every lower-case DLL name of the family (main included)
  std::vector<std::string> runtime_loads;  // loaded by bare name at run time by a main DLL
  std::string source;                      // file:line of the definition
};

struct RuleData {
  std::vector<Family> families;
  std::vector<std::string> files;  // the rule files read, in order

  const Family* family_of(const std::string& lower_name) const;
};

// Reads every *.toml file of each folder, in name order, folders in the order given. A malformed file
// is an error naming the file and line.
Result<RuleData> load_rules(const std::vector<std::string>& folders);

// Where the rules shipped with dlldoctor are: next to the binary (rules/, ../share/dlldoctor/rules) or,
// in a build tree, the source folder.
std::optional<std::string> default_rules_folder(const std::string& argv0);

}  // namespace dlldoctor::rules
