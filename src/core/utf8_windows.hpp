#pragma once
// UTF-8 <-> UTF-16 for the Windows API (Windows builds only): dlldoctor's strings are UTF-8, the W
// functions take UTF-16.
#include <string>
#include <string_view>

namespace dlldoctor {

std::wstring widen(std::string_view utf8);
std::string narrow(std::wstring_view wide);

}  // namespace dlldoctor
