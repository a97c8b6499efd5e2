#include "dlldoctor/resolve/resolver.hpp"

#include <algorithm>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/pe/reader.hpp"
#include "env/system_names.hpp"

namespace dlldoctor::resolve {

std::string_view step_name(SearchStep step) {
  switch (step) {
    case SearchStep::Root: return "root";
    case SearchStep::Explicit: return "explicit";
    case SearchStep::Loaded: return "loaded";
    case SearchStep::KnownDll: return "known_dll";
    case SearchStep::ApiSet: return "api_set";
    case SearchStep::Redirection: return "redirection";
    case SearchStep::AppDir: return "app_dir";
    case SearchStep::DllLoadDir: return "dll_load_dir";
    case SearchStep::UserDir: return "user_dir";
    case SearchStep::DllDirectory: return "dll_directory";
    case SearchStep::System32: return "system32";
    case SearchStep::System16: return "system16";
    case SearchStep::Windows: return "windows";
    case SearchStep::Cwd: return "cwd";
    case SearchStep::Path: return "path";
  }
  return "?";
}

std::string_view step_label(SearchStep step) {
  switch (step) {
    case SearchStep::Root: return "the program itself";
    case SearchStep::Explicit: return "the path given to LoadLibrary";
    case SearchStep::Loaded: return "already loaded in the process";
    case SearchStep::KnownDll: return "KnownDLLs";
    case SearchStep::ApiSet: return "the API set schema";
    case SearchStep::Redirection: return "the .local redirection folder";
    case SearchStep::AppDir: return "the program's folder";
    case SearchStep::DllLoadDir: return "the DLL's own folder";
    case SearchStep::UserDir: return "an AddDllDirectory folder";
    case SearchStep::DllDirectory: return "the SetDllDirectory folder";
    case SearchStep::System32: return "System32";
    case SearchStep::System16: return "the 16-bit System folder";
    case SearchStep::Windows: return "the Windows folder";
    case SearchStep::Cwd: return "the current folder";
    case SearchStep::Path: return "PATH";
  }
  return "?";
}

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::Chosen: return "chosen";
    case Verdict::Shadowed: return "shadowed";
    case Verdict::WrongMachine: return "wrong_machine";
    case Verdict::NotLoadable: return "not_loadable";
  }
  return "?";
}

bool machine_fits(std::uint16_t process, std::uint16_t dll) {
  using namespace pe::machine;
  if (process == dll) return true;
  // ARM64X files carry both ARM64 and ARM64EC code. An ARM64EC image's COFF header says AMD64, so an x64
  // process maps it like any x64 DLL (on ARM64 Windows its code runs natively beside the emulated x64
  // code; on x64 Windows nothing would run it, which no header check can tell): x64 and ARM64EC processes
  // take the same DLLs.
  if (dll == kArm64X) return process == kArm64 || process == kArm64Ec || process == kAmd64;
  const bool x64_process = process == kAmd64 || process == kArm64Ec;
  return x64_process && (dll == kAmd64 || dll == kArm64Ec);
}

bool has_path(std::string_view name) { return name.find_first_of("\\/") != std::string_view::npos; }

namespace {

// What the closure reads of every file it probes: the tables, and the DLL names in its data, which the
// closure asks of the modules that load. Read in the same pass, so a module's file is mapped once (a
// shadowed copy's data is scanned for nothing, a few of them per run).
constexpr pe::ReadParts kClosureParts{true, true, true, true};

}  // namespace

std::shared_ptr<const Result<pe::Image>> Resolver::read(const std::string& path) {
  return images_.get(files_.content_path(path), kClosureParts);
}

std::vector<std::string> Resolver::names_in_data(const std::string& path) const {
  auto image = images_.get(files_.content_path(path), kClosureParts);
  return image->ok() ? image->value().named_in_data : std::vector<std::string>{};
}

bool Resolver::assumes(const DllName& name, bool wow64, std::optional<pe::Version>* version) const {
  if (env::assumes_system_dll(environment_, name, wow64, version)) return true;
  const bool listed = wow64 ? environment_.syswow64_dlls.has_value() : environment_.system32_dlls.has_value();
  return !listed && assumed_too_.count(name) > 0;
}

const env::FolderRef& Resolver::system_folder(std::uint16_t process_machine) const {
  // A 32-bit process on 64-bit Windows sees SysWOW64 as System32 (WOW64 file system redirection).
  return process_machine == pe::machine::kI386 ? environment_.syswow64 : environment_.system32;
}

