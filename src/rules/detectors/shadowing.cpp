// Section 5.5: an older copy wins, one family's DLLs come from different releases, a folder on the search
// path mixes generations (folder_mixes.cpp); and the other side, copies that a full-path load makes
// irrelevant.
#include <algorithm>
#include <map>
#include <set>

#include "rules/detectors/finding_groups.hpp"
#include "rules/error_words.hpp"

namespace dlldoctor::rules {
namespace {

// The folders of the modules whose import tables name `module` (those that loaded from a file).
std::vector<std::string> importer_folders(const RuleInput& input, const graph::Module& module) {
  std::vector<std::string> folders;
  for (const std::string& importer : module.needed_by) {
    for (const graph::Module& by : input.closure.modules) {
      if (by.name == importer && by.resolution.path && by.resolution.failure == resolve::Failure::None &&
          imports(by, module.key))
        folders.push_back(folder_of(*by.resolution.path));
    }
  }
  return folders;
}

// The call that brought `module` in, as the report names it: a LoadLibrary call, or the start-up.
std::string call_of(const RuleInput& input, const graph::Module& module) {
  if (module.load_call && *module.load_call < input.closure.loads.size())
    return input.closure.loads[*module.load_call].request;
  return input.closure.startup ? input.closure.startup->request : std::string("the program's start-up");
}

int minor_of(const std::optional<pe::Version>& version) { return version ? version->parts[1] : 0; }

// A DLL that loads from elsewhere than where its importer (or the program) shipped a copy of it:
// Windows ML's System32 onnxruntime.dll 1.17 wins over the 1.23 beside a plugin loaded without
// LOAD_WITH_ALTERED_SEARCH_PATH. An older copy winning is a warning; a newer or unversioned one is
// information; an identical one (version and size) says nothing.
void bundled_copy_loses(const RuleInput& input, FindingSink& sink) {
  for (const graph::Module& module : input.closure.modules) {
    const resolve::Resolution& r = module.resolution;
    const resolve::Candidate* winner = detail::chosen(module);
    if (!winner || !bundled_copy_candidate(module, input.rules)) continue;
    const env::DllCopy* beside = nullptr;
    for (const env::DllCopy& copy : input.inventory.copies) {
      if (!detail::is_copy_of(copy, module.key) || copy.path == *r.path) continue;
      if (copy.source.kind != env::CopySource::Kind::BesideImporter &&
          copy.source.kind != env::CopySource::Kind::BesideProgram)
        continue;
      if (copy.machine && !resolve::machine_fits(input.closure.process_machine, *copy.machine)) continue;
      beside = &copy;
      break;
    }
    if (!beside) continue;
    const auto& chosen_version = r.image->file_version;
    if (chosen_version && beside->file_version && *chosen_version == *beside->file_version &&
        beside->file_size == r.image->file_size)
      continue;
    const bool older = chosen_version && beside->file_version && *chosen_version < *beside->file_version;
    const std::string chosen = display_path(r.windows_path, *r.path);
    const std::string& importer = beside->source.module;
    const graph::Module* by = nullptr;
    for (const graph::Module& m : input.closure.modules) {
      if (!importer.empty() && m.name == importer) by = &m;
    }
    const LibraryNote* note = input.rules.library(module.key);
    const std::string system = folder_of(chosen);
    const bool windows_copy = note && !note->windows_component.empty() &&
                              (r.found_by == resolve::SearchStep::System32 ||
                               (input.environment.system32.windows && system == *input.environment.system32.windows) ||
                               (input.environment.syswow64.windows && system == *input.environment.syswow64.windows));
    Vars vars = {{"dll", module.name},
                 {"chosen", chosen},
                 {"chosen_version", detail::version_text(chosen_version)},
                 {"chosen_step", std::string(resolve::step_label(r.found_by))},
                 {"beside", detail::shown(*beside)},
                 {"beside_version", detail::version_text(beside->file_version)},
                 {"importer", importer.empty() ? input.closure.modules.front().name : importer},
                 {"call", call_of(input, by ? *by : module)},
                 {"program_folder", detail::shown(input.closure.process.app_dir)},
                 // Windows ships a DLL of this name in System32; whether this very file is that one, or a copy
                 // an installer put there, no header says for sure.
                 {"owner", windows_copy ? fmt::format("a name Windows ships there itself: {}", note->windows_component)
                                        : std::string("another copy")},
                 {"component", windows_copy ? note->windows_component : std::string()}};
    const bool newer = chosen_version && beside->file_version && *beside->file_version < *chosen_version;
    std::string effect =
        older   ? "functions it exports since, or fixes it has, are missing: calls fail with error 127 or behave as "
                  "the older release did"
        : newer ? "the copy that loads is newer than the one its importer shipped and was tested with: usually "
                  "compatible, but what changed between the two releases can change its behaviour"
        : chosen_version && beside->file_version
            ? "the same version, but another file (another build, or a patched copy): usually the same behaviour"
            : "which of the two the importer was built for is not known (a copy has no version resource)";
    if (note && !note->older.empty() && older) {
      std::map<std::string, std::string> values = {{"chosen_version", detail::version_text(chosen_version)},
                                                   {"newer_version", detail::version_text(beside->file_version)},
                                                   {"chosen_minor", std::to_string(minor_of(chosen_version))},
                                                   {"newer_minor", std::to_string(minor_of(beside->file_version))}};
      effect = fill_says(note->older, values);
    }
    vars["effect"] = effect;
    // The program's folder comes before these steps in every search order: a copy there wins.
    const bool after_program = r.found_by == resolve::SearchStep::System32 ||
                               r.found_by == resolve::SearchStep::System16 ||
                               r.found_by == resolve::SearchStep::Windows || r.found_by == resolve::SearchStep::Cwd ||
                               r.found_by == resolve::SearchStep::Path;
    std::string variant = "other";
    if (r.found_by == resolve::SearchStep::Loaded) {
      variant = "loaded";
    } else if (!importer.empty() && after_program) {
      variant = windows_copy ? "importer_windows" : "importer";
    }
    const std::optional<Severity> severity = older ? std::nullopt : std::optional<Severity>(Severity::Info);
    sink.emit("bundled-copy-loses", variant, module.name, vars,
              {{"chosen", detail::candidate_json(*winner)},
               {"beside", detail::copy_json(*beside)},
               {"windows_component", windows_copy ? detail::Json(note->windows_component) : detail::Json(nullptr)},
               {"older", older}},
              severity);
  }
}

// A DLL that only the current folder provides: found by accident of where the process started.
void found_in_current_folder(const RuleInput& input, FindingSink& sink) {
  for (const graph::Module& module : input.closure.modules) {
    const resolve::Resolution& r = module.resolution;
    if (module.is_root || r.failure != resolve::Failure::None || r.found_by != resolve::SearchStep::Cwd || !r.path)
      continue;
    // Another usable copy later in the search: started elsewhere, the process still finds one.
    const bool elsewhere = std::any_of(r.candidates.begin(), r.candidates.end(), [](const resolve::Candidate& c) {
      return c.verdict == resolve::Verdict::Shadowed;
    });
    if (elsewhere) continue;
    const std::string path = display_path(r.windows_path, *r.path);
    sink.emit("found-in-current-folder", "default", module.name,
              {{"dll", module.name},
               {"needed_by", detail::first_needed_by(module)},
               {"path", path},
               {"folder", folder_of(path)},
               {"program_folder", detail::shown(input.closure.process.app_dir)}},
              {{"chosen", detail::candidate_json(*detail::chosen(module))}});
  }
}

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
    // The newer copy is the one an importer shipped beside it: bundled-copy-loses says which call made
    // the other one win and how to load that importer so that its own copy does.
    const auto folders = importer_folders(input, module);
    if (bundled_copy_candidate(module, input.rules) &&
        std::find(folders.begin(), folders.end(), folder_of(newest->path)) != folders.end())
      continue;
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
    std::vector<DllName> mixed;
    for (const auto& [version, modules] : by_version) {
      for (const graph::Module* m : modules) mixed.push_back(m->key);
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
              {{"by_version", evidence}}, std::nullopt, std::move(mixed));
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
      where += fmt::format("{}{} ({})", where.empty() ? "" : ", ", detail::shown(*copy), copy->source.text());
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
  bundled_copy_loses(input, sink);
  found_in_current_folder(input, sink);
  mixed_family_versions(input, sink);
  detect_mixed_generations(input.inventory.search_folders, input.rules, sink);
  copies_not_used(input, sink);
}

}  // namespace dlldoctor::rules
