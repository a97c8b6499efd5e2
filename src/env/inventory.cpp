#include "dlldoctor/env/inventory.hpp"

#include <algorithm>

#include "core/text.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"
#include "dlldoctor/env/archives.hpp"

namespace dlldoctor::env {

std::string CopySource::text() const {
  switch (kind) {
    case Kind::LookIn: return "look-in";
    case Kind::InstallPlace: return "install place";
    case Kind::UserPath: return "user PATH (registry)";
    case Kind::MachinePath: return "machine PATH (registry)";
    case Kind::DamagedPathEntry: return "the folder a damaged PATH entry meant";
    case Kind::PipWheel: return "pip wheel";
    case Kind::NextToMainDll: return "next to the main DLL";
    case Kind::NextToImporter: return "next to its importer " + module;
    case Kind::NextToLoaded: return "next to the loaded module " + module;
    case Kind::InPackage: return "in the package of its importer " + module;
    case Kind::BesideImporter: return "beside its importer " + module;
    case Kind::BesideProgram: return "beside the program";
    case Kind::SearchPath: return "search path";
    case Kind::Scan: return "scan";
    case Kind::NotAdded: return module;
  }
  return "?";
}

namespace {

// Keeps a recursive --look-in from running away on a whole drive or a loop of links.
constexpr int kMaxLookInDepth = 8;
constexpr std::size_t kMaxLookInFolders = 20000;

DllCopy describe(const Environment& environment, const std::string& folder, const std::string& name,
                 const CopySource& source, FileSystem& files, pe::ImageCache& images) {
  DllCopy copy;
  copy.name = name;
  copy.path = join_path(folder, name);
  copy.windows_path = windows_path_of(environment, copy.path);
  copy.folder = folder;
  copy.source = source;
  auto image = images.get(files.content_path(copy.path));
  if (image->ok()) {
    copy.machine = image->value().machine;
    copy.file_version = image->value().file_version;
    copy.file_size = image->value().file_size;
  }
  return copy;
}

void collect(const Environment& environment, const std::string& folder, const std::set<DllName>& wanted,
             const CopySource& source, FileSystem& files, pe::ImageCache& images, std::vector<DllCopy>& out) {
  for (const std::string& name : files.file_names(folder)) {
    if (!wanted.count(DllName::of_file(name))) continue;
    const std::string path = join_path(folder, name);
    if (std::any_of(out.begin(), out.end(), [&](const DllCopy& c) { return c.path == path; })) continue;
    out.push_back(describe(environment, folder, name, source, files, images));
  }
}

// Calls visit(folder) for `folder` and the folders below it, as deep and as many as a --look-in may go.
template <typename Visit>
void walk(FileSystem& files, const std::string& folder, int depth, std::size_t& budget, Visit& visit) {
  if (budget == 0) return;
  --budget;
  visit(folder);
  if (depth >= kMaxLookInDepth) return;
  for (const std::string& sub : files.folder_names(folder))
    walk(files, join_path(folder, sub), depth + 1, budget, visit);
}

bool name_in(const std::vector<std::string>& names, const std::string& name) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return ascii_lower(n) == ascii_lower(name); });
}

// The root of the package `folder` lies in, and the folders from `folder` up to it; none when no marker
// or boundary is met within kMaxPackageDepth levels (a DLL in no package).
std::vector<std::string> package_folders(const InventoryRequest& request, const std::string& folder,
                                         FileSystem& files) {
  std::vector<std::string> chain;
  std::string at = folder;
  for (int depth = 0; depth < kMaxPackageDepth; ++depth) {
    if (name_in(request.package_boundaries, base_name(at))) return {};  // the boundary itself is no package
    chain.push_back(at);
    const std::string parent = folder_of(at);
    const bool marked = std::any_of(request.package_markers.begin(), request.package_markers.end(),
                                    [&](const std::string& marker) { return files.find_file(at, marker).has_value(); });
    if (marked || name_in(request.package_boundaries, base_name(parent))) return chain;
    if (parent.empty() || parent == at) return {};
    at = parent;
  }
  return {};
}

