#pragma once
// What the whole-pipeline fuzz targets (pipeline_fuzz.cpp: a hostile DLL; machine_fuzz.cpp: a hostile
// machine) both do with a diagnosis: every report writer formats it, and a writer producing invalid JSON,
// an empty report or a finding template left unfilled stops the fuzzer.
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/file_system.hpp"
#include "dlldoctor/pe/image_cache.hpp"
#include "dlldoctor/pipeline/diagnose.hpp"
#include "dlldoctor/report/closure_report.hpp"
#include "dlldoctor/report/closure_view.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::fuzz {

[[noreturn]] inline void stop(const std::string& message) {
  std::fprintf(stderr, "fuzz: %s\n", message.c_str());
  std::abort();
}

inline std::string setting(const char* variable, const char* fallback) {
  const char* value = std::getenv(variable);
  return value && *value ? value : fallback;
}

inline void check_json(const std::string& text) {
  // json_text promises JSON for any bytes: parse strictly, as a consumer of the report would.
  if (!nlohmann::json::accept(text)) stop("a writer produced invalid JSON");
}

// Every format of a report (or only its JSON), with and without colours: JSON must parse, the others must
// say something.
template <typename View>
void write_every_format(const report::Writers<View>& writers, const View& view, bool json_only = false) {
  for (const report::Writer<View>& writer : writers) {
    if (json_only && writer.name != "json") continue;
    for (bool color : {false, true}) {
      report::StringSink out;
      writer.write(out, view, {color});
      if (writer.name == "json") {
        check_json(out.text());
      } else if (out.text().empty()) {
        stop("an empty " + std::string(writer.name) + " report");
      }
    }
  }
}

// The diagnosis of one request, written in every closure format (or only as JSON: the machine target's
// inputs change what the writers are given, not how they write, and twelve writers a run kept it at a few
// dozen inputs a second).
inline void diagnose_and_report(const graph::ClosureRequest& request, const env::Environment& environment,
                                const rules::RuleData& rules, env::FileSystem& files, pe::ImageCache& images,
                                bool json_only = false) {
  auto diagnosis = pipeline::diagnose(request, environment, rules, {}, files, images);
  if (!diagnosis) return;  // the program itself unreadable: the CLI's exit 2 with the message
  if (!diagnosis->rules.problems.empty()) stop("rule engine: " + diagnosis->rules.problems.front());
  report::ReportInput input;
  input.tool_version = "fuzz";
  input.request = &request;
  input.environment = &environment;
  input.search_order = diagnosis->search_order;
  input.closure = &diagnosis->closure;
  input.findings = &diagnosis->rules.findings;
  input.rules = &rules;
  input.outcome_error = diagnosis->rules.outcome_error;
  input.outcome_says = diagnosis->rules.outcome_says;
  const report::ClosureView view(input);
  write_every_format(report::closure_writers(), view, json_only);
}

}  // namespace dlldoctor::fuzz
