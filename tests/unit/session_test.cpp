// session::explain on a session::Machine made of an in-memory world: the verdict, the stack, the links from
// findings to plan steps, the exit status, and the requests it refuses.
#include <doctest/doctest.h>

#include <algorithm>

#include "dlldoctor/session/explain.hpp"
#include "dlldoctor/session/machine.hpp"
#include "support/memory_world.hpp"

using namespace dlldoctor;
using test::root_path;

namespace {

session::ExplainRun explain_ok(session::Machine& machine, const session::ExplainRequest& request) {
  auto run = session::explain(machine, request);
  REQUIRE_MESSAGE(run, (run ? std::string() : run.error().message));
  CHECK(run->diagnosis.rules.problems.empty());
  return std::move(run).value();
}

session::ExplainRequest start_up(const std::string& program) {
  session::ExplainRequest request;
  request.program = program;
  return request;
}

std::size_t count_severity(const session::ExplainRun& run, rules::Severity severity) {
  return static_cast<std::size_t>(std::count_if(run.findings().begin(), run.findings().end(),
                                                [&](const rules::Finding& f) { return f.severity == severity; }));
}

}  // namespace

TEST_CASE("session: missing cuDNN siblings read BROKEN, with the stack's cuDNN entry naming the finding") {
  test::MemoryWorld world;
  const std::string app = world.add_program("app/app.exe", {{test::kCudnn9Main, {"cudnnCreate"}}});
  world.add_cudnn9("app", test::kCudnn91, {});
  session::Machine machine = std::move(world).into_machine();
  const session::ExplainRun run = explain_ok(machine, start_up(app));

  // Start-up succeeds (the siblings load at first use), but an error will stop the program later.
  CHECK(run.closure().outcome.ok);
  REQUIRE(count_severity(run, rules::Severity::Error) == 1);
  CHECK(run.verdict.tone == session::Tone::Broken);
  CHECK(run.verdict.text ==
        "BROKEN: start-up of app.exe succeeds, but 1 error below will stop it later (missing-sibling: "
        "cudnn_graph64_9.dll)");
  CHECK(run.exit_status() == 1);

  REQUIRE(run.stack.cudnn.size() == 1);
  const session::StackEntry& cudnn = run.stack.cudnn.front();
  CHECK(cudnn.family == "cudnn9");
  CHECK(cudnn.name == "cuDNN 9");
  CHECK(cudnn.version == "9.1.0.70");
  REQUIRE(cudnn.dlls.size() == 1);  // only the dispatcher loads
  CHECK(cudnn.dlls.front().name == test::kCudnn9Main);
  CHECK(cudnn.found_by == resolve::SearchStep::AppDir);
  REQUIRE(cudnn.path);
  CHECK(test::forward_slashes(*cudnn.path) == root_path("app/cudnn64_9.dll"));
  CHECK(cudnn.findings == std::vector<std::string>{"missing-sibling"});
  CHECK(!run.stack.driver);
  CHECK(run.stack.cuda_runtimes.empty());

  // The plan is checked, and each finding points at the steps that mend it.
  REQUIRE(run.plan);
  CHECK(run.plan->verified);
  REQUIRE(run.plan_steps.size() == run.findings().size());
  for (std::size_t i = 0; i < run.findings().size(); ++i) {
    CAPTURE(run.findings()[i].id);
    if (run.findings()[i].id == "missing-sibling") CHECK(run.plan_steps[i] == std::vector<std::size_t>{1});
    CHECK(run.plan_steps[i] == plan::steps_mending(*run.plan, run.findings()[i]));
  }
}

TEST_CASE("session: a complete cuDNN folder reads HEALTHY, with no plan and exit status 0") {
  test::MemoryWorld world;
  const std::string app = world.add_program("app/app.exe", {{test::kCudnn9Main, {"cudnnCreate"}}});
  world.add_cudnn9("app", test::kCudnn91, test::kCudnn9Siblings);
  session::Machine machine = std::move(world).into_machine();
  const session::ExplainRun run = explain_ok(machine, start_up(app));
  CHECK(run.verdict.tone == session::Tone::Healthy);
  CHECK(run.verdict.text == "HEALTHY: start-up of app.exe succeeds, and every DLL it needs is found");
  CHECK(!run.plan);
  CHECK(run.exit_status() == 0);
  REQUIRE(run.stack.cudnn.size() == 1);
  const session::StackEntry& cudnn = run.stack.cudnn.front();
  CHECK(cudnn.dlls.size() == 1 + test::kCudnn9Siblings.size());
  CHECK(cudnn.dlls.front().name == test::kCudnn9Main);  // the main DLL first
  CHECK(cudnn.findings.empty());
}

