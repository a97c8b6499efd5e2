# Applied globally: a sanitized test binary must link sanitized libraries of our own.
if(DLLDOCTOR_SANITIZE)
  if(MSVC)
    message(FATAL_ERROR "DLLDOCTOR_SANITIZE is for GCC and clang")
  endif()
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  # The suite starts the sanitized dlldoctor thousands of times. Linked as a position-independent
  # executable it carries two million relative relocations (the sanitizers' metadata), which the dynamic
  # loader applies, page by page, at every start; position-dependent, the linker resolves them once
  # (docs/DECISIONS.md, "CI time").
  add_link_options($<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
endif()
