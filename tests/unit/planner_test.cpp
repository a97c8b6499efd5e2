// pipeline::diagnose and the planner (plan::make_plan, steps_mending, diagnose_after) on an in-memory world:
// a plan is checked on an overlay before it is proposed, links each finding to its steps, writes nothing.
#include "dlldoctor/plan/planner.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "dlldoctor/env/inventory.hpp"
#include "dlldoctor/pipeline/diagnose.hpp"
#include "plan/changes.hpp"
#include "support/memory_world.hpp"

using namespace dlldoctor;
using test::root_path;

namespace {

// One request diagnosed on a world, and what the planner needs to plan for it.
struct Planning {
  test::MemoryWorld& world;
  graph::ClosureRequest request;
  pipeline::DiagnoseOptions options;
  pipeline::Diagnosis before;

  Planning(test::MemoryWorld& w, graph::ClosureRequest r) : world(w), request(std::move(r)) {
    auto diagnosis =
        pipeline::diagnose(request, world.environment, *test::source_rules(), options, world.files(), world.images());
    REQUIRE_MESSAGE(diagnosis, (diagnosis ? std::string() : diagnosis.error().message));
    before = std::move(diagnosis).value();
    CHECK(before.rules.problems.empty());
  }
  plan::PlanInput input() {
    return {request, world.environment, *test::source_rules(), options, world.files(), world.images()};
  }
};

const rules::Finding* first_with_id(const std::vector<rules::Finding>& findings, const std::string& id) {
  auto found = std::find_if(findings.begin(), findings.end(), [&](const rules::Finding& f) { return f.id == id; });
  return found == findings.end() ? nullptr : &*found;
}

std::size_t errors_and_warnings(const pipeline::Diagnosis& diagnosis) {
  return static_cast<std::size_t>(
      std::count_if(diagnosis.rules.findings.begin(), diagnosis.rules.findings.end(),
                    [](const rules::Finding& f) { return f.severity != rules::Severity::Info; }));
}

}  // namespace

TEST_CASE("pipeline: diagnose gives the closure, the program's search order, the inventory and the findings") {
  test::MemoryWorld world;
  world.add_program("app/app.exe", {{test::kCudnn9Main, {"cudnnCreate"}}});
  world.add_cudnn9("app", test::kCudnn91, {});
  world.add_cudnn9("elsewhere", test::kCudnn91, {"cudnn_graph64_9.dll"});
  world.add_path_entry("elsewhere/none");  // a PATH entry that does not exist
  Planning planning(world, test::startup_of(root_path("app/app.exe")));
  const pipeline::Diagnosis& diagnosis = planning.before;
  CHECK(diagnosis.closure.modules.size() == 2 + test::kCudnn9Siblings.size());
  // The standard order of a plain LoadLibrary in this process: the program's folder first, PATH last.
  REQUIRE(!diagnosis.search_order.empty());
  CHECK(diagnosis.search_order.front().step == resolve::SearchStep::AppDir);
  CHECK(test::forward_slashes(diagnosis.search_order.front().folder.host) == root_path("app"));
  CHECK(diagnosis.search_order.back().step == resolve::SearchStep::Path);
  // The inventory lists the family's DLLs of each searched folder: the program's folder holds the dispatcher.
  const auto app = std::find_if(
      diagnosis.inventory.search_folders.begin(), diagnosis.inventory.search_folders.end(),
      [](const env::FolderContents& f) { return test::forward_slashes(f.folder.host) == root_path("app"); });
  REQUIRE(app != diagnosis.inventory.search_folders.end());
  REQUIRE(app->dlls.size() == 1);
  CHECK(app->dlls.front().name == test::kCudnn9Main);
  REQUIRE(app->dlls.front().file_version);
  CHECK(app->dlls.front().file_version->to_string() == "9.1.0.70");
  CHECK(first_with_id(diagnosis.rules.findings, "missing-sibling"));
  // A folder the process does not search is not listed, whatever it holds.
  CHECK(std::none_of(
      diagnosis.inventory.search_folders.begin(), diagnosis.inventory.search_folders.end(),
      [](const env::FolderContents& f) { return test::forward_slashes(f.folder.host) == root_path("elsewhere"); }));
  // The PATH entry that does not exist is a finding of its own, information only.
  const rules::Finding* entry = first_with_id(diagnosis.rules.findings, "path-missing-entry");
  REQUIRE(entry);
  CHECK(entry->severity == rules::Severity::Info);
  CHECK(test::forward_slashes(entry->message).find(root_path("elsewhere/none")) != std::string::npos);
}

