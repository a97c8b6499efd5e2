// Section 5.5 in folders by themselves: a folder that holds two generations of a kind (cuDNN 8 and 9),
// or one family's DLLs of two releases, whatever process loads from it. The closure report checks the
// generations of the folders on its search path (the releases that one process loads are
// mixed-family-versions' own check); --scan checks both in every folder it walked.
#include <algorithm>
#include <map>
#include <set>

#include "rules/detectors/common.hpp"

namespace dlldoctor::rules {
namespace {

// "cudnn*64_8.dll" for cuDNN 8: the common start and end of the family's names.
std::string name_pattern(const Family& family) {
  std::string prefix = family.members.front().key(), suffix = family.members.front().key();
  for (const DllName& member : family.members) {
    const std::string& name = member.key();
    std::size_t p = 0;
    while (p < prefix.size() && p < name.size() && prefix[p] == name[p]) ++p;
    prefix.resize(p);
    std::size_t s = 0;
    while (s < suffix.size() && s < name.size() && suffix[suffix.size() - 1 - s] == name[name.size() - 1 - s]) ++s;
    suffix = suffix.substr(suffix.size() - s);
  }
  return prefix + "*" + suffix;
}

}  // namespace

void detect_mixed_generations(const std::vector<env::FolderContents>& folders, const RuleData& rules,
                              FindingSink& sink) {
  for (const env::FolderContents& folder : folders) {
    std::map<std::string, std::set<const Family*>> by_kind;
    for (const env::DllCopy& dll : folder.dlls) {
      if (const Family* family = rules.family_of(DllName::of_file(dll.name))) {
        if (family->kind == "cudnn") by_kind[family->kind].insert(family);
      }
    }
    for (const auto& [kind, families] : by_kind) {
      if (families.size() < 2) continue;
      std::vector<const Family*> sorted(families.begin(), families.end());
      // Generations are numbers written as text: "10" comes after "9".
      std::sort(sorted.begin(), sorted.end(), [](const Family* a, const Family* b) {
        return a->generation.size() != b->generation.size() ? a->generation.size() < b->generation.size()
                                                            : a->generation < b->generation;
      });
      std::string names;
      for (const Family* f : sorted) names += (names.empty() ? "" : " and ") + f->name;
      const Family& older = *sorted.front();
      const std::string shown_folder = detail::shown(folder.folder);
      detail::Json dlls = detail::Json::array();
      std::vector<DllName> mixed;
      for (const env::DllCopy& dll : folder.dlls) {
        dlls.push_back(detail::copy_json(dll));
        mixed.push_back(DllName::of_file(dll.name));
      }
      Finding* finding = sink.emit("mixed-generations-folder", "default", older.main.front().key(),
                                   {{"folder", shown_folder},
                                    {"families", names},
                                    {"moved_folder", detail::sibling_folder(shown_folder, older.id)},
                                    {"pattern", name_pattern(older)}},
                                   {{"dlls", std::move(dlls)}}, std::nullopt, std::move(mixed));
      if (finding) finding->folder_mix = Finding::FolderMix{shown_folder, folder.folder.host, names};
    }
  }
}

namespace {

// A family whose members carry one version (same_version: cuDNN), of two releases in one folder: any
// program that loads its copies from there mixes them. The release most members come from is taken as
// the intended one, as for a process.
void detect_mixed_releases(const std::vector<env::FolderContents>& folders, const RuleData& rules, FindingSink& sink) {
  for (const env::FolderContents& folder : folders) {
    std::map<const Family*, std::map<pe::Version, std::vector<const env::DllCopy*>>> by_family;
    for (const env::DllCopy& dll : folder.dlls) {
      const Family* family = rules.family_of(DllName::of_file(dll.name));
      if (family && family->same_version && dll.file_version) by_family[family][*dll.file_version].push_back(&dll);
    }
    // In the rules' order of families, so that two runs agree.
    for (const Family& family : rules.families) {
      const auto found = by_family.find(&family);
      if (found == by_family.end() || found->second.size() < 2) continue;
      const auto& by_version = found->second;
      const auto majority = std::max_element(by_version.begin(), by_version.end(), [](const auto& a, const auto& b) {
        return a.second.size() < b.second.size() || (a.second.size() == b.second.size() && a.first < b.first);
      });
      std::string versions, mixes;
      std::vector<std::string> renames, odd_names;
      detail::Json evidence = detail::Json::object();
      for (const auto& [version, copies] : by_version) {
        std::string names;
        for (std::size_t i = 0; i < copies.size() && i < 2; ++i)
          names += (i == 0 ? "" : (copies.size() == 2 ? " and " : ", ")) + copies[i]->name;
        if (copies.size() > 2) names += fmt::format(" and {} more", copies.size() - 2);
        versions += fmt::format("{}{} ({})", versions.empty() ? "" : ", ", version.to_string(), names);
        mixes += (mixes.empty() ? "" : " and ") + version.to_string();
        detail::Json list = detail::Json::array();
        for (const env::DllCopy* copy : copies) {
          list.push_back(detail::shown(*copy));
          if (version == majority->first) continue;
          renames.push_back(detail::shown(*copy));
          odd_names.push_back(copy->name);
        }
        evidence[version.to_string()] = std::move(list);
      }
      Finding* finding = sink.emit("mixed-family-versions", "folder", by_version.begin()->second.front()->name,
                                   {{"family", family.name},
                                    {"folder", detail::shown(folder.folder)},
                                    {"versions", versions},
                                    {"renames", Value::list(renames)},
                                    {"odd_folder", detail::shown(folder.folder)},
                                    {"odd_names", Value::list(odd_names)},
                                    {"majority_version", majority->first.to_string()}},
                                   {{"by_version", evidence}});
      if (finding)
        finding->folder_mix = Finding::FolderMix{detail::shown(folder.folder), folder.folder.host,
                                                 fmt::format("{} versions {}", family.name, mixes)};
    }
  }
}

}  // namespace

std::vector<env::FolderContents> scanned_folders(
    const std::vector<scan::ScannedFile>& files, const RuleData& rules,
    const std::function<std::optional<std::string>(const std::string&)>& windows_path) {
  std::map<std::string, env::FolderContents> by_folder;
  for (const scan::ScannedFile& file : files) {
    if (file.backup || !file.error.empty() || !rules.family_of(DllName::of_file(file.key))) continue;
    const std::string folder = folder_of(file.path);
    env::FolderContents& contents = by_folder[folder];
    contents.folder.host = folder;
    if (windows_path) contents.folder.windows = windows_path(folder);
    contents.folder.exists = true;
    env::DllCopy copy;
    copy.name = file.name;
    copy.path = file.path;
    if (windows_path) copy.windows_path = windows_path(file.path);
    copy.folder = folder;
    copy.machine = file.machine;
    copy.file_version = file.file_version;
    copy.source = {env::CopySource::Kind::Scan, {}};
    contents.dlls.push_back(std::move(copy));
  }
  std::vector<env::FolderContents> folders;
  for (auto& [path, contents] : by_folder) folders.push_back(std::move(contents));
  return folders;
}

RuleOutput run_folder_rules(const std::vector<env::FolderContents>& folders, const RuleData& rules) {
  // A folder with no Windows path is a placeholder in a command, named among the folders checked.
  std::vector<std::string> hosts;
  for (const env::FolderContents& folder : folders) hosts.push_back(folder.folder.host);
  FindingSink sink(rules, CommandPaths("", std::move(hosts)));
  detect_mixed_releases(folders, rules, sink);
  detect_mixed_generations(folders, rules, sink);
  detect_incomplete_sets(folders, rules, sink);
  return sink.take();
}

}  // namespace dlldoctor::rules
