# check_wall.cmake — one wall (tests/walls/CMakeLists.txt): SOURCE compiles
# with the include directories DIRS ('|'-separated) and fails, naming
# BREACH, when WEIR_WALL_BREACH is defined.
string(REPLACE "|" ";" dirs "${DIRS}")
set(flags -std=c11 -fsyntax-only -DWEIR_BUILDING)
foreach(d IN LISTS dirs)
  list(APPEND flags -I${d})
endforeach()
execute_process(COMMAND ${COMPILER} ${flags} ${SOURCE}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} does not compile inside its wall:\n${out}")
endif()
execute_process(COMMAND ${COMPILER} ${flags} -DWEIR_WALL_BREACH ${SOURCE}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} includes ${BREACH} from behind its wall, and it compiled: "
                      "the folder's include directories let it through")
endif()
string(REPLACE "." "\\." breach_re "${BREACH}")
if(NOT out MATCHES "${breach_re}'?:? ?(No such file|file not found)")
  message(FATAL_ERROR "${SOURCE} with ${BREACH} failed, but not for want of the header:\n${out}")
endif()
message(STATUS "${BREACH} is out of reach, as it should be")
