#include "plan/changes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/paths.hpp"

namespace dlldoctor::plan {

namespace {

bool is_placeholder(const std::string& value) { return value.empty() || value.front() == '<'; }

Result<std::string> host_file(const std::string& value, const env::Environment& environment, env::FileSystem& files) {
  if (is_placeholder(value)) return Error{fmt::format("{} is not a path", value)};
  if (!env::is_windows_absolute(value) || (environment.host_paths_are_windows && !environment.sysroot))
    return env::absolute_path(value);
  const env::FolderRef folder = env::resolve_folder(environment, folder_of(value), files);
  if (folder.host.empty()) return Error{fmt::format("{} is not under the sysroot", value)};
  return env::join_path(folder.host, base_name(value));
}

Result<std::string> host_folder(const std::string& value, const env::Environment& environment, env::FileSystem& files) {
  if (is_placeholder(value)) return Error{fmt::format("{} is not a folder", value)};
  const env::FolderRef folder = env::resolve_folder(environment, value, files);
  if (folder.host.empty()) return Error{fmt::format("{} is not under the sysroot", value)};
  return folder.host;
}

// PATH entries compare as the loader reads them: any case, a trailing backslash or not.
std::string entry_key(std::string text) {
  while (text.size() > 1 && (text.back() == '\\' || text.back() == '/')) text.pop_back();
  return ascii_lower(text);
}

std::string with_entry(const std::optional<std::string>& value, const std::string& entry, bool first) {
  if (!value || value->empty()) return entry;
  return first ? entry + ";" + *value : *value + ";" + entry;
}

// `value` without `entries`; `with` (when not empty) takes the place of each.
std::string replaced_entries(const std::string& value, const std::vector<std::string>& entries,
                             const std::string& with) {
  std::string out;
  for (const std::string& part : split_path_list(value)) {
    const bool drop = std::any_of(entries.begin(), entries.end(),
                                  [&](const std::string& e) { return entry_key(e) == entry_key(part); });
    if (drop && with.empty()) continue;
    out += (out.empty() ? "" : ";") + (drop ? with : part);
  }
  return out;
}

std::optional<pe::Version> parse_version(const std::string& text) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (std::sscanf(text.c_str(), "%u.%u.%u.%u", &a, &b, &c, &d) < 2) return std::nullopt;
  pe::Version version;
  version.parts = {static_cast<std::uint16_t>(a), static_cast<std::uint16_t>(b), static_cast<std::uint16_t>(c),
                   static_cast<std::uint16_t>(d)};
  return version;
}

bool is_program(const std::vector<const graph::Closure*>& closures, const std::string& path) {
  return std::any_of(closures.begin(), closures.end(), [&](const graph::Closure* closure) {
    return !closure->modules.empty() && closure->modules.front().is_root &&
           closure->modules.front().resolution.path == path;
  });
}

// What an installer's copy of `name` is to the loader: the process's machine, the release's version, and
// every function the closure's modules import from that name or forward to it (the stand-in answers them all).
pe::Image stand_in(const std::string& name, const std::string& version,
                   const std::vector<const graph::Closure*>& closures, const Result<pe::Image>* replaced) {
  const std::uint16_t machine = closures.front()->process_machine;
  // A whole copy of a damaged file is that file as its headers describe it (imports, toolset, version);
  // the process's build of a file built for another machine imports what that one does (the same
  // release's siblings and runtime), so the check still asks for them.
  if (replaced && replaced->ok() && replaced->value().is_dll) {
    pe::Image image = replaced->value();
    image.cut_short.reset();
    image.warnings.clear();
    image.machine = machine;
    image.format = machine == pe::machine::kI386 ? pe::Format::Pe32 : pe::Format::Pe32Plus;
    if (auto wanted = parse_version(version)) image.file_version = wanted;
    return image;
  }
  pe::Image image;
  image.machine = machine;
  image.format = machine == pe::machine::kI386 ? pe::Format::Pe32 : pe::Format::Pe32Plus;
  image.is_dll = true;
  image.characteristics = 0x2022;  // EXECUTABLE_IMAGE | LARGE_ADDRESS_AWARE | DLL
  image.file_version = parse_version(version);
  image.product_version = image.file_version;
  pe::Exports exports;
  exports.dll_name = name;
  const DllName key(name);
  std::set<std::string> names;
  std::set<std::uint16_t> ordinals;
  for (const graph::Closure* before : closures) {
    for (const graph::Module& module : before->modules) {
      if (!module.resolution.image) continue;
      // Exports forwarded to it are looked up in it too (cudnn64_9.dll forwards to its siblings).
      if (const auto& exported = module.resolution.image->exports) {
        for (const pe::ExportItem& item : exported->items) {
          if (!item.forwarder || DllName(item.forwarder->dll) != key) continue;
          if (item.forwarder->function) names.insert(*item.forwarder->function);
          if (item.forwarder->ordinal) ordinals.insert(*item.forwarder->ordinal);
        }
      }
      for (const auto* table : {&module.resolution.image->imports, &module.resolution.image->delay_imports}) {
        for (const pe::ImportedDll& imported : *table) {
          if (DllName(imported.dll) != key) continue;
          for (const pe::ImportedFunction& function : imported.functions) {
            if (function.name) names.insert(*function.name);
            if (function.ordinal) ordinals.insert(*function.ordinal);
          }
        }
      }
    }
  }
  std::uint32_t next = 1;
  for (std::uint16_t ordinal : ordinals) {
    exports.items.push_back({std::nullopt, ordinal, 0x1000, nullptr});
    next = std::max<std::uint32_t>(next, ordinal + 1u);
  }
  for (const std::string& function : names) exports.items.push_back({function, next++, 0x1000, nullptr});
  pe::own_names(exports);  // before `names` goes
  image.exports = std::move(exports);
  return image;
}

}  // namespace

