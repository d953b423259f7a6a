/* sink_file.c — the exactly-once file sink (weir/file_sink.h): part files
 * that are in progress, pending at a checkpoint and committed when it
 * completes. Written against the public headers only.
 *
 * Names. A part is PREFIX-RUN-i-N once committed and .PREFIX-RUN-i-N.inprogress
 * before (while written, and while pending: closed, fsynced, waiting for its
 * checkpoint, as Flink's pending files keep their in-progress names). RUN is
 * a random id drawn when the sink is built, the same for all its subtasks, so
 * that no run can make a name another run made: a restore at any parallelism
 * (subtask i of this run may be the heir of old subtask j, or of none) starts
 * names of its own, and its part counter goes on from the old ones' (Flink's
 * FileSink draws a unique id per writer the same way).
 *
 * State. A subtask's state in a checkpoint is its run id, its subtask index,
 * its next part number and the numbers of its pending parts. A restore gives
 * each old subtask's state to exactly one new subtask, which commits exactly
 * the pending parts listed and deletes every other hidden part of that old
 * writer (run and index): they were written after the checkpoint, and their
 * records are replayed. Parts of the current run carry its own id, so a
 * restore never touches what the current run's subtasks write. A run that
 * stopped before any checkpoint of its own completed is in no state: its
 * hidden parts stay (weir/file_sink.h says so). Durability: a part file is
 * fsynced when it is closed, and the folder before a checkpoint lists it and
 * after every batch of commits.
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
#define STATE_TAG 0x326b7366u    /* "fsk2" */
#define STATE_TAG_V1 0x666b7331u /* "fks1": names without a run id (older weir) */
#define RUN_CHARS 16

typedef struct file_sink_arg {
    char *dir;
    char *prefix;
    weir_format_fn format;
    void *format_arg;
    const weir_schema *schema;
    bool csv;
    int64_t roll_bytes;
    char run[RUN_CHARS + 1]; /* this run's id: 16 hex digits */
} file_sink_arg;

typedef struct pending_part {
    int64_t n;
    int64_t checkpoint; /* committed once this checkpoint completes; 0: no snapshot yet */
} pending_part;

typedef struct file_sink {
    weir_outfile *out; /* the in-progress part, NULL: none open */
    FILE *f;           /* its stream */
    int64_t out_n;
    int64_t out_bytes;
    int64_t next_n;
    pending_part *pending;
    size_t npending, cap;
    char *line;
    size_t line_cap;
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
        free(a);
    }
}

/* The committed name (hidden false) or the hidden one of part n. An older
 * weir's hidden pending name ended in ".pending". */
static void part_path(const file_sink_arg *a, char *buf, size_t size, writer w, int64_t n,
                      bool hidden)
{
    char run[RUN_CHARS + 2] = "";
    if (w.run)
        snprintf(run, sizeof run, "%s-", w.run);
    snprintf(buf, size, "%s/%s%s-%s%d-%" PRId64 "%s", a->dir, hidden ? "." : "", a->prefix, run,
             w.subtask, n, !hidden ? "" : w.run ? ".inprogress" : ".pending");
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

static int add_pending(weir_ctx *ctx, file_sink *s, int64_t n, int64_t checkpoint)
{
    if (s->npending == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        pending_part *p = realloc(s->pending, cap * sizeof *p);
        if (!p)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory");
        s->pending = p;
        s->cap = cap;
    }
    s->pending[s->npending++] = (pending_part){.n = n, .checkpoint = checkpoint};
    return 0;
}

/* The in-progress part, fsynced and closed, becomes pending (its name stays). */
static int roll(weir_ctx *ctx, file_sink *s)
{
    if (!s->out)
        return 0;
    weir_outfile *out = s->out;
    s->out = NULL;
    s->f = NULL;
    char err[4200];
    if (weir_outfile_close(out, err, sizeof err) != 0)
        return weir_ctx_fail(ctx, WEIR_EIO, "file sink: %s", err);
    return add_pending(ctx, s, s->out_n, 0);
}

/* Renames a pending part of writer w to its final name. A part already
 * committed (a restore after the commit, before the checkpoint recorded it)
 * is fine. The rename never replaces anything: part names carry the run's
 * id, so a file already there under a part's name is none of this job's. */
static int commit_part(weir_ctx *ctx, writer w, int64_t n)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    char from[4096], to[4096], err[8400];
    part_path(a, from, sizeof from, w, n, true);
    part_path(a, to, sizeof to, w, n, false);
    int r = weir_outfile_publish(from, to, WEIR_OUTFILE_NEW, err, sizeof err);
    if (r == 0)
        return 0;
    if (r == WEIR_ENOENT && access(to, F_OK) == 0)
        return 0;
    if (r == WEIR_ENOENT)
        return weir_ctx_fail(ctx, WEIR_EIO,
                             "file sink: committing part %" PRId64 ": neither %s nor %s is there "
                             "(was the folder changed since the checkpoint?)",
                             n, from, to);
    return weir_ctx_fail(ctx, WEIR_EIO,
                         "file sink: committing %s: %s (another writer made that name; this "
                         "run's parts are named %s-%s-*)",
                         from, err, a->prefix, a->run);
}

