/* source_file.c — weir_source_file (weir/file_source.h): rows of a schema
 * read from JSON-lines or CSV files, one subtask per file.
 *
 * JSON lines are parsed with jansson, CSV with libcsv (RFC 4180: quoted
 * fields with delimiters, quotes and line breaks), both Debian libraries
 * rather than parsers of weir's own. A subtask reads its file a line at a
 * time (getline: its buffer grows to the longest line and is reused) and
 * emits up to a batch hint of rows a call; jansson allocates the objects of
 * a line, which is the cost of a file source reading text. Written against
 * the public headers only. */
#include <csv.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "weir/error.h"
#include "weir/file_source.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/stream.h"
#include "builder.h"

/* The longest line (a CSV row with quoted line breaks may span several). */
#define FILE_LINE_MAX (1u << 20)
#define FILE_MAX_FILES 1024

typedef struct file_arg {
    const weir_schema *schema;
    char **files;
    int nfiles;
    weir_file_format format;
    bool ignore;
    char delim;
    char *kind_field; /* NULL: +I */
    double speed;
    int rowtime; /* the schema's rowtime column, or -1 */
} file_arg;

typedef struct file_state {
    FILE *in;
    const char *path;
    int64_t line;     /* the line last read (1-based) */
    int64_t row_line; /* where the row being parsed starts */
    char *buf;
    size_t cap;
    unsigned char *row;
    bool pending;     /* a parsed row waits for its time (speed) */
    bool done;
    /* pacing */
    bool paced_start;
    int64_t t0, p0;
    /* CSV */
    struct csv_parser csv;
    bool csv_ready;
    int field;        /* the next field's index in the row being parsed */
    bool row_bad;
    char why[256];
    int rows_ready;   /* complete rows the last feed made (0 or 1: one a line) */
    bool in_row;      /* a row has begun (its fields may span lines) */
    /* Where the row being read began: the byte offset of its first line and
     * the lines before it (a checkpoint's position when it waits). */
    int64_t row_off, row_off_line;
    weir_row_kind kind;
} file_state;

static void arg_free(void *p)
{
    file_arg *a = p;
    for (int i = 0; i < a->nfiles; i++)
        free(a->files[i]);
    free(a->files);
    free(a->kind_field);
    free(a);
}

/* ---- values ---------------------------------------------------------------------- */

static int set_bad(file_state *s, const char *fmt, ...) WEIR_PRINTF(2, 3);
static int set_bad(file_state *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof s->why, fmt, ap);
    va_end(ap);
    return WEIR_EFORMAT;
}

