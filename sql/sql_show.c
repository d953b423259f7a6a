/* sql_show.c — SHOW TABLES, SHOW VIEWS, SHOW [USER] FUNCTIONS and DESCRIBE
 * (sql_internal.h): what the session's catalog and the function registry
 * hold, printed as Flink's TableResult.print() prints a table (its tableau:
 * a border, the column names, each cell right-aligned to its column's
 * widest, "N rows in set"; "Empty set" without rows). SET alone
 * (sql_settings.c) prints its table here too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql_internal.h"

/* The display width of UTF-8 text: its code points (Flink counts East
 * Asian wide ones twice; weir counts each once). */
static size_t width_of(const char *t)
{
    size_t n = 0;
    for (; *t; t++)
        n += ((unsigned char)*t & 0xC0) != 0x80;
    return n;
}

static void border(FILE *out, int ncols, const size_t *w)
{
    fputc('+', out);
    for (int c = 0; c < ncols; c++) {
        for (size_t k = 0; k < w[c] + 2; k++)
            fputc('-', out);
        fputc('+', out);
    }
    fputc('\n', out);
}

static void row_of(FILE *out, int ncols, const size_t *w, const char *const *cells)
{
    fputc('|', out);
    for (int c = 0; c < ncols; c++) {
        const char *t = cells[c] ? cells[c] : "";
        fprintf(out, " %*s%s |", (int)(w[c] - width_of(t)), "", t);
    }
    fputc('\n', out);
}

int sql_print_tableau(weir_sql_session *s, int ncols, const char *const *headers,
                      const char *const *cells, int nrows)
{
    FILE *out = s->cfg.out ? s->cfg.out : stdout;
    if (ncols > 16)
        ncols = 16;
    if (nrows == 0) {
        fputs("Empty set\n", out);
    } else {
        size_t w[16];
        for (int c = 0; c < ncols; c++) {
            w[c] = width_of(headers[c]);
            for (int i = 0; i < nrows; i++) {
                const char *t = cells[(size_t)i * (size_t)ncols + (size_t)c];
                size_t n = t ? width_of(t) : 0;
                if (n > w[c])
                    w[c] = n;
            }
        }
        border(out, ncols, w);
        row_of(out, ncols, w, headers);
        border(out, ncols, w);
        for (int i = 0; i < nrows; i++)
            row_of(out, ncols, w, cells + (size_t)i * (size_t)ncols);
        border(out, ncols, w);
        fprintf(out, "%d %s in set\n", nrows, nrows > 1 ? "rows" : "row");
    }
    if (fflush(out) != 0 || ferror(out)) {
        snprintf(s->err, sizeof s->err, "cannot write the result: %s", strerror(errno));
        return WEIR_EIO;
    }
    return 0;
}

/* ---- SHOW ------------------------------------------------------------------------------------ */

typedef struct names {
    const char **v;
    int n, cap;
    bool failed;
    sql_show_kind kind;
    char **owned; /* copies of registered names (freed after) */
    int nowned;
} names;

static void add_name(names *l, const char *name)
{
    if (l->failed)
        return;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        const char **v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) {
            l->failed = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = name;
}

