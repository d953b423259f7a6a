/* sink_file.c — the exactly-once file sink (weir/file_sink.h): part files
 * that are in progress, pending at a checkpoint and committed when it
 * completes. Written against the public headers only.
 *
 * A subtask's state in a checkpoint is its next part number and the part
 * numbers of its pending files: a restore commits exactly those, and every
 * other in-progress or pending file of the subtask was written after the
 * checkpoint and is deleted (its records are replayed). Durability: a part
 * file is fsynced before it is renamed to pending, and the folder is
 * fsynced after every batch of renames.
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
#include <sys/stat.h>
#include <unistd.h>

#include "weir/error.h"
#include "weir/file_sink.h"
#include "weir/operator.h"
#include "weir/stream.h"

#include "builder.h"

#define DEFAULT_ROLL_BYTES ((int64_t)128 << 20)
#define STATE_TAG 0x666b7331u /* "fks1" */

typedef struct file_sink_arg {
    char *dir;
    char *prefix;
    weir_format_fn format;
    void *format_arg;
    const weir_schema *schema;
    bool csv;
    int64_t roll_bytes;
} file_sink_arg;

typedef struct pending_part {
    int subtask; /* the subtask whose name it has (another one's after a rescale) */
    int64_t n;
    int64_t checkpoint; /* committed once this checkpoint completes; 0: no snapshot yet */
} pending_part;

typedef struct file_sink {
    FILE *out;          /* the in-progress part, NULL: none open */
    int64_t out_n;
    int64_t out_bytes;
    int64_t next_n;
    pending_part *pending;
    size_t npending, cap;
    char *line;
    size_t line_cap;
} file_sink;

static void arg_free(void *p)
{
    file_sink_arg *a = p;
    if (a) {
        free(a->dir);
        free(a->prefix);
        free(a);
    }
}

static void part_path(const file_sink_arg *a, char *buf, size_t size, int subtask, int64_t n,
                      const char *state)
{
    if (state)
        snprintf(buf, size, "%s/.%s-%d-%" PRId64 ".%s", a->dir, a->prefix, subtask, n, state);
    else
        snprintf(buf, size, "%s/%s-%d-%" PRId64, a->dir, a->prefix, subtask, n);
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

static int add_pending(weir_ctx *ctx, file_sink *s, int subtask, int64_t n, int64_t checkpoint)
{
    if (s->npending == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        pending_part *p = realloc(s->pending, cap * sizeof *p);
        if (!p)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory");
        s->pending = p;
        s->cap = cap;
    }
    s->pending[s->npending++] = (pending_part){.subtask = subtask, .n = n, .checkpoint = checkpoint};
    return 0;
}

/* The in-progress part, fsynced and closed, becomes pending. */
static int roll(weir_ctx *ctx, file_sink *s)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    if (!s->out)
        return 0;
    FILE *f = s->out;
    s->out = NULL;
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    int e = errno;
    bad |= fclose(f) != 0;
    char from[4096], to[4096];
    part_path(a, from, sizeof from, weir_ctx_subtask(ctx), s->out_n, "inprogress");
    part_path(a, to, sizeof to, weir_ctx_subtask(ctx), s->out_n, "pending");
    if (bad)
        return weir_ctx_fail(ctx, WEIR_EIO, "file sink: writing %s: %s", from, strerror(e));
    if (rename(from, to) != 0)
        return weir_ctx_fail(ctx, WEIR_EIO, "file sink: renaming %s: %s", from, strerror(errno));
    return add_pending(ctx, s, weir_ctx_subtask(ctx), s->out_n, 0);
}

/* Renames a pending part to its final name. A part already committed (a
 * restore after the commit, before the checkpoint recorded it) is fine. */
