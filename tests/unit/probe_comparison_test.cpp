// The probe's comparison, now a detector of the rule engine: what the real loader mapped against the
// prediction, on closures built by hand (the probe itself needs Windows; its comparison does not).
#include "dlldoctor/rules/probe_comparison.hpp"

#include <doctest/doctest.h>

using namespace dlldoctor;

namespace {

rules::RuleData probe_rules() {
  rules::RuleData data;
  data.findings.push_back({"probe-differs",
                           "The real loader disagrees",
                           "prediction",
                           rules::Severity::Warning,
                           {{"other_copy", "{dll} from {loaded}, predicted {predicted}"},
                            {"startup_failed", "did not start ({exit_code})"},
                            {"not_loaded", "{dll} not loaded, predicted {predicted}"}},
                           {{"default", {"# trust the loader"}}},
                           {},
                           {},
                           {},
                           "test"});
  return data;
}

graph::Module module(const std::string& name, const std::string& windows_path, resolve::SearchStep step) {
  graph::Module m;
  m.name = name;
  m.key = DllName(name);
  m.resolution.requested = name;
  m.resolution.path = "/host/" + name;
  m.resolution.windows_path = windows_path;
  m.resolution.found_by = step;
  return m;
}

graph::Closure closure_of(std::vector<graph::Module> modules) {
  graph::Closure closure;
  graph::Module root = module("app.exe", "C:\\app\\app.exe", resolve::SearchStep::Explicit);
  root.is_root = true;
  closure.modules.push_back(root);
  for (auto& m : modules) closure.modules.push_back(std::move(m));
  return closure;
}

}  // namespace

TEST_CASE("probe: another copy than predicted is a probe-differs finding naming both") {
  const rules::RuleData data = probe_rules();
  const graph::Closure closure =
      closure_of({module("cudnn64_9.dll", "C:\\app\\cudnn64_9.dll", resolve::SearchStep::AppDir)});
  rules::ProbeResult probe;
  probe.modules = {"C:\\app\\app.exe", "C:/Tools/CUDNN/bin/cudnn64_9.dll"};
  rules::RuleOutput output;
  rules::compare_with_probe(probe, closure, data, output);
  CHECK(output.problems.empty());
  REQUIRE(output.findings.size() == 1);
  CHECK(output.findings[0].id == "probe-differs");
  CHECK(output.findings[0].message ==
        "cudnn64_9.dll from c:\\tools\\cudnn\\bin\\cudnn64_9.dll, predicted c:\\app\\cudnn64_9.dll");

  // The same copy, spelt in another case: no finding.
  probe.modules = {"C:\\APP\\app.exe", "C:\\APP\\CUDNN64_9.DLL"};
  rules::RuleOutput same;
  rules::compare_with_probe(probe, closure, data, same);
  CHECK(same.findings.empty());
}

TEST_CASE("probe: Wine's builtin DLL stands for the predicted System32 copy; a failed start-up is a finding") {
  const rules::RuleData data = probe_rules();
  const graph::Closure closure =
      closure_of({module("kernel32.dll", "C:\\Windows\\System32\\kernel32.dll", resolve::SearchStep::KnownDll)});
  rules::ProbeResult probe;
  probe.wine = true;
  probe.modules = {"C:\\app\\app.exe", "C:\\windows\\system32\\x86_64-windows\\kernel32.dll"};
  rules::RuleOutput builtin;
  rules::compare_with_probe(probe, closure, data, builtin);
  CHECK(builtin.findings.empty());

  probe.wine = false;
  probe.load_failed = true;
  probe.exit_code = 0xC0000135;
  rules::RuleOutput failed;
  rules::compare_with_probe(probe, closure, data, failed);
  REQUIRE(failed.findings.size() == 2);  // the other copy of kernel32.dll, and the start-up
  CHECK(failed.findings[1].message == "did not start (0xC0000135)");
}
