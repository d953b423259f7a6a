/* file_lookup.c — a filesystem table read whole, for a lookup join
 * (weir/table.h's weir_lookup_source; Flink's FileSystemLookupFunction,
 * which loads the table into its cache and reloads it after
 * 'lookup.join.cache.ttl'). sql_filesystem.c's lookup hands it to the SQL
 * layer.
 *
 * The path is a file, or a folder whose files (those not hidden: a name
 * starting with '.' or '_'; not in its sub-folders) are read in name
 * order. JSON lines and CSV are read as the file source reads them
 * (row_read.c's parsers, libcsv fed a line at a time, so a quoted field
 * may span lines), with the same bounds and messages: "FILE:LINE: what".
 * A load runs on a lookup join's subtask, in its open() and at a reload,
 * never per row; several subtasks load at once, each with its own
 * descriptors and buffers (the arg here is only read). */
#include <csv.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "file_lookup.h"
#include "row_read.h"
#include "weir/error.h"
#include "weir/table.h"

/* As the file source: the longest line, and the longest CSV row. */
#define LOOKUP_LINE_MAX (1u << 20)
#define LOOKUP_MAX_FILES 1024

typedef struct fs_lookup {
    char path[4096];
    bool csv;
    char delimiter;
    bool ignore;
    const weir_schema *schema;
} fs_lookup;

/* One file's reading. */
typedef struct reader {
    const fs_lookup *a;
    const char *file;
    int64_t line, row_line;
    unsigned char *row;
    weir_lookup_row_fn fn;
    void *fn_arg;
    int fn_err;    /* what fn returned, if it stopped the load */
    int field;     /* CSV: the next field's index */
    bool row_bad, in_row;
    char why[256];
    char *err;
    size_t errsize;
} reader;

static int fail(reader *r, int code, const char *what)
{
    snprintf(r->err, r->errsize, "%s:%" PRId64 ": %s", r->file, r->row_line, what);
    return code;
}

/* A parsed row: handed over, or, bad, refused or skipped. */
static int row_done(reader *r, bool bad)
{
    if (bad) {
        if (r->a->ignore)
            return 0;
        return fail(r, WEIR_EFORMAT, r->why);
    }
    int e = r->fn(r->row, r->fn_arg);
    if (e) {
        r->fn_err = e;
        return fail(r, e, e == WEIR_ENOMEM ? "out of memory" : weir_strerror(e));
    }
    return 0;
}

static void csv_field(void *text, size_t len, void *arg)
{
    reader *r = arg;
    if (r->row_bad)
        return;
    int ncols = weir_schema_ncolumns(r->a->schema);
    int at = r->field++;
    if (at >= ncols) {
        snprintf(r->why, sizeof r->why, "more than the %d fields of the table", ncols);
        r->row_bad = true;
        return;
    }
    if (weir__row_set_text(&(weir__row_out){.row = r->row, .why = r->why, .whysize = sizeof r->why},
                           r->a->schema, at, text, len))
        r->row_bad = true;
}

/* libcsv's end of a row: the row checked; its outcome waits in row_bad
 * until the line's feed returns (a callback cannot stop libcsv). */
typedef struct csv_rows {
    reader *r;
    int err;
} csv_rows;

static void csv_row_end(int term, void *arg)
{
    (void)term;
    csv_rows *c = arg;
    reader *r = c->r;
    int want = weir_schema_ncolumns(r->a->schema);
    if (!r->row_bad && r->field != want) {
        snprintf(r->why, sizeof r->why, "%d fields, the table has %d", r->field, want);
        r->row_bad = true;
    }
    if (!c->err)
        c->err = row_done(r, r->row_bad);
    r->field = 0;
    r->row_bad = false;
    r->in_row = false;
    weir_row_init(r->a->schema, r->row, WEIR_ROW_INSERT);
}

static void csv_field_cb(void *text, size_t len, void *arg)
{
    csv_rows *c = arg;
    csv_field(text, len, c->r);
}

