#include "env/system_names.hpp"

#include <algorithm>
#include <array>

#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/env/api_set.hpp"

namespace dlldoctor::env {

const std::vector<DllName>& default_known_dlls() {
  static constexpr std::string_view kNames[] = {
      "advapi32.dll", "clbcatq.dll", "combase.dll",  "comdlg32.dll", "coml2.dll",    "difxapi.dll",
      "gdi32.dll",    "gdiplus.dll", "imagehlp.dll", "imm32.dll",    "kernel32.dll", "kernelbase.dll",
      "msctf.dll",    "msvcrt.dll",  "normaliz.dll", "nsi.dll",      "ntdll.dll",    "ole32.dll",
      "oleaut32.dll", "psapi.dll",   "rpcrt4.dll",   "sechost.dll",  "setupapi.dll", "shcore.dll",
      "shell32.dll",  "shlwapi.dll", "user32.dll",   "wldap32.dll",  "ws2_32.dll",
  };
  static const std::vector<DllName> names(std::begin(kNames), std::end(kNames));
  return names;
}

std::vector<DllName> known_dlls_from(const std::vector<std::string>& names) {
  std::vector<DllName> known;
  for (const std::string& text : names) {
    // One entry per loader key: "MSVCP140" and "msvcp140.dll" are the same DLL.
    DllName name(text);
    if (std::find(known.begin(), known.end(), name) == known.end()) known.push_back(std::move(name));
  }
  for (const char* always : {"ntdll.dll", "kernelbase.dll"}) {
    DllName name(always);
    if (std::find(known.begin(), known.end(), name) == known.end()) known.push_back(std::move(name));
  }
  return known;
}

namespace {
// Taken from a clean Windows 11 23H2 System32 (written as DllName keys: compile-time text, compared with
// DllName::key()), limited to the DLLs that
// programs commonly import directly.
constexpr std::array<std::string_view, 104> kStockDlls = {
    "advapi32.dll",    "apphelp.dll",
    "authz.dll",       "avrt.dll",
    "bcrypt.dll",      "bcryptprimitives.dll",
    "cabinet.dll",     "cfgmgr32.dll",
    "clbcatq.dll",     "combase.dll",
    "comctl32.dll",    "comdlg32.dll",
    "coml2.dll",       "crypt32.dll",
    "cryptbase.dll",   "cryptsp.dll",
    "d2d1.dll",        "d3d10.dll",
    "d3d11.dll",       "d3d12.dll",
    "d3d9.dll",        "d3dcompiler_47.dll",
    "dbgeng.dll",      "dbghelp.dll",
    "dcomp.dll",       "ddraw.dll",
    "devobj.dll",      "dhcpcsvc.dll",
    "difxapi.dll",     "dnsapi.dll",
    "dpapi.dll",       "dsound.dll",
    "dwmapi.dll",      "dwrite.dll",
    "dxgi.dll",        "dxva2.dll",
    "fltlib.dll",      "gdi32.dll",
    "gdi32full.dll",   "gdiplus.dll",
    "glu32.dll",       "hid.dll",
    "imagehlp.dll",    "imm32.dll",
    "iphlpapi.dll",    "kernel32.dll",
    "kernelbase.dll",  "ksuser.dll",
    "mf.dll",          "mfplat.dll",
    "mfreadwrite.dll", "mpr.dll",
    "msacm32.dll",     "msasn1.dll",
    "msctf.dll",       "msi.dll",
    "msimg32.dll",     "mswsock.dll",
    "msvcp_win.dll",   "msvcrt.dll",
    "ncrypt.dll",      "netapi32.dll",
    "normaliz.dll",    "nsi.dll",
    "ntdll.dll",       "ntmarta.dll",
    "ole32.dll",       "oleacc.dll",
    "oleaut32.dll",    "opengl32.dll",
    "pdh.dll",         "powrprof.dll",
    "profapi.dll",     "propsys.dll",
    "psapi.dll",       "rpcrt4.dll",
    "rstrtmgr.dll",    "sechost.dll",
    "secur32.dll",     "setupapi.dll",
    "shcore.dll",      "shell32.dll",
    "shlwapi.dll",     "sspicli.dll",
    "ucrtbase.dll",    "urlmon.dll",
    "user32.dll",      "userenv.dll",
    "usp10.dll",       "uxtheme.dll",
    "version.dll",     "win32u.dll",
    "winhttp.dll",     "wininet.dll",
    "winmm.dll",       "winspool.drv",
    "wintrust.dll",    "wldap32.dll",
    "ws2_32.dll",      "wtsapi32.dll",
    "xinput1_4.dll",   "xmllite.dll",
    "ntdsapi.dll",     "wevtapi.dll",
};
}  // namespace

bool is_stock_system_dll(const DllName& name) {
  // A host of the stock API set schema ships with that Windows: kernel.appcore.dll, sechost.dll, ...
  return std::find(kStockDlls.begin(), kStockDlls.end(), name.key()) != kStockDlls.end() ||
         ApiSetSchema::is_builtin_host(name);
}

}  // namespace dlldoctor::env
