// libFuzzer entry point for the registry hive reader (a SYSTEM or NTUSER.DAT from a mounted Windows disk
// is untrusted input): opens the bytes as a hive, asks what dlldoctor asks of a real one (the current
// control set, KnownDLLs, SafeDllSearchMode, the PATH values, expanded), then walks a bounded part of the
// whole tree so that every kind of subkey list and value cell is reached.
// Built as a fuzzer by fuzz/CMakeLists.txt (clang, DLLDOCTOR_FUZZ) and replayed by replay_main.cpp.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dlldoctor/core/bounded_reader.hpp"
#include "env/registry_hive.hpp"

namespace {

using dlldoctor::env::RegistryHive;
using dlldoctor::env::RegistryValue;

void use(const RegistryValue& value) {
  if (auto text = value.text()) dlldoctor::env::expand_environment_strings(*text, {{"SystemRoot", "C:\\Windows"}});
  (void)value.strings();
  (void)value.number();
}

// Depth-first over at most `budget` keys: a hostile hive may hold a million keys or a cycle of them.
void walk(const RegistryHive& hive, RegistryHive::Key key, int depth, int& budget) {
  if (depth > 8 || --budget < 0) return;
  (void)hive.key_name(key);
  if (auto values = hive.values(key)) {
    for (const auto& value : *values) use(value);
  }
  auto names = hive.subkey_names(key);
  if (!names) return;
  for (const auto& name : *names) {
    auto child = hive.find_key(key, name);
    if (child && *child) walk(hive, **child, depth + 1, budget);
    if (budget < 0) return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const dlldoctor::BoundedReader bytes(data, size);
  dlldoctor::env::HiveLimits limits;
  limits.max_value_bytes = 1u << 16;
  limits.max_key_value_bytes = 1u << 18;
  limits.max_subkeys = 1u << 12;
  limits.max_values = 1u << 12;
  auto hive = RegistryHive::from_bytes(bytes, limits);
  if (!hive) return 0;
  if (auto set = hive->current_control_set()) {
    if (auto manager = hive->find_key(*set + "\\Control\\Session Manager"); manager && *manager) {
      if (auto mode = hive->value(**manager, "SafeDllSearchMode"); mode && *mode) use(**mode);
      if (auto known = hive->find_key(**manager, "KnownDLLs"); known && *known) (void)hive->values(**known);
    }
  }
  if (auto environment = hive->find_key("Environment"); environment && *environment) {
    if (auto path = hive->value(**environment, "Path"); path && *path) use(**path);
  }
  int budget = 2000;
  walk(*hive, hive->root(), 0, budget);
  return 0;
}
