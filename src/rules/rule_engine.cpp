#include "dlldoctor/rules/rule_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/utf8.hpp"
#include "rules/error_words.hpp"
#include "rules/fix_template.hpp"

namespace dlldoctor::rules {

std::optional<std::string> toolkit_root(const MachinePlaces& places, const env::Environment& environment,
                                        const std::string& windows_folder) {
  std::vector<std::string> roots = places.toolkits;
  for (const auto& [name, variable] : environment.variables) {
    for (const std::string& pattern : places.toolkit_variables) {
      if (env::wildcard_match(pattern, name)) roots.push_back(variable.value);
    }
  }
  for (const std::string& bin : places.toolkit_bins) {
    const std::string suffix = "\\" + bin;
    if (windows_folder.size() <= suffix.size() ||
        ascii_lower(windows_folder.substr(windows_folder.size() - suffix.size())) != ascii_lower(suffix))
      continue;
    const std::string root = windows_folder.substr(0, windows_folder.size() - suffix.size());
    for (const std::string& pattern : roots) {
      if (env::wildcard_match(pattern, root)) return root;
    }
  }
  return std::nullopt;
}

std::string display_path(const std::optional<std::string>& windows, const std::string& host) {
  return windows ? *windows : host;
}

Value Value::list(std::vector<std::string> items) {
  Value value;
  value.items_ = std::move(items);
  value.list_ = true;
  return value;
}

Value Value::code(std::string powershell) {
  Value value(std::move(powershell));
  value.code_ = true;
  return value;
}

Value Value::python_path(const std::string& path) {
  Value value = code(python_literal(path));
  value.python_path_ = path;
  return value;
}

std::string Value::shown() const {
  std::string out;
  for (const std::string& item : items_) {
    if (!out.empty()) out += ", ";
    out += code_ ? item : escape_bytes(item, Escape::Controls);
  }
  return out;
}

std::string Value::in_command(const CommandPaths& paths, std::vector<Placeholder>* used) const {
  if (python_path_) return python_literal(paths.in_command(*python_path_, used));
  if (code_) return items_.front();
  std::string out;
  for (const std::string& item : items_) {
    if (!out.empty()) out += ", ";
    out += powershell_literal(paths.in_command(item, used));
  }
  // An empty list is no argument at all; PowerShell's @() says so.
  return list_ && items_.empty() ? "@()" : out;
}

std::string FindingSink::fill(const std::string& text, const Vars& vars, const std::string& where, bool command,
                              std::vector<Placeholder>* used) {
  std::string out;
  for (const TemplatePiece& piece : parse_fix_template(text)) {
    if (!piece.placeholder) {
      out += piece.text;
      continue;
    }
    auto value = vars.find(piece.text);
    if (value == vars.end()) {
      output_.problems.push_back(fmt::format("{}: no value for {{{}}}", where, piece.text));
      out += "{" + piece.text + "}";
    } else if (command && piece.context == TemplateContext::Code) {
      out += value->second.in_command(paths_, used);
    } else {
      // read_rules rejects a placeholder inside the template's own quotes, so Quoted is never met here.
      out += value->second.shown();
    }
  }
  return out;
}

FixStep FindingSink::fill_step(const FindingRule::StepTemplate& step, const Vars& vars, const std::string& where) {
  FixStep filled;
  filled.kind = step.kind;
  for (const auto& [field, text] : step.fields) {
    std::vector<std::string>& out = filled.fields[field];
    const auto pieces = parse_fix_template(text);
    // A field that is one placeholder takes its value's items as they came (a list stays a list);
    // otherwise the pieces make one text. Never shell code: the planner and the script quote what they use.
    std::string joined;
    for (const TemplatePiece& piece : pieces) {
      if (!piece.placeholder) {
        joined += piece.text;
        continue;
      }
      auto value = vars.find(piece.text);
      if (value == vars.end()) {
        output_.problems.push_back(fmt::format("{}: steps: no value for {{{}}}", where, piece.text));
        continue;
      }
      // A step's command runs as it is: only the rules' own code may fill it.
      if (field == "command" && !value->second.is_code()) {
        output_.problems.push_back(
            fmt::format("{}: steps: {{{}}} is not code and cannot fill a command", where, piece.text));
        continue;
      }
      if (pieces.size() == 1) {
        out = value->second.items();
        break;
      }
      for (std::size_t i = 0; i < value->second.items().size(); ++i)
        joined += (i ? ", " : "") + value->second.items()[i];
    }
    if (pieces.size() != 1 || !pieces.front().placeholder) out.push_back(joined);
  }
  return filled;
}

Finding* FindingSink::emit(const std::string& id, const std::string& variant, const std::string& module,
                           const Vars& vars, nlohmann::ordered_json evidence, std::optional<Severity> severity,
                           std::vector<DllName> related) {
  const FindingRule* rule = rules_.finding(id);
  if (!rule) {
    output_.problems.push_back(fmt::format("no rule data for finding '{}'", id));
    return nullptr;
  }
  // A grouped finding ("several", "<variant>_several") falls back to its variant's own templates.
  const std::string single = variant == "several" ? "default"
                             : variant.size() > 8 && variant.compare(variant.size() - 8, 8, "_several") == 0
                                 ? variant.substr(0, variant.size() - 8)
                                 : variant;
  auto pick = [&](const auto& map) {
    for (const std::string& name : {variant, single, std::string("default")}) {
      if (auto it = map.find(name); it != map.end()) return it;
    }
    return map.end();
  };
  auto message = pick(rule->messages);
  auto fix = pick(rule->fixes);
  const std::string where = fmt::format("finding '{}' variant '{}' ({})", id, variant, rule->source);
  if (message == rule->messages.end() || fix == rule->fixes.end()) {
    output_.problems.push_back(where + ": no message or fix for this variant");
    return nullptr;
  }
  Finding finding;
  finding.id = id;
  finding.title = rule->title;
  finding.failure_mode = rule->failure_mode;
  finding.severity = severity.value_or(rule->severity);
  finding.module = module;
  finding.message = fill(message->second, vars, where, false);
  std::vector<Placeholder> placeholders;
  for (const std::string& line : fix->second) finding.fix.push_back(fill(line, vars, where, true, &placeholders));
  finding.placeholders = first_uses(placeholders);
  if (auto steps = pick(rule->steps); steps != rule->steps.end()) {
    for (const FindingRule::StepTemplate& step : steps->second) finding.steps.push_back(fill_step(step, vars, where));
  }
  if (auto code = pick(rule->errors); code != rule->errors.end() && wording_) wording_(module, code->second, finding);
  if (auto says = pick(rule->says); says != rule->says.end())
    finding.says.push_back(fill(says->second, vars, where, false));
  finding.evidence = std::move(evidence);
  if (closure_) {
    const std::optional<DllName> named = module.empty() ? std::nullopt : std::optional<DllName>(module);
    for (std::size_t i = 0; i < closure_->modules.size(); ++i) {
      const DllName& key = closure_->modules[i].key;
      if (named && key == *named) {
        finding.modules.push_back(i);
      } else if (std::find(related.begin(), related.end(), key) != related.end()) {
        finding.related.push_back(i);
      }
    }
  }
  output_.findings.push_back(std::move(finding));
  return &output_.findings.back();
}

RuleOutput FindingSink::take() {
  std::stable_sort(output_.findings.begin(), output_.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
  return std::move(output_);
}

std::set<DllName> driver_dlls(const RuleData& rules) {
  std::set<DllName> names;
  for (const Family& family : rules.families) {
    if (family.kind == "driver") names.insert(family.members.begin(), family.members.end());
  }
  return names;
}

graph::LoadKnowledge load_knowledge(const RuleData& rules) {
  graph::LoadKnowledge knowledge;
  for (const Family& family : rules.families) {
    for (const DllName& member : family.members) knowledge.family_of.emplace(member, family.id);
    knowledge.families.emplace(family.id, graph::FamilyTraits{family.kind, family.generation});
    std::vector<graph::RuntimeLoad> loads;
    for (const DllName& dll : family.runtime_loads) loads.push_back({dll, std::nullopt});
    for (const VersionedLoads& versioned : family.versioned_loads) {
      for (const DllName& dll : versioned.loads) loads.push_back({dll, versioned.versions});
    }
    if (loads.empty()) continue;
    for (const DllName& main : family.main) knowledge.runtime_loads.emplace(main, loads);
  }
  knowledge.delay_load_hooks = rules.delay_load_hooks;
  knowledge.lazy_loads = rules.lazy_loads;
  return knowledge;
}

bool imports(const graph::Module& importer, const DllName& dll) {
  if (!importer.resolution.image) return false;
  for (const auto* table : {&importer.resolution.image->imports, &importer.resolution.image->delay_imports}) {
    for (const pe::ImportedDll& imported : *table) {
      if (DllName(imported.dll) == dll) return true;
    }
  }
  return false;
}

bool bundled_copy_candidate(const graph::Module& module, const RuleData& rules) {
  const auto& r = module.resolution;
  if (module.is_root || r.failure != resolve::Failure::None || !r.path || r.assumed || !r.image) return false;
  // Imports only (of the start-up, of a LoadLibrary call, or delay-loaded): a family's run-time loads and
  // names in data are no importer's to ship.
  if (module.load == graph::LoadKind::Runtime || module.load == graph::LoadKind::NamedInData) return false;
  // The system copy is meant to win; a path given to LoadLibrary names its file.
  if (r.found_by == resolve::SearchStep::KnownDll || r.found_by == resolve::SearchStep::ApiSet ||
      r.found_by == resolve::SearchStep::Explicit)
    return false;
  // An app-local MSVC runtime losing to System32's newer one is how the redistributable works
  // (msvc-runtime-too-old checks the other way round); a family whose DLLs must share one release has
  // mixed-family-versions.
  const Family* family = rules.family_of(module.key);
  return !family || (family->kind != "msvc" && !family->same_version);
}

env::InventoryRequest inventory_request(const graph::Closure& closure, const env::Environment& environment,
                                        const RuleData& rules, const std::vector<std::string>& site_packages) {
  env::InventoryRequest request;
  // A PATH entry cut short or quoted still says which folder the user meant.
  for (const env::PathEntry& entry : environment.path) {
    if (entry.completion)
      request.named_folders.emplace_back(entry.completion->host,
                                         env::CopySource{env::CopySource::Kind::DamagedPathEntry, {}});
  }
  for (const Family& family : rules.families) request.interesting.insert(family.members.begin(), family.members.end());
  for (const graph::Module& module : closure.modules) {
    // The loader never looks for an API set in folders: a copy of one on the disk explains nothing.
    if (module.resolution.failure != resolve::Failure::NotFound ||
        module.resolution.found_by == resolve::SearchStep::ApiSet)
      continue;
    request.wanted.insert(module.key);
    // For a missing cuDNN 8 DLL, cuDNN 9 copies tell "another generation is installed", and the other
    // way round: look for the main DLLs of every family of the same kind.
    if (const Family* family = rules.family_of(module.key)) {
      for (const Family& other : rules.families) {
        if (other.kind != family->kind) continue;
        request.wanted.insert(other.main.begin(), other.main.end());
        // Where the other majors install (CUDA 13's bin\x64): "another major is installed" needs to see them.
        request.install_places.insert(request.install_places.end(), other.install_places.begin(),
                                      other.install_places.end());
      }
      request.install_places.insert(request.install_places.end(), family->install_places.begin(),
                                    family->install_places.end());
      for (const std::string& packages : site_packages) {
        for (std::string place : family->wheel_places) {
          std::replace(place.begin(), place.end(), '\\', '/');
          // Once per folder, however many of the family's DLLs are missing.
          std::pair<std::string, env::CopySource> folder(packages + "/" + place,
                                                         env::CopySource{env::CopySource::Kind::PipWheel, {}});
          if (std::find(request.named_folders.begin(), request.named_folders.end(), folder) ==
              request.named_folders.end())
            request.named_folders.push_back(std::move(folder));
        }
      }
    }
  }
  // A loaded family DLL that another pip wheel of the environment ships too: which package's copy a process
  // gets is decided by which is imported first.
  for (const graph::Module& module : closure.modules) {
    const Family* family = rules.family_of(module.key);
    if (!family || !module.resolution.path || module.resolution.failure != resolve::Failure::None) continue;
    for (const std::string& packages : site_packages) {
      for (std::string place : family->wheel_places) {
        std::replace(place.begin(), place.end(), '\\', '/');
        request.shipped_elsewhere.emplace_back(packages + "/" + place, module.key);
      }
    }
  }
  // Siblings missing from the search path are often next to the main DLL that loads them.
  for (const graph::Module& module : closure.modules) {
    const Family* family = rules.family_of(module.key);
    if (!family || (family->runtime_loads.empty() && family->versioned_loads.empty()) || !module.resolution.path ||
        module.resolution.failure != resolve::Failure::None)
      continue;
    if (std::find(family->main.begin(), family->main.end(), module.key) != family->main.end()) {
      request.named_folders.emplace_back(folder_of(*module.resolution.path),
                                         env::CopySource{env::CopySource::Kind::NextToMainDll, {}});
    }
  }
  // "It is right there": a DLL's imports are not searched in that DLL's own folder, nor in the folders of
  // the other modules already loaded. Copies there are the evidence, named with the module they sit by.
  for (const graph::Module& module : closure.modules) {
    if (module.resolution.failure != resolve::Failure::NotFound || module.resolution.api_set_host) continue;
    for (const std::string& importer : module.needed_by) {
      for (const graph::Module& by : closure.modules) {
        if (by.name != importer || !by.resolution.path || by.resolution.failure != resolve::Failure::None) continue;
        request.named_folders.emplace_back(folder_of(*by.resolution.path),
                                           env::CopySource{env::CopySource::Kind::NextToImporter, by.name});
        // Or one folder away, in the importer's package, where its loader script would have looked.
        request.packages.push_back({folder_of(*by.resolution.path), by.name});
      }
    }
  }
  for (const graph::Module& module : closure.modules) {
    if (module.resolution.path && module.resolution.failure == resolve::Failure::None)
      request.named_folders.emplace_back(folder_of(*module.resolution.path),
                                         env::CopySource{env::CopySource::Kind::NextToLoaded, module.name});
  }
  // A DLL that loads from elsewhere than the folder its importer (or the program) shipped a copy in: that
  // copy is the one its importer was built with (Windows ML's System32 onnxruntime.dll beside a plugin's).
  for (const graph::Module& module : closure.modules) {
    const auto& r = module.resolution;
    if (!bundled_copy_candidate(module, rules)) continue;
    const std::string folder = folder_of(*r.path);
    std::set<std::string> asked;
    for (const std::string& importer : module.needed_by) {
      for (const graph::Module& by : closure.modules) {
        if (by.name != importer || !by.resolution.path || by.resolution.failure != resolve::Failure::None ||
            !imports(by, module.key))
          continue;
        const std::string beside = folder_of(*by.resolution.path);
        if (beside != folder && asked.insert(beside).second)
          request.files.push_back({beside, module.name, {env::CopySource::Kind::BesideImporter, by.name}});
      }
    }
    const env::FolderRef& app = closure.process.app_dir;
    if (app.exists && app.host != folder && asked.insert(app.host).second)
      request.files.push_back({app.host, module.name, {env::CopySource::Kind::BesideProgram, {}}});
  }
  // The CUDA toolkits the registry or the process names (CUDA_PATH, CUDA_PATH_V13_0): where "another major
  // is installed" may be, wherever its installer put it.
  if (!request.wanted.empty()) {
    for (const auto& [name, variable] : environment.variables) {
      if (name.rfind("cuda_path", 0) != 0 || !env::is_windows_absolute(variable.value)) continue;
      request.install_places.push_back(variable.value + "\\bin\\x64");
      request.install_places.push_back(variable.value + "\\bin");
    }
  }
  for (const graph::Module& module : closure.modules) {
    if (module.resolution.path && module.resolution.failure == resolve::Failure::None)
      request.owned.push_back(*module.resolution.path);
  }
  request.package_markers = rules.machine.package_markers;
  request.package_boundaries = rules.machine.package_boundaries;
  request.package_dll_folders = rules.machine.package_dll_folders;
  std::sort(request.install_places.begin(), request.install_places.end());
  request.install_places.erase(std::unique(request.install_places.begin(), request.install_places.end()),
                               request.install_places.end());
  return request;
}

const graph::LazyLoad* lazy_rule(const RuleInput& input, const graph::Module& module) {
  if (module.load != graph::LoadKind::NamedInData) return nullptr;
  for (const graph::LazyLoad& lazy : input.rules.lazy_loads) {
    if (std::find(lazy.dlls.begin(), lazy.dlls.end(), module.key) == lazy.dlls.end()) continue;
    for (const std::string& loader : module.needed_by) {
      if (env::wildcard_match(lazy.loader, loader)) return &lazy;
    }
  }
  return nullptr;
}

const FrameworkInUse* framework_loading(const RuleInput& input, const graph::Module& module) {
  for (const FrameworkInUse& framework : input.frameworks) {
    for (std::size_t i = framework.first_load; i < framework.first_load + framework.loads; ++i) {
      if (i < input.closure.loads.size() && std::find(module.needed_by.begin(), module.needed_by.end(),
                                                      input.closure.loads[i].request) != module.needed_by.end())
        return &framework;
    }
  }
  return nullptr;
}

RuleOutput run_rules(const RuleInput& input) {
  FindingSink sink(input.rules, CommandPaths::of(input.environment, input.closure, input.inventory));
  sink.set_closure(input.closure);
  sink.set_error_wording([&input](const std::string& name, int code, Finding& finding) {
    // The failing module of that name (a name may also be a module that loaded fine elsewhere).
    const graph::Module* module = nullptr;
    for (const graph::Module& m : input.closure.modules) {
      if (m.name != name) continue;
      if (!module || m.resolution.failure != resolve::Failure::None || !m.missing_exports.empty()) module = &m;
      if (m.resolution.failure != resolve::Failure::None) break;
    }
    if (!module) return;
    if (auto words = error_words(input, *module, code)) {
      finding.error = words->error;
      finding.says = std::move(words->says);
    }
  });
  detect_missing_dlls(input, sink);
  detect_unloadable(input, sink);
  detect_missing_exports(input, sink);
  detect_shadowing(input, sink);
  detect_versions(input, sink);
  detect_path_defects(input, sink);
  detect_names_in_data(input, sink);
  detect_shared_files(input, sink);
  RuleOutput output = sink.take();
  if (auto words = outcome_words(input)) {
    output.outcome_error = words->error;
    output.outcome_says = std::move(words->says);
  }
  return output;
}

}  // namespace dlldoctor::rules
