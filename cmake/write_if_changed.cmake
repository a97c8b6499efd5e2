# write_if_changed(<file> <text>): the build's generators (api_set_table, embed_rules, build_info) write a
# source only when its text changes, so that an unchanged one rebuilds nothing.
function(write_if_changed file text)
  set(old "")
  if(EXISTS "${file}")
    file(READ "${file}" old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${file}" "${text}")
  endif()
endfunction()
