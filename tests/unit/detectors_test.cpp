// The rule engine (rules::run_rules, run_folder_rules) on closures and folders of an in-memory world: cuDNN's
// missing siblings, two releases in one process or one folder, two generations in one folder, a healthy set.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "dlldoctor/env/inventory.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/resolve/resolver.hpp"
#include "dlldoctor/rules/rule_engine.hpp"
#include "rules/cuda_versions.hpp"
#include "support/memory_world.hpp"

using namespace dlldoctor;
using test::root_path;

namespace {

// What the rule engine is given and what it concludes for one request.
struct Judged {
  graph::ClosureRequest request;
  graph::Closure closure;
  env::Inventory inventory;
  rules::RuleOutput output;
};

// The closure with the rules' knowledge of families, the inventory of what the detectors will ask about
// (the process's search folders included), then the rule engine on them.
Judged judge(test::MemoryWorld& world, graph::ClosureRequest request) {
  const rules::RuleData& rules = *test::source_rules();
  request.knowledge = rules::load_knowledge(rules);
  resolve::Resolver resolver(world.environment, world.files(), world.images(), resolve::WrongMachinePolicy::Fail);
  auto closure = graph::build_closure(request, resolver, world.files(), world.environment);
  REQUIRE_MESSAGE(closure, (closure ? std::string() : closure.error().message));
  Judged judged{std::move(request), std::move(closure).value(), {}, {}};
  env::InventoryRequest wanted = rules::inventory_request(judged.closure, world.environment, rules);
  resolve::ProcessState process = judged.closure.process;
  process.settings = {};
  for (const resolve::SearchFolder& folder : resolver.search_order(process, {}))
    wanted.search_folders.push_back(folder.folder);
  judged.inventory = env::build_inventory(world.environment, wanted, world.files(), world.images());
  judged.output = rules::run_rules({judged.closure,
                                    judged.request,
                                    world.environment,
                                    judged.inventory,
                                    rules,
                                    resolve::WrongMachinePolicy::Fail,
                                    {}});
  CHECK(judged.output.problems.empty());
  return judged;
}

std::vector<const rules::Finding*> with_id(const rules::RuleOutput& output, const std::string& id) {
  std::vector<const rules::Finding*> found;
  for (const rules::Finding& finding : output.findings) {
    if (finding.id == id) found.push_back(&finding);
  }
  return found;
}

std::size_t index_of(const graph::Closure& closure, const std::string& name) {
  const auto index = test::module_index(closure, name);
  REQUIRE_MESSAGE(index, (name + " is not in the closure"));
  return *index;
}

std::vector<std::string> dll_names(const nlohmann::ordered_json& list) {
  std::vector<std::string> names;
  for (const auto& item : list) names.push_back(item.at("dll").get<std::string>());
  return names;
}

// A program whose folder holds the cuDNN 9.1 dispatcher it imports, and `siblings` of it.
graph::ClosureRequest cudnn_app(test::MemoryWorld& world, const std::vector<std::string>& siblings) {
  world.add_program("app/app.exe", {{test::kCudnn9Main, {"cudnnCreate"}}});
  world.add_cudnn9("app", test::kCudnn91, siblings);
  return test::startup_of(root_path("app/app.exe"));
}

}  // namespace

TEST_CASE("detectors: a cuDNN 9 dispatcher without its siblings gives one missing-sibling finding for all seven") {
  test::MemoryWorld world;
  const Judged judged = judge(world, cudnn_app(world, {}));
  const auto found = with_id(judged.output, "missing-sibling");
  REQUIRE(found.size() == 1);
  const rules::Finding& finding = *found.front();
  CHECK(finding.severity == rules::Severity::Error);
  CHECK(finding.failure_mode == "5.2");
  // The finding is about the first sibling the dispatcher loads, and relates the dispatcher.
  CHECK(finding.module == test::kCudnn9Siblings.front());
  CHECK(finding.modules == std::vector<std::size_t>{index_of(judged.closure, test::kCudnn9Siblings.front())});
  CHECK(finding.related == std::vector<std::size_t>{index_of(judged.closure, test::kCudnn9Main)});
  // Absent everywhere: only part of the zip was copied; the evidence lists every missing sibling.
  CHECK(finding.message.find("only part of the cuDNN 9 zip was copied") != std::string::npos);
  CHECK(finding.evidence.at("missing").size() == test::kCudnn9Siblings.size());
  CHECK(dll_names(finding.evidence.at("missing")) == test::kCudnn9Siblings);
  CHECK(test::forward_slashes(finding.evidence.at("main").get<std::string>()) == root_path("app/cudnn64_9.dll"));
  // The step the planner may try: every sibling, of the dispatcher's release, into its folder.
  REQUIRE(finding.steps.size() == 1);
  const rules::FixStep& step = finding.steps.front();
  CHECK(step.kind == "install");
  CHECK(step.values("names") == test::kCudnn9Siblings);
  CHECK(step.value("version") == "9.1.0.70");
  CHECK(test::forward_slashes(step.value("to")) == root_path("app"));
  REQUIRE(finding.error);
  CHECK(finding.error->code == 126);
  // One finding explains them all: no other finding is about a sibling.
  for (const rules::Finding& other : judged.output.findings) {
    if (&other == &finding) continue;
    CAPTURE(other.id);
    CHECK(std::find(test::kCudnn9Siblings.begin(), test::kCudnn9Siblings.end(), other.module) ==
          test::kCudnn9Siblings.end());
  }
}

