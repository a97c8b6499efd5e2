# Applied globally: a sanitized test binary must link sanitized libraries of our own.
if(DLLDOCTOR_SANITIZE)
  if(MSVC)
    message(FATAL_ERROR "DLLDOCTOR_SANITIZE is for GCC and clang")
  endif()
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
