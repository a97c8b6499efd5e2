#include "rules/error_words.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "dlldoctor/core/paths.hpp"
#include "rules/detectors/common.hpp"

namespace dlldoctor::rules {

std::string fill_says(const std::string& text, const std::map<std::string, std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t close = text[i] == '{' ? text.find('}', i) : std::string::npos;
    if (close != std::string::npos) {
      auto value = values.find(text.substr(i + 1, close - i - 1));
      if (value != values.end()) {
        out += value->second;
        i = close + 1;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

const std::string* says_for(const std::map<std::string, std::string>& says, int code) {
  auto own = says.find(std::to_string(code));
  if (own != says.end()) return &own->second;
  auto fallback = says.find("default");
  return fallback == says.end() ? nullptr : &fallback->second;
}

namespace {

using detail::module_named;

// What Python names a module imported from `file`: its name up to the first dot (the ABI tag of
// "_pywrap_tensorflow_internal.cp310-win_amd64.pyd" is not part of it).
std::string import_name(const std::string& file) {
  const std::string name = base_name(file);
  return name.substr(0, name.find('.'));
}

}  // namespace

namespace {

// The LoadLibrary call whose failure `module` is part of: the first call whose outcome names it (a module
// one call misses and a later call finds, after an AddDllDirectory between them, failed the earlier call,
// and that call's words are what the user sees), else the call that brought it in.
std::optional<std::size_t> failing_call(const RuleInput& input, const graph::Module& module) {
  const auto& loads = input.closure.loads;
  // A program's own start-up is not a call: only a host's calls are the question.
  for (std::size_t i = 0; input.request.program_is_host && i < loads.size(); ++i) {
    if (loads[i].ok) continue;
    const auto& missing = loads[i].missing;
    if (std::any_of(missing.begin(), missing.end(), [&](const graph::MissingDll& m) { return m.dll == module.name; }))
      return i;
    if (loads[i].cause && &input.closure.modules[*loads[i].cause] == &module) return i;
  }
  return module.load_call;
}

}  // namespace

std::optional<ErrorWords> error_words(const RuleInput& input, const graph::Module& module, int code) {
  const LoaderError* error = input.rules.loader_error(code);
  if (!error) return std::nullopt;
  ErrorWords words{{error->code, error->name, error->text}, {}};
  std::map<std::string, std::string> values = {
      {"code", std::to_string(code)}, {"text", error->text}, {"name", error->name}, {"dll", module.name}};
  std::string importer = module.needed_by.empty() ? std::string() : module.needed_by.front();
  if (!module.missing_exports.empty()) {
    values["function"] = module.missing_exports.front().function;
    importer = module.missing_exports.front().needed_by;
  }
  if (const graph::Module* by = module_named(input.closure, importer); by && by->resolution.path) {
    values["importer"] = by->resolution.windows_path.value_or(*by->resolution.path);
  } else {
    values["importer"] = importer;
  }
  auto say = [&](const std::string& text) {
    if (!text.empty()) words.says.push_back(fill_says(text, values));
  };
  switch (module.load) {
    case graph::LoadKind::Delay: say(error->delay); return words;
    case graph::LoadKind::Runtime: {
      // A family's main DLL loads it when first used: its own message.
      const graph::Module* loader = module.needed_by.empty() ? nullptr : module_named(input.closure, importer);
      const Family* family = loader ? input.rules.family_of(loader->key) : nullptr;
      if (const std::string* text = family ? says_for(family->runtime_says, code) : nullptr) say(*text);
      return words;
    }
    case graph::LoadKind::NamedInData:
      if (const graph::LazyLoad* lazy = lazy_rule(input, module)) {
        say(lazy->says);
      }
      return words;
    default: break;
  }
  const auto& loads = input.request.loads;
  const std::optional<std::size_t> call_index = failing_call(input, module);
  if (call_index && *call_index < loads.size()) {
    const graph::LoadCall& call = loads[*call_index];
    values["path"] = env::shown_path(input.environment, call.name);
    values["module"] = import_name(call.name);
    if (const std::string* text = says_for(call.says, code)) {
      // One text may hold several lines (old and new wordings of one framework), split before the values
      // go in: a value from a file may hold a newline of its own.
      for (std::size_t start = 0; start <= text->size();) {
        const std::size_t end = std::min(text->find('\n', start), text->size());
        if (end > start) words.says.push_back(fill_says(text->substr(start, end - start), values));
        start = end + 1;
      }
    } else {
      words.says.push_back(fmt::format("LoadLibraryExW(\"{}\", 0x{:x}) returns NULL, and GetLastError() is {}",
                                       values["path"], call.flags, code));
    }
    return words;
  }
  // The program's start-up (a DLL named as the program is LoadLibrary's, whose words are the error's own).
  const graph::Module* root = input.closure.modules.empty() ? nullptr : &input.closure.modules.front();
  const bool dll = root && root->resolution.image && root->resolution.image->is_dll;
  if (!input.request.program_is_host && !dll) say(error->startup);
  return words;
}

std::optional<ErrorWords> outcome_words(const RuleInput& input) {
  const graph::Outcome& outcome = input.closure.outcome;
  if (outcome.ok || !outcome.error || !outcome.cause || *outcome.cause >= input.closure.modules.size())
    return std::nullopt;
  return error_words(input, input.closure.modules[*outcome.cause], *outcome.error);
}

}  // namespace dlldoctor::rules
