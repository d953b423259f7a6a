/* sink_file.c — the exactly-once file sink (weir/file_sink.h): part files
 * that are in progress, pending at a checkpoint and committed when it
 * completes, in the sink's folder or in its buckets' folders under it.
 * Written against the public headers only.
 *
 * Names. A part is PREFIX-RUN-i-N once committed and .PREFIX-RUN-i-N.inprogress
 * before (while written, and while pending: closed, fsynced, waiting for its
 * checkpoint, as Flink's pending files keep their in-progress names). RUN is
 * a random id drawn when the sink is built, the same for all its subtasks, so
 * that no run can make a name another run made: a restore at any parallelism
 * (subtask i of this run may be the heir of old subtask j, or of none) starts
 * names of its own, and its part counter goes on from the old ones' (Flink's
 * FileSink draws a unique id per writer the same way). N counts a subtask's
 * parts across all its buckets, so a name is the writer's own in any folder.
 *
 * Buckets (Flink's BucketAssigner; the SQL connector's PARTITIONED BY). With
 * a bucket function every record names the folder under `dir` its part goes
 * into ("dt=2024-01-01/h=3"), and each bucket has a part in progress of its
 * own, rolled at its own size. A subtask keeps its buckets in a table of
 * BUCKETS_OPEN slots (each with its folder's name, at most BUCKET_FOLDER_MAX
 * bytes, in place) and a hash index over them, both made at open(): the
 * steady path formats the record's folder into a buffer, finds its slot
 * (the last record's, or through the index) and writes, with no allocation.
 * A record of a bucket that has no slot when all are taken takes the slot
 * written least recently: that bucket's part is parked (flushed and closed,
 * still in progress, in a hash table of parked parts that grows as it
 * must), and a parked part is opened again, to append, when its bucket
 * comes back; at a checkpoint (and at the end) parked parts are fsynced and
 * become pending with the rest. So a subtask holds at most BUCKETS_OPEN
 * files open whatever the number of buckets, and writes one part a bucket
 * between checkpoints either way; past the slots a record may cost a close
 * and an open (and the stream's allocation), never a lost or doubled
 * record. Without a bucket function there is one slot, `dir`.
 *
 * State. A subtask's state in a checkpoint is its run id, its subtask index,
 * its next part number and its pending parts, each a number and its bucket's
 * folder. A restore gives each old subtask's state to at least one new
 * subtask (exactly one, unless the sink's input is keyed), which commits
 * exactly the pending parts listed (one committed already is fine) and then
 * deletes every other hidden part of that old writer (run and index), in
 * every folder under `dir`: they were written after the checkpoint, and
 * their records are replayed. Parts of the current run carry its own id, so
 * a restore never touches what the current run's subtasks write. A run that
 * stopped before any checkpoint of its own completed is in no state: its
 * hidden parts stay (weir/file_sink.h says so). Durability: a part file is
 * fsynced when it rolls (not when it is parked); before a checkpoint lists
 * new pending parts,
 * their folders and the folders above them up to `dir` are fsynced (a
 * bucket's folder may be new), and after every batch of commits the folders
 * committed into.
 *
 * Success files (Flink's 'success-file' partition commit policy): after a
 * batch of commits, an empty file named `success_file` is made, or
 * replaced, in every folder the batch committed parts into.
 *
 * Every file goes through weir/outfile.h's writer: a part is made new
 * (O_EXCL: nothing planted at its name is written into) and committed with a
 * rename that never replaces anything.
 */
/* renameat2 needs _GNU_SOURCE, which the build defines */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "weir/error.h"
#include "weir/file_sink.h"
#include "weir/operator.h"
#include "weir/outfile.h"
#include "weir/stream.h"


#define DEFAULT_ROLL_BYTES ((int64_t)128 << 20)
#define STATE_TAG 0x336b7366u    /* "fsk3": pending parts with their folders */
#define STATE_TAG_V2 0x326b7366u /* "fsk2": every part in dir (older weir) */
#define STATE_TAG_V1 0x666b7331u /* "fks1": names without a run id (older weir) */
#define RUN_CHARS 16
/* The buckets a subtask keeps (weir/file_sink.h says so), the longest
 * bucket folder, and the index's size (a power of two, twice the slots). */
#define BUCKETS_OPEN WEIR_FILE_SINK_OPEN_BUCKETS
#define BUCKET_FOLDER_MAX WEIR_FILE_SINK_BUCKET_MAX
#define BUCKET_INDEX (2 * BUCKETS_OPEN)
/* The longest `dir`; with a folder and a part's name a path fits PATH_BUF. */
#define DIR_MAX 4096
#define PATH_BUF (DIR_MAX + BUCKET_FOLDER_MAX + 512)
/* How deep a restore looks for a writer's hidden parts under dir. */
#define WALK_DEPTH 64

typedef struct file_sink_arg {
    char *dir;
    char *prefix;
    weir_format_fn format;
    void *format_arg;
    const weir_schema *schema;
    bool csv;
    char delimiter;
    int *columns; /* NULL: all */
    int ncolumns;
    int64_t roll_bytes;
    weir_format_fn bucket;
    void *bucket_arg;
    char *success_file; /* NULL: none */
    char run[RUN_CHARS + 1]; /* this run's id: 16 hex digits */
} file_sink_arg;

typedef struct pending_part {
    int64_t n;
    int64_t checkpoint; /* committed once this checkpoint completes; 0: no snapshot yet */
    char *folder;       /* its bucket's folder under dir; NULL: dir itself */
} pending_part;

