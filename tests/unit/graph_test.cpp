// graph::build_closure on an in-memory world: which folders a DLL's imports are searched in, what a missing
// import, a missing export or a wrong machine makes of the outcome, shared modules, runtime loads.
#include <doctest/doctest.h>

#include <algorithm>

#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/resolve/resolver.hpp"
#include "dlldoctor/rules/rule_engine.hpp"
#include "support/memory_world.hpp"

using namespace dlldoctor;
using test::root_path;

namespace {

Result<graph::Closure> closure_of(test::MemoryWorld& world, const graph::ClosureRequest& request,
                                  resolve::WrongMachinePolicy policy = resolve::WrongMachinePolicy::Fail) {
  resolve::Resolver resolver(world.environment, world.files(), world.images(), policy);
  return graph::build_closure(request, resolver, world.files(), world.environment);
}

// A host that imports nothing, and one LoadLibraryExW of lib/ops.dll by full path with `flags`; ops.dll
// imports graph.dll, which lies next to it and nowhere else.
graph::ClosureRequest load_next_to_dependency(test::MemoryWorld& world, std::uint32_t flags) {
  world.add_program("app/host.exe", {});
  world.add_dll("lib/ops.dll", {"OpsInit"}, std::nullopt, {{"graph.dll", {"GraphInit"}}});
  world.add_dll("lib/graph.dll", {"GraphInit"});
  graph::ClosureRequest request = test::startup_of(root_path("app/host.exe"));
  request.program_is_host = true;
  graph::LoadCall call;
  call.name = root_path("lib/ops.dll");
  call.flags = flags;
  request.loads.push_back(call);
  return request;
}

bool searched_in(const resolve::Resolution& resolution, const std::string& folder) {
  return std::any_of(resolution.searched.begin(), resolution.searched.end(),
                     [&](const resolve::SearchFolder& s) { return test::forward_slashes(s.folder.host) == folder; });
}

}  // namespace

TEST_CASE("graph: a DLL loaded by full path does not have its static imports searched in its own folder") {
  test::MemoryWorld world;
  auto closure = closure_of(world, load_next_to_dependency(world, 0));
  REQUIRE_MESSAGE(closure, (closure ? std::string() : closure.error().message));
  REQUIRE(closure->loads.size() == 1);
  const graph::Outcome& load = closure->loads[0];
  CHECK(!load.ok);
  CHECK(load.error == 126);
  REQUIRE(load.missing.size() == 1);
  CHECK(load.missing[0].dll == "graph.dll");
  CHECK(load.missing[0].needed_by == "ops.dll");
  // The verdict is the load's: the host's start-up is context.
  CHECK(!closure->outcome.ok);
  CHECK(closure->outcome.error == 126);

  const auto ops = test::module_index(*closure, "ops.dll");
  const auto graph_dll = test::module_index(*closure, "graph.dll");
  REQUIRE(ops);
  REQUIRE(graph_dll);
  const graph::Module& ops_module = closure->modules[*ops];
  CHECK(ops_module.resolution.found_by == resolve::SearchStep::Explicit);
  const graph::Module& missing = closure->modules[*graph_dll];
  CHECK(missing.resolution.failure == resolve::Failure::NotFound);
  // What a LoadLibrary call brings in, its imports too, is loaded as the call's: dynamic.
  CHECK(ops_module.load == graph::LoadKind::Dynamic);
  CHECK(missing.load == graph::LoadKind::Dynamic);
  CHECK(missing.load_call == std::size_t{0});
  CHECK(std::find(ops_module.children.begin(), ops_module.children.end(), *graph_dll) != ops_module.children.end());
  // The program's folder is searched; the folder of the DLL that imports it is not.
  CHECK(searched_in(missing.resolution, root_path("app")));
  CHECK(!searched_in(missing.resolution, root_path("lib")));
}

