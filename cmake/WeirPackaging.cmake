# Debian packages with CPack, one per install component (cmake/WeirInstall.cmake):
#   libweir<ABI>        the engine's shared library (what a program built
#                       against weir needs)
#   libweir-kafka<ABI>  the Kafka connector's shared library
#   libweir-file<ABI>   the file connectors' shared library
#   libweir-nexmark<ABI> the Nexmark generator's shared library
#   libweir-dev         headers, libweir.so, libweir.a and the connectors' .so
#                       and .a, weir.pc, weir-static.pc and the connectors'
#                       .pc files, the CMake package, docs
#   weir-tools          the `weir` command line and the viewer
# Split as Debian splits a library: a program needs only libweir<ABI> (and
# the connectors' packages it links; a program of map -> window pulls in no
# Kafka client), and several ABI versions can be installed side by side.
# Build them from a tree configured for /usr (the `deb` presets):
#   cmake --preset deb && cmake --build --preset deb && cpack --preset deb
# The synopsis is the project's description, the same for all; each
# package's own text follows it. The libraries' and the command line's
# Depends come from dpkg-shlibdeps (Debian's names for the libraries they
# link, with versions: weir uses only Concurrency Kit's and xxHash's inline
# functions, so libweir.so needs neither at run time and only liburcu8,
# libmsgpackc2, libunistring and libpcre2-8 appear; librdkafka1 (and libweir-file) for libweir-kafka,
# libjansson4 and libcsv3 for libweir-file, none of its own for
# libweir-nexmark), with the weir packages of the
# same build named here; libweir-dev depends on the -dev
# packages of the libraries that the .pc files' Libs.private and the -static
# .pc files' Libs name (a static link needs them).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME weir)
set(CPACK_PACKAGE_VENDOR "weir")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "event-time dataflow engine in C11 (Apache Flink's watermark rules)")
set(CPACK_PACKAGE_CONTACT "weir developers <weir-dev@invalid>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime connector_kafka connector_file connector_nexmark dev)
if(TARGET weir-cli)
  list(APPEND CPACK_COMPONENTS_ALL tools)
endif()

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The connectors' libraries and the command line link libweir.so.<ABI> (and
# the connectors' libraries) of the same build: dpkg-shlibdeps finds them
# there.
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

# The connectors' libraries, each its own package beside libweir<ABI>.
set(weir_kafka_package "libweir-kafka${WEIR_ABI_VERSION}")
set(weir_file_package "libweir-file${WEIR_ABI_VERSION}")
set(weir_nexmark_package "libweir-nexmark${WEIR_ABI_VERSION}")
set(CPACK_DEBIAN_CONNECTOR_KAFKA_PACKAGE_NAME ${weir_kafka_package})
set(CPACK_DEBIAN_CONNECTOR_KAFKA_PACKAGE_SECTION libs)
# libweir-kafka.so links libweir-file.so (JSON values).
set(CPACK_DEBIAN_CONNECTOR_KAFKA_PACKAGE_DEPENDS
  "${weir_lib_package} (= ${weir_deb_version}), ${weir_file_package} (= ${weir_deb_version})")
set(CPACK_DEBIAN_CONNECTOR_KAFKA_DESCRIPTION
  "The shared library libweir-kafka.so.${WEIR_ABI_VERSION}: weir's Kafka source and sink (librdkafka),\nwith watermarks per partition and exactly-once transactions, and an\nin-process mock cluster (weir/kafka.h).")
set(CPACK_DEBIAN_CONNECTOR_FILE_PACKAGE_NAME ${weir_file_package})
set(CPACK_DEBIAN_CONNECTOR_FILE_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_CONNECTOR_FILE_PACKAGE_DEPENDS "${weir_lib_package} (= ${weir_deb_version})")
set(CPACK_DEBIAN_CONNECTOR_FILE_DESCRIPTION
  "The shared library libweir-file.so.${WEIR_ABI_VERSION}: weir's file source (JSON lines by jansson,\nCSV by libcsv), its exactly-once file sink and SQL's 'filesystem'\nconnector (weir/file_source.h, weir/file_sink.h).")

set(CPACK_DEBIAN_CONNECTOR_NEXMARK_PACKAGE_NAME ${weir_nexmark_package})
set(CPACK_DEBIAN_CONNECTOR_NEXMARK_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_CONNECTOR_NEXMARK_PACKAGE_DEPENDS "${weir_lib_package} (= ${weir_deb_version})")
set(CPACK_DEBIAN_CONNECTOR_NEXMARK_DESCRIPTION
  "The shared library libweir-nexmark.so.${WEIR_ABI_VERSION}: the Nexmark benchmark's online-auction\nevents (persons, auctions, bids) as a parallel, checkpointed, reproducible\nsource, and SQL's 'nexmark' connector (weir/nexmark.h).")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libweir-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
  "${weir_lib_package} (= ${weir_deb_version}), ${weir_kafka_package} (= ${weir_deb_version}), ${weir_file_package} (= ${weir_deb_version}), ${weir_nexmark_package} (= ${weir_deb_version}), libck-dev, liburcu-dev, libmsgpack-dev, libxxhash-dev, libpcre2-dev, libjansson-dev, librdkafka-dev, libcsv-dev, libunistring-dev, pkg-config | pkgconf")
set(CPACK_DEBIAN_DEV_DESCRIPTION
  "Headers, the static libraries, weir.pc, weir-static.pc, weir-kafka.pc,\nweir-kafka-static.pc, weir-file.pc, weir-file-static.pc, weir-nexmark.pc\nand weir-nexmark-static.pc for pkg-config and the CMake package\n(find_package(weir), targets weir::weir, weir::weir_static,\nweir::weir-kafka, weir::weir-kafka-static, weir::weir-file,\nweir::weir-file-static, weir::weir-nexmark and weir::weir-nexmark-static),\nand weir's documentation.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME weir-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS
  "${weir_lib_package} (= ${weir_deb_version}), ${weir_kafka_package} (= ${weir_deb_version}), ${weir_file_package} (= ${weir_deb_version}), ${weir_nexmark_package} (= ${weir_deb_version})")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
  "The weir command: scripted runs of one operator, the watermark demo, and\nconversion, validation and summaries of captures; the one-file capture\nviewer in /usr/share/weir/viewer/index.html.")

if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
endif()
include(CPack)
