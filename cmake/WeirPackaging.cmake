# Debian packages with CPack, one per install component (cmake/WeirInstall.cmake):
#   libweir<ABI>  the shared library (what a program built against weir needs)
#   libweir-dev   headers, libweir.so, libweir.a, weir.pc and weir-static.pc, the
#                 CMake package, docs
#   weir-tools    the `weir` command line and the viewer
# Three packages, as Debian splits a library: a program needs only libweir<ABI>,
# and several ABI versions of libweir can be installed side by side.
# Build them from a tree configured for /usr (the `deb` presets):
#   cmake --preset deb && cmake --build --preset deb && cpack --preset deb
# The synopsis is the project's description, the same for the three; each
# package's own text follows it. The library's
# and the command line's Depends come from dpkg-shlibdeps (Debian's names for
# the libraries they link, with versions: weir uses only Concurrency Kit's
# and xxHash's inline functions, so libweir.so needs neither at run time and
# only liburcu8, libmsgpackc2, libjansson4, librdkafka1, libcsv3 and
# libunistring appear); libweir-dev
# depends on the -dev packages of the libraries that weir.pc's Libs.private
# and weir-static.pc's Libs name (a link with libweir.a needs them).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME weir)
set(CPACK_PACKAGE_VENDOR "weir")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "event-time dataflow engine in C11 (Apache Flink's watermark rules)")
set(CPACK_PACKAGE_CONTACT "weir developers <weir-dev@invalid>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
if(TARGET weir-cli)
  list(APPEND CPACK_COMPONENTS_ALL tools)
endif()

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The command line links libweir.so.<ABI> of the same build: dpkg-shlibdeps
# finds its symbols file there.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR})
set(weir_deb_version "${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")
set(weir_lib_package "libweir${WEIR_ABI_VERSION}")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME ${weir_lib_package})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
  "The shared library libweir.so.${WEIR_ABI_VERSION}: a multi-threaded dataflow engine in C11\nwith Apache Flink's watermark, idleness and window rules and a diagnostic\nchannel that records what event time does in every operator.")
# A shlibs file in libweir<ABI>, for the packages built against it.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libweir-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
  "${weir_lib_package} (= ${weir_deb_version}), libck-dev, liburcu-dev, libmsgpack-dev, libxxhash-dev, libjansson-dev, librdkafka-dev, libcsv-dev, libunistring-dev, pkg-config | pkgconf")
set(CPACK_DEBIAN_DEV_DESCRIPTION
  "Headers, the static library, weir.pc and weir-static.pc for pkg-config and\nthe CMake package (find_package(weir), targets weir::weir and\nweir::weir_static), and weir's documentation.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME weir-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${weir_lib_package} (= ${weir_deb_version})")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
  "The weir command: scripted runs of one operator, the watermark demo, and\nconversion, validation and summaries of captures; the one-file capture\nviewer in /usr/share/weir/viewer/index.html.")

if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
endif()
include(CPack)
