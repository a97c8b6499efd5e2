# Cross build of dlldoctor.exe on Debian with mingw-w64 (CMakePresets.json: windows-cross).
# The posix thread model: GCC 12's win32 model has no std::thread, and the scan is parallel.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# One self-contained exe: no libstdc++-6.dll, libgcc_s_seh-1.dll or libwinpthread-1.dll to ship beside it
# (Wine runs it from a bare prefix).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
# CTest runs the Windows binaries through Wine (tests/CMakeLists.txt gives it a private prefix).
if(EXISTS /usr/lib/wine/wine64)
  set(CMAKE_CROSSCOMPILING_EMULATOR /usr/lib/wine/wine64)
endif()
# GNU ld is slow to link dlldoctor.exe and GNU ar to index its library (objects with tens of thousands of
# COMDAT sections), at the end of the build where nothing else runs; lld and llvm-ar are far faster
# (docs/DECISIONS.md, "CI time"). Debian's mingw GCC always runs GNU ld, so clang drives lld for the link
# (mingw-lld-link.cmake), with GCC's own runtime libraries.
find_program(DD_MINGW_CLANG NAMES clang++-14 clang++)
find_program(DD_MINGW_LLVM_AR NAMES llvm-ar-14 llvm-ar)
find_program(DD_MINGW_LLVM_RANLIB NAMES llvm-ranlib-14 llvm-ranlib)
find_program(DD_MINGW_LLD NAMES ld.lld-14 ld.lld)
if(DD_MINGW_CLANG AND DD_MINGW_LLVM_AR AND DD_MINGW_LLVM_RANLIB AND DD_MINGW_LLD)
  set(CMAKE_AR ${DD_MINGW_LLVM_AR} CACHE FILEPATH "" FORCE)
  set(CMAKE_RANLIB ${DD_MINGW_LLVM_RANLIB} CACHE FILEPATH "" FORCE)
  # Read after the platform's own rules, which would otherwise replace a link rule set here.
  set(CMAKE_USER_MAKE_RULES_OVERRIDE_CXX ${CMAKE_CURRENT_LIST_DIR}/mingw-lld-link.cmake)
endif()