static void function_named(const char *name, bool user, bool aggregate, void *arg)
{
    (void)aggregate;
    names *l = arg;
    if (l->failed || (l->kind == SQL_SHOW_USER_FUNCTIONS && !user))
        return;
    if (!user) { /* the built-in tables' names live as long as the library */
        add_name(l, name);
        return;
    }
    char **o = realloc(l->owned, (size_t)(l->nowned + 1) * sizeof *o);
    char *copy = strdup(name);
    if (o)
        l->owned = o;
    if (!o || !copy) {
        free(copy);
        l->failed = true;
        return;
    }
    l->owned[l->nowned++] = copy;
    add_name(l, copy);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sql_show(weir_sql_session *s, sql_script *sc, const sql_stmt *st)
{
    (void)sc;
    names l = {.kind = st->show};
    const char *header = "table name";
    if (st->show == SQL_SHOW_TABLES || st->show == SQL_SHOW_VIEWS) {
        if (st->show == SQL_SHOW_VIEWS)
            header = "view name";
        for (int i = 0; i < s->nrels; i++)
            if (st->show == SQL_SHOW_TABLES || s->rels[i]->view)
                add_name(&l, s->rels[i]->name);
    } else {
        header = "function name";
        weir_function_list(function_named, &l);
    }
    int r = 0;
    if (l.failed) {
        snprintf(s->err, sizeof s->err, "out of memory");
        r = WEIR_ENOMEM;
    } else {
        if (l.n) /* none: no array at all */
            qsort(l.v, (size_t)l.n, sizeof *l.v, by_name);
        int kept = 0; /* one row per name */
        for (int i = 0; i < l.n; i++)
            if (!kept || strcmp(l.v[kept - 1], l.v[i]) != 0)
                l.v[kept++] = l.v[i];
        r = sql_print_tableau(s, 1, &header, l.v, kept);
    }
    for (int i = 0; i < l.nowned; i++)
        free(l.owned[i]);
    free(l.owned);
    free(l.v);
    return r;
}

/* ---- DESCRIBE -------------------------------------------------------------------------------- */

#define DESCRIBE_COLS 6
#define CELL_MAX 1024

/* A column's type as Flink's DESCRIBE shows it: without NOT NULL (the null
 * column says it), the time attributes marked. */
static void type_cell(const weir_schema *sch, int col, int rowtime, int proctime, char *out,
                      size_t size)
{
    weir_type t = weir_schema_column_type(sch, col);
    t.not_null = false;
    weir_type_format(t, out, size);
    size_t n = strlen(out);
    if (col == rowtime)
        snprintf(out + n, size - n, " *ROWTIME*");
    else if (col == proctime)
        snprintf(out + n, size - n, " *PROCTIME*");
}

/* The primary key as Flink's DESCRIBE writes it on each of its columns:
 * PRI(a, b). "" without one. */
static void key_text(const weir_schema *sch, char *out, size_t size)
{
    int n = weir_schema_primary_key_count(sch);
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s%s", i ? ", " : "PRI(",
                                weir_schema_column_name(sch, weir_schema_primary_key_column(sch, i)));
    if (n && len < size)
        snprintf(out + len, size - len, ")");
}

static bool in_key(const weir_schema *sch, int col)
{
    for (int i = 0; i < weir_schema_primary_key_count(sch); i++)
        if (weir_schema_primary_key_column(sch, i) == col)
            return true;
    return false;
}

/* A view's schema: its query planned in a job of its own, never run. */
static int view_schema(weir_sql_session *s, sql_relation *r, weir_job **job, weir_table_env **env,
                       const weir_schema **out, int *rowtime, int *proctime)
{
    weir_job_config jc = {.workers = 1, .diag = {.level = WEIR_DIAG_OFF}};
    int e = weir_job_create(&jc, job);
    weir_table_config tc = {.string_capacity = s->string_capacity,
                            .source_idle_timeout_ms = s->source_idle_ms, .time_zone = s->zone};
    if (!e)
        e = weir_table_env_create(*job, &tc, env);
    if (e) {
        snprintf(s->err, sizeof s->err, "out of memory");
        return e;
    }
    s->job_seq++; /* a job of its own: no table opened in another is shared */
    weir_table *t = sql_plan_query(s, *job, *env, r->script, r->stmt->query);
    if (!t)
        return s->err[0] ? WEIR_EINVAL : WEIR_ENOMEM;
    *out = weir_table_schema(t);
    *rowtime = weir_table_rowtime(t);
    *proctime = weir_table_proctime(t);
    return 0;
}

int sql_describe(weir_sql_session *s, sql_script *sc, const sql_stmt *st)
{
    char *name = sql_unquote(sc, st->name);
    if (!name) {
        snprintf(s->err, sizeof s->err, "out of memory");
        return WEIR_ENOMEM;
    }
    sql_relation *r = sql_catalog_find(s, name);
    if (!r) {
        const char *hint = sql_catalog_hint(s, s->env, name);
        if (hint)
            sql_fail(s, sc, st->name.start, "Tables or views with the identifier '%s' doesn't "
                     "exist (did you mean '%s'?)", name, hint);
        else
            sql_fail(s, sc, st->name.start, "Tables or views with the identifier '%s' doesn't "
                     "exist", name);
        return WEIR_EINVAL;
    }
    weir_job *job = NULL;
    weir_table_env *env = NULL;
    const weir_schema *sch = r->declared ? r->declared : r->schema;
    int rowtime = sch ? weir_schema_rowtime(sch) : -1;
    int proctime = sch ? weir_schema_proctime(sch) : -1;
    int e = r->view ? view_schema(s, r, &job, &env, &sch, &rowtime, &proctime) : 0;
    int ncols = e ? 0 : weir_schema_ncolumns(sch);
    char *buf = e ? NULL : calloc((size_t)(ncols ? ncols : 1) * DESCRIBE_COLS, CELL_MAX);
    const char **cells = e ? NULL : calloc((size_t)(ncols ? ncols : 1) * DESCRIBE_COLS,
                                           sizeof *cells);
    char key[CELL_MAX];
    if (!e && (!buf || !cells)) {
        snprintf(s->err, sizeof s->err, "out of memory");
        e = WEIR_ENOMEM;
    }
    if (!e)
        key_text(sch, key, sizeof key);
    for (int c = 0; !e && c < ncols; c++) {
        char *cell[DESCRIBE_COLS];
        for (int k = 0; k < DESCRIBE_COLS; k++) {
            cell[k] = buf + ((size_t)c * DESCRIBE_COLS + (size_t)k) * CELL_MAX;
            cells[(size_t)c * DESCRIBE_COLS + (size_t)k] = cell[k];
        }
        const char *col = weir_schema_column_name(sch, c);
        snprintf(cell[0], CELL_MAX, "%s", col);
        type_cell(sch, c, rowtime, proctime, cell[1], CELL_MAX);
        snprintf(cell[2], CELL_MAX, "%s",
                 weir_schema_column_type(sch, c).not_null ? "FALSE" : "TRUE");
        snprintf(cell[3], CELL_MAX, "%s", in_key(sch, c) ? key : "");
        if (r->view)
            continue;
        /* the table's DDL: a computed column's expression, a metadata
         * column's key, the WATERMARK's expression, as written */
        for (int i = 0; i < r->stmt->ncols; i++) {
            const sql_column_def *d = &r->stmt->cols[i];
            char *dn = sql_unquote(r->script, d->name);
            if (!dn || strcmp(dn, col) != 0)
                continue;
            if (d->computed)
                snprintf(cell[4], CELL_MAX, "AS %.*s", (int)d->expr.len,
                         r->script->text + d->expr.start);
            else if (d->metadata) {
                char *k = d->meta_key.len ? sql_unquote(r->script, d->meta_key) : NULL;
                snprintf(cell[4], CELL_MAX, "METADATA%s%s%s%s", k ? " FROM '" : "", k ? k : "",
                         k ? "'" : "", d->virtual_col ? " VIRTUAL" : "");
            }
            break;
        }
        if (r->stmt->wm_col.len) {
            char *wc = sql_unquote(r->script, r->stmt->wm_col);
            if (wc && strcmp(wc, col) == 0)
                snprintf(cell[5], CELL_MAX, "%.*s", (int)r->stmt->wm_expr.len,
                         r->script->text + r->stmt->wm_expr.start);
        }
    }
    static const char *const headers[DESCRIBE_COLS] = {"name",   "type",   "null",
                                                       "key",    "extras", "watermark"};
    if (!e)
        e = sql_print_tableau(s, DESCRIBE_COLS, headers, cells, ncols);
    free(cells);
    free(buf);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    return e;
}
