#include "env/registry_hive.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

using dlldoctor::BoundedReader;
using dlldoctor::env::expand_environment_strings;
using dlldoctor::env::RegistryHive;
using dlldoctor::env::RegistryValue;
namespace reg_type = dlldoctor::env::reg_type;

namespace {

using Bytes = std::vector<std::uint8_t>;

void put16(Bytes& out, std::size_t at, std::uint32_t v) {
  out[at] = static_cast<std::uint8_t>(v);
  out[at + 1] = static_cast<std::uint8_t>(v >> 8);
}
void put32(Bytes& out, std::size_t at, std::uint32_t v) {
  put16(out, at, v & 0xffff);
  put16(out, at + 2, v >> 16);
}

Bytes utf16(const std::u16string& text, bool terminate = true) {
  Bytes out;
  for (char16_t c : text) {
    out.push_back(static_cast<std::uint8_t>(c));
    out.push_back(static_cast<std::uint8_t>(c >> 8));
  }
  if (terminate) out.insert(out.end(), {0, 0});
  return out;
}

// Builds a hive cell by cell, children before parents, in one hive bin; enough of the format to reach
// every branch of the reader (list kinds, name encodings, resident and big data).
class HiveBuilder {
 public:
  HiveBuilder() : bins_(32, 0) {}

  std::uint32_t cell(const Bytes& data) {
    const auto offset = static_cast<std::uint32_t>(bins_.size());
    const std::size_t size = (data.size() + 4 + 7) / 8 * 8;
    bins_.resize(bins_.size() + size);
    put32(bins_, offset, static_cast<std::uint32_t>(-static_cast<std::int32_t>(size)));
    std::copy(data.begin(), data.end(), bins_.begin() + offset + 4);
    return offset;
  }

  std::uint32_t key(const std::string& name, std::uint32_t subkeys, std::uint32_t subkey_list, std::uint32_t values = 0,
                    std::uint32_t value_list = 0xffffffff) {
    return key_raw(Bytes(name.begin(), name.end()), true, subkeys, subkey_list, values, value_list);
  }
  std::uint32_t key_utf16(const std::u16string& name, std::uint32_t subkeys, std::uint32_t subkey_list) {
    return key_raw(utf16(name, false), false, subkeys, subkey_list, 0, 0xffffffff);
  }

  std::uint32_t list(const char* sig, const std::vector<std::uint32_t>& targets) {
    const bool fast = sig[1] == 'f' || sig[1] == 'h';
    Bytes d(4 + targets.size() * (fast ? 8 : 4));
    d[0] = static_cast<std::uint8_t>(sig[0]);
    d[1] = static_cast<std::uint8_t>(sig[1]);
    put16(d, 2, static_cast<std::uint32_t>(targets.size()));
    for (std::size_t i = 0; i < targets.size(); ++i) put32(d, 4 + i * (fast ? 8 : 4), targets[i]);
    return cell(d);
  }

  std::uint32_t offsets(const std::vector<std::uint32_t>& targets) {
    Bytes d(4 * targets.size());
    for (std::size_t i = 0; i < targets.size(); ++i) put32(d, 4 * i, targets[i]);
    return cell(d);
  }

  // A value whose data gets a cell of its own (or is resident when `resident`).
  std::uint32_t value(const std::string& name, std::uint32_t type, const Bytes& data, bool resident = false) {
    if (resident) {
      std::uint32_t inline_data = 0;
      for (std::size_t i = 0; i < data.size(); ++i) inline_data |= std::uint32_t{data[i]} << (8 * i);
      return value_raw(name, type, 0x80000000u | static_cast<std::uint32_t>(data.size()), inline_data);
    }
    return value_raw(name, type, static_cast<std::uint32_t>(data.size()), data.empty() ? 0xffffffff : cell(data));
  }

  std::uint32_t value_raw(const std::string& name, std::uint32_t type, std::uint32_t size, std::uint32_t data) {
    Bytes d(20 + name.size());
    d[0] = 'v';
    d[1] = 'k';
    put16(d, 2, static_cast<std::uint32_t>(name.size()));
    put32(d, 4, size);
    put32(d, 8, data);
    put32(d, 12, type);
    put16(d, 16, 1);  // compressed name
    std::copy(name.begin(), name.end(), d.begin() + 20);
    return cell(d);
  }