std::vector<SearchFolder> Resolver::search_order(const ProcessState& process, const SearchContext& context) const {
  std::vector<SearchFolder> order;
  const ProcessSettings& settings = process.settings;
  std::uint32_t search = context.flags & load_flags::kSearchMask;
  const bool altered = (context.flags & load_flags::kAlteredSearchPath) && context.dll_load_dir;
  // SetDefaultDllDirectories applies to every call that names no search flags of its own.
  if (search == 0 && !altered && settings.default_dirs) search = *settings.default_dirs;

  if (search != 0) {
    if (search & load_flags::kSearchDefaultDirs) {
      search |= load_flags::kSearchApplicationDir | load_flags::kSearchUserDirs | load_flags::kSearchSystem32;
    }
    if ((search & load_flags::kSearchDllLoadDir) && context.dll_load_dir) {
      order.push_back({SearchStep::DllLoadDir, *context.dll_load_dir});
    }
    if (search & load_flags::kSearchApplicationDir) order.push_back({SearchStep::AppDir, process.app_dir});
    if (search & load_flags::kSearchUserDirs) {
      for (const auto& folder : settings.user_dirs) order.push_back({SearchStep::UserDir, folder});
      if (settings.dll_directory) order.push_back({SearchStep::DllDirectory, *settings.dll_directory});
    }
    if (search & load_flags::kSearchSystem32) order.push_back({SearchStep::System32, system_folder(process.machine)});
    return order;
  }

  // The standard order (DOMAIN.md §1 steps 7-12); altered search path puts the DLL's folder in place of
  // the program's; SetDllDirectory puts its folder in place of the current one; SafeDllSearchMode off
  // moves the current folder up to second place.
  if (altered) {
    order.push_back({SearchStep::DllLoadDir, *context.dll_load_dir});
  } else {
    order.push_back({SearchStep::AppDir, process.app_dir});
  }
  const bool cwd_early = !environment_.safe_dll_search_mode && !settings.dll_directory;
  if (settings.dll_directory) order.push_back({SearchStep::DllDirectory, *settings.dll_directory});
  if (cwd_early) order.push_back({SearchStep::Cwd, environment_.cwd});
  order.push_back({SearchStep::System32, system_folder(process.machine)});
  order.push_back({SearchStep::System16, environment_.system16});
  order.push_back({SearchStep::Windows, environment_.windows});
  if (!cwd_early && !settings.dll_directory) order.push_back({SearchStep::Cwd, environment_.cwd});
  for (const auto& folder : settings.path_prepended) order.push_back({SearchStep::Path, folder});
  if (!settings.inherited_path_searched) return order;
  for (const auto& entry : environment_.path) {
    // A quoted entry names a folder whose name starts with a quote: it never exists.
    if (!entry.text.empty() && entry.text.front() == '"') continue;
    order.push_back({SearchStep::Path, entry.folder});
  }
  return order;
}

Candidate Resolver::probe(SearchStep step, const std::string& path, std::uint16_t process_machine,
                          std::shared_ptr<const pe::Image>& image) {
  Candidate candidate;
  candidate.step = step;
  candidate.path = path;
  candidate.windows_path = env::windows_path_of(environment_, path);
  candidate.mark_of_the_web = env::read_mark_of_the_web(files_, path);
  auto file = read(path);
  if (!file->ok()) {
    candidate.verdict = Verdict::NotLoadable;
    candidate.problem = file->error().message;
    return candidate;
  }
  const pe::Image& read_image = file->value();
  candidate.machine = read_image.machine;
  candidate.file_version = read_image.file_version;
  if (auto reason = pe::unmappable_reason(read_image)) {
    candidate.verdict = Verdict::NotLoadable;
    candidate.problem = *reason;
    return candidate;
  }
  candidate.verdict = machine_fits(process_machine, read_image.machine) ? Verdict::Shadowed : Verdict::WrongMachine;
  // Aliasing constructor: the image lives as long as the cached Result that owns it.
  image = std::shared_ptr<const pe::Image>(file, &read_image);
  candidate.image = image;
  return candidate;
}