static int read_file(reader *r, FILE *f)
{
    const fs_lookup *a = r->a;
    struct csv_parser p;
    bool csv_ready = false;
    if (a->csv) {
        if (weir__csv_init(&p, a->delimiter))
            return fail(r, WEIR_ENOMEM, "out of memory");
        csv_ready = true;
    }
    char *line = NULL;
    size_t cap = 0;
    int err = 0;
    int64_t row_bytes = 0;
    weir_row_init(a->schema, r->row, WEIR_ROW_INSERT);
    for (;;) {
        errno = 0;
        ssize_t n = getline(&line, &cap, f);
        if (n < 0) {
            if (errno == ENOMEM)
                err = fail(r, WEIR_ENOMEM, "out of memory");
            else if (ferror(f))
                err = fail(r, WEIR_EIO, strerror(errno ? errno : EIO));
            break;
        }
        r->line++;
        size_t len = (size_t)n;
        const char *text = line;
        if (r->line == 1 && len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
            text += 3; /* a UTF-8 byte order mark */
            len -= 3;
        }
        if (len - (len && text[len - 1] == '\n') > LOOKUP_LINE_MAX) {
            r->row_line = r->line;
            err = fail(r, WEIR_EFORMAT, "a line longer than 1048576 bytes (the longest a file "
                       "source reads)");
            break;
        }
        if (!a->csv) {
            r->row_line = r->line;
            size_t k = 0;
            while (k < len && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r' ||
                               text[k] == '\n'))
                k++;
            if (k == len)
                continue; /* a blank line */
            int e = weir__row_parse_json_skip(a->schema, text, len, NULL, NULL, r->row, r->why,
                                              sizeof r->why);
            if (e == WEIR_ENOMEM) {
                err = fail(r, e, "out of memory");
                break;
            }
            weir_row_set_kind(r->row, WEIR_ROW_INSERT);
            if ((err = row_done(r, e != 0)))
                break;
            continue;
        }
        if (!r->in_row) {
            r->in_row = true;
            r->row_line = r->line;
            row_bytes = 0;
        }
        row_bytes += (int64_t)len;
        if (row_bytes > (int64_t)LOOKUP_LINE_MAX + 1) {
            err = fail(r, WEIR_EFORMAT, "a CSV row longer than 1048576 bytes (a quote that is "
                       "not closed?)");
            break;
        }
        csv_rows c = {r, 0};
        if (csv_parse(&p, text, len, csv_field_cb, csv_row_end, &c) != len) {
            err = fail(r, csv_error(&p) == CSV_ENOMEM ? WEIR_ENOMEM : WEIR_EFORMAT,
                       csv_error(&p) == CSV_ENOMEM ? "out of memory"
                       : "malformed CSV (a quote inside an unquoted field, or text after a "
                         "closing quote)");
            break;
        }
        if ((err = c.err))
            break;
        if (r->field == 0)
            r->in_row = false; /* a blank line, or a row that ended */
    }
    if (!err && csv_ready) {
        csv_rows c = {r, 0};
        if (csv_fini(&p, csv_field_cb, csv_row_end, &c) != 0)
            err = fail(r, WEIR_EFORMAT, "a quoted field is not closed at the end of the file");
        else
            err = c.err;
    }
    if (csv_ready)
        csv_free(&p);
    free(line);
    return err;
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The files of the path: itself, or a folder's (not hidden), sorted. 0 and
 * *files (each and the array malloc'ed), or an error with err. */
static int list(const fs_lookup *a, char ***files, int *n, char *err, size_t errsize)
{
    *files = NULL;
    *n = 0;
    struct stat st;
    if (stat(a->path, &st) != 0) {
        snprintf(err, errsize, "%s: %s", a->path, strerror(errno));
        return errno == ENOENT ? WEIR_ENOENT : WEIR_EIO;
    }
    if (!S_ISDIR(st.st_mode)) {
        char **v = malloc(sizeof *v);
        if (!v || !(v[0] = strdup(a->path))) {
            free(v);
            snprintf(err, errsize, "out of memory");
            return WEIR_ENOMEM;
        }
        *files = v;
        *n = 1;
        return 0;
    }
    DIR *d = opendir(a->path);
    if (!d) {
        snprintf(err, errsize, "%s: %s", a->path, strerror(errno));
        return WEIR_EIO;
    }
    int rc = 0;
    struct dirent *e;
    char **v = NULL;
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.' || e->d_name[0] == '_')
            continue;
        size_t len = strlen(a->path) + strlen(e->d_name) + 2;
        char *f = malloc(len);
        if (!f) {
            rc = WEIR_ENOMEM;
            break;
        }
        snprintf(f, len, "%s/%s", a->path, e->d_name);
        struct stat fst;
        if (stat(f, &fst) != 0 || !S_ISREG(fst.st_mode)) {
            free(f);
            continue;
        }
        char **g = *n < LOOKUP_MAX_FILES ? realloc(v, (size_t)(*n + 1) * sizeof *g) : NULL;
        if (!g) {
            free(f);
            rc = *n < LOOKUP_MAX_FILES ? WEIR_ENOMEM : WEIR_EINVAL;
            break;
        }
        v = g;
        v[(*n)++] = f;
    }
    closedir(d);
    if (!rc && *n == 0) {
        snprintf(err, errsize, "%s: a folder with no file", a->path);
        rc = WEIR_ENOENT;
    } else if (rc) {
        snprintf(err, errsize, "%s: %s", a->path, rc == WEIR_ENOMEM ? "out of memory"
                 : "more than 1024 files");
    }
    if (rc) {
        for (int i = 0; i < *n; i++)
            free(v[i]);
        free(v);
        *n = 0;
        return rc;
    }
    qsort(v, (size_t)*n, sizeof *v, by_name);
    *files = v;
    return 0;
}

