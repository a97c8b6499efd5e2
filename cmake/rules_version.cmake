# The rules' version: the first 12 hex digits of a SHA-256 over each rule file's name and SHA-256, in name
# order. include() it for dlldoctor_rules_version(); or, as a script, write the version of FILES to OUTPUT:
#   cmake -DFILES=<a.toml;b.toml;...> -DOUTPUT=<file> -P rules_version.cmake
# The build writes it beside the compiled rules it makes, and the embedding step compares it with the
# version of the texts it embeds: a compiled form made from other texts stops the build (embed_rules.cmake).
function(dlldoctor_rules_version files out_var)
  set(sorted ${files})
  list(SORT sorted)
  set(all "")
  foreach(file IN LISTS sorted)
    get_filename_component(name "${file}" NAME)
    file(SHA256 "${file}" digest)
    string(APPEND all "${name} ${digest}\n")
  endforeach()
  string(SHA256 version "${all}")
  string(SUBSTRING "${version}" 0 12 version)
  set(${out_var} "${version}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT FILES OR NOT OUTPUT)
    message(FATAL_ERROR "usage: cmake -DFILES=<a.toml;...> -DOUTPUT=<file> -P rules_version.cmake")
  endif()
  dlldoctor_rules_version("${FILES}" version)
  file(WRITE "${OUTPUT}" "${version}\n")
endif()
