#include "dlldoctor/graph/dependency_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_map>

#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/env/inventory.hpp"

namespace dlldoctor::graph {

std::string_view load_kind_name(LoadKind kind) {
  switch (kind) {
    case LoadKind::Static: return "static";
    case LoadKind::Delay: return "delay";
    case LoadKind::Runtime: return "runtime";
    case LoadKind::NamedInData: return "named_in_data";
    case LoadKind::Dynamic: return "dynamic";
  }
  return "?";
}

namespace {

// Loads that happen when the library is first used, not when the module that makes them is loaded: a
// request's outcome does not wait for them.
bool at_first_use(LoadKind kind) {
  return kind == LoadKind::Delay || kind == LoadKind::Runtime || kind == LoadKind::NamedInData;
}

using resolve::Failure;
using resolve::SearchContext;

struct Edge {
  std::size_t to;
  LoadKind kind;
};

// A module's exports as the loader looks them up, both by binary search: names (the export name table is
// sorted by name, and this index is the same order over the image's items: no copy of a name) and ordinals
// (the items are in ordinal order already, so that list is rarely sorted again). Of equal keys the first
// listed answers.
struct ExportIndex {
  std::vector<std::pair<std::string_view, const pe::ExportItem*>> by_name;
  std::vector<std::pair<std::uint32_t, const pe::ExportItem*>> by_ordinal;

  template <typename Key>
  static const pe::ExportItem* find(const std::vector<std::pair<Key, const pe::ExportItem*>>& sorted, Key key) {
    auto found = std::lower_bound(sorted.begin(), sorted.end(), key,
                                  [](const auto& entry, const Key& wanted) { return entry.first < wanted; });
    return found != sorted.end() && found->first == key ? found->second : nullptr;
  }
  const pe::ExportItem* named(std::string_view name) const { return find(by_name, name); }
  const pe::ExportItem* numbered(std::uint32_t ordinal) const { return find(by_ordinal, ordinal); }
};

// What an importer (or a forwarder) asks an export table for: a name, else an ordinal.
struct ExportKey {
  std::optional<std::string> name;
  std::uint32_t ordinal = 0;
  std::string display() const { return name ? *name : fmt::format("#{}", ordinal); }
};

// Forwarders can chain; real chains are one or two long, hostile ones loop.
constexpr int kMaxForwarderDepth = 16;
// How deep a chain of imports is followed: a program, its DLLs and theirs are a dozen levels at most (torch:
// python.exe -> _C.pyd -> torch_python.dll -> torch_cuda.dll -> cudnn64_9.dll -> ...); a crafted chain of
// 60,000 DLLs, each importing the next, overflowed the stack. The walk recurses once per level.
constexpr int kMaxImportDepth = 256;

class Builder {
 public:
  Builder(resolve::Resolver& resolver, const LoadKnowledge& knowledge, env::FileSystem& files,
          const env::Environment& environment, Closure& closure)
      : resolver_(resolver), knowledge_(knowledge), files_(files), environment_(environment), closure_(closure) {}

  Result<bool> add_program(const ClosureRequest& request);
  void add_load(const LoadCall& call);
  // The call again after its 126, as LoadLibraryW with the PATH the call's retry names; its modules
  // that were not found are looked for again.
  void retry_load(const LoadCall& call, std::size_t root, const std::string& label);
  void add_preload(const std::string& path);
  void add_dll_directories(const std::vector<env::FolderRef>& folders);
  void expand_late_loads();
  Outcome outcome_from(std::size_t root, std::string request) const;

  void apply_settings(const resolve::ProcessSettings& settings) { closure_.process.settings = settings; }

 private:
  std::size_t request(std::string_view name, LoadKind kind, const SearchContext& context, const std::string& needed_by,
                      int depth, std::optional<std::size_t> parent);
  void expand_imports(std::size_t index, LoadKind kind, const SearchContext& context);
  void check_imports(std::size_t target, const std::vector<pe::ImportedFunction>& functions,
                     const std::string& importer, LoadKind kind, const SearchContext& context);
  std::optional<std::string> find_export(std::size_t module, const ExportKey& wanted, LoadKind kind,
                                         const SearchContext& context, int depth);
  const ExportIndex& exports_of(const pe::Image& image);
  void link(std::size_t from, std::size_t to, LoadKind kind);
  const DelayLoadHook* delay_load_hook(const std::string& importer, const DllName& dll) const;
  const LazyLoad* lazy_load(const std::string& loader, const DllName& dll) const;
  std::optional<std::string> first_on_path(const std::string& name) const;
  // The majors of each kind of GPU stack the process loads so far ("cuda" -> {"13"}).
  std::map<std::string, std::set<std::string>> process_generations() const;
  bool of_process_major(const DllName& dll, const std::map<std::string, std::set<std::string>>& generations) const;
  void expand_names_in_data(std::size_t index);
  void load_lazily(std::size_t index, const LazyLoad& lazy, const std::vector<DllName>& named,
                   const std::map<std::string, std::set<std::string>>& generations);
  // A delay import a hook answers with the process's own program (GetModuleHandle(NULL)): no search.
  void bind_to_host(std::size_t importer, const pe::ImportedDll& import, const DelayLoadHook& hook);
  // One more request for a module already in the closure.
  void note_request(std::size_t index, const std::string& needed_by, std::optional<std::size_t> parent, LoadKind kind);
  std::size_t add_module(std::string_view name, const DllName& key, LoadKind kind, int depth,
                         const std::string& needed_by, std::optional<std::size_t> parent,
                         resolve::Resolution resolution);