  Bytes finish(std::uint32_t root, std::uint32_t minor = 5) {
    Bytes bins = bins_;
    const std::size_t size = (bins.size() + 8 + 4095) / 4096 * 4096;
    const std::size_t used = bins.size();
    bins.resize(size);
    put32(bins, used, static_cast<std::uint32_t>(size - used));  // the rest is one free cell
    bins[0] = 'h';
    bins[1] = 'b';
    bins[2] = 'i';
    bins[3] = 'n';
    put32(bins, 8, static_cast<std::uint32_t>(size));

    // Reserved up front: GCC 12 warns (-Warray-bounds, a false positive) when insert() grows it below.
    Bytes hive;
    hive.reserve(4096 + bins.size());
    hive.resize(4096);
    hive[0] = 'r';
    hive[1] = 'e';
    hive[2] = 'g';
    hive[3] = 'f';
    put32(hive, 20, 1);
    put32(hive, 24, minor);
    put32(hive, 32, 1);
    put32(hive, 36, root);
    put32(hive, 40, static_cast<std::uint32_t>(size));
    hive.insert(hive.end(), bins.begin(), bins.end());
    fix_checksum(hive);
    return hive;
  }

  std::size_t bins_size() const { return bins_.size(); }

  static void fix_checksum(Bytes& hive) {
    std::uint32_t sum = 0;
    for (std::size_t at = 0; at < 508; at += 4)
      sum ^= std::uint32_t{hive[at]} | std::uint32_t{hive[at + 1]} << 8 | std::uint32_t{hive[at + 2]} << 16 |
             std::uint32_t{hive[at + 3]} << 24;
    put32(hive, 508, sum == 0 ? 1 : sum);
  }

 private:
  std::uint32_t key_raw(const Bytes& name, bool latin1, std::uint32_t subkeys, std::uint32_t subkey_list,
                        std::uint32_t values, std::uint32_t value_list) {
    Bytes d(76 + name.size());
    d[0] = 'n';
    d[1] = 'k';
    put16(d, 2, latin1 ? 0x20 : 0);
    put32(d, 20, subkeys);
    put32(d, 28, subkey_list);
    put32(d, 36, values);
    put32(d, 40, value_list);
    put16(d, 72, static_cast<std::uint32_t>(name.size()));
    std::copy(name.begin(), name.end(), d.begin() + 76);
    return cell(d);
  }

  Bytes bins_;
};

// One hive that uses every list kind and value encoding:
//   \Select                          Current = 2 (resident DWORD)
//   \ControlSet002\Control           (reached through an ri of an li and an lh)
//   \ControlSet002\Zoë               (UTF-16 key name)
//   \Values                          every value kind, incl. 20,000 bytes of big data
struct Sample {
  Bytes bytes;
  std::uint32_t value_list = 0;  // of \Values
  std::uint32_t root_list = 0;   // the root's ri
  std::size_t used = 0;          // file bytes up to the end of the last allocated cell
};

Sample sample(std::uint32_t minor = 5, bool big_data = true) {
  HiveBuilder b;
  Sample s;
  const std::uint32_t current = b.value("Current", reg_type::kDword, {2, 0, 0, 0}, true);
  const std::uint32_t select = b.key("Select", 0, 0xffffffff, 1, b.offsets({current}));

  const std::uint32_t control = b.key("Control", 0, 0xffffffff);
  const std::uint32_t zoe = b.key_utf16(u"Zo\u00eb", 0, 0xffffffff);
  const std::uint32_t set2 = b.key("ControlSet002", 2, b.list("lf", {control, zoe}));

  std::vector<std::uint32_t> value_cells = {
      b.value("", reg_type::kSz, utf16(u"default")),
      b.value("Path", reg_type::kExpandSz, utf16(u"%SystemRoot%\\system32;C:\\cuDNN\\bin")),
      b.value("Multi", reg_type::kMultiSz, utf16(std::u16string(u"one\0two\0", 8))),
      b.value("Quad", reg_type::kQword, {1, 0, 0, 0, 0, 0, 0, 0x80}),
      b.value("BigEndian", reg_type::kDwordBigEndian, {0x12, 0x34, 0x56, 0x78}),
      b.value("Empty", reg_type::kSz, {}),
      b.value("Short", reg_type::kBinary, {0xab, 0xcd}, true),
  };
  // Big data is 20 KB of plain bytes: the corruption test, which flips every byte in turn, leaves it out,
  // since those bytes would take most of its time and hold no structure to corrupt.
  if (big_data) {
    Bytes big(20000);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 7);
    const std::uint32_t seg1 = b.cell(Bytes(big.begin(), big.begin() + 16344));
    const std::uint32_t seg2 = b.cell(Bytes(big.begin() + 16344, big.end()));
    Bytes db(8);
    db[0] = 'd';
    db[1] = 'b';
    put16(db, 2, 2);
    put32(db, 4, b.offsets({seg1, seg2}));
    value_cells.push_back(b.value_raw("Big", reg_type::kBinary, 20000, b.cell(db)));
  }
  s.value_list = b.offsets(value_cells);
  const std::uint32_t values =
      b.key("Values", 0, 0xffffffff, static_cast<std::uint32_t>(value_cells.size()), s.value_list);

