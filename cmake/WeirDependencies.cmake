# Finds the libraries weir REQUIRES and turns each into an imported target.
# A missing one stops the configure step with the Debian package that provides
# it; nothing is ever skipped silently. scripts/install-deps.sh installs them.

find_package(PkgConfig)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR
    "weir: pkg-config not found. Install the Debian package 'pkg-config' "
    "(or run scripts/install-deps.sh as root).")
endif()

# weir_require_pkg(<target> <pkg-config name> <Debian package>)
function(weir_require_pkg target module debian)
  pkg_check_modules(${target} QUIET IMPORTED_TARGET GLOBAL ${module})
  if(NOT ${target}_FOUND)
    message(FATAL_ERROR
      "weir: required library '${module}' not found. Install the Debian "
      "package '${debian}' (or run scripts/install-deps.sh as root).")
  endif()
  message(STATUS "weir: found ${module} ${${target}_VERSION} (${debian})")
endfunction()

weir_require_pkg(WEIR_CK        ck          libck-dev)
weir_require_pkg(WEIR_URCU_CDS  liburcu-cds liburcu-dev)
weir_require_pkg(WEIR_MSGPACK   msgpack     libmsgpack-dev)
weir_require_pkg(WEIR_CRITERION criterion   libcriterion-dev)
weir_require_pkg(WEIR_JANSSON   jansson     libjansson-dev)
weir_require_pkg(WEIR_XXHASH    libxxhash   libxxhash-dev)

find_package(Threads REQUIRED)
