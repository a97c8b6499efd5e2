#pragma once
// The Wine side of the Wine tests (DOMAIN.md §7), shared by tests/wine/wine_test.cpp (the scenarios under
// Wine's loader) and tests/wine/windows_exe_test.cpp (dlldoctor.exe itself under Wine): one private
// WINEPREFIX under the build folder, booted once (wineboot -i) and reused, one persistent wineserver for a
// batch; programs run with their output in files; Wine's +loaddll log parsed.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace dlldoctor::test {

inline const std::string kWine = "/usr/lib/wine/wine64";
inline const std::string kWineserver = "/usr/lib/wine/wineserver";

// A host path as Wine's Windows sees it (Z:\...).
std::string wine_path(const std::string& host);
std::string base_name(const std::string& windows_path);

// Runs a program with stdout and stderr going to files: Wine's background processes (services.exe,
// explorer.exe) inherit them and outlive the program, so pipes would never reach end of file.
int run_to_files(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                 const std::filesystem::path& cwd, const std::filesystem::path& out_file,
                 const std::filesystem::path& err_file);
std::string read_text(const std::filesystem::path& file);

class WinePrefix {
 public:
  explicit WinePrefix(std::filesystem::path prefix) : prefix_(std::move(prefix)) {}
  ~WinePrefix();
  WinePrefix(const WinePrefix&) = delete;
  WinePrefix& operator=(const WinePrefix&) = delete;

  std::map<std::string, std::string> env() const { return {{"WINEPREFIX", prefix_.string()}, {"WINEDEBUG", "-all"}}; }
  std::filesystem::path log(const std::string& name) const { return prefix_.parent_path() / ("prefix-" + name); }
  // Boots the prefix once; returns an error text or "".
  std::string start();
  const std::filesystem::path& path() const { return prefix_; }

 private:
  std::filesystem::path prefix_;
  bool server_started_ = false;
};

struct WineRun {
  int exit_code = -1;
  std::map<std::string, std::string> loaded;  // lower-case base name -> Windows path Wine loaded
  std::set<std::string> builtin;              // lower-case base names Wine mapped from its own builtins
  // With err+module in WINEDEBUG: a module Wine mapped but never logged as loaded because one of its own
  // imports is missing (lower-case base name -> its Windows path), and every library it reported not
  // found (lower-case names; the failed importers are reported not found too, one level up).
  std::map<std::string, std::string> failed_importers;
  std::set<std::string> not_found;
  std::string log;
};

// `Loaded L"Z:\\...\\x.dll" at 0000000180000000: native`, and with err+module
// `err:module:import_dll Library x.dll (which is needed by L"Z:\\...\\y.dll") not found`, from the
// program's own thread only: the background processes write into the same stream (DOMAIN.md §7).
WineRun parse_loaddll(const std::string& text, const std::string& program_windows_path);

// run_to_files for a command line that starts with kWine. Once, in CI on a freshly booted prefix, wine64
// exited with status 1 without writing a byte, before mapping the program at all; that says nothing about
// the program or the loader, so such a run is repeated a second later (three attempts in all, each noted
// on stderr). A run that printed anything, or exited 0, is never repeated: a traced run always logs the
// program's own mapping, and dlldoctor.exe always prints its report or an error.
int run_wine(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
             const std::filesystem::path& cwd, const std::filesystem::path& out_file,
             const std::filesystem::path& err_file);

// Runs `program` (a host path or a Windows path) under Wine with `env` (which sets WINEDEBUG) and parses
// its loaddll trace.
WineRun run_traced(const std::string& program, const std::string& program_windows_path,
                   const std::map<std::string, std::string>& env, const std::filesystem::path& cwd,
                   const std::filesystem::path& out_file, const std::filesystem::path& err_file);

}  // namespace dlldoctor::test