static int parse_kind(const char *t, size_t n, weir_row_kind *k)
{
    static const struct { const char *a, *b; weir_row_kind k; } kinds[] = {
        {"+I", "INSERT", WEIR_ROW_INSERT},
        {"-U", "UPDATE_BEFORE", WEIR_ROW_UPDATE_BEFORE},
        {"+U", "UPDATE_AFTER", WEIR_ROW_UPDATE_AFTER},
        {"-D", "DELETE", WEIR_ROW_DELETE},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if ((strlen(kinds[i].a) == n && memcmp(t, kinds[i].a, n) == 0) ||
            (strlen(kinds[i].b) == n && strncasecmp(t, kinds[i].b, n) == 0)) {
            *k = kinds[i].k;
            return 0;
        }
    return WEIR_EFORMAT;
}

/* A column from text (CSV, or a JSON string); NULL text is NULL. */
static int set_text(file_state *s, const weir_schema *sc, int col, const char *t, size_t n)
{
    const char *name = weir_schema_column_name(sc, col);
    weir_type ty = weir_schema_column_type(sc, col);
    if (!t) {
        if (ty.not_null)
            return set_bad(s, "NULL in the NOT NULL column '%s'", name);
        return weir_row_set_null(sc, s->row, col);
    }
    int r = weir_row_set_text(sc, s->row, col, t, n);
    if (r == WEIR_ERANGE)
        return ty.id == WEIR_TYPE_VARCHAR || ty.id == WEIR_TYPE_CHAR
                   ? set_bad(s, "a string longer than the column '%s' holds", name)
                   : set_bad(s, "a number out of the range of the column '%s'", name);
    if (r) {
        char type[64];
        weir_type_format(ty, type, sizeof type);
        return set_bad(s, "'%.*s' is not a %s (column '%s')", n > 40 ? 40 : (int)n, t, type,
                       name);
    }
    return 0;
}

/* ---- JSON ---------------------------------------------------------------------------- */

static int json_value(file_state *s, const weir_schema *sc, int col, json_t *v)
{
    const char *name = weir_schema_column_name(sc, col);
    weir_type ty = weir_schema_column_type(sc, col);
    if (!v || json_is_null(v))
        return set_text(s, sc, col, NULL, 0);
    int r = -1;
    switch (ty.id) {
    case WEIR_TYPE_BOOLEAN:
        if (json_is_boolean(v))
            r = weir_row_set_bool(sc, s->row, col, json_is_true(v));
        break;
    case WEIR_TYPE_INT:
    case WEIR_TYPE_BIGINT:
        if (json_is_integer(v)) {
            r = weir_row_set_int(sc, s->row, col, json_integer_value(v));
            if (r == WEIR_ERANGE)
                return set_bad(s, "a number out of the range of the column '%s'", name);
        }
        break;
    case WEIR_TYPE_DOUBLE:
        if (json_is_number(v))
            r = weir_row_set_double(sc, s->row, col, json_number_value(v));
        break;
    default:
        if (json_is_string(v))
            return set_text(s, sc, col, json_string_value(v), json_string_length(v));
        break;
    }
    if (r == 0)
        return 0;
    char type[64];
    weir_type_format(ty, type, sizeof type);
    static const char *const json_types[] = {"an object", "an array", "a string", "an integer",
                                             "a number", "true", "false", "null"};
    snprintf(s->why, sizeof s->why, "field '%s' is %s, not a %s", name,
             json_types[json_typeof(v)], type);
    return WEIR_EFORMAT;
}

/* One JSON line into s->row: 0, 1 (a blank line), or WEIR_EFORMAT with why. */
static int json_row(const file_arg *a, file_state *s, const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n'))
        i++;
    if (i == len)
        return 1;
    json_error_t je;
    json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
    if (!o) {
        snprintf(s->why, sizeof s->why, "not JSON: %s (column %d)", je.text, je.column);
        return WEIR_EFORMAT;
    }
    int r = 0;
    if (!json_is_object(o)) {
        snprintf(s->why, sizeof s->why, "not a JSON object");
        r = WEIR_EFORMAT;
    }
    s->kind = WEIR_ROW_INSERT;
    if (r == 0 && a->kind_field) {
        json_t *k = json_object_get(o, a->kind_field);
        if (!json_is_string(k) ||
            parse_kind(json_string_value(k), json_string_length(k), &s->kind)) {
            snprintf(s->why, sizeof s->why, "field '%s' is not a row kind (+I, -U, +U, -D)",
                     a->kind_field);
            r = WEIR_EFORMAT;
        }
    }
    if (r == 0)
        weir_row_init(a->schema, s->row, s->kind);
    for (int c = 0; r == 0 && c < weir_schema_ncolumns(a->schema); c++)
        r = json_value(s, a->schema, c, json_object_get(o, weir_schema_column_name(a->schema, c)));
    json_decref(o);
    return r;
}

/* ---- CSV ------------------------------------------------------------------------------ */

typedef struct csv_call {
    const file_arg *a;
    file_state *s;
} csv_call;

static int no_space(unsigned char c)
{
    (void)c;
    return 0; /* RFC 4180: spaces are part of a field */
}

static void csv_field(void *text, size_t len, void *arg)
{
    csv_call *c = arg;
    file_state *s = c->s;
    if (s->row_bad)
        return;
    int ncols = weir_schema_ncolumns(c->a->schema);
    int at = s->field++ - (c->a->kind_field ? 1 : 0);
    if (at == -1) {
        if (!text || parse_kind(text, len, &s->kind)) {
            snprintf(s->why, sizeof s->why, "the first field is not a row kind (+I, -U, +U, -D)");
            s->row_bad = true;
        }
        weir_row_set_kind(s->row, s->kind);
        return;
    }
    if (at >= ncols) {
        snprintf(s->why, sizeof s->why, "more than the %d fields of the table", ncols +
                 (c->a->kind_field ? 1 : 0));
        s->row_bad = true;
        return;
    }
    if (set_text(s, c->a->schema, at, text, len))
        s->row_bad = true;
}

static void csv_row_end(int term, void *arg)
{
    (void)term;
    csv_call *c = arg;
    file_state *s = c->s;
    int want = weir_schema_ncolumns(c->a->schema) + (c->a->kind_field ? 1 : 0);
    if (!s->row_bad && s->field != want) {
        snprintf(s->why, sizeof s->why, "%d fields, the table has %d", s->field, want);
        s->row_bad = true;
    }
    s->rows_ready++;
}

static void csv_start_row(const file_arg *a, file_state *s)
{
    s->field = 0;
    s->row_bad = false;
    s->kind = WEIR_ROW_INSERT;
    s->row_line = s->line;
    s->in_row = true;
    weir_row_init(a->schema, s->row, WEIR_ROW_INSERT);
}

static int csv_open_parser(const file_arg *a, file_state *s)
{
    if (csv_init(&s->csv, CSV_STRICT | CSV_STRICT_FINI | CSV_EMPTY_IS_NULL))
        return WEIR_ENOMEM;
    csv_set_delim(&s->csv, (unsigned char)a->delim);
    csv_set_space_func(&s->csv, no_space);
    s->csv_ready = true;
    return 0;
}

/* Feeds one line (or the end, line NULL): 0 with s->rows_ready (the row
 * complete, maybe bad), or WEIR_EFORMAT for a CSV syntax error. */
static int csv_feed(const file_arg *a, file_state *s, const char *line, size_t len)
{
    csv_call c = {a, s};
    s->rows_ready = 0;
    if (!s->in_row)
        csv_start_row(a, s);
    bool ok = line ? csv_parse(&s->csv, line, len, csv_field, csv_row_end, &c) == len
                   : csv_fini(&s->csv, csv_field, csv_row_end, &c) == 0;
    if (!ok) {
        int e = csv_error(&s->csv);
        snprintf(s->why, sizeof s->why, "%s", e == CSV_ENOMEM ? "out of memory"
                 : line ? "malformed CSV (a quote inside an unquoted field, or text after a "
                          "closing quote)"
                        : "a quoted field is not closed at the end of the file");
        csv_free(&s->csv);
        s->csv_ready = false;
        return e == CSV_ENOMEM ? WEIR_ENOMEM : WEIR_EFORMAT;
    }
    return 0;
}

/* ---- the source --------------------------------------------------------------------- */

static int file_open(weir_ctx *ctx)
{
    const file_arg *a = weir_ctx_arg(ctx);
    file_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    int i = weir_ctx_subtask(ctx);
    if (i >= a->nfiles) {
        s->done = true; /* more subtasks than files: this one ends at once */
        return 0;
    }
    s->path = a->files[i];
    if (!(s->row = malloc(weir_schema_row_size(a->schema))))
        return WEIR_ENOMEM;
    if (!(s->in = fopen(s->path, "r")))
        return weir_ctx_fail(ctx, errno == ENOMEM ? WEIR_ENOMEM : WEIR_EIO, "%s: cannot open: %s",
                             s->path, errno == ENOMEM ? "out of memory" : strerror(errno));
    return a->format == WEIR_FILE_CSV ? csv_open_parser(a, s) : 0;
}

/* Reads the next row into s->row: 1 a row, 0 the end of the file, or an
 * error (the job failed, or a skipped row when ignoring: then 2). */
static int read_row(weir_ctx *ctx, const file_arg *a, file_state *s)
{
    for (;;) {
        if (!s->in_row) { /* this line begins the next row (or is blank) */
            s->row_off = (int64_t)ftello(s->in);
            s->row_off_line = s->line;
        }
        errno = 0;
        ssize_t n = getline(&s->buf, &s->cap, s->in);
        if (n < 0 && ferror(s->in))
            return weir_ctx_fail(ctx, errno == ENOMEM ? WEIR_ENOMEM : WEIR_EIO,
                                 "%s:%" PRId64 ": cannot read: %s", s->path, s->line + 1,
                                 errno == ENOMEM ? "out of memory" : strerror(errno));
        if (n >= 0) {
            s->line++;
            if ((size_t)n > FILE_LINE_MAX)
                return weir_ctx_fail(ctx, WEIR_EFORMAT, "%s:%" PRId64 ": a line longer than %u bytes",
                                     s->path, s->line, FILE_LINE_MAX);
        }
        int r;
        if (a->format == WEIR_FILE_JSON) {
            if (n < 0)
                return 0;
            s->row_line = s->line;
            r = json_row(a, s, s->buf, (size_t)n);
            if (r == 1)
                continue;
        } else {
            if (n < 0 && !s->csv_ready)
                return 0;
            r = csv_feed(a, s, n < 0 ? NULL : s->buf, n < 0 ? 0 : (size_t)n);
            if (r == WEIR_ENOMEM)
                return weir_ctx_fail(ctx, r, "%s:%" PRId64 ": out of memory", s->path, s->line);
            if (r == 0 && s->rows_ready == 0) {
                if (n < 0) {
                    csv_free(&s->csv);
                    s->csv_ready = false;
                    return 0;
                }
                if (s->field == 0)
                    s->in_row = false; /* a blank line (or a first field going on) */
                continue;              /* a quoted field goes on */
            }
            if (r == 0)
                r = s->row_bad ? WEIR_EFORMAT : 0;
            s->in_row = false;
            if (r && s->csv_ready == false && n >= 0 && csv_open_parser(a, s))
                return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", s->path);
        }
        if (r == 0)
            return 1;
        if (!a->ignore)
            return weir_ctx_fail(ctx, WEIR_EFORMAT, "%s:%" PRId64 ": %s", s->path, s->row_line,
                                 s->why);
        weir_ctx_count(ctx, WEIR_COUNTER_FILTERED, 1);
        if (n < 0)
            return 0;
    }
}

/* With a speed: whether the row must wait (then weir_source_wait_until). */
static bool must_wait(weir_ctx *ctx, const file_arg *a, file_state *s)
{
    if (a->speed <= 0 || a->rowtime < 0 || weir_row_is_null(a->schema, s->row, a->rowtime))
        return false;
    int64_t t = weir_row_get_int(a->schema, s->row, a->rowtime), now = weir_ctx_now(ctx);
    if (!s->paced_start) {
        s->paced_start = true;
        s->t0 = t;
        s->p0 = now;
        return false;
    }
    int64_t due = s->p0 + (int64_t)((double)(t - s->t0) / a->speed);
    if (due <= now)
        return false;
    weir_source_wait_until(ctx, due);
    return true;
}

static int file_next(weir_ctx *ctx)
{
    const file_arg *a = weir_ctx_arg(ctx);
    file_state *s = weir_ctx_state(ctx);
    for (int k = weir_ctx_batch_hint(ctx); !s->done && k > 0; k--) {
        if (!s->pending) {
            int r = read_row(ctx, a, s);
            if (r < 0)
                return r;
            if (r == 0) {
                s->done = true;
                break;
            }
            s->pending = true;
        }
        if (must_wait(ctx, a, s))
            return WEIR_SOURCE_WAIT;
        int64_t ts = a->rowtime >= 0 && !weir_row_is_null(a->schema, s->row, a->rowtime)
                         ? weir_row_get_int(a->schema, s->row, a->rowtime)
                         : WEIR_NO_TIMESTAMP;
        int r = weir_emit(ctx, s->row, ts);
        if (r < 0)
            return r;
        s->pending = false;
    }
    return s->done ? WEIR_SOURCE_END : WEIR_SOURCE_MORE;
}

static void file_close(weir_ctx *ctx)
{
    file_state *s = weir_ctx_state(ctx);
    if (!s)
        return;
    if (s->csv_ready)
        csv_free(&s->csv);
    if (s->in)
        fclose(s->in);
    free(s->buf);
    free(s->row);
    free(s);
}

/* The position (between two next() calls, every row read so far is whole):
 * the byte offset and line count where the first row not emitted yet
 * begins — the pending row's, or after the last line read — and the pace's
 * start. A restore seeks there with a fresh parser. */
typedef struct file_position {
    int64_t offset, line;
    int64_t t0, p0;
    uint8_t done, paced_start, pad[6];
} file_position;

#define FILE_POSITION_TAG 0x66696c31u /* "fil1" */

static int file_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    const file_state *s = weir_ctx_state(ctx);
    file_position p = {.done = s->done, .paced_start = s->paced_start, .t0 = s->t0, .p0 = s->p0};
    if (s->pending) {
        p.offset = s->row_off;
        p.line = s->row_off_line;
    } else if (s->in) {
        p.offset = (int64_t)ftello(s->in);
        p.line = s->line;
    }
    if (p.offset < 0)
        return weir_ctx_fail(ctx, WEIR_EIO, "%s: cannot tell the position: %s", s->path,
                             strerror(errno));
    return weir__snapshot_record(w, FILE_POSITION_TAG, &p, sizeof p);
}