TEST_CASE("graph: LOAD_WITH_ALTERED_SEARCH_PATH searches the loaded DLL's folder for its imports") {
  test::MemoryWorld world;
  auto closure = closure_of(world, load_next_to_dependency(world, resolve::load_flags::kAlteredSearchPath));
  REQUIRE(closure);
  REQUIRE(closure->loads.size() == 1);
  CHECK(closure->loads[0].ok);
  CHECK(!closure->loads[0].error);
  CHECK(closure->outcome.ok);
  const auto graph_dll = test::module_index(*closure, "graph.dll");
  REQUIRE(graph_dll);
  const resolve::Resolution& found = closure->modules[*graph_dll].resolution;
  CHECK(found.failure == resolve::Failure::None);
  CHECK(found.found_by == resolve::SearchStep::DllLoadDir);
  REQUIRE(found.path);
  CHECK(test::forward_slashes(*found.path) == root_path("lib/graph.dll"));
}

TEST_CASE("graph: a start-up import found nowhere fails with 126 and names the missing DLL and its importer") {
  test::MemoryWorld world;
  world.add_program("app/app.exe", {{"present.dll", {"Here"}}, {"absent.dll", {"Gone"}}});
  world.add_dll("app/present.dll", {"Here"});
  auto closure = closure_of(world, test::startup_of(root_path("app/app.exe")));
  REQUIRE(closure);
  REQUIRE(closure->startup);
  CHECK(!closure->startup->ok);
  CHECK(!closure->outcome.ok);
  CHECK(closure->outcome.error == 126);
  REQUIRE(closure->outcome.missing.size() == 1);
  CHECK(closure->outcome.missing[0].dll == "absent.dll");
  CHECK(closure->outcome.missing[0].needed_by == "app.exe");
  CHECK(closure->outcome.reason.find("absent.dll") != std::string::npos);

  REQUIRE(!closure->modules.empty());
  CHECK(closure->modules[0].is_root);
  const auto present = test::module_index(*closure, "present.dll");
  REQUIRE(present);
  CHECK(closure->modules[*present].resolution.failure == resolve::Failure::None);
  CHECK(closure->modules[*present].resolution.found_by == resolve::SearchStep::AppDir);
  CHECK(closure->modules[*present].depth == 1);
  const auto absent = test::module_index(*closure, "absent.dll");
  REQUIRE(absent);
  CHECK(closure->modules[*absent].resolution.failure == resolve::Failure::NotFound);
  REQUIRE(closure->outcome.cause);
  CHECK(*closure->outcome.cause == *absent);
}

TEST_CASE("graph: a function the found DLL does not export fails with 127 and is listed on that module") {
  test::MemoryWorld world;
  world.add_program("app/app.exe", {{"lib.dll", {"Wanted", "Exported"}}});
  world.add_dll("app/lib.dll", {"Exported"});
  auto closure = closure_of(world, test::startup_of(root_path("app/app.exe")));
  REQUIRE(closure);
  CHECK(!closure->outcome.ok);
  CHECK(closure->outcome.error == 127);
  CHECK(closure->outcome.missing.empty());
  const auto lib = test::module_index(*closure, "lib.dll");
  REQUIRE(lib);
  const auto& missing = closure->modules[*lib].missing_exports;
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].function == "Wanted");
  CHECK(missing[0].needed_by == "app.exe");
}

TEST_CASE("graph: a DLL two modules import is one module, needed by both and a child of each") {
  test::MemoryWorld world;
  world.add_program("app/app.exe", {{"a.dll", {"A"}}, {"b.dll", {"B"}}});
  world.add_dll("app/a.dll", {"A"}, std::nullopt, {{"shared.dll", {"S"}}});
  world.add_dll("app/b.dll", {"B"}, std::nullopt, {{"shared.dll", {"S"}}});
  world.add_dll("app/shared.dll", {"S"});
  auto closure = closure_of(world, test::startup_of(root_path("app/app.exe")));
  REQUIRE(closure);
  CHECK(closure->outcome.ok);
  CHECK(closure->modules.size() == 4);
  const auto a = test::module_index(*closure, "a.dll");
  const auto b = test::module_index(*closure, "b.dll");
  const auto shared = test::module_index(*closure, "shared.dll");
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(shared);
  const graph::Module& module = closure->modules[*shared];
  CHECK(module.depth == 2);
  CHECK(std::count(module.needed_by.begin(), module.needed_by.end(), "a.dll") == 1);
  CHECK(std::count(module.needed_by.begin(), module.needed_by.end(), "b.dll") == 1);
  for (const std::size_t importer : {*a, *b}) {
    const auto& children = closure->modules[importer].children;
    CHECK(std::find(children.begin(), children.end(), *shared) != children.end());
  }
  CHECK(closure->process.loaded.count(DllName("shared.dll")) == 1);
}