  resolve::Resolver& resolver_;
  const LoadKnowledge& knowledge_;
  env::FileSystem& files_;
  const env::Environment& environment_;
  Closure& closure_;
  std::unordered_map<DllName, std::size_t> index_;
  std::vector<std::vector<Edge>> edges_;
  std::map<const pe::Image*, ExportIndex> export_indexes_;
  std::size_t late_cursor_ = 0;
  std::optional<std::size_t> current_call_;  // the LoadLibrary call whose loads are being made
  bool depth_cut_ = false;                   // a chain was cut at kMaxImportDepth (said once)
};

void Builder::link(std::size_t from, std::size_t to, LoadKind kind) {
  auto& list = edges_[from];
  if (std::none_of(list.begin(), list.end(), [&](const Edge& e) { return e.to == to; })) {
    list.push_back({to, kind});
    closure_.modules[from].children.push_back(to);
  }
}

const LazyLoad* Builder::lazy_load(const std::string& loader, const DllName& dll) const {
  for (const LazyLoad& lazy : knowledge_.lazy_loads) {
    if (env::wildcard_match(lazy.loader, loader) &&
        std::find(lazy.dlls.begin(), lazy.dlls.end(), dll) != lazy.dlls.end())
      return &lazy;
  }
  return nullptr;
}

std::optional<std::string> Builder::first_on_path(const std::string& name) const {
  for (const env::PathEntry& entry : environment_.path) {
    if (!entry.folder.exists) continue;
    if (auto file = files_.find_file(entry.folder.host, name)) return file;
  }
  return std::nullopt;
}

std::map<std::string, std::set<std::string>> Builder::process_generations() const {
  std::map<std::string, std::set<std::string>> generations;
  for (const Module& module : closure_.modules) {
    if (module.resolution.failure != Failure::None || !module.family) continue;
    auto traits = knowledge_.families.find(*module.family);
    if (traits == knowledge_.families.end() || traits->second.generation == "any") continue;
    generations[traits->second.kind].insert(traits->second.generation);
  }
  return generations;
}

bool Builder::of_process_major(const DllName& dll,
                               const std::map<std::string, std::set<std::string>>& generations) const {
  auto family = knowledge_.family_of.find(dll);
  if (family == knowledge_.family_of.end()) return true;
  auto traits = knowledge_.families.find(family->second);
  if (traits == knowledge_.families.end() || traits->second.generation == "any") return true;
  // A process that loads nothing of that stack yet may use any major of it.
  auto kind = generations.find(traits->second.kind);
  return kind == generations.end() || kind->second.count(traits->second.generation) > 0;
}

void Builder::load_lazily(std::size_t index, const LazyLoad& lazy, const std::vector<DllName>& named,
                          const std::map<std::string, std::set<std::string>>& generations) {
  const std::string loader = closure_.modules[index].name;
  const int depth = closure_.modules[index].depth;
  // The rule's names this module holds, those of the process's majors first: one need, the first that
  // resolves satisfies it.
  std::vector<std::string> alternatives;
  for (const DllName& dll : lazy.dlls) {
    if (std::find(named.begin(), named.end(), dll) != named.end() && of_process_major(dll, generations))
      alternatives.push_back(dll.key());
  }
  if (alternatives.empty()) {
    for (const DllName& dll : lazy.dlls) {
      if (std::find(named.begin(), named.end(), dll) != named.end()) alternatives.push_back(dll.key());
    }
  }
  SearchContext context;
  context.flags = lazy.flags;
  for (const std::string& dll : alternatives) {
    if (resolver_.resolve(dll, closure_.process, context, loader).failure == Failure::None) {
      request(dll, LoadKind::NamedInData, context, loader, depth + 1, index);
      return;
    }
  }
  // The loader's own walk: the first PATH entry that holds the file, loaded by full path.
  for (const std::string& dll : lazy.then_path ? alternatives : std::vector<std::string>{}) {
    const auto file = first_on_path(dll);
    if (!file) continue;
    closure_.notes.push_back(fmt::format(
        "{} did not find {} in its first search, so it walks PATH itself and loads {} by full path ({})", loader, dll,
        env::windows_path_of(environment_, folder_of(*file)).value_or(folder_of(*file)), lazy.why));
    request(*file, LoadKind::NamedInData, context, loader, depth + 1, index);
    return;
  }
  request(alternatives.front(), LoadKind::NamedInData, context, loader, depth + 1, index);
}

void Builder::expand_names_in_data(std::size_t index) {
  const std::optional<std::string> path = closure_.modules[index].resolution.path;
  if (!path || closure_.modules[index].resolution.assumed) return;
  const std::string name = closure_.modules[index].name;
  const DllName self = closure_.modules[index].key;
  const auto generations = process_generations();
  std::vector<DllName> named;
  for (const std::string& text : resolver_.names_in_data(*path)) {
    const DllName key(text);
    // Unknown names (atl100.dll in 175 Wine DLLs) are never followed: they would be guesses.
    if (key != self && knowledge_.family_of.count(key)) named.push_back(key);
  }
  std::vector<const LazyLoad*> needs;
  std::vector<MayLoad> may_load;
  std::vector<std::string> other_major;
  // What a family's own DLL loads at run time is its family's runtime_loads; other names in its data (the
  // MSVC runtime naming concrt140.dll) say nothing about this process.
  const bool of_family = closure_.modules[index].family.has_value();
  for (const DllName& key : named) {
    if (const LazyLoad* lazy = lazy_load(name, key)) {
      if (std::find(needs.begin(), needs.end(), lazy) == needs.end()) needs.push_back(lazy);
    } else if (of_family) {
      continue;
    } else if (!of_process_major(key, generations)) {
      other_major.push_back(key.key());
    } else {
      // Where a plain LoadLibrary from its code would find it: a hint, not a load.
      may_load.push_back({key.key(), resolver_.resolve(key.key(), closure_.process, {}, name)});
    }
  }
  for (const LazyLoad* lazy : needs) load_lazily(index, *lazy, named, generations);
  closure_.modules[index].may_load = std::move(may_load);
  closure_.modules[index].other_major = std::move(other_major);
}

const DelayLoadHook* Builder::delay_load_hook(const std::string& importer, const DllName& dll) const {
  for (const DelayLoadHook& hook : knowledge_.delay_load_hooks) {
    if (env::wildcard_match(hook.importer, importer) &&
        std::find(hook.dlls.begin(), hook.dlls.end(), dll) != hook.dlls.end())
      return &hook;
  }
  return nullptr;
}

void Builder::bind_to_host(std::size_t importer, const pe::ImportedDll& import, const DelayLoadHook& hook) {
  const std::string name = closure_.modules[importer].name;
  const Module& host = closure_.modules[0];
  // A host that is not on this disk is only the process's name: no edge to a module that failed.
  if (host.resolution.failure == Failure::None) link(importer, 0, LoadKind::Delay);
  closure_.notes.push_back(
      fmt::format("{}'s delay import of {} is answered by its delay-load hook with the program "
                  "that hosts it, {} ({})",
                  name, import.dll, host.name, hook.why));
  // A host that was read must export what the import names (node.exe, or Electron's program, does).
  if (host.resolution.image) check_imports(0, import.functions, name, LoadKind::Delay, {});
}

std::size_t Builder::request(std::string_view name, LoadKind kind, const SearchContext& context,
                             const std::string& needed_by, int depth, std::optional<std::size_t> parent) {
  const DllName key(resolve::has_path(name) ? base_name(name) : std::string(name));
  auto existing = index_.find(key);
  std::size_t index = 0;
  bool first_of_name = true;  // the module later requests by this base name get
  if (existing != index_.end() && resolve::has_path(name) &&
      closure_.modules[existing->second].resolution.failure == Failure::None) {
    // A full path names one file: the loaded module answers only if it is that file (the resolver says
    // "loaded"); another file of the same name loads as a second module, and a missing one fails.
    resolve::Resolution by_path = resolver_.resolve(name, closure_.process, context, needed_by);
    if (by_path.found_by == resolve::SearchStep::Loaded) {
      index = existing->second;
      note_request(index, needed_by, parent, kind);
      return index;
    }
    index = add_module(name, key, kind, depth, needed_by, parent, std::move(by_path));
    first_of_name = false;
  } else if (existing != index_.end()) {
    index = existing->second;
    note_request(index, needed_by, parent, kind);
    Module& module = closure_.modules[index];
    if (module.resolution.failure == Failure::None) return index;
    // Not found before; a later LoadLibraryEx with other flags or settings may find it.
    resolve::Resolution again = resolver_.resolve(name, closure_.process, context, needed_by);
    if (again.failure != Failure::None) return index;
    module.resolution = std::move(again);
    module.load = kind;
    module.load_call = current_call_;
  } else {
    index = add_module(name, key, kind, depth, needed_by, parent,
                       resolver_.resolve(name, closure_.process, context, needed_by));
    index_.emplace(key, index);
  }
  // Copied out: the requests below grow closure_.modules, which moves its elements.
  const resolve::Resolution& resolution = closure_.modules[index].resolution;
  if (resolution.failure != Failure::None) return index;
  // The loaded-module list: later requests for this base name get the first module of that name. An API
  // set name is never a module of its own (the loader maps it to its host before that list).
  if (first_of_name && resolution.found_by != resolve::SearchStep::ApiSet && (resolution.path || resolution.assumed))
    closure_.process.loaded[key] = resolution.path.value_or("");
  const std::optional<std::string> api_set_host = resolution.api_set_host;
  const bool has_image = resolution.image != nullptr;
  if (api_set_host) request(*api_set_host, kind, context, closure_.modules[index].name, depth + 1, index);
  if (has_image && closure_.modules[index].depth < kMaxImportDepth) {
    expand_imports(index, kind, context);
  } else if (has_image && !depth_cut_) {
    depth_cut_ = true;
    closure_.notes.push_back(
        fmt::format("the chain of imports that reaches {} is {} modules deep: the imports of {} and of the modules "
                    "below it are not followed, so what they need is not checked (no real program's chain is a "
                    "tenth as deep)",
                    closure_.modules[index].name, kMaxImportDepth, closure_.modules[index].name));
  }
  return index;
}

void Builder::note_request(std::size_t index, const std::string& needed_by, std::optional<std::size_t> parent,
                           LoadKind kind) {
  Module& module = closure_.modules[index];
  if (std::find(module.needed_by.begin(), module.needed_by.end(), needed_by) == module.needed_by.end()) {
    module.needed_by.push_back(needed_by);
  }
  if (parent) link(*parent, index, kind);
}

std::size_t Builder::add_module(std::string_view name, const DllName& key, LoadKind kind, int depth,
                                const std::string& needed_by, std::optional<std::size_t> parent,
                                resolve::Resolution resolution) {
  Module module;
  module.name = resolve::has_path(name) ? base_name(name) : std::string(name);
  module.key = key;
  module.load = kind;
  module.depth = depth;
  module.needed_by.push_back(needed_by);
  module.load_call = current_call_;
  if (auto family = knowledge_.family_of.find(key); family != knowledge_.family_of.end())
    module.family = family->second;
  module.resolution = std::move(resolution);
  closure_.modules.push_back(std::move(module));
  edges_.emplace_back();
  const std::size_t index = closure_.modules.size() - 1;
  if (parent) link(*parent, index, kind);
  return index;
}

void Builder::expand_imports(std::size_t index, LoadKind kind, const SearchContext& context) {
  // Copies: requests below grow closure_.modules and would invalidate references into it.
  const std::shared_ptr<const pe::Image> image = closure_.modules[index].resolution.image;
  const std::string name = closure_.modules[index].name;
  const int depth = closure_.modules[index].depth;
  for (const pe::ImportedDll& import : image->imports) {
    const std::size_t child = request(import.dll, kind, context, name, depth + 1, index);
    check_imports(child, import.functions, name, kind, context);
  }
}

const ExportIndex& Builder::exports_of(const pe::Image& image) {
  auto found = export_indexes_.find(&image);
  if (found != export_indexes_.end()) return found->second;
  ExportIndex index;
  if (image.exports) {
    index.by_name.reserve(image.exports->items.size());
    index.by_ordinal.reserve(image.exports->items.size());
    for (const pe::ExportItem& item : image.exports->items) {
      if (item.name) index.by_name.emplace_back(*item.name, &item);
      index.by_ordinal.emplace_back(item.ordinal, &item);
    }
    const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::stable_sort(index.by_name.begin(), index.by_name.end(), by_key);
    if (!std::is_sorted(index.by_ordinal.begin(), index.by_ordinal.end(), by_key))
      std::stable_sort(index.by_ordinal.begin(), index.by_ordinal.end(), by_key);
  }
  return export_indexes_.emplace(&image, std::move(index)).first->second;
}

std::optional<std::string> Builder::find_export(std::size_t module, const ExportKey& wanted, LoadKind kind,
                                                const SearchContext& context, int depth) {
  // An API set name forwards to its host (never another set: the resolver follows chains and stops cycles;
  // the count bounds this loop all the same).
  for (std::size_t hops = 0; closure_.modules[module].resolution.api_set_host; ++hops) {
    auto host = index_.find(DllName(*closure_.modules[module].resolution.api_set_host));
    if (host == index_.end() || hops > closure_.modules.size()) return std::nullopt;
    module = host->second;
  }
  const Module& target = closure_.modules[module];
  if (target.resolution.failure != Failure::None || !target.resolution.image)
    return std::nullopt;  // reported as missing DLL, or assumed
  const std::shared_ptr<const pe::Image> image = target.resolution.image;
  const ExportIndex& index = exports_of(*image);
  const pe::ExportItem* item = nullptr;
  if (wanted.name) {
    item = index.named(*wanted.name);
  } else {
    item = index.numbered(wanted.ordinal);
  }
  if (!item || (item->rva == 0 && !item->forwarder)) {
    return fmt::format("not exported by {}{}", target.name,
                       image->file_version ? " " + image->file_version->to_string() : std::string());
  }
  if (!item->forwarder) return std::nullopt;
  if (depth >= kMaxForwarderDepth) return fmt::format("forwarder chain through {} is a loop", target.name);
  const pe::Forwarder& forwarder = *item->forwarder;
  if (!forwarder.resolvable())
    return fmt::format("{} forwards it to \"{}\", which is malformed", target.name, forwarder.text);
  const std::string target_name = target.name;
  const std::size_t next = request(forwarder.dll, kind, context, target_name, target.depth + 1, module);
  if (closure_.modules[next].resolution.failure != Failure::None) {
    return fmt::format("{} forwards it to {}, which is not loadable", target_name, forwarder.text);
  }
  const ExportKey forwarded{forwarder.function, forwarder.ordinal.value_or(0)};
  auto problem = find_export(next, forwarded, kind, context, depth + 1);
  if (problem) return fmt::format("{} forwards it to {}: {}", target_name, forwarder.text, *problem);
  return std::nullopt;
}

void Builder::check_imports(std::size_t target, const std::vector<pe::ImportedFunction>& functions,
                            const std::string& importer, LoadKind kind, const SearchContext& context) {
  for (const pe::ImportedFunction& function : functions) {
    const ExportKey wanted{function.name, function.ordinal.value_or(0)};
    if (auto problem = find_export(target, wanted, kind, context, 0)) {
      closure_.modules[target].missing_exports.push_back(
          {wanted.display(), wanted.name ? std::nullopt : std::optional<std::uint32_t>(wanted.ordinal), importer,
           *problem});
    }
  }
}

Result<bool> Builder::add_program(const ClosureRequest& request) {
  resolve::ProcessState& process = closure_.process;
  const std::string program_name = base_name(request.program);
  process.exe_name = program_name;
  const std::string folder_text = request.program.substr(0, request.program.size() - program_name.size());
  process.app_dir = env::resolve_folder(environment_, folder_text.empty() ? "." : folder_text, files_);
  auto found = process.app_dir.exists ? files_.find_file(process.app_dir.host, program_name) : std::nullopt;
  Module root;
  root.name = program_name;
  root.key = DllName(program_name);
  root.is_root = true;
  root.resolution.requested = request.program;
  root.resolution.found_by = resolve::SearchStep::Root;
  root.needed_by.push_back(request.program_is_host ? "(host process)" : "(start-up)");
  if (!found) {
    if (!request.program_is_host) {
      const bool folder = process.app_dir.exists && files_.find_folder(process.app_dir.host, program_name);
      return Error{fmt::format("{}: {}", request.program, folder ? "is a folder, not a program" : "no such file")};
    }
    // A host named only for its folder (python.exe on another machine): the folder is the application
    // folder; its own imports are not simulated.
    closure_.notes.push_back(
        fmt::format("host {} not found: its folder is used as the application folder and "
                    "an x64 process is assumed",
                    request.program));
    process.machine = pe::machine::kAmd64;
    root.resolution.failure = Failure::NotFound;
    closure_.modules.push_back(std::move(root));
    edges_.emplace_back();
    index_.emplace(closure_.modules.back().key, 0);
    return true;
  }
  auto read = resolver_.read(*found);
  if (!read->ok()) return Error{fmt::format("{}: {}", request.program, read->error().message)};
  const std::shared_ptr<const pe::Image> image(read, &read->value());
  process.machine = image->machine;
  process.exe_has_manifest = image->manifest.has_value();
  root.resolution.path = *found;
  root.resolution.windows_path = env::windows_path_of(environment_, *found);
  closure_.process_machine = process.machine;
  // A program whose headers promise more bytes than the file has is not mapped at all (193): nothing it
  // imports is ever looked for.
  if (auto reason = pe::unmappable_reason(*image)) {
    resolve::Candidate self;
    self.step = resolve::SearchStep::Root;
    self.path = *found;
    self.windows_path = root.resolution.windows_path;
    self.machine = image->machine;
    self.file_version = image->file_version;
    self.verdict = resolve::Verdict::NotLoadable;
    self.problem = *reason;
    self.image = image;
    root.resolution.candidates.push_back(std::move(self));
    root.resolution.failure = Failure::BadImage;
    closure_.modules.push_back(std::move(root));
    edges_.emplace_back();
    index_.emplace(closure_.modules.back().key, 0);
    return true;
  }
  root.resolution.image = image;
  closure_.modules.push_back(std::move(root));
  edges_.emplace_back();
  index_.emplace(closure_.modules.back().key, 0);
  process.loaded[closure_.modules.back().key] = *found;
  expand_imports(0, LoadKind::Static, {});
  return true;
}

void Builder::add_preload(const std::string& path) {
  request(path, LoadKind::Dynamic, {}, "(preloaded)", 0, std::nullopt);
}

void Builder::add_dll_directories(const std::vector<env::FolderRef>& folders) {
  auto& user_dirs = closure_.process.settings.user_dirs;
  user_dirs.insert(user_dirs.end(), folders.begin(), folders.end());
}

void Builder::add_load(const LoadCall& call) {
  current_call_ = closure_.loads.size();
  add_dll_directories(call.add_dll_directories);
  if (call.set_dll_directory) closure_.process.settings.dll_directory = call.set_dll_directory;
  SearchContext context;
  context.flags = call.flags;
  if (resolve::has_path(call.name)) {
    const std::string file = base_name(call.name);
    context.dll_load_dir =
        env::resolve_process_folder(environment_, call.name.substr(0, call.name.size() - file.size()), files_);
  }
  const std::string label =
      fmt::format("{}LoadLibraryExW(\"{}\", 0x{:x})", call.origin.empty() ? std::string() : call.origin + ": ",
                  env::shown_path(environment_, call.name), call.flags);
  const DllName key(resolve::has_path(call.name) ? base_name(call.name) : call.name);
  auto existing = index_.find(key);
  const bool was_loaded =
      existing != index_.end() && closure_.modules[existing->second].resolution.failure == Failure::None;
  const std::size_t root = request(call.name, LoadKind::Dynamic, context, label, 0, std::nullopt);
  const bool already_loaded = was_loaded && root == existing->second;
  Outcome outcome = outcome_from(root, label);
  outcome.module = closure_.modules[root].name;
  outcome.module_index = root;
  const resolve::Resolution& resolution = closure_.modules[root].resolution;
  // A name nothing answered has no step; a bad image does: the step that reached the file that failed.
  if (already_loaded) {
    outcome.found_by = resolve::SearchStep::Loaded;
  } else if (resolution.failure != Failure::NotFound) {
    outcome.found_by = resolution.found_by;
  }
  const bool retry = !outcome.ok && outcome.error == 126 && !call.retry_with_path.empty();
  closure_.loads.push_back(std::move(outcome));
  if (retry) retry_load(call, root, label);
  current_call_ = std::nullopt;
}

void Builder::retry_load(const LoadCall& call, std::size_t root, const std::string& label) {
  auto& prepended = closure_.process.settings.path_prepended;
  for (const env::FolderRef& folder : call.retry_with_path) {
    if (std::none_of(prepended.begin(), prepended.end(),
                     [&](const env::FolderRef& f) { return f.host == folder.host; }))
      prepended.push_back(folder);
  }
  // The failed call loaded nothing, so the modules it did not find are looked for again in the
  // standard order (the loader's rollback of what it had found is not modelled: those stay as found).
  std::vector<std::size_t> missing;
  std::set<std::size_t> seen;
  std::vector<std::size_t> stack{root};
  while (!stack.empty()) {
    const std::size_t index = stack.back();
    stack.pop_back();
    if (!seen.insert(index).second) continue;
    if (closure_.modules[index].resolution.failure == Failure::NotFound) missing.push_back(index);
    for (const Edge& edge : edges_[index]) {
      if (!at_first_use(edge.kind)) stack.push_back(edge.to);
    }
  }
  const std::string retry_label = fmt::format("LoadLibraryW(\"{}\") after {} failed with 126", call.name, label);
  for (std::size_t index : missing) {
    // Copies: request() grows closure_.modules.
    const std::string name = closure_.modules[index].name;
    const std::string needed_by = closure_.modules[index].needed_by.front();
    request(name, closure_.modules[index].load, {}, needed_by, closure_.modules[index].depth, std::nullopt);
  }
  Outcome outcome = outcome_from(root, retry_label);
  outcome.module = closure_.modules[root].name;
  outcome.module_index = root;
  if (closure_.modules[root].resolution.failure != Failure::NotFound)
    outcome.found_by = closure_.modules[root].resolution.found_by;
  closure_.loads.back() = std::move(outcome);
}

void Builder::expand_late_loads() {
  // Delay imports load when first called and runtime siblings when their family's main DLL first needs
  // them: after the request's own loads (a recipe that loads a whole folder has loaded the siblings by
  // full path before cuDNN looks for them by name), through a plain LoadLibrary in the standard order.
  for (; late_cursor_ < closure_.modules.size(); ++late_cursor_) {
    const std::size_t index = late_cursor_;
    if (closure_.modules[index].resolution.failure != Failure::None) continue;
    current_call_ = closure_.modules[index].load_call;
    const std::shared_ptr<const pe::Image> image = closure_.modules[index].resolution.image;
    const std::string name = closure_.modules[index].name;
    const int depth = closure_.modules[index].depth;
    if (image) {
      for (const pe::ImportedDll& import : image->delay_imports) {
        const DelayLoadHook* hook =
            closure_.modules[index].resolution.path ? delay_load_hook(name, DllName(import.dll)) : nullptr;
        if (hook && hook->answer == DelayLoadHook::Answer::HostProgram) {
          bind_to_host(index, import, *hook);
          continue;
        }
        SearchContext context;
        std::string wanted = import.dll;
        if (hook) {
          // The hook's own LoadLibraryExW: the full path in the hooking module's folder.
          const std::string folder = folder_of(*closure_.modules[index].resolution.path);
          wanted = env::join_path(folder, import.dll);
          context.flags = hook->flags;
          context.dll_load_dir = env::resolve_folder(environment_, folder, files_);
          closure_.notes.push_back(
              fmt::format("{}'s delay import of {} is loaded by its delay-load hook from its own "
                          "folder with 0x{:x} ({})",
                          name, import.dll, hook->flags, hook->why));
        }
        const std::size_t child = request(wanted, LoadKind::Delay, context, name, depth + 1, index);
        check_imports(child, import.functions, name, LoadKind::Delay, context);
      }
    }
    if (auto loads = knowledge_.runtime_loads.find(closure_.modules[index].key);
        loads != knowledge_.runtime_loads.end()) {
      for (const RuntimeLoad& sibling : loads->second) {
        if (sibling.versions &&
            !(image && image->file_version &&
              sibling.versions->contains({image->file_version->parts.begin(), image->file_version->parts.end()})))
          continue;
        request(sibling.dll.key(), LoadKind::Runtime, {}, name, depth + 1, index);
      }
    }
    // Names in the module's data that a family knows: needs where a rule says its code loads them, else
    // hints of where they would come from.
    expand_names_in_data(index);
  }
  current_call_ = std::nullopt;
}

Outcome Builder::outcome_from(std::size_t root, std::string label) const {
  Outcome outcome;
  outcome.request = std::move(label);
  struct Failed {
    std::size_t module;
    std::string needed_by;
    int depth;
  };
  std::vector<Failed> failed;
  std::vector<std::pair<std::size_t, std::string>> missing_exports;  // module, function
  std::set<std::size_t> seen;
  // Depth-first in import order, as the loader maps a module's dependencies before snapping its imports.
  struct Frame {
    std::size_t module;
    std::string parent;
    int depth;
  };
  std::vector<Frame> stack{{root, "", 0}};
  std::set<std::string> members;
  while (!stack.empty()) {
    Frame frame = stack.back();
    stack.pop_back();
    if (!seen.insert(frame.module).second) continue;
    const Module& module = closure_.modules[frame.module];
    members.insert(module.name);
    if (module.resolution.failure != Failure::None && (!module.is_root || frame.module == root)) {
      // A failed root is what the request itself asked for.
      failed.push_back({frame.module, frame.module == root ? outcome.request : frame.parent, frame.depth});
      continue;
    }
    const auto& list = edges_[frame.module];
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
      if (at_first_use(it->kind)) continue;
      stack.push_back({it->to, module.name, frame.depth + 1});
    }
  }
  for (std::size_t index : seen) {
    for (const MissingExport& missing : closure_.modules[index].missing_exports) {
      if (members.count(missing.needed_by)) missing_exports.emplace_back(index, missing.function);
    }
  }
  std::stable_sort(failed.begin(), failed.end(), [](const Failed& a, const Failed& b) { return a.depth > b.depth; });
  for (const Failed& f : failed) {
    if (closure_.modules[f.module].resolution.failure == Failure::NotFound) {
      outcome.missing.push_back({closure_.modules[f.module].name, f.needed_by});
    }
  }
  if (!failed.empty()) {
    const Failed& cause = failed.front();
    const Module& module = closure_.modules[cause.module];
    outcome.ok = false;
    outcome.cause = cause.module;
    if (module.resolution.failure == Failure::NotFound) {
      outcome.error = 126;
      outcome.reason = fmt::format("{} was not found (needed by {})", module.name, cause.needed_by);
    } else if (module.is_root && !module.resolution.candidates.empty()) {
      outcome.error = 193;
      outcome.reason =
          fmt::format("{} cannot be loaded: {}", module.name, module.resolution.candidates.front().problem);
    } else {
      outcome.error = 193;
      // The path a Windows user reads (--sysroot, --map), as everywhere in the verdict.
      outcome.reason =
          fmt::format("{} at {} cannot be loaded into this process (needed by {})", module.name,
                      module.resolution.windows_path.value_or(module.resolution.path.value_or("?")), cause.needed_by);
    }
  } else if (!missing_exports.empty()) {
    const Module& module = closure_.modules[missing_exports.front().first];
    outcome.ok = false;
    outcome.error = 127;
    outcome.cause = missing_exports.front().first;
    outcome.reason = fmt::format("{} does not export {}", module.name, missing_exports.front().second);
  }
  return outcome;
}

}  // namespace