static int file_seek(weir_ctx *ctx, const void *rec, void *arg)
{
    const file_arg *a = arg;
    file_state *s = weir_ctx_state(ctx);
    file_position p;
    memcpy(&p, rec, sizeof p);
    s->done = s->done || p.done;
    s->paced_start = p.paced_start;
    s->t0 = p.t0;
    s->p0 = p.p0;
    s->pending = false;
    if (s->done || !s->in)
        return 0;
    if (fseeko(s->in, (off_t)p.offset, SEEK_SET) != 0)
        return weir_ctx_fail(ctx, WEIR_EIO, "%s: restore: cannot seek to byte %" PRId64 ": %s",
                             s->path, p.offset, strerror(errno));
    s->line = p.line;
    s->in_row = false;
    if (a->format == WEIR_FILE_CSV) { /* a fresh parser at a row's start */
        if (s->csv_ready)
            csv_free(&s->csv);
        s->csv_ready = false;
        return csv_open_parser(a, s) ? weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", s->path)
                                     : 0;
    }
    return 0;
}

static int file_restore(weir_ctx *ctx, weir_snapshot_reader *r)
{
    return weir__restore_records(ctx, r, FILE_POSITION_TAG, sizeof(file_position), file_seek,
                                 (void *)weir_ctx_arg(ctx));
}

