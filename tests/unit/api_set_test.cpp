#include "dlldoctor/env/api_set.hpp"

#include <doctest/doctest.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using dlldoctor::BoundedReader;
using dlldoctor::DllName;
using dlldoctor::env::ApiSetSchema;

namespace {

struct Value {
  std::string importer;
  std::string host;
};
struct Entry {
  std::string name;  // full name without ".dll"; the hashed part is up to its last hyphen
  std::vector<Value> values;
};

void put32(std::vector<std::uint8_t>& out, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

// A v6 schema in the layout Windows uses: header, entry array, value arrays, then a string pool.
std::vector<std::uint8_t> build_v6(const std::vector<Entry>& entries) {
  std::size_t values = 0;
  for (const auto& e : entries) values += e.values.size();
  const std::size_t entry_at = 28;
  std::size_t value_at = entry_at + 24 * entries.size();
  std::vector<std::uint8_t> out(value_at + 20 * values);
  auto add_string = [&](const std::string& text) {
    const auto offset = static_cast<std::uint32_t>(out.size());
    for (char c : text) {
      out.push_back(static_cast<std::uint8_t>(c));
      out.push_back(0);
    }
    return offset;
  };
  put32(out, 0, 6);
  put32(out, 12, static_cast<std::uint32_t>(entries.size()));
  put32(out, 16, static_cast<std::uint32_t>(entry_at));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    const std::size_t at = entry_at + 24 * i;
    const auto name = static_cast<std::uint32_t>(2 * e.name.size());
    const auto hashed = static_cast<std::uint32_t>(2 * e.name.rfind('-'));
    const auto name_offset = add_string(e.name);
    put32(out, at + 4, name_offset);
    put32(out, at + 8, name);
    put32(out, at + 12, hashed);
    put32(out, at + 16, static_cast<std::uint32_t>(value_at));
    put32(out, at + 20, static_cast<std::uint32_t>(e.values.size()));
    for (const auto& v : e.values) {
      put32(out, value_at + 4, v.importer.empty() ? 0 : add_string(v.importer));
      put32(out, value_at + 8, static_cast<std::uint32_t>(2 * v.importer.size()));
      put32(out, value_at + 12, v.host.empty() ? 0 : add_string(v.host));
      put32(out, value_at + 16, static_cast<std::uint32_t>(2 * v.host.size()));
      value_at += 20;
    }
  }
  put32(out, 4, static_cast<std::uint32_t>(out.size()));
  return out;
}

const std::vector<Entry> kEntries = {
    {"api-ms-win-core-synch-l1-2-1", {{"", "kernelbase.dll"}}},
    {"api-ms-win-core-processthreads-l1-1-3", {{"", "kernel32.dll"}, {"kernel32.dll", "kernelbase.dll"}}},
    {"api-ms-win-deprecated-apis-legacy-l1-1-0", {{"", ""}}},
    {"api-ms-win-core-nohost-l1-1-0", {}},
    {"ext-ms-win-ntuser-window-l1-1-4", {{"", "user32.dll"}}},
};

ApiSetSchema parse(const std::vector<std::uint8_t>& bytes) {
  auto schema = ApiSetSchema::from_bytes(BoundedReader(bytes.data(), bytes.size()));
  REQUIRE_MESSAGE(schema.ok(), (schema.ok() ? "" : schema.error().message));
  return schema.value();
}

}  // namespace

TEST_CASE("API set names match on the part before the last hyphen, in any case, with or without .dll") {
  const auto bytes = build_v6(kEntries);
  const ApiSetSchema schema = parse(bytes);
  CHECK(schema.size() == kEntries.size());
  CHECK(schema.resolve("api-ms-win-core-synch-l1-2-0.dll") == "kernelbase.dll");
  CHECK(schema.resolve("api-ms-win-core-synch-l1-2-1") == "kernelbase.dll");
  CHECK(schema.resolve("API-MS-Win-Core-Synch-L1-2-9.DLL") == "kernelbase.dll");
  CHECK_FALSE(schema.resolve("api-ms-win-core-synch-l1-3-0.dll"));  // another major version
  CHECK_FALSE(schema.resolve("api-ms-win-core-synch-l1-2"));        // cut at its own last hyphen: "...-l1"
  CHECK_FALSE(schema.resolve("kernel32.dll"));
  CHECK(schema.resolve("ext-ms-win-ntuser-window-l1-1-0.dll") == "user32.dll");
}

