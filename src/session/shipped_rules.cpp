#include "dlldoctor/session/shipped_rules.hpp"

#include <algorithm>

#include "core/fs.hpp"
#include "rules/compiled_rules.hpp"
#include "session/builtin_rules.hpp"

namespace dlldoctor::session {

std::optional<std::string> default_rules_folder(const std::string& argv0) {
  FsErrorCode ec;
  const fs::path exe = running_executable(argv0);
  for (const fs::path& candidate :
       {exe.parent_path() / "rules", exe.parent_path().parent_path() / "share" / "dlldoctor" / "rules"}) {
    if (fs::is_directory(candidate, ec)) return from_fs_path(candidate);
  }
  return std::nullopt;
}

namespace {

// The built-in files' paths and names; their texts only when they are to be parsed (copying 100 KB of text
// at every start was a good part of reading the rules).
std::vector<rules::RuleFile> builtin_files(bool with_texts) {
  std::vector<rules::RuleFile> files;
  for (std::size_t i = 0; i < kBuiltinRuleFileCount; ++i) {
    const BuiltinRuleFile& file = kBuiltinRuleFiles[i];
    files.push_back({std::string("<built-in>/") + file.name, file.name,
                     with_texts ? std::string(file.text, file.size) : std::string()});
  }
  return files;
}

}  // namespace

std::vector<rules::RuleFile> builtin_rule_files() { return builtin_files(true); }

Result<rules::RuleData> load_shipped_rules(const std::string& argv0, const std::vector<std::string>& extra_folders) {
  return load_rules_from(default_rules_folder(argv0), extra_folders, kBuiltinCompiledRules);
}

Result<rules::RuleData> load_rules_from(const std::optional<std::string>& shipped,
                                        const std::vector<std::string>& extra_folders,
                                        std::string_view compiled_rules) {
  rules::RulesOrigin origin;
  origin.builtin_version = kBuiltinRulesVersion;
  origin.extra = extra_folders;
  // A folder beside the binary replaces the built-in rules (someone edited a copy on purpose); without
  // one, the binary alone knows every rule (one file works). Its files are compared with the built-in
  // texts where they lie, a piece at a time: a release's unedited folder costs no copy of its 100 KB.
  std::vector<rules::RuleFile> first;
  if (shipped) {
    auto files = rules::rule_file_list(*shipped);
    if (!files) return files.error();
    first = std::move(files).value();
    origin.folder = shipped;
    const auto* builtin_end = kBuiltinRuleFiles + kBuiltinRuleFileCount;
    for (const rules::RuleFile& file : first) {
      const auto* same =
          std::find_if(kBuiltinRuleFiles, builtin_end, [&](const BuiltinRuleFile& b) { return b.name == file.name; });
      // One that cannot be read counts as edited: read for parsing, it is refused by name then.
      if (same == builtin_end || file_holds(file.path, std::string_view(same->text, same->size)) != true)
        origin.edited.push_back(file.name);
    }
    for (const auto* b = kBuiltinRuleFiles; b != builtin_end; ++b) {
      if (std::none_of(first.begin(), first.end(), [&](const rules::RuleFile& f) { return f.name == b->name; }))
        origin.edited.push_back(std::string(b->name) + " (missing)");
    }
  } else {
    first = builtin_files(false);
  }
  // The built-in texts, from the binary or a folder that edits none of them: their compiled form, made from
  // exactly these texts at build time, is decoded instead of parsed (parsing the TOML was the largest part
  // of a closure's time: docs/PERFORMANCE.md), with the sources in the files read.
  std::optional<rules::RuleData> compiled;
  if (origin.edited.empty()) compiled = rules::read_compiled_rules(compiled_rules, first);
  if (!compiled) {
    // The texts to parse, read now and only now.
    auto texts = shipped ? rules::rule_files(*shipped) : Result<std::vector<rules::RuleFile>>(builtin_files(true));
    if (!texts) return texts.error();
    first = std::move(texts).value();
  }
  rules::RuleData shipped_rules;
  if (compiled) {
    shipped_rules = std::move(*compiled);
    for (const rules::RuleFile& file : first) shipped_rules.files.push_back(file.path);
    // The build checked them across files before it compiled them (dlldoctor_compile_rules): alone, they
    // need no check at every start.
    if (extra_folders.empty()) {
      shipped_rules.origin = std::move(origin);
      return shipped_rules;
    }
  } else {
    auto parsed = rules::parse_rule_files(first);
    if (!parsed) return parsed.error();
    shipped_rules = std::move(parsed).value();
  }
  auto data = rules::add_rule_folders(std::move(shipped_rules), extra_folders);
  if (!data) return data.error();
  data->origin = std::move(origin);
  return data;
}

}  // namespace dlldoctor::session
