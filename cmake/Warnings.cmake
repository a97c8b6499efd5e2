# One place for the warning flags so every target (product, tests, tools) is held to the same bar.
# -Wpedantic: no GNU extensions, so the code stays buildable with MSVC, which is not tried here.
function(dlldoctor_warnings target)
  if(MSVC)
    target_compile_options(${target} PRIVATE /W4 $<$<BOOL:${DLLDOCTOR_WERROR}>:/WX>)
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
                                             $<$<BOOL:${DLLDOCTOR_WERROR}>:-Werror>)
  endif()
endfunction()
