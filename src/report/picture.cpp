#include "report/picture.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <set>
#include <utility>

namespace dlldoctor::report {
namespace {

using Kind = PictureEdge::Kind;

// The folder of a path in either spelling: C:\cudnn\bin\x.dll -> C:\cudnn\bin, /mnt/c/x.dll -> /mnt/c.
std::string folder_of_path(const std::string& path) {
  const std::size_t slash = path.find_last_of("\\/");
  return slash == std::string::npos ? std::string() : path.substr(0, slash == 0 ? 1 : slash);
}

bool imports_name(const std::vector<pe::ImportedDll>& imports, const DllName& key) {
  return std::any_of(imports.begin(), imports.end(),
                     [&](const pe::ImportedDll& dll) { return DllName(dll.dll) == key; });
}

// How `parent` brings in `child`: its own import tables say static or delay; otherwise the way the
// closure first reached the child (a family's run-time load, a name in data, a LoadLibrary call).
PictureEdge edge_between(const graph::Module& parent, const graph::Module& child) {
  const pe::Image* image = parent.resolution.image.get();
  if (image && imports_name(image->imports, child.key)) return {0, 0, Kind::Static, "static"};
  if (image && imports_name(image->delay_imports, child.key)) return {0, 0, Kind::Delay, "delay"};
  switch (child.load) {
    case graph::LoadKind::Static: return {0, 0, Kind::Static, "static"};
    case graph::LoadKind::Delay: return {0, 0, Kind::Delay, "delay"};
    case graph::LoadKind::Runtime:
      return {0, 0, Kind::Runtime, parent.family ? "runtime (" + *parent.family + ")" : std::string("runtime")};
    case graph::LoadKind::NamedInData: return {0, 0, Kind::NamedInData, "named in data"};
    case graph::LoadKind::Dynamic: return {0, 0, Kind::LoadLibrary, "LoadLibrary"};
  }
  return {0, 0, Kind::Static, "static"};
}

PictureNode module_node(const graph::Module& module, const ModuleShown& shown, std::size_t index) {
  PictureNode node;
  node.module = index;
  node.state = shown.state;
  node.name = module.name;
  node.version = shown.version;
  node.folder = folder_of_path(shown.where);
  switch (shown.state) {
    case ModuleShown::State::Loads: break;
    case ModuleShown::State::Assumed: node.note = "assumed present"; break;
    case ModuleShown::State::ApiSet: node.note = "API set -> " + module.resolution.api_set_host.value_or(""); break;
    case ModuleShown::State::ApiSetUnknown: node.note = "API set, host unknown"; break;
    case ModuleShown::State::NotFound: node.note = "NOT FOUND"; break;
    case ModuleShown::State::CannotLoad: node.note = "CANNOT LOAD"; break;
  }
  return node;
}

PictureNode copy_node(const graph::Module& module, const resolve::Candidate& copy, std::size_t index) {
  PictureNode node;
  node.module = index;
  node.name = module.name;
  if (copy.file_version) node.version = copy.file_version->to_string();
  node.folder = folder_of_path(copy.windows_path ? *copy.windows_path : copy.path);
  const std::string_view step = resolve::step_name(copy.step);
  switch (copy.verdict) {
    case resolve::Verdict::WrongMachine:
      node.kind = PictureNode::Kind::WrongMachine;
      node.note = fmt::format("wrong machine: {} [{}]", copy.machine ? pe::machine_name(*copy.machine) : "?", step);
      break;
    case resolve::Verdict::NotLoadable:
      node.kind = PictureNode::Kind::NotLoadable;
      node.note = fmt::format("not loadable [{}]", step);
      break;
    default:
      node.kind = PictureNode::Kind::Shadowed;
      node.note = fmt::format("shadowed [{}]", step);
      break;
  }
  return node;
}

bool graver(rules::Severity a, rules::Severity b) {
  auto rank = [](rules::Severity s) { return s == rules::Severity::Error ? 2 : s == rules::Severity::Warning ? 1 : 0; };
  return rank(a) > rank(b);
}

}  // namespace

Picture picture_of(const ClosureView& view) {
  const ReportInput& input = view.input();
  const graph::Closure& closure = *input.closure;
  Picture picture;
  std::vector<std::size_t> module_node_of;  // the node of each module
  for (std::size_t i = 0; i < closure.modules.size(); ++i) {
    module_node_of.push_back(picture.nodes.size());
    picture.nodes.push_back(module_node(closure.modules[i], view.modules()[i], i));
  }
  for (const rules::Finding& finding : *input.findings) {
    for (std::size_t i : finding.modules) {
      PictureNode& node = picture.nodes[module_node_of[i]];
      if (!node.finding || graver(finding.severity, *node.finding)) node.finding = finding.severity;
    }
  }
  std::set<std::pair<std::size_t, std::size_t>> linked;
  auto link = [&](std::size_t from, std::size_t to, PictureEdge edge) {
    if (from == to || !linked.insert({from, to}).second) return;
    edge.from = from;
    edge.to = to;
    picture.edges.push_back(std::move(edge));
  };
  for (std::size_t i = 0; i < closure.modules.size(); ++i) {
    for (std::size_t child : closure.modules[i].children) {
      link(module_node_of[i], module_node_of[child], edge_between(closure.modules[i], closure.modules[child]));
    }
  }
  // The calls the process makes, and the modules already in it, hang from the program.
  if (!closure.modules.empty() && closure.modules[0].is_root) {
    std::set<std::size_t> called;
    for (const graph::Outcome& load : closure.loads) {
      if (!load.module_index) continue;
      called.insert(*load.module_index);
      link(module_node_of[0], module_node_of[*load.module_index], {0, 0, Kind::LoadLibrary, "LoadLibrary"});
    }
    for (std::size_t i = 1; i < closure.modules.size(); ++i) {
      if (closure.modules[i].depth == 0 && !called.count(i))
        link(module_node_of[0], module_node_of[i], {0, 0, Kind::Preload, "preload"});
    }
  }
  for (std::size_t i = 0; i < closure.modules.size(); ++i) {
    const graph::Module& module = closure.modules[i];
    if (module.is_root) continue;  // a program that cannot be mapped is its own only candidate
    for (const resolve::Candidate& copy : module.resolution.candidates) {
      if (copy.verdict == resolve::Verdict::Chosen) continue;
      const std::size_t node = picture.nodes.size();
      picture.nodes.push_back(copy_node(module, copy, i));
      picture.edges.push_back({node, module_node_of[i], Kind::Shadows, picture.nodes[node].note});
    }
  }
  return picture;
}

Picture what_matters(const ClosureView& view, const Picture& whole, std::size_t max_nodes) {
  // The first way the root reaches each node (breadth first, in the closure's order): the path drawn.
  std::vector<std::optional<std::size_t>> parent(whole.nodes.size());
  std::vector<bool> reached(whole.nodes.size(), false);
  std::vector<std::vector<std::size_t>> out(whole.nodes.size());
  for (const PictureEdge& edge : whole.edges) {
    if (edge.kind != Kind::Shadows) out[edge.from].push_back(edge.to);
  }
  std::deque<std::size_t> queue;
  if (!whole.nodes.empty()) {
    reached[0] = true;
    queue.push_back(0);
  }
  while (!queue.empty()) {
    const std::size_t at = queue.front();
    queue.pop_front();
    for (std::size_t to : out[at]) {
      if (reached[to]) continue;
      reached[to] = true;
      parent[to] = at;
      queue.push_back(to);
    }
  }
  std::vector<bool> keep(whole.nodes.size(), false);
  std::size_t kept = 0, left_out = 0;
  auto matters = [&](const PictureNode& node) {
    if (node.kind != PictureNode::Kind::Module) return false;
    if (node.failed() || node.finding) return true;
    const auto& candidates = view.input().closure->modules[node.module].resolution.candidates;
    return std::any_of(candidates.begin(), candidates.end(),
                       [](const resolve::Candidate& c) { return c.verdict != resolve::Verdict::Chosen; });
  };
  for (std::size_t target = 0; target < whole.nodes.size(); ++target) {
    if (!matters(whole.nodes[target])) continue;
    if (left_out > 0) {
      ++left_out;
      continue;
    }
    std::vector<std::size_t> path;
    for (std::optional<std::size_t> at = target; at && !keep[*at]; at = parent[*at]) path.push_back(*at);
    std::vector<std::size_t> copies;
    for (const PictureEdge& edge : whole.edges) {
      if (edge.kind == Kind::Shadows && edge.to == target && !keep[edge.from]) copies.push_back(edge.from);
    }
    // The first one is drawn whatever its depth; after it, a module whose path does not fit ends the
    // picture, so what is drawn is a prefix of the closure's order.
    if (kept > 0 && kept + path.size() + copies.size() > max_nodes) {
      ++left_out;
      continue;
    }
    for (std::size_t node : path) keep[node] = true;
    for (std::size_t node : copies) keep[node] = true;
    kept += path.size() + copies.size();
  }
  Picture picked;
  picked.left_out = left_out;
  if (kept == 0) return picked;
  keep[0] = true;
  std::vector<std::size_t> renumbered(whole.nodes.size(), 0);
  for (std::size_t i = 0; i < whole.nodes.size(); ++i) {
    if (!keep[i]) continue;
    renumbered[i] = picked.nodes.size();
    picked.nodes.push_back(whole.nodes[i]);
  }
  for (const PictureEdge& edge : whole.edges) {
    if (!keep[edge.from] || !keep[edge.to]) continue;
    PictureEdge copy = edge;
    copy.from = renumbered[edge.from];
    copy.to = renumbered[edge.to];
    picked.edges.push_back(std::move(copy));
  }
  return picked;
}

NodeLook look_of(const PictureNode& node) {
  switch (node.kind) {
    case PictureNode::Kind::Shadowed: return {"#eeeeee", "#9e9e9e", "#616161", true, false};
    case PictureNode::Kind::WrongMachine:
    case PictureNode::Kind::NotLoadable: return {"#fff3e0", "#e65100", "#bf360c", true, false};
    case PictureNode::Kind::Module: break;
  }
  if (node.failed() || node.finding == rules::Severity::Error) return {"#ffebee", "#c62828", "#b71c1c", false, true};
  if (node.finding == rules::Severity::Warning) return {"#fff3e0", "#ef6c00", "#212121", false, true};
  switch (node.state) {
    case ModuleShown::State::Assumed:
    case ModuleShown::State::ApiSet:
    case ModuleShown::State::ApiSetUnknown: return {"#f5f5f5", "#9e9e9e", "#424242", false, false};
    default: return {"#e8f5e9", "#2e7d32", "#1b5e20", false, false};
  }
}

EdgeLook look_of(const PictureEdge& edge) {
  using Line = EdgeLook::Line;
  switch (edge.kind) {
    case Kind::Static: return {"#616161", Line::Solid, false};
    case Kind::Delay: return {"#616161", Line::Dashed, true};
    case Kind::Runtime: return {"#1565c0", Line::Bold, true};
    case Kind::NamedInData: return {"#6a1b9a", Line::Dashed, true};
    case Kind::LoadLibrary: return {"#ef6c00", Line::Bold, true};
    case Kind::Preload: return {"#ef6c00", Line::Dotted, true};
    case Kind::Shadows: return {"#9e9e9e", Line::Dotted, false};  // the copy's own label says how it lost
  }
  return {"#616161", Line::Solid, false};
}

std::vector<std::string> label_lines(const PictureNode& node) {
  std::vector<std::string> lines{node.name + (node.version.empty() ? "" : " " + node.version)};
  if (!node.folder.empty()) lines.push_back(node.folder);
  if (!node.note.empty()) lines.push_back(node.note);
  return lines;
}

}  // namespace dlldoctor::report
