// libFuzzer entry point for a hostile machine: the DLLs are the fixtures', what is fuzzed is what the
// machine around them says. The first byte of an input picks the part (modulo kParts), the rest are its
// bytes:
//   0  System32\apisetschema.dll            (an API set that names itself as its host hung the closure)
//   1  System32\config\SYSTEM               (machine PATH, KnownDLLs, SafeDllSearchMode, variables)
//   2  System32\config\SYSTEM.LOG1          (beside a dirty SYSTEM hive, so the log is replayed; its
//                                         hashes written anew, so that mutations reach the replay)
//   3  Users\alice\NTUSER.DAT               (the user PATH and variables)
//   4  one of the shipped rules' TOML files (the next byte picks which; the rest is its text)
//   5  a snapshot (--env) JSON
// The world is held in memory (env::MemoryFileSystem, pe::ImageCache reading from it): an input costs no
// file and no process (rates in docs/PERFORMANCE.md, "Hostile machines"). Each input is explained as the CLI
// explains (session::explain: the recipes, the diagnosis, the plan) for the start-up of app.exe (cuDNN on PATH,
// the MSVC runtime beside it), of crt_app.exe (the UCRT through API sets), and for `python.exe --import torch`
// (its recipe replayed), then the whole machine as `check` judges it; the JSON writer formats each (the
// pipeline target runs every writer).
//
// The fixtures: DLLDOCTOR_FUZZ_FIXTURES (fuzz/run.sh points it at build-test/fixtures), else the build's.
// The rules: DLLDOCTOR_FUZZ_RULES, else the source's rules/. Seeds: fuzz/corpus/machine (its README).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/memory_file_system.hpp"
#include "dlldoctor/env/snapshot.hpp"
#include "dlldoctor/pe/image_cache.hpp"
#include "dlldoctor/report/check_report.hpp"
#include "dlldoctor/rules/rule_data.hpp"
#include "dlldoctor/session/check.hpp"
#include "env/registry_hive.hpp"
#include "env/registry_log.hpp"
#include "report_check.hpp"

#ifndef DLLDOCTOR_FUZZ_FIXTURES_DEFAULT
#define DLLDOCTOR_FUZZ_FIXTURES_DEFAULT ""
#endif

namespace {

namespace fs = std::filesystem;
using namespace dlldoctor;

constexpr std::uint8_t kParts = 6;
const std::string kRoot = "/w/c";  // the sysroot, in memory only
const std::string kSchema = kRoot + "/Windows/System32/apisetschema.dll";
const std::string kSystemHive = kRoot + "/Windows/System32/config/SYSTEM";
const std::string kUserHive = kRoot + "/Users/alice/NTUSER.DAT";

env::FileBytes read_fixture(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fuzz::stop("cannot read the fixture " + path.string() + ": set DLLDOCTOR_FUZZ_FIXTURES to a build's fixtures");
  return std::make_shared<const std::vector<std::uint8_t>>(std::istreambuf_iterator<char>(in),
                                                           std::istreambuf_iterator<char>());
}

struct World {
  env::MemoryFileSystem files;  // the healthy machine; each input changes one part of a copy
  env::FileBytes dirty_system;  // SYSTEM as Windows leaves it after Fast Startup, for the log part
  std::vector<rules::RuleFile> rule_files;
  std::shared_ptr<const rules::RuleData> rules;
};

const World& world() {
  static const World built = [] {
    const fs::path fixtures = fuzz::setting("DLLDOCTOR_FUZZ_FIXTURES", DLLDOCTOR_FUZZ_FIXTURES_DEFAULT);
    const fs::path x64 = fixtures / "x64";
    World w;
    w.files.add_file(kSchema, read_fixture(x64 / "apisetschema.dll"));
    w.files.add_file(kSystemHive, read_fixture(fixtures / "registry" / "SYSTEM"));
    w.files.add_file(kUserHive, read_fixture(fixtures / "registry" / "NTUSER.DAT"));
    w.dirty_system = read_fixture(fixtures / "registry" / "SYSTEM-dirty");
    for (const char* file : {"app.exe", "crt_app.exe", "msvcp140.dll", "vcruntime140.dll"})
      w.files.add_file(kRoot + "/app/" + file, read_fixture(x64 / file));
    for (const auto& entry : fs::directory_iterator(x64)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("cudnn", 0) == 0 && name.size() > 8 && name.compare(name.size() - 8, 8, "64_9.dll") == 0)
        w.files.add_file(kRoot + "/tools/cudnn/bin/" + name, read_fixture(entry.path()));
    }
    w.files.add_file(kRoot + "/tools/cudnn/bin/zlibwapi.dll", read_fixture(x64 / "zlibwapi.dll"));
    // A Python with torch, whose recipe (a rules file an input may change) --import replays: the fixtures
    // stand in for the interpreter, torch\lib's DLLs and the extension module.
    const std::string torch = kRoot + "/py/Lib/site-packages/torch";
    w.files.add_file(kRoot + "/py/python.exe", read_fixture(x64 / "app.exe"));
    w.files.add_file(kRoot + "/py/python311.dll", read_fixture(x64 / "zlibwapi.dll"));
    w.files.add_file(torch + "/version.py", std::string("__version__ = '2.5.1+cu124'\ncuda: Optional[str] = '12.4'\n"));
    w.files.add_file(torch + "/_C.cp311-win_amd64.pyd", read_fixture(x64 / "zlibwapi.dll"));
    for (const char* dll : {"cudnn64_9.dll", "cudnn_graph64_9.dll", "msvcp140.dll", "vcruntime140.dll"})
      w.files.add_file(torch + "/lib/" + dll, read_fixture(x64 / dll));
    w.files.add_folder(kRoot + "/work");
    auto files = rules::rule_files(fuzz::setting("DLLDOCTOR_FUZZ_RULES", DLLDOCTOR_FUZZ_RULES_DEFAULT));
    if (!files || files->empty()) fuzz::stop("no rules: set DLLDOCTOR_FUZZ_RULES to a rules folder");
    w.rule_files = std::move(files).value();
    auto rules = rules::parse_rule_files(w.rule_files);
    if (!rules) fuzz::stop(rules.error().message);
    w.rules = std::make_shared<const rules::RuleData>(std::move(rules).value());
    return w;
  }();
  return built;
}

