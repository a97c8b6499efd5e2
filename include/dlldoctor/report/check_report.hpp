#pragma once
// The report of `dlldoctor check`: the verdict, the machine side by side (driver, toolkits, each cuDNN
// generation's copies and the one a new process finds, System32's MSVC runtime, each Python and its
// frameworks), the plan and the findings. The `dlldoctor.check/1` JSON object is docs/check-json.md.
#include <string>
#include <vector>

#include "dlldoctor/report/closure_view.hpp"
#include "dlldoctor/report/writers.hpp"
#include "dlldoctor/session/check.hpp"

namespace dlldoctor::report {

inline constexpr const char* kCheckSchema = "dlldoctor.check/1";

// One line of a section: `level` 0 is the section's own line, 1 and 2 under it.
struct CheckLine {
  int level = 0;
  std::string text;
};

struct CheckSection {
  std::string title;  // "Driver", "CUDA toolkits", "cuDNN 9 (cudnn64_9.dll)", "Python", ...
  std::vector<CheckLine> lines;
};

class CheckView {
 public:
  CheckView(const session::CheckRun& run, const Stamp& stamp);
  CheckView(const CheckView&) = delete;
  CheckView& operator=(const CheckView&) = delete;

  const session::CheckRun& run() const { return run_; }
  const Stamp& stamp() const { return stamp_; }
  // The machine side by side, as every format for people shows it.
  const std::vector<CheckSection>& sections() const { return sections_; }
  const FindingsShown& findings_shown() const { return shown_; }
  // The placeholders of the plan's commands and the findings' fixes, each once.
  const std::vector<rules::Placeholder>& placeholders() const { return placeholders_; }

 private:
  const session::CheckRun& run_;
  Stamp stamp_;
  std::vector<CheckSection> sections_;
  FindingsShown shown_;
  std::vector<rules::Placeholder> placeholders_;
};

// text (the default), json (dlldoctor.check/1), markdown, html.
const Writers<CheckView>& check_writers();

}  // namespace dlldoctor::report
