#pragma once
// A closure report as every writer shows it, decided once per run (issue 12): the names from files made
// displayable (DisplayCopy), the verdict and its tone, the stack, which findings share a fix, where each
// module is shown to load from, and which trees a report draws in which order. Writers only format it:
// none re-derives a path, a state or a colour.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/report/closure_report.hpp"
#include "dlldoctor/report/display.hpp"
#include "dlldoctor/report/stack.hpp"

namespace dlldoctor::report {

// The line that introduces what the user sees for a failure: the loader error as Windows words it, when
// there is one ("what you see (error 126, ERROR_MOD_NOT_FOUND: The specified module could not be found.):"),
// or only that error when no program's own words follow (`says` false).
std::string error_heading(const std::optional<rules::LoaderErrorText>& error, bool says);

// How a report reads the whole run: the verdict's first word.
enum class Tone { Healthy, Warnings, Broken, Fails };
std::string_view tone_name(Tone tone);  // "healthy", "warnings", "broken", "fails"

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
  bool failed() const { return state == State::NotFound || state == State::CannotLoad; }
};

// A module as a tree drawing has it. A module drawn before is repeated without its children (`repeat`);
// a system DLL that resolved fine is drawn once and then left out.
struct TreeNode {
  std::size_t module = 0;
  bool repeat = false;
  std::vector<TreeNode> children;
};

class ClosureView {
 public:
  explicit ClosureView(const ReportInput& input);
  ClosureView(const ClosureView&) = delete;
  ClosureView& operator=(const ClosureView&) = delete;

  // The run as read: JSON keeps the bytes of names (json_text escapes them its own way).
  const ReportInput& raw() const { return raw_; }
  // The run with names from files displayable (control characters and stray bytes as \xNN).
  const ReportInput& shown() const { return copy_.input(); }

  const std::string& verdict() const { return verdict_; }          // of shown()
  const std::string& raw_verdict() const { return raw_verdict_; }  // of raw(), for JSON
  Tone tone() const { return tone_; }
  const Stack& raw_stack() const { return raw_stack_; }
  const Stack& stack() const { return stack_; }  // of shown()
  // For each finding, the earlier finding whose fix is the same (same_fix_as).
  const std::vector<std::optional<std::size_t>>& same_fix() const { return same_fix_; }
  // For each finding, the plan's steps (1-based) that mend it: its fix is those steps, so that the report
  // says one thing (JSON keeps the finding's own fix too, with the link).
  const std::vector<std::vector<std::size_t>>& plan_steps() const { return plan_steps_; }
  // The placeholders of the plan's commands and the findings' fixes, each once: the report's one legend.
  const std::vector<rules::Placeholder>& placeholders() const { return placeholders_; }
  // Parallel to shown().closure->modules.
  const std::vector<ModuleShown>& modules() const { return modules_; }
  // The trees a report draws, in order: the loads asked about first, the program's own start-up after
  // them (context), modules no start-up import reaches (preloads) each in a tree of its own. A load the
  // process had already made is answered by a module drawn before: it gets no tree of its own.
  const std::vector<TreeNode>& trees() const { return trees_; }
  // Names and paths a line of text must not break (the verdict names files).
  const std::vector<std::string>& unbreakable() const { return unbreakable_; }

 private:
  const ReportInput& raw_;
  DisplayCopy copy_;
  std::string verdict_;
  std::string raw_verdict_;
  Tone tone_ = Tone::Healthy;
  Stack raw_stack_;
  Stack stack_;
  std::vector<std::optional<std::size_t>> same_fix_;
  std::vector<std::vector<std::size_t>> plan_steps_;
  std::vector<rules::Placeholder> placeholders_;
  std::vector<ModuleShown> modules_;
  std::vector<TreeNode> trees_;
  std::vector<std::string> unbreakable_;
};

}  // namespace dlldoctor::report