/* A bucket: its folder and its part in progress. */
typedef struct bucket {
    char folder[BUCKET_FOLDER_MAX]; /* relative to dir; "" is dir itself */
    size_t len;
    uint64_t hash;
    uint64_t used;     /* the sink's clock when a record last came */
    weir_outfile *out; /* the in-progress part as made; NULL: none, or opened again */
    FILE *f;           /* the part's stream (out's, or its own); NULL: none open */
    int64_t out_n;
    int64_t out_bytes;
} bucket;

/* A part in progress whose bucket gave up its slot: closed, not fsynced. */
typedef struct parked_part {
    char *folder; /* NULL: an empty entry of the table */
    size_t len;
    uint64_t hash;
    int64_t n, bytes;
} parked_part;

typedef struct file_sink {
    bucket *slots; /* nslots in use of cap */
    int nslots, cap;
    uint16_t index[BUCKET_INDEX]; /* slot + 1 by hash, linear probing; 0: empty */
    bucket *last;                 /* the last record's */
    uint64_t clock;
    parked_part *parked; /* open addressing by hash, parked_cap entries (0 or a power of two) */
    size_t nparked, parked_cap;
    int64_t next_n;
    pending_part *pending;
    size_t npending, pcap;
    char *line;
    size_t line_cap;
    char key[BUCKET_FOLDER_MAX]; /* the record's bucket, as the bucket function wrote it */
} file_sink;

/* A part's writer: the run whose id its name carries (NULL: an older weir's
 * names, PREFIX-i-N) and the subtask. */
typedef struct writer {
    const char *run;
    int subtask;
} writer;

static void arg_free(void *p)
{
    file_sink_arg *a = p;
    if (a) {
        free(a->dir);
        free(a->prefix);
        free(a->columns);
        free(a->success_file);
        free(a);
    }
}

/* dir, or dir/folder (folder NULL or "": dir), into buf. */
static void folder_path(const file_sink_arg *a, char *buf, size_t size, const char *folder)
{
    snprintf(buf, size, "%s%s%s", a->dir, folder && *folder ? "/" : "", folder ? folder : "");
}

/* The committed name (hidden false) or the hidden one of part n of writer
 * w in `folder`. An older weir's hidden pending name ended in ".pending". */
static void part_path(const file_sink_arg *a, char *buf, size_t size, const char *folder,
                      writer w, int64_t n, bool hidden)
{
    char run[RUN_CHARS + 2] = "";
    if (w.run)
        snprintf(run, sizeof run, "%s-", w.run);
    snprintf(buf, size, "%s%s%s/%s%s-%s%d-%" PRId64 "%s", a->dir, folder && *folder ? "/" : "",
             folder ? folder : "", hidden ? "." : "", a->prefix, run, w.subtask, n,
             !hidden ? "" : w.run ? ".inprogress" : ".pending");
}

static writer self(weir_ctx *ctx)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    return (writer){.run = a->run, .subtask = weir_ctx_subtask(ctx)};
}

static int sync_dir(weir_ctx *ctx, const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0 || fsync(fd) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return weir_ctx_fail(ctx, WEIR_EIO, "file sink: fsync of %s: %s", dir, strerror(e));
    }
    close(fd);
    return 0;
}

/* ---- sets of folders ------------------------------------------------------------- */

/* Distinct folders (pointers into pending parts' names, with a length: a
 * prefix of one is a folder above it), for the fsyncs and success files of
 * a batch. Made per checkpoint or commit, never per record. */
typedef struct folder_set {
    const char **name;
    size_t *len;
    size_t n, cap;
} folder_set;

static int folder_add(folder_set *fs, const char *name, size_t len)
{
    for (size_t i = 0; i < fs->n; i++)
        if (fs->len[i] == len && memcmp(fs->name[i], name, len) == 0)
            return 0;
    if (fs->n == fs->cap) {
        size_t cap = fs->cap ? 2 * fs->cap : 8;
        const char **nm = realloc(fs->name, cap * sizeof *nm);
        if (nm)
            fs->name = nm;
        size_t *ln = nm ? realloc(fs->len, cap * sizeof *ln) : NULL;
        if (!ln)
            return WEIR_ENOMEM;
        fs->len = ln;
        fs->cap = cap;
    }
    fs->name[fs->n] = name;
    fs->len[fs->n++] = len;
    return 0;
}

static void folder_set_free(folder_set *fs)
{
    free(fs->name);
    free(fs->len);
}

/* Fsyncs every folder of the set (under dir). */
static int sync_folders(weir_ctx *ctx, const folder_set *fs)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    for (size_t i = 0; i < fs->n; i++) {
        char path[PATH_BUF], folder[BUCKET_FOLDER_MAX];
        snprintf(folder, sizeof folder, "%.*s", (int)fs->len[i], fs->name[i]);
        folder_path(a, path, sizeof path, folder);
        int r = sync_dir(ctx, path);
        if (r < 0)
            return r;
    }
    return 0;
}

/* ---- pending parts ------------------------------------------------------------------ */

/* Adds part n of `folder` (copied; NULL or "": dir) as pending. */
static int add_pending(weir_ctx *ctx, file_sink *s, const char *folder, int64_t n,
                       int64_t checkpoint)
{
    char *f = NULL;
    if (folder && *folder && !(f = strdup(folder)))
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory");
    if (s->npending == s->pcap) {
        size_t cap = s->pcap ? 2 * s->pcap : 8;
        pending_part *p = realloc(s->pending, cap * sizeof *p);
        if (!p) {
            free(f);
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory");
        }
        s->pending = p;
        s->pcap = cap;
    }
    s->pending[s->npending++] = (pending_part){.n = n, .checkpoint = checkpoint, .folder = f};
    return 0;
}

static void free_pending(file_sink *s)
{
    for (size_t i = 0; i < s->npending; i++)
        free(s->pending[i].folder);
    free(s->pending);
    s->pending = NULL;
    s->npending = s->pcap = 0;
}

