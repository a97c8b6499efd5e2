# cmake -DSOURCE_DIR=<repo> -DWORK=<folder> -P embed_rules_test.cmake
# The build embeds a compiled form only beside the texts it was made from: a run decodes it without
# checking it against them. Made from these texts (its .version says so) it is embedded; made from other
# texts, or of no known version, the embedding stops the build with a message.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(WRITE "${WORK}/a.toml" "# a\n")
file(WRITE "${WORK}/b.toml" "# b\n")
set(files "${WORK}/a.toml;${WORK}/b.toml")
file(WRITE "${WORK}/compiled.bin" "not decoded here")

function(embed expect_ok what)
  execute_process(
    COMMAND ${CMAKE_COMMAND} "-DFILES=${files}" -DOUTPUT=${WORK}/out.cpp -DCOMPILED=${WORK}/compiled.bin
            -P ${SOURCE_DIR}/cmake/embed_rules.cmake
    RESULT_VARIABLE result ERROR_VARIABLE error)
  if(expect_ok AND NOT result EQUAL 0)
    message(FATAL_ERROR "${what}: the embedding failed: ${error}")
  endif()
  if(NOT expect_ok AND (result EQUAL 0 OR NOT error MATCHES "compiled[ \n]+from[ \n]+other[ \n]+rule[ \n]+files"))
    message(FATAL_ERROR "${what}: the embedding did not stop with the message (${result}): ${error}")
  endif()
endfunction()

execute_process(COMMAND ${CMAKE_COMMAND} "-DFILES=${files}" -DOUTPUT=${WORK}/compiled.bin.version
                        -P ${SOURCE_DIR}/cmake/rules_version.cmake RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "rules_version.cmake failed")
endif()
embed(TRUE "made from these texts")
file(WRITE "${WORK}/b.toml" "# b, edited since\n")
embed(FALSE "made from other texts")
file(REMOVE "${WORK}/compiled.bin.version")
embed(FALSE "of no known version")
