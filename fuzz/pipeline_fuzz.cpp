// libFuzzer entry point for the whole pipeline: hostile bytes that get past the reader must not crash the
// closure, the rules or the writers. The fuzzed bytes are cudnn64_9.dll in a small world built once from
// the fixtures: a sysroot whose app.exe imports it and names functions from it, the MSVC runtime beside
// the program, cuDNN's siblings on PATH (one of them, cudnn_ops64_9.dll, the fuzzed bytes again, so they
// are also reached as a run-time load). Each input is diagnosed twice, as the start-up of app.exe and as a
// LoadLibraryExW(full path, 0x1100) of a host, and every report writer formats the result: closure text
// (with and without colour), JSON and Markdown, inspect text and JSON, and the scan's three writers. A
// writer producing invalid JSON, or a finding template left unfilled, stops the fuzzer.
//
// The world's fixtures: DLLDOCTOR_FUZZ_FIXTURES (fuzz/run.sh points it at build-test/fixtures), else the
// fixtures of the build this was compiled in. The rules: DLLDOCTOR_FUZZ_RULES, else the source's rules/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/pe/reader.hpp"
#include "dlldoctor/report/closure_report.hpp"
#include "dlldoctor/report/closure_view.hpp"
#include "dlldoctor/report/image_report.hpp"
#include "dlldoctor/report/json_text.hpp"
#include "dlldoctor/report/scan_report.hpp"
#include "dlldoctor/rules/rule_data.hpp"
#include "dlldoctor/rules/rule_engine.hpp"
#include "dlldoctor/session/explain.hpp"
#include "dlldoctor/session/scan.hpp"
#include "report_check.hpp"

#ifndef DLLDOCTOR_FUZZ_FIXTURES_DEFAULT
#define DLLDOCTOR_FUZZ_FIXTURES_DEFAULT ""
#endif

namespace {

namespace fs = std::filesystem;
using namespace dlldoctor;
using fuzz::check_json;
using fuzz::setting;
using fuzz::stop;
using fuzz::write_every_format;

struct World {
  fs::path root;  // the sysroot
  std::shared_ptr<const rules::RuleData> rules;
};

const World& world() {
  static const World built = [] {
    const fs::path fixtures = setting("DLLDOCTOR_FUZZ_FIXTURES", DLLDOCTOR_FUZZ_FIXTURES_DEFAULT);
    if (fixtures.empty() || !fs::exists(fixtures / "x64" / "app.exe"))
      stop("no fixtures at '" + fixtures.string() + "': set DLLDOCTOR_FUZZ_FIXTURES to a build's fixtures folder");
    World w;
    // A fresh folder per process: libFuzzer's -jobs and a replay may run side by side.
    w.root = fs::temp_directory_path() / ("dlldoctor-pipeline-fuzz-" + std::to_string(std::random_device{}()));
    fs::remove_all(w.root);
    for (const char* folder : {"Windows/System32", "app", "tools/cudnn/bin", "work"})
      fs::create_directories(w.root / folder);
    const fs::path x64 = fixtures / "x64";
    fs::copy_file(x64 / "app.exe", w.root / "app" / "app.exe");
    for (const char* dll : {"msvcp140.dll", "vcruntime140.dll"}) fs::copy_file(x64 / dll, w.root / "app" / dll);
    for (const auto& entry : fs::directory_iterator(x64)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("cudnn_", 0) == 0 && name.size() > 9 && name.compare(name.size() - 9, 9, "64_9.dll") == 0)
        fs::copy_file(entry.path(), w.root / "tools" / "cudnn" / "bin" / name);
    }
    fs::copy_file(x64 / "zlibwapi.dll", w.root / "tools" / "cudnn" / "bin" / "zlibwapi.dll");
    auto rules = rules::load_rules({setting("DLLDOCTOR_FUZZ_RULES", DLLDOCTOR_FUZZ_RULES_DEFAULT)});
    if (!rules) stop(rules.error().message);
    w.rules = std::make_shared<const rules::RuleData>(std::move(rules).value());
    return w;
  }();
  return built;
}

void write_file(const fs::path& path, const std::uint8_t* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) stop("cannot write " + path.string());
}

void inspect_and_scan(const std::uint8_t* data, std::size_t size, const World& w) {
  auto image = pe::read_image(BoundedReader(data, size));
  scan::ScannedFile file;
  file.path = (w.root / "app" / "cudnn64_9.dll").string();
  file.name = "cudnn64_9.dll";
  file.key = "cudnn64_9.dll";
  file.size = size;
  if (image) {
    check_json(report::image_json_text("cudnn64_9.dll", *image));
    std::string text;
    report::append_image_text(text, "cudnn64_9.dll", *image);
    file.machine = image->machine;
    file.file_version = image->file_version;
    file.timestamp = image->timestamp;
    if (auto reason = pe::unmappable_reason(*image)) file.error = *reason;
  } else {
    report::StringSink error_json;
    {
      report::JsonStream out(error_json);
      report::put_image_error_json(out, "cudnn64_9.dll", image.error().message);
    }
    check_json(error_json.text());
    file.error = image.error().message;
  }
  session::ScanRun run;
  run.rules = w.rules.get();
  run.options.roots = {w.root.string()};
  // The fuzzed copy, one elsewhere, and a sibling of another release beside it: the folder rules judge
  // the fuzzed file's version against 9.1.0.70.
  scan::ScannedFile sibling = file;
  sibling.path = (w.root / "app" / "cudnn_ops64_9.dll").string();
  sibling.name = sibling.key = "cudnn_ops64_9.dll";
  sibling.error.clear();
  sibling.file_version = pe::Version{{9, 1, 0, 70}};
  run.result.files = {file, sibling, file};
  run.result.files.back().path = (w.root / "tools" / "cudnn" / "bin" / "cudnn64_9.dll").string();
  run.checks = rules::run_folder_rules(rules::scanned_folders(run.result.files, *w.rules, {}), *w.rules);
  if (!run.checks.problems.empty()) stop("folder rules: " + run.checks.problems.front());
  write_every_format(report::scan_writers(), report::ScanView(run, {"fuzz", "2026-01-01T00:00:00Z"}));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const World& w = world();
  write_file(w.root / "app" / "cudnn64_9.dll", data, size);
  write_file(w.root / "tools" / "cudnn" / "bin" / "cudnn_ops64_9.dll", data, size);

  env::EnvironmentFlags flags;
  flags.sysroot = w.root.string();
  flags.assume_system_dlls = true;
  flags.path = {"C:\\tools\\cudnn\\bin;C:\\gone;\"C:\\quoted\""};
  flags.cwd = (w.root / "work").string();
  // Each request reads the world afresh, as each run of the CLI does.
  auto explain_and_report = [&](const session::ExplainRequest& request) {
    auto files = std::make_unique<env::HostFileSystem>();
    auto environment = env::environment_from_flags(flags, *files);
    if (!environment) stop(environment.error().message);
    session::Machine machine(w.rules, std::move(environment).value(), std::move(files));
    fuzz::explain_and_report(machine, request);
  };
  session::ExplainRequest startup;
  startup.program = (w.root / "app" / "app.exe").string();
  explain_and_report(startup);

  session::ExplainRequest load;
  load.program = startup.program;
  load.program_is_host = true;
  load.loads.push_back({"C:\\app\\cudnn64_9.dll", {"0x1100"}});
  explain_and_report(load);

  inspect_and_scan(data, size, w);
  return 0;
}
