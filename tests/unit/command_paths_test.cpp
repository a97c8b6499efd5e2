// Host paths with no Windows path in fix commands (rules/command_paths.hpp), and the verdict's wrapping
// that keeps a path with spaces whole (report/text_layout.hpp).
#include "dlldoctor/rules/command_paths.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/legend.hpp"
#include "report/text_layout.hpp"

using dlldoctor::rules::CommandPaths;
using dlldoctor::rules::Placeholder;

namespace {
// The legend's lines that name a placeholder.
std::size_t lines_naming(const std::string& legend) {
  std::size_t lines = 0;
  for (std::size_t at = legend.find("\n  <"); at != std::string::npos; at = legend.find("\n  <", at + 1)) ++lines;
  return lines;
}

// The legend as the text reports write it.
std::string legend_text(const std::vector<Placeholder>& placeholders) {
  dlldoctor::report::StringSink sink;
  {
    dlldoctor::report::TextOut out(sink);
    dlldoctor::report::legend_text(out, placeholders);
  }
  return sink.text();
}

}  // namespace

TEST_CASE("a host path is written as its folder's placeholder; a Windows path is left as it is") {
  const CommandPaths paths("/copy/app/app.exe",
                           {"/copy/cuda/bin", "/copy/cudnn/bin", "/other/cuda/bin", "/copy/app/sub"});
  std::vector<Placeholder> used;
  CHECK(paths.in_command("C:\\tools\\x.dll", &used) == "C:\\tools\\x.dll");
  CHECK(paths.in_command("cudnn64_9.dll", &used) == "cudnn64_9.dll");
  CHECK(used.empty());
  // The program's folder and what is under it are named after the program.
  CHECK(paths.in_command("/copy/app/cudnn64_9.dll", &used) == "<folder of app.exe>\\cudnn64_9.dll");
  CHECK(paths.in_command("/copy/app/sub", &used) == "<folder of app.exe>\\sub");
  // Two cuda\bin folders: each gets the shortest tail no other shares.
  CHECK(paths.in_command("/copy/cuda/bin/cudnn64_9.dll", &used) == "<...\\copy\\cuda\\bin>\\cudnn64_9.dll");
  CHECK(paths.in_command("/other/cuda/bin", &used) == "<...\\other\\cuda\\bin>");
  CHECK(paths.in_command("/copy/cudnn/bin", &used) == "<...\\cudnn\\bin>");
  CHECK(paths.in_command("\"/copy/cudnn/bin\"") == "\"<...\\cudnn\\bin>\"");  // a quoted PATH entry
  // A folder the run did not list: a file's folder, or the folder itself.
  CHECK(paths.in_command("/somewhere/else/x.dll", &used) == "<...\\somewhere\\else>\\x.dll");
  CHECK(paths.in_command("/somewhere/else/bin", &used) == "<...\\else\\bin>");
  REQUIRE(used.size() == 7);
  CHECK(used[0].name == "<folder of app.exe>");
  CHECK(used[0].host == "/copy/app");
  CHECK(used[2].host == "/copy/cuda/bin");

  const auto once = dlldoctor::rules::first_uses(used);
  REQUIRE(once.size() == 6);  // the program's folder once
  const std::string legend = legend_text(once);
  CHECK(legend.find("\n  <folder of app.exe> is /copy/app\n") != std::string::npos);
  CHECK(lines_naming(legend) == 6);
}

TEST_CASE("\"/\" as a folder of the run names nothing; a folder the run did not list gets a name of its own") {
  const CommandPaths paths("", {"/", "/dl/cuda/bin"});
  std::vector<Placeholder> used;
  CHECK(paths.in_command("/dl/cuda/bin/x.dll", &used) == "<...\\cuda\\bin>\\x.dll");
  // Not under "/" as a folder: named by its own tail, longer than the listed folder's where they share it.
  CHECK(paths.in_command("/usb/cuda/bin/x.dll", &used) == "<...\\usb\\cuda\\bin>\\x.dll");
  CHECK(paths.in_command("/mnt/x/a.dll", &used) == "<...\\mnt\\x>\\a.dll");
  // Two unlisted folders with one name are both named in the comments.
  CHECK(paths.in_command("/a/lib/bin/y.dll", &used) == paths.in_command("/b/lib/bin/y.dll", &used));
  CHECK(dlldoctor::rules::first_uses(used).size() == 5);
}

