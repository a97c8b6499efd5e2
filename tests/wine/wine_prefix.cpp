#include "wine/wine_prefix.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

#include "scenarios/scenario.hpp"

namespace dlldoctor::test {

namespace fs = std::filesystem;

std::string wine_path(const std::string& host) {
  if (host.empty() || host.front() != '/') return host;
  std::string out = "Z:" + host;
  for (auto& c : out)
    if (c == '/') c = '\\';
  return out;
}

std::string base_name(const std::string& windows_path) {
  const auto slash = windows_path.find_last_of("\\/");
  return lower(slash == std::string::npos ? windows_path : windows_path.substr(slash + 1));
}

int run_to_files(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                 const fs::path& cwd, const fs::path& out_file, const fs::path& err_file) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int out = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0) _exit(127);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    for (const auto& [key, value] : env) setenv(key.c_str(), value.c_str(), 1);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(127);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

WinePrefix::~WinePrefix() {
  if (server_started_) run_to_files({kWineserver, "-k"}, env(), {}, log("kill.out"), log("kill.err"));
}

std::string WinePrefix::start() {
  const fs::path ready = prefix_ / "dlldoctor-ready";
  if (!fs::exists(ready)) {
    fs::remove_all(prefix_);
    fs::create_directories(prefix_.parent_path());
    const int rc = run_to_files({kWine, "wineboot", "-i"}, env(), {}, log("boot.out"), log("boot.err"));
    if (rc != 0) return "wineboot -i failed with " + std::to_string(rc) + ": " + read_text(log("boot.err"));
    run_to_files({kWineserver, "-w"}, env(), {}, log("wait.out"), log("wait.err"));
    // Wine installs its own msvcp140.dll/vcruntime140.dll in system32, where they would win over every
    // copy the scenarios place (step 8 comes before the current folder and PATH). A stock Windows has
    // them only after the VC++ redistributable is installed: remove them so the prefix is that machine.
    for (const char* name : {"msvcp140.dll", "vcruntime140.dll"}) {
      fs::remove(prefix_ / "drive_c/windows/system32" / name);
      fs::remove(prefix_ / "drive_c/windows/syswow64" / name);
    }
    std::ofstream(ready) << "booted by tests/wine/wine_test.cpp\n";
  }
  // One persistent server for the batch (killed in the destructor).
  if (run_to_files({kWineserver, "-p"}, env(), {}, log("server.out"), log("server.err")) != 0)
    return "wineserver -p failed: " + read_text(log("server.err"));
  server_started_ = true;
  // Start the prefix's background services now, so their start-up is not part of the first scenario.
  run_to_files({kWine, "wineboot"}, env(), {}, log("warm.out"), log("warm.err"));
  return {};
}

WineRun parse_loaddll(const std::string& text, const std::string& program_windows_path) {
  WineRun run;
  run.log = text;
  static const std::regex kLoaded(
      R"re(^([0-9a-f]+):trace:loaddll:\w+ Loaded L"(.*)" at [0-9A-Fa-f]+: (native|builtin)\s*$)re");
  static const std::regex kNotFound(
      R"re(^([0-9a-f]+):err:module:import_dll Library (.+) \(which is needed by L"(.*)"\) not found\s*$)re");
  const auto unescape = [](std::string path) {
    for (size_t at = path.find("\\\\"); at != std::string::npos; at = path.find("\\\\", at + 1)) path.erase(at, 1);
    return path;
  };
  std::string thread;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!thread.empty() && std::regex_match(line, m, kNotFound) && m[1] == thread) {
      run.not_found.insert(lower(m[2]));
      const std::string importer = unescape(m[3]);
      if (lower(importer) != lower(program_windows_path)) run.failed_importers.emplace(base_name(importer), importer);
      continue;
    }
    if (!std::regex_match(line, m, kLoaded)) continue;
    const std::string path = unescape(m[2]);
    if (thread.empty()) {
      if (lower(path) != lower(program_windows_path)) continue;
      thread = m[1];
    }
    if (m[1] != thread) continue;
    run.loaded.emplace(base_name(path), path);
    if (m[3] == "builtin") run.builtin.insert(base_name(path));
  }
  return run;
}

int run_wine(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env, const fs::path& cwd,
             const fs::path& out_file, const fs::path& err_file) {
  constexpr int kAttempts = 3;
  for (int attempt = 1;; ++attempt) {
    const int rc = run_to_files(argv, env, cwd, out_file, err_file);
    const bool silent = read_text(out_file).empty() && read_text(err_file).empty();
    // Wine's CreateProcess now and then fails with ERROR_INTERNAL_ERROR (1359) while its server is busy (seen
    // twice in 38-test runs, never alone); Windows gives no such error for a file it can start.
    const bool internal_error = read_text(err_file).find("(error 1359)") != std::string::npos;
    if (rc == 0 || !(silent || internal_error) || attempt == kAttempts) return rc;
    std::cerr << "note: Wine exited with " << rc << (silent ? " and printed nothing (" : " with error 1359 (")
              << argv.at(1) << "); repeating, attempt " << attempt + 1 << " of " << kAttempts << " in a second\n";
    // Whatever state made Wine give up (its server or services still starting) is given time to pass.
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

WineRun run_traced(const std::string& program, const std::string& program_windows_path,
                   const std::map<std::string, std::string>& env, const fs::path& cwd, const fs::path& out_file,
                   const fs::path& err_file) {
  const int rc = run_wine({kWine, program}, env, cwd, out_file, err_file);
  WineRun run = parse_loaddll(read_text(err_file), program_windows_path);
  run.exit_code = rc;
  return run;
}

}  // namespace dlldoctor::test