static const weir_source_vtable file_vtable = {
    .version = WEIR_SOURCE_VTABLE_V2,
    .open = file_open,
    .next = file_next,
    .close = file_close,
    .snapshot = file_snapshot,
    .restore = file_restore,
};

/* ---- the builder -------------------------------------------------------------------- */

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The files of `path` into a: the file itself, or a folder's regular files. */
static int list_files(weir_job *job, const char *path, file_arg *a)
{
    static const char *what = "weir_source_file";
    struct stat st;
    if (stat(path, &st) != 0)
        return weir_job_record_error(job, errno == ENOENT ? WEIR_ENOENT : WEIR_EIO,
                                     "%s: %s: %s", what, path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        if (!(a->files = calloc(1, sizeof *a->files)) || !(a->files[0] = strdup(path)))
            return weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", what);
        a->nfiles = 1;
        return 0;
    }
    DIR *d = opendir(path);
    if (!d)
        return weir_job_record_error(job, WEIR_EIO, "%s: %s: %s", what, path, strerror(errno));
    int err = 0;
    struct dirent *e;
    while (!err && (e = readdir(d))) {
        if (e->d_name[0] == '.' || e->d_name[0] == '_')
            continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *f = malloc(n);
        char **v = a->nfiles < FILE_MAX_FILES ? realloc(a->files, (size_t)(a->nfiles + 1) * sizeof *v)
                                              : NULL;
        if (v)
            a->files = v;
        if (!f || !v) {
            free(f);
            err = a->nfiles < FILE_MAX_FILES
                      ? weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", what)
                      : weir_job_record_error(job, WEIR_EINVAL, "%s: %s: more than %d files",
                                              what, path, FILE_MAX_FILES);
            break;
        }
        snprintf(f, n, "%s/%s", path, e->d_name);
        if (stat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(f);
            continue;
        }
        a->files[a->nfiles++] = f;
    }
    closedir(d);
    if (err)
        return err;
    if (a->nfiles == 0)
        return weir_job_record_error(job, WEIR_ENOENT, "%s: %s: a folder with no file", what, path);
    qsort(a->files, (size_t)a->nfiles, sizeof *a->files, by_name);
    return 0;
}

