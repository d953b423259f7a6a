/* checkpoint_store.c — checkpoint folders and their checksummed files
 * (checkpoint_store.h; the format in docs/CHECKPOINTS.md). */
#include "checkpoint_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <msgpack.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msgpack_read.h"
#include "util.h"
#include "weir/error.h"
#include "weir/outfile.h"

static const char MAGIC[8] = {'W', 'E', 'I', 'R', 'C', 'H', 'K', '\0'};

static int failf(char *err, size_t errsize, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int failf(char *err, size_t errsize, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsize, fmt, ap);
    va_end(ap);
    return code;
}

/* a/b, malloc'ed (NULL: out of memory). */
static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + 1 + strlen(b) + 1;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", a, b);
    return p;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* parent/chk-ID, malloc'ed (NULL: out of memory). */
static char *chk_folder(const char *parent, int64_t id)
{
    char name[32];
    snprintf(name, sizeof name, "chk-%" PRId64, id);
    return join(parent, name);
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static const char *kind_name(weir__chk_kind kind)
{
    return kind == WEIR__CHK_META ? "metadata" : "state";
}

/* The id of a folder named chk-N (N >= 1, decimal, no sign or padding), or
 * -1. */
static int64_t chk_id_of(const char *name)
{
    if (strncmp(name, "chk-", 4) != 0 || name[4] < '1' || name[4] > '9')
        return -1;
    int64_t id = 0;
    for (const char *p = name + 4; *p; p++) {
        if (*p < '0' || *p > '9' || id > (INT64_MAX - 9) / 10)
            return -1;
        id = id * 10 + (*p - '0');
    }
    return id;
}

static int fsync_path(const char *path, char *err, size_t errsize)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return failf(err, errsize, WEIR_EIO, "%s: cannot sync the folder: %s", path, strerror(e));
    }
    close(fd);
    return 0;
}

