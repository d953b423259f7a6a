/* outfile.c — the one writer of weir's finished files (weir/outfile.h).
 *
 * Opening decides, once, what PATH is: stat() follows every link, so that a
 * FIFO or a device reached through links (/dev/stdout to a pipe, a link to
 * /dev/null) is recognised and opened in place by its own name, the kernel
 * resolving the links (some, like /proc/self/fd/1, only it can). A regular
 * file or nothing at the end of the links is the case that needs a path:
 * the temporary file goes beside the file the last link names, so the links
 * are followed here one by one (lstat, readlink), each relative target read
 * against its link's folder. The temporary file is always made new
 * (O_CREAT | O_EXCL, which never follows a link planted at its name), so
 * nothing already there is written into. Before the rename a second lstat
 * refuses a file that stopped being regular meanwhile; WEIR_OUTFILE_NEW's
 * rename (RENAME_NOREPLACE) replaces nothing at all.
 */
#include "weir/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "weir/error.h"

#define MAX_LINKS 40 /* the kernel's own limit on a path's links */

struct weir_outfile {
    char *path; /* the file written in the end */
    char *temp; /* NULL: written in place */
    FILE *f;
    unsigned flags;
};

static int fail(char *err, size_t size, int code, const char *fmt, ...) WEIR_PRINTF(4, 5);
static int fail(char *err, size_t size, int code, const char *fmt, ...)
{
    if (err && size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, size, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* stdio that could not allocate says ENOMEM: that is no I/O error. */
static const char *reason(int e)
{
    return e == ENOMEM ? "out of memory" : strerror(e);
}

static int code_of(int e)
{
    return e == ENOMEM ? WEIR_ENOMEM : e == ENOENT ? WEIR_ENOENT : WEIR_EIO;
}

static const char *kind_name(mode_t m)
{
    return weir__file_kind(m);
}

static int refuse(char *err, size_t size, const char *path, mode_t m, unsigned flags)
{
    bool stream = S_ISFIFO(m) || S_ISCHR(m);
    return fail(err, size, WEIR_EINVAL, "%s: is %s, not a regular file: not written%s", path,
                kind_name(m),
                stream && !(flags & WEIR_OUTFILE_IN_PLACE)
                    ? " (this file is written whole and renamed into place, which would "
                      "replace it)"
                    : "");
}

/* One folder of weir_outfile_make_folders: `part` of `path`. */
static int make_folder(const char *path, const char *part, char *err, size_t size)
{
    if (mkdir(part, 0777) == 0)
        return 0;
    int e = errno;
    struct stat st;
    if (e != EEXIST)
        return fail(err, size, code_of(e), "%s: cannot create the folder %s: %s", path, part,
                    reason(e));
    if (stat(part, &st) != 0) /* a link to nothing */
        return fail(err, size, WEIR_EINVAL, "%s: cannot create the folder %s: %s", path, part,
                    strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return fail(err, size, WEIR_EINVAL, "%s: cannot create the folder %s: it is %s", path,
                    part, kind_name(st.st_mode));
    return 0;
}

int weir_outfile_make_folders(const char *path, char *errbuf, size_t errsize)
{
    if (!path || !*path)
        return fail(errbuf, errsize, WEIR_EINVAL, "weir_outfile_make_folders: a path is required");
    char *part = weir__strdup(path);
    if (!part)
        return fail(errbuf, errsize, WEIR_ENOMEM, "%s: out of memory", path);
    size_t n = strlen(part);
    int r = 0;
    /* Each '/' after a name ends a parent: make it, then put the '/' back. */
    for (size_t i = 1; i < n && r == 0; i++) {
        if (part[i] != '/' || part[i - 1] == '/')
            continue;
        part[i] = '\0';
        r = make_folder(path, part, errbuf, errsize);
        part[i] = '/';
    }
    if (r == 0)
        r = make_folder(path, part, errbuf, errsize);
    free(part);
    return r;
}

/* The target of the link at `path`, malloc'ed; NULL with errno set. */
static char *read_link(const char *path)
{
    for (size_t cap = 256; cap <= ((size_t)1 << 20); cap *= 2) {
        char *buf = malloc(cap);
        if (!buf)
            return NULL;
        ssize_t n = readlink(path, buf, cap);
        if (n < 0) {
            int e = errno;
            free(buf);
            errno = e;
            return NULL;
        }
        if ((size_t)n < cap) {
            buf[n] = '\0';
            return buf;
        }
        free(buf);
    }
    errno = ENAMETOOLONG;
    return NULL;
}

/* Follows the links at `path` one by one to the file the last one names:
 * *target (malloc'ed), *exists and, if it exists, *st (never a link). */
static int follow_links(const char *path, char **target, struct stat *st, bool *exists,
                        char *err, size_t size)
{
    char *cur = strdup(path);
    if (!cur)
        return fail(err, size, WEIR_ENOMEM, "%s: out of memory", path);
    for (int hops = 0;; hops++) {
        if (lstat(cur, st) != 0) {
            int e = errno;
            if (e == ENOENT) {
                *exists = false;
                *target = cur;
                return 0;
            }
            free(cur);
            return fail(err, size, code_of(e), "%s: cannot write: %s", path, reason(e));
        }
        if (!S_ISLNK(st->st_mode)) {
            *exists = true;
            *target = cur;
            return 0;
        }
        char *link = hops < MAX_LINKS ? read_link(cur) : (errno = ELOOP, NULL);
        if (!link) {
            int e = errno;
            free(cur);
            return fail(err, size, code_of(e), "%s: cannot write: %s", path, reason(e));
        }
        const char *slash = strrchr(cur, '/');
        char *next = link;
        if (link[0] != '/' && slash) { /* relative to the link's folder */
            size_t d = (size_t)(slash - cur) + 1, n = strlen(link);
            next = malloc(d + n + 1);
            if (next) {
                memcpy(next, cur, d);
                memcpy(next + d, link, n + 1);
            }
            free(link);
            if (!next) {
                free(cur);
                return fail(err, size, WEIR_ENOMEM, "%s: out of memory", path);
            }
        }
        free(cur);
        cur = next;
    }
}

/* Six characters from [0-9A-Za-z] over the X's at the end of name. */
static void randomize(char *name, unsigned salt)
{
    static const char set[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    unsigned char b[6];
    if (getrandom(b, sizeof b, GRND_NONBLOCK) != (ssize_t)sizeof b) {
        /* no entropy yet (early boot): the time and the attempt will do,
         * O_EXCL keeps a clash harmless */
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        uint64_t v = (uint64_t)t.tv_nsec * 2654435761u ^ (uint64_t)t.tv_sec ^
                     (uint64_t)getpid() << 20 ^ (uint64_t)salt << 40;
        for (size_t i = 0; i < sizeof b; i++, v >>= 7)
            b[i] = (unsigned char)v;
    }
    char *x = name + strlen(name) - 6;
    for (size_t i = 0; i < 6; i++)
        x[i] = set[b[i] % (sizeof set - 1)];
}

/* Makes the temporary file beside `target` (which exists with *st, or not);
 * *temp malloc'ed, *fd open. */
static int make_temp(const char *target, const struct stat *st, bool exists,
                     const weir_outfile_config *cfg, char **temp, int *fd, char *err, size_t size)
{
    const char *slash = strrchr(target, '/');
    size_t dlen = slash ? (size_t)(slash - target) + 1 : 0;
    const char *prefix = cfg->temp_prefix ? cfg->temp_prefix : "";
    bool unique = cfg->temp_suffix == NULL;
    const char *suffix = unique ? ".partial.XXXXXX" : cfg->temp_suffix;
    size_t n = dlen + strlen(prefix) + strlen(target + dlen) + strlen(suffix) + 1;
    char *t = malloc(n);
    if (!t)
        return fail(err, size, WEIR_ENOMEM, "%s: out of memory", target);
    snprintf(t, n, "%.*s%s%s%s", (int)dlen, target, prefix, target + dlen, suffix);
    for (unsigned tries = 0;; tries++) {
        if (unique)
            randomize(t, tries);
        /* 0666: the umask applies, as to any new file */
        *fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (*fd >= 0)
            break;
        int e = errno;
        if (e == EEXIST && unique && tries < 100)
            continue;
        struct stat ts;
        bool there = e == EEXIST && lstat(t, &ts) == 0;
        if (there && S_ISREG(ts.st_mode) && !unique && !(cfg->flags & WEIR_OUTFILE_NEW) &&
            tries == 0 && unlink(t) == 0)
            continue; /* a regular file a killed run left: replaced */
        int r;
        if (there && !S_ISREG(ts.st_mode))
            r = fail(err, size, WEIR_EINVAL,
                     "%s: is %s, not a regular file: not replaced (%s is written there first)", t,
                     kind_name(ts.st_mode), target);
        else if (e == EEXIST)
            r = fail(err, size, WEIR_EINVAL, "%s: exists already: not replaced", t);
        else
            r = fail(err, size, code_of(e), "%s: cannot create: %s", t, reason(e));
        free(t);
        return r;
    }
    /* the file it replaces keeps its permission bits */
    if (exists && fchmod(*fd, st->st_mode & 07777) != 0) {
        int e = errno;
        close(*fd);
        unlink(t);
        free(t);
        return fail(err, size, code_of(e), "%s: cannot set its mode: %s", target, reason(e));
    }
    *temp = t;
    return 0;
}

/* PATH is a FIFO or a character device (through its links, if any):
 * opened in place by its own name. */
static int open_in_place(const char *path, int *fd, char *err, size_t size)
{
    *fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (*fd < 0)
        return fail(err, size, code_of(errno), "%s: cannot open: %s", path, reason(errno));
    struct stat st;
    if (fstat(*fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
        close(*fd);
        return fail(err, size, WEIR_EIO, "%s: changed while it was opened: not written", path);
    }
    return 0;
}

static void free_writer(weir_outfile *f)
{
    free(f->path);
    free(f->temp);
    free(f);
}

int weir_outfile_open(const char *path, const weir_outfile_config *config, weir_outfile **out,
                      char *errbuf, size_t errsize)
{
    if (out)
        *out = NULL;
    if (!path || !*path || !out)
        return fail(errbuf, errsize, WEIR_EINVAL, "weir_outfile_open: a path and out are required");
    weir_outfile_config cfg = config ? *config : (weir_outfile_config){0};
    weir_outfile *f = calloc(1, sizeof *f);
    if (!f)
        return fail(errbuf, errsize, WEIR_ENOMEM, "%s: out of memory", path);
    f->flags = cfg.flags;
    struct stat st;
    bool exists = false;
    int fd = -1, r = 0;
    if (cfg.flags & WEIR_OUTFILE_NEW) {
        if (lstat(path, &st) == 0)
            r = fail(errbuf, errsize, WEIR_EINVAL, "%s: exists already (%s): not replaced", path,
                     kind_name(st.st_mode));
        else if (errno != ENOENT)
            r = fail(errbuf, errsize, code_of(errno), "%s: cannot write: %s", path,
                     reason(errno));
        else if (!(f->path = strdup(path)))
            r = fail(errbuf, errsize, WEIR_ENOMEM, "%s: out of memory", path);
    } else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if ((cfg.flags & WEIR_OUTFILE_IN_PLACE) && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
            r = open_in_place(path, &fd, errbuf, errsize);
            if (r == 0 && !(f->path = strdup(path))) {
                close(fd);
                r = fail(errbuf, errsize, WEIR_ENOMEM, "%s: out of memory", path);
            }
            if (r == 0) {
                if (!(f->f = fdopen(fd, "wb"))) {
                    int e = errno;
                    close(fd);
                    r = fail(errbuf, errsize, code_of(e), "%s: cannot open: %s", path, reason(e));
                }
            }
            if (r) {
                free_writer(f);
                return r;
            }
            *out = f;
            return 0;
        }
        r = refuse(errbuf, errsize, path, st.st_mode, cfg.flags);
    } else {
        r = follow_links(path, &f->path, &st, &exists, errbuf, errsize);
        if (r == 0 && exists && !S_ISREG(st.st_mode)) /* changed since the stat */
            r = refuse(errbuf, errsize, f->path, st.st_mode, cfg.flags);
    }
    if (r == 0)
        r = make_temp(f->path, &st, exists, &cfg, &f->temp, &fd, errbuf, errsize);
    if (r == 0 && !(f->f = fdopen(fd, "wb"))) {
        int e = errno;
        close(fd);
        unlink(f->temp);
        r = fail(errbuf, errsize, code_of(e), "%s: cannot open: %s", f->temp, reason(e));
    }
    if (r) {
        free_writer(f);
        return r;
    }
    *out = f;
    return 0;
}

FILE *weir_outfile_stream(weir_outfile *f)
{
    return f ? f->f : NULL;
}

const char *weir_outfile_path(const weir_outfile *f)
{
    return f ? f->path : NULL;
}

const char *weir_outfile_temp(const weir_outfile *f)
{
    return f ? f->temp : NULL;
}

const char *weir_outfile_writing(const weir_outfile *f)
{
    return !f ? NULL : f->temp ? f->temp : f->path;
}

/* Flushes, fsyncs and closes the stream. */
static int finish(weir_outfile *f, char *err, size_t size)
{
    errno = 0;
    bool bad = fflush(f->f) != 0 || ferror(f->f);
    int e = errno ? errno : EIO;
    if (!bad && f->temp && (f->flags & WEIR_OUTFILE_SYNC) && fsync(fileno(f->f)) != 0) {
        bad = true;
        e = errno;
    }
    if (fclose(f->f) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    f->f = NULL;
    return bad ? fail(err, size, code_of(e), "%s: cannot write: %s", weir_outfile_writing(f),
                      reason(e))
               : 0;
}

/* The rename, to `target` as it is (its links already followed). */
static int rename_to(const char *temp, const char *target, unsigned flags, char *err, size_t size)
{
    struct stat st;
    int e;
    if (flags & WEIR_OUTFILE_NEW) {
        if (renameat2(AT_FDCWD, temp, AT_FDCWD, target, RENAME_NOREPLACE) == 0)
            return 0;
        e = errno;
        if (e == EEXIST)
            return fail(err, size, WEIR_EINVAL, "%s: exists already (%s): not replaced", target,
                        lstat(target, &st) == 0 ? kind_name(st.st_mode) : "gone again");
    } else {
        if (lstat(target, &st) == 0 && !S_ISREG(st.st_mode))
            return fail(err, size, WEIR_EINVAL,
                        "%s: is %s now, not a regular file: not replaced", target,
                        kind_name(st.st_mode));
        if (rename(temp, target) == 0)
            return 0;
        e = errno;
    }
    if (e == ENOENT && lstat(temp, &st) != 0)
        return fail(err, size, WEIR_ENOENT, "%s: missing", temp);
    return fail(err, size, code_of(e), "%s: cannot rename to %s: %s", temp, target, reason(e));
}

int weir_outfile_commit(weir_outfile *f, char *errbuf, size_t errsize)
{
    if (!f)
        return fail(errbuf, errsize, WEIR_EINVAL, "weir_outfile_commit: no writer");
    int r = finish(f, errbuf, errsize);
    if (r == 0 && f->temp)
        r = rename_to(f->temp, f->path, f->flags, errbuf, errsize);
    if (r && f->temp)
        unlink(f->temp);
    free_writer(f);
    return r;
}

int weir_outfile_close(weir_outfile *f, char *errbuf, size_t errsize)
{
    if (!f)
        return fail(errbuf, errsize, WEIR_EINVAL, "weir_outfile_close: no writer");
    int r = finish(f, errbuf, errsize);
    if (r && f->temp)
        unlink(f->temp);
    free_writer(f);
    return r;
}

void weir_outfile_discard(weir_outfile *f)
{
    if (!f)
        return;
    if (f->f)
        fclose(f->f);
    if (f->temp)
        unlink(f->temp);
    free_writer(f);
}

int weir_outfile_publish(const char *temp, const char *path, unsigned flags, char *errbuf,
                         size_t errsize)
{
    if (!temp || !path)
        return fail(errbuf, errsize, WEIR_EINVAL, "weir_outfile_publish: two paths are required");
    if (flags & WEIR_OUTFILE_NEW)
        return rename_to(temp, path, flags, errbuf, errsize);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return refuse(errbuf, errsize, path, st.st_mode, flags & ~WEIR_OUTFILE_IN_PLACE);
    char *target;
    bool exists;
    int r = follow_links(path, &target, &st, &exists, errbuf, errsize);
    if (r)
        return r;
    r = exists && !S_ISREG(st.st_mode) ? refuse(errbuf, errsize, target, st.st_mode, flags)
                                        : rename_to(temp, target, flags, errbuf, errsize);
    free(target);
    return r;
}
