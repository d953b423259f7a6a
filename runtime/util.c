/* util.c — the helpers of util.h that are not inline: the invariant abort
 * and strdup. */
#include "util.h"

#include <stdio.h>
#include <string.h>


_Noreturn void weir__abort(const char *file, int line, const char *what)
{
    fprintf(stderr, "weir: internal invariant broken at %s:%d: %s\n", file, line, what);
    fflush(stderr);
    abort();
}

char *weir__strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}