/* Reads all len bytes, through EINTR and short reads. */
static bool read_all(int fd, void *data, size_t len)
{
    unsigned char *p = data;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* Writes dir/name atomically, through weir/outfile.h's writer: header and
 * payload into name.tmp, fsync, rename. A link at the name is written
 * through; anything else there that is not a regular file (a FIFO) is
 * refused, naming it: a checkpoint file is read back whole. The checksum of
 * the payload into *checksum.
 *
 * A state file (`deferred`) is not fsynced here: its writeback is started
 * (sync_file_range) and weir__chk_commit fsyncs every state file once all
 * are written, before the folder and `_metadata`. The writebacks of a
 * checkpoint's files then overlap and their block allocations go into one
 * journal commit, where a file fsynced before the next was written cost a
 * commit each (a job's final checkpoint at its end, one file per operator
 * subtask, waited for all of them in turn). Until `_metadata` is written
 * the checkpoint is incomplete whatever its state files hold. */
static int write_file(const char *dir, const char *name, weir__chk_kind kind, const void *payload,
                      size_t len, bool deferred, uint64_t *checksum, char *err, size_t errsize)
{
    char *path = join(dir, name);
    if (!path)
        return failf(err, errsize, WEIR_ENOMEM, "%s/%s: out of memory", dir, name);
    unsigned char head[WEIR__CHK_HEADER];
    memcpy(head, MAGIC, 8);
    put_u32(head + 8, WEIR__CHK_FORMAT);
    put_u32(head + 12, (uint32_t)kind);
    put_u64(head + 16, len);
    *checksum = weir__hash_bytes(payload, len);
    put_u64(head + 24, *checksum);
    weir_outfile_config cfg = {.flags = deferred ? 0 : WEIR_OUTFILE_SYNC, .temp_suffix = ".tmp"};
    weir_outfile *out;
    int r = weir_outfile_open(path, &cfg, &out, err, errsize);
    if (r == 0) {
        FILE *f = weir_outfile_stream(out);
        if (fwrite(head, 1, sizeof head, f) != sizeof head || fwrite(payload, 1, len, f) != len) {
            int e = errno;
            r = failf(err, errsize, e == ENOMEM ? WEIR_ENOMEM : WEIR_EIO, "%s: cannot write: %s",
                      weir_outfile_writing(out), e == ENOMEM ? "out of memory" : strerror(e));
            weir_outfile_discard(out);
        } else {
#ifdef SYNC_FILE_RANGE_WRITE
            /* a hint: the fsync in weir__chk_commit is what makes it durable */
            if (deferred && fflush(f) == 0)
                (void)sync_file_range(fileno(f), 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
            r = weir_outfile_commit(out, err, errsize);
        }
    }
    free(path);
    return r;
}

/* Removes a checkpoint folder and the files in it (a checkpoint folder has
 * no subfolders). A link in the folder's place is removed, never followed:
 * the folder it names is not this job's to empty. */
static void remove_folder(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
            unlink(path);
        return;
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
    rmdir(path);
}

static bool has_metadata(const char *dir)
{
    char *m = join(dir, WEIR__CHK_METADATA);
    struct stat st;
    bool yes = m && stat(m, &st) == 0;
    free(m);
    return yes;
}

/* ---- writing -------------------------------------------------------------- */

int weir__chk_begin(weir__chk_writer *w, const char *parent, int64_t id)
{
    *w = (weir__chk_writer){.id = id};
    if (id < 1)
        return failf(w->err, sizeof w->err, WEIR_EINVAL, "checkpoint id %" PRId64 ": ids start at 1",
                     id);
    w->parent = weir__strdup(parent);
    w->dir = chk_folder(parent, id);
    if (!w->parent || !w->dir)
        return failf(w->err, sizeof w->err, WEIR_ENOMEM, "%s: out of memory", parent);
    int r = weir_outfile_make_folders(parent, w->err, sizeof w->err);
    if (r < 0)
        return r;
    if (has_metadata(w->dir))
        return failf(w->err, sizeof w->err, WEIR_ESTATE,
                     "%s: a complete checkpoint with this id exists already", w->dir);
    remove_folder(w->dir); /* what an attempt that did not complete left */
    if (mkdir(w->dir, 0755) != 0)
        return failf(w->err, sizeof w->err, WEIR_EIO, "%s: cannot create the folder: %s", w->dir,
                     strerror(errno));
    return 0;
}

static bool plain_name(const char *name)
{
    return name[0] && name[0] != '.' && name[0] != '_' && !strchr(name, '/') &&
           strlen(name) < 200;
}

int weir__chk_write(weir__chk_writer *w, const char *name, const void *payload, size_t len)
{
    if (!plain_name(name))
        return failf(w->err, sizeof w->err, WEIR_EINVAL,
                     "checkpoint file name \"%s\": not a plain name (no '/', not starting with '.' "
                     "or '_', under 200 bytes)",
                     name);
    for (size_t i = 0; i < w->nfiles; i++) {
        if (strcmp(w->files[i].name, name) == 0)
            return failf(w->err, sizeof w->err, WEIR_EINVAL, "%s/%s: written twice", w->dir, name);
    }
    if (w->nfiles == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        weir__chk_file *f = realloc(w->files, cap * sizeof *f);
        if (!f)
            return failf(w->err, sizeof w->err, WEIR_ENOMEM, "%s: out of memory", w->dir);
        w->files = f;
        w->cap = cap;
    }
    weir__chk_file *f = &w->files[w->nfiles];
    f->name = weir__strdup(name);
    if (!f->name)
        return failf(w->err, sizeof w->err, WEIR_ENOMEM, "%s: out of memory", w->dir);
    f->bytes = len;
    int r = write_file(w->dir, name, WEIR__CHK_STATE, payload, len, true, &f->checksum, w->err,
                       sizeof w->err);
    if (r) {
        free(f->name);
        return r;
    }
    w->nfiles++;
    return 0;
}

static int list_ids(const char *parent, int64_t **ids, size_t *n, char *err, size_t errsize);

/* Keeps the newest `retain` complete checkpoints of the parent; removes the
 * older complete ones and the incomplete ones older than `newest`. What
 * cannot be listed or removed stays (a later commit tries again). */
static void retain_newest(const char *parent, int64_t newest, int retain)
{
    int64_t *ids;
    size_t n;
    char err[256];
    if (list_ids(parent, &ids, &n, err, sizeof err) != 0)
        return;
    int kept = 0;
    for (size_t i = 0; i < n; i++) { /* newest first */
        char *dir = chk_folder(parent, ids[i]);
        if (!dir)
            break;
        if (has_metadata(dir) ? ++kept > retain : ids[i] < newest)
            remove_folder(dir);
        free(dir);
    }
    free(ids);
}

/* fsyncs every state file written (write_file left them to this), in the
 * order written: by then their writebacks are under way together. */
static int sync_state_files(weir__chk_writer *w)
{
    for (size_t i = 0; i < w->nfiles; i++) {
        char *path = join(w->dir, w->files[i].name);
        if (!path)
            return failf(w->err, sizeof w->err, WEIR_ENOMEM, "%s: out of memory", w->dir);
        /* A link at the name was written through: this opens what it names.
         * Not blocking, and only a regular file is synced: something put in
         * its place since (a FIFO) is not waited on. */
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        struct stat st;
        if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
            close(fd);
            int r = failf(w->err, sizeof w->err, WEIR_EIO,
                          "%s: not the regular file written: not synced", path);
            free(path);
            return r;
        }
        if (fd < 0 || fsync(fd) != 0) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            int r = failf(w->err, sizeof w->err, WEIR_EIO, "%s: cannot sync: %s", path,
                          strerror(e));
            free(path);
            return r;
        }
        close(fd);
        free(path);
    }
    return 0;
}

