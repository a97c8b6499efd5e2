// The rules compiled at build time (compiled-rules.bin): read instead of the TOML exactly while they were
// made from the folder's files, with the folder's own paths in their sources; anything else (an edited,
// added or removed file, a damaged or truncated compiled file) and the TOML is read, with the same result.
#include "dlldoctor/rules/compiled_rules.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>
#include <string>

#include "dlldoctor/rules/rule_data.hpp"

namespace fs = std::filesystem;
using namespace dlldoctor;
using namespace dlldoctor::rules;

namespace {

// A copy of the source tree's rules/*.toml in a fresh folder of the build.
fs::path copy_of_rules(const std::string& name) {
  const fs::path folder = fs::path(DLLDOCTOR_RULES_WORK_DIR) / name;
  fs::remove_all(folder);
  fs::create_directories(folder);
  for (const auto& entry : fs::directory_iterator(DLLDOCTOR_SOURCE_RULES)) {
    if (entry.path().extension() == ".toml") fs::copy_file(entry.path(), folder / entry.path().filename());
  }
  return fs::canonical(folder);
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// What the folder's rules compile to from `data`; the compiled file of a folder is written from these.
std::string compiled(const fs::path& folder, const RuleData& data) {
  auto files = rule_files(folder.string());
  REQUIRE(files);
  auto bytes = compile_rules(data, *files);
  REQUIRE(bytes);
  return *bytes;
}

RuleData parsed(const fs::path& folder) {
  auto files = rule_files(folder.string());
  REQUIRE(files);
  auto data = parse_rule_files(*files);
  REQUIRE(data);
  return *data;
}

RuleData loaded(const fs::path& folder) {
  auto data = load_rules({folder.string()});
  REQUIRE(data);
  return *data;
}

// Two rule sets compared member by member (compiled() writes every member, sources relative to the folder),
// and by the files they were read from.
void same_rules(const fs::path& folder, const RuleData& a, const RuleData& b) {
  CHECK(compiled(folder, a) == compiled(folder, b));
  CHECK(a.files == b.files);
}

}  // namespace

TEST_CASE("the compiled rules give what the TOML gives, and are what a run reads") {
  const fs::path folder = copy_of_rules("same");
  const RuleData from_toml = loaded(folder);
  put(folder / kCompiledRulesFile, compiled(folder, parsed(folder)));
  same_rules(folder, loaded(folder), from_toml);

  // Proof that the run read the compiled file: one made from other data, with the same texts, wins.
  RuleData changed = parsed(folder);
  REQUIRE(!changed.families.empty());
  changed.families.front().name = "named only in the compiled file";
  put(folder / kCompiledRulesFile, compiled(folder, changed));
  CHECK(loaded(folder).families.front().name == "named only in the compiled file");
}

TEST_CASE("compiled rules moved with their folder name the new folder in their sources") {
  const fs::path first = copy_of_rules("moved-from");
  RuleData changed = parsed(first);
  changed.families.front().name = "compiled";
  put(first / kCompiledRulesFile, compiled(first, changed));
  const fs::path second = fs::path(DLLDOCTOR_RULES_WORK_DIR) / "moved-to";
  fs::remove_all(second);
  fs::rename(first, second);
  const RuleData data = loaded(second);
  CHECK(data.families.front().name == "compiled");
  for (const Family& family : data.families) {
    CHECK(family.source.rfind(second.string() + "/", 0) == 0);
  }
  for (const FindingRule& rule : data.findings) CHECK(rule.source.find("findings.toml:") != std::string::npos);
}

TEST_CASE("compiled rules that do not match the folder's files are not read") {
  const fs::path folder = copy_of_rules("stale");
  RuleData changed = parsed(folder);
  changed.families.front().name = "compiled";
  const std::string bytes = compiled(folder, changed);

  SUBCASE("a rule file edited") { std::ofstream(folder / "cuda.toml", std::ios::app) << "# edited\n"; }
  SUBCASE("a rule file added") { put(folder / "zz_more.toml", "# nothing yet\n"); }
  SUBCASE("a rule file removed") { fs::remove(folder / "tensorrt.toml"); }
  put(folder / kCompiledRulesFile, bytes);
  const RuleData data = loaded(folder);
  CHECK(data.families.front().name != "compiled");
  same_rules(folder, data, [&] {
    fs::remove(folder / kCompiledRulesFile);
    return loaded(folder);
  }());
}

TEST_CASE("a damaged or truncated compiled file is not read, and the TOML gives the rules") {
  const fs::path folder = copy_of_rules("damaged");
  const RuleData from_toml = loaded(folder);
  RuleData changed = parsed(folder);
  changed.families.front().name = "compiled";
  const std::string bytes = compiled(folder, changed);
  auto files = rule_files(folder.string());
  REQUIRE(files);
  REQUIRE(read_compiled_rules(bytes, *files));
  int rejected = 0;
  for (std::size_t at = 0; at < bytes.size(); at += bytes.size() / 97 + 1) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
    const bool read_flipped = read_compiled_rules(flipped, *files).has_value();
    const bool read_truncated = read_compiled_rules(bytes.substr(0, at), *files).has_value();
    CHECK_FALSE(read_flipped);
    CHECK_FALSE(read_truncated);
    rejected += !read_flipped + !read_truncated;
  }
  CHECK(rejected > 150);
  put(folder / kCompiledRulesFile, bytes.substr(0, bytes.size() / 2));
  same_rules(folder, loaded(folder), from_toml);
  CHECK_FALSE(read_compiled_rules(bytes + "x", *files));
}

