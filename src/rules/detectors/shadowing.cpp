// Section 5.5: an older copy wins, one family's DLLs come from different releases, a folder on the search
// path mixes generations (folder_mixes.cpp); and the other side, copies that a full-path load makes
// irrelevant.
#include <algorithm>
#include <map>
#include <set>

#include "rules/detectors/finding_groups.hpp"

namespace dlldoctor::rules {
namespace {

void older_copy_wins(const RuleInput& input, FindingSink& sink) {
  // Grouped per pair of folders: an old release left in one folder loses every DLL of it at once.
  detail::FindingGroups groups(
      "older-copy-wins",
      {{"dll", "dlls"}, {"chosen", "chosen_paths"}, {"newer", "newer_paths"}, {"dll_versions", "dll_versions"}});
  for (const graph::Module& module : input.closure.modules) {
    const resolve::Candidate* winner = detail::chosen(module);
    if (!winner || winner->assumed || !winner->file_version || module.is_root) continue;
    if (winner->step == resolve::SearchStep::KnownDll) continue;  // the system copy is meant to win
    // An app-local MSVC runtime older than System32's is how programs ship; it is a problem only when
    // something in the process was built with a newer toolset, which msvc-runtime-too-old checks.
    if (const Family* family = input.rules.family_of(module.key); family && family->kind == "msvc") continue;
    // The winner lacks functions its importers need: missing-export (an error, naming the copy that has
    // them) already says the wrong copy wins; its version number says nothing more.
    if (!module.missing_exports.empty()) continue;
    const resolve::Candidate* newest = nullptr;
    for (const auto& c : module.resolution.candidates) {
      if (c.verdict != resolve::Verdict::Shadowed || !c.file_version || !c.machine || !winner->machine) continue;
      if (*c.machine != *winner->machine || !(*winner->file_version < *c.file_version)) continue;
      if (!newest || *newest->file_version < *c.file_version) newest = &c;
    }
    if (!newest) continue;
    const std::string chosen_path = detail::shown(*winner);
    // Moving a folder earlier on PATH helps only when both copies come from PATH.
    const bool both_on_path = winner->step == resolve::SearchStep::Path && newest->step == resolve::SearchStep::Path;
    const std::string newer_path = detail::shown(*newest);
    const std::string cause = folder_of(chosen_path) + '\n' + folder_of(newer_path);
    groups.add(cause, both_on_path ? "path_order" : "default", module.name,
               {{"dll", module.name},
                {"chosen", chosen_path},
                {"chosen_folder", folder_of(chosen_path)},
                {"backup", base_name(chosen_path) + ".bak"},
                {"chosen_version", winner->file_version->to_string()},
                {"chosen_step", std::string(resolve::step_label(winner->step))},
                {"newer", newer_path},
                {"newer_folder", folder_of(newer_path)},
                {"newer_version", newest->file_version->to_string()},
                {"newer_step", std::string(resolve::step_label(newest->step))},
                {"dll_versions", fmt::format("{} {} (newer: {})", module.name, winner->file_version->to_string(),
                                             newest->file_version->to_string())}},
               {{"chosen", detail::candidate_json(*winner)}, {"newer", detail::candidate_json(*newest)}});
  }
  groups.emit(sink);
}

void mixed_family_versions(const RuleInput& input, FindingSink& sink) {
  for (const Family& family : input.rules.families) {
    if (!family.same_version) continue;
    std::map<pe::Version, std::vector<const graph::Module*>> by_version;
    for (const graph::Module& module : input.closure.modules) {
      if (module.resolution.failure != resolve::Failure::None || !module.resolution.image) continue;
      if (input.rules.family_of(module.key) != &family || !module.resolution.image->file_version) continue;
      by_version[*module.resolution.image->file_version].push_back(&module);
    }
    if (by_version.size() < 2) continue;
    // The release most members come from is taken as the intended one; the others are renamed.
    const auto majority = std::max_element(by_version.begin(), by_version.end(), [](const auto& a, const auto& b) {
      return a.second.size() < b.second.size() || (a.second.size() == b.second.size() && a.first < b.first);
    });
    std::string versions;
    std::vector<std::string> renames;
    // The odd ones of the first folder that holds one, to replace there with the majority's release.
    std::string odd_folder;
    std::vector<std::string> odd_names;
    detail::Json evidence = detail::Json::object();
    for (const auto& [version, modules] : by_version) {
      // "9.0.0.312 (cudnn64_9.dll), 9.1.0.70 (cudnn_graph64_9.dll, cudnn_ops64_9.dll and 5 more)"
      std::string names;
      for (std::size_t i = 0; i < modules.size() && i < 2; ++i) {
        names += (i == 0 ? "" : (modules.size() == 2 ? " and " : ", ")) + modules[i]->name;
      }
      if (modules.size() > 2) names += fmt::format(" and {} more", modules.size() - 2);
      versions += fmt::format("{}{} ({})", versions.empty() ? "" : ", ", version.to_string(), names);
      detail::Json list = detail::Json::array();
      for (const graph::Module* m : modules) {
        const std::string path = display_path(m->resolution.windows_path, *m->resolution.path);
        list.push_back(path);
        if (version == majority->first) continue;
        renames.push_back(path);
        if (odd_folder.empty()) odd_folder = folder_of(path);
        if (folder_of(path) == odd_folder) odd_names.push_back(base_name(path));
      }
      evidence[version.to_string()] = std::move(list);
    }
    sink.emit("mixed-family-versions", "default", by_version.begin()->second.front()->name,
              {{"family", family.name},
               {"versions", versions},
               {"renames", Value::list(renames)},
               {"odd_folder", odd_folder},
               {"odd_names", Value::list(odd_names)},
               {"majority_version", majority->first.to_string()}},
              {{"by_version", evidence}});
  }
}

// A family's main DLL loaded by full path (torch loads every torch\lib\*.dll so) while other copies sit on
// the search path or elsewhere: those are not what this process uses, and fixing them changes nothing for
// it. When every member of the family that loads comes from that one folder, the whole set is settled.
void copies_not_used(const RuleInput& input, FindingSink& sink) {
  for (const graph::Module& module : input.closure.modules) {
    const Family* family = input.rules.family_of(module.key);
    const resolve::Candidate* winner = detail::chosen(module);
    if (!family || !winner || winner->assumed || winner->step != resolve::SearchStep::Explicit) continue;
    if (std::find(family->main.begin(), family->main.end(), module.key) == family->main.end()) continue;
    const std::string folder = folder_of(winner->path);
    std::vector<const env::DllCopy*> others;
    auto consider = [&](const env::DllCopy& copy) {
      if (detail::is_copy_of(copy, module.key) && folder_of(copy.path) != folder) others.push_back(&copy);
    };
    for (const env::FolderContents& contents : input.inventory.search_folders) {
      for (const env::DllCopy& copy : contents.dlls) consider(copy);
    }
    for (const env::DllCopy& copy : input.inventory.copies) consider(copy);
    if (others.empty()) continue;
    bool whole_family = true;
    for (const graph::Module& member : input.closure.modules) {
      if (input.rules.family_of(member.key) != family || member.resolution.failure != resolve::Failure::None) continue;
      if (!member.resolution.path || folder_of(*member.resolution.path) != folder) whole_family = false;
    }
    std::vector<std::string> paths;
    std::string where;
    detail::Json evidence_others = detail::Json::array();
    for (const env::DllCopy* copy : others) {
      paths.push_back(detail::shown(*copy));
      where += fmt::format("{}{} ({})", where.empty() ? "" : ", ", detail::shown(*copy), copy->source);
      evidence_others.push_back(detail::copy_json(*copy));
    }
    sink.emit("copies-not-used", whole_family ? "whole_family" : "default", module.name,
              {{"dll", module.name},
               {"family", family->name},
               {"chosen", detail::shown(*winner)},
               {"chosen_folder", folder_of(detail::shown(*winner))},
               {"loaded_by", detail::first_needed_by(module)},
               {"others", where},
               {"other_paths", Value::list(paths)}},
              {{"chosen", detail::candidate_json(*winner)}, {"others", std::move(evidence_others)}});
  }
}

}  // namespace

void detect_shadowing(const RuleInput& input, FindingSink& sink) {
  older_copy_wins(input, sink);
  mixed_family_versions(input, sink);
  detect_mixed_generations(input.inventory.search_folders, input.rules, sink);
  copies_not_used(input, sink);
}

}  // namespace dlldoctor::rules