TEST_CASE("planner: missing cuDNN siblings get one verified install step that mends the finding") {
  test::MemoryWorld world;
  world.add_program("app/app.exe", {{test::kCudnn9Main, {"cudnnCreate"}}});
  world.add_cudnn9("app", test::kCudnn91, {});
  Planning planning(world, test::startup_of(root_path("app/app.exe")));
  // Runtime loads happen at first use: start-up succeeds, the finding is what will stop the program.
  CHECK(planning.before.closure.outcome.ok);
  const rules::Finding* missing = first_with_id(planning.before.rules.findings, "missing-sibling");
  REQUIRE(missing);

  const plan::Plan plan = plan::make_plan(planning.input(), planning.before);
  CHECK(plan.verified);
  CHECK(plan.predicted == "HEALTHY");
  CHECK(plan.remaining.empty());
  CHECK(plan.trials >= 1);
  REQUIRE(plan.steps.size() == 1);
  const plan::Step& step = plan.steps.front();
  CHECK(step.change.kind == "install");
  CHECK(step.change.values("names") == test::kCudnn9Siblings);
  REQUIRE(step.host.count("to") == 1);
  CHECK(test::forward_slashes(step.host.at("to").front()) == root_path("app"));
  CHECK(step.mends == std::vector<rules::FindingKey>{missing->key()});
  CHECK(plan::steps_mending(plan, *missing) == std::vector<std::size_t>{1});

  // The same steps, replayed: the siblings load from the program's folder, of the dispatcher's release.
  auto after = plan::diagnose_after(planning.input(), plan.steps, planning.before.closure);
  REQUIRE(after);
  CHECK(after->closure.outcome.ok);
  CHECK(errors_and_warnings(*after) == 0);
  for (const std::string& sibling : test::kCudnn9Siblings) {
    CAPTURE(sibling);
    const auto index = test::module_index(after->closure, sibling);
    REQUIRE(index);
    const resolve::Resolution& resolution = after->closure.modules[*index].resolution;
    CHECK(resolution.failure == resolve::Failure::None);
    CHECK(resolution.found_by == resolve::SearchStep::AppDir);
    REQUIRE(resolution.image);
    REQUIRE(resolution.image->file_version);
    CHECK(resolution.image->file_version->to_string() == "9.1.0.70");
  }
  // Planned, not done: the world itself is as it was.
  CHECK(!world.files().find_file(root_path("app"), test::kCudnn9Siblings.front()));
  auto again = plan::diagnose_after(planning.input(), {}, planning.before.closure);
  REQUIRE(again);
  CHECK(first_with_id(again->rules.findings, "missing-sibling"));
}

TEST_CASE("planner: an old dispatcher earlier on PATH is renamed, and the process then loads one release") {
  test::MemoryWorld world;
  world.add_program("app/app.exe", {{test::kCudnn9Main, {"cudnnCreate"}}});
  world.add_cudnn9("cuda/bin", test::kCudnn90, {});
  world.add_cudnn9("cudnn/bin", test::kCudnn91, test::kCudnn9Siblings);
  world.add_path_entry("cuda/bin");
  world.add_path_entry("cudnn/bin");
  Planning planning(world, test::startup_of(root_path("app/app.exe")));
  const rules::Finding* mixed = first_with_id(planning.before.rules.findings, "mixed-family-versions");
  REQUIRE(mixed);

  const plan::Plan plan = plan::make_plan(planning.input(), planning.before);
  CHECK(plan.verified);
  // The newer folder is complete: renaming the odd dispatcher out is enough.
  REQUIRE(plan.steps.size() == 1);
  const plan::Step& rename = plan.steps.front();
  CHECK(rename.change.kind == "rename");
  REQUIRE(rename.host.count("path") == 1);
  CHECK(test::forward_slashes(rename.host.at("path").front()) == root_path("cuda/bin/cudnn64_9.dll"));
  // The version of the file the step takes is kept, so a script leaves alone a file that changed since.
  REQUIRE(rename.change.values("path").size() == 1);
  CHECK(rename.versions.at(rename.change.values("path").front()) == "9.0.0.312");
  CHECK(plan::steps_mending(plan, *mixed) == std::vector<std::size_t>{1});

  auto after = plan::diagnose_after(planning.input(), plan.steps, planning.before.closure);
  REQUIRE(after);
  CHECK(errors_and_warnings(*after) == 0);
  const auto main = test::module_index(after->closure, test::kCudnn9Main);
  REQUIRE(main);
  REQUIRE(after->closure.modules[*main].resolution.path);
  CHECK(test::forward_slashes(*after->closure.modules[*main].resolution.path) == root_path("cudnn/bin/cudnn64_9.dll"));
}

TEST_CASE("planner: a DLL no step can bring gives a plan that is not verified and says what remains") {
  test::MemoryWorld world;
  world.add_program("app/app.exe", {{"nowhere.dll", {"F"}}});
  Planning planning(world, test::startup_of(root_path("app/app.exe")));
  CHECK(!planning.before.closure.outcome.ok);
  const plan::Plan plan = plan::make_plan(planning.input(), planning.before);
  CHECK(!plan.verified);
  CHECK(plan.predicted == "FAILS");
  CHECK(plan.steps.empty());
  CHECK(!plan.remaining.empty());
  for (const rules::Finding& finding : planning.before.rules.findings)
    CHECK(plan::steps_mending(plan, finding).empty());
}

