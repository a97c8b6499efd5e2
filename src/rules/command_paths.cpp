#include "dlldoctor/rules/command_paths.hpp"

#include <algorithm>
#include <unordered_map>

#include "core/utf8.hpp"
#include "dlldoctor/core/paths.hpp"

namespace dlldoctor::rules {

namespace {

bool is_host_only(const std::string& path) { return !path.empty() && path.front() == '/'; }

std::vector<std::string> parts_of(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start < path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::string tail(const std::vector<std::string>& parts, std::size_t count) {
  std::string out;
  for (std::size_t i = parts.size() - count; i < parts.size(); ++i) out += "\\" + parts[i];
  return out;
}

// A value with an extension names a file; anything else (a PATH entry, a copy's target) a folder.
bool names_file(const std::string& path) {
  const std::string name = base_name(path);
  const auto dot = name.rfind('.');
  return dot != std::string::npos && dot > 0 && name.size() - dot <= 5;
}

}  // namespace

CommandPaths::CommandPaths(const std::string& program, std::vector<std::string> folders) {
  if (is_host_only(program)) {
    program_folder_ = folder_of(program);
    program_name_ = base_name(program);
  }
  std::sort(folders.begin(), folders.end());
  folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
  for (const std::string& folder : folders) {
    if (!is_host_only(folder) || (!program_folder_.empty() && env::rebase_path(folder, program_folder_, "<>")))
      continue;
    // "/" (a container's current folder) would hold every path and name none of them.
    std::vector<std::string> parts = parts_of(folder);
    if (!parts.empty()) folders_.push_back({folder, std::move(parts), ""});
  }
  // Every name at once, so that each is the shortest tail (two parts at least) no other folder of the
  // run shares: the tails of one length counted at a time (comparing each folder with every other was
  // most of a scan's time, with 16,000 folders).
  std::vector<Named*> pending;
  for (Named& named : folders_) {
    if (named.parts.size() <= 2) {
      named.name = "<..." + tail(named.parts, named.parts.size()) + ">";
    } else {
      pending.push_back(&named);
    }
  }
  for (std::size_t count = 2; !pending.empty(); ++count) {
    std::unordered_map<std::string, std::size_t> ending;  // a tail of `count` parts -> folders it ends
    for (const Named& named : folders_) {
      if (named.parts.size() >= count) ++ending[tail(named.parts, count)];
    }
    std::vector<Named*> longer;
    for (Named* named : pending) {
      const std::string end = tail(named->parts, count);
      if (ending[end] < 2) {
        named->name = "<..." + end + ">";
      } else if (count + 1 == named->parts.size()) {
        named->name = "<..." + tail(named->parts, named->parts.size()) + ">";
      } else {
        longer.push_back(named);
      }
    }
    pending = std::move(longer);
  }
}

std::string CommandPaths::name_for(const std::string& folder, const std::vector<std::string>& parts) const {
  if (parts.empty()) return "<\\>";
  std::size_t count = std::min<std::size_t>(2, parts.size());
  for (; count < parts.size(); ++count) {
    const bool shared = std::any_of(folders_.begin(), folders_.end(), [&](const Named& other) {
      return other.host != folder && other.parts.size() >= count && tail(other.parts, count) == tail(parts, count);
    });
    if (!shared) break;
  }
  return "<..." + tail(parts, count) + ">";
}

CommandPaths CommandPaths::of(const env::Environment& environment, const graph::Closure& closure,
                              const env::Inventory& inventory) {
  std::vector<std::string> folders{environment.cwd.host};
  for (const env::PathEntry& entry : environment.path) folders.push_back(entry.folder.host);
  std::string program;
  for (const graph::Module& module : closure.modules) {
    if (module.is_root && module.resolution.path && program.empty()) program = *module.resolution.path;
    if (module.resolution.path) folders.push_back(folder_of(*module.resolution.path));
    for (const resolve::Candidate& candidate : module.resolution.candidates)
      folders.push_back(folder_of(candidate.path));
  }
  for (const env::DllCopy& copy : inventory.copies) folders.push_back(copy.folder);
  return CommandPaths(program, std::move(folders));
}

std::string CommandPaths::in_command(const std::string& text, std::vector<Placeholder>* used) const {
  // A PATH entry written with quotes ("C:\x" on Windows) keeps them around its placeholder.
  if (text.size() > 2 && text.front() == '"' && text.back() == '"')
    return '"' + in_command(text.substr(1, text.size() - 2), used) + '"';
  if (!is_host_only(text)) return text;
  std::string folder, name;
  std::optional<std::string> out;
  if (!program_folder_.empty()) {
    folder = program_folder_;
    name = "<folder of " + program_name_ + ">";
    out = env::rebase_path(text, folder, name);
  }
  // The longest listed folder that holds it.
  for (const Named& named : folders_) {
    if (out && folder.size() >= named.host.size()) continue;
    if (auto rebased = env::rebase_path(text, named.host, named.name)) {
      folder = named.host;
      name = named.name;
      out = std::move(rebased);
    }
  }
  if (!out) {
    folder = names_file(text) ? folder_of(text) : text;
    name = name_for(folder, parts_of(folder));
    out = env::rebase_path(text, folder, name);
  }
  if (used) used->push_back({name, folder});
  return out.value_or(text);
}

std::vector<Placeholder> first_uses(const std::vector<Placeholder>& used) {
  std::vector<Placeholder> once;
  for (const Placeholder& placeholder : used) {
    const bool seen = std::any_of(once.begin(), once.end(), [&](const Placeholder& other) {
      return other.name == placeholder.name && other.host == placeholder.host;
    });
    if (!seen) once.push_back(placeholder);
  }
  return once;
}

}  // namespace dlldoctor::rules
