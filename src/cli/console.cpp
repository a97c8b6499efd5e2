#include "cli/console.hpp"

#ifdef _WIN32
// shellapi.h needs windows.h first.
// clang-format off
#include "core/windows_api.hpp"
#include <shellapi.h>
// clang-format on

#include <cstdlib>

#include "core/utf8_windows.hpp"
#endif

namespace dlldoctor::cli {

#ifdef _WIN32
std::vector<std::string> utf8_arguments(int argc, char** argv) {
  int count = 0;
  LPWSTR* wide = CommandLineToArgvW(GetCommandLineW(), &count);
  if (!wide) return std::vector<std::string>(argv, argv + argc);
  std::vector<std::string> arguments;
  for (int i = 0; i < count; ++i) arguments.push_back(narrow(wide[i]));
  LocalFree(wide);
  return arguments;
}

namespace {
UINT g_console_output_cp = 0;
void restore_console() { SetConsoleOutputCP(g_console_output_cp); }
}  // namespace

void use_utf8_console() {
  // The console's code page outlives the process: put the user's back on the way out.
  g_console_output_cp = GetConsoleOutputCP();
  if (g_console_output_cp == 0 || g_console_output_cp == CP_UTF8) return;
  if (SetConsoleOutputCP(CP_UTF8)) std::atexit(restore_console);
}
#else
std::vector<std::string> utf8_arguments(int argc, char** argv) { return std::vector<std::string>(argv, argv + argc); }
void use_utf8_console() {}
#endif

}  // namespace dlldoctor::cli
