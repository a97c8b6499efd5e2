#include "dlldoctor/session/machine.hpp"

#include "core/fs.hpp"
#include "dlldoctor/env/snapshot.hpp"
#include "dlldoctor/session/shipped_rules.hpp"
#include "env/system_names.hpp"

namespace dlldoctor::session {
namespace {

Result<env::Environment> from_snapshot(const MachineSpec& spec, env::FileSystem& files) {
  std::optional<std::string> text = read_whole_file(spec.snapshot);
  if (!text) return Error{"--env " + spec.snapshot + ": cannot read"};
  auto environment = env::environment_from_snapshot(*text, spec.flags, files);
  if (!environment) return Error{"--env " + spec.snapshot + ": " + environment.error().message};
  return environment;
}

Result<env::Environment> choose_environment(const MachineSpec& spec, env::FileSystem& files) {
  if (spec.environment == EnvironmentChoice::Auto && !spec.snapshot.empty()) return from_snapshot(spec, files);
#ifdef _WIN32
  // On Windows the machine itself is the default; --sysroot or --path describe another one.
  const env::EnvironmentFlags& flags = spec.flags;
  if (spec.environment == EnvironmentChoice::Auto && !flags.sysroot && flags.path.empty()) {
    auto environment = env::live_environment(files);
    if (!environment) return environment;
    if (flags.cwd) environment->cwd = env::resolve_folder(*environment, *flags.cwd, files);
    if (flags.safe_dll_search_mode) environment->safe_dll_search_mode = *flags.safe_dll_search_mode;
    if (flags.known_dlls) {
      environment->known_dlls = env::known_dlls_from(*flags.known_dlls);
      environment->known_dlls_source = "--known-dlls";
    }
    return environment;
  }
#endif
  return env::environment_from_flags(spec.flags, files);
}

}  // namespace

Machine::Machine(std::shared_ptr<const rules::RuleData> rules, std::optional<env::Environment> environment,
                 std::unique_ptr<env::FileSystem> files, std::shared_ptr<pe::ImageCache> images, std::string snapshot)
    : rules_(std::move(rules)),
      environment_(std::move(environment)),
      files_(std::move(files)),
      images_(images ? std::move(images)
                     : std::make_shared<pe::ImageCache>(
                           [files = files_.get()](const std::string& path) { return files->memory_bytes(path); })),
      snapshot_(std::move(snapshot)) {}

std::vector<FileRead> Machine::files_read() const {
  std::vector<FileRead> read;
  if (!snapshot_.empty()) read.push_back({snapshot_, "the snapshot --env reads"});
  for (const std::string& file : rules::rule_files_read(*rules_)) read.push_back({file, "a rules file"});
  for (const std::string& file : images_->paths()) read.push_back({file, "a file this run reads"});
  for (const std::string& file : files_->files_read()) read.push_back({file, "a file this run reads"});
  return read;
}

Result<Machine> open_machine(const MachineSpec& spec, std::unique_ptr<env::FileSystem> files) {
  if (!files) files = std::make_unique<env::HostFileSystem>();
  auto rules = load_shipped_rules(spec.argv0, spec.rules);
  if (!rules) return rules.error();
  std::optional<env::Environment> environment;
  if (spec.environment != EnvironmentChoice::None) {
    auto chosen = choose_environment(spec, *files);
    if (!chosen) return chosen.error();
    environment = std::move(chosen).value();
    for (const std::string& assignment : spec.setenv) {
      const auto equals = assignment.find('=');
      if (equals == std::string::npos || equals == 0) return Error{"--setenv " + assignment + ": write NAME=VALUE"};
      environment->variables[ascii_lower(assignment.substr(0, equals))] = {assignment.substr(equals + 1), "--setenv"};
    }
  }
  return Machine(std::make_shared<const rules::RuleData>(std::move(rules).value()), std::move(environment),
                 std::move(files), nullptr,
                 spec.environment == EnvironmentChoice::Auto ? spec.snapshot : std::string());
}

}  // namespace dlldoctor::session
