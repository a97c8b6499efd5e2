#pragma once
// The one place that picks the filesystem library: Boost.Filesystem where Debian provides it, and
// std::filesystem for the mingw-w64 cross build (Debian ships no mingw Boost).
#if defined(DLLDOCTOR_USE_BOOST_FILESYSTEM)
#include <boost/filesystem.hpp>
namespace dlldoctor {
namespace fs = boost::filesystem;
using FsErrorCode = boost::system::error_code;
}  // namespace dlldoctor
#else
#include <filesystem>
#include <system_error>
namespace dlldoctor {
namespace fs = std::filesystem;
using FsErrorCode = std::error_code;
}  // namespace dlldoctor
#endif
