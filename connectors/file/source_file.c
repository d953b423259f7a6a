/* source_file.c — weir_source_file (weir/file_source.h): rows of a schema
 * read from JSON-lines or CSV files, one subtask per file.
 *
 * JSON lines are parsed with jansson, CSV with libcsv (RFC 4180: quoted
 * fields with delimiters, quotes and line breaks), both Debian libraries
 * rather than parsers of weir's own. A subtask reads its file through its
 * own descriptor in chunks of FILE_CHUNK bytes and cuts them into lines: a
 * line that ends inside the chunk is parsed where it lies, one that spans
 * chunks is gathered in a line buffer that grows to at most FILE_LINE_MAX
 * bytes. The limit is checked while the line is read, never after: a longer
 * line (or CSV row: a quoted field over many lines) fails the job at
 * FILE:LINE with at most a chunk and a line in memory, whatever comes
 * (/dev/zero included), and a failed allocation fails the job too — it is
 * never taken for the end of the file. It emits up to a batch hint of rows
 * a call; jansson allocates the objects of a line, which is the cost of a
 * file source reading text.
 *
 * A partitioned table's files hold the columns that are not partition
 * columns; the partition columns' values come from the file's path (its
 * folders named COLUMN=VALUE, as Flink's PartitionPathUtils reads them),
 * parsed once when the subtask opens its file into a row of their own,
 * and copied into every row read.
 *
 * What is not a regular file (a FIFO, a pipe, a terminal) is opened
 * O_NONBLOCK, so that opening a FIFO with no writer does not block, and the
 * subtask waits for input with weir_source_wait_fd, which the job's
 * cancellation ends: SIGINT stops `weir sql` reading a quiet FIFO. Written
 * against the public headers only. */
#include <csv.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "row_read.h"
#include "weir/error.h"
#include "weir/file_source.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/stream.h"

/* The longest line, without its line break; also the longest CSV row,
 * which quoted line breaks may spread over several lines. */
#define FILE_LINE_MAX (1u << 20)
#define FILE_MAX_FILES 1024
/* The most partition columns a table has (weir/file_source.h). */
#define FILE_MAX_PARTITION_KEYS 64
/* What one read() asks for: the read-ahead each subtask keeps (a folder
 * of 1024 files holds 1024 of them). */
#define FILE_CHUNK (16u << 10)
/* The line buffer's first size; it doubles up to FILE_LINE_MAX. */
#define FILE_LINE_FIRST 4096u
/* How long one next() waits for a FIFO or pipe with nothing to read before
 * it gives the worker back (weir_source_wait_fd). */
#define FILE_WAIT_MS 100
/* What a UTF-8 file may begin with, and is not part of its first line. */
static const char utf8_bom[3] = {(char)0xEF, (char)0xBB, (char)0xBF};

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
    /* A partitioned table's: its partition columns, which columns are
     * (is_part[c]), the columns its files hold, in their order, and the
     * folder value that means NULL. npart 0: none. */
    int *part_cols;
    int npart;
    bool *is_part;
    int *data_cols;
    int ndata;
    char *default_name;
} file_arg;

typedef struct file_state {
    int fd;           /* -1: not open */
    bool regular;     /* a regular file: seekable, never waits */
    bool writer_seen; /* not regular: a read or a wait showed input, so a
                       * read of 0 bytes is the end (a FIFO reads 0 before
                       * its first writer came, too) */
    bool eof;         /* read() said the end */
    const char *path;
    int64_t line;     /* the line last read (1-based) */
    int64_t row_line; /* where the row being parsed starts */
    /* The read-ahead: chunk[pos..len) are read and not yet cut into lines. */
    char *chunk;
    size_t pos, len;
    /* A line spanning chunks, gathered: line_len bytes (line_ready: the
     * whole line, handed out; emptied at the next read). */
    char *lbuf;
    size_t line_len, line_cap;
    bool line_ready;
    int64_t off;      /* the file offset of chunk[pos] */
    unsigned char *row;
    unsigned char *part_row; /* the partition columns' values, from the path */
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
    free(a->part_cols);
    free(a->is_part);
    free(a->data_cols);
    free(a->default_name);
    free(a);
}

/* ---- JSON ---------------------------------------------------------------------------- */

/* One JSON line into s->row (row_read.c): 0, 1 (a blank line),
 * WEIR_EFORMAT with why, or WEIR_ENOMEM. */
