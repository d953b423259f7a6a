# Finds the libraries weir REQUIRES and turns each into an imported target.
# A missing one stops the configure step with the Debian package that provides
# it; nothing is ever skipped silently. scripts/install-deps.sh installs them.
#
# The library needs Concurrency Kit, liburcu, msgpack-c, xxHash,
# libunistring (UPPER and LOWER of SQL strings), PCRE2 (SQL's regular
# expressions: REGEXP_EXTRACT, REGEXP_REPLACE, REGEXP, SIMILAR TO), libmicrohttpd (the
# HTTP server that serves a running job: docs/LIVE.md) and threads; the connectors'
# libraries, built with it, librdkafka (libweir-kafka) and
# jansson and libcsv (libweir-file); the tests add Criterion and GMP (and the
# compilers of the header checks, tests/headers). Each is looked up only when
# what needs it is built, so a library-only configure
# (-DWEIR_BUILD_TESTS=OFF -DWEIR_BUILD_TOOLS=OFF ...) needs nothing else.

find_package(PkgConfig)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR
    "weir: pkg-config not found. Install the Debian package 'pkg-config' "
    "(or run scripts/install-deps.sh as root).")
endif()

# weir_require_pkg(<target> <pkg-config name> <Debian package> <who needs it>)
function(weir_require_pkg target module debian why)
  pkg_check_modules(${target} QUIET IMPORTED_TARGET GLOBAL ${module})
  if(NOT ${target}_FOUND)
    message(FATAL_ERROR
      "weir: ${why} requires the library '${module}', not found. Install the Debian "
      "package '${debian}' (or run scripts/install-deps.sh as root).")
  endif()
  message(STATUS "weir: found ${module} ${${target}_VERSION} (${debian})")
endfunction()

weir_require_pkg(WEIR_CK        ck          libck-dev      "libweir")
weir_require_pkg(WEIR_URCU_CDS  liburcu-cds liburcu-dev    "libweir")
weir_require_pkg(WEIR_MSGPACK   msgpack     libmsgpack-dev "libweir")
weir_require_pkg(WEIR_XXHASH    libxxhash   libxxhash-dev  "libweir")
weir_require_pkg(WEIR_PCRE2     libpcre2-8  libpcre2-dev   "libweir (SQL's regular expressions)")
weir_require_pkg(WEIR_MHD       libmicrohttpd libmicrohttpd-dev
  "libweir (the HTTP server of a running job, weir_job_config.http_addr: docs/LIVE.md)")
weir_require_pkg(WEIR_JANSSON   jansson     libjansson-dev "libweir-file (JSON lines)")
weir_require_pkg(WEIR_RDKAFKA   rdkafka     librdkafka-dev "libweir-kafka (the Kafka source and sink)")
find_package(Threads REQUIRED)
if(WEIR_BUILD_TOOLS)
  # libedit (BSD): the line editing and history of `weir sql`'s interactive
  # shell (tools/sql_shell.c; GNU readline would make the command GPL)
  weir_require_pkg(WEIR_LIBEDIT libedit libedit-dev "the command line's SQL shell (weir sql)")
endif()

# libcsv (the CSV file source) ships no pkg-config file: its header and
# library are looked up by name, as one imported target.
find_path(WEIR_CSV_INCLUDE_DIR csv.h)
find_library(WEIR_CSV_LIBRARY NAMES csv)
if(NOT WEIR_CSV_INCLUDE_DIR OR NOT WEIR_CSV_LIBRARY)
  message(FATAL_ERROR
    "weir: libweir-file (the CSV file source) requires the library 'libcsv', not found. Install "
    "the Debian package 'libcsv-dev' (or run scripts/install-deps.sh as root).")
endif()
if(NOT TARGET weir::csv)
  add_library(weir::csv UNKNOWN IMPORTED GLOBAL)
  set_target_properties(weir::csv PROPERTIES IMPORTED_LOCATION ${WEIR_CSV_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${WEIR_CSV_INCLUDE_DIR})
endif()
message(STATUS "weir: found libcsv ${WEIR_CSV_LIBRARY} (libcsv-dev)")

# libunistring (Unicode case mapping: UPPER and LOWER as Java's
# String.toUpperCase in the root locale, 'üß' to 'ÜSS') ships no pkg-config
# file either.
find_path(WEIR_UNISTRING_INCLUDE_DIR unicase.h)
find_library(WEIR_UNISTRING_LIBRARY NAMES unistring)
if(NOT WEIR_UNISTRING_INCLUDE_DIR OR NOT WEIR_UNISTRING_LIBRARY)
  message(FATAL_ERROR
    "weir: libweir (UPPER and LOWER of strings) requires the library 'libunistring', not "
    "found. Install the Debian package 'libunistring-dev' (or run scripts/install-deps.sh as "
    "root).")
endif()
if(NOT TARGET weir::unistring)
  add_library(weir::unistring UNKNOWN IMPORTED GLOBAL)
  set_target_properties(weir::unistring PROPERTIES IMPORTED_LOCATION ${WEIR_UNISTRING_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${WEIR_UNISTRING_INCLUDE_DIR})
endif()
message(STATUS "weir: found libunistring ${WEIR_UNISTRING_LIBRARY} (libunistring-dev)")
if(WEIR_BUILD_TESTS)
  weir_require_pkg(WEIR_CRITERION criterion libcriterion-dev
    "the test suite (WEIR_BUILD_TESTS; configure with -DWEIR_BUILD_TESTS=OFF for the library alone)")
  # GMP: the DECIMAL property test's independent arithmetic (tests/table/test_decimal.c)
  weir_require_pkg(WEIR_GMP gmp libgmp-dev "the DECIMAL property test (tests/table/test_decimal.c)")
endif()
