# Fails the build of a Criterion binary that holds no test: a suite that
# cannot fail is worse than none. Run as: cmake -DBIN=<binary> -P this-file.
execute_process(COMMAND ${BIN} --list OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BIN} --list failed (${rc}): ${err}")
endif()
# A test is one tree line: "├── name" / "└── name" under a UTF-8 locale,
# "|-- name" / "`-- name" under the C locale of a fresh machine.
string(REGEX MATCHALL "\n[^\n]*(── |[|`]-- )[^\n]+" tests "\n${out}")
list(LENGTH tests n)
if(n EQUAL 0)
  message(FATAL_ERROR "${BIN} holds no Criterion test")
endif()