TEST_CASE("graph: a DLL of the wrong machine found first fails with 193, or is skipped under the skip policy") {
  test::MemoryWorld world;
  world.add_program("app/app.exe", {{"lib.dll", {"F"}}});
  test::PeSpec x86;
  x86.machine = pe::machine::kI386;
  x86.exports = {"F"};
  world.add_pe("app/lib.dll", x86);
  world.add_dll("other/lib.dll", {"F"});
  world.add_path_entry("other");
  const graph::ClosureRequest request = test::startup_of(root_path("app/app.exe"));

  auto failing = closure_of(world, request, resolve::WrongMachinePolicy::Fail);
  REQUIRE(failing);
  CHECK(!failing->outcome.ok);
  CHECK(failing->outcome.error == 193);
  const auto in_failing = test::module_index(*failing, "lib.dll");
  REQUIRE(in_failing);
  CHECK(failing->modules[*in_failing].resolution.failure == resolve::Failure::BadImage);

  auto skipping = closure_of(world, request, resolve::WrongMachinePolicy::Skip);
  REQUIRE(skipping);
  CHECK(skipping->outcome.ok);
  const auto in_skipping = test::module_index(*skipping, "lib.dll");
  REQUIRE(in_skipping);
  const resolve::Resolution& found = skipping->modules[*in_skipping].resolution;
  CHECK(found.found_by == resolve::SearchStep::Path);
  REQUIRE(found.path);
  CHECK(test::forward_slashes(*found.path) == root_path("other/lib.dll"));
  // The x86 copy is still a candidate, marked as the one of the wrong machine.
  CHECK(std::any_of(found.candidates.begin(), found.candidates.end(),
                    [](const resolve::Candidate& c) { return c.verdict == resolve::Verdict::WrongMachine; }));
}

TEST_CASE("graph: the rules' runtime loads bring in cuDNN's siblings, needed by the dispatcher") {
  test::MemoryWorld world;
  world.add_program("app/app.exe", {{test::kCudnn9Main, {"cudnnCreate"}}});
  world.add_cudnn9("app", test::kCudnn91, test::kCudnn9Siblings);
  graph::ClosureRequest request = test::startup_of(root_path("app/app.exe"));
  request.knowledge = rules::load_knowledge(*test::source_rules());
  auto closure = closure_of(world, request);
  REQUIRE(closure);
  CHECK(closure->outcome.ok);
  CHECK(closure->modules.size() == 2 + test::kCudnn9Siblings.size());
  const auto main = test::module_index(*closure, test::kCudnn9Main);
  REQUIRE(main);
  CHECK(closure->modules[*main].load == graph::LoadKind::Static);
  CHECK(closure->modules[*main].family == "cudnn9");
  for (const std::string& sibling : test::kCudnn9Siblings) {
    CAPTURE(sibling);
    const auto index = test::module_index(*closure, sibling);
    REQUIRE(index);
    const graph::Module& module = closure->modules[*index];
    CHECK(module.load == graph::LoadKind::Runtime);
    CHECK(module.family == "cudnn9");
    CHECK(module.needed_by == std::vector<std::string>{test::kCudnn9Main});
    CHECK(module.resolution.found_by == resolve::SearchStep::AppDir);
    REQUIRE(module.resolution.image);
    REQUIRE(module.resolution.image->file_version);
    CHECK(module.resolution.image->file_version->to_string() == "9.1.0.70");
  }
  // Without the rules the dispatcher's siblings are unknown: its import table does not name them.
  request.knowledge = {};
  auto without = closure_of(world, request);
  REQUIRE(without);
  CHECK(without->modules.size() == 2);
}