TEST_CASE("detectors: siblings next to a dispatcher loaded by full path are missing-sibling next_to_main") {
  test::MemoryWorld world;
  world.add_program("app/host.exe", {});
  world.add_cudnn9("cudnn/bin", test::kCudnn91, test::kCudnn9Siblings);
  graph::ClosureRequest request = test::startup_of(root_path("app/host.exe"));
  request.program_is_host = true;
  graph::LoadCall call;
  call.name = root_path("cudnn/bin/cudnn64_9.dll");
  request.loads.push_back(call);
  const Judged judged = judge(world, request);
  const auto found = with_id(judged.output, "missing-sibling");
  REQUIRE(found.size() == 1);
  const rules::Finding& finding = *found.front();
  CHECK(finding.message.find("a DLL's own folder is not searched") != std::string::npos);
  // The mend: the dispatcher's folder on PATH, where the siblings' bare-name loads look.
  REQUIRE(finding.steps.size() == 1);
  CHECK(finding.steps.front().kind == "path_add");
  CHECK(test::forward_slashes(finding.steps.front().value("entry")) == root_path("cudnn/bin"));
}

TEST_CASE("detectors: two cuDNN releases in one process give mixed-family-versions relating every module") {
  test::MemoryWorld world;
  world.add_program("app/app.exe", {{test::kCudnn9Main, {"cudnnCreate"}}});
  // An old dispatcher earlier on PATH wins over the complete newer release (the README's demo).
  world.add_cudnn9("cuda/bin", test::kCudnn90, {});
  world.add_cudnn9("cudnn/bin", test::kCudnn91, test::kCudnn9Siblings);
  world.add_path_entry("cuda/bin");
  world.add_path_entry("cudnn/bin");
  const Judged judged = judge(world, test::startup_of(root_path("app/app.exe")));
  const auto found = with_id(judged.output, "mixed-family-versions");
  REQUIRE(found.size() == 1);
  const rules::Finding& finding = *found.front();
  CHECK(finding.severity == rules::Severity::Error);
  // About the module of the oldest release; relates every other module of the mix.
  CHECK(finding.module == test::kCudnn9Main);
  const std::size_t main = index_of(judged.closure, test::kCudnn9Main);
  CHECK(finding.modules == std::vector<std::size_t>{main});
  std::set<std::size_t> expected_related;
  for (const std::string& sibling : test::kCudnn9Siblings) expected_related.insert(index_of(judged.closure, sibling));
  CHECK(std::set<std::size_t>(finding.related.begin(), finding.related.end()) == expected_related);
  CHECK(finding.related.size() == expected_related.size());
  const auto& by_version = finding.evidence.at("by_version");
  REQUIRE(by_version.contains("9.0.0.312"));
  REQUIRE(by_version.contains("9.1.0.70"));
  CHECK(by_version.at("9.0.0.312").size() == 1);
  CHECK(by_version.at("9.1.0.70").size() == test::kCudnn9Siblings.size());
  CHECK(finding.message.find("9.0.0.312 (cudnn64_9.dll)") != std::string::npos);
  // The odd one out is the minority's dispatcher: renamed, or replaced by the majority's release.
  REQUIRE(finding.steps.size() == 2);
  CHECK(finding.steps[0].kind == "rename");
  REQUIRE(finding.steps[0].values("path").size() == 1);
  CHECK(test::forward_slashes(finding.steps[0].values("path").front()) == root_path("cuda/bin/cudnn64_9.dll"));
  CHECK(finding.steps[1].kind == "install");
  CHECK(finding.steps[1].value("version") == "9.1.0.70");
}

TEST_CASE("detectors: a complete cuDNN 9 folder gives no error and no warning") {
  test::MemoryWorld world;
  const Judged judged = judge(world, cudnn_app(world, test::kCudnn9Siblings));
  CHECK(judged.closure.outcome.ok);
  for (const rules::Finding& finding : judged.output.findings) {
    CAPTURE(finding.id);
    CAPTURE(finding.message);
    CHECK(finding.severity == rules::Severity::Info);
  }
  CHECK(!judged.output.outcome_error);
}