namespace {

// Marks the first usable candidate as chosen, or, under the documented policy, fails on a wrong-machine
// or unloadable file met before any usable one.
void choose(Resolution& resolution, WrongMachinePolicy policy, std::vector<std::shared_ptr<const pe::Image>>& images) {
  for (std::size_t i = 0; i < resolution.candidates.size(); ++i) {
    Candidate& candidate = resolution.candidates[i];
    if (candidate.verdict == Verdict::WrongMachine || candidate.verdict == Verdict::NotLoadable) {
      if (policy == WrongMachinePolicy::Fail) {
        resolution.failure = Failure::BadImage;
        resolution.found_by = candidate.step;
        resolution.path = candidate.path;
        resolution.windows_path = candidate.windows_path;
        return;
      }
      continue;
    }
    candidate.verdict = Verdict::Chosen;
    resolution.found_by = candidate.step;
    resolution.assumed = candidate.assumed;
    if (candidate.assumed) {
      resolution.windows_path = candidate.windows_path;
    } else {
      resolution.path = candidate.path;
      resolution.windows_path = candidate.windows_path;
      resolution.image = images[i];
    }
    return;
  }
  resolution.failure = Failure::NotFound;
}

}  // namespace

void Resolver::resolve_path(std::string_view name, const ProcessState& process, Resolution& resolution) {
  std::vector<std::shared_ptr<const pe::Image>> images;
  auto add = [&](SearchStep step, const std::string& path) {
    std::shared_ptr<const pe::Image> image;
    resolution.candidates.push_back(probe(step, path, process.machine, image));
    images.push_back(std::move(image));
  };
  const std::string file = base_name(name);
  // app.exe.local as a file: the program's folder is tried first even for a full path.
  if (!process.exe_has_manifest && files_.find_file(process.app_dir.host, process.exe_name + ".local")) {
    if (auto redirected = files_.find_file(process.app_dir.host, file)) add(SearchStep::Redirection, *redirected);
  }
  const env::FolderRef folder =
      env::resolve_process_folder(environment_, std::string_view(name).substr(0, name.size() - file.size()), files_);
  resolution.searched.push_back({SearchStep::Explicit, folder});
  if (folder.exists) {
    if (auto found = files_.find_file(folder.host, file)) {
      auto loaded = process.loaded.find(DllName(file));
      if (loaded != process.loaded.end() && loaded->second == *found) {
        resolution.found_by = SearchStep::Loaded;
        resolution.path = *found;
        resolution.windows_path = env::windows_path_of(environment_, *found);
        add(SearchStep::Loaded, *found);
        resolution.candidates.back().verdict = Verdict::Chosen;
        resolution.image = images.back();
        return;
      }
      add(SearchStep::Explicit, *found);
    }
  }
  choose(resolution, policy_, images);
  // A path names one file: there is nothing to skip to, so even a loader that skips wrong-machine files
  // during a search (Wine, Dependencies: --wrong-machine skip) fails with 193 on it (Wine's probe of
  // finding_error_text_193_load_library).
  if (resolution.failure != Failure::NotFound || resolution.candidates.empty()) return;
  const Candidate& last = resolution.candidates.back();
  if (last.step == SearchStep::Explicit &&
      (last.verdict == Verdict::WrongMachine || last.verdict == Verdict::NotLoadable)) {
    resolution.failure = Failure::BadImage;
    resolution.found_by = last.step;
    resolution.path = last.path;
    resolution.windows_path = last.windows_path;
  }
}

