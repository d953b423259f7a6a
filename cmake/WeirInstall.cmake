# Install rules: what `cmake --install build --prefix P` puts under P, in
# six components that are also the six Debian packages
# (cmake/WeirPackaging.cmake):
#   runtime  lib/libweir.so.<ABI>... (package libweir<ABI>)
#   connector_kafka
#            lib/libweir-kafka.so.<ABI>... (package libweir-kafka<ABI>)
#   connector_file
#            lib/libweir-file.so.<ABI>... (package libweir-file<ABI>; not
#            plain "file": cmake_install.cmake's own loops set a variable of
#            that name, which its if(... STREQUAL "file") would read)
#   connector_nexmark
#            lib/libweir-nexmark.so.<ABI>... (package libweir-nexmark<ABI>)
#   dev      include/weir.h, include/weir/*.h, lib/libweir.so, lib/libweir.a,
#            lib/libweir-kafka.so and .a, lib/libweir-file.so and .a,
#            lib/libweir-nexmark.so and .a,
#            lib/pkgconfig/weir.pc, weir-static.pc, weir-kafka.pc,
#            weir-kafka-static.pc, weir-file.pc, weir-file-static.pc,
#            weir-nexmark.pc, weir-nexmark-static.pc,
#            lib/cmake/weir/*.cmake, share/doc/weir
#            (package libweir-dev)
#   tools    bin/weir, share/weir/viewer/index.html (package weir-tools)
include(CMakePackageConfigHelpers)

set(WEIR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/weir)