TEST_CASE("the build compiled the rules beside dlldoctor from the current rule files") {
  const fs::path folder = DLLDOCTOR_BUILD_RULES;
  auto files = rule_files(folder.string());
  REQUIRE(files);
  std::optional<RuleData> data = read_compiled_rules(slurp(folder / kCompiledRulesFile), *files);
  REQUIRE(data);
  for (const RuleFile& file : *files) CHECK(file.text == slurp(fs::path(DLLDOCTOR_SOURCE_RULES) / file.name));
  data->files = parsed(folder).files;
  same_rules(folder, *data, parsed(folder));
}

TEST_CASE("the decoder of the rules part checks every length, count, index and value, whatever the bytes") {
  // The checksum turns away a changed byte anywhere in a compiled file, so the decoder's own checks are
  // reached here, on the rules part alone: changed bytes decode to other rules or are refused, never
  // read past the end (this runs under ASan); a cut is always refused.
  const fs::path folder = copy_of_rules("payload");
  auto files = rule_files(folder.string());
  REQUIRE(files);
  auto payload = compile_rules_payload(parsed(folder), *files);
  REQUIRE(payload);
  std::optional<RuleData> decoded = read_compiled_payload(*payload, *files);
  REQUIRE(decoded);
  CHECK(compile_rules_payload(*decoded, *files).value() == *payload);
  int refused = 0, read = 0;
  for (std::size_t at = 0; at < payload->size(); at += payload->size() / 499 + 1) {
    for (const int change : {0x01, 0x80, 0xff}) {
      std::string changed = *payload;
      changed[at] = static_cast<char>(static_cast<unsigned char>(changed[at]) ^ change);
      (read_compiled_payload(changed, *files) ? read : refused) += 1;
    }
    CHECK_FALSE(read_compiled_payload(std::string_view(*payload).substr(0, at), *files));
  }
  CHECK(refused > 300);  // lengths, counts, flags, enums and source indices out of range
  CHECK(read > 100);     // a changed letter of a text is still a text
  // A source names a file by its index: one more file than the folder has is refused.
  std::vector<RuleFile> fewer(files->begin(), files->end() - 1);
  CHECK_FALSE(read_compiled_payload(*payload, fewer));
}
