/* sql_insert.c — INSERT INTO: a query planned (sql_plan.c), its columns
 * fitted to the sink table's (by position, or by the INSERT's column list,
 * the others NULL; implicit casts as Flink's planner makes them), its
 * changelog checked against the kinds the sink takes, and the sink made by
 * the table's connector (weir/connector.h).
 *
 * A statement set plans each of its INSERTs into the one job; the catalog
 * hands every read of a table in that job the one source (sql_catalog.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_internal.h"
#include "sql_text.h"
#include "weir/expr_ast.h"

/* The sink's parallelism: 'sink.parallelism', else the table operators'. */
static int sink_parallelism(const sql_relation *r, const weir_table_env *env, const weir_job *job)
{
    if (r->sink_parallelism)
        return r->sink_parallelism;
    const weir_table_config *tc = weir_table_env_config(env);
    if (tc && tc->parallelism)
        return tc->parallelism;
    const weir_job_config *jc = weir_job_get_config(job);
    return jc && jc->parallelism > 0 ? jc->parallelism : 1;
}

static bool is_string(weir_type_id id)
{
    return id == WEIR_TYPE_VARCHAR || id == WEIR_TYPE_CHAR;
}

/* Where an INSERT's errors point: its query, or (a C table written by
 * weir_statement_set_add_insert: no statement) nowhere. */
static uint32_t query_at(const sql_stmt *st)
{
    return st ? st->query->at.start : 0;
}

/* Whether sink column c is a VIRTUAL metadata column (read only: never
 * written, so no query column fills it). */
static bool virtual_column(const sql_relation *r, int c)
{
    for (int i = 0; i < r->nmeta; i++)
        if (r->meta[i].col == c)
            return r->meta[i].virtual_col;
    return false;
}

/* The sink table's column for each query column: by position (over the
 * columns written: all but VIRTUAL ones), or by the INSERT's column list
 * (each named once, each a column of the sink). from[c] is the query
 * column that fills sink column c, or -1 (NULL). st NULL: a C table, by
 * position. */
/* The query's columns as Flink's message shows its schema: a time
 * attribute's type marked *ROWTIME* or *PROCTIME*. */
static void query_schema_text(const weir_table *t, char *buf, size_t size)
{
    const weir_schema *q = weir_table_schema(t);
    int rt = weir_table_rowtime(t), pt = weir_table_proctime(t);
    size_t n = 0;
    n += (size_t)snprintf(buf, size, "(");
    for (int c = 0; c < weir_schema_ncolumns(q) && n < size; c++) {
        char ty[96];
        weir_type_format(weir_schema_column_type(q, c), ty, sizeof ty);
        n += (size_t)snprintf(buf + n, size - n, "%s%s %s%s", c ? ", " : "",
                              weir_schema_column_name(q, c), ty,
                              c == rt ? " *ROWTIME*" : c == pt ? " *PROCTIME*" : "");
    }
    if (n < size)
        snprintf(buf + n, size - n, ")");
}

static int fit_columns(weir_sql_session *s, sql_script *sc, const sql_stmt *st,
                       const sql_relation *r, const weir_table *qt, int *from)
{
    const weir_schema *query = weir_table_schema(qt);
    const weir_schema *sink = r->schema;
    int nsink = weir_schema_ncolumns(sink), nquery = weir_schema_ncolumns(query);
    int ncols = st ? st->ninsert_cols : 0;
    int nwritten = 0;
    for (int c = 0; c < nsink; c++)
        nwritten += !virtual_column(r, c);
    int nlisted = ncols ? ncols : nwritten;
    if (nquery != nlisted) {
        char qs[1024], ss[1024];
        query_schema_text(qt, qs, sizeof qs);
        weir_schema_format(sink, ss, sizeof ss);
        sql_fail(s, sc, query_at(st), "Column types of query result and sink for '%s' "
                 "do not match. Cause: Different number of columns: the query has %d, the "
                 "%s %d. Query schema: %s Sink schema: %s", r->name, nquery,
                 ncols ? "column list" : "sink", nlisted, qs, ss);
        return WEIR_EINVAL;
    }
    for (int c = 0, k = 0; c < nsink; c++)
        from[c] = ncols || virtual_column(r, c) ? -1 : k++;
    for (int i = 0; i < ncols; i++) {
        char *name = sql_unquote(sc, st->insert_cols[i]);
        if (!name)
            return WEIR_ENOMEM;
        int c = weir_schema_column_index(sink, name);
        if (c < 0 && r->declared && weir_schema_column_index(r->declared, name) >= 0) {
            /* a computed column: Calcite's words, as Flink's INSERT says them */
            sql_fail(s, sc, st->insert_cols[i].start, "Unknown target column '%s' (a computed "
                     "column of '%s': it is computed when the table is read, never written)",
                     name, r->name);
            return WEIR_EINVAL;
        }
        if (c < 0) {
            const char *hint = NULL;
            for (int k = 0; k < nsink; k++)
                if (sql_edit_distance(name, weir_schema_column_name(sink, k)) <= 2)
                    hint = weir_schema_column_name(sink, k);
            sql_fail(s, sc, st->insert_cols[i].start, "unknown column '%s' in table '%s'%s%s%s",
                     name, r->name, hint ? " (did you mean '" : "", hint ? hint : "",
                     hint ? "'?)" : "");
            return WEIR_EINVAL;
        }
        if (virtual_column(r, c)) {
            sql_fail(s, sc, st->insert_cols[i].start, "column '%s' of '%s' is a VIRTUAL "
                     "metadata column: it is read, never written", name, r->name);
            return WEIR_EINVAL;
        }
        if (from[c] >= 0) {
            sql_fail(s, sc, st->insert_cols[i].start, "column '%s' is listed twice", name);
            return WEIR_EINVAL;
        }
        from[c] = i;
    }
    for (int c = 0; c < nsink; c++) {
        weir_type t = weir_schema_column_type(sink, c);
        if (from[c] < 0 && t.not_null && !virtual_column(r, c)) {
            sql_fail(s, sc, st->name.start, "column '%s' of '%s' is NOT NULL and not in the "
                     "INSERT's column list (it would be NULL)",
                     weir_schema_column_name(sink, c), r->name);
            return WEIR_EINVAL;
        }
    }
    return 0;
}

