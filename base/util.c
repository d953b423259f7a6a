/* util.c — the helpers of util.h that are not inline: the invariant abort,
 * strdup, mkdir -p and the names of file kinds. */
#include "util.h"

#include <errno.h>
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

/* One folder; 0 if it is a folder afterwards. */
static int mkdir_one(const char *path)
{
    if (mkdir(path, 0777) == 0)
        return 0;
    int err = errno;
    struct stat st;
    if (err == EEXIST) {
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return 0;
        err = ENOTDIR;
    }
    errno = err;
    return -1;
}

int weir__mkdirs(const char *path, char **failed)
{
    if (failed)
        *failed = NULL;
    size_t n = strlen(path);
    char *p = weir__strdup(path);
    if (!p)
        return -1;
    int r = 0;
    /* Each '/' after a name ends a parent: make it, then put the '/' back. */
    for (size_t i = 1; i < n && r == 0; i++) {
        if (p[i] != '/' || p[i - 1] == '/')
            continue;
        p[i] = '\0';
        r = mkdir_one(p);
        if (r != 0)
            break;
        p[i] = '/';
    }
    if (r == 0)
        r = mkdir_one(p);
    int err = errno;
    if (r != 0 && failed)
        *failed = p;
    else
        free(p);
    errno = err;
    return r;
}
