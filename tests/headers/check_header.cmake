# One public header, checked as a user's compiler would see it
# (tests/headers/CMakeLists.txt runs this once per header):
#  - included alone (it includes what it needs) and twice (include guard),
#    with gcc and clang as -std=c11 and with g++ and clang++ as -std=c++17,
#    under -Wpedantic -Wall -Wextra -Werror plus -Wconversion, -Wshadow,
#    -Wundef and (C) -Wsign-conversion -Wstrict-prototypes -Wcast-qual;
#  - the same with WEIR_NO_BUILTINS defined (standard C instead of GCC's
#    builtins, as a compiler that is neither GCC nor clang gets);
#  - no GCC-only construct outside weir/export.h, where each has a fallback;
#  - a header that declares functions wraps them in extern "C" for C++; for
#    weir.h a C++ program calling weir_version() links with libweir and runs;
#  - for weir.h, a C program built with GCC's -fkeep-inline-functions (every
#    static inline function of every public header compiled in, used or
#    not) links with libweir alone and runs: no inline helper reaches a
#    connector's library (libweir-kafka, libweir-file).
# Input: HEADER (e.g. weir/job.h), INCLUDE, WORK, GCC, CLANG, GXX, CLANGXX,
# LIBWEIR.
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY ${WORK})
set(failures "")

file(READ ${INCLUDE}/${HEADER} text)
if(NOT HEADER STREQUAL "weir/export.h")
  string(REGEX MATCH "__builtin_[a-z_]+|__attribute__|__typeof__|typeof|__extension__|__asm__|\\(\\{"
         gnu "${text}")
  if(gnu)
    string(APPEND failures "  ${HEADER} uses '${gnu}', which only GCC and clang know: "
                           "use (or add) a macro of weir/export.h, which has a fallback\n")
  endif()
endif()
string(FIND "${text}" "WEIR_EXPORT " exported)
if(NOT HEADER STREQUAL "weir/export.h" AND exported GREATER -1)
  string(FIND "${text}" "#ifdef __cplusplus\nextern \"C\" {" opens)
  if(opens EQUAL -1)
    string(APPEND failures "  ${HEADER} declares functions but has no '#ifdef __cplusplus / extern \"C\" {'\n")
  endif()
endif()

# The file a user would write: the header alone, twice, then one declaration
# of the user's own (a C file must declare something).
set(body "#include <${HEADER}>\n#include <${HEADER}>\ntypedef int weir_header_check_t;\n")
file(WRITE ${WORK}/check.c "${body}")
file(WRITE ${WORK}/check.cpp "${body}")

set(common -Wpedantic -Wall -Wextra -Werror -Wconversion -Wshadow -Wundef)
set(c_flags -std=c11 ${common} -Wsign-conversion -Wstrict-prototypes -Wcast-qual)
set(cxx_flags -std=c++17 ${common})

function(weir_check_compile compiler flags src what)
  execute_process(
    COMMAND ${compiler} ${flags} -I${INCLUDE} -fsyntax-only ${src}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(JOIN " " line ${compiler} ${flags})
    set(failures "${failures}  ${what}: ${line} failed:\n${out}\n" PARENT_SCOPE)
  endif()
endfunction()

foreach(builtins IN ITEMS "" "-DWEIR_NO_BUILTINS")
  weir_check_compile(${GCC} "${c_flags};${builtins}" ${WORK}/check.c "C11 ${builtins}")
  weir_check_compile(${CLANG} "${c_flags};${builtins}" ${WORK}/check.c "C11 ${builtins}")
  weir_check_compile(${GXX} "${cxx_flags};${builtins}" ${WORK}/check.cpp "C++17 ${builtins}")
  weir_check_compile(${CLANGXX} "${cxx_flags};${builtins}" ${WORK}/check.cpp "C++17 ${builtins}")
endforeach()

if(HEADER STREQUAL "weir.h")
  # C linkage for real: a C++ program links with the C library and calls it.
  file(WRITE ${WORK}/linkage.cpp
    "#include <weir.h>\n#include <cstdio>\n#include <cstring>\n"
    "int main() { std::printf(\"%s\\n\", weir_version());\n"
    "  return std::strcmp(weir_version(), WEIR_VERSION_STRING) != 0; }\n")
  get_filename_component(libdir ${LIBWEIR} DIRECTORY)
  execute_process(
    COMMAND ${GXX} ${cxx_flags} -I${INCLUDE} ${WORK}/linkage.cpp ${LIBWEIR} -Wl,-rpath,${libdir}
            -o ${WORK}/linkage
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(APPEND failures "  a C++ program calling weir_version() does not link with ${LIBWEIR}:\n${out}\n")
  else()
    execute_process(COMMAND ${WORK}/linkage RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
      string(APPEND failures "  the C++ program's weir_version() is not WEIR_VERSION_STRING: ${out}\n")
    endif()
  endif()

  # Every inline helper of the public headers, kept, resolves in libweir
  # alone (--no-undefined has no say over an executable: the link itself
  # fails on a symbol libweir does not have).
  file(WRITE ${WORK}/inline.c
    "#include <weir.h>\n#include <stdio.h>\n#include <string.h>\n"
    "int main(void) { printf(\"%s\\n\", weir_version());\n"
    "  return strcmp(weir_version(), WEIR_VERSION_STRING) != 0; }\n")
  execute_process(
    COMMAND ${GCC} -std=c11 -O0 -fkeep-inline-functions -Wno-unused-function -I${INCLUDE}
            ${WORK}/inline.c ${LIBWEIR} -Wl,-rpath,${libdir} -o ${WORK}/inline
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(APPEND failures "  with every inline function of the public headers kept (gcc "
                           "-fkeep-inline-functions), a C program does not link with ${LIBWEIR} alone:\n${out}\n")
  else()
    execute_process(COMMAND ${WORK}/inline RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
      string(APPEND failures "  the C program with every inline function kept failed: ${out}\n")
    endif()
  endif()
endif()

if(failures)
  message(FATAL_ERROR "header ${HEADER}:\n${failures}")
endif()
message(STATUS "header ${HEADER}: alone, with gcc, clang, g++ and clang++: fine")