/* Commits every pending part whose checkpoint is at or below `upto`
 * (INT64_MAX: all). */
static int commit_upto(weir_ctx *ctx, file_sink *s, writer w, int64_t upto)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    size_t keep = 0;
    bool any = false;
    for (size_t i = 0; i < s->npending; i++) {
        pending_part *p = &s->pending[i];
        if (upto == INT64_MAX || (p->checkpoint != 0 && p->checkpoint <= upto)) {
            int r = commit_part(ctx, w, p->n);
            if (r < 0)
                return r;
            any = true;
        } else {
            s->pending[keep++] = *p;
        }
    }
    s->npending = keep;
    return any ? sync_dir(ctx, a->dir) : 0;
}

/* Deletes the hidden parts of writer w that are left once the restored
 * checkpoint's pending ones are committed: output written after that
 * checkpoint (or, for an older weir's names, by a run that crashed). */
static int discard_stale(weir_ctx *ctx, writer w)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    DIR *d = opendir(a->dir);
    if (!d)
        return weir_ctx_fail(ctx, WEIR_EIO, "file sink: reading %s: %s", a->dir, strerror(errno));
    char head[300];
    int hl = w.run ? snprintf(head, sizeof head, ".%s-%s-%d-", a->prefix, w.run, w.subtask)
                   : snprintf(head, sizeof head, ".%s-%d-", a->prefix, w.subtask);
    struct dirent *e;
    int r = 0;
    while (r == 0 && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, head, (size_t)hl) != 0)
            continue;
        const char *digits = e->d_name + hl;
        char *end;
        (void)strtoll(digits, &end, 10);
        if (end == digits || *digits < '0' || *digits > '9' ||
            !(strcmp(end, ".inprogress") == 0 || (!w.run && strcmp(end, ".pending") == 0)))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", a->dir, e->d_name);
        if (unlink(path) != 0 && errno != ENOENT)
            r = weir_ctx_fail(ctx, WEIR_EIO, "file sink: deleting %s: %s", path, strerror(errno));
    }
    closedir(d);
    return r;
}

static int sink_open(weir_ctx *ctx)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    char why[1024];
    int r = weir_outfile_make_folders(a->dir, why, sizeof why);
    if (r < 0)
        return weir_ctx_fail(ctx, r, "file sink: %s", why);
    file_sink *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    return 0;
}

