// Load recipes (recipes::expand_python) on a Python environment in memory (env::find_python_environment):
// what `--import torch` becomes in the closure request, and what the closure then makes of it.
#include <doctest/doctest.h>

#include <algorithm>

#include "dlldoctor/env/python_env.hpp"
#include "dlldoctor/pipeline/diagnose.hpp"
#include "dlldoctor/recipes/expand.hpp"
#include "dlldoctor/resolve/load_request.hpp"
#include "support/memory_world.hpp"

using namespace dlldoctor;
using test::root_path;

namespace {

env::PythonEnvironment python_of(test::MemoryWorld& world, const std::string& interpreter) {
  auto python = env::find_python_environment(world.environment, world.files(), interpreter, {});
  REQUIRE_MESSAGE(python, (python ? std::string() : python.error().message));
  return std::move(python).value();
}

std::vector<std::string> folders(const std::vector<env::FolderRef>& refs) {
  std::vector<std::string> out;
  for (const env::FolderRef& ref : refs) out.push_back(test::forward_slashes(ref.host));
  return out;
}

const recipes::StepOutcome* step_starting(const recipes::ExpandedRecipe& recipe, const std::string& start) {
  for (const recipes::StepOutcome& step : recipe.steps) {
    if (step.step.rfind(start, 0) == 0) return &step;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("recipes: a plain CPython in memory is found with its version and site-packages") {
  test::MemoryWorld world;
  const std::string interpreter = world.add_python_with_torch();
  const env::PythonEnvironment python = python_of(world, interpreter);
  CHECK(python.layout == env::PythonEnvironment::Layout::Plain);
  CHECK(python.version == "3.11");  // from python311.dll beside the interpreter
  CHECK(python.interpreter == interpreter);
  CHECK(test::forward_slashes(python.prefix) == root_path("py"));
  REQUIRE(python.site_packages.size() == 1);
  CHECK(test::forward_slashes(python.site_packages.front()) == root_path("py/Lib/site-packages"));
  CHECK(python.user_site.empty());
}

TEST_CASE("recipes: --import torch becomes LoadLibraryExW(0x1100) of every torch\\lib DLL after AddDllDirectory") {
  test::MemoryWorld world;
  const std::string interpreter = world.add_python_with_torch();
  const env::PythonEnvironment python = python_of(world, interpreter);
  graph::ClosureRequest request = test::startup_of(interpreter);
  auto expansion =
      recipes::expand_python(*test::source_rules(), python, {"torch"}, world.environment, world.files(), request);
  REQUIRE_MESSAGE(expansion, (expansion ? std::string() : expansion.error().message));

  REQUIRE(expansion->recipes.size() == 1);  // a plain CPython has no start-up recipe
  const recipes::ExpandedRecipe& torch = expansion->recipes.front();
  CHECK(torch.id == "torch");
  CHECK(test::forward_slashes(torch.package_dir) == root_path("py/Lib/site-packages/torch"));
  CHECK(torch.values.at("version") == "2.5.1+cu124");
  CHECK(torch.values.at("cuda") == "12.4");
  CHECK(torch.outside_covers.empty());  // 2.5 is within the recipe's 2.0 to 3

  // torch\lib's DLLs in the folder's name order, then the extension module, each with torch's flags.
  const std::string lib = root_path(test::kTorchLib);
  REQUIRE(request.loads.size() == 3);
  CHECK(torch.first_load == 0);
  CHECK(torch.loads == 3);
  CHECK(test::forward_slashes(request.loads[0].name) == lib + "/c10.dll");
  CHECK(test::forward_slashes(request.loads[1].name) == lib + "/torch_cpu.dll");
  CHECK(test::forward_slashes(request.loads[2].name) == root_path("py/Lib/site-packages/torch/_C.cp311-win_amd64.pyd"));
  for (const graph::LoadCall& call : request.loads) {
    CAPTURE(call.name);
    CHECK(call.flags == 0x1100);
    CHECK(call.flags == (resolve::load_flags::kSearchDllLoadDir | resolve::load_flags::kSearchDefaultDirs));
    CHECK(call.origin == "import torch");
    CHECK(!call.failure_caught);
  }
  // The AddDllDirectory of torch\lib is made before the first load; the lib loads retry with it on PATH.
  CHECK(folders(request.loads[0].add_dll_directories) == std::vector<std::string>{lib});
  CHECK(request.loads[1].add_dll_directories.empty());
  CHECK(folders(request.loads[0].retry_with_path) == std::vector<std::string>{lib});
  CHECK(request.loads[2].retry_with_path.empty());
  CHECK(request.loads[0].says.count("default") == 1);

  const recipes::StepOutcome* added = step_starting(torch, "add_dll_directory");
  REQUIRE(added);
  CHECK(added->outcome == "added");
  // Library\bin does not exist, and no CUDA toolkit folder either: those steps are skipped, and say why.
  const auto skipped = std::count_if(torch.steps.begin(), torch.steps.end(), [](const recipes::StepOutcome& s) {
    return s.outcome == "skipped: the folder does not exist";
  });
  CHECK(skipped == 3);
  CHECK(std::any_of(expansion->variables_used.begin(), expansion->variables_used.end(),
                    [](const std::string& used) { return used.rfind("CUDA_PATH_V12_4 is not set", 0) == 0; }));
}

TEST_CASE("recipes: a CUDA runtime in torch\\lib skips the toolkit's folder") {
  test::MemoryWorld world;
  const std::string interpreter = world.add_python_with_torch();
  world.add_dll(test::kTorchLib + "/cudart64_12.dll", {"cudaMalloc"});
  const env::PythonEnvironment python = python_of(world, interpreter);
  graph::ClosureRequest request = test::startup_of(interpreter);
  auto expansion =
      recipes::expand_python(*test::source_rules(), python, {"torch"}, world.environment, world.files(), request);
  REQUIRE(expansion);
  const auto& steps = expansion->recipes.front().steps;
  CHECK(std::any_of(steps.begin(), steps.end(), [](const recipes::StepOutcome& s) {
    return s.outcome.rfind("skipped: cudart64_12.dll is in ", 0) == 0;
  }));
  CHECK(request.loads.size() == 4);  // cudart64_12.dll is one more torch\lib DLL
}

TEST_CASE("recipes: an import no recipe describes, or a package not installed, is an error") {
  test::MemoryWorld world;
  const std::string interpreter = world.add_python_with_torch();
  const env::PythonEnvironment python = python_of(world, interpreter);
  graph::ClosureRequest request = test::startup_of(interpreter);
  auto unknown = recipes::expand_python(*test::source_rules(), python, {"no_such_framework"}, world.environment,
                                        world.files(), request);
  REQUIRE(!unknown);
  CHECK(unknown.error().message.find("no load recipe describes it") != std::string::npos);
  auto absent =
      recipes::expand_python(*test::source_rules(), python, {"onnxruntime"}, world.environment, world.files(), request);
  REQUIRE(!absent);
  CHECK(absent.error().message.find("onnxruntime is not installed") != std::string::npos);
  CHECK(request.loads.empty());
}

TEST_CASE("recipes: the closure of --import torch loads every call and calls its outcome the import") {
  test::MemoryWorld world;
  const std::string interpreter = world.add_python_with_torch();
  const env::PythonEnvironment python = python_of(world, interpreter);
  graph::ClosureRequest request = test::startup_of(interpreter);
  REQUIRE(recipes::expand_python(*test::source_rules(), python, {"torch"}, world.environment, world.files(), request));
  pipeline::DiagnoseOptions options;
  options.site_packages = python.site_packages;
  auto diagnosis =
      pipeline::diagnose(request, world.environment, *test::source_rules(), options, world.files(), world.images());
  REQUIRE(diagnosis);
  const graph::Closure& closure = diagnosis->closure;
  REQUIRE(closure.loads.size() == 3);
  for (const graph::Outcome& load : closure.loads) {
    CAPTURE(load.request);
    CHECK(load.ok);
    CHECK(load.found_by == resolve::SearchStep::Explicit);
  }
  CHECK(closure.outcome.ok);
  CHECK(closure.outcome.request == "import torch");
  // torch_cpu.dll's import of c10.dll is answered by the copy the first call loaded.
  const auto c10 = test::module_index(closure, "c10.dll");
  REQUIRE(c10);
  CHECK(closure.modules[*c10].load_call == std::size_t{0});
}