# The command line finds libweir and the connectors' libraries in a prefix
# of its own (P/bin/weir next to P/lib), and a connector's library finds
# libweir beside it; installed into the system's library directory (the
# Debian packages) they need no RPATH and get none.
list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${CMAKE_INSTALL_FULL_LIBDIR}" weir_libdir_is_system)
if(weir_libdir_is_system EQUAL -1)
  if(TARGET weir-cli)
    file(RELATIVE_PATH weir_bin_to_lib "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
    set_target_properties(weir-cli PROPERTIES INSTALL_RPATH "$ORIGIN/${weir_bin_to_lib}")
  endif()
  set_target_properties(weir-kafka weir-file weir-nexmark PROPERTIES INSTALL_RPATH "$ORIGIN")
endif()

set_target_properties(weir_static PROPERTIES EXPORT_NAME weir_static)
install(TARGETS weir weir_static EXPORT weirTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(connector kafka file nexmark)
  install(TARGETS weir-${connector} weir-${connector}-static EXPORT weirTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT connector_${connector}
      NAMELINK_COMPONENT dev
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/include/weir.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/weir
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.h")

# The CMake package: find_package(weir) gives weir::weir (libweir.so),
# weir::weir_static (libweir.a), and the connectors' libraries, always:
# weir::weir-kafka, weir::weir-file and weir::weir-nexmark (which bring
# weir::weir), weir::weir-kafka-static, weir::weir-file-static and
# weir::weir-nexmark-static (which bring weir::weir_static). The static libraries' dependencies weirConfig.cmake
# finds with pkg-config.
install(EXPORT weirTargets NAMESPACE weir:: DESTINATION ${WEIR_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/weirConfig.cmake.in
  ${PROJECT_BINARY_DIR}/weirConfig.cmake INSTALL_DESTINATION ${WEIR_CMAKE_DIR})
# While the major version is 0 a minor release may break the ABI (weir/version.h).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(weir_compat SameMinorVersion)
else()
  set(weir_compat SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/weirConfigVersion.cmake
  COMPATIBILITY ${weir_compat})
install(FILES ${PROJECT_BINARY_DIR}/weirConfig.cmake ${PROJECT_BINARY_DIR}/weirConfigVersion.cmake
  DESTINATION ${WEIR_CMAKE_DIR} COMPONENT dev)

# weir.pc. Relocatable (paths from ${pcfiledir}), so the tree installed with
# --prefix P works wherever P is; under /usr it names /usr itself, because a
# -I/usr/include on a C++ compiler's line breaks its #include_next.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}"
   OR CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(WEIR_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(WEIR_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(WEIR_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH weir_pc_up "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" weir_pc_up "${weir_pc_up}")
  set(WEIR_PC_PREFIX "\${pcfiledir}/${weir_pc_up}")
  set(WEIR_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(WEIR_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# A static link needs libweir.a's dependencies. They go into Libs.private
# (and weir-static.pc's Libs, below) as the link flags pkg-config gave this
# build, not as Requires.private: the
# dependencies' .pc files would add their own Cflags to every consumer's
# compile line (ck.pc's -D__x86_64__, msgpack's -I/usr/include/<triplet>),
# and weir's public headers include none of their headers.
# The system's own library directories are left out, as pkg-config would.
# weir_pc_link_flags(<out> <pkg-config prefix>... [EXTRA <flag>...])
function(weir_pc_link_flags out)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "EXTRA")
  set(dirs "")
  set(libs "")
  foreach(dep IN LISTS arg_UNPARSED_ARGUMENTS)
    foreach(dir IN LISTS ${dep}_LIBRARY_DIRS)
      list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${dir}" system)
      if(system EQUAL -1 AND NOT dir MATCHES "^/(usr/)?lib/?$")
        list(APPEND dirs "-L${dir}")
      endif()
    endforeach()
    foreach(lib IN LISTS ${dep}_LIBRARIES)
      list(APPEND libs "-l${lib}")
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES dirs)
  string(JOIN " " flags ${dirs} ${libs} ${arg_EXTRA})
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()
weir_pc_link_flags(WEIR_PC_LIBS_PRIVATE WEIR_CK WEIR_URCU_CDS WEIR_MSGPACK WEIR_XXHASH WEIR_PCRE2
  WEIR_MHD
  EXTRA -lunistring -pthread -lm)
configure_file(${PROJECT_SOURCE_DIR}/cmake/weir.pc.in ${PROJECT_BINARY_DIR}/weir.pc @ONLY)
# weir-static.pc: libweir.a in a program whose other libraries stay shared,
# so that it needs no libweir.so to run. `pkg-config --static weir` cannot
# give that: --static only adds Libs.private to Libs, and the linker takes
# libweir.so for Libs' -lweir whenever it finds one (pkg-config has no
# per-library static switch). So the archive is named by its path (not
# -l:libweir.a, which only GNU-style linkers read), followed by what it needs.
configure_file(${PROJECT_SOURCE_DIR}/cmake/weir-static.pc.in ${PROJECT_BINARY_DIR}/weir-static.pc
  @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/weir.pc ${PROJECT_BINARY_DIR}/weir-static.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# weir-kafka.pc, weir-file.pc and weir-nexmark.pc (Requires: weir; their own dependencies in
# Libs.private; weir-kafka's Requires.private: weir-file, which
# libweir-kafka.so links), weir-kafka-static.pc, weir-file-static.pc and
# weir-nexmark-static.pc
# (Requires: weir-static, and weir-file-static for weir-kafka-static; the
# archive by its path, then its dependencies, as weir-static.pc).
# pkg-config puts a package's Libs before those of the packages it
# requires, as a static link needs: libweir-kafka.a, libweir-file.a, then
# libweir.a.
weir_pc_link_flags(WEIR_KAFKA_PC_LIBS WEIR_RDKAFKA)
weir_pc_link_flags(WEIR_FILE_PC_LIBS WEIR_JANSSON EXTRA -lcsv)
weir_pc_link_flags(WEIR_NEXMARK_PC_LIBS EXTRA -pthread -lm)
foreach(connector kafka file nexmark)
  set(WEIR_CONNECTOR ${connector})
  string(TOUPPER ${connector} upper)
  set(WEIR_CONNECTOR_LIBS "${WEIR_${upper}_PC_LIBS}")
  set(WEIR_CONNECTOR_REQUIRES_PRIVATE "")
  set(WEIR_CONNECTOR_REQUIRES_STATIC "")
  if(connector STREQUAL "kafka")
    set(WEIR_CONNECTOR_WHAT "the Kafka source and sink and the mock cluster (weir/kafka.h), SQL's 'kafka' connector")
    set(WEIR_CONNECTOR_REQUIRES_PRIVATE "weir-file = ${PROJECT_VERSION}")
    set(WEIR_CONNECTOR_REQUIRES_STATIC "weir-file-static = ${PROJECT_VERSION}, ")
  elseif(connector STREQUAL "nexmark")
    set(WEIR_CONNECTOR_WHAT "the Nexmark benchmark's event generator as a source (weir/nexmark.h), SQL's 'nexmark' connector")
  else()
    set(WEIR_CONNECTOR_WHAT "the file source and the exactly-once file sink (weir/file_source.h, weir/file_sink.h), SQL's 'filesystem' connector")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/weir-connector.pc.in
    ${PROJECT_BINARY_DIR}/weir-${connector}.pc @ONLY)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/weir-connector-static.pc.in
    ${PROJECT_BINARY_DIR}/weir-${connector}-static.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/weir-${connector}.pc
    ${PROJECT_BINARY_DIR}/weir-${connector}-static.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
endforeach()

if(TARGET weir-cli)
  install(TARGETS weir-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
  install(FILES ${PROJECT_SOURCE_DIR}/viewer/index.html
    DESTINATION ${CMAKE_INSTALL_DATADIR}/weir/viewer COMPONENT tools)
endif()

file(GLOB weir_docs ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${weir_docs}
  DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT dev)
