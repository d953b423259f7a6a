/* util.c — the helpers of util.h that are not inline: the invariant abort,
 * strdup and the names of file kinds. */
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>


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

const char *weir__file_kind(unsigned mode)
{
    mode_t m = (mode_t)mode;
    if (S_ISDIR(m))
        return "a folder";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISLNK(m))
        return "a symbolic link";
    return S_ISREG(m) ? "a regular file" : "a special file";
}

