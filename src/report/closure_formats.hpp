#pragma once
// The closure report's writers that live in files of their own; closure_writers() lists them all.
#include "dlldoctor/report/closure_view.hpp"
#include "dlldoctor/report/writers.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {

void write_closure_text(Sink& sink, const ClosureView& view, const WriteStyle& style);
void write_closure_markdown(Sink& sink, const ClosureView& view, const WriteStyle& style);
void write_closure_dot(Sink& sink, const ClosureView& view, const WriteStyle& style);
void write_closure_html(Sink& sink, const ClosureView& view, const WriteStyle& style);

// The ```mermaid block of the Markdown report: what_matters() of the picture, which GitHub draws in the
// ticket itself. Nothing when nothing fails, lost or is named by a finding.
void mermaid_block(TextOut& out, const ClosureView& view);

// The Python section (what `--import` replayed: the environment, each recipe's steps), one list of lines
// that every writer shows: a line `nested` under the one before it. Paths in Windows spelling where
// `environment` (may be null) knows it.
struct PythonLine {
  bool nested = false;
  std::string text;
};
std::vector<PythonLine> python_lines(const recipes::Expansion& expansion, const env::Environment* environment);

}  // namespace dlldoctor::report
