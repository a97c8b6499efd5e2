// `dlldoctor --scan` through the real CLI on trees built here from the fixtures: grouping, identical and
// hard-linked copies, backups, folders that mix generations or releases, links that loop or lead out of
// the tree, folders and files it cannot read, names that are not UTF-8, which copy a process would load;
// the three formats, -o, the progress line, the exit status, byte-stable JSON that matches
// docs/scan-schema.json, and a tree left as it was.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/run_process.hpp"
#include "support/text_columns.hpp"

namespace fs = std::filesystem;
using dlldoctor::test::run_process;
using nlohmann::json;

namespace {

const fs::path kFixtures = DLLDOCTOR_FIXTURES_DIR;
const std::string kDlldoctor = DLLDOCTOR_BINARY;
const fs::path kWork = DLLDOCTOR_SCAN_WORK_DIR;

void place(const std::string& fixture, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(kFixtures / fixture, to, fs::copy_options::overwrite_existing);
}

// C:\ of a machine that went through a few cuDNN installs.
fs::path build_tree() {
  const fs::path root = kWork / "disk";
  fs::remove_all(root);
  place("x64/cudnn64_9.dll", root / "tools/cudnn-9.1/bin/cudnn64_9.dll");
  place("x64/cudnn_ops64_9.dll", root / "tools/cudnn-9.1/bin/cudnn_ops64_9.dll");
  place("x64/cudnn-9.0/cudnn64_9.dll", root / "CUDA/v12.4/bin/cudnn64_9.dll");
  place("x64/cudnn64_8.dll", root / "CUDA/v12.4/bin/cudnn64_8.dll");  // 8 and 9 in one folder
  place("x64/cudnn64_9.dll", root / "CUDA/v12.4/bin/cudnn64_9.dll.bak");
  place("x64/cudnn64_9.dll", root / "deep/a/b/c/d/e/f/CUDNN64_9.DLL");  // a twin of the 9.1 copy
  fs::create_directories(root / "hardlinked");
  fs::create_hard_link(root / "tools/cudnn-9.1/bin/cudnn_ops64_9.dll", root / "hardlinked/cudnn_ops64_9.dll");
  place("x64/zlibwapi.dll", root / "tools/zlib/zlibwapi.dll");
  place("x64/zlibwapi.dll", root / "pipe|dir/zlibwapi.dll");  // a '|' must not break a Markdown table
  place("x64/marker.dll", root / "other/marker.dll");         // not a family member: only with --all-dlls
  fs::create_directories(root / "quarantine");
  std::ofstream(root / "quarantine/cudnn_cnn64_9.dll") << "";  // what an antivirus leaves
  std::ofstream(root / "notes.txt") << "not a DLL";
  fs::create_directories(root / "loop");
  fs::create_directory_symlink("..", root / "loop/up");  // must not be followed
  fs::create_symlink(root / "tools/cudnn-9.1/bin/cudnn64_9.dll", root / "other/link_to_cudnn64_9.dll");
  fs::create_directories(root / "locked");
  place("x64/cudnn64_9.dll", root / "locked/cudnn64_9.dll");
  fs::permissions(root / "locked", fs::perms::none);
  place("x64/cudnn_adv64_9.dll", root / "private/cudnn_adv64_9.dll");
  fs::permissions(root / "private/cudnn_adv64_9.dll", fs::perms::none);  // listed, but not for reading
  const std::string bad_name = "bad\xff\xfe";
  place("x64/cudnn_graph64_9.dll", root / bad_name / "cudnn_graph64_9.dll");
  // The scan may run as an unprivileged user (below), who must be able to reach everything else.
  for (const auto& entry : fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied)) {
    if (entry.is_directory() && entry.path().filename() != "locked") {
      fs::permissions(entry.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                        fs::perms::others_read | fs::perms::others_exec);
    }
  }
  fs::permissions(root, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  return root;
}

// Every JSON scan printed by this run, for the schema check at the end.
std::vector<fs::path> g_json_outputs;

// Root reads every folder whatever its mode; the scan runs as "nobody" then, so a locked folder is one.
dlldoctor::test::ProcessResult scan(std::vector<std::string> args) {
  std::vector<std::string> argv;
  if (geteuid() == 0) argv = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  argv.push_back(kDlldoctor);
  argv.insert(argv.end(), args.begin(), args.end());
  auto result = run_process(argv);
  const auto format = std::find(args.begin(), args.end(), "--format");
  if (format != args.end() && format + 1 != args.end() && format[1] == "json" && !result.out.empty()) {
    fs::create_directories(kWork / "json");
    g_json_outputs.push_back(kWork / "json" / (std::to_string(g_json_outputs.size()) + ".json"));
    std::ofstream(g_json_outputs.back(), std::ios::binary) << result.out;
  }
  return result;
}

// The JSON of a scan with the one field that changes between runs taken out.
std::string without_time(std::string text) {
  const auto at = text.find("\"generated_at\"");
  REQUIRE(at != std::string::npos);
  return text.erase(at, text.find('\n', at) - at);
}

// A text line about a path: `whole`, or where that passes 80 columns, `shorter` with the path alone below.
bool says_about(const std::string& text, const std::string& whole, const std::string& shorter,
                const std::string& path) {
  return text.find(whole + "\n") != std::string::npos ||
         text.find(shorter + "\n    " + path + "\n") != std::string::npos;
}

const json* group(const json& report, const std::string& name) {
  for (const auto& dll : report["dlls"]) {
    if (dll["name"] == name) return &dll;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("scan groups every copy of the families by name, with versions, twins and hard links") {
  const fs::path root = build_tree();
  fs::permissions(kWork, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  const auto result = scan({"--scan", root.string(), "--format", "json"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const json report = json::parse(result.out);
  CHECK(report["schema"] == "dlldoctor.scan/1");

  const json* main = group(report, "cudnn64_9.dll");
  REQUIRE(main);
  CHECK(main->at("family") == "cudnn9");
  CHECK(main->at("versions") == json({"9.0.0.312", "9.1.0.70"}));
  // tools/cudnn-9.1, CUDA/v12.4, the deep twin and the .bak; never the copy behind the link, nor the
  // locked folder's.
  CHECK(main->at("copies").size() == 4);
  bool backup_seen = false;
  for (const auto& copy : main->at("copies")) {
    const std::string path = copy["path"];
    CHECK(path.find("link_to") == std::string::npos);
    CHECK(path.find("locked") == std::string::npos);
    if (path.find(".bak") != std::string::npos) backup_seen = copy["backup"] == true;
  }
  CHECK(backup_seen);
  REQUIRE(main->at("identical").size() == 1);
  CHECK(main->at("identical")[0].size() == 3);  // the 9.1 copy, its twin deep down and the .bak of it

  const json* ops = group(report, "cudnn_ops64_9.dll");
  REQUIRE(ops);
  REQUIRE(ops->at("identical").size() == 1);  // the hard link
  CHECK(ops->at("identical")[0].size() == 2);

  const json* cnn = group(report, "cudnn_cnn64_9.dll");
  REQUIRE(cnn);
  CHECK(cnn->at("copies")[0]["error"] == "the file is empty");

  CHECK_FALSE(group(report, "marker.dll"));
  CHECK(report["counts"]["unreadable_folders"] == 1);
  CHECK(report["counts"]["invalid_names"].get<int>() >= 1);
  CHECK(report["backups"].size() == 1);
  bool mixed = false;
  for (const auto& m : report["mixed_folders"]) {
    mixed |= m["folder"].get<std::string>().find("v12.4/bin") != std::string::npos &&
             m["mixes"].get<std::string>().find("cuDNN 8") != std::string::npos;
  }
  CHECK(mixed);
  for (const auto& family : report["families"]) {
    if (family["id"] == "cudnn9") CHECK(family["multiple_versions"] == true);
  }
}

TEST_CASE("scan --all-dlls reports every DLL; with --path it says which copy loads") {
  const fs::path root = build_tree();
  const auto all = scan({"--scan", root.string(), "--all-dlls", "--format", "json"});
  REQUIRE(all.exit_code == 0);
  CHECK(group(json::parse(all.out), "marker.dll"));

  const auto searched = scan({"--scan", root.string(), "--format", "json", "--path",
                              (root / "CUDA/v12.4/bin").string() + ";" + (root / "tools/cudnn-9.1/bin").string()});
  // With a PATH the scan judges what a new process loads: the 9.0 dispatcher first, with the 9.1 zip's
  // siblings after it and the rest of them nowhere.
  REQUIRE(searched.exit_code == 1);
  const json report = json::parse(searched.out);
  CHECK(report["search"].is_string());
  bool judged = false;
  for (const json& finding : report["findings"])
    judged = judged || (finding["id"] == "mixed-family-versions" && !finding["processes"].empty());
  CHECK(judged);
  for (const auto& copy : group(report, "cudnn64_9.dll")->at("copies")) {
    const std::string path = copy["path"];
    if (path.find("CUDA/v12.4/bin/cudnn64_9.dll") != std::string::npos && path.find(".bak") == std::string::npos) {
      CHECK(copy["search"] == "loads");
    } else if (path.find("tools/cudnn-9.1") != std::string::npos) {
      CHECK(copy["search"] == "shadowed");
    } else {
      CHECK(copy["search"] == "not on the search path");
    }
  }
}

TEST_CASE("scan text output, and bad roots") {
  const fs::path root = build_tree();
  const auto text = scan({"--scan", root.string()});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("cuDNN 9: 9.0.0.312, 9.1.0.70 (more than one version on this disk)") != std::string::npos);
  // The rule engine's finding, generations oldest first, with its fix.
  const std::size_t mixes = text.out.find("mixes cuDNN 8 and cuDNN 9");
  CHECK(mixes != std::string::npos);
  CHECK(text.out.find("\n  [mixed-generations-folder] fix:\n    # keep each generation in its own folder", mixes) !=
        std::string::npos);
  const std::string backup = (root / "CUDA/v12.4/bin/cudnn64_9.dll.bak").string();
  CHECK(says_about(text.out, "backup copy: " + backup + " (9.1.0.70)", "backup copy (9.1.0.70):", backup));
  CHECK(text.out.find("1 folders could not be read") != std::string::npos);
  const auto missing = scan({"--scan", (root / "no-such-folder").string()});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("no such folder") != std::string::npos);
}

// Every line fits in 80 columns, or is a path alone on its own line under the line that says what it is,
// a fix command (it must paste as one line; its comments wrap) or a line of what the user sees (kept whole,
// so that a search for the pasted text finds it), as in a program's report.
void check_80_columns(const std::string& text) {
  std::istringstream lines(text);
  bool in_fix = false, in_says = false;
  for (std::string line; std::getline(lines, line);) {
    const bool folder_fix =
        line.rfind("  [", 0) == 0 && line.size() > 5 && line.compare(line.size() - 5, 5, " fix:") == 0;
    if (folder_fix || line == "  fix:") {
      in_fix = true;
      in_says = false;
      continue;
    }
    if (line.rfind("  what you see", 0) == 0) {
      in_says = true;
      continue;
    }
    in_fix = in_fix && line.rfind("    ", 0) == 0;
    in_says = in_says && line.rfind("    ", 0) == 0;
    if (dlldoctor::test::columns(line) <= 80) continue;
    const bool command = in_fix && line.rfind("    #", 0) != 0;
    CHECK_MESSAGE((command || in_says || (line.rfind("    /", 0) == 0 && line.find(' ', 4) == std::string::npos)),
                  line);
  }
}

TEST_CASE("scan text: readable at 80 columns, one layout per table, names printed harmless") {
  const fs::path root = build_tree();
  const auto deep = scan({"--scan", root.string()});
  REQUIRE(deep.exit_code == 0);
  check_80_columns(deep.out);
  // The paths of this tree do not fit beside the columns: each goes on its own line under its row.
  CHECK(deep.out.find("  9.0.0.312      x64           14336\n    " + (root / "CUDA/v12.4/bin/cudnn64_9.dll").string() +
                      "\n") != std::string::npos);
  CHECK(deep.out.find("  -              -                 0  [the file is empty]\n    " +
                      (root / "quarantine/cudnn_cnn64_9.dll").string() + "\n") != std::string::npos);
  CHECK(deep.out.find("bad\\xff\\xfe/cudnn_graph64_9.dll\n") != std::string::npos);
  CHECK(deep.out.find("bad\xff") == std::string::npos);

  // Short paths stay on the row; a control character in a name is escaped, not sent to the terminal.
  std::string made = "/tmp/ddscan-XXXXXX";  // short on every machine, unlike the build folder
  REQUIRE(mkdtemp(made.data()));
  const fs::path shallow = made;
  fs::permissions(shallow, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
  place("x64/cudnn64_9.dll", shallow / "a/cudnn64_9.dll");
  place("x64/cudnn-9.0/cudnn64_9.dll", shallow / "e\x1bJ/cudnn64_9.dll");
  const auto short_paths = scan({"--scan", shallow.string()});
  fs::remove_all(shallow);
  REQUIRE(short_paths.exit_code == 0);
  check_80_columns(short_paths.out);
  CHECK(short_paths.out.find("  9.1.0.70       x64           14336  " + (shallow / "a/cudnn64_9.dll").string() +
                             "\n") != std::string::npos);
  CHECK(short_paths.out.find((shallow / "e\\x1bJ/cudnn64_9.dll").string()) != std::string::npos);
  CHECK(short_paths.out.find('\x1b') == std::string::npos);
}

TEST_CASE("scan JSON: two scans of the tree print the same bytes apart from generated_at") {
  const fs::path root = build_tree();
  const auto first = scan({"--scan", root.string(), "--all-dlls", "--format", "json"});
  const auto second = scan({"--scan", root.string(), "--all-dlls", "--format", "json"});
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  CHECK(without_time(first.out) == without_time(second.out));
}

TEST_CASE("scan names the first unreadable folders in sorted order, whatever order the workers met them") {
  const fs::path root = kWork / "many-locked";
  fs::remove_all(root);
  std::vector<std::string> locked;
  for (int i = 0; i < 30; ++i) {
    const fs::path folder = root / ("locked-" + std::to_string(100 + i)) / "inner";
    fs::create_directories(folder);
    fs::permissions(folder.parent_path(), fs::perms::none);
    locked.push_back(folder.parent_path().string());
  }
  fs::permissions(root, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  std::sort(locked.begin(), locked.end());
  locked.resize(20);
  const auto first = scan({"--scan", root.string(), "--format", "json"});
  const auto second = scan({"--scan", root.string(), "--format", "json"});
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  CHECK(without_time(first.out) == without_time(second.out));
  const json report = json::parse(first.out);
  CHECK(report["counts"]["unreadable_folders"] == 30);
  CHECK(report["unreadable_examples"] == json(locked));
}

TEST_CASE("scan counts a file it may not read apart from one that vanished") {
  const fs::path root = build_tree();
  const auto result = scan({"--scan", root.string(), "--format", "json"});
  REQUIRE(result.exit_code == 0);
  const json report = json::parse(result.out);
  CHECK(report["counts"]["unreadable_files"] == 1);
  CHECK(report["counts"]["vanished"] == 0);
  CHECK(report["unreadable_file_examples"] == json({(root / "private/cudnn_adv64_9.dll").string()}));
  CHECK_FALSE(group(report, "cudnn_adv64_9.dll"));
  const auto text = scan({"--scan", root.string()});
  const std::string example = (root / "private/cudnn_adv64_9.dll").string();
  const std::string said = "1 files could not be read (no permission, or locked), e.g.";
  CHECK(says_about(text.out, said + " " + example, said, example));
  CHECK(text.out.find("vanished") == std::string::npos);
}

TEST_CASE("scan progress: a line with the rate on a terminal, nothing when stderr is not one") {
  const fs::path root = build_tree();
  const auto piped = scan({"--scan", root.string()});
  REQUIRE(piped.exit_code == 0);
  CHECK(piped.err.empty());
  // script(1) runs the command on a pseudo-terminal and copies what it prints; stdout goes elsewhere.
  const std::string command = "'" + kDlldoctor + "' --scan '" + root.string() + "' -o /dev/null";
  const auto terminal = run_process({"script", "-qec", command, "/dev/null"});
  INFO(terminal.out << terminal.err);
  REQUIRE(terminal.exit_code == 0);
  const auto line = terminal.out.find("scanning: ");
  REQUIRE(line != std::string::npos);
  const std::string progress = terminal.out.substr(line, terminal.out.find('\r', line) - line);
  CHECK(progress.find(" folders, ") != std::string::npos);
  CHECK(progress.find(" entries, ") != std::string::npos);
  CHECK(progress.find(" copies, ") != std::string::npos);
  CHECK(progress.find(" entries/s") != std::string::npos);
}

TEST_CASE("scan Markdown: every copy in a table that holds, identical copies, search, what was skipped") {
  const fs::path root = build_tree();
  const auto md = scan({"--scan", root.string(), "--format", "markdown", "--path",
                        (root / "CUDA/v12.4/bin").string() + ";" + (root / "tools/cudnn-9.1/bin").string()});
  INFO(md.out);
  REQUIRE(md.exit_code == 1);  // judged for that PATH: mixed releases in a new process
  CHECK(md.out.rfind("## dlldoctor scan\n", 0) == 0);
  CHECK_NOTHROW(json(md.out).dump());  // valid UTF-8 throughout, though a folder name is not
  CHECK(md.out.find("`" + root.string() + "/bad\\xff\\xfe/cudnn_graph64_9.dll`") != std::string::npos);
  CHECK(md.out.find("| DLL | version | machine | size | path | search |") != std::string::npos);
  // Every row of the table has its six cells, a '|' in a folder name included.
  std::size_t rows = 0;
  std::istringstream lines(md.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| ", 0) != 0) continue;
    ++rows;
    std::size_t bars = 0;
    for (std::size_t i = 0; i < line.size(); ++i) bars += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    CHECK_MESSAGE(bars == 7, line);
  }
  CHECK(rows == 2 + 11);  // heading, rule, one row per copy
  CHECK(md.out.find("`" + root.string() + "/pipe\\|dir/zlibwapi.dll`") != std::string::npos);
  CHECK(md.out.find("/CUDA/v12.4/bin/cudnn64_9.dll` | loads |") != std::string::npos);
  CHECK(md.out.find("/tools/cudnn-9.1/bin/cudnn64_9.dll` | shadowed |") != std::string::npos);
  CHECK(md.out.find("- cudnn64_9.dll 9.1.0.70 (") != std::string::npos);
  CHECK(md.out.find("- cudnn_ops64_9.dll 9.1.0.70 (") != std::string::npos);
  CHECK(md.out.find("- :warning: `" + root.string() +
                    "/CUDA/v12.4/bin` mixes cuDNN 8 and cuDNN 9 (`mixed-generations-folder`)\n\n  ```powershell\n") !=
        std::string::npos);
  CHECK(md.out.find("- 1 folders could not be read (skipped), e.g. `" + (root / "locked").string() + "`") !=
        std::string::npos);
  CHECK(md.out.find("- 1 files could not be read") != std::string::npos);
  CHECK(md.out.find("- name that is not UTF-8: `" + root.string() + "/bad\\xff\\xfe`") != std::string::npos);
  CHECK(md.out.find("the file is empty") != std::string::npos);
}

TEST_CASE("scan -o FILE writes the report there and nothing to stdout; a file it cannot write exits 2") {
  const fs::path root = build_tree();
  const fs::path out = kWork / "out";
  fs::remove_all(out);
  fs::create_directories(out);
  fs::permissions(out, fs::perms::all);  // the scan runs as nobody
  const auto written = scan({"--scan", root.string(), "--format", "json", "-o", (out / "scan.json").string()});
  REQUIRE(written.exit_code == 0);
  CHECK(written.out.empty());
  std::ifstream file(out / "scan.json", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const json report = json::parse(text);
  CHECK(report["schema"] == "dlldoctor.scan/1");
  CHECK(group(report, "cudnn64_9.dll"));
  // The same bytes as on stdout, apart from the time.
  CHECK(without_time(text) == without_time(scan({"--scan", root.string(), "--format", "json"}).out));
  g_json_outputs.push_back(out / "scan.json");

  const auto markdown = scan({"--scan", root.string(), "--format", "markdown", "-o", (out / "scan.md").string()});
  REQUIRE(markdown.exit_code == 0);
  CHECK(markdown.out.empty());
  CHECK(fs::file_size(out / "scan.md") > 0);

  const auto refused = scan({"--scan", root.string(), "-o", (kWork / "no-such-folder/scan.txt").string()});
  CHECK(refused.exit_code == 2);
  CHECK_FALSE(refused.err.empty());
}

TEST_CASE("scan: a folder with two releases of cuDNN 9 is an error finding, exit status 1") {
  const fs::path root = kWork / "mixed9";
  fs::remove_all(root);
  place("x64/cudnn-9.0/cudnn64_9.dll", root / "app/bin/cudnn64_9.dll");
  place("x64/cudnn_ops64_9.dll", root / "app/bin/cudnn_ops64_9.dll");  // 9.1.0.70
  place("x64/cudnn64_9.dll", root / "app/bin/cudnn64_9.dll.bak");      // a backup does not count
  place("x64/cudnn64_9.dll", root / "good/bin/cudnn64_9.dll");
  place("x64/cudnn_ops64_9.dll", root / "good/bin/cudnn_ops64_9.dll");
  const auto result = scan({"--scan", root.string(), "--format", "json"});
  CHECK(result.exit_code == 1);
  const json report = json::parse(result.out);
  REQUIRE(report["mixed_folders"].size() == 1);
  CHECK(report["mixed_folders"][0] == json({{"folder", (root / "app/bin").string()},
                                            {"mixes", "cuDNN 9 versions 9.0.0.312 and 9.1.0.70"},
                                            {"finding", "mixed-family-versions"},
                                            {"severity", "error"}}));
  // The rule engine's finding, as a closure report gives it: the odd one out (the release fewer members
  // come from; a tie goes to the newer) renamed, with the folder a named placeholder in the command.
  // Beside it, what each folder's set lacks: information (missing-sibling, variant folder), since no process
  // loads from these folders here.
  const json* mixed = nullptr;
  std::size_t incomplete = 0;
  for (const json& found : report["findings"]) {
    if (found["id"] == "mixed-family-versions") {
      mixed = &found;
      continue;
    }
    CHECK(found["id"] == "missing-sibling");
    CHECK(found["severity"] == "info");
    CHECK(found["processes"].empty());
    ++incomplete;
  }
  REQUIRE(mixed != nullptr);
  CHECK(incomplete == 2);
  const json& finding = *mixed;
  CHECK(finding["id"] == "mixed-family-versions");
  CHECK(finding["severity"] == "error");
  CHECK(finding["evidence"]["host_folder"] == (root / "app/bin").string());
  CHECK(finding["message"].get<std::string>().find(
            (root / "app/bin").string() + " holds cuDNN 9 DLLs of different "
                                          "versions: 9.0.0.312 (cudnn64_9.dll), 9.1.0.70 (cudnn_ops64_9.dll)") == 0);
  REQUIRE(finding["fix"].size() >= 2);
  CHECK(finding["fix"][1].get<std::string>().rfind("'<...\\app\\bin>\\cudnn64_9.dll' | ForEach-Object { Rename-Item",
                                                   0) == 0);
  // The host folder only in the comment that names the placeholder, never in a command.
  for (const json& item : finding["fix"]) {
    const std::string line = item.get<std::string>();
    CHECK_MESSAGE((line.rfind("#", 0) == 0 || line.find(root.string()) == std::string::npos), line);
  }
  const auto text = scan({"--scan", root.string()});
  CHECK(text.exit_code == 1);
  const std::string folder = (root / "app/bin").string();
  CHECK(says_about(text.out, "error: " + folder + " mixes cuDNN 9 versions 9.0.0.312 and 9.1.0.70",
                   "error: this folder mixes cuDNN 9 versions 9.0.0.312 and 9.1.0.70:", folder));
  const auto markdown = scan({"--scan", root.string(), "--format", "markdown"});
  CHECK(markdown.exit_code == 1);
  CHECK(markdown.out.find("- :x: **error** `" + (root / "app/bin").string() +
                          "` mixes cuDNN 9 versions 9.0.0.312 and 9.1.0.70") != std::string::npos);
  // Only the folder that mixes them: the same two releases in two folders are not an error.
  fs::remove(root / "app/bin/cudnn_ops64_9.dll");
  const auto apart = scan({"--scan", root.string(), "--format", "json"});
  CHECK(apart.exit_code == 0);
  CHECK(json::parse(apart.out)["mixed_folders"].empty());
}

TEST_CASE("scan with a PATH judges the copies as a new process does; without one it says it judged none") {
  const fs::path root = kWork / "judged";
  fs::remove_all(root);
  // The bundled example's folders: an old 9.0 dispatcher first on PATH, a 9.1 zip copied in part after it.
  place("x64/cudnn-9.0/cudnn64_9.dll", root / "cuda/bin/cudnn64_9.dll");
  place("x64/cudnn64_9.dll", root / "cudnn/bin/cudnn64_9.dll");
  place("x64/cudnn_graph64_9.dll", root / "cudnn/bin/cudnn_graph64_9.dll");
  place("x64/cudnn_ops64_9.dll", root / "cudnn/bin/cudnn_ops64_9.dll");
  place("x64/msvcp140.dll", root / "cudnn/bin/msvcp140.dll");
  place("x64/vcruntime140.dll", root / "cudnn/bin/vcruntime140.dll");
  const std::string path = (root / "cuda/bin").string() + ";" + (root / "cudnn/bin").string();
  const auto judged = scan({"--scan", root.string(), "--path", path, "--format", "json"});
  CHECK_MESSAGE(judged.exit_code == 1, judged.err);
  const json report = json::parse(judged.out);
  std::set<std::string> errors;
  for (const json& finding : report["findings"]) {
    if (finding["severity"] != "error") continue;
    errors.insert(finding["id"].get<std::string>());
    CHECK(finding["processes"] == json::array({"a new process loading cudnn64_9.dll"}));
  }
  CHECK(errors == std::set<std::string>{"missing-sibling", "mixed-family-versions"});
  const auto text = scan({"--scan", root.string(), "--path", path});
  CHECK(text.exit_code == 1);
  CHECK(text.out.find("  in: a new process loading cudnn64_9.dll\n") != std::string::npos);
  // No PATH: the copies are listed, the folders judged by themselves, and the report says no process was.
  const auto unjudged = scan({"--scan", root.string()});
  CHECK(unjudged.exit_code == 0);
  CHECK(unjudged.out.find("search: not judged: no PATH given") != std::string::npos);
  CHECK(unjudged.out.find("in: a new process") == std::string::npos);
}

TEST_CASE("scan never follows a link out of the tree, and a dangling link is no copy") {
  const fs::path root = kWork / "linked";
  const fs::path outside = kWork / "outside";
  fs::remove_all(root);
  fs::remove_all(outside);
  place("x64/cudnn64_8.dll", outside / "cudnn64_8.dll");
  place("x64/cudnn64_9.dll", root / "bin/cudnn64_9.dll");
  fs::create_directory_symlink(outside, root / "bin/elsewhere");
  fs::create_symlink(root / "bin/gone.dll", root / "bin/cudnn_ops64_9.dll");  // points at nothing
  const auto inside = scan({"--scan", root.string(), "--format", "json"});
  REQUIRE(inside.exit_code == 0);
  const json report = json::parse(inside.out);
  CHECK(group(report, "cudnn64_9.dll"));
  CHECK_FALSE(group(report, "cudnn64_8.dll"));
  CHECK_FALSE(group(report, "cudnn_ops64_9.dll"));
  CHECK(report["counts"]["copies"] == 1);
  CHECK(report["counts"]["vanished"] == 0);
  // The copy behind the link is found when its own folder is scanned.
  CHECK(group(json::parse(scan({"--scan", outside.string(), "--format", "json"}).out), "cudnn64_8.dll"));
}

TEST_CASE("scan never writes inside the tree it scans") {
  const fs::path root = build_tree();
  // Every name with its type, size and modification time, folders included (a file created and removed
  // again still changes its folder's time). lstat: links are looked at, not followed.
  auto snapshot = [&] {
    std::map<std::string, std::string> entries;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      struct stat info {};
      REQUIRE(lstat(entry.path().c_str(), &info) == 0);
      entries[entry.path().string()] = std::to_string(info.st_mode) + " " + std::to_string(info.st_size) + " " +
                                       std::to_string(info.st_mtim.tv_sec) + "." +
                                       std::to_string(info.st_mtim.tv_nsec) + " " +
                                       std::to_string(info.st_ctim.tv_sec) + "." + std::to_string(info.st_ctim.tv_nsec);
    }
    return entries;
  };
  const auto before = snapshot();
  REQUIRE(before.size() > 20);
  // As the user running the tests (root here), who could write anywhere in the tree.
  for (const char* format : {"text", "json", "markdown"}) {
    CHECK(run_process({kDlldoctor, "--scan", root.string(), "--format", format, "--all-dlls"}).exit_code == 0);
    CHECK(run_process({kDlldoctor, "--scan", root.string(), "--format", format, "-o", (kWork / "report").string()})
              .exit_code == 0);
  }
  CHECK(snapshot() == before);
}

// Runs after the other cases (doctest keeps file order): every JSON scan they printed must match the schema
// published in docs/, checked by an independent validator (python3-jsonschema).
TEST_CASE("scan JSON: every scan printed above validates against docs/scan-schema.json") {
  REQUIRE_MESSAGE(g_json_outputs.size() >= 8, "run the whole scan_tests binary");
  std::vector<std::string> argv{"/usr/bin/python3", DLLDOCTOR_JSON_VALIDATOR, DLLDOCTOR_SCAN_SCHEMA};
  for (const auto& path : g_json_outputs) argv.push_back(path.string());
  const auto result = run_process(argv);
  INFO(result.out << result.err);
  CHECK(result.exit_code == 0);
  CHECK(result.out.find(std::to_string(g_json_outputs.size()) + " passed, 0 failed") != std::string::npos);
}