/* The query's rows as rows of the sink's schema: a projection naming each
 * sink column, cast where the types differ, NULL where the column list
 * leaves it out. st NULL: a C table. NULL with s->err. */
static weir_table *fit_rows(weir_sql_session *s, sql_script *sc, const sql_stmt *st,
                            const sql_relation *r, weir_table *t, weir_job *job)
{
    const weir_schema *sink = r->schema, *query = weir_table_schema(t);
    int nsink = weir_schema_ncolumns(sink);
    int *from = calloc((size_t)nsink, sizeof *from);
    weir_expr **items = calloc((size_t)nsink, sizeof *items);
    weir_ast_arena *trees = NULL;
    weir_table *out = NULL;
    int n = 0;
    if (!from || !items) {
        sql_fail(s, sc, query_at(st), "out of memory");
        goto done;
    }
    if (fit_columns(s, sc, st, r, t, from)) {
        if (!s->err[0])
            sql_fail(s, sc, query_at(st), "out of memory");
        goto done;
    }
    for (int c = 0; c < nsink; c++, n++) {
        weir_type to = weir_schema_column_type(sink, c);
        const char *cname = weir_schema_column_name(sink, c);
        weir_type fromt = from[c] >= 0 ? weir_schema_column_type(query, from[c])
                                       : (weir_type){.id = WEIR_TYPE_NULL};
        if (!weir_type_casts_implicitly(fromt, to)) {
            char a[64], b[64];
            weir_type_format(fromt, a, sizeof a);
            weir_type_format(to, b, sizeof b);
            sql_fail(s, sc, query_at(st), "Incompatible types for sink column '%s' at "
                     "position %d: the query's '%s' is %s, the sink's column %s (write a CAST)",
                     cname, c, weir_schema_column_name(query, from[c]), a, b);
            goto done;
        }
        char type[1024];
        /* NOT NULL is the sink's promise, not the cast's */
        weir_type nullable = to;
        nullable.not_null = false;
        weir_type_format(nullable, type, sizeof type);
        weir_ast *value = from[c] >= 0 ? weir_ast_new(&trees, WEIR_AST_NAME,
                                                      weir_schema_column_name(query, from[c]),
                                                      0, 0)
                                       : weir_ast_new(&trees, WEIR_AST_NULL, NULL, 0, 0);
        weir_ast *cast = weir_ast_new(&trees, WEIR_AST_CAST, type, 0, 0);
        if (!value || !cast) {
            sql_fail(s, sc, query_at(st), "out of memory");
            goto done;
        }
        value->depth = 1;
        cast->a = value;
        if (to.id == WEIR_TYPE_ROW || to.id == WEIR_TYPE_ARRAY || to.id == WEIR_TYPE_MAP)
            cast->value = to.capacity; /* the column's type exactly (its capacities) */
        cast->depth = 2;
        /* a string goes into a string column as it is: Flink's sinks take
         * a longer VARCHAR or an unpadded CHAR unchanged (its default
         * 'table.exec.sink.type-length-enforcer' = IGNORE), and the sink
         * writes the rows of the schema it is given, so nothing is cut */
        bool same = from[c] >= 0 &&
                    ((fromt.id == to.id && fromt.capacity == to.capacity &&
                      weir_type_precision(fromt) == weir_type_precision(to) &&
                      fromt.scale == to.scale) ||
                     (is_string(fromt.id) && is_string(to.id)));
        weir_expr_scope scope = {.schema = query, .zone = s->zone};
        size_t at = 0;
        char msg[512];
        int e = weir_expr_bind(same ? value : cast, NULL, &scope, 0, cname, &items[c], &at, msg,
                               sizeof msg);
        if (e) {
            sql_fail(s, sc, query_at(st), "%s", e == WEIR_ENOMEM ? "out of memory" : msg);
            goto done;
        }
    }
    out = weir_table_select_exprs(t, items, nsink);
    n = 0; /* the table layer has them */
    if (!out)
        sql_fail(s, sc, query_at(st), "%s", sql_job_message(job));
done:
    for (int i = 0; i < n; i++)
        weir_expr_destroy(items[i]);
    free(items);
    free(from);
    weir_ast_arena_free(&trees);
    return out;
}

