// Section 5.5, the PATH itself: entries cut short, quoted, missing or repeated, and a PATH long enough to be cut.
#include <map>
#include <tuple>

#include "rules/detectors/finding_groups.hpp"

namespace dlldoctor::rules {
namespace {

// setx writes at most 1024 characters of a value (DOMAIN.md §5).
constexpr std::size_t kSetxLimit = 1024;

// A PATH value of exactly setx's limit was almost surely cut by it: its last entry lost its end (whether
// or not what is left happens to name a folder) and every entry after it is gone.
void setx_cut(const env::Environment& environment, const std::string& value, const std::string& where,
              const char* scope_name, FindingSink& sink) {
  if (value.size() != kSetxLimit) return;
  const std::string last = split_path_list(value).back();
  Vars vars = detail::path_entry_vars(environment, last);
  if (scope_name) {
    vars["scope_name"] = scope_name;
    vars["scope_note"] = Value::code(std::string(scope_name) == "Machine" ? "   # as administrator" : "");
  }
  vars["where"] = where;
  vars["length"] = std::to_string(kSetxLimit);
  sink.emit("path-truncated", "setx_exact", "", vars,
            {{"entry", last}, {"path_length", value.size()}, {"where", where}});
}

std::string joined(const std::vector<env::PathEntry>& path) {
  std::string value;
  for (std::size_t i = 0; i < path.size(); ++i) value += (i ? ";" : "") + path[i].text;
  return value;
}

}  // namespace

void detect_path_defects(const RuleInput& input, FindingSink& sink) {
  const auto& path = input.environment.path;
  const std::string value = joined(path);
  const std::size_t length = value.size();
  // A longer PATH is one `setx PATH ...` away from losing its end.
  if (length > kSetxLimit) {
    sink.emit("path-too-long", "default", "",
              {{"length", std::to_string(length)}, {"limit", std::to_string(kSetxLimit)}},
              {{"path_length", length}, {"entries", path.size()}});
  }
  const bool setx_exact = length == kSetxLimit;
  if (setx_exact) setx_cut(input.environment, value, "This process's PATH", nullptr, sink);
  // The registry's values, when a process started now would get a cut one (and this one has not).
  const std::tuple<const std::optional<std::string>*, const char*, const char*> registry[] = {
      {&input.environment.user_path, "The user PATH in the registry", "User"},
      {&input.environment.machine_path, "The machine PATH in the registry", "Machine"}};
  for (const auto& [stored, where, scope] : registry) {
    if (*stored && **stored != value) setx_cut(input.environment, **stored, where, scope, sink);
  }
  // Missing and repeated entries are grouped per registry scope, where one command mends them all.
  detail::FindingGroups missing("path-missing-entry", {{"entry", "entries"}});
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const env::PathEntry& entry = path[i];
    detail::Json evidence = {{"entry", entry.text}, {"index", i}, {"path_length", length}};
    if (!entry.text.empty() && entry.text.front() == '"') {
      std::string unquoted = entry.text;
      unquoted.erase(0, 1);
      if (!unquoted.empty() && unquoted.back() == '"') unquoted.pop_back();
      Vars vars = detail::path_entry_vars(input.environment, entry.text);
      vars["unquoted"] = env::windows_entry_text(input.environment, unquoted);
      sink.emit("path-quoted-entry", "default", "", vars, evidence);
      continue;
    }
    if (entry.text.empty()) continue;
    const bool last = i + 1 == path.size();
    if (!entry.folder.exists && !entry.folder.host.empty()) {
      if (entry.completion) {
        evidence["real"] = detail::shown(*entry.completion);
        // setx cuts the whole value at 1024 characters: then the cut entry is the last one (already said
        // above when the value is exactly that long).
        if (setx_exact && last) continue;
        const bool setx = last && length >= 1000;
        Vars vars = detail::path_entry_vars(input.environment, entry.text);
        vars["real"] = detail::shown(*entry.completion);
        vars["length"] = std::to_string(length);
        sink.emit("path-truncated", setx ? "setx" : "default", "", vars, evidence);
      } else if (!(setx_exact && last)) {
        Vars vars = detail::path_entry_vars(input.environment, entry.text);
        const std::string scope = vars.at("scope_name").shown();
        missing.add(scope, "default", "", std::move(vars), evidence);
      }
      continue;
    }
    if (entry.folder.exists) ++seen[ascii_lower(entry.folder.host)];
  }
  missing.emit(sink);
  detail::FindingGroups repeated("path-duplicate-entry", {{"entry", "entries"}});
  for (const auto& entry : path) {
    if (!entry.folder.exists) continue;
    auto it = seen.find(ascii_lower(entry.folder.host));
    if (it == seen.end() || it->second < 2) continue;
    Vars vars = detail::path_entry_vars(input.environment, entry.text);
    vars["times"] = std::to_string(it->second);
    const std::string scope = vars.at("scope_name").shown();
    repeated.add(scope, "default", "", std::move(vars), {{"entry", entry.text}, {"count", it->second}});
    seen.erase(it);
  }
  repeated.emit(sink);
}

}  // namespace dlldoctor::rules