Result<Closure> build_closure(const ClosureRequest& request, resolve::Resolver& resolver, env::FileSystem& files,
                              const env::Environment& environment) {
  Closure closure;
  Builder builder(resolver, request.knowledge, files, environment, closure);
  auto added = builder.add_program(request);
  if (!added) return added.error();
  if (!closure.modules.empty() && closure.modules[0].resolution.failure != Failure::NotFound) {
    // A DLL named as the program is simulated as LoadLibraryEx with altered search path: its own folder
    // stands where a program's folder would.
    const auto& root = closure.modules[0];
    // A program that cannot be mapped keeps its image on its one candidate.
    const auto& self = root.resolution.candidates;
    const std::shared_ptr<const pe::Image> image =
        root.resolution.image ? root.resolution.image : (self.empty() ? nullptr : self.front().image);
    const bool dll = image && image->is_dll;
    closure.startup = builder.outcome_from(0, dll ? fmt::format("loading {} (its own folder searched first)", root.name)
                                                  : fmt::format("start-up of {}", root.name));
  }
  builder.apply_settings(request.settings);
  for (const std::string& path : request.preload) builder.add_preload(path);
  for (const LoadCall& call : request.loads) builder.add_load(call);
  builder.add_dll_directories(request.dirs_after_loads);
  builder.expand_late_loads();
  if (closure.loads.empty()) {
    closure.outcome = closure.startup.value_or(Outcome{});
  } else {
    // With LoadLibrary calls, the question is whether they succeed: the first failing one whose failure
    // the caller does not catch, else the last that succeeded.
    std::optional<std::size_t> failing, last_ok;
    for (std::size_t i = 0; i < closure.loads.size(); ++i) {
      if (closure.loads[i].ok) {
        last_ok = i;
      } else if (!failing && !request.loads[i].failure_caught) {
        failing = i;
      }
    }
    closure.outcome = closure.loads[failing ? *failing : last_ok.value_or(closure.loads.size() - 1)];
    // Every call of a recipe succeeded: the question was the import, not its last call.
    if (!failing && !request.loads.back().origin.empty()) closure.outcome.request = request.loads.back().origin;
  }
  std::string assumed_api_sets;
  for (const Module& module : closure.modules) {
    if (module.resolution.found_by == resolve::SearchStep::ApiSet && module.resolution.assumed)
      assumed_api_sets += (assumed_api_sets.empty() ? "" : ", ") + module.name;
  }
  if (!assumed_api_sets.empty()) {
    closure.notes.push_back(fmt::format(
        "API sets the built-in table (Windows 10/11 x64) does not list, assumed present: {}; --sysroot on a "
        "Windows disk, whose System32\\apisetschema.dll lists this Windows' API sets, would decide",
        assumed_api_sets));
  }
  closure.process_machine = closure.process.machine;
  return closure;
}

}  // namespace dlldoctor::graph