/* Closes the bucket's open part, fsynced first with `sync`; its name
 * stays. */
static int close_part(weir_ctx *ctx, bucket *b, bool sync)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    char path[PATH_BUF];
    part_path(a, path, sizeof path, b->folder, self(ctx), b->out_n, true);
    FILE *f = b->f;
    weir_outfile *out = b->out;
    b->f = NULL;
    b->out = NULL;
    int e = fflush(f) != 0 || (sync && fsync(fileno(f)) != 0) ? errno : 0;
    if (out) {
        char err[PATH_BUF + 200];
        if (weir_outfile_close(out, err, sizeof err) != 0 && !e)
            return weir_ctx_fail(ctx, WEIR_EIO, "file sink: %s", err);
    } else if (fclose(f) != 0 && !e) {
        e = errno;
    }
    return e ? weir_ctx_fail(ctx, WEIR_EIO, "file sink: writing %s: %s", path, strerror(e)) : 0;
}

/* The bucket's part in progress, fsynced and closed, becomes pending. */
static int roll(weir_ctx *ctx, file_sink *s, bucket *b)
{
    if (!b->f)
        return 0;
    int r = close_part(ctx, b, true);
    return r ? r : add_pending(ctx, s, b->folder, b->out_n, 0);
}

/* ---- parked parts ----------------------------------------------------------------- */

/* Takes entry i out of the table, moving the entries after it back so that
 * no probe meets a hole before its entry (Knuth's algorithm R). */
static void parked_remove_at(file_sink *s, size_t i)
{
    size_t m = s->parked_cap - 1;
    s->parked[i].folder = NULL;
    s->nparked--;
    for (size_t j = (i + 1) & m; s->parked[j].folder; j = (j + 1) & m) {
        size_t home = (size_t)s->parked[j].hash & m;
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) {
            s->parked[i] = s->parked[j];
            s->parked[j].folder = NULL;
            i = j;
        }
    }
}

static void parked_insert(file_sink *s, parked_part p)
{
    size_t m = s->parked_cap - 1, i = (size_t)p.hash & m;
    while (s->parked[i].folder)
        i = (i + 1) & m;
    s->parked[i] = p;
    s->nparked++;
}

/* Parks the bucket's open part: flushed and closed, not fsynced. */
static int park(weir_ctx *ctx, file_sink *s, bucket *b)
{
    if (!b->f)
        return 0;
    if ((s->nparked + 1) * 2 > s->parked_cap) { /* the table grows (past the slots only) */
        size_t cap = s->parked_cap ? 2 * s->parked_cap : 64;
        parked_part *old = s->parked, *t = calloc(cap, sizeof *t);
        if (!t)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory");
        size_t oldcap = s->parked_cap;
        s->parked = t;
        s->parked_cap = cap;
        s->nparked = 0;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].folder)
                parked_insert(s, old[i]);
        free(old);
    }
    char *folder = malloc(b->len + 1);
    if (!folder)
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory");
    memcpy(folder, b->folder, b->len + 1);
    int r = close_part(ctx, b, false);
    if (r) {
        free(folder);
        return r;
    }
    parked_insert(s, (parked_part){.folder = folder, .len = b->len, .hash = b->hash,
                                   .n = b->out_n, .bytes = b->out_bytes});
    // cppcheck-suppress memleak ; parked_insert keeps folder in s->parked (freed there)
    return 0;
}

/* The bucket's parked part, if it has one, opened again to append. */
static int unpark(weir_ctx *ctx, file_sink *s, bucket *b)
{
    if (!s->nparked)
        return 0;
    size_t m = s->parked_cap - 1, i = (size_t)b->hash & m;
    while (s->parked[i].folder && !(s->parked[i].hash == b->hash && s->parked[i].len == b->len &&
                                    memcmp(s->parked[i].folder, b->folder, b->len) == 0))
        i = (i + 1) & m;
    if (!s->parked[i].folder)
        return 0;
    b->out_n = s->parked[i].n;
    b->out_bytes = s->parked[i].bytes;
    free(s->parked[i].folder);
    parked_remove_at(s, i);
    const file_sink_arg *a = weir_ctx_arg(ctx);
    char path[PATH_BUF];
    part_path(a, path, sizeof path, b->folder, self(ctx), b->out_n, true);
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
    FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return weir_ctx_fail(ctx, WEIR_EIO, "file sink: opening %s again (its bucket came "
                             "back): %s", path, strerror(e));
    }
    b->f = f;
    return 0;
}

/* Every part in progress, in a slot or parked, fsynced and closed, becomes
 * pending: at a checkpoint and at the end. */
static int roll_all(weir_ctx *ctx, file_sink *s)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    for (int i = 0; i < s->nslots; i++) {
        int r = roll(ctx, s, &s->slots[i]);
        if (r < 0)
            return r;
    }
    for (size_t i = 0; s->nparked && i < s->parked_cap; i++) {
        parked_part *p = &s->parked[i];
        if (!p->folder)
            continue;
        char path[PATH_BUF];
        part_path(a, path, sizeof path, p->folder, self(ctx), p->n, true);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0 || fsync(fd) != 0) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            return weir_ctx_fail(ctx, WEIR_EIO, "file sink: fsync of %s: %s", path, strerror(e));
        }
        close(fd);
        int r = add_pending(ctx, s, p->folder, p->n, 0);
        if (r < 0)
            return r;
        free(p->folder);
        p->folder = NULL;
        s->nparked--;
    }
    return 0;
}

/* Renames a pending part of writer w to its final name. A part already
 * committed (a restore after the commit, before the checkpoint recorded it,
 * or another heir of the same writer) is fine. The rename never replaces
 * anything: part names carry the run's id, so a file already there under a
 * part's name is none of this job's. */