TEST_CASE("a folder name holding a newline stays on its line of the legend") {
  const CommandPaths paths("", {"/copy/a\nb/bin"});
  std::vector<Placeholder> used;
  CHECK(paths.in_command("/copy/a\nb/bin/x.dll", &used) == "<...\\a\nb\\bin>\\x.dll");
  const std::string legend = legend_text(dlldoctor::rules::first_uses(used));
  CHECK(lines_naming(legend) == 1);
  CHECK(legend.find("  <...\\a\\x0ab\\bin> is /copy/a\\x0ab/bin\n") != std::string::npos);
}

TEST_CASE("wrap keeps the pieces it is told to keep whole, and breaks at the other spaces") {
  using dlldoctor::report::wrap;
  const std::string path = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin\\cudnn64_9.dll";
  const std::string text = "FAILS: cudnn64_9.dll at " + path + " cannot be loaded into this process";
  const std::string broken = wrap(text, 40, "  ");
  CHECK(broken.find(path) == std::string::npos);
  const std::string kept = wrap(text, 40, "  ", {path});
  CHECK(kept == "FAILS: cudnn64_9.dll at\n  " + path + "\n  cannot be loaded into this process");
}

TEST_CASE("each of many folders gets the shortest tail of two parts or more that no other folder ends with") {
  // A scan's folders: many, deep, sharing their last parts ("bin", "cuda\bin") in every combination,
  // the same folder written with a doubled slash, and one-part folders. The names are checked against
  // the rule itself, folder by folder against all the others.
  std::vector<std::string> folders;
  const char* names[] = {"bin", "cuda", "x", "v12.4", "lib"};
  unsigned state = 12345;
  const auto next = [&] { return (state = state * 1103515245u + 12345u) >> 16; };
  for (int i = 0; i < 600; ++i) {
    std::string folder;
    for (unsigned depth = 1 + next() % 6; depth > 0; --depth) folder += std::string("/") + names[next() % 5];
    folders.push_back(folder);
  }
  folders.push_back("/x//cuda/bin");
  folders.push_back("/x/cuda/bin");
  const CommandPaths paths("C:\\app\\app.exe", folders);
  const auto parts_of = [](const std::string& folder) {
    std::vector<std::string> parts;
    for (std::size_t at = 0; at < folder.size();) {
      std::size_t end = folder.find('/', at);
      if (end == std::string::npos) end = folder.size();
      if (end > at) parts.push_back(folder.substr(at, end - at));
      at = end + 1;
    }
    return parts;
  };
  const auto tail = [](const std::vector<std::string>& parts, std::size_t count) {
    std::string out;
    for (std::size_t i = parts.size() - count; i < parts.size(); ++i) out += "\\" + parts[i];
    return out;
  };
  std::sort(folders.begin(), folders.end());
  folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
  std::vector<std::vector<std::string>> all_parts;
  for (const std::string& folder : folders) all_parts.push_back(parts_of(folder));
  for (std::size_t i = 0; i < folders.size(); ++i) {
    const std::string& folder = folders[i];
    const std::vector<std::string>& parts = all_parts[i];
    std::size_t count = std::min<std::size_t>(2, parts.size());
    for (; count < parts.size(); ++count) {
      bool shared = false;
      for (std::size_t j = 0; j < folders.size() && !shared; ++j) {
        shared = j != i && all_parts[j].size() >= count && tail(all_parts[j], count) == tail(parts, count);
      }
      if (!shared) break;
    }
    CHECK(paths.in_command(folder) == "<..." + tail(parts, count) + ">");
  }
}