int weir__chk_commit(weir__chk_writer *w, const void *job, size_t job_len, int retain)
{
    if (retain < 1)
        return failf(w->err, sizeof w->err, WEIR_EINVAL, "keep %d checkpoints: at least 1", retain);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    bool ok = msgpack_pack_map(&pk, 4) == 0;
    ok = ok && msgpack_pack_str_with_body(&pk, "format", 6) == 0 &&
         msgpack_pack_int64(&pk, WEIR__CHK_FORMAT) == 0;
    ok = ok && msgpack_pack_str_with_body(&pk, "id", 2) == 0 && msgpack_pack_int64(&pk, w->id) == 0;
    ok = ok && msgpack_pack_str_with_body(&pk, "files", 5) == 0 &&
         msgpack_pack_array(&pk, w->nfiles) == 0;
    for (size_t i = 0; ok && i < w->nfiles; i++) {
        const weir__chk_file *f = &w->files[i];
        ok = msgpack_pack_array(&pk, 3) == 0 &&
             msgpack_pack_str_with_body(&pk, f->name, strlen(f->name)) == 0 &&
             msgpack_pack_uint64(&pk, f->bytes) == 0 && msgpack_pack_uint64(&pk, f->checksum) == 0;
    }
    /* the caller's object, as it packed it */
    ok = ok && msgpack_pack_str_with_body(&pk, "job", 3) == 0 &&
         msgpack_sbuffer_write(&sb, job, job_len) == 0;
    int r;
    if (!ok) {
        r = failf(w->err, sizeof w->err, WEIR_ENOMEM, "%s/%s: out of memory", w->dir,
                  WEIR__CHK_METADATA);
    } else if ((r = sync_state_files(w)) == 0 &&
               (r = fsync_path(w->dir, w->err, sizeof w->err)) == 0) {
        /* the state files and their names are durable before _metadata can be */
        uint64_t sum;
        r = write_file(w->dir, WEIR__CHK_METADATA, WEIR__CHK_META, sb.data, sb.size, false, &sum,
                       w->err, sizeof w->err);
    }
    msgpack_sbuffer_destroy(&sb);
    if (r == 0)
        r = fsync_path(w->dir, w->err, sizeof w->err);
    if (r == 0)
        r = fsync_path(w->parent, w->err, sizeof w->err);
    if (r == 0)
        retain_newest(w->parent, w->id, retain);
    return r;
}

void weir__chk_abort(weir__chk_writer *w)
{
    if (w->dir)
        remove_folder(w->dir);
}

static void free_files(weir__chk_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(files[i].name);
    free(files);
}

void weir__chk_writer_free(weir__chk_writer *w)
{
    free_files(w->files, w->nfiles);
    free(w->parent);
    free(w->dir);
    *w = (weir__chk_writer){0};
}