TEST_CASE("planner: no plan is cut short by a step budget while its steps still heal something") {
  // Eight vendor DLLs, each only in a folder of its own off the search path: eight PATH entries, no fewer.
  test::MemoryWorld world;
  std::vector<std::pair<std::string, std::vector<std::string>>> imports;
  for (int i = 0; i < 8; ++i) {
    const std::string dll = "vendor" + std::to_string(i) + ".dll";
    world.add_dll("vendor" + std::to_string(i) + "/" + dll, {"F"});
    imports.push_back({dll, {"F"}});
  }
  world.add_program("app/app.exe", imports);
  graph::ClosureRequest request = test::startup_of(root_path("app/app.exe"));
  pipeline::DiagnoseOptions diagnosis;
  for (int i = 0; i < 8; ++i) diagnosis.look_in.push_back(root_path("vendor" + std::to_string(i)));
  auto before =
      pipeline::diagnose(request, world.environment, *test::source_rules(), diagnosis, world.files(), world.images());
  REQUIRE(before);
  CHECK(!before->closure.outcome.ok);
  const plan::Plan plan = plan::make_plan(
      {request, world.environment, *test::source_rules(), diagnosis, world.files(), world.images()}, *before);
  CHECK(plan.verified);
  CHECK(plan.steps.size() == 8);
  for (const plan::Step& step : plan.steps) CHECK(step.change.kind == "path_add");
}

TEST_CASE("planner: steps that are one change to one place merge; others stay apart") {
  auto step = [](std::string kind, std::map<std::string, std::vector<std::string>> fields, std::string module) {
    plan::Step out;
    out.change.kind = std::move(kind);
    out.change.fields = std::move(fields);
    out.mends.push_back({"id", std::move(module)});
    return out;
  };
  const std::string redist = "winget install Microsoft.VCRedist.2015+.x64";
  const plan::Step msvcp =
      step("install", {{"names", {"msvcp140.dll"}}, {"to", {"C:\\W"}}, {"command", {redist}}}, "a");
  const plan::Step vcrt =
      step("install", {{"names", {"vcruntime140.dll"}}, {"to", {"C:\\W"}}, {"command", {redist}}}, "b");
  auto merged = plan::merged_step(msvcp, vcrt);
  REQUIRE(merged);
  CHECK(merged->change.values("names") == std::vector<std::string>{"msvcp140.dll", "vcruntime140.dll"});
  CHECK(merged->change.values("to") == std::vector<std::string>{"C:\\W"});
  CHECK(merged->mends.size() == 2);
  // Another folder, another download: two changes.
  CHECK(!plan::merged_step(msvcp,
                           step("install", {{"names", {"x.dll"}}, {"to", {"C:\\V"}}, {"command", {redist}}}, "c")));
  CHECK(!plan::merged_step(msvcp,
                           step("install", {{"names", {"x.dll"}}, {"to", {"C:\\W"}}, {"command", {"other"}}}, "c")));
  // Renames of one folder's files merge, of two folders' do not; PATH entries are each their own decision.
  CHECK(plan::merged_step(step("rename", {{"path", {"C:\\old\\a.dll"}}}, "a"),
                          step("rename", {{"path", {"C:\\old\\b.dll"}}}, "b")));
  CHECK(!plan::merged_step(step("rename", {{"path", {"C:\\old\\a.dll"}}}, "a"),
                           step("rename", {{"path", {"C:\\new\\b.dll"}}}, "b")));
  CHECK(!plan::merged_step(step("path_add", {{"entry", {"C:\\a"}}, {"position", {"first"}}}, "a"),
                           step("path_add", {{"entry", {"C:\\b"}}, {"position", {"first"}}}, "b")));
  CHECK(!plan::merged_step(step("rename", {{"path", {"C:\\old\\a.dll"}}}, "a"),
                           step("unblock", {{"path", {"C:\\old\\b.dll"}}}, "b")));
  // Two copies of one DLL into one folder are alternatives, not one change.
  CHECK(!plan::merged_step(step("copy", {{"from", {"C:\\x\\a.dll"}}, {"to", {"C:\\app"}}}, "a"),
                           step("copy", {{"from", {"C:\\y\\A.DLL"}}, {"to", {"C:\\app"}}}, "a")));
  // Each file keeps its host path beside it.
  plan::Step one = step("copy", {{"from", {"C:\\x\\a.dll"}}, {"to", {"C:\\app"}}}, "a");
  plan::Step two = step("copy", {{"from", {"C:\\x\\a.dll", "C:\\x\\b.dll"}}, {"to", {"C:\\app"}}}, "b");
  one.host["from"] = {"/x/a.dll"};
  two.host["from"] = {"/x/a.dll", "/x/b.dll"};
  auto pair = plan::merged_step(one, two);
  REQUIRE(pair);
  CHECK(pair->host.at("from") == std::vector<std::string>{"/x/a.dll", "/x/b.dll"});
}