static int commit_part(weir_ctx *ctx, writer w, const pending_part *p)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    char from[PATH_BUF], to[PATH_BUF], err[2 * PATH_BUF + 200];
    part_path(a, from, sizeof from, p->folder, w, p->n, true);
    part_path(a, to, sizeof to, p->folder, w, p->n, false);
    int r = weir_outfile_publish(from, to, WEIR_OUTFILE_NEW, err, sizeof err);
    if (r == 0)
        return 0;
    if (r == WEIR_ENOENT && access(to, F_OK) == 0)
        return 0;
    if (r == WEIR_ENOENT)
        return weir_ctx_fail(ctx, WEIR_EIO,
                             "file sink: committing part %" PRId64 ": neither %s nor %s is there "
                             "(was the folder changed since the checkpoint?)",
                             p->n, from, to);
    return weir_ctx_fail(ctx, WEIR_EIO,
                         "file sink: committing %s: %s (another writer made that name; this "
                         "run's parts are named %s-%s-*)",
                         from, err, a->prefix, a->run);
}

/* Makes (or replaces) the empty success file in each folder of the set. */
static int write_success_files(weir_ctx *ctx, const folder_set *fs)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    for (size_t i = 0; i < fs->n; i++) {
        char folder[BUCKET_FOLDER_MAX], path[PATH_BUF + 256], err[2 * PATH_BUF + 200];
        snprintf(folder, sizeof folder, "%.*s", (int)fs->len[i], fs->name[i]);
        folder_path(a, path, PATH_BUF, folder);
        size_t l = strlen(path);
        snprintf(path + l, sizeof path - l, "/%s", a->success_file);
        weir_outfile *out = NULL;
        weir_outfile_config cfg = {.flags = WEIR_OUTFILE_SYNC, .temp_prefix = "."};
        if (weir_outfile_open(path, &cfg, &out, err, sizeof err) != 0 ||
            weir_outfile_commit(out, err, sizeof err) != 0)
            return weir_ctx_fail(ctx, WEIR_EIO, "file sink: the success file: %s", err);
    }
    return 0;
}

/* Commits every pending part whose checkpoint is at or below `upto`
 * (INT64_MAX: all), then fsyncs the folders committed into and makes their
 * success files. */
static int commit_upto(weir_ctx *ctx, file_sink *s, writer w, int64_t upto)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    folder_set done = {0};
    int r = 0;
    for (size_t i = 0; r == 0 && i < s->npending; i++) {
        pending_part *p = &s->pending[i];
        if (!(upto == INT64_MAX || (p->checkpoint != 0 && p->checkpoint <= upto)))
            continue;
        r = commit_part(ctx, w, p);
        if (r == 0) {
            p->checkpoint = -1; /* committed: leaves the list below */
            if (folder_add(&done, p->folder ? p->folder : "", p->folder ? strlen(p->folder) : 0))
                r = weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory");
        }
    }
    if (r == 0)
        r = sync_folders(ctx, &done);
    if (r == 0 && a->success_file && done.n) {
        r = write_success_files(ctx, &done);
        if (r == 0)
            r = sync_folders(ctx, &done);
    }
    folder_set_free(&done); /* its names point into the parts freed now */
    size_t keep = 0;
    for (size_t i = 0; i < s->npending; i++) {
        if (s->pending[i].checkpoint == -1)
            free(s->pending[i].folder);
        else
            s->pending[keep++] = s->pending[i];
    }
    s->npending = keep;
    return r;
}

/* ---- a restore's clean-up ------------------------------------------------------------ */

/* A writer of a restored state: the head of its hidden parts' names. */
typedef struct stale_writer {
    char head[300];
    size_t len;
    bool v1; /* an older weir's names, in dir only */
} stale_writer;

static bool stale_name(const char *name, const stale_writer *ws, int n, int depth)
{
    for (int i = 0; i < n; i++) {
        if ((ws[i].v1 && depth > 0) || strncmp(name, ws[i].head, ws[i].len) != 0)
            continue;
        const char *digits = name + ws[i].len;
        char *end;
        if (*digits < '0' || *digits > '9')
            continue;
        (void)strtoll(digits, &end, 10);
        if (strcmp(end, ".inprogress") == 0 || (ws[i].v1 && strcmp(end, ".pending") == 0))
            return true;
    }
    return false;
}

/* Deletes the hidden parts of the writers ws in the folder path (len
 * bytes, in a PATH_BUF buffer) and, for a sink with buckets, in the folders
 * under it that are not hidden (links not followed). */
static int discard_walk(weir_ctx *ctx, char *path, size_t len, int depth, const stale_writer *ws,
                        int n)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    DIR *d = opendir(path);
    if (!d)
        return weir_ctx_fail(ctx, WEIR_EIO, "file sink: reading %s: %s", path, strerror(errno));
    struct dirent *e;
    int r = 0;
    while (r == 0 && (e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        size_t nl = strlen(name);
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || len + 1 + nl >= PATH_BUF)
            continue;
        path[len] = '/';
        memcpy(path + len + 1, name, nl + 1);
        if (name[0] == '.') {
            if (stale_name(name, ws, n, depth) && unlink(path) != 0 && errno != ENOENT)
                r = weir_ctx_fail(ctx, WEIR_EIO, "file sink: deleting %s: %s", path,
                                  strerror(errno));
        } else if (a->bucket && name[0] != '_' && depth < WALK_DEPTH) {
            struct stat st;
            bool folder = e->d_type == DT_DIR ||
                          (e->d_type == DT_UNKNOWN && lstat(path, &st) == 0 && S_ISDIR(st.st_mode));
            if (folder)
                r = discard_walk(ctx, path, len + 1 + nl, depth + 1, ws, n);
        }
        path[len] = '\0';
    }
    closedir(d);
    return r;
}

