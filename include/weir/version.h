/* weir/version.h — which weir this is: the version of the headers a program
 * was compiled against (the macros) and of the library it runs with
 * (weir_version()).
 *
 * Versions follow semantic versioning. The shared library's soname carries
 * WEIR_ABI_VERSION (libweir.so.0): it changes whenever a program built
 * against older headers could break with the newer library. While the major
 * version is 0 a minor release may break the ABI and then bumps
 * WEIR_ABI_VERSION. The top-level CMakeLists.txt reads the numbers from this
 * file: it is their one source. */
#ifndef WEIR_VERSION_H
#define WEIR_VERSION_H

#include "weir/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEIR_VERSION_MAJOR 0
#define WEIR_VERSION_MINOR 1
#define WEIR_VERSION_PATCH 0
#define WEIR_ABI_VERSION 2

/* "0.1.0": the three numbers above as text. */
#define WEIR__STR2(x) #x
#define WEIR__STR(x) WEIR__STR2(x)
#define WEIR_VERSION_STRING \
    WEIR__STR(WEIR_VERSION_MAJOR) "." WEIR__STR(WEIR_VERSION_MINOR) "." WEIR__STR(WEIR_VERSION_PATCH)

/* One number that grows with every release: 0.1.0 is 100, 1.2.3 is 10203. */
#define WEIR_VERSION_NUMBER \
    (WEIR_VERSION_MAJOR * 10000 + WEIR_VERSION_MINOR * 100 + WEIR_VERSION_PATCH)

/* The version of the weir library the program runs with ("0.1.0"), which
 * can differ from WEIR_VERSION_STRING of the headers it was compiled with
 * (a newer libweir.so.0 installed later). A static string; MT safe. */
WEIR_EXPORT const char *weir_version(void);

#ifdef __cplusplus
}
#endif
#endif