// `root`\`relative` (Windows separators in the rules), each name matched as Windows matches it.
std::optional<std::string> sub_folder(const std::string& root, const std::string& relative, FileSystem& files) {
  std::string at = root;
  std::size_t start = 0;
  while (start <= relative.size()) {
    const std::size_t end = relative.find_first_of("\\/", start);
    const std::string name = relative.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!name.empty()) {
      auto found = files.find_folder(at, name);
      if (!found) return std::nullopt;
      at = *found;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return at;
}

// The folders of the importer's package the inventory searches: those above the importer's own up to the
// package's root, and the root's usual DLL folders ([machine] package_dll_folders).
std::vector<std::string> package_search_folders(const InventoryRequest& request,
                                                const InventoryRequest::PackageSearch& package, FileSystem& files) {
  const std::vector<std::string> chain = package_folders(request, package.folder, files);
  if (chain.empty()) return {};
  std::vector<std::string> folders(chain.begin() + 1, chain.end());
  for (const std::string& relative : request.package_dll_folders) {
    if (auto folder = sub_folder(chain.back(), relative, files)) folders.push_back(*folder);
  }
  return folders;
}

// How many archives one inventory opens at most: each is a file read, and a --look-in of a download
// folder may hold hundreds.
constexpr std::size_t kMaxArchives = 64;

// Copies of `unfound` names inside the archives of the folders searched for copies: the asar beside an
// importer's app.asar.unpacked folder, the importer's package, the --look-in folders.
std::vector<PackedCopy> packed_copies(const Environment& environment, const InventoryRequest& request,
                                      const std::set<DllName>& unfound, FileSystem& files) {
  struct Archive {
    std::string path;
    ArchiveKind kind;
    CopySource source;
  };
  std::vector<Archive> archives;
  std::set<std::string> seen;
  auto add = [&](const std::string& path, ArchiveKind kind, const CopySource& source) {
    if (archives.size() < kMaxArchives && seen.insert(path).second) archives.push_back({path, kind, source});
  };
  auto archives_in = [&](const std::string& folder, const CopySource& source) {
    if (archives.size() >= kMaxArchives) return;
    for (const std::string& name : files.file_names(folder))
      if (const auto kind = archive_kind(name)) add(join_path(folder, name), *kind, source);
  };
  for (const InventoryRequest::PackageSearch& package : request.packages) {
    const CopySource source{CopySource::Kind::InPackage, package.module};
    // Electron keeps an addon that asarUnpack names in resources\app.asar.unpacked\..., and the rest of
    // the app in resources\app.asar beside that folder.
    for (std::string at = package.folder; !at.empty() && folder_of(at) != at; at = folder_of(at)) {
      const std::string name = base_name(at);
      const std::string_view tail = ".unpacked";
      if (!ends_with(ascii_lower(name), tail)) continue;
      const std::string archive = name.substr(0, name.size() - tail.size());
      if (archive_kind(archive) != ArchiveKind::Asar) continue;
      if (auto found = files.find_file(folder_of(at), archive)) add(*found, ArchiveKind::Asar, source);
      break;
    }
    archives_in(package.folder, source);
    for (const std::string& folder : package_search_folders(request, package, files)) archives_in(folder, source);
  }
  std::size_t budget = kMaxLookInFolders;
  auto look_in = [&](const std::string& folder) { archives_in(folder, {CopySource::Kind::LookIn, {}}); };
  for (const std::string& folder : request.look_in) walk(files, folder, 0, budget, look_in);

  std::vector<PackedCopy> packed;
  for (const Archive& archive : archives) {
    auto contents = read_contents(files, archive.path);
    if (!contents) continue;
    // An archive that is damaged or not what its name says holds nothing the loader could want.
    auto members = archive_members(contents->bytes, archive.kind);
    if (!members) continue;
    for (const std::string& member : *members) {
      const std::string name = member.substr(member.rfind('/') == std::string::npos ? 0 : member.rfind('/') + 1);
      if (unfound.count(DllName::of_file(name)))
        packed.push_back(
            {name, member, archive.path, windows_path_of(environment, archive.path), archive.kind, archive.source});
    }
  }
  return packed;
}

}  // namespace

std::vector<std::string> matching_folders(const Environment& environment, const std::string& pattern,
                                          FileSystem& files) {
  std::vector<std::string> folders;
  if (!is_windows_absolute(pattern)) return folders;
  if (environment.sysroot) {
    folders.push_back(*environment.sysroot);
  } else if (environment.host_paths_are_windows) {
    folders.push_back(pattern.substr(0, 3));
  } else {
    return folders;
  }
  std::size_t start = 3;
  while (start < pattern.size()) {
    std::size_t end = pattern.find('\\', start);
    if (end == std::string::npos) end = pattern.size();
    const std::string part = pattern.substr(start, end - start);
    start = end + 1;
    if (part.empty()) continue;
    std::vector<std::string> next;
    for (const std::string& folder : folders) {
      if (part.find_first_of("*?") == std::string::npos) {
        if (auto found = files.find_folder(folder, part)) next.push_back(*found);
        continue;
      }
      for (const std::string& name : files.folder_names(folder)) {
        if (wildcard_match(part, name)) next.push_back(join_path(folder, name));
      }
    }
    folders = std::move(next);
  }
  return folders;
}