Result<std::map<std::string, std::vector<std::string>>> host_fields(const rules::FixStep& step,
                                                                    const env::Environment& environment,
                                                                    env::FileSystem& files) {
  std::map<std::string, std::vector<std::string>> host;
  for (const auto& [field, values] : step.fields) {
    const bool file = field == "path" || field == "from";
    const bool folder = field == "to" || field == "with" || (field == "entry" && step.kind == "path_add");
    if (!file && !folder) continue;
    if (values.empty()) return Error{fmt::format("a {} step without {}", step.kind, field)};
    for (const std::string& value : values) {
      auto mapped = file ? host_file(value, environment, files) : host_folder(value, environment, files);
      if (!mapped) return mapped.error();
      host[field].push_back(std::move(mapped).value());
    }
  }
  return host;
}

namespace {

// The one field in which the steps of a kind may differ and still be one change, or "" for kinds whose
// steps are each their own decision (a PATH entry is placed where it is, an installer is its own download).
std::string list_field(const std::string& kind) {
  if (kind == "install") return "names";
  if (kind == "copy") return "from";
  if (kind == "rename" || kind == "unblock") return "path";
  return "";
}

// Two files of one name from different folders are alternatives (two copies of one DLL), never one change.
bool names_collide(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const std::string& x : a)
    for (const std::string& y : b)
      if (x != y && ascii_lower(base_name(x)) == ascii_lower(base_name(y))) return true;
  return false;
}

bool one_folder(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() || b.empty()) return false;
  const std::string folder = ascii_lower(folder_of(a.front()));
  auto same = [&](const std::string& path) { return ascii_lower(folder_of(path)) == folder; };
  return std::all_of(a.begin(), a.end(), same) && std::all_of(b.begin(), b.end(), same);
}

}  // namespace

std::optional<Step> merged_step(const Step& a, const Step& b) {
  const std::string field = list_field(a.change.kind);
  if (field.empty() || a.change.kind != b.change.kind) return std::nullopt;
  auto rest = [&](const rules::FixStep& change) {
    auto fields = change.fields;
    fields.erase(field);
    return fields;
  };
  if (rest(a.change) != rest(b.change)) return std::nullopt;
  // Renamed or unblocked files are one change only within one folder (one release's copy of a set).
  if (field == "path" && !one_folder(a.change.values(field), b.change.values(field))) return std::nullopt;
  if (names_collide(a.change.values(field), b.change.values(field))) return std::nullopt;
  Step merged = a;
  // Each value with its host path, so that the two lists stay in step.
  auto& values = merged.change.fields[field];
  const auto b_host = b.host.find(field);
  const auto& b_values = b.change.values(field);
  for (std::size_t i = 0; i < b_values.size(); ++i) {
    if (std::find(values.begin(), values.end(), b_values[i]) != values.end()) continue;
    values.push_back(b_values[i]);
    if (b_host != b.host.end() && i < b_host->second.size()) merged.host[field].push_back(b_host->second[i]);
  }
  for (const rules::FindingKey& key : b.mends)
    if (std::find(merged.mends.begin(), merged.mends.end(), key) == merged.mends.end()) merged.mends.push_back(key);
  merged.versions.insert(b.versions.begin(), b.versions.end());
  return merged;
}

