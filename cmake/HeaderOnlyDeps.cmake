# The mingw cross build: Debian ships no mingw builds of fmt, CLI11 and friends, but they are header-only
# libraries. /usr/include itself must not reach the mingw include path (glibc's headers would shadow the
# mingw CRT's), so a build-local folder holds links to just these libraries' folders, and each library
# becomes an INTERFACE target with the name its CMake package would give it.
set(dd_deps_include ${CMAKE_BINARY_DIR}/deps-include)
file(MAKE_DIRECTORY ${dd_deps_include})
foreach(dir fmt CLI nlohmann toml++ doctest)
  if(NOT EXISTS /usr/include/${dir})
    message(FATAL_ERROR "/usr/include/${dir} is missing: install the Debian -dev package that provides it")
  endif()
  if(NOT EXISTS ${dd_deps_include}/${dir})
    file(CREATE_LINK /usr/include/${dir} ${dd_deps_include}/${dir} SYMBOLIC)
  endif()
endforeach()

function(dd_header_only_target name)
  if(NOT TARGET ${name})
    add_library(${name} INTERFACE IMPORTED GLOBAL)
    set_target_properties(${name} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${dd_deps_include}
                                             INTERFACE_COMPILE_DEFINITIONS "${ARGN}")
  endif()
endfunction()
dd_header_only_target(fmt::fmt FMT_HEADER_ONLY=1)
dd_header_only_target(CLI11::CLI11)
dd_header_only_target(nlohmann_json::nlohmann_json)
dd_header_only_target(tomlplusplus::tomlplusplus TOML_HEADER_ONLY=1)
dd_header_only_target(doctest::doctest)
# The INTERFACE targets mark the headers SYSTEM, so their warnings stay out of ours.
