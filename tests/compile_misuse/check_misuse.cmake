# Compiles one file against the simulator's headers and passes when the compile fails with the
# error the file announces on a line "// expect-error: <regex>" (so a typo cannot pass as the
# misuse), or, for a file without such a line, when it compiles cleanly.
# Usage: cmake -DCXX=<compiler> -DSRC=<file> -DINCLUDES=<dir;dir> -P check_misuse.cmake
file(STRINGS "${SRC}" expect_lines REGEX "// expect-error: ")
# CTest hands the list over with its separators escaped ("a\;b"): unescape it, else only the
# first directory becomes an -I and the others bare arguments.
string(REPLACE "\\;" ";" INCLUDES "${INCLUDES}")
set(include_flags "")
foreach(dir ${INCLUDES})
  list(APPEND include_flags "-I${dir}")
endforeach()
execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only ${include_flags} "${SRC}"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT expect_lines)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${SRC} should compile against the simulator's headers:\n${err}")
  endif()
  return()
endif()
if(status EQUAL 0)
  message(FATAL_ERROR "${SRC} compiled, but CANN rejects it: the simulator's headers must reject it too")
endif()
foreach(line ${expect_lines})
  string(REGEX REPLACE ".*// expect-error: " "" pattern "${line}")
  if(NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "${SRC} failed, but not with /${pattern}/:\n${err}")
  endif()
endforeach()