/* ---- reading -------------------------------------------------------------- */

/* The header's checks, in the order a reader meets them. */
static int check_header(const char *path, const unsigned char *h, uint64_t size,
                        weir__chk_kind kind, char *err, size_t errsize)
{
    if (memcmp(h, MAGIC, 8) != 0)
        return failf(err, errsize, WEIR_EFORMAT, "%s: not a weir checkpoint file", path);
    uint32_t version = get_u32(h + 8);
    if (version != WEIR__CHK_FORMAT)
        return failf(err, errsize, WEIR_EFORMAT,
                     "%s: checkpoint format version %" PRIu32 " (this weir reads version %d)",
                     path, version, WEIR__CHK_FORMAT);
    uint32_t k = get_u32(h + 12);
    if (k != (uint32_t)kind)
        return failf(err, errsize, WEIR_EFORMAT, "%s: a file of kind %" PRIu32 ", not a %s file",
                     path, k, kind_name(kind));
    uint64_t len = get_u64(h + 16);
    if (len != size - WEIR__CHK_HEADER)
        return failf(err, errsize, WEIR_EFORMAT,
                     "%s: %s: the header says %" PRIu64 " bytes of payload, the file has %" PRIu64,
                     path, len > size - WEIR__CHK_HEADER ? "cut short" : "trailing bytes", len,
                     size - WEIR__CHK_HEADER);
    return 0;
}

