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
  // Host path of the python.exe whose process loads the DLLs (it need not exist: a folder copied from
  // Windows). For a venv whose Scripts\python.exe is CPython's launcher, the base interpreter it starts.
  std::string interpreter;
  // A venv's Scripts\python.exe when it is the launcher (venvlauncher, Python 3.7.2+): it starts `home`'s
  // python.exe as a child process, which loads every DLL from its own folder (DOMAIN.md §2b); else empty.
  std::string launcher;
  std::string prefix;                      // sys.prefix, host path
  std::string base_prefix;                 // sys.base_prefix: a venv's `home`, else the prefix
  std::string version;                     // "3.11": pyvenv.cfg, the pythonXY.dll beside it, or the Store folder
  std::vector<std::string> site_packages;  // host folders, in the order Python searches them
  std::string user_site;                   // the user site-packages among them (first), empty when none
  // Whether and why the user site is on sys.path (site.py): "%APPDATA%\Python\Python311\site-packages
  // exists", "PYTHONNOUSERSITE is set", "a venv without include-system-site-packages hides it", ...
  std::string user_site_why;
  std::string why;  // how the layout was recognised, for the report
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