/* ---- buckets ----------------------------------------------------------------------- */

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211u;
    }
    return h;
}

/* NULL if `f` (n bytes) may be a bucket's folder, else what is wrong. */
static const char *bad_folder(const char *f, size_t n)
{
    if (n == 0)
        return NULL; /* dir itself */
    if (memchr(f, '\0', n))
        return "it holds a NUL byte";
    for (size_t i = 0; i <= n;) {
        size_t j = i;
        while (j < n && f[j] != '/')
            j++;
        if (j == i)
            return "it has an empty part (a '/' at its start or end, or '//')";
        if (f[i] == '.' || f[i] == '_')
            return "a part starts with '.' or '_' (readers skip such names as hidden; '..' "
                   "would leave the sink's folder)";
        if (j - i > 255)
            return "a part is longer than 255 bytes";
        i = j + 1;
    }
    return NULL;
}

static void index_put(file_sink *s, int slot)
{
    unsigned m = BUCKET_INDEX - 1, i = (unsigned)s->slots[slot].hash & m;
    while (s->index[i])
        i = (i + 1) & m;
    s->index[i] = (uint16_t)(slot + 1);
}

/* Takes the slot out of the index, moving the entries after it back so
 * that no probe meets a hole before its entry (Knuth's algorithm R). */
static void index_remove(file_sink *s, int slot)
{
    unsigned m = BUCKET_INDEX - 1, i = (unsigned)s->slots[slot].hash & m;
    while (s->index[i] != slot + 1)
        i = (i + 1) & m;
    s->index[i] = 0;
    for (unsigned j = (i + 1) & m; s->index[j]; j = (j + 1) & m) {
        unsigned home = (unsigned)s->slots[s->index[j] - 1].hash & m;
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) {
            s->index[i] = s->index[j];
            s->index[j] = 0;
            i = j;
        }
    }
}

/* A slot for the bucket in s->key (len bytes, hash h): a free one, or the
 * one written least recently, whose part is parked. The bucket's own
 * parked part, if it has one, is opened again. */
static int new_bucket(weir_ctx *ctx, file_sink *s, size_t len, uint64_t h, bucket **out)
{
    const char *why = bad_folder(s->key, len);
    if (why)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "file sink: the bucket folder '%.*s' of a record: "
                             "%s", (int)(len > 200 ? 200 : len), s->key, why);
    int slot = s->nslots;
    if (s->nslots < s->cap) {
        s->nslots++;
    } else {
        slot = 0;
        for (int i = 1; i < s->nslots; i++)
            if (s->slots[i].used < s->slots[slot].used)
                slot = i;
        int r = park(ctx, s, &s->slots[slot]);
        if (r < 0)
            return r;
        index_remove(s, slot);
        if (s->last == &s->slots[slot])
            s->last = NULL;
    }
    bucket *b = &s->slots[slot];
    memcpy(b->folder, s->key, len);
    b->folder[len] = '\0';
    b->len = len;
    b->hash = h;
    index_put(s, slot);
    int r = unpark(ctx, s, b);
    if (r < 0)
        return r;
    *out = b;
    return 0;
}

/* The record's bucket: the last record's, one in the index, or a new one. */
static int bucket_of(weir_ctx *ctx, file_sink *s, const void *elem, int64_t ts, bucket **out)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    if (!a->bucket) {
        *out = &s->slots[0];
        return 0;
    }
    int n = a->bucket(elem, ts, s->key, sizeof s->key, a->bucket_arg);
    if (n < 0)
        return weir_ctx_fail(ctx, WEIR_ECALLBACK, "file sink: the bucket function failed (%d)", n);
    if ((size_t)n >= sizeof s->key)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "file sink: a record's bucket folder is %d bytes, "
                             "longer than the %d a bucket's folder may have ('%.80s...')", n,
                             BUCKET_FOLDER_MAX - 1, s->key);
    size_t len = (size_t)n;
    bucket *b = s->last;
    if (!b || b->len != len || memcmp(b->folder, s->key, len) != 0) {
        uint64_t h = hash_bytes(s->key, len);
        unsigned m = BUCKET_INDEX - 1, i = (unsigned)h & m;
        for (b = NULL; s->index[i]; i = (i + 1) & m) {
            bucket *c = &s->slots[s->index[i] - 1];
            if (c->hash == h && c->len == len && memcmp(c->folder, s->key, len) == 0) {
                b = c;
                break;
            }
        }
        int r = b ? 0 : new_bucket(ctx, s, len, h, &b);
        if (r < 0)
            return r;
    }
    b->used = ++s->clock;
    s->last = b;
    *out = b;
    return 0;
}

static int sink_open(weir_ctx *ctx)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    char why[PATH_BUF + 200];
    int r = weir_outfile_make_folders(a->dir, why, sizeof why);
    if (r < 0)
        return weir_ctx_fail(ctx, r, "file sink: %s", why);
    file_sink *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->cap = a->bucket ? BUCKETS_OPEN : 1;
    s->nslots = a->bucket ? 0 : 1; /* without buckets: the one slot, dir ("") */
    if (!(s->slots = calloc((size_t)s->cap, sizeof *s->slots))) {
        free(s);
        return WEIR_ENOMEM;
    }
    weir_ctx_set_state(ctx, s);
    return 0;
}

/* ---- formatting ----------------------------------------------------------- */

