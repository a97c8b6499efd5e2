# The link rule of the mingw cross build (mingw-toolchain.cmake): clang drives lld for the mingw target,
# with the libraries of the GCC that compiled the objects (libstdc++, libgcc) and the posix thread model's
# winpthread, which GCC's own driver adds by itself.
# No link time in the PE header (--no-insert-timestamp): two builds of one commit give the same bytes.
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-libgcc-file-name OUTPUT_VARIABLE dd_libgcc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
get_filename_component(dd_gcc_lib_dir "${dd_libgcc}" DIRECTORY)
set(CMAKE_CXX_LINK_EXECUTABLE
    "${DD_MINGW_CLANG} --target=x86_64-w64-mingw32 -fuse-ld=lld -L${dd_gcc_lib_dir} <FLAGS> <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> -Wl,--no-insert-timestamp <OBJECTS> -o <TARGET> <LINK_LIBRARIES> -lpthread")
