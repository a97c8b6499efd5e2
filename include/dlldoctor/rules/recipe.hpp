#pragma once
// Load recipes: a framework's loading code as data (rules/*.toml, [[recipe]]). A recipe says how to find
// the package and its version, then the calls its code makes, in order: AddDllDirectory folders, loads
// by path or glob with their LoadLibraryEx flags, fallbacks. src/recipes/ expands one into the closure
// request the resolver takes. docs/rules-format.md describes the keys.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
  std::string source;  // file:line
};

}  // namespace dlldoctor::rules
