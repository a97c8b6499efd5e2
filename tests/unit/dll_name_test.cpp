#include "dlldoctor/core/dll_name.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "env/system_names.hpp"

using dlldoctor::DllName;

TEST_CASE("DllName keys a name as the loader compares it") {
  // Case does not matter; the name as written is kept for display.
  CHECK(DllName("CUDNN64_9.DLL") == DllName("cudnn64_9.dll"));
  CHECK(DllName("CUDNN64_9.DLL").key() == "cudnn64_9.dll");
  CHECK(DllName("CUDNN64_9.DLL").display() == "CUDNN64_9.DLL");
  // A name without an extension gets ".dll", as LoadLibrary and the import loader give it.
  CHECK(DllName("cudnn64_9") == DllName("cudnn64_9.dll"));
  CHECK(DllName("ZlibWapi").key() == "zlibwapi.dll");
  // Another extension is kept.
  CHECK(DllName("winspool.drv").key() == "winspool.drv");
  CHECK(DllName("winspool.drv") != DllName("winspool.drv.dll"));
  // A trailing dot means "no extension": "foo." is the file "foo", not "foo.dll".
  CHECK(DllName("noext.").key() == "noext");
  CHECK(DllName("noext.") != DllName("noext"));
  CHECK(DllName("noext.") != DllName("noext.dll"));
  CHECK(DllName("Foo.DLL.") == DllName("foo.dll"));
  // Win32 path rules drop a name's trailing dots and spaces (corkami ownexportsdot.asm).
  CHECK(DllName("ownexportsdot.exe.  ... ").key() == "ownexportsdot.exe");
  CHECK(DllName("foo.dll ") == DllName("foo.dll"));
  CHECK(DllName("noext. .").key() == "noext");
  CHECK(DllName("foo ").key() == "foo .dll");  // no dot: the extension comes first, then nothing trails
  // Ordering follows the key, so maps and sets hold one entry per module.
  CHECK(DllName("a.dll") < DllName("B.dll"));
  CHECK_FALSE(DllName("A") < DllName("a.dll"));
}

TEST_CASE("DllName::of_file keys a file on disk, which gets no extension") {
  CHECK(DllName::of_file("CUDNN64_9.DLL") == DllName("cudnn64_9"));
  // The file "foo" is what "foo." loads; "foo" loads "foo.dll".
  CHECK(DllName::of_file("Foo") == DllName("foo."));
  CHECK(DllName::of_file("Foo") != DllName("foo"));
  CHECK(DllName::of_file("Foo").display() == "Foo");
}

TEST_CASE("DllName as the key of ordered and unordered containers") {
  std::map<DllName, int> ordered;
  ordered[DllName("Kernel32")] = 1;
  ordered[DllName("KERNEL32.DLL")] = 2;
  CHECK(ordered.size() == 1);
  CHECK(ordered.begin()->second == 2);
  std::unordered_map<DllName, int> hashed;
  hashed.emplace(DllName("msvcp140"), 1);
  CHECK(hashed.count(DllName("MSVCP140.dll")) == 1);
  CHECK(hashed.count(DllName("msvcp140.")) == 0);
  CHECK(dlldoctor::dll_keys({DllName("A"), DllName("b.DRV")}) == std::vector<std::string>{"a.dll", "b.drv"});
}

TEST_CASE("a KnownDLLs list holds each loader name once") {
  const auto known = dlldoctor::env::known_dlls_from({"MSVCP140", "msvcp140.dll", "Foo."});
  CHECK(dlldoctor::dll_keys(known) == std::vector<std::string>{"msvcp140.dll", "foo", "ntdll.dll", "kernelbase.dll"});
}
