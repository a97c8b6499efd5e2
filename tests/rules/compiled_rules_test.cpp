// The rules compiled at build time and built into the binary: decoded instead of the TOML exactly while the
// texts are the built-in ones (no rules folder beside the binary, or one that edits nothing), with the
// files' own paths in their sources; anything else (an edited, added or removed file, another layout's or
// cut bytes) and the TOML is parsed, with the same result. That the embedded form was made from the embedded
// texts is the build's check (rules_embed_refuses_other_texts).
#include "rules/compiled_rules.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/rules/rule_data.hpp"
#include "dlldoctor/session/shipped_rules.hpp"
#include "session/builtin_rules.hpp"

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

void put(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

std::vector<RuleFile> files_of(const fs::path& folder) {
  auto files = rule_files(folder.string());
  REQUIRE(files);
  return *files;
}

// What `files` compile to from `data`.
std::string compiled(const std::vector<RuleFile>& files, const RuleData& data) {
  auto bytes = compile_rules(data, files);
  REQUIRE(bytes);
  return *bytes;
}

RuleData parsed(const std::vector<RuleFile>& files) {
  auto data = parse_rule_files(files);
  REQUIRE(data);
  return *data;
}

RuleData shipped(const std::optional<fs::path>& folder, std::string_view compiled_rules) {
  auto data = session::load_rules_from(folder ? std::optional<std::string>(folder->string()) : std::nullopt, {},
                                       compiled_rules);
  REQUIRE_MESSAGE(data, (data ? std::string() : data.error().message));
  return *data;
}

// Two rule sets compared member by member (compile writes every member) and by the files they came from.
void same_rules(const std::vector<RuleFile>& files, const RuleData& a, const RuleData& b) {
  CHECK(compiled(files, a) == compiled(files, b));
  CHECK(a.files == b.files);
}

// The source tree's rules, changed where only a decoded compiled form can have taken it from.
RuleData marked(const std::vector<RuleFile>& files) {
  RuleData changed = parsed(files);
  REQUIRE(!changed.families.empty());
  changed.families.front().name = "named only in the compiled form";
  return changed;
}

}  // namespace

TEST_CASE("the build embedded the compiled form of the current rule files, and a run decodes it") {
  const std::vector<RuleFile> builtin = session::builtin_rule_files();
  const std::vector<RuleFile> source = files_of(DLLDOCTOR_SOURCE_RULES);
  REQUIRE(builtin.size() == source.size());
  for (std::size_t i = 0; i < builtin.size(); ++i) CHECK(builtin[i].text == source[i].text);
  std::optional<RuleData> decoded = read_compiled_rules(session::kBuiltinCompiledRules, builtin);
  REQUIRE(decoded);
  // The rules as load_rules leaves them (checked across files, the driver minimums in order).
  auto loaded = add_rule_folders(parsed(builtin), {});
  REQUIRE(loaded);
  decoded->files = loaded->files;
  same_rules(builtin, *decoded, *loaded);
  // No folder: the built-in texts, decoded from the bytes given (other bytes, made from the same texts, win).
  CHECK(shipped(std::nullopt, compiled(builtin, marked(builtin))).families.front().name ==
        "named only in the compiled form");
  same_rules(builtin, shipped(std::nullopt, session::kBuiltinCompiledRules), shipped(std::nullopt, ""));
}

TEST_CASE("a rules folder that edits nothing is decoded, with its own paths in the sources") {
  const fs::path folder = copy_of_rules("unchanged");
  const std::vector<RuleFile> files = files_of(folder);
  const RuleData data = shipped(folder, compiled(files, marked(files)));
  CHECK(data.families.front().name == "named only in the compiled form");
  CHECK(data.origin.edited.empty());
  for (const Family& family : data.families) CHECK(family.source.rfind(folder.string() + "/", 0) == 0);
  for (const FindingRule& rule : data.findings) CHECK(rule.source.find("findings.toml:") != std::string::npos);
  same_rules(files, shipped(folder, session::kBuiltinCompiledRules), shipped(folder, ""));
}

