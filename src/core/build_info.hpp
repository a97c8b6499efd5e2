#pragma once
// What the build knows of itself (cmake/build_info.cmake), for --version and the reports.

namespace dlldoctor {

extern const char kVersion[];  // the project's version: "0.1.0"
extern const char kCommit[];   // 12 hex digits of the commit, "+changes" after them for a tree with edits; "unknown"

}  // namespace dlldoctor