static int fs_load(void *arg, weir_lookup_row_fn fn, void *fn_arg, char *err, size_t errsize)
{
    const fs_lookup *a = arg;
    char **files;
    int n;
    int rc = list(a, &files, &n, err, errsize);
    if (rc)
        return rc;
    unsigned char *row = malloc(weir_schema_row_size(a->schema));
    if (!row) {
        snprintf(err, errsize, "out of memory");
        rc = WEIR_ENOMEM;
    }
    for (int i = 0; !rc && i < n; i++) {
        FILE *f = fopen(files[i], "r");
        if (!f) {
            snprintf(err, errsize, "%s: cannot open: %s", files[i], strerror(errno));
            rc = errno == ENOENT ? WEIR_ENOENT : WEIR_EIO;
            break;
        }
        reader r = {.a = a, .file = files[i], .row = row, .fn = fn, .fn_arg = fn_arg,
                    .err = err, .errsize = errsize};
        rc = read_file(&r, f);
        fclose(f);
    }
    free(row);
    for (int i = 0; i < n; i++)
        free(files[i]);
    free(files);
    return rc;
}

int weir__fs_lookup_make(const char *path, bool csv, char delimiter, bool ignore_parse_errors,
                         const weir_schema *schema, weir_lookup_source *out, char *err,
                         size_t errsize)
{
    fs_lookup *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errsize, "out of memory");
        return WEIR_ENOMEM;
    }
    snprintf(a->path, sizeof a->path, "%s", path);
    a->csv = csv;
    a->delimiter = delimiter;
    a->ignore = ignore_parse_errors;
    a->schema = schema;
    /* the files are there now (the load at the join's open reads them) */
    char **files;
    int n;
    int rc = list(a, &files, &n, err, errsize);
    if (rc) {
        free(a);
        return rc;
    }
    for (int i = 0; i < n; i++)
        free(files[i]);
    free(files);
    out->load = fs_load;
    out->arg = a;
    out->arg_free = free;
    return 0;
}
