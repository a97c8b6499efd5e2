#pragma once
// `dlldoctor probe`: the real loader as a second opinion. What a probe saw (the CLI's Windows-only
// code runs it: src/cli/probe_windows.cpp) is compared with the prediction by the rule engine, like
// any other evidence: each difference is a "probe-differs" finding.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/rules/rule_engine.hpp"

namespace dlldoctor::rules {

struct ProbeCallResult {
  std::uint32_t error = 0;  // GetLastError after the call; 0 when it succeeded
  std::string module;       // LoadLibraryExW: full path of the module it returned
};

struct ProbeResult {
  std::vector<std::string> modules;            // full paths of the DLLs mapped, in load order
  std::map<std::uint64_t, std::string> bases;  // where each of them was mapped -> its path
  std::optional<std::uint32_t> exit_code;
  bool timed_out = false;              // still running when the time was up, and ended
  bool wine = false;                   // the loader was Wine's: its builtins load from its own folder (DOMAIN.md §7)
  bool load_failed = false;            // the start-up (or the LoadLibraryExW of a probed DLL) failed
  std::vector<ProbeCallResult> loads;  // --host: one per --load, in order (none when the host did not start)
};

// Adds a "probe-differs" finding to `output` for each difference between the real loads and the
// prediction, and keeps its findings in severity order.
void compare_with_probe(const ProbeResult& probe, const graph::Closure& closure, const RuleData& rule_data,
                        RuleOutput& output);

}  // namespace dlldoctor::rules
