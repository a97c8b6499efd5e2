#pragma once
// The Python environment an interpreter belongs to, read from its files as CPython's own start-up reads
// them: a venv (pyvenv.cfg and its `home`), conda (conda-meta\ in the prefix), a Microsoft Store install
// (under WindowsApps\PythonSoftwareFoundation.Python.*), or a plain CPython. Load recipes fill their
// {prefix}-style placeholders from it and find packages in its site-packages folders.
#include <string>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/file_system.hpp"

namespace dlldoctor::env {

struct PythonEnvironment {
  enum class Layout { Plain, Venv, Conda, Store };
  Layout layout = Layout::Plain;
  std::string interpreter;                 // host path of python.exe (it need not exist: a folder copied from Windows)
  std::string prefix;                      // sys.prefix, host path
  std::string base_prefix;                 // sys.base_prefix: a venv's `home`, else the prefix
  std::vector<std::string> site_packages;  // host folders, in the order Python searches them
  std::string why;                         // how the layout was recognised, for the report
};

std::string_view layout_name(PythonEnvironment::Layout layout);

// `site_packages`: the folders --site-packages named, which replace the ones found (each must exist).
Result<PythonEnvironment> find_python_environment(const Environment& environment, FileSystem& files,
                                                  const std::string& interpreter,
                                                  const std::vector<std::string>& site_packages);

// The value of `key` = '...' (or "...", with an optional annotation: `cuda: Optional[str] = '12.4'`) in
// a Python source file such as torch\version.py; nullopt when absent or None.
std::optional<std::string> python_assignment(std::string_view source, std::string_view key);

}  // namespace dlldoctor::env