TEST_CASE("session: two cuDNN releases make two stack entries, both naming mixed-family-versions") {
  test::MemoryWorld world;
  const std::string app = world.add_program("app/app.exe", {{test::kCudnn9Main, {"cudnnCreate"}}});
  world.add_cudnn9("cuda/bin", test::kCudnn90, {});
  world.add_cudnn9("cudnn/bin", test::kCudnn91, test::kCudnn9Siblings);
  world.add_path_entry("cuda/bin");
  world.add_path_entry("cudnn/bin");
  session::Machine machine = std::move(world).into_machine();
  const session::ExplainRun run = explain_ok(machine, start_up(app));
  CHECK(run.verdict.tone == session::Tone::Broken);
  REQUIRE(run.stack.cudnn.size() == 2);
  CHECK(run.stack.cudnn[0].version == "9.0.0.312");
  CHECK(run.stack.cudnn[0].found_by == resolve::SearchStep::Path);
  CHECK(run.stack.cudnn[1].version == "9.1.0.70");
  CHECK(run.stack.cudnn[1].dlls.size() == test::kCudnn9Siblings.size());
  for (const session::StackEntry& entry : run.stack.cudnn) {
    CAPTURE(entry.version);
    CHECK(std::count(entry.findings.begin(), entry.findings.end(), "mixed-family-versions") == 1);
  }
}

TEST_CASE("session: an import found nowhere reads FAILS with the loader's error and reason") {
  test::MemoryWorld world;
  const std::string app = world.add_program("app/app.exe", {{"absent.dll", {"F"}}});
  session::Machine machine = std::move(world).into_machine();
  const session::ExplainRun run = explain_ok(machine, start_up(app));
  CHECK(run.verdict.tone == session::Tone::Fails);
  CHECK(run.verdict.text ==
        "FAILS: start-up of app.exe fails with error 126: absent.dll was not found (needed by app.exe)");
  CHECK(run.exit_status() == 1);
  CHECK(run.stack.empty());
  REQUIRE(run.diagnosis.rules.outcome_error);
  CHECK(run.diagnosis.rules.outcome_error->code == 126);
  CHECK(run.diagnosis.rules.outcome_error->name == "ERROR_MOD_NOT_FOUND");
}

TEST_CASE("session: --load with flag names, the DLL's own folder searched only under altered search path") {
  test::MemoryWorld world;
  const std::string host = world.add_program("app/host.exe", {});
  world.add_dll("lib/ops.dll", {"OpsInit"}, std::nullopt, {{"graph.dll", {"GraphInit"}}});
  world.add_dll("lib/graph.dll", {"GraphInit"});
  session::Machine machine = std::move(world).into_machine();
  session::ExplainRequest request = start_up(host);
  request.program_is_host = true;
  request.loads.push_back({root_path("lib/ops.dll"), {}});
  const session::ExplainRun plain = explain_ok(machine, request);
  CHECK(plain.verdict.tone == session::Tone::Fails);
  CHECK(plain.closure().outcome.error == 126);
  CHECK(plain.exit_status() == 1);

  request.loads.front().flags = {"altered-search-path"};
  const session::ExplainRun altered = explain_ok(machine, request);
  REQUIRE(altered.request.loads.size() == 1);
  CHECK(altered.request.loads.front().flags == resolve::load_flags::kAlteredSearchPath);
  CHECK(altered.verdict.tone == session::Tone::Healthy);
  CHECK(altered.exit_status() == 0);
}

TEST_CASE("session: --import torch replays the recipe and shows the framework in the stack") {
  test::MemoryWorld world;
  const std::string python = world.add_python_with_torch();
  world.add_cudnn9(test::kTorchLib, test::kCudnn91, test::kCudnn9Siblings);
  session::Machine machine = std::move(world).into_machine();
  session::ExplainRequest request = start_up(python);
  request.imports = {"torch"};
  const session::ExplainRun run = explain_ok(machine, request);
  REQUIRE(run.expansion);
  CHECK(run.expansion->recipes.front().id == "torch");
  CHECK(run.closure().outcome.request == "import torch");
  CHECK(run.verdict.tone == session::Tone::Healthy);
  REQUIRE(run.stack.frameworks.size() == 1);
  const session::StackFramework& torch = run.stack.frameworks.front();
  CHECK(torch.recipe == "torch");
  CHECK(torch.version == "2.5.1+cu124");
  CHECK(torch.cuda == "12.4");
  CHECK(torch.own_cudnn == "9.1.0.70");  // the cuDNN that loads from torch\lib
  REQUIRE(run.stack.cudnn.size() == 1);
  CHECK(run.stack.cudnn.front().found_by == resolve::SearchStep::Explicit);
}

TEST_CASE("session: explain refuses what it cannot carry out, and says why") {
  test::MemoryWorld world;
  const std::string host = world.add_program("app/host.exe", {});
  const std::string python = world.add_python_with_torch();
  session::Machine machine = std::move(world).into_machine();

  session::ExplainRequest bad_flag = start_up(host);
  bad_flag.program_is_host = true;
  bad_flag.loads.push_back({"x.dll", {"no-such-flag"}});
  CHECK(!session::explain(machine, bad_flag));

  session::ExplainRequest bad_profile = start_up(host);
  bad_profile.program_is_host = true;
  bad_profile.loads.push_back({"x.dll", {}});
  bad_profile.profile = "no-such-profile";
  auto refused = session::explain(machine, bad_profile);
  REQUIRE(!refused);
  CHECK(refused.error().message.find("--profile no-such-profile: no such profile") == 0);

  session::ExplainRequest not_installed = start_up(python);
  not_installed.imports = {"onnxruntime"};
  auto missing = session::explain(machine, not_installed);
  REQUIRE(!missing);
  CHECK(missing.error().message.find("onnxruntime is not installed") != std::string::npos);

  session::ExplainRequest no_program = start_up(root_path("app/nothing.exe"));
  CHECK(!session::explain(machine, no_program));
}