  const std::uint32_t li = b.list("li", {select, set2});
  const std::uint32_t lh = b.list("lh", {values});
  s.root_list = b.list("ri", {li, lh});
  const std::uint32_t root = b.key("ROOT", 3, s.root_list);
  s.bytes = b.finish(root, minor);
  s.used = 4096 + b.bins_size();
  return s;
}

RegistryHive open(const Bytes& bytes) {
  auto hive = RegistryHive::from_bytes(BoundedReader(bytes.data(), bytes.size()));
  REQUIRE_MESSAGE(hive.ok(), (hive.ok() ? "" : hive.error().message));
  return hive.value();
}

RegistryHive::Key key(const RegistryHive& hive, const std::string& path) {
  auto found = hive.find_key(path);
  REQUIRE_MESSAGE(found.ok(), (found.ok() ? "" : found.error().message));
  REQUIRE_MESSAGE(found->has_value(), path);
  return **found;
}

RegistryValue value(const RegistryHive& hive, const std::string& path, const std::string& name) {
  auto v = hive.value(key(hive, path), name);
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? "" : v.error().message));
  REQUIRE_MESSAGE(v->has_value(), name);
  return **v;
}

// Everything a caller can ask of a hive, over the whole tree; the point is that it returns.
void walk(const RegistryHive& hive, RegistryHive::Key k, int depth = 0) {
  if (depth > 8) return;
  (void)hive.key_name(k);
  if (auto values = hive.values(k); values.ok()) {
    for (const auto& v : *values) {
      (void)v.text();
      (void)v.strings();
      (void)v.number();
    }
  }
  auto names = hive.subkey_names(k);
  if (!names.ok()) return;
  for (const auto& name : *names) {
    auto child = hive.find_key(k, name);
    if (child.ok() && child->has_value()) walk(hive, **child, depth + 1);
  }
}

}  // namespace

TEST_CASE("keys are found through ri, li, lf and lh lists, case-insensitively") {
  const Sample s = sample();
  const RegistryHive hive = open(s.bytes);
  auto names = hive.subkey_names(hive.root());
  REQUIRE(names.ok());
  CHECK(*names == std::vector<std::string>{"Select", "ControlSet002", "Values"});
  CHECK(*hive.key_name(key(hive, "controlset002\\CONTROL")) == "Control");
  CHECK(*hive.key_name(key(hive, "\\ControlSet002\\\\Control\\")) == "Control");
  CHECK(*hive.key_name(key(hive, "ControlSet002\\Zo\xc3\xab")) == "Zo\xc3\xab");
  CHECK(*hive.key_name(key(hive, "")) == "ROOT");
  auto missing = hive.find_key("ControlSet002\\Nope\\Deeper");
  REQUIRE(missing.ok());
  CHECK_FALSE(missing->has_value());
  CHECK(*hive.current_control_set() == "ControlSet002");
}

TEST_CASE("values of every kind read back") {
  const Sample s = sample();
  const RegistryHive hive = open(s.bytes);
  auto all = hive.values(key(hive, "Values"));
  REQUIRE(all.ok());
  CHECK(all->size() == 8);

  CHECK(value(hive, "Values", "").text() == "default");
  const RegistryValue path = value(hive, "VALUES", "path");
  CHECK(path.name == "Path");
  CHECK(path.type == reg_type::kExpandSz);
  CHECK(path.text() == "%SystemRoot%\\system32;C:\\cuDNN\\bin");
  CHECK_FALSE(path.number());
  CHECK(value(hive, "Values", "Multi").strings() == std::vector<std::string>{"one", "two"});
  CHECK(value(hive, "Values", "Quad").number() == 0x8000000000000001ull);
  CHECK(value(hive, "Values", "BigEndian").number() == 0x12345678u);
  CHECK(value(hive, "Values", "Empty").text() == "");
  CHECK(value(hive, "Values", "Short").data == Bytes{0xab, 0xcd});
  const RegistryValue big = value(hive, "Values", "Big");
  REQUIRE(big.data.size() == 20000);
  CHECK(big.data[16343] == static_cast<std::uint8_t>(16343 * 7));
  CHECK(big.data[19999] == static_cast<std::uint8_t>(19999 * 7));
  CHECK(value(hive, "Select", "Current").number() == 2);

  auto absent = hive.value(key(hive, "Values"), "Nope");
  REQUIRE(absent.ok());
  CHECK_FALSE(absent->has_value());
}