bool wildcard_match(std::string_view pattern, std::string_view name) {
  // Iterative matching with one backtrack point: linear in practice, no recursion on hostile names.
  std::size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || lower(pattern[p]) == lower(name[n]))) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<FolderRef> path_folders(const Environment& environment, const std::string& value, FileSystem& files) {
  std::vector<FolderRef> folders;
  for (const std::string& entry : split_path_list(value)) {
    if (!entry.empty()) folders.push_back(resolve_folder(environment, entry, files));
  }
  return folders;
}

Inventory build_inventory(const Environment& environment, const InventoryRequest& request, FileSystem& files,
                          pe::ImageCache& images) {
  Inventory inventory;
  std::set<std::string> searched_hosts;
  for (const FolderRef& folder : request.search_folders) {
    if (!folder.exists || !searched_hosts.insert(folder.host).second) continue;
    FolderContents contents;
    contents.folder = folder;
    std::set<DllName> names = request.interesting;
    names.insert(request.wanted.begin(), request.wanted.end());
    collect(environment, folder.host, names, {CopySource::Kind::SearchPath, {}}, files, images, contents.dlls);
    if (!contents.dlls.empty()) inventory.search_folders.push_back(std::move(contents));
  }
  for (const InventoryRequest::NamedFile& wanted : request.files) {
    const auto found = files.find_file(wanted.folder, wanted.name);
    if (!found) continue;
    const auto same = [&](const DllCopy& c) { return c.path == *found; };
    if (std::none_of(inventory.copies.begin(), inventory.copies.end(), same))
      inventory.copies.push_back(describe(environment, wanted.folder, base_name(*found), wanted.source, files, images));
  }
  PackageClaims packages(files);
  for (const std::string& path : request.owned) {
    if (inventory.claims.count(path)) continue;
    std::vector<PackageClaim> claims = packages.of(path);
    if (!claims.empty()) inventory.claims.emplace(path, std::move(claims));
  }
  for (const auto& [folder, name] : request.shipped_elsewhere) {
    const auto found = files.find_file(folder, name.key());
    const auto same = [&](const DllCopy& c) { return c.path == *found; };
    if (!found || std::find(request.owned.begin(), request.owned.end(), *found) != request.owned.end() ||
        std::any_of(inventory.shipped.begin(), inventory.shipped.end(), same))
      continue;
    inventory.shipped.push_back(
        describe(environment, folder, base_name(*found), {CopySource::Kind::PipWheel, {}}, files, images));
    std::vector<PackageClaim> claims = packages.of(*found);
    if (!claims.empty()) inventory.claims.emplace(*found, std::move(claims));
  }
  if (request.wanted.empty()) return inventory;

  for (const auto& [folder, source] : request.named_folders) {
    if (!searched_hosts.count(folder))
      collect(environment, folder, request.wanted, source, files, images, inventory.copies);
  }
  // The importer's package: the folders up to its root (the importer's own is NextToImporter's) and the
  // root's usual DLL folders.
  for (const InventoryRequest::PackageSearch& package : request.packages) {
    for (const std::string& folder : package_search_folders(request, package, files)) {
      if (folder != package.folder && !searched_hosts.count(folder))
        collect(environment, folder, request.wanted, {CopySource::Kind::InPackage, package.module}, files, images,
                inventory.copies);
    }
  }
  std::size_t budget = kMaxLookInFolders;
  auto look_in = [&](const std::string& folder) {
    collect(environment, folder, request.wanted, {CopySource::Kind::LookIn, {}}, files, images, inventory.copies);
  };
  for (const std::string& folder : request.look_in) walk(files, folder, 0, budget, look_in);
  for (const std::string& pattern : request.install_places) {
    for (const std::string& folder : matching_folders(environment, pattern, files)) {
      if (!searched_hosts.count(folder))
        collect(environment, folder, request.wanted, {CopySource::Kind::InstallPlace, {}}, files, images,
                inventory.copies);
    }
  }
  const std::pair<const std::optional<std::string>*, CopySource> registry_paths[] = {
      {&environment.user_path, CopySource{CopySource::Kind::UserPath, {}}},
      {&environment.machine_path, CopySource{CopySource::Kind::MachinePath, {}}}};
  for (const auto& [value, source] : registry_paths) {
    if (!*value) continue;
    for (const FolderRef& folder : path_folders(environment, **value, files)) {
      if (folder.exists && !searched_hosts.count(folder.host)) {
        collect(environment, folder.host, request.wanted, source, files, images, inventory.copies);
      }
    }
  }
  // Archives are opened only for a DLL found nowhere else: a real copy always says more.
  std::set<DllName> unfound = request.wanted;
  for (const DllCopy& copy : inventory.copies) unfound.erase(DllName::of_file(copy.name));
  for (const FolderContents& folder : inventory.search_folders)
    for (const DllCopy& copy : folder.dlls) unfound.erase(DllName::of_file(copy.name));
  if (!unfound.empty()) inventory.packed = packed_copies(environment, request, unfound, files);
  return inventory;
}

}  // namespace dlldoctor::env
