// Error 127: the copy that loads lacks a function its importer needs; say which other copy has it.
#include <algorithm>

#include "rules/detectors/common.hpp"

namespace dlldoctor::rules {
namespace {

bool is_wanted(const pe::ExportItem& item, const graph::MissingExport& m) {
  return m.ordinal ? item.ordinal == *m.ordinal : item.name == m.function;
}

bool exports_all(const pe::Image& image, const std::vector<graph::MissingExport>& wanted) {
  if (!image.exports) return false;
  return std::all_of(wanted.begin(), wanted.end(), [&](const graph::MissingExport& m) {
    return std::any_of(image.exports->items.begin(), image.exports->items.end(),
                       [&](const pe::ExportItem& item) { return is_wanted(item, m); });
  });
}

// A function `module` forwards to a DLL that did not load: that DLL's own finding (not found, wrong
// machine) is the cause, and the loader fails with its error (126, 193), not with 127.
bool forwarded_to_failed_module(const RuleInput& input, const graph::Module& module, const graph::MissingExport& m) {
  if (!module.resolution.image || !module.resolution.image->exports) return false;
  for (const pe::ExportItem& item : module.resolution.image->exports->items) {
    if (!is_wanted(item, m) || !item.forwarder) continue;
    if (!item.forwarder->resolvable()) return false;
    const DllName target(item.forwarder->dll);
    return std::any_of(input.closure.modules.begin(), input.closure.modules.end(), [&](const graph::Module& other) {
      return other.key == target && other.resolution.failure != resolve::Failure::None;
    });
  }
  return false;
}

}  // namespace

void detect_missing_exports(const RuleInput& input, FindingSink& sink) {
  for (const graph::Module& module : input.closure.modules) {
    if (module.missing_exports.empty() || !module.resolution.path) continue;
    std::vector<graph::MissingExport> explained_here;
    for (const auto& m : module.missing_exports) {
      if (!forwarded_to_failed_module(input, module, m)) explained_here.push_back(m);
    }
    if (explained_here.empty()) continue;
    const graph::MissingExport& first = explained_here.front();
    std::string functions;
    detail::Json missing = detail::Json::array();
    for (std::size_t i = 0; i < explained_here.size(); ++i) {
      const auto& m = explained_here[i];
      missing.push_back({{"function", m.function}, {"needed_by", m.needed_by}, {"detail", m.detail}});
      if (i < 5) functions += (functions.empty() ? "" : ", ") + m.function;
    }
    if (explained_here.size() > 5) functions += fmt::format(" and {} more", explained_here.size() - 5);
    const std::string path = display_path(module.resolution.windows_path, *module.resolution.path);
    Vars vars = {{"dll", module.name},     {"function", functions}, {"needed_by", first.needed_by},
                 {"detail", first.detail}, {"path", path},          {"backup", base_name(path) + ".bak"}};
    detail::Json evidence = {{"path", path}, {"missing", std::move(missing)}};
    const auto severity =
        module.load == graph::LoadKind::Delay ? std::optional<Severity>(Severity::Warning) : std::nullopt;
    // The modules that want the functions are as much a part of it as the one that lacks them.
    std::vector<DllName> importers;
    for (const auto& m : explained_here) importers.emplace_back(m.needed_by);
    const auto other = std::find_if(
        module.resolution.candidates.begin(), module.resolution.candidates.end(), [&](const resolve::Candidate& c) {
          return c.verdict == resolve::Verdict::Shadowed && c.image && exports_all(*c.image, explained_here);
        });
    if (other != module.resolution.candidates.end()) {
      vars["other"] = detail::shown(*other);
      vars["other_version"] = detail::version_text(other->file_version);
      vars["other_folder"] = folder_of(detail::shown(*other));
      evidence["other_copy"] = detail::candidate_json(*other);
      // Reordering PATH helps only when the wrong copy, too, was found on PATH.
      const resolve::Candidate* winner = detail::chosen(module);
      const bool both_on_path =
          winner && winner->step == resolve::SearchStep::Path && other->step == resolve::SearchStep::Path;
      sink.emit("missing-export", both_on_path ? "other_copy_path_order" : "other_copy", module.name, vars, evidence,
                severity, importers);
    } else {
      sink.emit("missing-export", "default", module.name, vars, evidence, severity, importers);
    }
  }
}

}  // namespace dlldoctor::rules
