#include "support/memory_world.hpp"

#include <stdexcept>

#include "dlldoctor/core/dll_name.hpp"

namespace dlldoctor::test {

std::string root_path(const std::string& relative) {
#ifdef _WIN32
  const std::string root = "C:/w";
#else
  const std::string root = "/w";
#endif
  return relative.empty() ? root : root + "/" + relative;
}

env::FolderRef folder(const std::string& path, bool exists) { return env::FolderRef{path, std::nullopt, exists}; }

env::FileBytes bytes_of(std::vector<std::uint8_t> bytes) {
  return std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes));
}

env::Environment bare_environment() {
  env::Environment environment;
  environment.system32 = folder(root_path("sys32"));
  environment.syswow64 = folder(root_path("syswow64"), false);
  environment.system16 = folder(root_path("system"), false);
  environment.windows = folder(root_path("windows"), false);
  environment.cwd = folder(root_path("cwd"), false);
#ifdef _WIN32
  environment.host_paths_are_windows = true;  // as dlldoctor.exe's own environment: C:\ paths are the host's
#endif
  return environment;
}

std::shared_ptr<const rules::RuleData> source_rules() {
  // Read once: every test of the program shares them, and reading 15 TOML files under the sanitizers is
  // the slowest part of a small test.
  static const std::shared_ptr<const rules::RuleData> rules = [] {
    auto loaded = rules::load_rules({DLLDOCTOR_SOURCE_RULES});
    if (!loaded) throw std::runtime_error("rules of the source tree: " + loaded.error().message);
    return std::make_shared<const rules::RuleData>(std::move(loaded).value());
  }();
  return rules;
}

MemoryWorld::MemoryWorld()
    : files_(std::make_unique<env::MemoryFileSystem>()),
      images_(std::make_shared<pe::ImageCache>(
          [files = files_.get()](const std::string& path) { return files->memory_bytes(path); })) {
  files_->add_folder(environment.system32.host);
}

std::string MemoryWorld::add_pe(const std::string& relative, const PeSpec& spec) {
  const std::string path = root_path(relative);
  files_->add_file(path, bytes_of(build_pe(spec)));
  return path;
}

std::string MemoryWorld::add_dll(const std::string& relative, const std::vector<std::string>& exports,
                                 std::optional<FileVersion> version,
                                 std::vector<std::pair<std::string, std::vector<std::string>>> imports) {
  PeSpec spec;
  spec.exports = exports;
  spec.file_version = version;
  spec.imports = std::move(imports);
  return add_pe(relative, spec);
}

std::string MemoryWorld::add_program(const std::string& relative,
                                     std::vector<std::pair<std::string, std::vector<std::string>>> imports) {
  PeSpec spec;
  spec.dll = false;
  spec.imports = std::move(imports);
  return add_pe(relative, spec);
}

std::string MemoryWorld::add_text(const std::string& relative, const std::string& text) {
  const std::string path = root_path(relative);
  files_->add_file(path, text);
  return path;
}

void MemoryWorld::add_path_entry(const std::string& relative) {
  env::append_path_entries(environment, root_path(relative), *files_);
}

void MemoryWorld::add_cudnn9(const std::string& relative, FileVersion version,
                             const std::vector<std::string>& siblings) {
  add_dll(relative + "/" + kCudnn9Main, {"cudnnCreate"}, version);
  for (const std::string& sibling : siblings) add_dll(relative + "/" + sibling, {"Init"}, version);
}

std::string MemoryWorld::add_python_with_torch() {
  const std::string python = add_program("py/python.exe", {{"python311.dll", {"Py_Main"}}});
  add_dll("py/python311.dll", {"Py_Main"});
  add_text("py/Lib/site-packages/torch/version.py",
           "__version__ = '2.5.1+cu124'\ndebug = False\ncuda: Optional[str] = '12.4'\n");
  add_dll(kTorchLib + "/c10.dll", {"c10_init"});
  add_dll(kTorchLib + "/torch_cpu.dll", {"torch_init"}, std::nullopt, {{"c10.dll", {"c10_init"}}});
  PeSpec extension;
  extension.exports = {"PyInit__C"};
  extension.imports = {{"torch_cpu.dll", {"torch_init"}}};
  add_pe("py/Lib/site-packages/torch/_C.cp311-win_amd64.pyd", extension);
  return python;
}

session::Machine MemoryWorld::into_machine() && {
  return session::Machine(source_rules(), std::move(environment), std::move(files_), std::move(images_));
}

std::string forward_slashes(std::string path) {
  for (char& c : path) {
    if (c == '\\') c = '/';
  }
  return path;
}

graph::ClosureRequest startup_of(const std::string& program) {
  graph::ClosureRequest request;
  request.program = program;
  return request;
}

std::optional<std::size_t> module_index(const graph::Closure& closure, const std::string& name) {
  const DllName wanted(name);
  for (std::size_t i = 0; i < closure.modules.size(); ++i) {
    if (closure.modules[i].key == wanted) return i;
  }
  return std::nullopt;
}

}  // namespace dlldoctor::test