/* What the table layer said refusing updates into a stream ("weir_table_to_
 * stream: ... doesn't support consuming update changes ..."), from its
 * "doesn't" on: Flink's sentence after the sink's name. */
static const char *insert_only_refusal(const char *msg)
{
    const char *d = strstr(msg, "doesn't support");
    return d ? d : msg;
}

sql_relation *sql_insert_sink(weir_sql_session *s, const sql_script *sc, uint32_t at,
                             const weir_table_env *env, const char *name)
{
    sql_relation *r = sql_catalog_find(s, name);
    if (!r && weir_table_env_view(env, name))
        return sql_fail(s, sc, at, "'%s' is a view of the program's: a view "
                        "cannot be written (INSERT INTO a table with a sink connector)", name);
    if (!r) {
        const char *hint = sql_catalog_hint(s, env, name);
        return sql_fail(s, sc, at, "unknown table '%s'%s%s%s", name,
                        hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
    }
    if (r->view)
        return sql_fail(s, sc, at, "'%s' is a view: a view cannot be written "
                        "(INSERT INTO a table with a sink connector)", name);
    if (!sql_catalog_is_sink(r))
        return sql_fail(s, sc, at, "Connector '%s' can only be used as a source. "
                        "It cannot be used as a sink. (table '%s')",
                        sql_catalog_connector_name(r), name);
    return r;
}

/* The sink table of an INSERT statement. NULL with s->err. */
static sql_relation *sink_table(weir_sql_session *s, sql_script *sc, const sql_stmt *st,
                                const weir_table_env *env)
{
    char *name = sql_unquote(sc, st->name);
    if (!name)
        return sql_fail(s, sc, st->name.start, "out of memory");
    return sql_insert_sink(s, sc, st->name.start, env, name);
}

/* Writes t, the rows of an INSERT (st; NULL: a C table), into r's sink:
 * its columns fitted, the kinds the sink takes checked. 0, or WEIR_EINVAL
 * with s->err. */
static int write_into(weir_sql_session *s, weir_job *job, weir_table_env *env, sql_script *sc,
                      const sql_stmt *st, sql_relation *r, weir_table *t)
{
    uint32_t at = st ? st->name.start : 0;
    if (sql_catalog_check_write_metadata(s, sc, at, r))
        return WEIR_EINVAL;
    if (!(t = fit_rows(s, sc, st, r, t, job)))
        return WEIR_EINVAL;
    /* the kinds the sink takes: an insert-only sink refuses a query that
     * may update, naming the node that does (Flink's message) */
    weir_stream *rows;
    if ((r->sink_kinds & ~WEIR_CHANGELOG_INSERT_ONLY) == 0) {
        rows = weir_table_to_stream(t);
        if (!rows) {
            sql_fail(s, sc, at, "Table sink '%s' %s", r->name,
                     insert_only_refusal(sql_job_message(job)));
            return WEIR_EINVAL;
        }
    } else {
        rows = weir_table_to_changelog_stream(t, WEIR_CHANGELOG_AS_PRODUCED);
    }
    if (r->sink_job != s->job_seq) {
        r->sink_job = s->job_seq;
        r->sinks = 0;
    }
    char name[SQL_NAME_MAX + 24];
    r->sinks++;
    snprintf(name, sizeof name, r->sinks == 1 ? "Sink(%s)" : "Sink(%s)#%d", r->name, r->sinks);
    int par = sink_parallelism(r, env, job);
    weir_stream *sink = rows ? r->factory->sink(r->state, weir_table_schema(t), rows, name, par)
                             : NULL;
    sink = weir_stream_set_parallelism(weir_stream_set_name(sink, name), par);
    if (!sink) {
        sql_fail(s, sc, st ? st->at.start : 0, "%s", sql_job_message(job));
        return WEIR_EINVAL;
    }
    return 0;
}

int sql_plan_insert(weir_sql_session *s, weir_job *job, weir_table_env *env, sql_script *sc,
                    const sql_stmt *st)
{
    sql_relation *r = sink_table(s, sc, st, env);
    if (!r)
        return WEIR_EINVAL;
    weir_table *t = sql_plan_query(s, job, env, sc, st->query);
    if (!t)
        return s->err[0] ? WEIR_EINVAL : WEIR_ENOMEM;
    return write_into(s, job, env, sc, st, r, t);
}

int sql_insert_table(weir_sql_session *s, weir_job *job, weir_table_env *env, sql_relation *r,
                     weir_table *t)
{
    return write_into(s, job, env, NULL, NULL, r, t);
}