static int commit_part(weir_ctx *ctx, const pending_part *p)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    char from[4096], to[4096];
    part_path(a, from, sizeof from, p->subtask, p->n, "pending");
    part_path(a, to, sizeof to, p->subtask, p->n, NULL);
    /* Never over a committed part (a restore from an older checkpoint than
     * the newest would otherwise replace output others may have read). */
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno == ENOENT && access(to, F_OK) == 0)
        return 0;
    if (errno == EEXIST)
        return weir_ctx_fail(ctx, WEIR_EIO,
                             "file sink: committing %s: %s is already committed (was the job "
                             "restored from an older checkpoint than its newest?)",
                             from, to);
    return weir_ctx_fail(ctx, WEIR_EIO, "file sink: committing %s: %s", from, strerror(errno));
}

/* Commits every pending part whose checkpoint is at or below `upto`
 * (INT64_MAX: all). */
static int commit_upto(weir_ctx *ctx, file_sink *s, int64_t upto)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    size_t keep = 0;
    bool any = false;
    for (size_t i = 0; i < s->npending; i++) {
        pending_part *p = &s->pending[i];
        if (upto == INT64_MAX || (p->checkpoint != 0 && p->checkpoint <= upto)) {
            int r = commit_part(ctx, p);
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

/* Deletes the in-progress parts of subtask `subtask` and (pending_too) its
 * pending parts: output written after the checkpoint restored, or by a run
 * that crashed. */
static int discard_stale(weir_ctx *ctx, int subtask, bool pending_too)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    DIR *d = opendir(a->dir);
    if (!d)
        return weir_ctx_fail(ctx, WEIR_EIO, "file sink: reading %s: %s", a->dir, strerror(errno));
    char head[300];
    int hl = snprintf(head, sizeof head, ".%s-%d-", a->prefix, subtask);
    struct dirent *e;
    int r = 0;
    while (r == 0 && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, head, (size_t)hl) != 0)
            continue;
        char *end;
        long long n = strtoll(e->d_name + hl, &end, 10);
        bool pending = strcmp(end, ".pending") == 0;
        (void)n;
        if (end == e->d_name + hl || (pending ? !pending_too : strcmp(end, ".inprogress") != 0))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", a->dir, e->d_name);
        if (unlink(path) != 0 && errno != ENOENT)
            r = weir_ctx_fail(ctx, WEIR_EIO, "file sink: deleting %s: %s", path, strerror(errno));
    }
    closedir(d);
    return r;
}

/* Makes dir and any missing parents (mkdir -p); 0, or -1 with errno set and
 * the part that could not be made in part. The runtime has its own for the
 * checkpoint folder: operators/ include no runtime internals. */
static int make_folders(const char *dir, char *part, size_t size)
{
    snprintf(part, size, "%s", dir);
    size_t n = strlen(part);
    for (size_t i = 1; i <= n; i++) {
        if (i < n && (part[i] != '/' || part[i - 1] == '/'))
            continue;
        char c = part[i];
        part[i] = '\0';
        struct stat st;
        if (mkdir(part, 0777) != 0 && !(errno == EEXIST && stat(part, &st) == 0 && S_ISDIR(st.st_mode))) {
            if (errno == EEXIST)
                errno = ENOTDIR;
            return -1;
        }
        part[i] = c;
    }
    return 0;
}

static int sink_open(weir_ctx *ctx)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    char part[4096];
    if (make_folders(a->dir, part, sizeof part) != 0)
        return weir_ctx_fail(ctx, WEIR_EIO, "file sink: making %s: %s: %s", a->dir, part,
                             strerror(errno));
    file_sink *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    /* Whatever a crashed run left in progress under this subtask's name is
     * not output (pending parts wait: a restore may commit them). */
    return discard_stale(ctx, weir_ctx_subtask(ctx), false) < 0 ? weir_ctx_error(ctx) : 0;
}

/* ---- formatting ----------------------------------------------------------- */

typedef struct text {
    char *p;
    size_t len, cap;
    bool oom;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->oom)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->oom = true;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
}

static void put_json_string(text *t, const char *s, size_t n)
{
    put(t, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put(t, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put(t, esc, 6);
        } else {
            put(t, (const char *)&s[i], 1);
        }
    }
    put(t, "\"", 1);
}