/* ---- formatting ----------------------------------------------------------- */

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
        int n = a->format   ? a->format(elem, ts, s->line, s->line_cap - 1, a->format_arg)
                : a->csv ? weir_row_write_csv(a->schema, elem, 0, s->line, s->line_cap - 1)
                         : weir_row_write_json(a->schema, elem, s->line, s->line_cap - 1);
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
    int r = make_line(ctx, s, elem, ts, &len);
    if (r < 0)
        return r;
    if (!s->out) {
        char path[4096], err[8400];
        s->out_n = s->next_n++;
        s->out_bytes = 0;
        part_path(a, path, sizeof path, self(ctx), s->out_n, false);
        weir_outfile_config cfg = {.flags = WEIR_OUTFILE_NEW | WEIR_OUTFILE_SYNC,
                                   .temp_prefix = ".",
                                   .temp_suffix = ".inprogress"};
        if (weir_outfile_open(path, &cfg, &s->out, err, sizeof err) != 0)
            return weir_ctx_fail(ctx, WEIR_EIO, "file sink: %s", err);
        s->f = weir_outfile_stream(s->out);
    }
    if (fwrite(s->line, 1, len, s->f) != len)
        return weir_ctx_fail(ctx, WEIR_EIO, "file sink: writing %s: %s",
                             weir_outfile_writing(s->out), strerror(errno));
    s->out_bytes += (int64_t)len;
    if (s->out_bytes >= a->roll_bytes)
        return roll(ctx, s);
    return 0;
}

static int sink_end(weir_ctx *ctx)
{
    file_sink *s = weir_ctx_state(ctx);
    int r = roll(ctx, s);
    /* Without checkpoints the end of input is the commit; with them the
     * job's final checkpoint is (notify_complete). */
    if (r == 0 && !weir_ctx_checkpoints(ctx))
        r = commit_upto(ctx, s, self(ctx), INT64_MAX);
    return r;
}

static int sink_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    file_sink *s = weir_ctx_state(ctx);
    int r = roll(ctx, s);
    if (r < 0)
        return r;
    if (s->npending && (r = sync_dir(ctx, a->dir)) < 0)
        return r;
    int64_t id = weir_snapshot_checkpoint_id(w);
    for (size_t i = 0; i < s->npending; i++) {
        if (s->pending[i].checkpoint == 0)
            s->pending[i].checkpoint = id;
    }
    /* [tag][run id, 16 bytes][subtask, next part, count] then n per pending part */
    uint32_t tag = STATE_TAG;
    r = weir_snapshot_write(w, &tag, sizeof tag);
    if (r == 0)
        r = weir_snapshot_write(w, a->run, RUN_CHARS);
    if (r == 0) {
        int64_t head[3] = {weir_ctx_subtask(ctx), s->next_n, (int64_t)s->npending};
        r = weir_snapshot_write(w, head, sizeof head);
    }
    for (size_t i = 0; r == 0 && i < s->npending; i++)
        r = weir_snapshot_write(w, &s->pending[i].n, sizeof s->pending[i].n);
    return r;
}

/* One old subtask's state: its writer, next part number and pending parts
 * (into *listed), in this weir's layout or an older one's. 0, or -1 for
 * bytes that are not a file sink's. */
static int parse_state(const unsigned char *b, size_t len, writer *w, char run[RUN_CHARS + 1],
                       int64_t *next_n, file_sink *listed, weir_ctx *ctx)
{
    uint32_t tag;
    int64_t head[3];
    if (len < sizeof tag)
        return -1;
    memcpy(&tag, b, sizeof tag);
    size_t at = sizeof tag, each;
    if (tag == STATE_TAG) {
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
        each = sizeof(int64_t);
    } else if (tag == STATE_TAG_V1) {
        w->run = NULL;
        each = 2 * sizeof(int64_t); /* [subtask, n]: the writer's own subtask */
    } else {
        return -1;
    }
    if (len < at + sizeof head)
        return -1;
    memcpy(head, b + at, sizeof head);
    at += sizeof head;
    if (head[0] < 0 || head[0] > INT32_MAX || head[1] < 0 || head[2] < 0 ||
        (uint64_t)head[2] > (len - at) / each || len != at + (size_t)head[2] * each)
        return -1;
    w->subtask = (int)head[0];
    *next_n = head[1];
    for (int64_t i = 0; i < head[2]; i++) {
        int64_t p[2];
        memcpy(p, b + at + (size_t)i * each, each);
        int64_t n = w->run ? p[0] : p[1];
        if (!w->run && p[0] != head[0]) /* an older weir's: always the writer's own */
            return -1;
        if (add_pending(ctx, listed, n, 0) < 0)
            return -2;
    }
    return 0;
}

