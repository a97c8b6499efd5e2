// Section 5.5, the PATH itself: entries cut short, quoted, missing or repeated, and a PATH long enough to be cut.
#include <map>

#include "rules/detectors/common.hpp"

namespace dlldoctor::rules {
namespace {

// The fixes edit the registry PATH that lists the entry, one whole entry at a time: a text replace would
// also change the longer entries a cut-short one is the start of.
Vars entry_vars(const env::Environment& environment, const std::string& entry) {
  const std::string scope = detail::registry_path_scope(environment, entry);
  return {{"entry", entry},
          {"scope_name", scope == "machine" ? "Machine" : "User"},
          {"scope_note",
           Value::code(scope == "machine" ? "   # as administrator"
                       : scope == "user"  ? ""
                                         : "   # or 'Machine' (as administrator) if the entry is in the system PATH")}};
}

}  // namespace

void detect_path_defects(const RuleInput& input, FindingSink& sink) {
  const auto& path = input.environment.path;
  std::size_t length = 0;
  for (const auto& entry : path) length += entry.text.size() + 1;
  if (length > 0) --length;
  // setx keeps 1024 characters of a value: a longer PATH is one `setx PATH ...` away from losing its end.
  constexpr std::size_t kSetxLimit = 1024;
  if (length > kSetxLimit) {
    sink.emit("path-too-long", "default", "",
              {{"length", std::to_string(length)}, {"limit", std::to_string(kSetxLimit)}},
              {{"path_length", length}, {"entries", path.size()}});
  }
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const env::PathEntry& entry = path[i];
    detail::Json evidence = {{"entry", entry.text}, {"index", i}, {"path_length", length}};
    if (!entry.text.empty() && entry.text.front() == '"') {
      std::string unquoted = entry.text;
      unquoted.erase(0, 1);
      if (!unquoted.empty() && unquoted.back() == '"') unquoted.pop_back();
      Vars vars = entry_vars(input.environment, entry.text);
      vars["unquoted"] = unquoted;
      sink.emit("path-quoted-entry", "default", "", vars, evidence);
      continue;
    }
    if (entry.text.empty()) continue;
    if (!entry.folder.exists && !entry.folder.host.empty()) {
      if (entry.completion) {
        evidence["real"] = detail::shown(*entry.completion);
        // setx cuts the whole value at 1024 characters: then the cut entry is the last one.
        const bool setx = i + 1 == path.size() && length >= 1000;
        Vars vars = entry_vars(input.environment, entry.text);
        vars["real"] = detail::shown(*entry.completion);
        vars["length"] = std::to_string(length);
        sink.emit("path-truncated", setx ? "setx" : "default", "", vars, evidence);
      } else {
        sink.emit("path-missing-entry", "default", "", entry_vars(input.environment, entry.text), evidence);
      }
      continue;
    }
    if (entry.folder.exists) ++seen[ascii_lower(entry.folder.host)];
  }
  for (const auto& entry : path) {
    if (!entry.folder.exists) continue;
    auto it = seen.find(ascii_lower(entry.folder.host));
    if (it == seen.end() || it->second < 2) continue;
    Vars vars = entry_vars(input.environment, entry.text);
    vars["count"] = std::to_string(it->second);
    sink.emit("path-duplicate-entry", "default", "", vars, {{"entry", entry.text}, {"count", it->second}});
    seen.erase(it);
  }
}

}  // namespace dlldoctor::rules
