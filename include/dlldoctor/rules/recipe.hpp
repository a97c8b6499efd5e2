#pragma once
// Load recipes: a framework's loading code as data (rules/*.toml, [[recipe]]). A recipe says how to find
// the package and its version, then the calls its code makes, in order: AddDllDirectory folders, loads
// by path or glob with their LoadLibraryEx flags, fallbacks. src/recipes/ expands one into the closure
// request the resolver takes. docs/rules-format.md describes the keys.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/version_range.hpp"

namespace dlldoctor::rules {

// A value the package's own files say, e.g. torch\version.py's `cuda = '12.4'`.
struct RecipeAttribute {
  std::string name;     // the placeholder it fills: {cuda}; a version also gives {cuda_major}, {cuda_minor}
  std::string file;     // relative to the package folder
  std::string key;      // the Python assignment read from it
  std::string package;  // another package's folder in the same site-packages ("torch"); empty: the recipe's
  // A version only: the name of the distribution's folder in site-packages, '*' allowed ("tensorflow*" for
  // tensorflow-2.10.1.dist-info or tensorflow_gpu-2.10.1.dist-info); file and key are then empty.
  std::string dist_info;
};

// A value looked up from another: cuFFT's major is 11 for CUDA 12 and 12 for CUDA 13.
struct RecipeDerived {
  std::string name;                        // the placeholder it fills: {cufft_major}
  std::string from;                        // the value it is looked up by: "cuda_major"
  std::map<std::string, std::string> map;  // that value -> this one; no entry: no value
};

struct RecipeStep {
  enum class Kind { AddDllDirectory, Load, NoInheritedPath, SetDllDirectory };
  Kind kind = Kind::Load;
  // AddDllDirectory, SetDllDirectory: a folder; Load: a path, a glob ('*' in the file name), or a bare name.
  // SetDllDirectory takes effect from the next load on, process-wide, as SetDllDirectoryW does. Placeholders
  // ({package}, {prefix}, {cuda}, {env:NAME|default}) are filled when the recipe is expanded; a step whose
  // placeholder has no value is skipped, and the report says why.
  std::string target;
  std::uint32_t flags = 0;
  bool if_exists = false;        // AddDllDirectory only when the folder exists
  std::string unless_found;      // skip when a file matching this glob is in a folder added so far
  bool retry_with_path = false;  // on 126: the added folders first on PATH, then LoadLibraryW
  bool failure_caught = false;   // the code catches a failed load and goes on (try/except: print)
  // Made when the library is first used, after the import (CTranslate2's cuBLAS at the first encode()):
  // its failure stops that use, not the import, so the verdict does not wait for it either.
  bool first_use = false;
  // The step is made once per entry, with {each} the entry and {each_name} its file name.
  std::vector<std::string> each;
  // The step is made only when this holds: "A == B" or "A != B" clauses joined by "and", alternatives
  // joined by "or" ("and" binds first); a placeholder without a value is empty here.
  std::string when;
  // The framework versions ({version}) whose code makes this call (torch adds the user base's Library\bin
  // from 2.3.1 on); another version skips it, and a folder it would have added is where a missing DLL's
  // copy is said to lie unseen. None: every version.
  std::optional<VersionRange> covers;
  // Load: what the framework prints when the call fails, by loader error ("126", "default"); {code},
  // {text} (Windows' words for it), {path} (the file the call names), {module} (its import name), {dll}
  // (the DLL that failed).
  std::map<std::string, std::string> says;
  std::string why;     // one line for the report: the source line this step stands for
  std::string source;  // file:line
};

// A DLL version that some releases of the framework need (torch >= 2.9 needs msvcp140.dll >= 14.40): when
// the process uses an older copy, the finding named here is reported (its variant "framework").
struct RecipeRequirement {
  VersionRange versions;  // of the framework ({version})
  DllName dll;
  VersionParts minimum;  // the DLL's file version must be at least this
  std::string finding;   // "msvc-runtime-too-old"
  std::string why;       // why the framework needs it, with the source
  std::string effect;    // what the user sees when it is older
  std::string source;    // file:line
};

// A recipe that must not run before another in one process ([[recipe.not_before]]): onnxruntime's
// preload_dlls() before `import torch`.
struct RecipeOrder {
  std::string recipe;  // the one this must not precede: "torch"
  std::string why;     // what goes wrong, with the source
  std::string source;  // file:line
};

struct Recipe {
  std::string id;    // what --import names: "torch", "onnxruntime[cuda]", "onnxruntime.preload_dlls"
  std::string name;  // "PyTorch"
  std::string host;  // "python" (the only host so far)
  // "import": by --import; "conda", "store": applied at the start of every Python process of that layout.
  std::string applies = "import";
  std::string package;  // the folder under site-packages that must exist (empty for start-up recipes)
  std::string extends;  // the recipe whose steps come first ("onnxruntime" for "onnxruntime[cuda]")
  std::optional<RecipeAttribute> version;
  std::vector<RecipeAttribute> attributes;
  std::vector<RecipeDerived> derived;
  std::vector<RecipeStep> steps;
  std::vector<RecipeRequirement> requirements;
  std::vector<RecipeOrder> not_before;
  // The GPU stack its build works with ("CUDA 11.2 and cuDNN 8.1"), for findings about a wrong generation
  // that its own loads meet; empty when the recipe does not say.
  std::string supported;
  // The loading code this recipe replays: "pytorch/pytorch: torch/__init__.py, _load_dll_libraries".
  std::string code;
  // `dlldoctor check` imports it in each Python whose site-packages hold its package, and `check_needs` (a
  // file under the package folder: onnxruntime's CUDA provider) when given.
  bool check = false;
  std::string check_needs;
  // The package versions that code holds for; another version is said in the report (its code may differ).
  std::optional<VersionRange> covers;
  std::string source;  // file:line
};

// How the --load calls of one kind of process are made (--profile, [[profile]]): python-extension,
// python-ctypes, node-addon. A --load given its own --flags keeps them.
struct LoadProfile {
  std::string id;
  std::uint32_t flags = 0;
  // Instead of flags for a name with a path (ctypes.CDLL adds LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR then).
  std::optional<std::uint32_t> flags_with_path;
  std::map<std::string, std::string> says;  // what the process prints when such a call fails (RecipeStep::says)
  std::string why;
  std::string source;
};

}  // namespace dlldoctor::rules
