#pragma once
#include <string_view>

namespace dlldoctor::resolve {

// Why a candidate was looked at: the step of the loader's search (DOMAIN.md §1) that reached it.
enum class SearchStep {
  Root,          // the program itself
  Explicit,      // a path given to LoadLibrary
  Loaded,        // already in the process (loaded-module list)
  KnownDll,      // KnownDLLs: always the system copy
  ApiSet,        // api-ms-win-* / ext-ms-win-* through the API set schema
  Redirection,   // app.exe.local
  AppDir,        // the folder the program was loaded from
  DllLoadDir,    // the loaded DLL's own folder (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR, altered search path)
  UserDir,       // AddDllDirectory folders (LOAD_LIBRARY_SEARCH_USER_DIRS)
  DllDirectory,  // the SetDllDirectory folder
  System32,      // System32, or SysWOW64 for a 32-bit process
  System16,      // Windows\System
  Windows,
  Cwd,
  Path,
};

std::string_view step_name(SearchStep step);

// The step in words, for messages ("the program's folder", "PATH").
std::string_view step_label(SearchStep step);

}  // namespace dlldoctor::resolve