env::FileBytes bytes_of(const std::uint8_t* data, std::size_t size) {
  return std::make_shared<const std::vector<std::uint8_t>>(data, data + size);
}

void put32(std::vector<std::uint8_t>& out, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

// A mutated log stops at its hashes (the base block's XOR, each entry's two Marvin32 hashes) before the
// replay's other checks: the target writes them anew, as a crafted log would have them, so the fuzzer
// reaches the size, sequence and dirty-page checks and the copies behind them.
env::FileBytes log_with_hashes(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> log(data, data + size);
  if (log.size() < 512) return std::make_shared<const std::vector<std::uint8_t>>(std::move(log));
  put32(log, 508, env::hive_base_block_checksum(BoundedReader(log.data(), 512)));
  for (std::size_t at = 512; at + 40 <= log.size();) {
    const BoundedReader entry_head(log.data() + at, log.size() - at);
    const std::uint32_t entry_size = *entry_head.u32(4);
    if (*entry_head.u32(0) != 0x454c7648 || entry_size < 40 || entry_size > log.size() - at) break;
    const std::uint64_t pages_hash = env::marvin32(log.data() + at + 40, entry_size - 40, env::kHiveLogSeed);
    put32(log, at + 24, static_cast<std::uint32_t>(pages_hash));
    put32(log, at + 28, static_cast<std::uint32_t>(pages_hash >> 32));
    const std::uint64_t head_hash = env::marvin32(log.data() + at, 32, env::kHiveLogSeed);
    put32(log, at + 32, static_cast<std::uint32_t>(head_hash));
    put32(log, at + 36, static_cast<std::uint32_t>(head_hash >> 32));
    at += entry_size;
  }
  return std::make_shared<const std::vector<std::uint8_t>>(std::move(log));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const World& w = world();
  if (size == 0) return 0;
  const std::uint8_t part = data[0] % kParts;
  const std::uint8_t* rest = data + 1;
  const std::size_t rest_size = size - 1;

  auto files = std::make_unique<env::MemoryFileSystem>(w.files);
  std::shared_ptr<const rules::RuleData> rules = w.rules;
  switch (part) {
    case 0: files->add_file(kSchema, bytes_of(rest, rest_size)); break;
    case 1: files->add_file(kSystemHive, bytes_of(rest, rest_size)); break;
    case 2:
      files->add_file(kSystemHive, w.dirty_system);
      files->add_file(kSystemHive + ".LOG1", log_with_hashes(rest, rest_size));
      break;
    case 3: files->add_file(kUserHive, bytes_of(rest, rest_size)); break;
    case 4: {
      if (rest_size == 0) return 0;
      std::vector<rules::RuleFile> rule_files = w.rule_files;
      rule_files[rest[0] % rule_files.size()].text.assign(reinterpret_cast<const char*>(rest + 1), rest_size - 1);
      auto parsed = rules::parse_rule_files(rule_files);
      if (!parsed) return 0;  // refused rules: the CLI's exit 2 with the message
      rules = std::make_shared<const rules::RuleData>(std::move(parsed).value());
      break;
    }
    default: break;
  }

  env::EnvironmentFlags flags;
  flags.sysroot = kRoot;
  flags.assume_system_dlls = true;
  flags.path = {"C:\\tools\\cudnn\\bin;C:\\gone"};
  flags.cwd = "C:\\work";
  auto environment = part == 5 ? env::environment_from_snapshot(
                                     std::string(reinterpret_cast<const char*>(rest), rest_size), flags, *files)
                               : env::environment_from_flags(flags, *files);
  if (!environment) return 0;  // a machine dlldoctor refuses with a message (exit 2)

  // The DLLs are the same in every input, so their images are read once for all (the schema, which an
  // input may change, is read by the environment through `files`, not through the cache).
  static env::MemoryFileSystem healthy = w.files;
  static auto images =
      std::make_shared<pe::ImageCache>([](const std::string& path) { return healthy.memory_bytes(path); });
  session::Machine machine(rules, std::move(environment).value(), std::move(files), images);
  for (const char* program : {"app.exe", "crt_app.exe"}) {
    session::ExplainRequest request;
    request.program = kRoot + "/app/" + program;
    fuzz::explain_and_report(machine, request, /*json_only=*/true);
  }
  session::ExplainRequest import_torch;
  import_torch.program = kRoot + "/py/python.exe";
  import_torch.imports = {"torch"};
  fuzz::explain_and_report(machine, import_torch, /*json_only=*/true);
  // The whole machine, as `dlldoctor check` judges it (its processes, the machine's own rules, one plan).
  if (auto checked = session::check(machine, {})) {
    const report::CheckView view(*checked, {"fuzz", "2026-01-01T00:00:00Z"});
    fuzz::write_every_format(report::check_writers(), view, /*json_only=*/true);
  }
  return 0;
}
