#pragma once
// A read-only reader of registry hive files (regf), for the settings the loader depends on when the
// Windows disk is only mounted (--sysroot): KnownDLLs, SafeDllSearchMode and the machine PATH in
// Windows/System32/config/SYSTEM, the user PATH in Users/<name>/NTUSER.DAT (docs/DOMAIN.md §1, §5).
// Layout after Maxim Suhanov's "Windows registry file format specification". The hive is untrusted input:
// every cell is range-checked and counts are bounded by the cells that hold them.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/mapped_file.hpp"
#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/core/result.hpp"

namespace dlldoctor::env {

// REG_* value types (winnt.h).
namespace reg_type {
inline constexpr std::uint32_t kNone = 0;
inline constexpr std::uint32_t kSz = 1;
inline constexpr std::uint32_t kExpandSz = 2;
inline constexpr std::uint32_t kBinary = 3;
inline constexpr std::uint32_t kDword = 4;
inline constexpr std::uint32_t kDwordBigEndian = 5;
inline constexpr std::uint32_t kLink = 6;
inline constexpr std::uint32_t kMultiSz = 7;
inline constexpr std::uint32_t kQword = 11;
}  // namespace reg_type

struct RegistryValue {
  std::string name;  // empty for the key's default value
  std::uint32_t type = reg_type::kNone;
  std::vector<std::uint8_t> data;  // as stored

  // REG_SZ, REG_EXPAND_SZ, REG_LINK: the UTF-16 text up to its first NUL, as UTF-8 (not expanded).
  std::optional<std::string> text() const;
  // REG_MULTI_SZ: the strings up to the empty one that ends the list.
  std::optional<std::vector<std::string>> strings() const;
  // REG_DWORD, REG_DWORD_BIG_ENDIAN, REG_QWORD.
  std::optional<std::uint64_t> number() const;
};

// Bounds on what one value may cost. Registry values are capped near 1 MB by Windows' own guidance;
// a PATH is at most 32,767 characters.
struct HiveLimits {
  std::size_t max_value_bytes = 16u << 20;
  std::size_t max_key_value_bytes = 64u << 20;  // all values of one key together
  std::uint32_t max_subkeys = 1u << 20;
  std::uint32_t max_values = 1u << 20;
};

class RegistryHive {
 public:
  // A key of this hive (the offset of its nk cell). Only meaningful with the hive that returned it.
  struct Key {
    std::uint32_t cell = 0;
  };

  // Maps the file; the hive keeps the mapping alive.
  static Result<RegistryHive> open(const std::string& path, const HiveLimits& limits = {});
  // `bytes` kept alive by `owner`, which the hive and its copies hold; `source` names it in messages.
  static Result<RegistryHive> from_owned(std::shared_ptr<const void> owner, const BoundedReader& bytes,
                                         const std::string& source, const HiveLimits& limits = {});
  // The in-memory entry point: `bytes` must outlive the hive and every copy of it.
  static Result<RegistryHive> from_bytes(const BoundedReader& bytes, const HiveLimits& limits = {});

  Key root() const { return Key{root_}; }

  // A key by path relative to the root ("ControlSet001\\Control\\Session Manager"), matched
  // case-insensitively; "" or "\\" is the root. nullopt: no such key. Error: the hive is damaged on the way.
  Result<std::optional<Key>> find_key(std::string_view path) const { return find_key(root(), path); }
  // The same, relative to `base`.
  Result<std::optional<Key>> find_key(Key base, std::string_view path) const;

  Result<std::string> key_name(Key key) const;
  Result<std::vector<std::string>> subkey_names(Key key) const;
  Result<std::vector<RegistryValue>> values(Key key) const;
  // One value by name, case-insensitively ("" for the default value). nullopt: the key has no such value.
  Result<std::optional<RegistryValue>> value(Key key, std::string_view name) const;

  // "ControlSet001" from Select\Current in a SYSTEM hive: the set that CurrentControlSet stands for.
  Result<std::string> current_control_set() const;

  const std::string& source() const { return source_; }

 private:
  struct KeyNode;
  Result<BoundedReader> cell(std::uint32_t offset) const;
  Result<KeyNode> key_node(Key key) const;
  // Calls visit(child nk offset) for each subkey; stops early when visit returns false.
  template <typename Visit>
  Result<bool> for_each_subkey(const KeyNode& node, Visit&& visit) const;
  Result<RegistryValue> read_value(std::uint32_t offset) const;

  std::shared_ptr<const void> owner_;
  BoundedReader bins_;  // the hive bins data; cell offsets are relative to its start
  std::uint32_t root_ = 0;
  std::uint32_t minor_version_ = 0;
  HiveLimits limits_;
  std::string source_;
};

// The base block's checksum: the XOR of its first 127 dwords, 0 and ~0 remapped (Suhanov, "Base block").
std::uint32_t hive_base_block_checksum(const BoundedReader& block);

// ExpandEnvironmentStrings for a value read from a hive: %NAME% (case-insensitive) becomes vars' value;
// a name that is not in vars stays as written, and its closing % may open the next reference (so a stray
// % in a folder name does not hide the %VAR% after it).
std::string expand_environment_strings(std::string_view text, const std::map<std::string, std::string>& vars);

}  // namespace dlldoctor::env