TEST_CASE("a rules folder that edits, adds or removes a file is parsed") {
  const fs::path folder = copy_of_rules("edited");
  const std::string bytes = compiled(files_of(folder), marked(files_of(folder)));
  SUBCASE("a rule file edited") { std::ofstream(folder / "cuda.toml", std::ios::app) << "# edited\n"; }
  SUBCASE("a rule file added") { put(folder / "zz_more.toml", "# nothing yet\n"); }
  SUBCASE("a rule file removed") { fs::remove(folder / "tensorrt.toml"); }
  const RuleData data = shipped(folder, bytes);
  CHECK(data.families.front().name != "named only in the compiled form");
  CHECK(!data.origin.edited.empty());
  same_rules(files_of(folder), data, shipped(folder, ""));
}

TEST_CASE("cut compiled rules, or another layout's, are not read, and the TOML gives the rules") {
  const std::vector<RuleFile> builtin = session::builtin_rule_files();
  const std::string bytes = compiled(builtin, marked(builtin));
  REQUIRE(read_compiled_rules(bytes, builtin));
  int rejected = 0;
  for (std::size_t at = 0; at < bytes.size(); at += bytes.size() / 97 + 1) {
    const bool read_cut = read_compiled_rules(std::string_view(bytes).substr(0, at), builtin).has_value();
    CHECK_FALSE(read_cut);
    rejected += !read_cut;
  }
  CHECK(rejected > 90);
  CHECK_FALSE(read_compiled_rules(bytes + "x", builtin));
  // The magic and the layout (the rule structs' members, by type) come first: a byte changed there is
  // another build's form.
  // Each is a text: its length in 8 bytes (little-endian), then its bytes.
  const auto text_end = [&](std::size_t at) {
    std::uint64_t size = 0;
    for (int i = 0; i < 8; ++i) size |= std::uint64_t(static_cast<unsigned char>(bytes.at(at + i))) << (8 * i);
    return at + 8 + size;
  };
  const std::size_t header_end = text_end(text_end(0));
  REQUIRE(header_end < bytes.size());
  for (std::size_t at = 0; at < header_end; at += header_end / 150 + 1) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
    CHECK_FALSE(read_compiled_rules(flipped, builtin));
  }
  same_rules(builtin, shipped(std::nullopt, std::string_view(bytes).substr(0, bytes.size() / 2)),
             shipped(std::nullopt, ""));
}

TEST_CASE("the decoder of the rules part checks every length, count, index and value, whatever the bytes") {
  // On the rules part alone: changed bytes decode to other rules or are refused, never read past the end
  // (this runs under ASan); a cut is always refused.
  const std::vector<RuleFile> files = files_of(copy_of_rules("payload"));
  auto payload = compile_rules_payload(parsed(files), files);
  REQUIRE(payload);
  std::optional<RuleData> decoded = read_compiled_payload(*payload, files);
  REQUIRE(decoded);
  CHECK(compile_rules_payload(*decoded, files).value() == *payload);
  int refused = 0, read = 0;
  for (std::size_t at = 0; at < payload->size(); at += payload->size() / 499 + 1) {
    for (const int change : {0x01, 0x80, 0xff}) {
      std::string changed = *payload;
      changed[at] = static_cast<char>(static_cast<unsigned char>(changed[at]) ^ change);
      (read_compiled_payload(changed, files) ? read : refused) += 1;
    }
    CHECK_FALSE(read_compiled_payload(std::string_view(*payload).substr(0, at), files));
  }
  CHECK(refused > 300);  // lengths, counts, flags, enums and source indices out of range
  CHECK(read > 100);     // a changed letter of a text is still a text
  // A source names a file by its index: one more file than the folder has is refused.
  std::vector<RuleFile> fewer(files.begin(), files.end() - 1);
  CHECK_FALSE(read_compiled_payload(*payload, fewer));
}