TEST_CASE("big data cells are a format 1.4 feature") {
  const Sample s = sample(3);
  const RegistryHive hive = open(s.bytes);
  CHECK_FALSE(hive.values(key(hive, "Values")).ok());
}

TEST_CASE("damaged hives give errors") {
  const Sample s = sample();
  constexpr std::size_t kBins = 4096;

  for (std::size_t length : {0, 100, 4095, 4096, 4100, 8000}) {
    if (length >= s.bytes.size()) continue;
    CHECK_FALSE(RegistryHive::from_bytes(BoundedReader(s.bytes.data(), length)).ok());
  }

  auto patched = [&](std::size_t at, std::uint32_t v) {
    Bytes bytes = s.bytes;
    put32(bytes, at, v);
    if (at < 512) HiveBuilder::fix_checksum(bytes);
    return bytes;
  };
  {
    Bytes bytes = s.bytes;
    bytes[100] ^= 1;  // header changed, checksum not
    CHECK_FALSE(RegistryHive::from_bytes(BoundedReader(bytes.data(), bytes.size())).ok());
  }
  for (const Bytes& bytes :
       {patched(36, 0xfffffff0), patched(36, s.root_list), patched(20, 2), patched(40, 1u << 30), patched(0, 0)}) {
    CHECK_FALSE(RegistryHive::from_bytes(BoundedReader(bytes.data(), bytes.size())).ok());
  }

  {
    // An ri that lists itself: refused as an ri under an ri, so no cycle.
    const Bytes bytes = patched(kBins + s.root_list + 4 + 4, s.root_list);
    const RegistryHive hive = open(bytes);
    CHECK_FALSE(hive.subkey_names(hive.root()).ok());
    CHECK_FALSE(hive.find_key("Values").ok());
  }
  {
    // More list entries than the key records.
    const Bytes bytes = patched(kBins + s.root_list + 4 + 2, 0xffff);
    const RegistryHive hive = open(bytes);
    CHECK_FALSE(hive.subkey_names(hive.root()).ok());
  }
  {
    // A value list entry pointing outside the bins, and at a free cell.
    for (std::uint32_t target : {0x7ffffff0u, static_cast<std::uint32_t>(s.bytes.size() - kBins - 16)}) {
      const Bytes bytes = patched(kBins + s.value_list + 4, target);
      const RegistryHive hive = open(bytes);
      CHECK_FALSE(hive.values(key(hive, "Values")).ok());
    }
  }
}

TEST_CASE("every single-byte corruption of a hive is survived") {
  const Sample s = sample(5, false);
  for (std::size_t at = 4096; at < s.used + 4; ++at) {  // + the free cell's size field
    for (const int x : {0x01, 0x80, 0xff}) {
      Bytes bytes = s.bytes;
      bytes[at] = static_cast<std::uint8_t>(bytes[at] ^ x);
      auto hive = RegistryHive::from_bytes(BoundedReader(bytes.data(), bytes.size()));
      if (!hive.ok()) continue;
      walk(*hive, hive->root());
      (void)hive->current_control_set();
    }
  }
}

TEST_CASE("REG_SZ and REG_MULTI_SZ tolerate missing terminators") {
  RegistryValue v;
  v.type = reg_type::kSz;
  v.data = utf16(u"abc", false);
  v.data.push_back('x');  // odd length: the stray byte is ignored
  CHECK(v.text() == "abc");
  v.type = reg_type::kMultiSz;
  v.data = utf16(std::u16string(u"a\0bc", 4), false);
  CHECK(v.strings() == std::vector<std::string>{"a", "bc"});
  v.data.clear();
  CHECK(v.strings() == std::vector<std::string>{});
  v.type = reg_type::kDword;
  v.data = {1, 2, 3};
  CHECK_FALSE(v.number());
}

TEST_CASE("environment strings expand case-insensitively and leave unknown names alone") {
  const std::map<std::string, std::string> vars{{"SystemRoot", "C:\\Windows"}, {"USERPROFILE", "C:\\Users\\zoe"}};
  CHECK(expand_environment_strings("%SystemRoot%\\system32;%SYSTEMROOT%", vars) == "C:\\Windows\\system32;C:\\Windows");
  CHECK(expand_environment_strings("%userprofile%\\AppData", vars) == "C:\\Users\\zoe\\AppData");
  CHECK(expand_environment_strings("%NOPE%\\bin;%SystemRoot%", vars) == "%NOPE%\\bin;C:\\Windows");
  CHECK(expand_environment_strings("C:\\100%;%SystemRoot%", vars) == "C:\\100%;C:\\Windows");
  CHECK(expand_environment_strings("%%;%", vars) == "%%;%");
  CHECK(expand_environment_strings("no vars", vars) == "no vars");
  CHECK(expand_environment_strings("", vars) == "");
}
