#pragma once
// The dependency graph as a picture: which nodes and edges a drawing has, of which kind and state.
// Computed from the report's view, so the DOT file and the Mermaid block in Markdown show the same
// modules with the same names, folders and colours; they only differ in syntax and in how much they keep.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/report/closure_view.hpp"

namespace dlldoctor::report {

struct PictureNode {
  enum class Kind {
    Module,        // a module of the closure
    Shadowed,      // a copy of a module's DLL that a search step found later: the winner hides it
    WrongMachine,  // a copy skipped, or failed on, for its machine
    NotLoadable,   // a copy that is not a loadable image
  };
  Kind kind = Kind::Module;
  std::size_t module = 0;                                // the module it is, or the module it is a copy of
  ModuleShown::State state = ModuleShown::State::Loads;  // Module nodes
  std::string name;
  std::string version;  // empty when none
  std::string folder;   // where it loads from (Windows spelling when known); empty when not found
  std::string note;     // "NOT FOUND", "assumed present", "wrong machine: x86 [path]", "shadowed [path]"
  // The gravest finding that names the module (an older copy that wins, mixed versions); none if none.
  std::optional<rules::Severity> finding;
  bool failed() const {
    return kind == Kind::Module && (state == ModuleShown::State::NotFound || state == ModuleShown::State::CannotLoad);
  }
};

struct PictureEdge {
  enum class Kind { Static, Delay, Runtime, NamedInData, LoadLibrary, Preload, Shadows };
  std::size_t from = 0, to = 0;  // node indices
  Kind kind = Kind::Static;
  std::string label;  // "static", "delay", "runtime (cudnn9)", "LoadLibrary", "shadowed [path]"
};

struct Picture {
  std::vector<PictureNode> nodes;  // modules in the closure's order, then the copies after their module
  std::vector<PictureEdge> edges;
  std::size_t left_out = 0;  // what_matters: modules that matter and did not fit
};

// How a node is drawn, in every format that draws (colours as #rrggbb): green loads, grey is the system's
// or a copy that lost, red fails, orange is a copy of the wrong machine or a module a warning names.
struct NodeLook {
  const char* fill;
  const char* border;
  const char* text;
  bool dashed = false;  // a copy that does not load
  bool thick = false;   // a module that fails or that a finding names
};
NodeLook look_of(const PictureNode& node);

// How an edge is drawn: static solid, delay dashed, a family's run-time load bold, a name in data dashed,
// a LoadLibrary call and a preload dotted, a copy that lost dotted without an arrow.
struct EdgeLook {
  const char* color;
  enum class Line { Solid, Dashed, Dotted, Bold } line;
  bool labelled;  // static edges, most of any graph, carry no label
};
EdgeLook look_of(const PictureEdge& edge);

// A node's label, line by line: "cudnn64_9.dll 9.1.0.70", its folder, its note.
std::vector<std::string> label_lines(const PictureNode& node);

// Every module, every edge of the closure, and every copy that lost to a module's winner.
Picture picture_of(const ClosureView& view);

// What a ticket needs to see, in at most about `max_nodes` nodes: the paths from the root to each module
// that fails or that a finding names, and the copies that lost to those modules. Empty when nothing is
// wrong: the modules table says the rest.
Picture what_matters(const ClosureView& view, const Picture& whole, std::size_t max_nodes);

}  // namespace dlldoctor::report
