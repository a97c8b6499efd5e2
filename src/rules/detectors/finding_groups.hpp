#pragma once
// Findings of one id and one cause about several things are one finding that lists them all: 26 missing
// PATH entries, the nine x86 DLLs of one folder that come first, or the DLLs one program needs and no
// disk has are each one thing to mend, with one command (internal to src/rules/detectors).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rules/detectors/common.hpp"

namespace dlldoctor::rules::detail {

class FindingGroups {
 public:
  // A var each finding has ("dll") and the name of the list of them all that a grouped finding gets
  // ("dlls"); in a grouped finding both name the list (shown joined by ", ", in a command as 'a', 'b'),
  // and {count} is their number.
  struct Listed {
    std::string each, all;
  };

  FindingGroups(std::string id, std::vector<Listed> listed) : id_(std::move(id)), listed_(std::move(listed)) {}

  // Findings with the same cause, variant and severity are grouped. Evidence of a group is the first
  // finding's, with every listed value under its list name and each finding's own under "each".
  // `related`: the other modules each finding concerns (FindingSink::emit); a group concerns them all.
  void add(const std::string& cause, const std::string& variant, const std::string& module, Vars vars, Json evidence,
           std::optional<Severity> severity = std::nullopt, const std::vector<DllName>& related = {});

  // One finding per group, in the order the groups began, with the lists (of one item for a single
  // finding); several are the variant "several" (or "<variant>_several"), whose templates fall back to
  // the variant's own.
  void emit(FindingSink& sink);

 private:
  struct Group {
    std::string cause, variant, module;
    std::optional<Severity> severity;
    Vars vars;
    Json evidence;
    std::vector<DllName> related;
    std::vector<Vars> each_vars;
    Json each = Json::array();
  };

  std::string id_;
  std::vector<Listed> listed_;
  std::vector<Group> groups_;
};

}  // namespace dlldoctor::rules::detail
