#pragma once
// <windows.h> for the few files that ask Windows itself (Windows builds only), without the min/max macros
// that break std::min and the rarely used parts that slow every build.
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