Resolution Resolver::resolve(std::string_view name, const ProcessState& process, const SearchContext& context,
                             std::string_view importer) {
  Resolution resolution;
  resolution.requested = std::string(name);
  if (has_path(name)) {
    resolve_path(name, process, resolution);
    return resolution;
  }
  const DllName name_key(name);
  const std::string& key = name_key.key();

  if (env::ApiSetSchema::is_api_set_name(key)) {
    resolution.found_by = SearchStep::ApiSet;
    resolution.api_set_host = environment_.api_sets.resolve(key, importer);
    // A host that is itself an API set name: no Windows schema has one, a crafted one may chain sets, or
    // loop, and a closure that followed such a loop would never end. The chain is followed to a DLL, each
    // set once; a set met again is a cycle, and the import is unresolved.
    std::vector<std::string> chain{key};
    while (resolution.api_set_host && env::ApiSetSchema::is_api_set_name(*resolution.api_set_host)) {
      const std::string next = DllName(*resolution.api_set_host).key();
      const bool again = std::find(chain.begin(), chain.end(), next) != chain.end();
      chain.push_back(next);
      if (again) {
        resolution.api_set_host.reset();
        resolution.api_set_cycle = std::move(chain);
        resolution.failure = Failure::NotFound;
        return resolution;
      }
      resolution.api_set_host = environment_.api_sets.resolve(next, importer);
    }
    if (resolution.api_set_host) return resolution;
    // Only a real schema proves a set absent: the built-in table is one Windows build's, and a name it
    // does not know may be a newer set (DECISIONS.md, "Assumed API sets"). One it lists without a host is
    // absent there, as on Windows.
    if (environment_.api_sets.is_builtin() && !environment_.api_sets.lists(key)) {
      resolution.assumed = true;
    } else {
      resolution.failure = Failure::NotFound;
    }
    return resolution;
  }

  std::vector<std::shared_ptr<const pe::Image>> images;
  auto add = [&](SearchStep step, const std::string& path) {
    std::shared_ptr<const pe::Image> image;
    resolution.candidates.push_back(probe(step, path, process.machine, image));
    images.push_back(std::move(image));
  };
  auto add_assumed = [&](SearchStep step) {
    Candidate candidate;
    candidate.step = step;
    candidate.assumed = true;
    candidate.windows_path = *system_folder(process.machine).windows + "\\" + key;
    candidate.machine = process.machine;
    assumes(name_key, process.machine == pe::machine::kI386, &candidate.file_version);
    resolution.candidates.push_back(std::move(candidate));
    images.emplace_back();
  };

  const bool known = std::find(environment_.known_dlls.begin(), environment_.known_dlls.end(), name_key) !=
                     environment_.known_dlls.end();
  const env::FolderRef& system32 = system_folder(process.machine);
  const bool wow64 = process.machine == pe::machine::kI386;

  // Steps that decide before any folder is searched. Their winner is recorded first; the folder
  // candidates found afterwards are the copies it shadows.
  std::optional<std::size_t> decided;
  const std::string local_folder = process.exe_name + ".local";
  if (!known && !process.exe_has_manifest) {
    if (auto redirect = files_.find_folder(process.app_dir.host, local_folder)) {
      resolution.searched.push_back({SearchStep::Redirection, env::FolderRef{*redirect, std::nullopt, true}});
      if (auto found = files_.find_file(*redirect, key)) {
        add(SearchStep::Redirection, *found);
        decided = resolution.candidates.size() - 1;
      }
    }
  }
  auto loaded = process.loaded.find(name_key);
  // A system DLL that is not on this disk (no --sysroot, or a partial copy) is taken as present.
  auto system_copy = [&]() -> std::optional<std::string> {
    return system32.exists ? files_.find_file(system32.host, key) : std::nullopt;
  };
  if (!decided && loaded != process.loaded.end()) {
    if (loaded->second.empty()) {
      add_assumed(SearchStep::Loaded);
    } else {
      add(SearchStep::Loaded, loaded->second);
    }
    decided = resolution.candidates.size() - 1;
  } else if (!decided && known) {
    if (auto found = system_copy()) {
      add(SearchStep::KnownDll, *found);
      decided = resolution.candidates.size() - 1;
    } else if (environment_.assume_system_dlls && assumes(name_key, wow64)) {
      // A KnownDLLs name that is no stock Windows DLL (--known-dlls msvcp140) is not taken on trust: as a
      // KnownDLLs entry with no file in System32, the loader goes on with the search.
      add_assumed(SearchStep::KnownDll);
      decided = resolution.candidates.size() - 1;
    }
  }

  for (const SearchFolder& folder : search_order(process, context)) {
    resolution.searched.push_back(folder);
    if (folder.step == SearchStep::System32 && environment_.assume_system_dlls && assumes(name_key, wow64) &&
        !decided && !system_copy()) {
      add_assumed(SearchStep::System32);
      continue;
    }
    if (!folder.folder.exists) continue;
    if (auto found = files_.find_file(folder.folder.host, key)) {
      // One file reached twice (a folder on PATH that is also the program's folder) is one candidate.
      const bool seen = std::any_of(resolution.candidates.begin(), resolution.candidates.end(),
                                    [&](const Candidate& c) { return c.path == *found; });
      if (!seen) add(folder.step, *found);
    }
  }

  if (decided) {
    Candidate& winner = resolution.candidates[*decided];
    // The loaded module and KnownDLLs are taken as they are: the loader does not re-check them.
    winner.verdict = Verdict::Chosen;
    resolution.found_by = winner.step;
    resolution.assumed = winner.assumed;
    resolution.path = winner.assumed ? std::nullopt : std::optional<std::string>(winner.path);
    resolution.windows_path = winner.windows_path;
    resolution.image = images[*decided];
    // Copies reached later keep their "shadowed" or "wrong machine" verdict.
    return resolution;
  }
  choose(resolution, policy_, images);
  return resolution;
}

}  // namespace dlldoctor::resolve