weir_stream *weir_source_file(weir_job *job, const weir_schema *schema,
                              const weir_file_source_config *config)
{
    static const char *what = "weir_source_file";
    if (!job)
        return NULL;
    if (!schema || !config || !config->path) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: schema, config and path are required", what);
        return NULL;
    }
    if (config->format != WEIR_FILE_JSON && config->format != WEIR_FILE_CSV) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: format must be WEIR_FILE_JSON or "
                              "WEIR_FILE_CSV", what);
        return NULL;
    }
    if (weir_schema_elem_size(schema) != weir_schema_row_size(schema)) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: the schema of %s is bound to a struct: "
                              "a file source makes rows", what, weir_schema_name(schema));
        return NULL;
    }
    if (config->speed < 0 || (config->speed > 0 && weir_schema_rowtime(schema) < 0)) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: speed %g: %s", what, config->speed,
                              config->speed < 0 ? "must not be negative"
                                                : "pacing needs a schema with a rowtime");
        return NULL;
    }
    char delim = config->csv_field_delimiter ? config->csv_field_delimiter : ',';
    if (delim == '"' || delim == '\n' || delim == '\r') {
        weir_job_record_error(job, WEIR_EINVAL, "%s: the delimiter cannot be a quote or a "
                              "line break", what);
        return NULL;
    }
    file_arg *a = weir__builder_alloc(job, sizeof *a, what);
    if (!a)
        return NULL;
    a->schema = schema;
    a->format = config->format;
    a->ignore = config->ignore_parse_errors;
    a->delim = delim;
    a->speed = config->speed;
    a->rowtime = weir_schema_rowtime(schema);
    if ((config->kind_field && !(a->kind_field = strdup(config->kind_field)))) {
        arg_free(a);
        weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", what);
        return NULL;
    }
    if (list_files(job, config->path, a)) {
        arg_free(a);
        return NULL;
    }
    weir_source_spec spec = {
        .name = config->name ? config->name : "file_source",
        .kind = "file_source",
        .vtable = &file_vtable,
        .arg = a,
        .arg_free = arg_free,
        .elem_size = weir_schema_row_size(schema),
        .parallelism = a->nfiles,
    };
    return weir_job_add_source(job, &spec);
}