TEST_CASE("detectors: run_folder_rules finds a folder that mixes cuDNN releases, and one that mixes generations") {
  test::MemoryWorld world;
  world.add_cudnn9("releases", test::kCudnn91, {"cudnn_graph64_9.dll", "cudnn_ops64_9.dll"});
  world.add_dll("releases/cudnn_cnn64_9.dll", {"Init"}, test::kCudnn90);
  world.add_cudnn9("generations", test::kCudnn91, {});
  world.add_dll("generations/cudnn64_8.dll", {"cudnnCreate"}, test::FileVersion{8, 9, 7, 29});
  world.add_cudnn9("one_release", test::kCudnn91, test::kCudnn9Siblings);
  const rules::RuleData& rules = *test::source_rules();
  env::InventoryRequest wanted;
  for (const char* id : {"cudnn9", "cudnn8"}) {
    for (const DllName& member : rules.family(id)->members) wanted.interesting.insert(member);
  }
  for (const char* name : {"releases", "generations", "one_release"})
    wanted.search_folders.push_back(test::folder(root_path(name)));
  const env::Inventory inventory = env::build_inventory(world.environment, wanted, world.files(), world.images());
  REQUIRE(inventory.search_folders.size() == 3);

  const rules::RuleOutput output = rules::run_folder_rules(inventory.search_folders, rules);
  CHECK(output.problems.empty());
  const auto releases = with_id(output, "mixed-family-versions");
  REQUIRE(releases.size() == 1);
  REQUIRE(releases.front()->folder_mix);
  CHECK(test::forward_slashes(releases.front()->folder_mix->host_folder) == root_path("releases"));
  CHECK(releases.front()->folder_mix->mixes == "cuDNN 9 versions 9.0.0.312 and 9.1.0.70");
  // The minority is the one 9.0 file.
  CHECK(releases.front()->module == "cudnn_cnn64_9.dll");
  // Folder findings are about no module of a closure.
  CHECK(releases.front()->modules.empty());
  CHECK(releases.front()->related.empty());

  const auto generations = with_id(output, "mixed-generations-folder");
  REQUIRE(generations.size() == 1);
  REQUIRE(generations.front()->folder_mix);
  CHECK(test::forward_slashes(generations.front()->folder_mix->host_folder) == root_path("generations"));
  CHECK(generations.front()->folder_mix->mixes == "cuDNN 8 and cuDNN 9");
  // Beside them, what the two folders' sets lack (information: a dispatcher without its siblings), and
  // nothing about the folder of one complete release.
  const auto incomplete = with_id(output, "missing-sibling");
  CHECK(output.findings.size() == 2 + incomplete.size());
  CHECK(!incomplete.empty());
  for (const rules::Finding* finding : incomplete) {
    CHECK(finding->severity == rules::Severity::Info);
    const std::string main = test::forward_slashes(finding->evidence["main"].get<std::string>());
    CHECK_MESSAGE(main.find("one_release") == std::string::npos, main);
  }
}

// The driver against a CUDA release, on the shipped table (rules/cuda.toml): at or above the release's own
// minimum nothing; on its major's floor (minor version compatibility) a warning; below it an error; a major
// the table does not know is not judged.
TEST_CASE("judge_driver: the release's minimum, its major's floor, and majors the table does not know") {
  using rules::CudaRelease;
  using rules::DriverFit;
  const rules::RuleData& table = *test::source_rules();
  const auto fit = [&](int major, int minor, const char* driver) {
    return rules::judge_driver(table, CudaRelease{major, minor}, driver).fit;
  };
  CHECK(fit(12, 4, "551.61") == DriverFit::enough);  // exactly the minimum
  CHECK(fit(12, 4, "552.44") == DriverFit::enough);
  CHECK(fit(12, 4, "551.60") == DriverFit::minor_compatible);
  CHECK(fit(12, 4, "527.41") == DriverFit::minor_compatible);  // exactly the 12.x floor
  CHECK(fit(12, 4, "527.40") == DriverFit::too_old);
  CHECK(fit(12, 7, "560.76") == DriverFit::enough);  // a release between rows takes the row below (12.6)
  CHECK(fit(11, 8, "465.89") == DriverFit::minor_compatible);
  CHECK(fit(11, 8, "452.38") == DriverFit::too_old);
  CHECK(fit(11, 0, "451.48") == DriverFit::enough);  // 11.0 shipped below the 11.x floor: its own minimum holds
  CHECK(fit(11, 0, "451.47") == DriverFit::too_old);
  CHECK(fit(13, 0, "580.88") == DriverFit::enough);
  CHECK(fit(13, 0, "576.02") == DriverFit::too_old);
  // Neither 10.x nor a CUDA 14 is in the table: 13.0's minimum says nothing about them.
  CHECK(fit(10, 2, "400.00") == DriverFit::enough);
  CHECK(fit(14, 0, "400.00") == DriverFit::enough);
  CHECK(rules::judge_driver(table, CudaRelease{14, 0}, "400.00").minimum == nullptr);
}
