# Install rules: what `cmake --install build --prefix P` puts under P, in
# three components that are also the three Debian packages
# (cmake/WeirPackaging.cmake):
#   runtime  lib/libweir.so.<ABI>... (package libweir<ABI>)
#   dev      include/weir.h, include/weir/*.h, lib/libweir.so, lib/libweir.a,
#            lib/pkgconfig/weir.pc and weir-static.pc, lib/cmake/weir/*.cmake,
#            share/doc/weir
#            (package libweir-dev)
#   tools    bin/weir, share/weir/viewer/index.html (package weir-tools)
include(CMakePackageConfigHelpers)

set(WEIR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/weir)

# The command line finds libweir in a prefix of its own (P/bin/weir next to
# P/lib); installed into the system's library directory (the Debian package)
# it needs no RPATH and gets none.
list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${CMAKE_INSTALL_FULL_LIBDIR}" weir_libdir_is_system)
if(weir_libdir_is_system EQUAL -1 AND TARGET weir-cli)
  file(RELATIVE_PATH weir_bin_to_lib "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
  set_target_properties(weir-cli PROPERTIES INSTALL_RPATH "$ORIGIN/${weir_bin_to_lib}")
endif()

set_target_properties(weir_static PROPERTIES EXPORT_NAME weir_static)
install(TARGETS weir weir_static EXPORT weirTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/weir.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/weir
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.h")

# The CMake package: find_package(weir) gives weir::weir (libweir.so) and
# weir::weir_static (libweir.a, whose dependencies weirConfig.cmake finds
# with pkg-config).
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
set(weir_pc_dirs "")
set(weir_pc_libs "")
foreach(dep WEIR_CK WEIR_URCU_CDS WEIR_MSGPACK WEIR_XXHASH WEIR_JANSSON WEIR_RDKAFKA)
  foreach(dir IN LISTS ${dep}_LIBRARY_DIRS)
    list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${dir}" weir_system)
    if(weir_system EQUAL -1 AND NOT dir MATCHES "^/(usr/)?lib/?$")
      list(APPEND weir_pc_dirs "-L${dir}")
    endif()
  endforeach()
  foreach(lib IN LISTS ${dep}_LIBRARIES)
    list(APPEND weir_pc_libs "-l${lib}")
  endforeach()
endforeach()
list(REMOVE_DUPLICATES weir_pc_dirs)
string(JOIN " " WEIR_PC_LIBS_PRIVATE ${weir_pc_dirs} ${weir_pc_libs} -lcsv -lunistring -pthread -lm)
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

if(TARGET weir-cli)
  install(TARGETS weir-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
  install(FILES ${PROJECT_SOURCE_DIR}/viewer/index.html
    DESTINATION ${CMAKE_INSTALL_DATADIR}/weir/viewer COMPONENT tools)
endif()

file(GLOB weir_docs ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${weir_docs}
  DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT dev)
