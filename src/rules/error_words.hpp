#pragma once
// The error a user sees for a module that fails (internal to src/rules): Windows' words for the loader
// error, and how the caller that asked for the module words it: a program's start-up dialog, a framework's
// exception (a recipe's step), a --profile's host, cuDNN's message for a sibling it loads, the delay-load
// helper's exception. All of it is rule data (rules/errors.toml, says = ... of steps, profiles, families
// and lazy loads); this only picks and fills.
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/rules/rule_engine.hpp"

namespace dlldoctor::rules {

struct ErrorWords {
  LoaderErrorText error;
  std::vector<std::string> says;
};

// For `module` failing with `code`; none when the rules do not know the code.
std::optional<ErrorWords> error_words(const RuleInput& input, const graph::Module& module, int code);

// For the outcome the verdict names (closure.outcome): none when it is ok.
std::optional<ErrorWords> outcome_words(const RuleInput& input);

// A says text with its {placeholders} filled from `values`; unknown ones are left as they are.
std::string fill_says(const std::string& text, const std::map<std::string, std::string>& values);

// The text for `code` of a says map: its own entry, else "default"; empty when neither.
const std::string* says_for(const std::map<std::string, std::string>& says, int code);

}  // namespace dlldoctor::rules
