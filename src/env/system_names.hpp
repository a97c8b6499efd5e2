#pragma once
// Built-in knowledge of a stock Windows 10/11 x64 install, used when no Windows system is mounted.
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/dll_name.hpp"

namespace dlldoctor::env {

// HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\KnownDLLs of Windows 10/11 x64, plus ntdll and
// kernelbase, which the loader always takes from the system (DOMAIN.md §1 step 5).
const std::vector<DllName>& default_known_dlls();

// A KnownDLLs list as given (registry values, --known-dlls), as DllNames (".dll" added to a name without
// an extension), duplicates dropped, and ntdll and kernelbase added, which the loader takes from the
// system whatever the list says (DOMAIN.md §1 step 5).
std::vector<DllName> known_dlls_from(const std::vector<std::string>& names);

// DLLs every Windows 10/11 x64 has in System32 (and SysWOW64), the hosts of its API sets included.
// Without --sysroot these are assumed present and marked so; MSVC runtime, CUDA, cuDNN and driver DLLs
// are deliberately absent.
bool is_stock_system_dll(const DllName& name);

}  // namespace dlldoctor::env
