# dd_test_needs(<what> <test>...): the tests cannot run without <what>, a Debian package or `npm-registry`.
# When it is missing they exit with DLLDOCTOR_SKIP_EXIT_CODE (tests/support/skip.hpp, tests/support/need.sh)
# and CTest reports them as skipped, never as passed. The labels tell .ci/check_skips.py which skips CI
# accepts: only `needs-npm-registry` ones; a skipped `needs-debian-tool` test fails CI, since ./dev.sh test
# installs every such package (docs/DECISIONS.md, "Skipped tests").
set(DLLDOCTOR_SKIP_EXIT_CODE 77)

function(dd_test_needs what)
  if(what STREQUAL "npm-registry")
    set(labels needs-npm-registry)
  else()
    set(labels ${what} needs-debian-tool)
  endif()
  set_tests_properties(${ARGN} PROPERTIES SKIP_RETURN_CODE ${DLLDOCTOR_SKIP_EXIT_CODE})
  foreach(test IN LISTS ARGN)
    set_property(TEST ${test} APPEND PROPERTY LABELS ${labels})
  endforeach()
endfunction()