TEST_CASE("importer exceptions apply only to the importer they name") {
  const auto bytes = build_v6(kEntries);
  const ApiSetSchema schema = parse(bytes);
  const char* set = "api-ms-win-core-processthreads-l1-1-0.dll";
  CHECK(schema.resolve(set) == "kernel32.dll");
  CHECK(schema.resolve(set, "user32.dll") == "kernel32.dll");
  CHECK(schema.resolve(set, "kernel32.dll") == "kernelbase.dll");
  CHECK(schema.resolve(set, "KERNEL32.DLL") == "kernelbase.dll");
  CHECK(schema.resolve(set, "kernel32") == "kernelbase.dll");
  CHECK(schema.resolve(set, "C:\\Windows\\System32\\Kernel32.dll") == "kernelbase.dll");
  // An exception on one set does not leak into another.
  CHECK(schema.resolve("api-ms-win-core-synch-l1-2-0", "kernel32.dll") == "kernelbase.dll");
}

TEST_CASE("a set without a host resolves to nothing") {
  const auto bytes = build_v6(kEntries);
  const ApiSetSchema schema = parse(bytes);
  CHECK_FALSE(schema.resolve("api-ms-win-deprecated-apis-legacy-l1-1-0.dll"));
  CHECK_FALSE(schema.resolve("api-ms-win-core-nohost-l1-1-0.dll"));
}

TEST_CASE("API set prefixes are api- and ext-, in any case") {
  CHECK(ApiSetSchema::is_api_set_name("api-ms-win-crt-runtime-l1-1-0.dll"));
  CHECK(ApiSetSchema::is_api_set_name("EXT-MS-WIN-ntuser-window-l1-1-0"));
  CHECK_FALSE(ApiSetSchema::is_api_set_name("apiset.dll"));
  CHECK_FALSE(ApiSetSchema::is_api_set_name("api"));
  CHECK_FALSE(ApiSetSchema::is_api_set_name(""));
}

TEST_CASE("the built-in table maps the common families of Windows 10/11") {
  const ApiSetSchema schema = ApiSetSchema::builtin();
  CHECK(schema.source() == "built-in");
  CHECK(schema.is_builtin());
  CHECK(schema.resolve("api-ms-win-crt-runtime-l1-1-0.dll") == "ucrtbase.dll");
  CHECK(schema.resolve("API-MS-WIN-CRT-HEAP-L1-1-0.DLL") == "ucrtbase.dll");
  CHECK(schema.resolve("api-ms-win-core-synch-l1-2-0.dll") == "kernelbase.dll");
  CHECK(schema.resolve("api-ms-win-core-rtlsupport-l1-2-0.dll") == "ntdll.dll");
  CHECK(schema.resolve("api-ms-win-core-apiquery-l1-1-0.dll") == "ntdll.dll");
  CHECK(schema.resolve("api-ms-win-core-apiquery-l2-1-0.dll") == "kernelbase.dll");
  CHECK(schema.resolve("api-ms-win-core-com-l1-1-1.dll") == "combase.dll");
  CHECK(schema.resolve("api-ms-win-core-comm-l1-1-0.dll") == "kernelbase.dll");
  CHECK(schema.resolve("api-ms-win-core-winrt-string-l1-1-0.dll") == "combase.dll");
  CHECK(schema.resolve("ext-ms-win-ntuser-window-l1-1-4.dll") == "user32.dll");
  CHECK(schema.resolve("api-ms-win-shell-shellcom-l1-1-0.dll") == "kernelbase.dll");
  CHECK_FALSE(schema.resolve("ucrtbase.dll"));
}