static int format_row(const file_sink_arg *a, const void *elem, int64_t ts, char *buf,
                      size_t size)
{
    if (a->format)
        return a->format(elem, ts, buf, size, a->format_arg);
    if (a->csv)
        return a->columns ? weir_row_write_csv_columns(a->schema, elem, a->columns, a->ncolumns,
                                                       a->delimiter, buf, size)
                          : weir_row_write_csv(a->schema, elem, a->delimiter, buf, size);
    return a->columns ? weir_row_write_json_columns(a->schema, elem, a->columns, a->ncolumns, buf,
                                                    size)
                      : weir_row_write_json(a->schema, elem, buf, size);
}

/* The record's line, newline included, into s->line; its length or < 0. */
static int make_line(weir_ctx *ctx, file_sink *s, const void *elem, int64_t ts, size_t *len)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    for (int tries = 0; tries < 2; tries++) {
        if (s->line_cap < 256) {
            char *p = realloc(s->line, 256);
            if (!p)
                return weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory");
            s->line = p;
            s->line_cap = 256;
        }
        int n = format_row(a, elem, ts, s->line, s->line_cap - 1);
        if (n < 0)
            return weir_ctx_fail(ctx, WEIR_ECALLBACK, "file sink: the formatter failed (%d)", n);
        if ((size_t)n < s->line_cap - 1) {
            s->line[n] = '\n';
            *len = (size_t)n + 1;
            return 0;
        }
        char *p = realloc(s->line, (size_t)n + 2);
        if (!p)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory");
        s->line = p;
        s->line_cap = (size_t)n + 2;
    }
    return weir_ctx_fail(ctx, WEIR_ECALLBACK,
                         "file sink: the formatter asked for more room twice for one record");
}

/* ---- the operator --------------------------------------------------------- */

static int sink_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const file_sink_arg *a = weir_ctx_arg(ctx);
    file_sink *s = weir_ctx_state(ctx);
    size_t len = 0;
    bucket *b = NULL;
    int r = bucket_of(ctx, s, elem, ts, &b);
    if (r == 0)
        r = make_line(ctx, s, elem, ts, &len);
    if (r < 0)
        return r;
    if (!b->f) {
        /* made new, in its folder (made if missing: once a part, not a
         * record); fsynced when it rolls (close_part), not when parked */
        char path[PATH_BUF], err[PATH_BUF + 200];
        if (b->len) {
            folder_path(a, path, sizeof path, b->folder);
            if ((r = weir_outfile_make_folders(path, err, sizeof err)) < 0)
                return weir_ctx_fail(ctx, r, "file sink: %s", err);
        }
        b->out_n = s->next_n++;
        b->out_bytes = 0;
        part_path(a, path, sizeof path, b->folder, self(ctx), b->out_n, false);
        weir_outfile_config cfg = {.flags = WEIR_OUTFILE_NEW,
                                   .temp_prefix = ".",
                                   .temp_suffix = ".inprogress"};
        if (weir_outfile_open(path, &cfg, &b->out, err, sizeof err) != 0)
            return weir_ctx_fail(ctx, WEIR_EIO, "file sink: %s", err);
        b->f = weir_outfile_stream(b->out);
    }
    if (fwrite(s->line, 1, len, b->f) != len) {
        char path[PATH_BUF];
        part_path(a, path, sizeof path, b->folder, self(ctx), b->out_n, true);
        return weir_ctx_fail(ctx, WEIR_EIO, "file sink: writing %s: %s", path, strerror(errno));
    }
    b->out_bytes += (int64_t)len;
    if (b->out_bytes >= a->roll_bytes)
        return roll(ctx, s, b);
    return 0;
}

static int sink_end(weir_ctx *ctx)
{
    file_sink *s = weir_ctx_state(ctx);
    int r = roll_all(ctx, s);
    /* Without checkpoints the end of input is the commit; with them the
     * job's final checkpoint is (notify_complete). */
    if (r == 0 && !weir_ctx_checkpoints(ctx))
        r = commit_upto(ctx, s, self(ctx), INT64_MAX);
    return r;
}

/* Fsyncs the folders of the parts no snapshot listed yet, and every folder
 * above them up to dir: a bucket's folder may be new since the last
 * checkpoint, and its entry must be on disk before a checkpoint names a
 * part in it. */
static int sync_new_pending(weir_ctx *ctx, const file_sink *s)
{
    folder_set fs = {0};
    int r = 0;
    bool any = false;
    for (size_t i = 0; r == 0 && i < s->npending; i++) {
        const pending_part *p = &s->pending[i];
        if (p->checkpoint != 0)
            continue;
        any = true;
        const char *f = p->folder;
        for (size_t k = 0; r == 0 && f && f[k]; k++) /* the folders above it */
            if (f[k] == '/')
                r = folder_add(&fs, f, k);
        if (r == 0 && f)
            r = folder_add(&fs, f, strlen(f));
    }
    if (r == 0 && any)
        r = folder_add(&fs, "", 0);
    r = r ? weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory") : sync_folders(ctx, &fs);
    folder_set_free(&fs);
    return r;
}

static int sink_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    file_sink *s = weir_ctx_state(ctx);
    int r = roll_all(ctx, s);
    if (r == 0)
        r = sync_new_pending(ctx, s);
    if (r < 0)
        return r;
    int64_t id = weir_snapshot_checkpoint_id(w);
    for (size_t i = 0; i < s->npending; i++) {
        if (s->pending[i].checkpoint == 0)
            s->pending[i].checkpoint = id;
    }
    /* [tag][run id, 16 bytes][subtask, next part, count] then per pending
     * part [n][folder's length, 4 bytes][folder] */
    uint32_t tag = STATE_TAG;
    r = weir_snapshot_write(w, &tag, sizeof tag);
    if (r == 0)
        r = weir_snapshot_write(w, a->run, RUN_CHARS);
    if (r == 0) {
        int64_t head[3] = {weir_ctx_subtask(ctx), s->next_n, (int64_t)s->npending};
        r = weir_snapshot_write(w, head, sizeof head);
    }
    for (size_t i = 0; r == 0 && i < s->npending; i++) {
        const pending_part *p = &s->pending[i];
        uint32_t fl = p->folder ? (uint32_t)strlen(p->folder) : 0;
        r = weir_snapshot_write(w, &p->n, sizeof p->n);
        if (r == 0)
            r = weir_snapshot_write(w, &fl, sizeof fl);
        if (r == 0 && fl)
            r = weir_snapshot_write(w, p->folder, fl);
    }
    return r;
}

