// Every module that is not found gets one finding: the most specific explanation of why (checked in the
// order below), with the copies found elsewhere as evidence.
#include <algorithm>
#include <cstring>
#include <map>

#include "env/system_names.hpp"
#include "rules/detectors/finding_groups.hpp"
#include "rules/fix_template.hpp"

namespace dlldoctor::rules {
namespace {

using detail::Json;

struct Context {
  const RuleInput& input;
  FindingSink& sink;
  detail::FindingGroups& majors;  // cuda-major-mismatch "installed": one per importer and installed major
  const graph::Module& module;
  const Family* family;
  std::vector<const env::DllCopy*> copies;  // usable copies off the search path
  Json evidence;
  std::optional<Severity> severity;
  // The other modules the finding concerns: those that need the DLL, and what a detector adds (the loaded
  // release of another generation).
  std::vector<DllName> related;
};

bool fits(const RuleInput& input, const env::DllCopy& copy) {
  return !copy.machine || resolve::machine_fits(input.closure.process_machine, *copy.machine);
}

bool is_main(const Family& family, const DllName& key) {
  return std::find(family.main.begin(), family.main.end(), key) != family.main.end();
}

// Python 3.8+ and other LOAD_LIBRARY_SEARCH_* loads: the DLL is in a PATH folder the load does not search.
bool python_path_only(Context& c) {
  const auto& searched = c.module.resolution.searched;
  if (std::any_of(searched.begin(), searched.end(),
                  [](const auto& s) { return s.step == resolve::SearchStep::Path; })) {
    return false;
  }
  for (const env::PathEntry& entry : c.input.environment.path) {
    for (const env::FolderContents& folder : c.input.inventory.search_folders) {
      if (folder.folder.host != entry.folder.host) continue;
      for (const env::DllCopy& copy : folder.dlls) {
        if (!detail::is_copy_of(copy, c.module.key) || !fits(c.input, copy)) continue;
        c.evidence["path_copy"] = detail::copy_json(copy);
        Vars vars = {{"dll", c.module.name},
                     {"folder", detail::shown(entry.folder)},
                     {"folder_python", Value::python_path(detail::shown(entry.folder))}};
        // A packaged app (a Store Python) never searches PATH, whatever the flags: the fix is a folder the
        // load does search, the loading DLL's own one when the flags include it.
        const bool packaged = !c.input.request.settings.inherited_path_searched;
        if (packaged) {
          vars["copy"] = detail::shown(copy);
          vars["needed_by"] = detail::first_needed_by(c.module);
          vars["target_folder"] = std::string("<a folder this load searches>");
          for (const auto& s : searched) {
            if (s.step == resolve::SearchStep::DllLoadDir) vars["target_folder"] = detail::shown(s.folder);
          }
        }
        c.sink.emit("python-path-only", packaged ? "packaged" : "default", c.module.name, vars, c.evidence, c.severity,
                    c.related);
        return true;
      }
    }
  }
  return false;
}

// All copies of `names` the inventory knows of, on the search path or off it.
std::vector<const env::DllCopy*> installed(const RuleInput& input, const std::vector<DllName>& names) {
  std::vector<const env::DllCopy*> out;
  auto wanted = [&](const env::DllCopy& copy) {
    return std::find(names.begin(), names.end(), DllName::of_file(copy.name)) != names.end();
  };
  for (const auto& copy : input.inventory.copies) {
    if (wanted(copy)) out.push_back(&copy);
  }
  for (const auto& folder : input.inventory.search_folders) {
    for (const auto& copy : folder.dlls) {
      if (wanted(copy)) out.push_back(&copy);
    }
  }
  return out;
}

// When the framework's own load asked for the module and its recipe says which GPU stack it works with
// (TensorFlow 2.10: CUDA 11.2 and cuDNN 8.1), that goes into the finding (variant "framework").
bool framework_support(Context& c, Vars& vars) {
  const FrameworkInUse* framework = framework_loading(c.input, c.module);
  const Recipe* recipe = framework ? c.input.rules.recipe(framework->recipe) : nullptr;
  if (!recipe || recipe->supported.empty()) return false;
  vars["framework"] = recipe->name;
  vars["supported"] = recipe->supported;
  c.evidence["framework"] = framework->recipe;
  c.evidence["framework_version"] = framework->version;
  return true;
}

// A cuDNN main DLL of one generation wanted while only another generation is installed.
bool wrong_generation(Context& c) {
  if (!c.family || c.family->kind != "cudnn" || !is_main(*c.family, c.module.key)) return false;
  for (const Family& other : c.input.rules.families) {
    if (other.kind != c.family->kind || other.id == c.family->id) continue;
    const auto copies = installed(c.input, other.main);
    if (copies.empty()) continue;
    Json list = Json::array();
    std::string paths;
    for (const auto* copy : copies) {
      list.push_back(detail::copy_json(*copy));
      paths += (paths.empty() ? "" : ", ") + detail::shown(*copy);
    }
    c.evidence["installed"] = std::move(list);
    // Those of the copies the process loads.
    for (const graph::Module& m : c.input.closure.modules) {
      if (m.resolution.failure == resolve::Failure::None && m.resolution.path &&
          std::any_of(copies.begin(), copies.end(),
                      [&](const env::DllCopy* copy) { return copy->path == m.resolution.path; }))
        c.related.push_back(m.key);
    }
    Vars vars = {{"dll", c.module.name},     {"needed_by", detail::first_needed_by(c.module)},
                 {"wanted", c.family->name}, {"wanted_version", c.family->generation + ".x"},
                 {"installed", other.name},  {"copies", paths}};
    std::string variant = framework_support(c, vars) ? "framework" : "default";
    if (!c.family->release.empty() && !c.family->archive.empty()) {
      // The wanted release unpacked beside the installed one's folder (the write-up's one folder per
      // release): NVIDIA's archive holds one folder named as the archive, with bin inside.
      std::string root = folder_of(detail::shown(*copies.front()));
      if (ascii_lower(base_name(root)) == "bin") root = folder_of(root);
      std::string stem = c.family->archive;
      if (stem.size() > 4 && ascii_lower(stem.substr(stem.size() - 4)) == ".zip") stem.resize(stem.size() - 4);
      const char separator = root.find('\\') != std::string::npos ? '\\' : '/';
      vars["new_parent"] = folder_of(root);
      vars["new_folder"] = detail::sibling_folder(root, stem) + separator + "bin";
      vars["wanted_release"] = c.family->release;
      vars["wanted_archive"] = c.family->archive;
      std::vector<std::string> members;
      for (const DllName& member : c.family->members) members.push_back(member.display());
      vars["wanted_dlls"] = Value::list(members);
      variant += "_install";
    }
    c.sink.emit("wrong-cudnn-generation", variant, c.module.name, vars, c.evidence, c.severity, c.related);
    return true;
  }
  return false;
}

// No copy of a CUDA library of the major it was built for, while another major is installed: which, and
// where, and the two ways out (that major's toolkit, or the program's build for the other one).
bool other_major_installed(Context& c) {
  if (!c.copies.empty()) return false;
  // A framework that says which stack it works with says more (missing-runtime's framework variant).
  const FrameworkInUse* framework = framework_loading(c.input, c.module);
  const Recipe* recipe = framework ? c.input.rules.recipe(framework->recipe) : nullptr;
  if (recipe && !recipe->supported.empty()) return false;
  for (const Family& other : c.input.rules.families) {
    if (other.kind != c.family->kind || other.id == c.family->id || other.generation == "any") continue;
    const auto copies = installed(c.input, other.main);
    if (copies.empty()) continue;
    Json list = Json::array();
    std::vector<std::string> paths;
    for (const auto* copy : copies) {
      list.push_back(detail::copy_json(*copy));
      if (std::find(paths.begin(), paths.end(), detail::shown(*copy)) == paths.end())
        paths.push_back(detail::shown(*copy));
    }
    c.evidence["installed"] = std::move(list);
    // Those of the copies the process loads.
    for (const graph::Module& m : c.input.closure.modules) {
      if (m.resolution.failure == resolve::Failure::None && m.resolution.path &&
          std::any_of(copies.begin(), copies.end(),
                      [&](const env::DllCopy* copy) { return copy->path == m.resolution.path; }))
        c.related.push_back(m.key);
    }
    c.evidence["present_family"] = other.id;
    // An addon built for CUDA 12 misses all its CUDA 12 libraries at once: one finding lists them.
    c.majors.add(detail::first_needed_by(c.module) + '\n' + other.id, "installed", c.module.name,
                 {{"dll", c.module.name},
                  {"needed_by", detail::first_needed_by(c.module)},
                  {"wanted", c.family->generation},
                  {"present", other.generation},
                  {"copies", Value::list(paths)},
                  {"install", Value::code(c.family->install)}},
                 c.evidence, c.severity, c.related);
    return true;
  }
  return false;
}

// A CUDA library of one major version wanted by a process that loads the other one.
bool cuda_major(Context& c) {
  // Generation "any": a file name that several CUDA majors share says nothing about the major.
  if (!c.family || c.family->kind != "cuda" || c.family->generation == "any") return false;
  for (const graph::Module& other : c.input.closure.modules) {
    if (other.resolution.failure != resolve::Failure::None) continue;
    const Family* family = c.input.rules.family_of(other.key);
    if (!family || family->kind != "cuda" || family->generation == "any" || family->generation == c.family->generation)
      continue;
    std::string present;
    for (const graph::Module& m : c.input.closure.modules) {
      if (m.resolution.failure == resolve::Failure::None && c.input.rules.family_of(m.key) == family) {
        present += (present.empty() ? "" : ", ") + m.name;
      }
    }
    c.evidence["present_family"] = family->id;
    c.sink.emit("cuda-major-mismatch", "default", c.module.name,
                {{"dll", c.module.name},
                 {"needed_by", detail::first_needed_by(c.module)},
                 {"wanted", c.family->generation},
                 {"present", family->generation},
                 {"present_dlls", present}},
                c.evidence, c.severity, c.related);
    return true;
  }
  return other_major_installed(c);
}

// Siblings that a loaded main DLL of their family loads by name: grouped per main DLL and reason, since
// one partial copy of a zip usually misses several at once.
struct SiblingGroup {
  std::vector<std::string> dlls;
  std::vector<std::string> copies;  // copy_elsewhere: one copy of each missing DLL
  Vars vars;
  Json evidence;
  std::optional<Severity> severity;
  std::vector<DllName> main;  // the main DLL that loads them: the finding concerns it too
};
using SiblingGroups = std::map<std::pair<std::string, std::string>, SiblingGroup>;  // (main, variant)

bool missing_sibling(Context& c, SiblingGroups& groups) {
  if (!c.family || c.family->kind != "cudnn" || is_main(*c.family, c.module.key)) return false;
  const graph::Module* main = nullptr;
  for (const graph::Module& m : c.input.closure.modules) {
    if (m.resolution.failure == resolve::Failure::None && m.resolution.path && is_main(*c.family, m.key)) main = &m;
  }
  if (!main) return false;
  const std::string main_path = display_path(main->resolution.windows_path, *main->resolution.path);
  Vars vars = {{"main", main->name}, {"main_folder", folder_of(main_path)}, {"family", c.family->name}};
  std::string variant = "absent";
  Json copy = nullptr;
  for (const auto* candidate : c.copies) {
    if (candidate->source.kind == env::CopySource::Kind::NextToMainDll) {
      variant = "next_to_main";
      vars["folder"] = folder_of(detail::shown(*candidate));
      copy = detail::copy_json(*candidate);
    }
  }
  if (variant == "absent" && !c.copies.empty()) {
    variant = "copy_elsewhere";
    copy = detail::copy_json(*c.copies.front());
  }
  // Absent, and loaded only by the newer releases of the main DLL (cuDNN 9.20's extra siblings): a bundle
  // put together from an older release lacks them, which the rules' note explains.
  const auto& main_version = main->resolution.image ? main->resolution.image->file_version : std::nullopt;
  // The release an install of the missing siblings must match (the planner's stand-ins carry it).
  vars["main_version"] = main_version ? main_version->to_string() : std::string();
  for (const VersionedLoads& versioned : c.family->versioned_loads) {
    const bool listed =
        std::find(versioned.loads.begin(), versioned.loads.end(), c.module.key) != versioned.loads.end();
    if (variant != "absent" || !listed || versioned.why.empty() || !main_version) continue;
    variant = "absent_newer";
    vars["main_version"] = main_version->to_string();
    vars["versions"] = versioned.versions.text();
    vars["why"] = versioned.why;
  }
  SiblingGroup& group = groups[{main->name, variant}];
  if (group.dlls.empty()) {
    group.vars = vars;
    group.evidence = Json{{"main", main_path}, {"missing", Json::array()}};
    group.main = {main->key};
  }
  group.dlls.push_back(c.module.name);
  if (variant == "copy_elsewhere") group.copies.push_back(detail::shown(*c.copies.front()));
  group.evidence["missing"].push_back(
      Json{{"dll", c.module.name}, {"copy", copy}, {"searched", c.evidence["searched"]}});
  return true;
}

void emit_sibling_groups(FindingSink& sink, SiblingGroups& groups) {
  for (auto& [key, group] : groups) {
    std::string names;
    for (const auto& dll : group.dlls) names += (names.empty() ? "" : ", ") + dll;
    group.vars["dll"] = names;
    group.vars["dlls"] = Value::list(group.dlls);
    // Copy-Item takes a list of sources: one command copies every missing sibling.
    group.vars["copies"] = Value::list(group.copies);
    sink.emit("missing-sibling", key.second, group.dlls.front(), group.vars, group.evidence, group.severity,
              group.main);
  }
}

// A pip wheel of this Python environment has the DLL (nvidia-cudnn-cu12's nvidia\cudnn\bin): Python never
// searches site-packages folders, and PATH would not help most of its loads (LOAD_LIBRARY_SEARCH flags), so
// the folder must be added the way Python adds DLL folders.
bool in_pip_wheel(Context& c) {
  auto wheel = std::find_if(c.copies.begin(), c.copies.end(), [](const env::DllCopy* copy) {
    return copy->source.kind == env::CopySource::Kind::PipWheel;
  });
  if (wheel == c.copies.end()) return false;
  const std::string folder = folder_of(detail::shown(**wheel));
  c.sink.emit("not-on-search-path", "python_wheel", c.module.name,
              {{"dll", c.module.name},
               {"copy", detail::shown(**wheel)},
               {"folder", folder},
               {"folder_python", Value::python_path(folder)},
               {"needed_by", detail::first_needed_by(c.module)}},
              c.evidence, c.severity, c.related);
  return true;
}

// Whether `copy` is in a CUDA toolkit's DLL folder ([machine] toolkits, or one a CUDA_PATH variable names).
bool in_toolkit(const RuleInput& input, const env::DllCopy& copy) {
  return copy.windows_path &&
         toolkit_root(input.rules.machine, input.environment, folder_of(*copy.windows_path)).has_value();
}

// Whether a KnownDLL (kernel32, user32, ...) that the process needs is missing: every Windows has those, so
// their absence is evidence of a partial copy. (A DLL of an optional feature, mfplat.dll on an N edition, is
// not: that Windows is complete and lacks the feature.)
bool core_windows_missing(const RuleInput& input) {
  for (const graph::Module& module : input.closure.modules) {
    if (module.resolution.failure != resolve::Failure::NotFound) continue;
    const auto& known = input.environment.known_dlls;
    if (std::find(known.begin(), known.end(), module.key) != known.end()) return true;
  }
  return false;
}

// zlibwapi, the MSVC runtime, CUDA libraries, the driver, vendor libraries: runtimes the program's DLLs need.
bool missing_runtime(Context& c) {
  if (!c.family) return false;
  // cuDNN has its own findings (generations, siblings, copies); one that no disk has and a framework
  // loads is this finding's framework variant, with the stacks that framework works with.
  if (c.family->kind == "cudnn" && !c.copies.empty()) return false;
  Vars vars = {{"dll", c.module.name},
               {"family", c.family->name},
               {"needed_by", detail::first_needed_by(c.module)},
               {"install", Value::code(c.family->install)},
               {"redist_folder", c.family->redist_folder},
               {"system_folder", detail::shown(c.input.closure.process_machine == pe::machine::kI386 &&
                                                       !c.input.environment.syswow64.host.empty()
                                                   ? c.input.environment.syswow64
                                                   : c.input.environment.system32)}};
  // Next to the DLL that needs it is a place the process searches only if that DLL is in the program's
  // folder or on PATH, which it is when it loaded by name: the usual case.
  std::string target;
  for (const graph::Module& m : c.input.closure.modules) {
    if (m.name == detail::first_needed_by(c.module) && m.resolution.path) {
      target = folder_of(display_path(m.resolution.windows_path, *m.resolution.path));
    }
  }
  // A driver's DLL comes only with its driver: a stray copy elsewhere (a plugin's folder, an old SDK) is
  // no fix, and copying it would pair the program with a loader that does not match the installed driver.
  if (!c.copies.empty() && c.family->kind != "driver") {
    const env::DllCopy& copy = *c.copies.front();
    // A copy beside the DLL that needs it (or beside a loaded one, or in its package) is not missing: the load call did
    // not search there, which not-on-search-path explains; copying it "next to its importer" would copy it onto itself.
    // So is one in a folder another version of the framework adds: the version is the cause.
    const auto kind = copy.source.kind;
    if (kind == env::CopySource::Kind::NextToImporter || kind == env::CopySource::Kind::NextToLoaded ||
        kind == env::CopySource::Kind::InPackage || kind == env::CopySource::Kind::NotAdded)
      return false;
    vars["copy"] = detail::shown(copy);
    vars["folder"] = folder_of(detail::shown(copy));
    vars["target_folder"] = target.empty() ? folder_of(detail::shown(copy)) : target;
    const char* variant = in_toolkit(c.input, copy) ? "toolkit" : "copy_elsewhere";
    c.sink.emit("missing-runtime", variant, c.module.name, vars, c.evidence, c.severity, c.related);
    return true;
  }
  vars["target_folder"] = target.empty() ? std::string("<a folder on PATH>") : target;
  // The driver's DLL comes only with the driver, and the MSVC runtime from Microsoft's redistributable:
  // a loose copy from elsewhere is the wrong advice for both.
  std::string variant = c.family->kind == "driver" ? "driver" : c.family->kind == "msvc" ? "msvc" : "default";
  if (variant == "default" && framework_support(c, vars)) variant = "framework";
  if (c.family->kind == "cudnn" && variant != "framework") return false;
  c.sink.emit("missing-runtime", variant, c.module.name, vars, c.evidence, c.severity, c.related);
  return true;
}

// A DLL its loader's code loads when a feature first needs it ([[lazy_load]]: onnxruntime's cuDNN and
// cuFFT), and no disk has: loading the loader succeeds, and the failure comes then.
bool missing_lazy(Context& c) {
  const graph::LazyLoad* lazy = lazy_rule(c.input, c.module);
  // A driver's DLL says "install the driver" whoever loads it (missing-runtime's driver variant).
  if (!lazy || !c.family || !c.copies.empty() || c.family->kind == "driver") return false;
  c.evidence["when"] = lazy->when;
  c.sink.emit("missing-runtime", "lazy", c.module.name,
              {{"dll", c.module.name},
               {"family", c.family->name},
               {"needed_by", detail::first_needed_by(c.module)},
               {"when", lazy->when},
               {"install", Value::code(c.family->install)}},
              c.evidence, c.severity, c.related);
  return true;
}

// "user" or "machine" when the copy's folder is an entry of that PATH in the registry. The inventory
// records each copy once, with the first place it was seen ("install place" comes before the registry
// PATH), so the source alone does not tell.
std::string registry_scope(const RuleInput& input, const env::DllCopy& copy) {
  if (copy.source.kind == env::CopySource::Kind::UserPath) return "user";
  if (copy.source.kind == env::CopySource::Kind::MachinePath) return "machine";
  if (!copy.windows_path) return {};
  return detail::registry_path_scope(input.environment, folder_of(*copy.windows_path));
}

// The entry of the process's PATH that names a folder above `folder` (the cuDNN installer puts
// ...\CUDNN\v9.x\bin on PATH, and its DLLs are in bin\<cuda>\x64 below it): the loader searches the
// folder an entry names, never the folders under it.
const env::PathEntry* entry_above(const env::Environment& environment, const std::string& folder) {
  const env::PathEntry* closest = nullptr;
  for (const env::PathEntry& entry : environment.path) {
    if (!entry.folder.exists || !is_below(folder, entry.folder.host)) continue;
    if (!closest || entry.folder.host.size() > closest->folder.host.size()) closest = &entry;
  }
  return closest;
}

bool not_on_search_path(Context& c) {
  if (c.copies.empty()) return false;
  // A copy in a folder the registry PATH has explains more than one found by searching.
  const env::DllCopy* best = c.copies.front();
  std::string scope;
  for (const auto* candidate : c.copies) {
    scope = registry_scope(c.input, *candidate);
    if (!scope.empty()) {
      best = candidate;
      break;
    }
  }
  const env::DllCopy& copy = *best;
  const std::string folder = folder_of(detail::shown(copy));
  const bool user = scope == "user";
  const bool machine = scope == "machine";
  if (user || machine) c.evidence["registry_path"] = scope;
  if (user || machine) {
    c.sink.emit("not-on-search-path", "stale_terminal", c.module.name,
                {{"dll", c.module.name},
                 {"folder", folder},
                 {"scope", user ? "user" : "machine"},
                 {"scope_name", user ? "User" : "Machine"}},
                c.evidence, c.severity, c.related);
  } else if (copy.source.kind == env::CopySource::Kind::NextToImporter ||
             copy.source.kind == env::CopySource::Kind::NextToLoaded) {
    const bool importer = copy.source.kind == env::CopySource::Kind::NextToImporter;
    const std::string& beside = copy.source.module;
    c.evidence["beside"] = beside;
    c.sink.emit("not-on-search-path", importer ? "next_to_importer" : "next_to_loaded", c.module.name,
                {{"dll", c.module.name},
                 {"copy", detail::shown(copy)},
                 {"beside", beside},
                 {"needed_by", detail::first_needed_by(c.module)},
                 {"folder", folder}},
                c.evidence, c.severity, c.related);
  } else if (copy.source.kind == env::CopySource::Kind::InPackage) {
    c.evidence["package_of"] = copy.source.module;
    c.sink.emit("not-on-search-path", "in_package", c.module.name,
                {{"dll", c.module.name},
                 {"copy", detail::shown(copy)},
                 {"needed_by", detail::first_needed_by(c.module)},
                 {"folder", folder}},
                c.evidence, c.severity, c.related);
  } else if (copy.source.kind == env::CopySource::Kind::NotAdded) {
    c.sink.emit("not-on-search-path", "not_added", c.module.name,
                {{"dll", c.module.name},
                 {"copy", detail::shown(copy)},
                 {"needed_by", detail::first_needed_by(c.module)},
                 {"folder", folder},
                 {"folder_python", Value::python_path(folder)},
                 {"not_added", copy.source.module}},
                c.evidence, c.severity, c.related);
  } else if (const env::PathEntry* above = entry_above(c.input.environment, copy.folder)) {
    Vars vars = detail::path_entry_vars(c.input.environment, above->text);
    vars["dll"] = c.module.name;
    vars["copy"] = detail::shown(copy);
    vars["folder"] = folder;
    c.evidence["entry"] = above->text;
    c.sink.emit("not-on-search-path", "entry_above", c.module.name, vars, c.evidence, c.severity, c.related);
  } else {
    c.sink.emit(
        "not-on-search-path", "default", c.module.name,
        {{"dll", c.module.name}, {"copy", detail::shown(copy)}, {"source", copy.source.text()}, {"folder", folder}},
        c.evidence, c.severity, c.related);
  }
  return true;
}

// Found only inside an archive (an Electron app's app.asar, a zip, a wheel): the copy is there, and the
// loader cannot read it.
bool packed(Context& c) {
  const auto& packed = c.input.inventory.packed;
  const auto copy = std::find_if(packed.begin(), packed.end(),
                                 [&](const env::PackedCopy& p) { return DllName::of_file(p.name) == c.module.key; });
  if (copy == packed.end()) return false;
  const std::string archive = display_path(copy->windows_archive, copy->archive);
  const char separator = archive.find('\\') != std::string::npos ? '\\' : '/';
  std::string member = copy->member;
  std::replace(member.begin(), member.end(), '/', separator);
  // An asar's files go to the same place in the .unpacked folder beside it; a zip's next to it.
  const std::string folder =
      copy->kind == env::ArchiveKind::Asar ? folder_of(archive + ".unpacked" + separator + member) : folder_of(archive);
  c.evidence["archive"] = archive;
  c.evidence["member"] = copy->member;
  c.sink.emit("not-installed", std::string("in_") + env::archive_kind_name(copy->kind), c.module.name,
              {{"dll", c.module.name},
               {"needed_by", detail::first_needed_by(c.module)},
               {"archive", archive},
               {"member", member},
               {"folder", folder}},
              c.evidence, c.severity, c.related);
  return true;
}

// An API set the schema does not resolve: Windows itself lacks it, so no folder or copy can help (the
// loader never reads API sets from files) and the disk-wide search of "not-installed" would mislead.
void missing_api_set(Context& c) {
  const env::ApiSetSchema& schema = c.input.environment.api_sets;
  const std::string described = schema.is_builtin() ? "the built-in table of Windows 10/11 x64" : schema.source();
  c.evidence["api_set_schema"] = schema.source();
  std::string variant = "api_set_no_host";
  if (!c.module.resolution.api_set_cycle.empty()) {
    variant = "api_set_cycle";
    c.evidence["api_set_cycle"] = c.module.resolution.api_set_cycle;
  } else if (!schema.lists(c.module.key.key())) {
    variant = c.module.key.key().rfind("api-ms-win-crt-", 0) == 0 ? "api_set_ucrt" : "api_set";
  }
  std::string cycle;
  for (const std::string& set : c.module.resolution.api_set_cycle) cycle += (cycle.empty() ? "" : " -> ") + set;
  c.sink.emit("not-installed", variant, c.module.name,
              {{"dll", c.module.name},
               {"needed_by", detail::first_needed_by(c.module)},
               {"schema", described},
               {"cycle", cycle}},
              c.evidence, c.severity, c.related);
}

// A DLL one LoadLibrary call does not find and a later call of the same process does (found in a folder
// an AddDllDirectory or SetDllDirectory made searchable in between, or loaded by then): the module's final
// state is "found", so no detector above speaks of it, yet the earlier call failed, and the verdict is that
// failure. The order of the two calls is the cause: a failing verdict never stands alone.
void found_only_later(const RuleInput& input, FindingSink& sink) {
  const auto& loads = input.closure.loads;
  const auto& calls = input.request.loads;
  for (std::size_t i = 0; i < loads.size() && i < calls.size(); ++i) {
    if (loads[i].ok) continue;
    for (const graph::MissingDll& missing : loads[i].missing) {
      const graph::Module* module = detail::module_named(input.closure, missing.dll);
      if (!module || module->resolution.failure != resolve::Failure::None || !module->resolution.path ||
          !module->load_call || *module->load_call <= i || *module->load_call >= calls.size())
        continue;
      const std::size_t later = *module->load_call;
      const std::string path = display_path(module->resolution.windows_path, *module->resolution.path);
      const std::string folder = folder_of(path);
      auto who = [&](std::size_t call) {
        return calls[call].origin.empty() ? loads[call].request : calls[call].origin;
      };
      sink.emit("found-only-later", "default", module->name,
                {{"dll", module->name},
                 {"needed_by", missing.needed_by},
                 {"call", who(i)},
                 {"later_call", who(later)},
                 {"folder", folder},
                 {"folder_python", Value::python_path(folder)},
                 {"step", std::string(resolve::step_label(module->resolution.found_by))}},
                {{"failed_call", loads[i].request},
                 {"later_call", loads[later].request},
                 {"path", path},
                 {"found_by", std::string(resolve::step_name(module->resolution.found_by))}},
                calls[i].failure_caught ? std::optional<Severity>(Severity::Warning) : std::nullopt);
    }
  }
}

}  // namespace

void detect_missing_dlls(const RuleInput& input, FindingSink& sink) {
  SiblingGroups siblings;
  // DLLs that no disk has are grouped per importer: a vendor's SDK not installed misses several at once.
  detail::FindingGroups not_installed("not-installed", {{"dll", "dlls"}});
  detail::FindingGroups majors("cuda-major-mismatch", {{"dll", "dlls"}});
  for (const graph::Module& module : input.closure.modules) {
    if (module.is_root || module.resolution.failure != resolve::Failure::NotFound) continue;
    Context c{input, sink, majors, module, input.rules.family_of(module.key), {}, Json::object(), std::nullopt, {}};
    for (const std::string& importer : module.needed_by) c.related.emplace_back(importer);
    // A delay-loaded DLL fails only when first called, and maybe never; a DLL only some features of its
    // loader load (onnxruntime's cuFFT, for the FFT operators) is worth knowing, not a fault.
    if (module.load == graph::LoadKind::Delay) c.severity = Severity::Warning;
    const graph::LazyLoad* lazy = lazy_rule(input, module);
    if (lazy && lazy->optional) c.severity = Severity::Info;
    for (const env::DllCopy& copy : input.inventory.copies) {
      if (detail::is_copy_of(copy, module.key) && fits(input, copy)) c.copies.push_back(&copy);
    }
    Json searched = Json::array();
    for (const auto& s : module.resolution.searched) {
      searched.push_back({{"step", std::string(resolve::step_name(s.step))}, {"folder", detail::shown(s.folder)}});
    }
    Json copies = Json::array();
    for (const auto* copy : c.copies) copies.push_back(detail::copy_json(*copy));
    c.evidence = Json{{"load", std::string(graph::load_kind_name(module.load))},
                      {"needed_by", module.needed_by},
                      {"searched", std::move(searched)},
                      {"copies", std::move(copies)}};
    if (module.resolution.found_by == resolve::SearchStep::ApiSet) {
      missing_api_set(c);
      continue;
    }
    // Only wrong-machine files exist and no usable copy anywhere: detect_unloadable says the program is
    // the wrong build (wrong-machine, wrong_program); "not installed" would send the user looking for it.
    const bool only_wrong_machine =
        c.copies.empty() && !module.resolution.candidates.empty() &&
        std::all_of(module.resolution.candidates.begin(), module.resolution.candidates.end(),
                    [](const resolve::Candidate& cand) { return cand.verdict == resolve::Verdict::WrongMachine; });
    if (only_wrong_machine) continue;
    if (python_path_only(c) || wrong_generation(c) || cuda_major(c) || packed(c) || missing_sibling(c, siblings) ||
        in_pip_wheel(c) || missing_lazy(c) || missing_runtime(c) || not_on_search_path(c)) {
      continue;
    }
    // A DLL of Windows itself missing from the System32 under --sysroot: the copy of Windows is partial (a
    // few folders, not the drive); searching C:\ for kernel32.dll would be the wrong advice.
    const env::Environment& environment = input.environment;
    const bool partial_windows = environment.sysroot && !environment.assume_system_dlls &&
                                 environment.system32.exists && env::is_stock_system_dll(module.key) &&
                                 core_windows_missing(input);
    not_installed.add(detail::first_needed_by(module), partial_windows ? "partial_windows" : "default", module.name,
                      {{"dll", module.name},
                       {"needed_by", detail::first_needed_by(module)},
                       {"system_folder", detail::shown(environment.system32)}},
                      c.evidence, c.severity, c.related);
  }
  not_installed.emit(sink);
  majors.emit(sink);
  emit_sibling_groups(sink, siblings);
  found_only_later(input, sink);
}

}  // namespace dlldoctor::rules