// onnxruntime.dll (onnxruntime-node, win32/x64) and DirectML.dll import these and must not fail without
// --sysroot; Windows 11's schema (rules/api-sets/windows-10-11-x64.txt) gives the hosts.
TEST_CASE("the built-in table knows the API sets onnxruntime and DirectML import") {
  const ApiSetSchema schema = ApiSetSchema::builtin();
  CHECK(schema.resolve("api-ms-win-eventing-provider-l1-1-0.dll") == "kernelbase.dll");
  CHECK(schema.resolve("api-ms-win-eventing-classicprovider-l1-1-0.dll") == "kernelbase.dll");
  CHECK(schema.resolve("api-ms-win-eventing-controller-l1-1-0.dll") == "sechost.dll");
  CHECK(schema.resolve("api-ms-win-service-core-l1-1-0.dll") == "sechost.dll");
  CHECK(schema.resolve("api-ms-win-service-core-l1-1-5.dll") == "sechost.dll");
  CHECK(schema.resolve("api-ms-win-service-management-l1-1-0.dll") == "sechost.dll");
  CHECK(schema.resolve("api-ms-win-service-management-l2-1-0.dll") == "sechost.dll");
  CHECK(schema.resolve("api-ms-win-service-winsvc-l1-1-0.dll") == "sechost.dll");
  CHECK(schema.resolve("api-ms-win-appmodel-runtime-l1-1-0.dll") == "kernel.appcore.dll");
  CHECK(schema.resolve("api-ms-win-appmodel-runtime-l1-1-6.dll") == "kernel.appcore.dll");
  CHECK(schema.resolve("api-ms-win-security-base-l1-2-0.dll") == "kernelbase.dll");
  CHECK(schema.resolve("api-ms-win-core-winrt-error-l1-1-1.dll") == "combase.dll");
  CHECK(schema.resolve("api-ms-win-core-memory-l1-1-8.dll") == "kernelbase.dll");
  CHECK(schema.resolve("api-ms-win-core-featurestaging-l1-1-1.dll") == "shcore.dll");
  CHECK(schema.resolve("ext-ms-win-dxcore-l1-1-0.dll") == "dxcore.dll");
  // The hosts are stock System32 DLLs, so without --sysroot they are assumed present.
  CHECK(ApiSetSchema::is_builtin_host(DllName("kernel.appcore.dll")));
  CHECK(ApiSetSchema::is_builtin_host(DllName("sechost.dll")));
  CHECK_FALSE(ApiSetSchema::is_builtin_host(DllName("cudnn64_9.dll")));
  CHECK_FALSE(ApiSetSchema::is_builtin_host(DllName("")));
  // A name whose key is empty ("." loses its dot) is no host: sets without a host carry "" in the table,
  // and the linear scan once matched it, taking a hostile import named "." for a stock System32 DLL.
  CHECK_FALSE(ApiSetSchema::is_builtin_host(DllName(".")));
}

// is_builtin_host bisects a host list generated beside the table: every set's host must be in it, upper
// case or not, and a set's own name never is.
TEST_CASE("every host of the built-in table is a built-in host") {
  const ApiSetSchema schema = ApiSetSchema::builtin();
  std::size_t hosts = 0;
  for (const std::string& contract : schema.contracts()) {
    const auto host = schema.resolve(contract + "-0.dll");
    if (!host) continue;
    ++hosts;
    CHECK_MESSAGE(ApiSetSchema::is_builtin_host(DllName(*host)), *host);
    std::string upper = *host;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    CHECK(ApiSetSchema::is_builtin_host(DllName(upper)));
    CHECK_FALSE(ApiSetSchema::is_builtin_host(DllName(contract + "-0.dll")));
  }
  CHECK(hosts > 500);  // 800 of the Windows 10/11 table's sets name a host
}

// A sample across the families of Wine 8.0's schema; tests/env checks every entry against the file.
TEST_CASE("the built-in table knows the sets of Wine's schema") {
  const ApiSetSchema schema = ApiSetSchema::builtin();
  const std::vector<std::pair<const char*, const char*>> wine = {
      {"api-ms-win-base-util-l1-1-0", "advapi32.dll"},
      {"api-ms-win-core-processthreads-l1-1-3", "kernel32.dll"},
      {"api-ms-win-core-kernel32-legacy-l1-1-0", "kernel32.dll"},
      {"api-ms-win-core-localregistry-l1-1-0", "kernelbase.dll"},
      {"api-ms-win-core-registry-l2-1-0", "advapi32.dll"},
      {"api-ms-win-core-winrt-robuffer-l1-1-0", "wintypes.dll"},
      {"api-ms-win-downlevel-shlwapi-l2-1-0", "shcore.dll"},
      {"api-ms-win-security-lsalookup-l1-1-2", "sechost.dll"},
      {"api-ms-win-shcore-scaling-l1-1-1", "shcore.dll"},
      {"ext-ms-win-gdi-dc-l1-2-0", "gdi32full.dll"},                         // Wine: gdi32.dll; Windows 11 moved it
      {"ext-ms-win-kernel32-package-current-l1-1-0", "kernel.appcore.dll"},  // Wine: kernelbase.dll
      {"ext-ms-win-ntuser-message-l1-1-1", "user32.dll"},
      {"ext-ms-win-printer-winspool-l1-1-0", "winspool.drv"},
      {"ext-ms-win-advapi32-eventingcontroller-l1-1-0", "advapi32.dll"},  // Wine only
  };
  for (const auto& [name, host] : wine) {
    CAPTURE(name);
    CHECK(schema.lists(name));
    CHECK(schema.resolve(name) == host);
  }
}

