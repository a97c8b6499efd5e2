#pragma once
// What the rule engine concludes: one failure mode met by one module, with the evidence that shows it and
// the commands that fix it. Writers only format findings.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace dlldoctor::rules {

enum class Severity { Error, Warning, Info };
std::string_view severity_name(Severity severity);

struct Finding {
  std::string id;            // what was detected: "not-on-search-path", "older-copy-wins", ...
  std::string title;         // what was found, in a few words: "A PATH entry does not exist"
  std::string failure_mode;  // the failure mode it maps to: "5.1" ... "5.5" (seed), or a mode of its own
  Severity severity = Severity::Error;
  std::string module;   // the DLL (or file) it is about; empty when about the environment
  std::string message;  // one or two sentences, paths and versions included
  nlohmann::ordered_json evidence = nlohmann::ordered_json::object();  // structured: paths, versions, steps
  std::vector<std::string> fix;  // commands to type (PowerShell unless said otherwise)
};

}  // namespace dlldoctor::rules
