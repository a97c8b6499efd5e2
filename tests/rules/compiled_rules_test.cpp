// The rules compiled at build time and built into the binary: decoded instead of the TOML exactly while the
// texts are the built-in ones (no rules folder beside the binary, or one that edits nothing), with the
// files' own paths in their sources; anything else (an edited, added or removed file, another layout's or
// cut bytes) and the TOML is parsed, with the same result. That the embedded form was made from the embedded
// texts is the build's check (rules_embed_refuses_other_texts).
#include "rules/compiled_rules.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <thread>
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
  const std::string marked_bytes = compiled(builtin, marked(builtin));  // the rules keep views into them
  CHECK(shipped(std::nullopt, marked_bytes).families.front().name == "named only in the compiled form");
  same_rules(builtin, shipped(std::nullopt, session::kBuiltinCompiledRules), shipped(std::nullopt, ""));
}

TEST_CASE("the built-in findings' rules, unpacked when asked for, are the rules the TOML gives") {
  const std::vector<RuleFile> builtin = session::builtin_rule_files();
  std::optional<RuleData> decoded = read_compiled_rules(session::kBuiltinCompiledRules, builtin);
  REQUIRE(decoded);
  const RuleData loaded = parsed(builtin);
  REQUIRE(decoded->findings.size() == loaded.findings.size());
  // A copy made while they are packed unpacks its own.
  const RuleData copy = *decoded;
  for (std::size_t i = 0; i < loaded.findings.size(); ++i) {
    const FindingRule& rule = decoded->findings[i];
    CHECK(decoded->finding(loaded.findings[i].id) == &rule);
    CHECK(rule.id == loaded.findings[i].id);
    CHECK(rule.messages == loaded.findings[i].messages);
    CHECK(rule.fixes == loaded.findings[i].fixes);
    CHECK(rule.source == loaded.findings[i].source);
    CHECK(copy.findings[i].messages == rule.messages);
  }
  CHECK(decoded->finding("no-such-finding") == nullptr);
  // A copy made once they are unpacked, and a copy of parsed rules, hold the same rules.
  const RuleData later = *decoded;
  same_rules(builtin, later, *decoded);
  const RuleData parsed_copy = loaded;
  same_rules(builtin, parsed_copy, loaded);
}

TEST_CASE("a packed finding rule is unpacked once, by whichever thread asks first; a copy unpacks its own") {
  std::atomic<int> unpacked{0};
  const auto unpack = std::make_shared<const FindingRules::Unpack>([&unpacked](std::string_view packed) {
    ++unpacked;
    FindingRule rule;
    rule.id = std::string(packed);
    rule.title = "unpacked";
    return rule;
  });
  FindingRules rules;
  rules.push_back_packed("first", "first", unpack);
  rules.push_back_packed("second", "second", unpack);
  FindingRule given;
  given.id = "given";
  rules.push_back(given);
  const FindingRules copy = rules;  // taken while both are packed
  CHECK(unpacked == 0);
  std::vector<const FindingRule*> seen(8);
  std::vector<std::thread> threads;
  for (auto& mine : seen) threads.emplace_back([&rules, &mine] { mine = rules.find("second"); });
  for (std::thread& thread : threads) thread.join();
  CHECK(unpacked == 1);
  for (const FindingRule* rule : seen) CHECK(rule == seen.front());
  REQUIRE(seen.front());
  CHECK(seen.front()->title == "unpacked");
  CHECK(rules.find("given")->id == "given");
  CHECK(unpacked == 1);  // a rule given whole is never unpacked
  CHECK(rules.find("none") == nullptr);
  CHECK(copy.find("second")->title == "unpacked");
  CHECK(unpacked == 2);
  CHECK(rules.find("first")->id == "first");
  const FindingRules later = rules;  // the unpacked rule stays packed in a copy: it is unpacked there again
  CHECK(later.find("first")->id == "first");
  CHECK(unpacked == 4);
  CHECK(&later[0] != &rules[0]);
}

TEST_CASE("a rules folder that edits nothing is decoded, with its own paths in the sources") {
  const fs::path folder = copy_of_rules("unchanged");
  const std::vector<RuleFile> files = files_of(folder);
  const std::string bytes = compiled(files, marked(files));  // the findings' rules are unpacked from them
  const RuleData data = shipped(folder, bytes);
  CHECK(data.families.front().name == "named only in the compiled form");
  CHECK(data.origin.edited.empty());
  for (const Family& family : data.families) CHECK(family.source.rfind(folder.string() + "/", 0) == 0);
  REQUIRE(!data.findings.empty());
  for (std::size_t i = 0; i < data.findings.size(); ++i)
    CHECK(data.findings[i].source.rfind(folder.string() + "/findings.toml:", 0) == 0);
  same_rules(files, shipped(folder, session::kBuiltinCompiledRules), shipped(folder, ""));
}

TEST_CASE("a rules folder that edits, adds or removes a file is parsed") {
  const fs::path folder = copy_of_rules("edited");
  const std::string bytes = compiled(files_of(folder), marked(files_of(folder)));
  SUBCASE("a rule file edited") { std::ofstream(folder / "cuda.toml", std::ios::app) << "# edited\n"; }
  SUBCASE("a rule file edited, its size kept, past the first pieces compared") {
    std::ifstream in(folder / "findings.toml", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    const std::size_t comment = text.rfind("\n# ");  // the last comment line: any letter will do there
    REQUIRE(comment != std::string::npos);
    REQUIRE(comment > 3 * 16384);
    text[comment + 3] = text[comment + 3] == 'x' ? 'y' : 'x';
    put(folder / "findings.toml", text);
  }
  SUBCASE("a rule file added") { put(folder / "zz_more.toml", "# nothing yet\n"); }
  SUBCASE("a rule file removed") { fs::remove(folder / "tensorrt.toml"); }
  const RuleData data = shipped(folder, bytes);
  CHECK(data.families.front().name != "named only in the compiled form");
  CHECK(!data.origin.edited.empty());
  same_rules(files_of(folder), data, shipped(folder, ""));
}

TEST_CASE("a rules folder with a rule file that cannot be read is refused, saying which") {
  const fs::path folder = copy_of_rules("unreadable");
  fs::remove(folder / "cuda.toml");
  fs::create_directory(folder / "cuda.toml");  // a built-in name: compared with the built-in text, it fails
  auto data = session::load_rules_from(folder.string(), {}, session::kBuiltinCompiledRules);
  REQUIRE_FALSE(data);
  CHECK(data.error().message == (folder / "cuda.toml").string() + ": cannot read");
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
      const std::optional<RuleData> again = read_compiled_payload(changed, files);
      (again ? read : refused) += 1;
      // The findings' rules, checked when read and unpacked when asked for: each unpacks.
      for (std::size_t i = 0; again && i < again->findings.size(); ++i) CHECK(!again->findings[i].id.empty());
    }
    CHECK_FALSE(read_compiled_payload(std::string_view(*payload).substr(0, at), files));
  }
  CHECK(refused > 300);  // lengths, counts, flags, enums and source indices out of range
  CHECK(read > 100);     // a changed letter of a text is still a text
  // A source names a file by its index: one more file than the folder has is refused.
  std::vector<RuleFile> fewer(files.begin(), files.end() - 1);
  CHECK_FALSE(read_compiled_payload(*payload, fewer));
}