int weir__chk_read_file(const char *path, weir__chk_kind kind, void **payload, size_t *len,
                        char *err, size_t errsize)
{
    *payload = NULL;
    *len = 0;
    /* Only a regular file is read: a FIFO put in a checkpoint's place would
     * hold open() until a writer came, for ever. stat() refuses it without
     * opening it; O_NONBLOCK (which a regular file ignores) and fstat()
     * refuse one that took the file's place after that look. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return failf(err, errsize, WEIR_EFORMAT, "%s: is %s, not a regular file", path,
                     weir__file_kind(st.st_mode));
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return failf(err, errsize, errno == ENOENT ? WEIR_ENOENT : WEIR_EIO, "%s: %s", path,
                     errno == ENOENT ? "missing" : strerror(errno));
    unsigned char h[WEIR__CHK_HEADER];
    int r = 0;
    unsigned char *data = NULL;
    if (fstat(fd, &st) != 0) {
        r = failf(err, errsize, WEIR_EIO, "%s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        r = failf(err, errsize, WEIR_EFORMAT, "%s: is %s, not a regular file", path,
                  weir__file_kind(st.st_mode));
    } else if ((uint64_t)st.st_size < WEIR__CHK_HEADER) {
        r = failf(err, errsize, WEIR_EFORMAT,
                  "%s: cut short: %lld bytes, less than the %d-byte header", path,
                  (long long)st.st_size, WEIR__CHK_HEADER);
    } else if ((uint64_t)st.st_size > WEIR__CHK_MAX_FILE + WEIR__CHK_HEADER) {
        r = failf(err, errsize, WEIR_EFORMAT, "%s: %lld bytes, more than a checkpoint file holds",
                  path, (long long)st.st_size);
    } else if (!read_all(fd, h, sizeof h)) {
        r = failf(err, errsize, WEIR_EIO, "%s: cannot read: %s", path, strerror(errno));
    } else if ((r = check_header(path, h, (uint64_t)st.st_size, kind, err, errsize)) == 0) {
        size_t n = (size_t)get_u64(h + 16);
        data = malloc(n ? n : 1);
        if (!data)
            r = failf(err, errsize, WEIR_ENOMEM, "%s: out of memory for %zu bytes", path, n);
        else if (!read_all(fd, data, n))
            r = failf(err, errsize, WEIR_EIO, "%s: cannot read: %s", path, strerror(errno));
        else if (weir__hash_bytes(data, n) != get_u64(h + 24))
            r = failf(err, errsize, WEIR_EFORMAT,
                      "%s: checksum mismatch: the file is corrupt", path);
        else
            *len = n;
    }
    close(fd);
    if (r)
        free(data);
    else
        *payload = data;
    return r;
}

/* The listed files of a metadata map's "files" into c. */
static int parse_files(const char *mpath, const msgpack_object *o, weir__chk *c, char *err,
                       size_t errsize)
{
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return failf(err, errsize, WEIR_EFORMAT, "%s: \"files\" is not a list", mpath);
    c->files = calloc(o->via.array.size ? o->via.array.size : 1, sizeof *c->files);
    if (!c->files)
        return failf(err, errsize, WEIR_ENOMEM, "%s: out of memory", mpath);
    for (uint32_t i = 0; i < o->via.array.size; i++) {
        const msgpack_object *f = &o->via.array.ptr[i];
        if (f->type != MSGPACK_OBJECT_ARRAY || f->via.array.size != 3 ||
            f->via.array.ptr[0].type != MSGPACK_OBJECT_STR ||
            !weir__mp_is_uint(&f->via.array.ptr[1]) || !weir__mp_is_uint(&f->via.array.ptr[2]))
            return failf(err, errsize, WEIR_EFORMAT,
                         "%s: file %" PRIu32 " of \"files\" is not [name, bytes, checksum]", mpath,
                         i);
        const msgpack_object_str *name = &f->via.array.ptr[0].via.str;
        char *n = malloc(name->size + 1);
        if (!n)
            return failf(err, errsize, WEIR_ENOMEM, "%s: out of memory", mpath);
        memcpy(n, name->ptr, name->size);
        n[name->size] = '\0';
        c->files[c->nfiles++] = (weir__chk_file){.name = n,
                                                 .bytes = f->via.array.ptr[1].via.u64,
                                                 .checksum = f->via.array.ptr[2].via.u64};
        if (strlen(n) != name->size || !plain_name(n))
            return failf(err, errsize, WEIR_EFORMAT, "%s: \"%s\" is not a checkpoint file name",
                         mpath, n);
    }
    return 0;
}

/* The metadata map into c: format, id (the folder's), files, job. */
static int parse_metadata(const char *mpath, const msgpack_object *m, int64_t folder_id,
                          weir__chk *c, char *err, size_t errsize)
{
    if (m->type != MSGPACK_OBJECT_MAP)
        return failf(err, errsize, WEIR_EFORMAT, "%s: not a map", mpath);
    const msgpack_object *format = weir__mp_member(m, "format"), *id = weir__mp_member(m, "id"),
                         *files = weir__mp_member(m, "files"), *job = weir__mp_member(m, "job");
    if (!format || !id || !files || !job)
        return failf(err, errsize, WEIR_EFORMAT, "%s: \"%s\" is missing", mpath,
                     !format ? "format" : !id ? "id" : !files ? "files" : "job");
    if (!weir__mp_is_uint(format) || format->via.u64 != WEIR__CHK_FORMAT)
        return failf(err, errsize, WEIR_EFORMAT, "%s: metadata of another format", mpath);
    if (!weir__mp_is_uint(id) || id->via.u64 > INT64_MAX)
        return failf(err, errsize, WEIR_EFORMAT, "%s: \"id\" is not an id", mpath);
    c->id = (int64_t)id->via.u64;
    if (folder_id >= 0 && c->id != folder_id)
        return failf(err, errsize, WEIR_EFORMAT,
                     "%s: says checkpoint %" PRId64 " in the folder of checkpoint %" PRId64, mpath,
                     c->id, folder_id);
    int r = parse_files(mpath, files, c, err, errsize);
    if (r)
        return r;
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    if (msgpack_pack_object(&pk, *job) != 0) {
        msgpack_sbuffer_destroy(&sb);
        return failf(err, errsize, WEIR_ENOMEM, "%s: out of memory", mpath);
    }
    c->job_len = sb.size;
    c->job = msgpack_sbuffer_release(&sb);
    return 0;
}

/* A state file against its line in the metadata. */
static int verify_listed(const char *dir, const weir__chk_file *f, void **payload, size_t *len,
                         char *err, size_t errsize)
{
    *payload = NULL;
    *len = 0;
    char *path = join(dir, f->name);
    if (!path)
        return failf(err, errsize, WEIR_ENOMEM, "%s: out of memory", dir);
    int r = weir__chk_read_file(path, WEIR__CHK_STATE, payload, len, err, errsize);
    if (r == 0 && (*len != f->bytes || weir__hash_bytes(*payload, *len) != f->checksum)) {
        r = failf(err, errsize, WEIR_EFORMAT,
                  "%s: not the file %s lists (%zu bytes, the metadata says %" PRIu64 ")", path,
                  WEIR__CHK_METADATA, *len, f->bytes);
        free(*payload);
        *payload = NULL;
    }
    free(path);
    return r;
}

/* Reads and verifies dir's _metadata into c (its id folder_id, or -1 if the
 * folder's name is not chk-N), not the files it lists; *mlen the metadata
 * payload's bytes. */
static int load_metadata(const char *dir, int64_t folder_id, weir__chk *c, size_t *mlen,
                         char *err, size_t errsize)
{
    *c = (weir__chk){0};
    *mlen = 0;
    char *mpath = join(dir, WEIR__CHK_METADATA);
    c->dir = weir__strdup(dir);
    if (!mpath || !c->dir) {
        free(mpath);
        return failf(err, errsize, WEIR_ENOMEM, "%s: out of memory", dir);
    }
    void *meta;
    int r = weir__chk_read_file(mpath, WEIR__CHK_META, &meta, mlen, err, errsize);
    if (r == WEIR_ENOENT)
        failf(err, errsize, WEIR_ENOENT, "%s: missing: the checkpoint did not complete", mpath);
    if (r == 0) {
        msgpack_unpacked up;
        msgpack_unpacked_init(&up);
        size_t off = 0;
        msgpack_unpack_return u = msgpack_unpack_next(&up, meta, *mlen, &off);
        if (u == MSGPACK_UNPACK_NOMEM_ERROR)
            r = failf(err, errsize, WEIR_ENOMEM, "%s: out of memory", mpath);
        else if (u != MSGPACK_UNPACK_SUCCESS || off != *mlen)
            r = failf(err, errsize, WEIR_EFORMAT, "%s: not one msgpack object", mpath);
        else
            r = parse_metadata(mpath, &up.data, folder_id, c, err, errsize);
        msgpack_unpacked_destroy(&up);
        free(meta);
    }
    free(mpath);
    return r;
}

/* The id of dir's own name if it is chk-N, else -1. */
static int64_t folder_id_of(const char *dir)
{
    const char *base = strrchr(dir, '/');
    return chk_id_of(base ? base + 1 : dir);
}

/* Opens the checkpoint in folder dir and verifies every file it lists. */
static int open_one(const char *dir, int64_t folder_id, weir__chk *c, char *err, size_t errsize)
{
    size_t mlen;
    int r = load_metadata(dir, folder_id, c, &mlen, err, errsize);
    for (size_t i = 0; r == 0 && i < c->nfiles; i++) {
        void *payload;
        size_t len;
        r = verify_listed(dir, &c->files[i], &payload, &len, err, errsize);
        free(payload);
    }
    if (r)
        weir__chk_close(c);
    return r;
}

int weir__chk_check(const char *dir, weir__chk_check_fn file, void *arg, char *err,
                    size_t errsize)
{
    weir__chk c;
    size_t mlen;
    int first = load_metadata(dir, folder_id_of(dir), &c, &mlen, err, errsize);
    file(WEIR__CHK_METADATA, first ? 0 : mlen, first ? err : NULL, arg);
    char why[512];
    for (size_t i = 0; first == 0 && i < c.nfiles; i++) {
        void *payload;
        size_t len;
        int r = verify_listed(dir, &c.files[i], &payload, &len, why, sizeof why);
        free(payload);
        file(c.files[i].name, c.files[i].bytes, r ? why : NULL, arg);
        if (r && !first) {
            first = r;
            snprintf(err, errsize, "%s", why);
        }
    }
    weir__chk_close(&c);
    return first;
}

static int cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

/* The chk-N ids in parent, newest first, into *ids (malloc'ed). */
static int list_ids(const char *parent, int64_t **ids, size_t *n, char *err, size_t errsize)
{
    *ids = NULL;
    *n = 0;
    DIR *d = opendir(parent);
    if (!d)
        return failf(err, errsize, errno == ENOENT ? WEIR_ENOENT : WEIR_EIO, "%s: %s", parent,
                     errno == ENOENT ? "no such folder" : strerror(errno));
    size_t cap = 0;
    struct dirent *e;
    int r = 0;
    while (r == 0 && (e = readdir(d)) != NULL) {
        int64_t id = chk_id_of(e->d_name);
        if (id < 0)
            continue;
        if (*n == cap) {
            size_t c = cap ? 2 * cap : 16;
            int64_t *p = realloc(*ids, c * sizeof *p);
            if (!p) {
                r = failf(err, errsize, WEIR_ENOMEM, "%s: out of memory", parent);
                break;
            }
            *ids = p;
            cap = c;
        }
        (*ids)[(*n)++] = id;
    }
    closedir(d);
    if (*n)
        qsort(*ids, *n, sizeof **ids, cmp_desc);
    return r;
}

void weir__chk_list_free(char **dirs, size_t n)
{
    for (size_t i = 0; dirs && i < n; i++)
        free(dirs[i]);
    free(dirs);
}

int weir__chk_list(const char *path, char ***dirs, size_t *n, bool *single, char *err,
                   size_t errsize)
{
    *dirs = NULL;
    *n = 0;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return failf(err, errsize, WEIR_ENOENT, "%s: no such folder", path);
    *single = folder_id_of(path) >= 0 || has_metadata(path);
    int64_t *ids = NULL;
    size_t nids = 1;
    if (!*single) {
        int r = list_ids(path, &ids, &nids, err, errsize);
        if (r)
            return r;
    }
    *dirs = calloc(nids ? nids : 1, sizeof **dirs);
    bool ok = *dirs != NULL;
    for (size_t i = 0; ok && i < nids; i++) {
        (*dirs)[i] = *single ? weir__strdup(path) : chk_folder(path, ids[i]);
        ok = (*dirs)[i] != NULL;
        *n = i + 1;
    }
    free(ids);
    if (!ok) {
        weir__chk_list_free(*dirs, *n);
        *dirs = NULL;
        *n = 0;
        return failf(err, errsize, WEIR_ENOMEM, "%s: out of memory", path);
    }
    return 0;
}

int weir__chk_open(const char *path, weir__chk_skip_fn skip, void *arg, weir__chk *out,
                   char *err, size_t errsize)
{
    *out = (weir__chk){0};
    char **dirs;
    size_t n;
    bool single;
    int r = weir__chk_list(path, &dirs, &n, &single, err, errsize);
    if (r)
        return r;
    if (single) {
        r = open_one(dirs[0], folder_id_of(path), out, err, errsize);
        weir__chk_list_free(dirs, n);
        return r;
    }
    size_t skipped = 0;
    r = WEIR_ENOENT;
    for (size_t i = 0; i < n && r != 0; i++) {
        r = open_one(dirs[i], folder_id_of(dirs[i]), out, err, errsize);
        if (r == WEIR_ENOMEM)
            break;
        if (r) {
            skipped++;
            if (skip)
                skip(err, arg);
        }
    }
    weir__chk_list_free(dirs, n);
    if (r && r != WEIR_ENOMEM) {
        if (skipped)
            r = failf(err, errsize, WEIR_EFORMAT,
                      "%s: none of its %zu checkpoints is complete and verifies", path, skipped);
        else
            r = failf(err, errsize, WEIR_ENOENT, "%s: no checkpoint (no chk-N folder) in it",
                      path);
    }
    return r;
}

int weir__chk_read(const weir__chk *c, const char *name, void **payload, size_t *len, char *err,
                   size_t errsize)
{
    for (size_t i = 0; i < c->nfiles; i++) {
        if (strcmp(c->files[i].name, name) == 0)
            return verify_listed(c->dir, &c->files[i], payload, len, err, errsize);
    }
    *payload = NULL;
    *len = 0;
    return failf(err, errsize, WEIR_ENOENT, "%s: lists no file %s", c->dir, name);
}

void weir__chk_close(weir__chk *c)
{
    free_files(c->files, c->nfiles);
    free(c->dir);
    free(c->job);
    *c = (weir__chk){0};
}
