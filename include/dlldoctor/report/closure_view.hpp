#pragma once
// A closure report as every writer shows it, decided once per run: the parts a report for people shows and
// their order, which fix each finding shows, where each module is shown to load from, and which trees a
// report draws in which order; the verdict, the stack and the links come from the run. Writers only format
// it: none re-derives a path, a state, an order or a colour, and none makes the bytes of a name safe (the
// text formats' TextOut does, JSON's JsonStream).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/report/closure_report.hpp"
#include "dlldoctor/session/explain.hpp"
#include "dlldoctor/session/stack.hpp"

namespace dlldoctor::report {

// The line that introduces what the user sees for a failure: the loader error as Windows words it, when
// there is one ("what you see (error 126, ERROR_MOD_NOT_FOUND: The specified module could not be found.):"),
// or only that error when no program's own words follow (`says` false).
std::string error_heading(const std::optional<rules::LoaderErrorText>& error, bool says);

using session::framework_line;
using session::Stack;
using session::stack_rows;
using session::stack_where;
using session::StackDll;
using session::StackEntry;
using session::StackFramework;
using session::StackRow;
using session::Tone;
std::string_view tone_name(Tone tone);  // "healthy", "warnings", "broken", "fails"
// " (8 DLLs)" after a stack entry of several DLLs; "" for one.
std::string dll_count(const StackEntry& entry);

// What a report shows of one module.
struct ModuleShown {
  enum class State {
    Loads,          // found and mapped
    Assumed,        // a system DLL taken as present (no sysroot to read it from)
    ApiSet,         // an API set name, answered by its host
    ApiSetUnknown,  // an API set whose host the schema does not tell, assumed present
    NotFound,
    CannotLoad,  // found, but not a loadable image for this process (193)
  };
  State state = State::Loads;
  // The Windows path when known (--sysroot, --map), else the host path; empty when not found or an API set.
  std::string where;
  std::string version;                          // the file version; empty when none
  std::optional<resolve::SearchStep> found_by;  // none when not found
  std::string load;                             // "program", "static", "delay", "runtime", ...
  std::string owner;                            // who installed the copy (session::Owner::text); empty: unknown
  std::string owner_kind;                       // session::Owner::kind
  bool failed() const { return state == State::NotFound || state == State::CannotLoad; }
};

// A module as a tree drawing has it. A module drawn before is repeated without its children (`repeat`);
// a system DLL that resolved fine is drawn once and then left out.
struct TreeNode {
  std::size_t module = 0;
  bool repeat = false;
  std::vector<TreeNode> children;
};

// The parts of a report for people, in the order the text, Markdown and HTML reports show them.
enum class Part {
  Verdict,  // the verdict and what the user sees
  Stack,    // the driver, CUDA, cuDNN and MSVC runtime side by side
  Plan,     // the checked plan
  Legend,   // the placeholders of the commands
  Findings,
  Python,       // what --import replayed
  Tree,         // what loads what (the text tree, Markdown's Mermaid picture, the page's tree)
  Modules,      // the table of modules (Markdown, HTML)
  Environment,  // the notes, and for Markdown the environment
  Footer,       // the rules read, the version
};

// What a finding shows as its fix: the plan's steps that mend it, else the fix of an earlier finding that is
// the same command for command, else its own commands (none when it has none).
struct FixShown {
  enum class Kind { PlanSteps, SameAs, Own, None };
  Kind kind = Kind::None;
  std::vector<std::size_t> steps;  // PlanSteps: 1-based
  std::size_t same_as = 0;         // SameAs: the earlier finding
};

// The findings of a report with their fixes, as the formats for people show them (report/finding_formats).
struct FindingsShown {
  std::vector<const rules::Finding*> findings;
  std::vector<FixShown> fixes;  // parallel to findings
  // Parallel to findings when given: the processes each was found in (`check` runs several).
  std::vector<std::vector<std::string>> found_in;
};

class ClosureView {
 public:
  ClosureView(const session::ExplainRun& run, const Stamp& stamp);
  ClosureView(const ClosureView&) = delete;
  ClosureView& operator=(const ClosureView&) = delete;

  const session::ExplainRun& run() const { return run_; }
  const ReportInput& input() const { return input_; }

  const std::string& verdict() const { return run_.verdict.text; }
  Tone tone() const { return run_.verdict.tone; }
  const Stack& stack() const { return run_.stack; }
  // The parts this report shows, in order: the legend goes under the plan, whose commands are run first, or
  // under the findings when there is no plan; a part with nothing to show is left out.
  const std::vector<Part>& parts() const { return parts_; }
  // Parallel to the findings.
  const std::vector<FixShown>& fixes() const { return shown_.fixes; }
  const FindingsShown& findings_shown() const { return shown_; }
  // For each finding, the earlier finding whose fix is the same (same_fix_as); JSON gives it as fix_same_as.
  const std::vector<std::optional<std::size_t>>& same_fix() const { return same_fix_; }
  // The placeholders of the plan's commands and the findings' fixes, each once: the report's one legend.
  const std::vector<rules::Placeholder>& placeholders() const { return placeholders_; }
  // Parallel to the closure's modules.
  const std::vector<ModuleShown>& modules() const { return modules_; }
  // The trees a report draws, in order: the loads asked about first, the program's own start-up after
  // them (context), modules no start-up import reaches (preloads) each in a tree of its own. A load the
  // process had already made is answered by a module drawn before: it gets no tree of its own.
  const std::vector<TreeNode>& trees() const { return trees_; }
  // Names and paths a line of text must not break (the verdict names files).
  const std::vector<std::string>& unbreakable() const { return unbreakable_; }

 private:
  const session::ExplainRun& run_;
  ReportInput input_;
  std::vector<Part> parts_;
  FindingsShown shown_;
  std::vector<std::optional<std::size_t>> same_fix_;
  std::vector<rules::Placeholder> placeholders_;
  std::vector<ModuleShown> modules_;
  std::vector<TreeNode> trees_;
  std::vector<std::string> unbreakable_;
};

// For each finding, the earlier finding whose fix is the same, line for line (two findings one command
// mends, such as a missing sibling and the mixed versions it causes): the reports print such a fix once.
std::vector<std::optional<std::size_t>> same_fix_as(const std::vector<rules::Finding>& findings);

}  // namespace dlldoctor::report
