#pragma once
// The closure of a program or a LoadLibrary call: every module it pulls in, how (static import, delay
// import, runtime load by a DLL family's main module, explicit LoadLibrary), from where, and what fails.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "dlldoctor/core/version_range.hpp"
#include "dlldoctor/resolve/resolver.hpp"

namespace dlldoctor::graph {

// Runtime: a family's main DLL loads it by bare name (rules/*.toml); NamedInData: the module's code loads it
// by a name found in its read-only data, where a rule says it does ([[lazy_load]]: onnxruntime's lazy cuDNN).
enum class LoadKind { Static, Delay, Runtime, NamedInData, Dynamic };
std::string_view load_kind_name(LoadKind kind);

struct MissingExport {
  std::string function;                  // a name, or "#27" for an ordinal
  std::optional<std::uint32_t> ordinal;  // set when it is wanted by ordinal
  std::string needed_by;                 // the importing module
  std::string detail;                    // e.g. "forwarded as cudnn_graph64_9.f, not exported there"
};

// A DLL a module names only in its data, which no rule makes a need: its code may load it at run time, or
// never (real providers name the libraries of several CUDA majors). Where a plain LoadLibrary of it would
// go is resolved, but it is not loaded: it enters neither the loaded-module list nor any outcome, and its
// own imports are not read.
struct MayLoad {
  std::string dll;
  resolve::Resolution resolution;
};

struct Module {
  std::string name;  // as first requested
  DllName key;       // the loader's name of it (for a path, of its base name)
  resolve::Resolution resolution;
  LoadKind load = LoadKind::Static;
  std::vector<std::string> needed_by;  // names of the modules (or requests) that asked for it
  std::vector<MissingExport> missing_exports;
  std::vector<std::size_t> children;  // modules it pulled in, any kind, in order
  int depth = 0;                      // steps from the request's root
  bool is_root = false;
  std::optional<std::string> family;  // id of the DLL family it belongs to
  // The LoadLibrary call (an index into Closure::loads) whose loads brought it in; none for the start-up
  // and preloads. A load at first use counts as its loader's.
  std::optional<std::size_t> load_call;
  std::vector<MayLoad> may_load;  // names in its data no rule makes a need, of this process's GPU majors
  // Names in its data for another major of a GPU stack than the process uses (cudart64_12.dll in a CUDA
  // 13 build): alternatives it does not load here, neither resolved nor needed.
  std::vector<std::string> other_major;
};

struct MissingDll {
  std::string dll;
  std::string needed_by;
};

// The loader's verdict on one request: start-up of a program or one LoadLibraryEx call.
struct Outcome {
  std::string request;  // "start-up of app.exe", "LoadLibraryExW(\"x.dll\", 0x1100)"
  bool ok = true;
  std::optional<int> error;         // 126, 127 or 193
  std::vector<MissingDll> missing;  // DLLs not found, the root cause (deepest) first
  std::string reason;               // one line for the verdict
  // LoadLibrary calls only: the module the call returns and the step that answered this call (a module
  // already in the process answers by "loaded", whatever step first brought it in).
  std::optional<std::string> module;
  std::optional<std::size_t> module_index;  // its index in Closure::modules (two modules may share a name)
  std::optional<resolve::SearchStep> found_by;
  std::optional<std::size_t> cause;  // the module the verdict names (not found, not loadable, missing an export)
};

// One LoadLibraryEx call of a running program.
struct LoadCall {
  std::string name;  // a bare name or a path
  std::uint32_t flags = 0;
  std::vector<env::FolderRef> add_dll_directories;  // AddDllDirectory calls made just before this one
  // SetDllDirectoryW made just before this one: from this call on, the process's folder of that name.
  std::optional<env::FolderRef> set_dll_directory;
  // PyTorch's fallback: when this call fails with 126, the process puts these folders first on PATH and
  // calls LoadLibraryW(name) again.
  std::vector<env::FolderRef> retry_with_path;
  std::string origin;  // what makes the call: a recipe's step ("torch: load torch\lib\*.dll"); empty for --load
  // The caller catches this call's failure and goes on (onnxruntime.preload_dlls prints it): the call's
  // own outcome says it failed, the verdict does not wait for it.
  bool failure_caught = false;
  // What the caller prints when this call fails, by loader error ("126", "default"): Python's "ImportError:
  // DLL load failed while importing {module}: {text}" (a recipe's step or a --profile; empty: the plain
  // call's GetLastError()).
  std::map<std::string, std::string> says;
};

// A delay-load hook compiled into a module (rules/*.toml, [[delay_load_hook]]): it answers some of the
// module's delay imports itself instead of the loader's search. node-gyp's win_delay_load_hook.cc hands
// an addon's node.exe import the module of whatever program hosts it; onnxruntime.dll's hook loads
// DirectML.dll by full path from its own folder.
struct DelayLoadHook {
  std::string importer;  // the hooking module's file name, '*' and '?' allowed: "*.node", "onnxruntime.dll"
  std::vector<DllName> dlls;
  enum class Answer { HostProgram, ImporterFolder };
  Answer answer = Answer::ImporterFolder;
  std::uint32_t flags = 0;  // ImporterFolder: the LoadLibraryExW flags of the full-path load
  std::string why;          // the source it stands for, for the report's notes
  std::string source;       // file:line of the rule
};

// A DLL a module's code loads by a name it holds only in its data ([[lazy_load]]): what makes that name a
// need, and how it is loaded when that is not a plain LoadLibrary. onnxruntime's CUDA provider tries
// LoadLibraryExA("cudnn64_9.dll", LOAD_LIBRARY_SEARCH_DEFAULT_DIRS) when a session first needs cuDNN and,
// when that fails, walks PATH itself and loads the first copy by full path with the same flags.
struct LazyLoad {
  std::string loader;  // the loading module's file name, '*' and '?' allowed
  // One need: names for the majors of a GPU stack (cufft64_11 for CUDA 12, cufft64_12 for 13), of which
  // those in the loader's data and of the process's major count, and any one of them satisfies it.
  std::vector<DllName> dlls;
  std::uint32_t flags = 0;
  bool then_path = false;  // on failure: the first PATH entry that holds the file, by full path
  bool optional = false;   // only some features load it (cuFFT: the FFT operators): missing is information
  std::string when;        // what first makes the loader load it: "a session first runs a cuDNN operator"
  std::string says;        // what the loader prints when none is found
  std::string why;
  std::string source;
};

// What the closure must know of DLL families, from the rules (rules/*.toml), so that the graph does not
// depend on the rule engine: which family a DLL is of, what a family's main DLL loads by bare name
// when it is first used, and which modules answer their own delay imports.
struct RuntimeLoad {
  DllName dll;
  // Made only by the releases of the main DLL in this range (its file version); a main DLL without a
  // version resource is not known to make it.
  std::optional<VersionRange> versions;
};

// What the graph needs of a family to tell alternatives apart: the kind of stack it belongs to ("cuda") and
// the major that names its DLLs ("12"; "any" for names several majors share).
struct FamilyTraits {
  std::string kind;
  std::string generation;
};

struct LoadKnowledge {
  std::unordered_map<DllName, std::string> family_of;
  std::unordered_map<std::string, FamilyTraits> families;  // by family id
  std::unordered_map<DllName, std::vector<RuntimeLoad>> runtime_loads;
  std::vector<DelayLoadHook> delay_load_hooks;
  std::vector<LazyLoad> lazy_loads;
};

struct ClosureRequest {
  std::string program;               // the program (start-up) or the host of the LoadLibrary calls
  bool program_is_host = false;      // --host: the program is running; its start-up is context, not the question
  std::vector<std::string> preload;  // modules already in the process (paths)
  resolve::ProcessSettings settings;
  std::vector<LoadCall> loads;
  // AddDllDirectory calls made after the last load (a recipe that only adds folders): they count for the
  // run-time loads, which happen later, and for none of the loads before them.
  std::vector<env::FolderRef> dirs_after_loads;
  LoadKnowledge knowledge;
};

struct Closure {
  std::vector<Module> modules;  // discovery order; modules[0] is the program when it could be read
  std::optional<Outcome> startup;
  std::vector<Outcome> loads;  // one per LoadCall
  Outcome outcome;             // the verdict the report leads with
  std::vector<std::string> notes;
  std::uint16_t process_machine = 0;
  resolve::ProcessState process;  // the final state (loaded modules, settings)
};

// Errors only when the program cannot be read at all (not a PE, missing file without --host).
Result<Closure> build_closure(const ClosureRequest& request, resolve::Resolver& resolver, env::FileSystem& files,
                              const env::Environment& environment);

}  // namespace dlldoctor::graph
