#include "dlldoctor/core/paths.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using dlldoctor::base_name;
using dlldoctor::folder_of;
using dlldoctor::split_path_list;

TEST_CASE("base_name takes the last component after either separator") {
  CHECK(base_name("C:\\x/y\\Z.dll") == "Z.dll");
  CHECK(base_name("/mnt/c/Windows/System32/kernel32.dll") == "kernel32.dll");
  CHECK(base_name("cudnn64_9.dll") == "cudnn64_9.dll");
  CHECK(base_name("C:\\tools\\") == "");
  CHECK(base_name("") == "");
}

TEST_CASE("folder_of keeps everything before the last separator") {
  CHECK(folder_of("C:\\tools\\cudnn\\bin\\cudnn64_9.dll") == "C:\\tools\\cudnn\\bin");
  CHECK(folder_of("C:\\x/y\\Z.dll") == "C:\\x/y");
  CHECK(folder_of("/mnt/c/app.exe") == "/mnt/c");
  // A trailing separator names the folder itself, without it.
  CHECK(folder_of("C:\\tools\\") == "C:\\tools");
  // A bare file name lies in the current folder.
  CHECK(folder_of("app.exe") == ".");
}

TEST_CASE("split_path_list keeps empty entries for the caller to judge") {
  using List = std::vector<std::string>;
  CHECK(split_path_list("C:\\a;C:\\b") == List{"C:\\a", "C:\\b"});
  CHECK(split_path_list("C:\\a") == List{"C:\\a"});
  // An empty PATH entry is the current folder to the loader: it must survive the split.
  CHECK(split_path_list("C:\\a;;C:\\b") == List{"C:\\a", "", "C:\\b"});
  CHECK(split_path_list("C:\\a;") == List{"C:\\a", ""});
  CHECK(split_path_list(";C:\\a") == List{"", "C:\\a"});
  CHECK(split_path_list("") == List{""});
  // Only ';' separates entries: folder separators are part of an entry.
  CHECK(split_path_list("C:\\a\\;/mnt/c/b/") == List{"C:\\a\\", "/mnt/c/b/"});
}
