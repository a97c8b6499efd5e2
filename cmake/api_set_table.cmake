# cmake -DDATA=<rules/api-sets/x.txt> -DOUTPUT=<x.cpp> -P api_set_table.cmake
#
# Turns the built-in API set table (rules/api-sets/*.txt: "<name up to its last hyphen> <host>" per line,
# "-" for no host, '#' comments) into a sorted C++ array, so that dlldoctor does not parse it at every
# start and a typo fails the build (with file:line) instead of a diagnosis.
if(NOT DATA OR NOT OUTPUT)
  message(FATAL_ERROR "usage: cmake -DDATA=<table.txt> -DOUTPUT=<table.cpp> -P api_set_table.cmake")
endif()
file(READ "${DATA}" text)

# CMake lists split on ';', and brackets and a backslash change where: percent-encode them before
# splitting the text into lines. No DLL name holds one, so a data line with one fails the checks below;
# a comment may.
string(REPLACE ";" "%3B" text "${text}")
string(REPLACE "[" "%5B" text "${text}")
string(REPLACE "]" "%5D" text "${text}")
string(REPLACE "\\" "%5C" text "${text}")
string(REPLACE "\r" "" text "${text}")
string(REPLACE "\n" ";" lines "${text}")
set(line_number 0)
set(rows "")
set(hosts "")
set(windows "")
foreach(line IN LISTS lines)
  math(EXPR line_number "${line_number} + 1")
  # "@windows <what the table was read from>": --version names it.
  if(line MATCHES "^@windows[ \t]+(.+)$")
    set(windows "${CMAKE_MATCH_1}")
    continue()
  endif()
  string(REGEX REPLACE "#.*$" "" line "${line}")
  string(STRIP "${line}" line)
  if(line STREQUAL "")
    continue()
  endif()
  if(NOT line MATCHES "^([^ \t]+)[ \t]+([^ \t]+)$")
    message(FATAL_ERROR "${DATA}:${line_number}: expected \"<api set name> <host.dll>\", got \"${line}\"")
  endif()
  set(name "${CMAKE_MATCH_1}")
  set(host "${CMAKE_MATCH_2}")
  # The loader keys the schema on the name up to its last hyphen: "api-ms-win-core-synch-l1-2".
  if(NOT name MATCHES "^(api|ext)-[a-z0-9-]+-l[0-9]+-[0-9]+$")
    message(FATAL_ERROR "${DATA}:${line_number}: \"${name}\" is not a lower-case API set name without its "
                        "final version number (like api-ms-win-core-synch-l1-2)")
  endif()
  if(host STREQUAL "-")
    set(host "")
  elseif(NOT host MATCHES "^[a-z0-9_][a-z0-9_.-]*\\.(dll|drv)$")
    message(FATAL_ERROR "${DATA}:${line_number}: host \"${host}\" is not a lower-case DLL name or \"-\"")
  endif()
  if(DEFINED seen_${name})
    message(FATAL_ERROR "${DATA}:${line_number}: ${name} is already listed on line ${seen_${name}}")
  endif()
  set(seen_${name} ${line_number})
  if(NOT host STREQUAL "")
    list(APPEND hosts "${host}")
  endif()
  # A space sorts before every character of a name, so sorting the rows sorts them by name.
  list(APPEND rows "${name} ${host}")
endforeach()
list(SORT rows)
list(REMOVE_DUPLICATES hosts)
list(SORT hosts)

if(windows STREQUAL "" OR windows MATCHES "[\"\\%]")
  message(FATAL_ERROR "${DATA}: needs one \"@windows <the Windows it was read from>\" line, without quotes or backslashes")
endif()
list(LENGTH rows count)
set(body "")
foreach(row IN LISTS rows)
  string(REGEX MATCH "^([^ ]+) (.*)$" unused "${row}")
  string(APPEND body "    {\"${CMAKE_MATCH_1}\", \"${CMAKE_MATCH_2}\"},\n")
endforeach()

list(LENGTH hosts host_count)
if(host_count EQUAL 0)
  message(FATAL_ERROR "${DATA}: no API set names a host DLL (is_builtin_host would know none)")
endif()
set(host_body "")
foreach(host IN LISTS hosts)
  string(APPEND host_body "    \"${host}\",\n")
endforeach()

file(RELATIVE_PATH source "${CMAKE_CURRENT_LIST_DIR}/.." "${DATA}")
set(code "// Generated from ${source} by cmake/api_set_table.cmake: edit the data file, not this one.
#include \"env/api_set_table.hpp\"

namespace dlldoctor::env::detail {

const BuiltinApiSet kBuiltinApiSets[] = {
${body}};
const std::size_t kBuiltinApiSetCount = ${count};

const char* const kBuiltinApiSetHosts[] = {
${host_body}};
const std::size_t kBuiltinApiSetHostCount = ${host_count};

const char kBuiltinApiSetWindows[] = \"${windows}\";

}  // namespace dlldoctor::env::detail
")
include("${CMAKE_CURRENT_LIST_DIR}/write_if_changed.cmake")
write_if_changed("${OUTPUT}" "${code}")
