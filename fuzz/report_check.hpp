#pragma once
// What the whole-pipeline fuzz targets (pipeline_fuzz.cpp: a hostile DLL; machine_fuzz.cpp: a hostile
// machine) both do: explain a request through the entry point every front end calls (session::explain, the
// plan and the recipes included), and have every report writer format it. A writer producing invalid JSON,
// an empty report or a finding template left unfilled stops the fuzzer.
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "dlldoctor/report/closure_report.hpp"
#include "dlldoctor/report/closure_view.hpp"
#include "dlldoctor/session/explain.hpp"

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

// One request explained as the command line explains it (recipes, diagnosis, plan, conclusions), written in
// every closure format (or only as JSON: the machine target's inputs change what the writers are given, not
// how they write, and twelve writers a run kept it at a few dozen inputs a second).
inline void explain_and_report(session::Machine& machine, const session::ExplainRequest& request,
                               bool json_only = false) {
  auto run = session::explain(machine, request);
  if (!run) return;  // the program itself unreadable: the CLI's exit 2 with the message
  if (!run->diagnosis.rules.problems.empty()) stop("rule engine: " + run->diagnosis.rules.problems.front());
  const report::ClosureView view(*run, {"fuzz", "2026-01-01T00:00:00Z"});
  write_every_format(report::closure_writers(), view, json_only);
}

}  // namespace dlldoctor::fuzz