/* One old subtask's state: its writer, next part number and pending parts
 * (into *listed), in this weir's layout or an older one's. 0; -1 for bytes
 * that are not a file sink's; -2 out of memory (the job failed). */
static int parse_state(const unsigned char *b, size_t len, writer *w, char run[RUN_CHARS + 1],
                       int64_t *next_n, file_sink *listed, weir_ctx *ctx)
{
    uint32_t tag;
    int64_t head[3];
    if (len < sizeof tag)
        return -1;
    memcpy(&tag, b, sizeof tag);
    size_t at = sizeof tag;
    if (tag == STATE_TAG || tag == STATE_TAG_V2) {
        if (len < at + RUN_CHARS)
            return -1;
        memcpy(run, b + at, RUN_CHARS);
        run[RUN_CHARS] = '\0';
        for (int i = 0; i < RUN_CHARS; i++) {
            if (!strchr("0123456789abcdef", run[i]) || !run[i])
                return -1;
        }
        at += RUN_CHARS;
        w->run = run;
    } else if (tag == STATE_TAG_V1) {
        w->run = NULL;
    } else {
        return -1;
    }
    if (len - at < sizeof head)
        return -1;
    memcpy(head, b + at, sizeof head);
    at += sizeof head;
    if (head[0] < 0 || head[0] > INT32_MAX || head[1] < 0 || head[2] < 0)
        return -1;
    w->subtask = (int)head[0];
    *next_n = head[1];
    for (int64_t i = 0; i < head[2]; i++) {
        int64_t n;
        char folder[BUCKET_FOLDER_MAX] = "";
        if (tag == STATE_TAG_V1) { /* [subtask, n]: the writer's own subtask */
            int64_t p[2];
            if (len - at < sizeof p)
                return -1;
            memcpy(p, b + at, sizeof p);
            at += sizeof p;
            if (p[0] != head[0])
                return -1;
            n = p[1];
        } else {
            uint32_t fl = 0;
            if (len - at < sizeof n)
                return -1;
            memcpy(&n, b + at, sizeof n);
            at += sizeof n;
            if (tag == STATE_TAG) {
                if (len - at < sizeof fl)
                    return -1;
                memcpy(&fl, b + at, sizeof fl);
                at += sizeof fl;
                if (fl >= BUCKET_FOLDER_MAX || len - at < fl)
                    return -1;
                memcpy(folder, b + at, fl);
                folder[fl] = '\0';
                at += fl;
                if (bad_folder(folder, fl))
                    return -1;
            }
        }
        if (n < 0)
            return -1;
        if (add_pending(ctx, listed, folder, n, 0) < 0)
            return -2;
    }
    return at == len ? 0 : -1;
}

static int sink_restore(weir_ctx *ctx, weir_snapshot_reader *rd)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    file_sink *s = weir_ctx_state(ctx);
    stale_writer *ws = NULL;
    int nws = 0, r = 0;
    const void *data;
    size_t len;
    int got;
    while (r == 0 && (got = weir_snapshot_next(rd, &data, &len)) == 1) {
        writer w;
        char run[RUN_CHARS + 1];
        int64_t next_n = 0;
        file_sink listed = {0};
        int p = parse_state(data, len, &w, run, &next_n, &listed, ctx);
        if (p < 0) {
            free_pending(&listed);
            r = p == -2 ? weir_ctx_error(ctx)
                        : weir_ctx_fail(ctx, WEIR_EFORMAT, "file sink: restore: the checkpoint's "
                                        "state is not a file sink's");
            break;
        }
        /* part numbers go on from every writer this subtask is heir to */
        if (next_n > s->next_n)
            s->next_n = next_n;
        /* The restored checkpoint is complete: its pending parts are
         * committed now; what their writer wrote after it goes below. */
        r = commit_upto(ctx, &listed, w, INT64_MAX);
        free_pending(&listed);
        stale_writer *more = r == 0 ? realloc(ws, (size_t)(nws + 1) * sizeof *ws) : NULL;
        if (r == 0 && !more)
            r = weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory");
        if (r == 0) {
            ws = more;
            stale_writer *sw = &ws[nws++];
            sw->v1 = !w.run;
            sw->len = (size_t)(w.run ? snprintf(sw->head, sizeof sw->head, ".%s-%s-%d-",
                                                a->prefix, w.run, w.subtask)
                                     : snprintf(sw->head, sizeof sw->head, ".%s-%d-", a->prefix,
                                                w.subtask));
        }
    }
    if (r == 0 && got < 0)
        r = got;
    if (r == 0 && nws) {
        char path[PATH_BUF];
        snprintf(path, sizeof path, "%s", a->dir);
        r = discard_walk(ctx, path, strlen(path), 0, ws, nws);
    }
    free(ws);
    return r;
}

static int sink_notify(weir_ctx *ctx, int64_t checkpoint_id)
{
    return commit_upto(ctx, weir_ctx_state(ctx), self(ctx), checkpoint_id);
}

/* What can never be committed goes: the parts in progress (no checkpoint
 * lists them: a snapshot rolls them first), and the pending parts no
 * snapshot listed yet, or, without checkpoints, all of them (nothing will
 * commit them once the run is over). Parts a snapshot listed wait for a
 * restore. */
