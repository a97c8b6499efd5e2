// Section 5.4: files the loader reaches but cannot use (wrong machine, not a PE image) and files that
// carry the Mark of the Web.
#include <map>

#include "rules/detectors/finding_groups.hpp"

namespace dlldoctor::rules {

// A copy of the module for this process's machine that the search did not reach (found by --look-in,
// in an install place, ...).
bool usable_copy_elsewhere(const RuleInput& input, const graph::Module& module) {
  for (const env::DllCopy& copy : input.inventory.copies) {
    if (detail::is_copy_of(copy, module.key) && copy.machine &&
        resolve::machine_fits(input.closure.process_machine, *copy.machine)) {
      return true;
    }
  }
  return false;
}

void detect_unloadable(const RuleInput& input, FindingSink& sink) {
  const std::string process_machine = pe::machine_name(input.closure.process_machine);
  const std::string program = input.closure.modules.empty() ? std::string() : input.closure.modules.front().name;
  // One Mark of the Web finding per folder: Unblock-File is applied to folders.
  std::map<std::string, std::vector<const resolve::Candidate*>> marked;
  // Skipped wrong-machine copies are grouped per folder: a 32-bit folder early on PATH holds many.
  detail::FindingGroups skipped("wrong-machine", {{"dll", "dlls"}, {"path", "paths"}});

  for (const graph::Module& module : input.closure.modules) {
    // The program itself matters here only when it is the file that cannot be loaded.
    if (module.is_root && module.resolution.failure != resolve::Failure::BadImage) continue;
    const auto& resolution = module.resolution;
    bool any_usable = false;
    bool any_wrong = false;
    bool any_unloadable = false;
    for (const auto& c : resolution.candidates) {
      any_usable |= c.verdict == resolve::Verdict::Chosen || c.verdict == resolve::Verdict::Shadowed;
      any_wrong |= c.verdict == resolve::Verdict::WrongMachine;
      any_unloadable |= c.verdict == resolve::Verdict::NotLoadable;
    }
    // Every copy that exists is built for another machine (on the search path and off it): the program
    // itself is the wrong build (32-bit Python), whether the loader stops at the first file (193) or
    // skips them all (126). One finding says so, instead of one per file.
    if (!any_usable && any_wrong && !any_unloadable && resolution.failure != resolve::Failure::None &&
        !usable_copy_elsewhere(input, module)) {
      const resolve::Candidate& first = resolution.candidates.front();
      detail::Json others = detail::Json::array();
      for (const auto& c : resolution.candidates) others.push_back(detail::candidate_json(c));
      // A 64-bit program with only a 32-bit build of the DLL: the DLL is the odd one out (the 32-bit
      // program beside 64-bit DLLs is the 32-bit Python case, where the program is).
      const bool dll_is_odd =
          input.closure.process_machine == pe::machine::kAmd64 && first.machine && *first.machine == pe::machine::kI386;
      const std::string machine = first.machine ? pe::machine_name(*first.machine) : "?";
      // A family that ships as one release (cuDNN's zip) with every member of the wrong build in that folder:
      // the whole set is replaced in one step, not one DLL at a time.
      std::vector<std::string> set;
      const Family* family = input.rules.family_of(module.key);
      if (dll_is_odd && family && family->same_version) {
        for (const env::FolderContents& folder : input.inventory.search_folders) {
          if (folder.folder.host != folder_of(first.path)) continue;
          for (const env::DllCopy& copy : folder.dlls) {
            if (copy.machine == first.machine && input.rules.family_of(DllName::of_file(copy.name)) == family)
              set.push_back(copy.name);
          }
        }
      }
      const char* variant = set.size() > 1 ? "wrong_set_build" : dll_is_odd ? "wrong_dll_build" : "wrong_program";
      sink.emit("wrong-machine", variant, module.name,
                {{"dll", module.name},
                 {"dlls", Value::list(set)},
                 {"family", family ? family->name : std::string()},
                 {"version", first.file_version ? first.file_version->to_string() : std::string()},
                 {"program", program},
                 {"process_machine", process_machine},
                 {"machine", machine},
                 {"path", detail::shown(first)},
                 {"backup", base_name(detail::shown(first)) + "." + machine + ".bak"},
                 {"folder", folder_of(detail::shown(first))}},
                {{"candidate", detail::candidate_json(first)},
                 {"candidates", std::move(others)},
                 {"process_machine", process_machine}});
      continue;
    }
    bool before_winner = true;
    for (const auto& c : resolution.candidates) {
      if (c.verdict == resolve::Verdict::Chosen) before_winner = false;
      if (c.mark_of_the_web && c.mark_of_the_web->zone_id >= 3 &&
          (c.verdict == resolve::Verdict::Chosen || c.verdict == resolve::Verdict::Shadowed)) {
        marked[folder_of(detail::shown(c))].push_back(&c);
      }
      // Most copies are neither: their words and evidence are not made at all.
      if (c.verdict != resolve::Verdict::WrongMachine && c.verdict != resolve::Verdict::NotLoadable) continue;
      const bool caused_failure = resolution.failure == resolve::Failure::BadImage && resolution.path == c.path;
      Vars vars = {{"path", detail::shown(c)},
                   {"file", base_name(detail::shown(c))},
                   {"folder", folder_of(detail::shown(c))},
                   {"dll", module.name},
                   {"step", std::string(resolve::step_label(c.step))},
                   {"process_machine", process_machine},
                   {"program", program}};
      detail::Json evidence = {{"candidate", detail::candidate_json(c)}, {"process_machine", process_machine}};
      if (c.verdict == resolve::Verdict::WrongMachine) {
        vars["machine"] = c.machine ? pe::machine_name(*c.machine) : "?";
        vars["backup_suffix"] = fmt::format(".{}.bak", vars["machine"].shown());
        vars["backup"] = base_name(detail::shown(c)) + vars["backup_suffix"].shown();
        if (caused_failure) {
          sink.emit("wrong-machine", "failed", module.name, vars, evidence);
        } else if (before_winner && any_usable) {
          const std::string cause = folder_of(detail::shown(c)) + '\n' + vars["machine"].shown();
          skipped.add(cause, "skipped", module.name, std::move(vars), std::move(evidence), Severity::Warning);
        }
      } else if (c.verdict == resolve::Verdict::NotLoadable && (caused_failure || before_winner)) {
        vars["problem"] = c.problem;
        // What a whole copy must be: the release the damaged file's version resource names, if it reads.
        vars["version"] = c.file_version ? c.file_version->to_string() : std::string();
        sink.emit("unloadable-file", "default", module.name, vars, evidence,
                  caused_failure ? std::nullopt : std::optional<Severity>(Severity::Warning));
      }
    }
  }

  skipped.emit(sink);
  for (const auto& [folder, candidates] : marked) {
    const resolve::Candidate& first = *candidates.front();
    detail::Json files = detail::Json::array();
    for (const auto* c : candidates) {
      files.push_back({{"path", detail::shown(*c)},
                       {"zone_id", c->mark_of_the_web->zone_id},
                       {"host_url", c->mark_of_the_web->host_url},
                       {"stream", c->mark_of_the_web->stream}});
    }
    const std::string& url = first.mark_of_the_web->host_url;
    sink.emit("mark-of-the-web", "default", base_name(detail::shown(first)),
              {{"path", detail::shown(first)},
               {"folder", folder},
               {"zone_id", std::to_string(first.mark_of_the_web->zone_id)},
               {"host", url.empty() ? std::string() : ", from " + url}},
              {{"files", std::move(files)}});
  }
}

}  // namespace dlldoctor::rules