TEST_CASE("the built-in table tells sets listed without a host from sets it does not know") {
  const ApiSetSchema schema = ApiSetSchema::builtin();
  CHECK(schema.lists("api-ms-win-deprecated-apis-legacy-l1-1-0.dll"));
  CHECK_FALSE(schema.resolve("api-ms-win-deprecated-apis-legacy-l1-1-0.dll"));
  CHECK(schema.lists("EXT-MS-WIN-GDI-EDGEGDI-L1-1-0"));
  CHECK_FALSE(schema.resolve("ext-ms-win-gdi-edgegdi-l1-1-0"));
  CHECK_FALSE(schema.lists("api-ms-win-made-up-l1-1-0.dll"));
  CHECK_FALSE(schema.resolve("api-ms-win-made-up-l1-1-0.dll"));
  CHECK_FALSE(schema.lists("kernel32.dll"));
  // Every listed name is one the loader could match, and the count is that of the data file.
  const auto contracts = schema.contracts();
  CHECK(contracts.size() == schema.size());
  CHECK(contracts.size() > 900);
  for (const std::string& name : contracts) {
    CAPTURE(name);
    CHECK(schema.lists(name + "-0.dll"));
  }
}

TEST_CASE("a schema file lists its own sets, and only a schema file is not built-in") {
  const auto bytes = build_v6(kEntries);
  const ApiSetSchema schema = parse(bytes);
  CHECK_FALSE(schema.is_builtin());
  CHECK(schema.lists("api-ms-win-deprecated-apis-legacy-l1-1-0.dll"));
  CHECK(schema.lists("api-ms-win-core-nohost-l1-1-0"));
  CHECK_FALSE(schema.lists("api-ms-win-eventing-provider-l1-1-0.dll"));
  CHECK(schema.contracts() ==
        std::vector<std::string>{"api-ms-win-core-nohost-l1-1", "api-ms-win-core-processthreads-l1-1",
                                 "api-ms-win-core-synch-l1-2", "api-ms-win-deprecated-apis-legacy-l1-1",
                                 "ext-ms-win-ntuser-window-l1-1"});
}

TEST_CASE("damaged schemas are errors, never out-of-bounds reads") {
  const auto good = build_v6(kEntries);
  for (std::size_t length = 0; length < good.size(); ++length) {
    const auto r = ApiSetSchema::from_bytes(BoundedReader(good.data(), length));
    CHECK_FALSE(r.ok());
  }

  auto with = [&](std::size_t at, std::uint32_t v) {
    auto bytes = good;
    put32(bytes, at, v);
    return ApiSetSchema::from_bytes(BoundedReader(bytes.data(), bytes.size()));
  };
  CHECK_FALSE(with(12, 0xffffffff).ok());       // entry count
  CHECK_FALSE(with(16, 0xfffffff0).ok());       // entry array offset
  CHECK_FALSE(with(28 + 4, 0xfffffffe).ok());   // first entry's name offset
  CHECK_FALSE(with(28 + 8, 3).ok());            // odd name length
  CHECK_FALSE(with(28 + 12, 0x1000).ok());      // hashed part longer than the name
  CHECK_FALSE(with(28 + 20, 100000).ok());      // value count
  CHECK_FALSE(with(28 + 16, 0xffffffec).ok());  // value array offset + 20 wraps
  const auto v2 = with(0, 2);
  REQUIRE_FALSE(v2.ok());
  CHECK(v2.error().message.find("not supported") != std::string::npos);
  CHECK_FALSE(with(0, 7).ok());

  // Every single-byte change parses or fails cleanly (the sanitizers watch the reads).
  for (std::size_t at = 0; at < good.size(); ++at) {
    for (const int x : {0x01, 0x80, 0xff}) {
      auto bytes = good;
      bytes[at] = static_cast<std::uint8_t>(bytes[at] ^ x);
      const auto r = ApiSetSchema::from_bytes(BoundedReader(bytes.data(), bytes.size()));
      if (r.ok()) (void)r->resolve("api-ms-win-core-processthreads-l1-1-0", "kernel32.dll");
    }
  }
}