static void sink_close(weir_ctx *ctx)
{
    file_sink *s = weir_ctx_state(ctx);
    if (!s)
        return;
    const file_sink_arg *a = weir_ctx_arg(ctx);
    char path[PATH_BUF];
    for (int i = 0; i < s->nslots; i++) {
        bucket *b = &s->slots[i];
        if (b->out) {
            weir_outfile_discard(b->out);
        } else if (b->f) { /* a part opened again */
            fclose(b->f);
            part_path(a, path, sizeof path, b->folder, self(ctx), b->out_n, true);
            unlink(path);
        }
    }
    for (size_t i = 0; i < s->parked_cap; i++) {
        if (s->parked[i].folder) {
            part_path(a, path, sizeof path, s->parked[i].folder, self(ctx), s->parked[i].n, true);
            unlink(path);
            free(s->parked[i].folder);
        }
    }
    free(s->parked);
    bool checkpoints = weir_ctx_checkpoints(ctx);
    for (size_t i = 0; i < s->npending; i++) {
        const pending_part *p = &s->pending[i];
        if (!checkpoints || p->checkpoint == 0) {
            part_path(a, path, sizeof path, p->folder, self(ctx), p->n, true);
            unlink(path);
        }
    }
    free_pending(s);
    free(s->slots);
    free(s->line);
    free(s);
}

static const weir_operator_vtable file_sink_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V2,
    .open = sink_open,
    .on_record = sink_record,
    .on_end = sink_end,
    .close = sink_close,
    .snapshot = sink_snapshot,
    .restore = sink_restore,
    .notify_complete = sink_notify,
};

/* 16 random hex digits: the run's id in its part names. */
static void new_run_id(char run[RUN_CHARS + 1])
{
    uint64_t v;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
        /* no entropy yet (early boot): the clock and the process */
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        v = ((uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec) * 0x9e3779b97f4a7c15u ^
            (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)run;
    }
    snprintf(run, RUN_CHARS + 1, "%016" PRIx64, v);
}

static bool plain_name(const char *s)
{
    if (!*s || strlen(s) > 200)
        return false;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* What is wrong with the config, or NULL. */
static const char *bad_config(const weir_stream *s, const weir_file_sink_config *cfg)
{
    if (!cfg || !cfg->dir || !*cfg->dir)
        return "a config with dir is required";
    if (strlen(cfg->dir) >= DIR_MAX)
        return "dir is longer than 4095 bytes";
    if (!cfg->format && !cfg->schema)
        return "a format function or a schema is required";
    if (cfg->prefix && !plain_name(cfg->prefix))
        return "the prefix must be 1 to 200 letters, digits, '.', '_' or '-'";
    if (cfg->roll_bytes < 0)
        return "roll_bytes is negative";
    if (!cfg->format && weir_stream_elem_size(s) != weir_schema_row_size(cfg->schema))
        return "the stream's elements are not rows of the schema (their sizes differ)";
    if (cfg->columns && (cfg->format || !cfg->schema))
        return "columns are of a schema's rows, written without a format function";
    if (cfg->columns && cfg->ncolumns < 1)
        return "columns without ncolumns (at least one)";
    for (int i = 0; cfg->columns && i < cfg->ncolumns; i++)
        if (cfg->columns[i] < 0 || cfg->columns[i] >= weir_schema_ncolumns(cfg->schema))
            return "a column index out of the schema's range";
    if (cfg->csv_delimiter == '"' || cfg->csv_delimiter == '\n' || cfg->csv_delimiter == '\r')
        return "the CSV delimiter cannot be a quote or a line break";
    if (cfg->success_file && (!plain_name(cfg->success_file) || cfg->success_file[0] == '.'))
        return "the success file's name must be 1 to 200 letters, digits, '.', '_' or '-', not "
               "starting with '.'";
    return NULL;
}

weir_stream *weir_sink_file(weir_stream *s, const weir_file_sink_config *cfg)
{
    static const char call[] = "weir_sink_file";
    if (!s)
        return NULL;
    weir_job *job = weir_stream_job(s);
    const char *why = bad_config(s, cfg);
    if (why) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: %s", call, why);
        return NULL;
    }
    file_sink_arg *a = calloc(1, sizeof *a);
    if (!a) {
        weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", call);
        return NULL;
    }
    a->dir = strdup(cfg->dir);
    a->prefix = strdup(cfg->prefix ? cfg->prefix : "part");
    a->format = cfg->format;
    a->format_arg = cfg->format_arg;
    a->schema = cfg->schema;
    a->csv = cfg->csv;
    a->delimiter = cfg->csv_delimiter ? cfg->csv_delimiter : ',';
    a->roll_bytes = cfg->roll_bytes > 0 ? cfg->roll_bytes : DEFAULT_ROLL_BYTES;
    a->bucket = cfg->bucket;
    a->bucket_arg = cfg->bucket_arg;
    bool nomem = !a->dir || !a->prefix;
    if (cfg->success_file)
        nomem |= !(a->success_file = strdup(cfg->success_file));
    if (cfg->columns) {
        a->ncolumns = cfg->ncolumns;
        if ((a->columns = malloc((size_t)cfg->ncolumns * sizeof *a->columns)))
            memcpy(a->columns, cfg->columns, (size_t)cfg->ncolumns * sizeof *a->columns);
        nomem |= !a->columns;
    }
    new_run_id(a->run);
    if (nomem) {
        arg_free(a);
        weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", call);
        return NULL;
    }
    weir_process_spec spec = {.kind = "sink_file",
                              .vtable = &file_sink_vtable,
                              .arg = a,
                              .arg_free = arg_free,
                              .accounting = WEIR_ACCOUNTING_SINK};
    return weir_stream_process(s, &spec);
}
