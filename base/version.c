/* version.c — weir_version(): the library's own version, compiled in from
 * weir/version.h, so a program can tell which libweir it was loaded with. */
#include "weir/version.h"

const char *weir_version(void)
{
    return WEIR_VERSION_STRING;
}