static void put_csv_string(text *t, const char *s, size_t n)
{
    bool quote = memchr(s, ',', n) || memchr(s, '"', n) || memchr(s, '\n', n) ||
                 memchr(s, '\r', n);
    if (!quote) {
        put(t, s, n);
        return;
    }
    put(t, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            put(t, "\"", 1);
        put(t, &s[i], 1);
    }
    put(t, "\"", 1);
}

/* A row as JSON (Flink's json format: TIMESTAMP as "2024-01-01 00:00:10.000")
 * or as a CSV line. */
static void format_row(const file_sink_arg *a, const void *row, text *t)
{
    const weir_schema *sc = a->schema;
    int n = weir_schema_ncolumns(sc);
    if (!a->csv)
        put(t, "{", 1);
    for (int c = 0; c < n; c++) {
        if (c)
            put(t, ",", 1);
        if (!a->csv) {
            const char *name = weir_schema_column_name(sc, c);
            put_json_string(t, name, strlen(name));
            put(t, ":", 1);
        }
        if (weir_row_is_null(sc, row, c)) {
            if (!a->csv)
                put(t, "null", 4);
            continue;
        }
        char buf[64];
        int len = 0;
        weir_type ty = weir_schema_column_type(sc, c);
        switch (ty.id) {
        case WEIR_TYPE_BOOLEAN:
            len = snprintf(buf, sizeof buf, "%s", weir_row_get_bool(sc, row, c) ? "true" : "false");
            break;
        case WEIR_TYPE_INT:
        case WEIR_TYPE_BIGINT:
        case WEIR_TYPE_INTERVAL:
            len = snprintf(buf, sizeof buf, "%" PRId64, weir_row_get_int(sc, row, c));
            break;
        case WEIR_TYPE_DOUBLE: {
            /* the shortest text that reads back as the same double */
            double v = weir_row_get_double(sc, row, c);
            for (int prec = 15; prec <= 17; prec++) {
                len = snprintf(buf, sizeof buf, "%.*g", prec, v);
                if (strtod(buf, NULL) == v)
                    break;
            }
            if (!isfinite(v)) /* JSON has no NaN or infinity */
                len = snprintf(buf, sizeof buf, "%s", a->csv ? buf : "null");
            break;
        }
        case WEIR_TYPE_TIMESTAMP:
        case WEIR_TYPE_TIMESTAMP_LTZ: {
            len = weir_timestamp_format(weir_row_get_int(sc, row, c), buf, sizeof buf);
            if (a->csv)
                put(t, buf, (size_t)len);
            else
                put_json_string(t, buf, (size_t)len);
            continue;
        }
        case WEIR_TYPE_VARCHAR:
        case WEIR_TYPE_CHAR: {
            uint32_t sl = 0;
            const char *sv = weir_row_get_string(sc, row, c, &sl);
            if (a->csv)
                put_csv_string(t, sv, sl);
            else
                put_json_string(t, sv, sl);
            continue;
        }
        default:
            break;
        }
        put(t, buf, (size_t)len);
    }
    if (!a->csv)
        put(t, "}", 1);
}

