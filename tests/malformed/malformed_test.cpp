// The reader against hostile files: every case that fixtures/malformed/make_malformed wrote, checked
// against the outcome listed in its cases.tsv (format: the header comment of make_malformed.cpp).
//
//   malformed_tests [FOLDER] [doctest options]      FOLDER defaults to $DLLDOCTOR_MALFORMED_DIR
//
// The generator has its own header navigation, so a misreading shared with src/pe cannot hide here.
// Cases listed in known_failures.txt ("<case> <reason>") are checked inverted: they must still misread,
// and one that starts reading right fails the test so that the list stays true.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/pe/reader.hpp"
#include "dlldoctor/report/image_report.hpp"

namespace {

namespace fs = std::filesystem;
using dlldoctor::BoundedReader;
using dlldoctor::Result;
using dlldoctor::pe::Image;

// Set once by main() before any test runs; doctest gives test cases no other way to receive arguments.
fs::path& folder() {
  static fs::path path;
  return path;
}

using Bytes = std::vector<std::uint8_t>;

Bytes read_bytes(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE_MESSAGE(f, "cannot open " << path.string());
  return Bytes(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

Result<Image> read(const Bytes& bytes, const dlldoctor::pe::ReadParts& parts = {},
                   const dlldoctor::pe::ReadLimits& limits = {}) {
  return dlldoctor::pe::read_image(BoundedReader(bytes.data(), bytes.size()), parts, limits);
}

struct Row {
  std::string file, source, expect;
  std::vector<std::string> checks;
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
  return parts;
}

std::vector<Row> load_cases() {
  std::ifstream tsv(folder() / "cases.tsv");
  REQUIRE_MESSAGE(tsv, "no cases.tsv in " << folder().string() << " (build the malformed_fixtures target)");
  std::vector<Row> rows;
  for (std::string line; std::getline(tsv, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto fields = split(line, '\t');
    REQUIRE_MESSAGE(fields.size() == 4, "bad cases.tsv line: " << line);
    Row row{fields[0], fields[1], fields[2], {}};
    if (fields[3] != "-") row.checks = split(fields[3], ',');
    rows.push_back(std::move(row));
  }
  return rows;
}

// Parts rendered as text, so a mismatch prints both sides readably.
std::string describe_imports(const std::vector<dlldoctor::pe::ImportedDll>& dlls, bool with_dll_names,
                             bool with_rva_based) {
  std::string out;
  for (const auto& dll : dlls) {
    out += with_dll_names ? dll.dll : std::string("*");
    if (with_rva_based) out += dll.rva_based ? " (rva)" : " (va)";
    out += ":";
    for (const auto& f : dll.functions) {
      out += " " + (f.name ? *f.name + "/" + std::to_string(f.hint) : "#" + std::to_string(f.ordinal.value_or(0)));
    }
    out += "\n";
  }
  return out;
}

std::string describe_exports(const Image& image) {
  if (!image.exports) return "(none)";
  std::string out = image.exports->dll_name + " base " + std::to_string(image.exports->ordinal_base) + "\n";
  for (const auto& item : image.exports->items) {
    out += std::to_string(item.ordinal) + " " + std::string(item.name.value_or("-")) + " " + std::to_string(item.rva) +
           " " + (item.forwarder ? item.forwarder->text : std::string("-")) + "\n";
  }
  return out;
}

std::string describe_version(const Image& image) {
  return (image.file_version ? image.file_version->to_string() : "-") + " " +
         (image.product_version ? image.product_version->to_string() : "-");
}

std::string describe_strings(const Image& image) {
  std::string out;
  for (const auto& [key, value] : image.strings) out += key + "=" + value + "\n";
  return out;
}

bool any_warning_contains(const Image& image, const std::string& text) {
  for (const auto& w : image.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

// A difference between two renderings of one part, or "" when they agree.
std::string differs(const std::string& what, const std::string& got, const std::string& expected) {
  return got == expected ? "" : what + " differs:\n--- read\n" + got + "\n--- expected\n" + expected;
}

std::string check_same(const std::string& part, const Image& image, const Image& source) {
  const std::string what = "same:" + part;
  if (part == "imports") {
    return differs(what, describe_imports(image.imports, true, false), describe_imports(source.imports, true, false));
  } else if (part == "import_functions") {
    return differs(what, describe_imports(image.imports, false, false), describe_imports(source.imports, false, false));
  } else if (part == "exports") {
    return differs(what, describe_exports(image), describe_exports(source));
  } else if (part == "delay") {
    return differs(what, describe_imports(image.delay_imports, true, true),
                   describe_imports(source.delay_imports, true, true));
  } else if (part == "delay_functions") {
    if (source.delay_imports.empty()) return what + ": the source has no delay imports";
    return differs(what, describe_imports(image.delay_imports, true, false),
                   describe_imports(source.delay_imports, true, false));
  } else if (part == "version") {
    return differs(what, describe_version(image), describe_version(source));
  } else if (part == "strings") {
    return differs(what, describe_strings(image), describe_strings(source));
  } else if (part == "manifest") {
    return differs(what, image.manifest.value_or("(none)"), source.manifest.value_or("(none)"));
  }
  FAIL("unknown part in cases.tsv: " << part);
  return "";
}

std::string check_fact(const std::string& key, const std::string& value, const Image& image) {
  const std::string what = key + "=" + value;
  auto expect = [&what](bool holds, const std::string& got) { return holds ? "" : what + " does not hold: " + got; };
  if (key == "imports") {
    return expect(std::to_string(image.imports.size()) == value, std::to_string(image.imports.size()) + " DLLs");
  } else if (key == "delay") {
    return expect(std::to_string(image.delay_imports.size()) == value,
                  std::to_string(image.delay_imports.size()) + " DLLs");
  } else if (key == "exports") {
    return expect(image.exports.has_value() == (value == "present"), image.exports ? "present" : "none");
  } else if (key == "version") {
    REQUIRE(value == "none");
    return expect(!image.file_version, image.file_version ? image.file_version->to_string() : "");
  } else if (key == "machine") {
    return expect(dlldoctor::pe::machine_name(image.machine) == value, dlldoctor::pe::machine_name(image.machine));
  } else if (key == "signed") {
    return expect(image.is_signed == (value == "1"), image.is_signed ? "signed" : "not signed");
  } else if (key == "clr") {
    return expect(image.has_clr == (value == "1"), image.has_clr ? "CLR" : "no CLR");
  } else if (key == "bound") {
    bool found = false;
    for (const auto& b : image.bound_imports) found = found || b.dll == value;
    return expect(found, "no bound import of " + value);
  } else if (key == "bound_timestamp") {
    bool all = !image.bound_imports.empty();
    for (const auto& b : image.bound_imports) all = all && fmt::format("{:#x}", b.timestamp) == value;
    return expect(all, std::to_string(image.bound_imports.size()) + " bound imports");
  } else if (key == "bound_forwarder") {
    bool found = false;
    for (const auto& b : image.bound_imports) {
      found = found || std::find(b.forwarder_dlls.begin(), b.forwarder_dlls.end(), value) != b.forwarder_dlls.end();
    }
    return expect(found, "no bound import forwards to " + value);
  } else if (key == "first_import") {
    if (image.imports.empty() || image.imports[0].functions.empty()) return what + ": no imported function";
    const auto& f = image.imports[0].functions[0];
    const std::string got =
        image.imports[0].dll + "!" + (f.name ? *f.name : "#" + std::to_string(f.ordinal.value_or(0)));
    return expect(got == value, got);
  } else if (key == "forwarder") {
    bool found = false;
    if (image.exports) {
      for (const auto& item : image.exports->items) found = found || (item.forwarder && item.forwarder->text == value);
    }
    return expect(found, "no export forwards to " + value);
  } else if (key == "delay_rva_based") {
    bool all = !image.delay_imports.empty();
    for (const auto& dll : image.delay_imports) all = all && dll.rva_based == (value == "1");
    return expect(all, std::to_string(image.delay_imports.size()) + " delay-imported DLLs");
  } else if (key == "cut_short") {
    const auto& cut = image.cut_short;
    const std::string got =
        cut ? fmt::format("the loader expects {} bytes, the file has {}", cut->described_size, cut->file_size)
            : "not cut short";
    if (value == "no") return expect(!cut, got);
    if (value == "yes") return expect(cut && cut->file_size == image.file_size, got);
    return expect(cut && std::to_string(cut->described_size) == value && cut->file_size == image.file_size, got);
  }
  FAIL("unknown check in cases.tsv: " << key);
  return "";
}

// Every way the image read from a case differs from what its cases.tsv row expects; empty when none.
std::vector<std::string> mismatches(const Row& row, const Result<Image>& image, const Image& source) {
  const std::string kind = row.expect.substr(0, row.expect.find(':'));
  const std::string text = row.expect.find(':') == std::string::npos ? "" : row.expect.substr(row.expect.find(':') + 1);
  if (kind == "error") {
    if (image.ok()) return {"read_image succeeded; expected an error containing '" + text + "'"};
    if (image.error().message.find(text) == std::string::npos) return {"error was: " + image.error().message};
    return {};
  }
  if (!image.ok()) return {"read_image failed: " + image.error().message};
  std::vector<std::string> out;
  std::string warnings;
  for (const auto& w : image->warnings) warnings += "\n  " + w;
  if (kind == "ok" && !image->warnings.empty()) out.push_back("expected no warnings, got:" + warnings);
  if (kind == "warning" && !any_warning_contains(*image, text))
    out.push_back("no warning contains '" + text + "'; warnings:" + warnings);
  REQUIRE_MESSAGE((kind == "ok" || kind == "warning" || kind == "loaded"), "unknown expectation " << row.expect);
  for (const std::string& check : row.checks) {
    const auto colon = check.find(':');
    const auto equals = check.find('=');
    std::string problem;
    if (colon != std::string::npos && (equals == std::string::npos || colon < equals)) {
      REQUIRE(check.substr(0, colon) == "same");
      problem = check_same(check.substr(colon + 1), *image, source);
    } else {
      REQUIRE_MESSAGE(equals != std::string::npos, "bad check " << check);
      problem = check_fact(check.substr(0, equals), check.substr(equals + 1), *image);
    }
    if (!problem.empty()) out.push_back(problem);
  }
  return out;
}

// known_failures.txt: case name -> reason.
std::map<std::string, std::string> known_failures() {
  std::ifstream in(DLLDOCTOR_MALFORMED_KNOWN_FAILURES);
  REQUIRE_MESSAGE(in, "cannot read " DLLDOCTOR_MALFORMED_KNOWN_FAILURES);
  std::map<std::string, std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (line.find('#') != std::string::npos) line.erase(line.find('#'));
    std::istringstream words(line);
    std::string name, reason;
    if (!(words >> name)) continue;
    std::getline(words >> std::ws, reason);
    REQUIRE_MESSAGE(!reason.empty(), "known_failures.txt: " << name << " has no reason");
    out[name] = reason;
  }
  return out;
}

// What the CLI does with an image: both renderings must cope with whatever the reader let through
// (garbage names are not UTF-8: the JSON must still be valid JSON).
void render(const Image& image) {
  const std::string json = dlldoctor::report::image_json_text("case", image);
  CHECK(nlohmann::json::accept(json));
  std::string text;
  dlldoctor::report::append_image_text(text, "case", image);
  CHECK(!text.empty());
}

TEST_CASE("cases.tsv and the folder agree") {
  const auto rows = load_cases();
  // The generator makes about 60 cases from our fixtures; far fewer means it skipped or lost some.
  CHECK(rows.size() >= 50);
  std::set<std::string> listed;
  for (const Row& row : rows) {
    listed.insert(row.file);
    CHECK_MESSAGE(fs::is_regular_file(folder() / row.file), row.file << " is listed but missing");
    CHECK_MESSAGE(fs::is_regular_file(folder() / row.source), row.source << " is listed but missing");
  }
  for (const auto& entry : fs::directory_iterator(folder())) {
    const std::string name = entry.path().filename().string();
    if (name != "cases.tsv") CHECK_MESSAGE(listed.count(name) == 1, name << " is not in cases.tsv");
  }
}

TEST_CASE("each malformed file reads as cases.tsv expects, and the undamaged parts survive") {
  const auto known = known_failures();
  for (const Row& row : load_cases()) {
    INFO("case " << row.file << " (expect " << row.expect << ")");
    const auto image = read(read_bytes(folder() / row.file));
    const auto source = read(read_bytes(folder() / row.source));
    REQUIRE(source.ok());
    const auto problems = mismatches(row, image, *source);
    const auto listed = known.find(row.file);
    if (listed != known.end()) {
      CHECK_MESSAGE(!problems.empty(), row.file << " reads as cases.tsv expects now: remove it from "
                                                   "known_failures.txt (listed as: "
                                                << listed->second << ")");
      for (const auto& p : problems) MESSAGE("known failure " << row.file << " (" << listed->second << "): " << p);
    } else {
      for (const auto& p : problems) FAIL_CHECK(p);
    }
    if (image.ok()) render(*image);
  }
}

TEST_CASE("every entry of known_failures.txt names a case") {
  std::set<std::string> names;
  for (const Row& row : load_cases()) names.insert(row.file);
  for (const auto& [name, reason] : known_failures())
    CHECK_MESSAGE(names.count(name) == 1, "known_failures.txt lists " << name << ", which is not in cases.tsv");
}

TEST_CASE("the headers decide success alone: switching parts off or shrinking the limits changes no outcome") {
  dlldoctor::pe::ReadLimits tiny;
  tiny.max_import_dlls = 1;
  tiny.max_import_functions = 1;
  tiny.max_exports = 1;
  tiny.max_name_length = 4;
  tiny.max_resource_entries = 1;
  tiny.max_manifest_bytes = 1;
  for (const Row& row : load_cases()) {
    INFO("case " << row.file);
    const Bytes bytes = read_bytes(folder() / row.file);
    const bool expect_error = row.expect.rfind("error:", 0) == 0;
    const auto headers_only = read(bytes, {false, false, false});
    CHECK(headers_only.ok() == !expect_error);
    if (headers_only.ok()) {
      CHECK(headers_only->imports.empty());
      CHECK_FALSE(headers_only->exports);
      CHECK_FALSE(headers_only->file_version);
    }
    const auto limited = read(bytes, {}, tiny);
    CHECK(limited.ok() == !expect_error);
    if (limited.ok()) {
      CHECK(limited->imports.size() <= 1);
      if (limited->exports) CHECK(limited->exports->items.size() <= 1);
      render(*limited);
    }
  }
}

// Cuts each source file at every length: the result may only go from "error" to "read" once, as the
// last header byte comes in, and never back.
TEST_CASE("a source file cut at every length fails only while its headers are incomplete") {
  std::set<std::string> sources;
  for (const Row& row : load_cases()) sources.insert(row.source);
  for (const std::string& source : sources) {
    INFO("source " << source);
    const Bytes whole = read_bytes(folder() / source);
    REQUIRE(read(whole).ok());
    std::size_t first_ok = whole.size();
    std::size_t failures_after = 0;
    for (std::size_t n = 0; n <= whole.size(); ++n) {
      // A copy of exactly n bytes, so that AddressSanitizer sees any read past the cut.
      const Bytes prefix(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n));
      const auto image = read(prefix);
      if (image.ok() && first_ok == whole.size()) first_ok = n;
      if (!image.ok() && n > first_ok) ++failures_after;
    }
    CHECK(failures_after == 0);
    // Readable as soon as SizeOfHeaders (optional header offset 60) is in: from there the loader knows what it
    // maps as headers, and reads zeros for what the file lacks of them.
    const std::size_t pe = whole[0x3c] | (whole[0x3d] << 8) | (whole[0x3e] << 16) | (std::size_t{whole[0x3f]} << 24);
    CHECK(first_ok == pe + 24 + 64);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The first argument that is not an option names the folder; the rest go to doctest.
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (folder().empty() && argv[i][0] != '-') {
      folder() = argv[i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (folder().empty()) {
    if (const char* env = std::getenv("DLLDOCTOR_MALFORMED_DIR")) folder() = env;
  }
  if (folder().empty()) {
    std::fprintf(stderr, "usage: malformed_tests FOLDER [doctest options] (or set DLLDOCTOR_MALFORMED_DIR)\n");
    return 2;
  }
  doctest::Context context;
  context.applyCommandLine(static_cast<int>(rest.size()), rest.data());
  return context.run();
}