void apply_step(const Step& step, const std::vector<const graph::Closure*>& before, env::Environment& environment,
                env::OverlayFileSystem& files, pe::ImageCache& images) {
  const rules::FixStep& change = step.change;
  auto host = [&](const std::string& field) -> const std::vector<std::string>& {
    static const std::vector<std::string> kNone;
    auto it = step.host.find(field);
    return it == step.host.end() ? kNone : it->second;
  };
  const std::string scope = change.value("scope");
  if (change.kind == "rename") {
    for (const std::string& path : host("path"))
      files.rename_file(folder_of(path), base_name(path), base_name(path) + ".bak");
  } else if (change.kind == "copy") {
    for (const std::string& to : host("to")) {
      for (const std::string& from : host("from")) files.add_file(to, base_name(from), from);
    }
  } else if (change.kind == "install") {
    for (const std::string& to : host("to")) {
      for (const std::string& name : change.values("names")) {
        const std::string key = "<stand-in>" + env::join_path(to, name);
        const auto present = files.find_file(to, name);
        // A whole copy of the program imports what its tables past the cut say, which nobody read: the
        // overlay keeps the damaged file, so the step stays unverified and the finding's own fix names it.
        if (present && is_program(before, *present)) continue;
        const auto replaced = present ? images.get(files.content_path(*present)) : nullptr;
        images.put(key, stand_in(name, change.value("version"), before, replaced.get()));
        files.add_file(to, name, key);
      }
    }
  } else if (change.kind == "unblock") {
    for (const std::string& path : host("path")) files.remove_streams(path);
  } else if (change.kind == "path_add") {
    const bool first = change.value("position") != "last";
    for (const std::string& entry : change.values("entry")) {
      env::Environment added = environment;
      added.path.clear();
      env::append_path_entries(added, entry, files);
      environment.path.insert(first ? environment.path.begin() : environment.path.end(), added.path.begin(),
                              added.path.end());
      if (scope == "user" && environment.user_path)
        environment.user_path = with_entry(environment.user_path, entry, first);
      if (scope == "machine" && environment.machine_path)
        environment.machine_path = with_entry(environment.machine_path, entry, first);
    }
  } else if (change.kind == "path_remove" || change.kind == "path_replace") {
    const auto& entries = change.values("entry");
    // path_replace: the completed folder takes the cut entry's place, so the search order stays as it was.
    const std::string with = change.value("with");
    // Only a replacement is parsed (into a copy of the environment, which append_path_entries needs); a
    // removal, the planner's most tried step, copies nothing.
    std::vector<env::PathEntry> replacement;
    if (!with.empty()) {
      env::Environment parsed = environment;
      parsed.path.clear();
      env::append_path_entries(parsed, with, files);
      replacement = std::move(parsed.path);
    }
    std::vector<env::PathEntry> path;
    for (env::PathEntry& e : environment.path) {
      // The step names the entry as the report shows it (its Windows spelling).
      const std::string shown = env::windows_entry_text(environment, e.text);
      const bool named = std::any_of(entries.begin(), entries.end(), [&](const std::string& x) {
        return entry_key(x) == entry_key(e.text) || entry_key(x) == entry_key(shown);
      });
      if (!named) {
        path.push_back(std::move(e));
      } else {
        path.insert(path.end(), replacement.begin(), replacement.end());
      }
    }
    environment.path = std::move(path);
    if (scope != "machine" && environment.user_path)
      environment.user_path = replaced_entries(*environment.user_path, entries, with);
    if (scope != "user" && environment.machine_path)
      environment.machine_path = replaced_entries(*environment.machine_path, entries, with);
  } else if (change.kind == "new_terminal") {
    if (environment.machine_path || environment.user_path) {
      environment.path.clear();
      if (environment.machine_path) env::append_path_entries(environment, *environment.machine_path, files);
      if (environment.user_path) env::append_path_entries(environment, *environment.user_path, files);
    }
  }
}

}  // namespace dlldoctor::plan
