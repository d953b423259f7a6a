# check_links.cmake — the wall between libweir and the connectors
# (tests/walls/CMakeLists.txt, docs/DESIGN.md): libweir links no connector's
# dependencies, so that a program that runs map -> window links no Kafka
# client; the connectors' libraries link libweir and resolve against it.
#   - libweir.so has no NEEDED entry for librdkafka, jansson or libcsv, and
#     no undefined symbol of theirs; neither has any member of libweir.a;
#   - libweir.so defines none of the connectors' symbols (a connector's
#     object is in its own library, not also in libweir);
#   - each connector library NEEDs libweir's soname, and every weir symbol
#     it leaves undefined is one libweir.so exports, or one of another
#     connector library it NEEDs (libweir-kafka reads JSON with
#     libweir-file's weir_row_parse_json).
# Input: READELF, NM, LIBWEIR (libweir.so), LIBWEIR_STATIC (libweir.a),
# CONNECTORS ('|'-separated connector libraries).
cmake_minimum_required(VERSION 3.25)
set(failures "")
# librdkafka's, jansson's and libcsv's libraries and symbols
set(foreign_libs "^lib(rdkafka|jansson|csv|weir-[a-z]+)\\.so")
set(foreign_syms "^(rd_kafka_|rd_kafkap_|json_|jansson_|csv_)")

# run(<out var> <command>...): the command's output; its failure fails the test.
function(run out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(JOIN " " line ${ARGN})
    message(FATAL_ERROR "${line} failed (${rc}):\n${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# needed(<out> <library>): its NEEDED entries; soname(<out> <library>).
function(needed out lib)
  run(text ${READELF} -d ${lib})
  string(REGEX MATCHALL "\\(NEEDED\\)[^[]*\\[[^]]*\\]" entries "${text}")
  set(names "")
  foreach(e IN LISTS entries)
    string(REGEX REPLACE ".*\\[(.*)\\]" "\\1" name "${e}")
    list(APPEND names ${name})
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()
function(soname out lib)
  run(text ${READELF} -d ${lib})
  string(REGEX MATCH "\\(SONAME\\)[^[]*\\[([^]]*)\\]" m "${text}")
  set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

# symbols(<out> <nm flags>... FILE <file>): the names nm lists, one per
# element (nm's last column; archive member headers and blank lines dropped).
function(symbols out)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "FILE" "")
  run(text ${NM} ${arg_UNPARSED_ARGUMENTS} ${arg_FILE})
  string(REPLACE "\n" ";" lines "${text}")
  set(names "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^.*:$" OR line STREQUAL "")
      continue()
    endif()
    string(REGEX REPLACE "^.* ([^ ]+)$" "\\1" name "${line}")
    string(REGEX REPLACE "@.*$" "" name "${name}")
    list(APPEND names ${name})
  endforeach()
  list(REMOVE_DUPLICATES names)
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

# libweir.so's own links and symbols.
needed(weir_needed ${LIBWEIR})
foreach(n IN LISTS weir_needed)
  if(n MATCHES "${foreign_libs}")
    string(APPEND failures "  ${LIBWEIR} NEEDs ${n}, a connector's library or dependency\n")
  endif()
endforeach()
symbols(weir_undefined -D --undefined-only FILE ${LIBWEIR})
symbols(weir_static_undefined --undefined-only FILE ${LIBWEIR_STATIC})
foreach(pair IN ITEMS "weir_undefined;${LIBWEIR}" "weir_static_undefined;${LIBWEIR_STATIC}")
  list(GET pair 0 var)
  list(GET pair 1 file)
  set(bad "")
  foreach(s IN LISTS ${var})
    if(s MATCHES "${foreign_syms}")
      list(APPEND bad ${s})
    endif()
  endforeach()
  if(bad)
    list(LENGTH bad n)
    list(SUBLIST bad 0 8 some)
    string(JOIN ", " some ${some})
    string(APPEND failures "  ${file} leaves ${n} symbols of librdkafka, jansson or libcsv undefined: ${some}\n")
  endif()
endforeach()
symbols(weir_defined -D --defined-only FILE ${LIBWEIR})
soname(weir_soname ${LIBWEIR})

# Each connector's library: first what each defines and its soname.
string(REPLACE "|" ";" connectors "${CONNECTORS}")
foreach(lib IN LISTS connectors)
  soname(name ${lib})
  symbols(defined_${name} -D --defined-only FILE ${lib})
endforeach()
foreach(lib IN LISTS connectors)
  needed(lib_needed ${lib})
  # what it may take from the other connector libraries it NEEDs
  set(from_others "")
  foreach(other IN LISTS connectors)
    soname(other_name ${other})
    if(NOT other STREQUAL lib AND other_name IN_LIST lib_needed)
      list(APPEND from_others ${defined_${other_name}})
    endif()
  endforeach()
  if(NOT weir_soname IN_LIST lib_needed)
    string(APPEND failures "  ${lib} does not NEED ${weir_soname} (it NEEDs: ${lib_needed})\n")
  endif()
  symbols(lib_defined -D --defined-only FILE ${lib})
  foreach(s IN LISTS lib_defined)
    if(s MATCHES "^weir" AND s IN_LIST weir_defined)
      string(APPEND failures "  ${s} is defined by ${lib} and by ${LIBWEIR} too\n")
    endif()
  endforeach()
  symbols(lib_undefined -D --undefined-only FILE ${lib})
  set(unresolved "")
  foreach(s IN LISTS lib_undefined)
    if(s MATCHES "^weir" AND NOT s IN_LIST weir_defined AND NOT s IN_LIST from_others)
      list(APPEND unresolved ${s})
    endif()
  endforeach()
  if(unresolved)
    string(JOIN ", " unresolved ${unresolved})
    string(APPEND failures "  ${lib} needs weir symbols that neither ${LIBWEIR} nor the connector libraries it NEEDs export: ${unresolved}\n")
  endif()
  message(STATUS "${lib}: NEEDs ${weir_soname}; its undefined weir symbols are libweir's or its connector libraries'")
endforeach()

if(failures)
  message(FATAL_ERROR "the wall between libweir and the connectors:\n${failures}")
endif()
string(JOIN ", " weir_needed ${weir_needed})
message(STATUS "${LIBWEIR} NEEDs ${weir_needed}: no librdkafka, jansson or libcsv, and none of their symbols")