static int json_row(const file_arg *a, file_state *s, const char *line, size_t len)
{
    int r = weir__row_parse_json_skip(a->schema, line, len, a->kind_field, a->is_part, s->row,
                                      s->why, sizeof s->why);
    if (r == 0)
        s->kind = weir_row_get_kind(s->row);
    return r;
}

/* ---- CSV ------------------------------------------------------------------------------ */

typedef struct csv_call {
    const file_arg *a;
    file_state *s;
} csv_call;

static void csv_field(void *text, size_t len, void *arg)
{
    csv_call *c = arg;
    file_state *s = c->s;
    if (s->row_bad)
        return;
    int ncols = c->a->ndata;
    int at = s->field++ - (c->a->kind_field ? 1 : 0);
    if (at == -1) {
        if (!text || weir__row_kind_parse(text, len, &s->kind)) {
            snprintf(s->why, sizeof s->why, "the first field is not a row kind (+I, -U, +U, -D)");
            s->row_bad = true;
        }
        weir_row_set_kind(s->row, s->kind);
        return;
    }
    if (at >= ncols) {
        snprintf(s->why, sizeof s->why, "more than the %d fields of the table%s", ncols +
                 (c->a->kind_field ? 1 : 0), c->a->npart ? "'s files (its partition columns are "
                                                           "in its folders' names)" : "");
        s->row_bad = true;
        return;
    }
    if (weir__row_set_text(&(weir__row_out){.row = s->row, .why = s->why, .whysize = sizeof s->why},
                           c->a->schema, c->a->data_cols[at], text, len))
        s->row_bad = true;
}

