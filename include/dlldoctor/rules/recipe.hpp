#pragma once
// Load recipes: a framework's loading code as data (rules/*.toml, [[recipe]]). A recipe says how to find
// the package and its version, then the calls its code makes, in order: AddDllDirectory folders, loads
// by path or glob with their LoadLibraryEx flags, fallbacks. src/recipes/ expands one into the closure
// request the resolver takes. docs/rules-format.md describes the keys.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/core/version_range.hpp"

namespace dlldoctor::rules {

// A value the package's own files say, e.g. torch\version.py's `cuda = '12.4'`.
struct RecipeAttribute {
  std::string name;  // the placeholder it fills: {cuda}; a version also gives {cuda_major}, {cuda_minor}
  std::string file;  // relative to the package folder
  std::string key;   // the Python assignment read from it
};

struct RecipeStep {
  enum class Kind { AddDllDirectory, Load, NoInheritedPath };
  Kind kind = Kind::Load;
  // AddDllDirectory: a folder; Load: a path, a glob ('*' in the file name), or a bare name. Placeholders
  // ({package}, {prefix}, {cuda}, {env:NAME|default}) are filled when the recipe is expanded; a step whose
  // placeholder has no value is skipped, and the report says why.
  std::string target;
  std::uint32_t flags = 0;
  bool if_exists = false;        // AddDllDirectory only when the folder exists
  std::string unless_found;      // skip when a file matching this glob is in a folder added so far
  bool retry_with_path = false;  // on 126: the added folders first on PATH, then LoadLibraryW
  std::string why;               // one line for the report: the source line this step stands for
  std::string source;            // file:line
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
  std::vector<RecipeStep> steps;
  std::vector<RecipeRequirement> requirements;
  // The GPU stack its build works with ("CUDA 11.2 and cuDNN 8.1"), for findings about a wrong generation
  // that its own loads meet; empty when the recipe does not say.
  std::string supported;
  std::string source;  // file:line
};

}  // namespace dlldoctor::rules
