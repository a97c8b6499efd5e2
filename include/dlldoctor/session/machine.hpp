#pragma once
// The machine a run judges, built once by one function from one description, for every front end (the
// command line, the fuzzers, the tests): the rules it reads, the Windows environment (live, a snapshot, or
// flags over a mounted drive), the file system that holds its files and the cache of the images read.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/output_file.hpp"
#include "dlldoctor/core/result.hpp"
#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/file_system.hpp"
#include "dlldoctor/pe/image_cache.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::session {

// Which environment a command wants.
enum class EnvironmentChoice {
  None,   // folders only (the SDK check without --sysroot or --map, a scan without a PATH)
  Flags,  // the flags describe it (a scan, the SDK check)
  Auto,   // a snapshot (--env) if given, else on Windows the machine itself unless a flag describes
          // another one (--sysroot, --path), else the flags
};

struct MachineSpec {
  std::string argv0 = "dlldoctor";  // where the rules shipped beside the binary are looked for
  std::vector<std::string> rules;   // --rules folders
  EnvironmentChoice environment = EnvironmentChoice::Auto;
  env::EnvironmentFlags flags;      // --sysroot, --path, --cwd, --safe-dll-search-mode, --known-dlls, ...
  std::string snapshot;             // --env FILE
  std::vector<std::string> setenv;  // NAME=VALUE, variables of the process that recipes read
};

class Machine {
 public:
  // `images`: a cache to share with other machines of the same files (a fuzzer's world of fixtures);
  // by default one of its own, which reads through `files` where it holds bytes in memory.
  Machine(std::shared_ptr<const rules::RuleData> rules, std::optional<env::Environment> environment,
          std::unique_ptr<env::FileSystem> files, std::shared_ptr<pe::ImageCache> images = nullptr,
          std::string snapshot = {});

  const rules::RuleData& rules() const { return *rules_; }
  bool has_environment() const { return environment_.has_value(); }
  const env::Environment& environment() const { return *environment_; }
  env::Environment& environment() { return *environment_; }
  env::FileSystem& files() { return *files_; }
  pe::ImageCache& images() { return *images_; }

  // Every file read so far: the snapshot, the rule files, the images and the small files.
  std::vector<FileRead> files_read() const;

 private:
  std::shared_ptr<const rules::RuleData> rules_;
  std::optional<env::Environment> environment_;
  std::unique_ptr<env::FileSystem> files_;
  std::shared_ptr<pe::ImageCache> images_;
  std::string snapshot_;
};

// The machine `spec` describes, its files on the disk (or in `files`, a test's or a fuzzer's world).
Result<Machine> open_machine(const MachineSpec& spec, std::unique_ptr<env::FileSystem> files = nullptr);

}  // namespace dlldoctor::session
