#pragma once
// The process's own text interface on Windows: its arguments and its console, in UTF-8 like every string
// in dlldoctor. Elsewhere both are already UTF-8 (or at least bytes passed through unchanged).
#include <string>
#include <vector>

namespace dlldoctor::cli {

// The command line as UTF-8: on Windows from the UTF-16 command line (argv is in the ANSI code page, which
// cannot spell every folder name); elsewhere argv as given.
std::vector<std::string> utf8_arguments(int argc, char** argv);

// On Windows, a console shows what dlldoctor prints as UTF-8 until the process ends; a no-op elsewhere
// and for pipes and files (they get the UTF-8 bytes).
void use_utf8_console();

}  // namespace dlldoctor::cli
