#pragma once
// A machine held in memory for the tests of the layers above the resolver (graph, rules, planner, recipes,
// session, writers): files made with the test PE builder in an env::MemoryFileSystem, an environment with
// no Windows system behind it, an image cache that reads the files' bytes from memory, the rules of the
// source tree. No disk and no process.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/memory_file_system.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/pe/image_cache.hpp"
#include "dlldoctor/rules/rule_data.hpp"
#include "dlldoctor/session/machine.hpp"
#include "support/pe_builder.hpp"

namespace dlldoctor::test {

// `relative` under an absolute root on both builds ("/w/app/app.exe"; the Windows build makes a program's
// path absolute with its drive, so its root is "C:/w").
std::string root_path(const std::string& relative);

env::FolderRef folder(const std::string& path, bool exists = true);
env::FileBytes bytes_of(std::vector<std::uint8_t> bytes);

// An environment of folders only: no Windows system to look at, every system folder empty or absent, no
// PATH. Nothing is assumed present, so a closure holds only the files a test made.
env::Environment bare_environment();

// rules/ of the source tree (DLLDOCTOR_SOURCE_RULES), read once for the whole test program.
std::shared_ptr<const rules::RuleData> source_rules();

using FileVersion = std::array<std::uint16_t, 4>;

// cuDNN 9's dispatcher and the seven siblings it loads by name at run time (rules/cudnn.toml, releases
// before 9.20: the two siblings 9.20 added are asked for only by newer dispatchers).
inline const std::string kCudnn9Main = "cudnn64_9.dll";
inline const std::vector<std::string> kCudnn9Siblings = {"cudnn_graph64_9.dll",
                                                         "cudnn_ops64_9.dll",
                                                         "cudnn_cnn64_9.dll",
                                                         "cudnn_adv64_9.dll",
                                                         "cudnn_engines_precompiled64_9.dll",
                                                         "cudnn_engines_runtime_compiled64_9.dll",
                                                         "cudnn_heuristic64_9.dll"};
inline constexpr FileVersion kCudnn91{9, 1, 0, 70};
inline constexpr FileVersion kCudnn90{9, 0, 0, 312};

inline const std::string kTorchLib = "py/Lib/site-packages/torch/lib";

class MemoryWorld {
 public:
  MemoryWorld();

  env::MemoryFileSystem& files() { return *files_; }
  pe::ImageCache& images() { return *images_; }
  env::Environment environment = bare_environment();

  // The PE file `spec` describes at root_path(relative); returns its host path.
  std::string add_pe(const std::string& relative, const PeSpec& spec);
  // A DLL exporting `exports` and importing `imports` (DLL -> functions), with a version resource when
  // `version` is given.
  std::string add_dll(const std::string& relative, const std::vector<std::string>& exports,
                      std::optional<FileVersion> version = std::nullopt,
                      std::vector<std::pair<std::string, std::vector<std::string>>> imports = {});
  // A console program importing `imports`.
  std::string add_program(const std::string& relative,
                          std::vector<std::pair<std::string, std::vector<std::string>>> imports);
  std::string add_text(const std::string& relative, const std::string& text);
  // An entry appended to the process's PATH, as --path gives it.
  void add_path_entry(const std::string& relative);

  // The cuDNN 9 dispatcher (exporting cudnnCreate) and `siblings`, all of `version`, in `relative` folder.
  void add_cudnn9(const std::string& relative, FileVersion version, const std::vector<std::string>& siblings);

  // A plain CPython 3.11 in py/ (python.exe importing python311.dll, beside it) with torch 2.5.1+cu124 in its
  // site-packages, as rules/torch.toml reads it: torch/version.py, torch/lib holding c10.dll and
  // torch_cpu.dll (which imports c10.dll), torch/_C.cp311-win_amd64.pyd importing torch_cpu.dll. Returns
  // the interpreter's path; kTorchLib is torch/lib, for a test that puts more DLLs there.
  std::string add_python_with_torch();

  // The world as a session::Machine over the source rules: its files and its image cache move into it, and
  // this world is not used after. A session::ExplainRun points into the Machine it was made on: a test keeps
  // the Machine where it was when it keeps the run.
  session::Machine into_machine() &&;

 private:
  std::unique_ptr<env::MemoryFileSystem> files_;
  std::shared_ptr<pe::ImageCache> images_;
};

// `path` with every '\\' as '/': the Windows build joins host paths with '\\', the tests name them with '/'.
std::string forward_slashes(std::string path);

// A closure request of the program's start-up.
graph::ClosureRequest startup_of(const std::string& program);

// The index in closure.modules of the module named `name` (any case), if there is one.
std::optional<std::size_t> module_index(const graph::Closure& closure, const std::string& name);

}  // namespace dlldoctor::test