/* The record's line, newline included, into s->line; its length or < 0. */
static int make_line(weir_ctx *ctx, file_sink *s, const void *elem, int64_t ts, size_t *len)
{
    const file_sink_arg *a = weir_ctx_arg(ctx);
    if (!a->format) {
        text t = {.p = s->line, .cap = s->line_cap};
        format_row(a, elem, &t);
        put(&t, "\n", 1);
        s->line = t.p;
        s->line_cap = t.cap;
        if (t.oom)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory");
        *len = t.len;
        return 0;
    }
    for (int tries = 0; tries < 2; tries++) {
        if (s->line_cap < 256) {
            char *p = realloc(s->line, 256);
            if (!p)
                return weir_ctx_fail(ctx, WEIR_ENOMEM, "file sink: out of memory");
            s->line = p;
            s->line_cap = 256;
        }
        int n = a->format(elem, ts, s->line, s->line_cap - 1, a->format_arg);
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
        char path[4096];
        s->out_n = s->next_n++;
        s->out_bytes = 0;
        part_path(a, path, sizeof path, weir_ctx_subtask(ctx), s->out_n, "inprogress");
        if (!(s->out = fopen(path, "w")))
            return weir_ctx_fail(ctx, WEIR_EIO, "file sink: opening %s: %s", path,
                                 strerror(errno));
    }
    if (fwrite(s->line, 1, len, s->out) != len)
        return weir_ctx_fail(ctx, WEIR_EIO, "file sink: writing part %" PRId64 ": %s", s->out_n,
                             strerror(errno));
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
        r = commit_upto(ctx, s, INT64_MAX);
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
    /* [tag][writer subtask, next part, count] then [subtask, n] per pending part */
    uint32_t tag = STATE_TAG;
    int64_t head[3] = {weir_ctx_subtask(ctx), s->next_n, (int64_t)s->npending};
    r = weir_snapshot_write(w, &tag, sizeof tag);
    if (r == 0)
        r = weir_snapshot_write(w, head, sizeof head);
    for (size_t i = 0; r == 0 && i < s->npending; i++) {
        int64_t p[2] = {s->pending[i].subtask, s->pending[i].n};
        r = weir_snapshot_write(w, p, sizeof p);
    }
    return r;
}

static int sink_restore(weir_ctx *ctx, weir_snapshot_reader *rd)
{
    file_sink *s = weir_ctx_state(ctx);
    const void *data;
    size_t len;
    int got;
    while ((got = weir_snapshot_next(rd, &data, &len)) == 1) {
        const unsigned char *b = data;
        uint32_t tag;
        int64_t head[3];
        if (len < sizeof tag + sizeof head ||
            (memcpy(&tag, b, sizeof tag), memcpy(head, b + sizeof tag, sizeof head), tag) !=
                STATE_TAG ||
            head[0] < 0 || head[2] < 0 || len != sizeof tag + sizeof head + (size_t)head[2] * 16)
            return weir_ctx_fail(ctx, WEIR_EFORMAT,
                                 "file sink: restore: the checkpoint's state is not a file "
                                 "sink's");
        if (head[1] > s->next_n)
            s->next_n = head[1];
        file_sink listed = {0};
        for (int64_t i = 0; i < head[2]; i++) {
            int64_t p[2];
            memcpy(p, b + sizeof tag + sizeof head + (size_t)i * 16, sizeof p);
            if (add_pending(ctx, &listed, (int)p[0], p[1], 0) < 0) {
                free(listed.pending);
                return weir_ctx_error(ctx);
            }
        }
        /* The restored checkpoint is complete: its pending parts are
         * committed now; what their writer wrote after it is discarded. */
        int r = commit_upto(ctx, &listed, INT64_MAX);
        if (r == 0)
            r = discard_stale(ctx, (int)head[0], true);
        free(listed.pending);
        if (r < 0)
            return r;
    }
    return got;
}

static int sink_notify(weir_ctx *ctx, int64_t checkpoint_id)
{
    return commit_upto(ctx, weir_ctx_state(ctx), checkpoint_id);
}

static void sink_close(weir_ctx *ctx)
{
    file_sink *s = weir_ctx_state(ctx);
    if (!s)
        return;
    if (s->out)
        fclose(s->out); /* left in progress: the next run deletes it */
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
    file_sink_arg *a = weir__builder_alloc(job, sizeof *a, call);
    if (!a)
        return NULL;
    a->dir = strdup(cfg->dir);
    a->prefix = strdup(cfg->prefix ? cfg->prefix : "part");
    a->format = cfg->format;
    a->format_arg = cfg->format_arg;
    a->schema = cfg->schema;
    a->csv = cfg->csv;
    a->roll_bytes = cfg->roll_bytes > 0 ? cfg->roll_bytes : DEFAULT_ROLL_BYTES;
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