static void csv_row_end(int term, void *arg)
{
    (void)term;
    csv_call *c = arg;
    file_state *s = c->s;
    int want = c->a->ndata + (c->a->kind_field ? 1 : 0);
    if (!s->row_bad && s->field != want) {
        snprintf(s->why, sizeof s->why, "%d fields, the table%s %d", s->field,
                 c->a->npart ? "'s files have" : " has", want);
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
    if (weir__csv_init(&s->csv, a->delim))
        return WEIR_ENOMEM;
    s->csv_ready = true;
    return 0;
}

/* libcsv grows a field's buffer by a fixed block (128 bytes): a field of
 * a megabyte cost thousands of reallocs, each copying the field so far.
 * The block is set to what the buffer holds, so it doubles instead, up to
 * what the longest row needs. */
static void csv_grow_doubling(struct csv_parser *p)
{
    size_t have = csv_get_buffer_size(p), room = FILE_LINE_MAX + 2;
    size_t blk = have < 128 ? 128 : have;
    if (have < room && have + blk > room)
        blk = room - have;
    csv_set_blk_size(p, blk);
}

/* Feeds one line (or the end, line NULL): 0 with s->rows_ready (the row
 * complete, maybe bad), or WEIR_EFORMAT for a CSV syntax error. */
static int csv_feed(const file_arg *a, file_state *s, const char *line, size_t len)
{
    csv_call c = {a, s};
    s->rows_ready = 0;
    if (!s->in_row)
        csv_start_row(a, s);
    csv_grow_doubling(&s->csv);
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

static void file_close(weir_ctx *ctx);

/* The buffers, the descriptor and the CSV parser of s->path. */
static int open_input(weir_ctx *ctx, const file_arg *a, file_state *s)
{
    if (!(s->row = malloc(weir_schema_row_size(a->schema))) || !(s->chunk = malloc(FILE_CHUNK)))
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", s->path);
    /* O_NONBLOCK: a FIFO with no writer yet opens at once (and is waited
     * for in next(), where cancelling ends the wait). */
    s->fd = open(s->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (s->fd < 0)
        return weir_ctx_fail(ctx, errno == ENOMEM ? WEIR_ENOMEM : WEIR_EIO,
                             "%s: cannot open: %s", s->path,
                             errno == ENOMEM ? "out of memory" : strerror(errno));
    struct stat st;
    if (fstat(s->fd, &st) != 0)
        return weir_ctx_fail(ctx, WEIR_EIO, "%s: cannot stat: %s", s->path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return weir_ctx_fail(ctx, WEIR_EIO, "%s: cannot read: a folder", s->path);
    s->regular = S_ISREG(st.st_mode);
    if (a->format == WEIR_FILE_CSV && csv_open_parser(a, s))
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", s->path);
    return 0;
}

/* ---- partition columns ------------------------------------------------------------- */

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Flink's PartitionPathUtils.unescapePathName: "%XX" (two hex digits) is
 * that byte; anything else stays. Into out (at least n + 1 bytes). */
static size_t unescape(const char *p, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int hi, lo;
        if (p[i] == '%' && i + 2 < n &&
            (hi = hexval(p[i + 1])) >= 0 && (lo = hexval(p[i + 2])) >= 0) {
            out[o++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            out[o++] = p[i];
        }
    }
    out[o] = '\0';
    return o;
}

/* The partition columns' values from the folders of s->path, into
 * s->part_row: a folder named K=V (Flink's "([^/]+)=([^/]+)": split at its
 * last '=' that has something after it) whose unescaped K is a partition
 * column gives it V, unescaped and read as the column's type (the default
 * name: NULL); the deepest such folder wins, and a column no folder names
 * is NULL, as in Flink. 0, or the job failed naming the file and folder. */
static int partition_values(weir_ctx *ctx, const file_arg *a, file_state *s)
{
    const char *vals[FILE_MAX_PARTITION_KEYS] = {0};
    size_t vlens[FILE_MAX_PARTITION_KEYS] = {0};
    const char *folders[FILE_MAX_PARTITION_KEYS] = {0};
    size_t flens[FILE_MAX_PARTITION_KEYS] = {0};
    const char *path = s->path, *end = strrchr(path, '/');
    weir_row_init(a->schema, s->part_row, WEIR_ROW_INSERT);
    for (const char *c = path; end && c < end;) {
        const char *slash = memchr(c, '/', (size_t)(end - c));
        size_t n = slash ? (size_t)(slash - c) : (size_t)(end - c);
        const char *eq = NULL;
        for (size_t i = n; i-- > 1;)
            if (c[i] == '=' && i + 1 < n) {
                eq = c + i;
                break;
            }
        if (eq && n < 512) {
            char key[512];
            unescape(c, (size_t)(eq - c), key);
            for (int k = 0; k < a->npart; k++)
                if (strcmp(key, weir_schema_column_name(a->schema, a->part_cols[k])) == 0) {
                    vals[k] = eq + 1;
                    vlens[k] = (size_t)(c + n - eq - 1);
                    folders[k] = c;
                    flens[k] = n;
                }
        }
        c += n + 1;
    }
    for (int k = 0; k < a->npart; k++) {
        int col = a->part_cols[k];
        weir_type ty = weir_schema_column_type(a->schema, col);
        char v[520];
        size_t vl = vals[k] ? unescape(vals[k], vlens[k], v) : 0;
        bool null = !vals[k] || strcmp(v, a->default_name) == 0;
        /* Java's LocalDateTime.toString leaves out seconds that are zero
         * (2024-01-01T10:00), which Flink's path holds and reads back */
        if (!null && (ty.id == WEIR_TYPE_TIMESTAMP || ty.id == WEIR_TYPE_TIMESTAMP_LTZ) &&
            vl == 16 && v[10] == 'T' && v[13] == ':') {
            memcpy(v + 16, ":00", 4);
            vl = 19;
        }
        char why[300];
        weir__row_out o = {.row = s->part_row, .why = why, .whysize = sizeof why};
        if (weir__row_set_text(&o, a->schema, col, null ? NULL : v, vl)) {
            if (folders[k])
                return weir_ctx_fail(ctx, WEIR_EFORMAT, "%s: the folder '%.*s': %s", s->path,
                                     (int)flens[k], folders[k], why);
            return weir_ctx_fail(ctx, WEIR_EFORMAT, "%s: no folder %s=... names the partition "
                                 "column: %s", s->path,
                                 weir_schema_column_name(a->schema, col), why);
        }
    }
    return 0;
}

/* The partition columns' values into the row just read. */
static void put_partition_values(const file_arg *a, file_state *s)
{
    for (int k = 0; k < a->npart; k++) {
        int c = a->part_cols[k];
        if (weir_row_is_null(a->schema, s->part_row, c)) {
            weir_row_set_null(a->schema, s->row, c);
            continue;
        }
        uint32_t len = 0;
        const char *str;
        switch (weir_schema_column_type(a->schema, c).id) {
        case WEIR_TYPE_BOOLEAN:
            weir_row_set_bool(a->schema, s->row, c, weir_row_get_bool(a->schema, s->part_row, c));
            break;
        case WEIR_TYPE_DOUBLE:
            weir_row_set_double(a->schema, s->row, c,
                                weir_row_get_double(a->schema, s->part_row, c));
            break;
        case WEIR_TYPE_VARCHAR:
        case WEIR_TYPE_CHAR:
            str = weir_row_get_string(a->schema, s->part_row, c, &len);
            weir_row_set_string(a->schema, s->row, c, str, len);
            break;
        default:
            weir_row_set_int(a->schema, s->row, c, weir_row_get_int(a->schema, s->part_row, c));
            break;
        }
    }
}

/* What open() makes; on a failure it frees it (close() is not called after
 * a failed open()). */
static int file_open(weir_ctx *ctx)
{
    const file_arg *a = weir_ctx_arg(ctx);
    file_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->fd = -1;
    weir_ctx_set_state(ctx, s);
    int i = weir_ctx_subtask(ctx);
    if (i >= a->nfiles) {
        s->done = true; /* more subtasks than files: this one ends at once */
        return 0;
    }
    s->path = a->files[i];
    int r = open_input(ctx, a, s);
    if (r == 0 && a->npart) {
        if (!(s->part_row = malloc(weir_schema_row_size(a->schema))))
            r = weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", s->path);
        else
            r = partition_values(ctx, a, s);
    }
    if (r) {
        file_close(ctx);
        weir_ctx_set_state(ctx, NULL);
    }
    return r;
}

/* Flow results of read_line and read_row, apart from the errors (< 0). */
enum { READ_END = 0, READ_LINE = 1, READ_ROW = 1, READ_BLOCKED = 2 };

/* Fills the read-ahead: 1 (bytes came), READ_END, READ_BLOCKED (a FIFO or
 * pipe with nothing to read now), or an error (the job failed). */
static int fill(weir_ctx *ctx, file_state *s)
{
    for (;;) {
        ssize_t n = read(s->fd, s->chunk, FILE_CHUNK);
        if (n > 0) {
            s->pos = 0;
            s->len = (size_t)n;
            s->writer_seen = true;
            return 1;
        }
        if (n == 0) {
            if (!s->regular && !s->writer_seen)
                return READ_BLOCKED; /* a FIFO whose writer has not come yet */
            s->eof = true;
            return READ_END;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return READ_BLOCKED;
        return weir_ctx_fail(ctx, errno == ENOMEM ? WEIR_ENOMEM : WEIR_EIO,
                             "%s:%" PRId64 ": cannot read: %s", s->path, s->line + 1,
                             errno == ENOMEM ? "out of memory" : strerror(errno));
    }
}

/* Appends n bytes to the line being gathered; the caller checked the limit. */
static int gather(weir_ctx *ctx, file_state *s, const char *p, size_t n)
{
    if (s->line_len + n > s->line_cap) {
        size_t cap = s->line_cap ? s->line_cap : FILE_LINE_FIRST;
        while (cap < s->line_len + n)
            cap *= 2;
        if (cap > FILE_LINE_MAX + 1)
            cap = FILE_LINE_MAX + 1; /* the bytes and a line break */
        char *b = realloc(s->lbuf, cap);
        if (!b)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s:%" PRId64 ": out of memory (a line of "
                                 "over %zu bytes)", s->path, s->line + 1, s->line_len);
        s->lbuf = b;
        s->line_cap = cap;
    }
    memcpy(s->lbuf + s->line_len, p, n);
    s->line_len += n;
    return 0;
}

/* The next line, its line break included (the last line may have none):
 * READ_LINE with *line and *n (valid until the next call), READ_END,
 * READ_BLOCKED, or an error (the job failed). A line longer than
 * FILE_LINE_MAX fails as soon as its first FILE_LINE_MAX + 1 bytes are
 * read. */
static int read_line(weir_ctx *ctx, file_state *s, const char **line, size_t *n)
{
    if (s->line_ready) {
        s->line_ready = false;
        s->line_len = 0;
    }
    for (;;) {
        if (s->pos == s->len) {
            int r = s->eof ? READ_END : fill(ctx, s);
            if (r == READ_END && s->line_len > 0)
                break; /* the last line, with no line break */
            if (r != 1)
                return r;
        }
        const char *p = s->chunk + s->pos;
        size_t avail = s->len - s->pos;
        const char *nl = memchr(p, '\n', avail);
        size_t take = nl ? (size_t)(nl - p) + 1 : avail;
        if (s->line_len + take - (nl ? 1 : 0) > FILE_LINE_MAX)
            return weir_ctx_fail(ctx, WEIR_EFORMAT, "%s:%" PRId64 ": a line longer than %u bytes "
                                 "(the longest a file source reads)", s->path, s->line + 1,
                                 FILE_LINE_MAX);
        s->pos += take;
        s->off += (int64_t)take;
        if (nl && s->line_len == 0) { /* the whole line is in the chunk */
            s->line++;
            *line = p;
            *n = take;
            return READ_LINE;
        }
        int r = gather(ctx, s, p, take);
        if (r < 0)
            return r;
        if (nl)
            break;
    }
    s->line++;
    s->line_ready = true;
    *line = s->lbuf;
    *n = s->line_len;
    return READ_LINE;
}

/* Reads the next row into s->row: READ_ROW, READ_END, READ_BLOCKED (the
 * input has nothing now: what was read of a row so far is kept), or an
 * error (the job failed). A malformed row fails the job, or with
 * ignore_parse_errors is counted and skipped. */
static int read_row(weir_ctx *ctx, const file_arg *a, file_state *s)
{
    for (;;) {
        const char *line = NULL;
        size_t n = 0;
        int got = read_line(ctx, s, &line, &n);
        if (got < 0 || got == READ_BLOCKED)
            return got;
        bool end = got == READ_END;
        if (!end && !s->in_row) { /* this line begins the next row (or is blank) */
            s->row_off = s->off - (int64_t)n;
            s->row_off_line = s->line - 1;
            if (s->row_off == 0 && n >= sizeof utf8_bom &&
                memcmp(line, utf8_bom, sizeof utf8_bom) == 0) {
                line += sizeof utf8_bom; /* a UTF-8 byte order mark: not the first value */
                n -= sizeof utf8_bom;
            }
        }
        int r;
        if (a->format == WEIR_FILE_JSON) {
            if (end)
                return READ_END;
            s->row_line = s->line;
            r = json_row(a, s, line, n);
            if (r == 1)
                continue;
        } else {
            if (end && !s->csv_ready)
                return READ_END;
            /* A row (a quoted field going on over lines) is bounded as a
             * line is, before libcsv gathers more of it. */
            if (!end && s->in_row && s->off - s->row_off > (int64_t)FILE_LINE_MAX + 1)
                return weir_ctx_fail(ctx, WEIR_EFORMAT, "%s:%" PRId64 ": a CSV row longer than %u "
                                     "bytes (lines %" PRId64 " to %" PRId64 "; a quote that is "
                                     "not closed?)", s->path, s->row_line, FILE_LINE_MAX,
                                     s->row_line, s->line);
            r = csv_feed(a, s, end ? NULL : line, n);
            if (r == WEIR_ENOMEM)
                return weir_ctx_fail(ctx, r, "%s:%" PRId64 ": out of memory", s->path, s->line);
            if (r == 0 && s->rows_ready == 0) {
                if (end) {
                    csv_free(&s->csv);
                    s->csv_ready = false;
                    return READ_END;
                }
                if (s->field == 0)
                    s->in_row = false; /* a blank line (or a first field going on) */
                continue;              /* a quoted field goes on */
            }
            if (r == 0)
                r = s->row_bad ? WEIR_EFORMAT : 0;
            s->in_row = false;
            if (r && s->csv_ready == false && !end && csv_open_parser(a, s))
                return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", s->path);
        }
        if (r == 0) {
            if (a->npart)
                put_partition_values(a, s);
            return READ_ROW;
        }
        if (r == WEIR_ENOMEM)
            return weir_ctx_fail(ctx, r, "%s:%" PRId64 ": out of memory", s->path, s->row_line);
        if (!a->ignore)
            return weir_ctx_fail(ctx, WEIR_EFORMAT, "%s:%" PRId64 ": %s", s->path, s->row_line,
                                 s->why);
        weir_ctx_count(ctx, WEIR_COUNTER_FILTERED, 1);
        if (end)
            return READ_END;
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
    const int hint = weir_ctx_batch_hint(ctx);
    bool waited = false;
    for (int k = hint; !s->done && k > 0; k--) {
        if (!s->pending) {
            int r = read_row(ctx, a, s);
            if (r < 0)
                return r;
            if (r == READ_BLOCKED) {
                /* Nothing to read now (a FIFO, a pipe): rows of this call
                 * go on first; else wait a little, once, for input or for
                 * the job's end, and give the worker back. */
                if (k < hint || waited)
                    return WEIR_SOURCE_MORE;
                waited = true;
                int w = weir_source_wait_fd(ctx, s->fd, POLLIN, FILE_WAIT_MS);
                if (w < 0)
                    return weir_ctx_fail(ctx, w, "%s: cannot wait for input: %s", s->path,
                                         weir_strerror(w));
                if (w == 0)
                    return WEIR_SOURCE_MORE;
                s->writer_seen = true;
                k++; /* this turn read nothing */
                continue;
            }
            if (r == READ_END) {
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
    if (s->fd >= 0)
        close(s->fd);
    free(s->chunk);
    free(s->lbuf);
    free(s->row);
    free(s->part_row);
    free(s);
}

/* The position (between two next() calls): the byte offset and line count
 * where the first row not emitted yet begins — the pending row's, the row
 * a quiet pipe left half read, or the next line — and the pace's start. A
 * restore seeks there with a fresh parser. */
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
    if (s->pending || s->in_row) {
        p.offset = s->row_off;
        p.line = s->row_off_line;
    } else if (s->fd >= 0) {
        /* after the last line read; a line gathered in part is read again */
        p.offset = s->off - (s->line_ready ? 0 : (int64_t)s->line_len);
        p.line = s->line;
    }
    return weir_snapshot_write_record(w, FILE_POSITION_TAG, &p, sizeof p);
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
    if (s->done || s->fd < 0)
        return 0;
    /* The file must still hold what the checkpoint read: one that shrank
     * was replaced or cut, and reading on from its end would lose rows
     * without a word. */
    struct stat st;
    if (s->regular && fstat(s->fd, &st) == 0 && st.st_size < p.offset)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "%s: restore: the file is %" PRId64 " bytes, "
                             "shorter than the checkpoint's position (byte %" PRId64 ", line %"
                             PRId64 "): it was changed since the checkpoint", s->path,
                             (int64_t)st.st_size, p.offset, p.line);
    if (p.offset != 0 && (!s->regular || lseek(s->fd, (off_t)p.offset, SEEK_SET) < 0))
        return weir_ctx_fail(ctx, WEIR_EIO, "%s: restore: cannot seek to byte %" PRId64 ": %s",
                             s->path, p.offset, s->regular ? strerror(errno)
                                                           : "not a regular file");
    s->off = p.offset;
    s->line = p.line;
    s->pos = s->len = 0;
    s->line_len = 0;
    s->line_ready = false;
    s->eof = false;
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
    return weir_restore_records(ctx, r, FILE_POSITION_TAG, sizeof(file_position), file_seek,
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

/* Paths in tree order: '/' sorts before every other byte, so a folder's
 * files stay together and come before a sibling whose name extends the
 * folder's ("dt=1/x" before "dt=1.json"). */
static int by_path(const void *x, const void *y)
{
    const unsigned char *p = *(const unsigned char *const *)x;
    const unsigned char *q = *(const unsigned char *const *)y;
    while (*p && *p == *q)
        p++, q++;
    int a = *p == '/' ? 1 : *p == 0 ? 0 : *p + 1, b = *q == '/' ? 1 : *q == 0 ? 0 : *q + 1;
    return a - b;
}

/* The folders being listed, from the top one down: a folder reached again
 * through a symbolic link is a loop. */
typedef struct folder_chain {
    dev_t dev;
    ino_t ino;
    const struct folder_chain *up;
    int depth;
} folder_chain;

#define FILE_MAX_DEPTH 64

/* Adds the regular files under the folder `dir` (st: its stat) to a, its
 * folders' too, as Flink's filesystem source enumerates a path
 * (NonSplittingRecursiveEnumerator): a file or folder whose name starts
 * with '.' or '_' is hidden (_SUCCESS, .staging/) and skipped with what is
 * under it; so is what is neither a file nor a folder. */
static int list_folder(weir_job *job, const char *dir, const struct stat *st, file_arg *a,
                       const folder_chain *up)
{
    static const char *what = "weir_source_file";
    folder_chain here = {st->st_dev, st->st_ino, up, up ? up->depth + 1 : 0};
    for (const folder_chain *c = up; c; c = c->up)
        if (c->dev == here.dev && c->ino == here.ino)
            return weir_job_record_error(job, WEIR_EINVAL, "%s: %s: a folder inside itself (a "
                                         "symbolic link loop)", what, dir);
    if (here.depth > FILE_MAX_DEPTH)
        return weir_job_record_error(job, WEIR_EINVAL, "%s: %s: folders nested more than %d "
                                     "deep", what, dir, FILE_MAX_DEPTH);
    DIR *d = opendir(dir);
    if (!d)
        return weir_job_record_error(job, WEIR_EIO, "%s: %s: %s", what, dir, strerror(errno));
    int err = 0;
    struct dirent *e;
    while (!err && (e = readdir(d))) {
        if (e->d_name[0] == '.' || e->d_name[0] == '_')
            continue;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *f = malloc(n);
        if (!f) {
            err = weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", what);
            break;
        }
        snprintf(f, n, "%s/%s", dir, e->d_name);
        struct stat fst;
        if (stat(f, &fst) != 0 || !(S_ISREG(fst.st_mode) || S_ISDIR(fst.st_mode))) {
            free(f);
            continue;
        }
        if (S_ISDIR(fst.st_mode)) {
            err = list_folder(job, f, &fst, a, &here);
            free(f);
            continue;
        }
        char **v = a->nfiles < FILE_MAX_FILES
                       ? realloc(a->files, (size_t)(a->nfiles + 1) * sizeof *v)
                       : NULL;
        if (!v) {
            free(f);
            err = a->nfiles < FILE_MAX_FILES
                      ? weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", what)
                      : weir_job_record_error(job, WEIR_EINVAL, "%s: %s: more than %d files",
                                              what, dir, FILE_MAX_FILES);
            break;
        }
        a->files = v;
        a->files[a->nfiles++] = f;
    }
    closedir(d);
    return err;
}

/* The files of `path` into a: the file itself, or the files under a
 * folder (list_folder), sorted by path, one subtask each. */
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
    int err = list_folder(job, path, &st, a, NULL);
    if (err)
        return err;
    if (a->nfiles == 0)
        return weir_job_record_error(job, WEIR_ENOENT, "%s: %s: a folder with no file, in "
                                     "it or in its folders", what, path);
    qsort(a->files, (size_t)a->nfiles, sizeof *a->files, by_path);
    return 0;
}

/* The partition columns and the columns in the files, into a: 0, or the
 * job's error recorded. */
static int partition_columns(weir_job *job, const weir_schema *schema,
                             const weir_file_source_config *config, file_arg *a)
{
    static const char *what = "weir_source_file";
    int ncols = weir_schema_ncolumns(schema), np = config->npartition_columns;
    if (np < 0 || np > FILE_MAX_PARTITION_KEYS || (np && !config->partition_columns))
        return weir_job_record_error(job, WEIR_EINVAL, "%s: %d partition columns (0 to %d, "
                                     "with their indexes)", what, np, FILE_MAX_PARTITION_KEYS);
    if (config->partition_default_name && !config->partition_default_name[0])
        return weir_job_record_error(job, WEIR_EINVAL, "%s: an empty partition default name",
                                     what);
    a->is_part = calloc((size_t)ncols, sizeof *a->is_part);
    a->data_cols = calloc((size_t)ncols, sizeof *a->data_cols);
    a->part_cols = calloc((size_t)(np ? np : 1), sizeof *a->part_cols);
    a->default_name = strdup(config->partition_default_name ? config->partition_default_name
                                                            : "__DEFAULT_PARTITION__");
    if (!a->is_part || !a->data_cols || !a->part_cols || !a->default_name)
        return weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", what);
    for (int k = 0; k < np; k++) {
        int c = config->partition_columns[k];
        if (c < 0 || c >= ncols || a->is_part[c])
            return weir_job_record_error(job, WEIR_EINVAL, "%s: partition column %d: %s", what,
                                         c, c < 0 || c >= ncols ? "not a column of the schema"
                                                                : "given twice");
        a->is_part[c] = true;
        a->part_cols[k] = c;
    }
    a->npart = np;
    for (int c = 0; c < ncols; c++)
        if (!a->is_part[c])
            a->data_cols[a->ndata++] = c;
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
    file_arg *a = calloc(1, sizeof *a);
    if (!a) {
        weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", what);
        return NULL;
    }
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
    if (partition_columns(job, schema, config, a)) {
        arg_free(a);
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