static int sink_restore(weir_ctx *ctx, weir_snapshot_reader *rd)
{
    file_sink *s = weir_ctx_state(ctx);
    const void *data;
    size_t len;
    int got;
    while ((got = weir_snapshot_next(rd, &data, &len)) == 1) {
        writer w;
        char run[RUN_CHARS + 1];
        int64_t next_n = 0;
        file_sink listed = {0};
        int p = parse_state(data, len, &w, run, &next_n, &listed, ctx);
        if (p < 0) {
            free(listed.pending);
            return p == -2 ? weir_ctx_error(ctx)
                           : weir_ctx_fail(ctx, WEIR_EFORMAT,
                                           "file sink: restore: the checkpoint's state is not a "
                                           "file sink's");
        }
        /* part numbers go on from every writer this subtask is heir to */
        if (next_n > s->next_n)
            s->next_n = next_n;
        /* The restored checkpoint is complete: its pending parts are
         * committed now; what their writer wrote after it is discarded. */
        int r = commit_upto(ctx, &listed, w, INT64_MAX);
        if (r == 0)
            r = discard_stale(ctx, w);
        free(listed.pending);
        if (r < 0)
            return r;
    }
    return got;
}

static int sink_notify(weir_ctx *ctx, int64_t checkpoint_id)
{
    return commit_upto(ctx, weir_ctx_state(ctx), self(ctx), checkpoint_id);
}

/* What can never be committed goes: the part in progress (no checkpoint
 * lists it: a snapshot rolls it first), and the pending parts no snapshot
 * listed yet, or, without checkpoints, all of them (nothing will commit
 * them once the run is over). Parts a snapshot listed wait for a restore. */
static void sink_close(weir_ctx *ctx)
{
    file_sink *s = weir_ctx_state(ctx);
    if (!s)
        return;
    weir_outfile_discard(s->out);
    const file_sink_arg *a = weir_ctx_arg(ctx);
    bool checkpoints = weir_ctx_checkpoints(ctx);
    for (size_t i = 0; i < s->npending; i++) {
        if (!checkpoints || s->pending[i].checkpoint == 0) {
            char path[4096];
            part_path(a, path, sizeof path, self(ctx), s->pending[i].n, true);
            unlink(path);
        }
    }
    free(s->pending);
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

weir_stream *weir_sink_file(weir_stream *s, const weir_file_sink_config *cfg)
{
    static const char call[] = "weir_sink_file";
    if (!s)
        return NULL;
    weir_job *job = weir_stream_job(s);
    const char *why = NULL;
    if (!cfg || !cfg->dir || !*cfg->dir)
        why = "a config with dir is required";
    else if (!cfg->format && !cfg->schema)
        why = "a format function or a schema is required";
    else if (cfg->prefix && !plain_name(cfg->prefix))
        why = "the prefix must be 1 to 200 letters, digits, '.', '_' or '-'";
    else if (cfg->roll_bytes < 0)
        why = "roll_bytes is negative";
    else if (!cfg->format && weir_stream_elem_size(s) != weir_schema_row_size(cfg->schema))
        why = "the stream's elements are not rows of the schema (their sizes differ)";
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
    a->roll_bytes = cfg->roll_bytes > 0 ? cfg->roll_bytes : DEFAULT_ROLL_BYTES;
    new_run_id(a->run);
    if (!a->dir || !a->prefix) {
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
