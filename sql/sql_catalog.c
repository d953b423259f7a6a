/* sql_catalog.c — CREATE TABLE and CREATE VIEW: the session's catalog, and
 * what every table has whatever its connector: its schema (columns, PRIMARY
 * KEY, WATERMARK), the options of watermarks and their alignment, and
 * 'sink.parallelism'; the rest of its WITH options go to its connector's
 * factory (weir/connector.h; sql_connectors.c), through the context this
 * file gives it.
 *
 * Everything a table's definition can get wrong is found here, at CREATE
 * TABLE, with the line and column of what is wrong; opening a table in a
 * job then only makes its source. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql_internal.h"
#include "message_text.h"
#include "weir/expr_ast.h"
#include "sql_text.h"

sql_relation *sql_catalog_find(weir_sql_session *s, const char *name)
{
    for (int i = 0; i < s->nrels; i++)
        if (strcmp(s->rels[i]->name, name) == 0)
            return s->rels[i];
    return NULL;
}

const char *sql_catalog_hint(weir_sql_session *s, const weir_table_env *env, const char *name)
{
    const char *best = NULL;
    int dist = 3;
    int nviews = weir_table_env_view_count(env);
    for (int i = 0; i < s->nrels + nviews; i++) {
        const char *n = i < s->nrels ? s->rels[i]->name : weir_table_env_view_name(env, i - s->nrels);
        int d = sql_edit_distance(name, n);
        if (d < dist) {
            dist = d;
            best = n;
        }
    }
    return best;
}

/* ---- the connector's context: options ------------------------------------------------ */

static const sql_option *find_option(weir_connector_context *c, const char *key)
{
    for (int i = 0; i < c->st->nopts; i++)
        if (strcmp(c->st->opts[i].key, key) == 0) {
            if (i < SQL_MAX_OPTIONS)
                c->used[i] = true;
            return &c->st->opts[i];
        }
    return NULL;
}

const char *weir_connector_option(weir_connector_context *c, const char *key)
{
    const sql_option *o = key ? find_option(c, key) : NULL;
    return o ? o->value : NULL;
}

int weir_connector_option_count(const weir_connector_context *c)
{
    return c->st->nopts;
}

const char *weir_connector_option_key(const weir_connector_context *c, int i)
{
    return i >= 0 && i < c->st->nopts ? c->st->opts[i].key : NULL;
}

const char *weir_connector_table(const weir_connector_context *c)
{
    return c->r->name;
}

const weir_schema *weir_connector_schema(const weir_connector_context *c)
{
    return c->r->schema;
}

int weir_connector_fail(weir_connector_context *c, const char *key, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const sql_option *o = NULL;
    for (int i = 0; key && i < c->st->nopts; i++)
        if (strcmp(c->st->opts[i].key, key) == 0)
            o = &c->st->opts[i];
    if (o)
        sql_fail(c->s, c->sc, o->at.start, "option '%s'='%s': %s", o->key, o->value, what);
    else
        sql_fail(c->s, c->sc, c->st->name.start, "%s", what);
    return WEIR_EINVAL;
}

int weir_connector_path(const weir_connector_context *c, const char *path, char *buf,
                        size_t size)
{
    const char *dir = c->s->base_dir;
    if (path[0] == '/' || strcmp(dir, ".") == 0)
        return snprintf(buf, size, "%s", path);
    return snprintf(buf, size, "%s/%s", dir, path);
}

int weir_connector_partition_key_count(const weir_connector_context *c)
{
    ((weir_connector_context *)c)->partitions_read = true;
    return c->r->npartition_keys;
}

int weir_connector_partition_key(const weir_connector_context *c, int i)
{
    return i >= 0 && i < c->r->npartition_keys ? c->r->partition_keys[i] : -1;
}

int weir_connector_parallelism(const weir_connector_context *c)
{
    return c->s->parallelism > 0 ? c->s->parallelism : 1;
}

void weir_connector_set_source_mode(weir_connector_context *c, unsigned mode)
{
    c->r->changelog_mode = mode;
}

void weir_connector_set_sink_kinds(weir_connector_context *c, unsigned kinds)
{
    c->r->sink_kinds = kinds;
}

int weir_connector_option_bool(weir_connector_context *c, const char *key, bool *v)
{
    const char *o = weir_connector_option(c, key);
    if (!o)
        return 0;
    if (strcasecmp(o, "true") == 0)
        *v = true;
    else if (strcasecmp(o, "false") == 0)
        *v = false;
    else
        return weir_connector_fail(c, key, "expected 'true' or 'false'");
    return 0;
}

int weir_connector_option_int(weir_connector_context *c, const char *key, int64_t lo, int64_t hi,
                              int64_t *v)
{
    const char *o = weir_connector_option(c, key);
    if (!o)
        return 0;
    char *end;
    errno = 0;
    long long i = strtoll(o, &end, 10);
    if (end == o || *end || errno || i < lo || i > hi)
        return weir_connector_fail(c, key, "not an integer in %lld..%lld", (long long)lo,
                                   (long long)hi);
    *v = i;
    return 0;
}

int weir_connector_option_double(weir_connector_context *c, const char *key, double lo,
                                 double hi, double *v)
{
    const char *o = weir_connector_option(c, key);
    if (!o)
        return 0;
    char *end;
    errno = 0;
    double x = strtod(o, &end);
    if (end == o || *end || errno || !(x >= lo && x <= hi))
        return weir_connector_fail(c, key, "not a number in %g..%g", lo, hi);
    *v = x;
    return 0;
}

int weir_connector_option_duration(weir_connector_context *c, const char *key, int64_t *ms)
{
    const char *o = weir_connector_option(c, key);
    if (o && sql_duration_ms(o, ms))
        return weir_connector_fail(c, key, "not a duration ('200 ms', '2 s', '1 min')");
    return 0;
}

int weir_connector_option_choice(weir_connector_context *c, const char *key,
                                 const char *const *words, int *v)
{
    const char *o = weir_connector_option(c, key);
    if (!o)
        return 0;
    for (int i = 0; words[i]; i++)
        if (strcmp(o, words[i]) == 0) {
            *v = i;
            return 0;
        }
    char list[256] = "";
    for (int i = 0; words[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s'%s'",
                 i ? (words[i + 1] ? ", " : " or ") : "", words[i]);
    return weir_connector_fail(c, key, "expected %s", list);
}

/* The options every table takes, whatever its connector. */
#define TABLE_OPTIONS                                                                   \
    "'scan.watermark.emit.strategy', 'scan.watermark.idle-timeout', "                   \
    "'scan.watermark.alignment.group', 'scan.watermark.alignment.max-drift', "          \
    "'scan.watermark.alignment.update-interval'"

/* Every option neither the table nor its connector read is unknown. */
static int unused_options(weir_connector_context *c)
{
    const weir_connector_factory *f = c->r->factory;
    for (int i = 0; i < c->st->nopts && i < SQL_MAX_OPTIONS; i++)
        if (!c->used[i]) {
            sql_fail(c->s, c->sc, c->st->opts[i].at.start, "unknown option '%s' for connector "
                     "'%s' (it takes %s%s%s%s)", c->st->opts[i].key, f->name,
                     f->options && f->options[0] ? f->options : "", 
                     f->options && f->options[0] ? ", " : "",
                     f->sink ? "'sink.parallelism', " : "", TABLE_OPTIONS);
            return WEIR_EINVAL;
        }
    return 0;
}

/* ---- metadata columns ---------------------------------------------------------------- */

int weir_connector_metadata_count(const weir_connector_context *c)
{
    return c->r->nmeta;
}

int weir_connector_metadata_column(const weir_connector_context *c, int i)
{
    return i >= 0 && i < c->r->nmeta ? c->r->meta[i].col : -1;
}

const char *weir_connector_metadata_key(const weir_connector_context *c, int i)
{
    return i >= 0 && i < c->r->nmeta ? c->r->meta[i].key : NULL;
}

bool weir_connector_metadata_virtual(const weir_connector_context *c, int i)
{
    return i >= 0 && i < c->r->nmeta && c->r->meta[i].virtual_col;
}

static const weir_connector_metadata *find_metadata(const weir_connector_metadata *list,
                                                    const char *key)
{
    for (int i = 0; list && list[i].key; i++)
        if (strcmp(list[i].key, key) == 0)
            return &list[i];
    return NULL;
}

/* A metadata column against the keys a connector reads (its value goes
 * into the column) or writes (the column's goes into it), with Flink's
 * messages (DynamicSourceUtils, DynamicSinkUtils). */
static int check_metadata(weir_sql_session *s, const sql_script *sc, uint32_t at,
                          const sql_relation *r, const sql_meta_col *m,
                          const weir_connector_metadata *list, bool writing)
{
    const char *name = weir_schema_column_name(r->schema, m->col);
    const weir_connector_metadata *e = find_metadata(list, m->key);
    if (!e) {
        char keys[1024] = "";
        size_t len = 0;
        for (int i = 0; list[i].key; i++)
            weir__append(keys, sizeof keys, &len, "%s%s", i ? ", " : "", list[i].key);
        sql_fail(s, sc, at, "Invalid metadata key '%s' in column '%s' of table '%s'. The "
                 "connector '%s' supports the following metadata keys for %s: %s", m->key,
                 name, r->name, r->factory->name, writing ? "writing" : "reading", keys);
        return WEIR_EINVAL;
    }
    weir_type mt;
    char why[128];
    bool parsed = weir_type_parse(e->type, &mt, why, sizeof why) == 0;
    if (!parsed || mt.id == WEIR_TYPE_ROW || mt.id == WEIR_TYPE_ARRAY || mt.id == WEIR_TYPE_MAP) {
        sql_fail(s, sc, at, "not supported: the metadata key '%s' (column '%s' of table '%s'): "
                 "its type is %s, which weir %s", m->key, name, r->name, e->type,
                 parsed ? "does not read as metadata yet" : "does not have");
        return WEIR_EINVAL;
    }
    weir_type ct = weir_schema_column_type(r->schema, m->col);
    if (writing ? weir_type_casts_implicitly(ct, mt) : weir_type_casts_implicitly(mt, ct))
        return 0;
    char a[64], b[64], keyed[SQL_NAME_MAX + 32] = "";
    weir_type_format(ct, a, sizeof a);
    weir_type_format(mt, b, sizeof b);
    if (strcmp(m->key, name) != 0)
        snprintf(keyed, sizeof keyed, " with metadata key '%s'", m->key);
    sql_fail(s, sc, at, "Invalid data type for metadata column '%s'%s of table '%s'. The column "
             "cannot be declared as '%s' because the type must be castable %s metadata type "
             "'%s'.", name, keyed, r->name, a, writing ? "to" : "from", b);
    return WEIR_EINVAL;
}

/* The metadata columns an INSERT writes (not VIRTUAL): keys the sink
 * writes. */
static int check_write_metadata(weir_sql_session *s, const sql_script *sc, uint32_t at,
                                const sql_relation *r)
{
    const weir_connector_metadata *list = sql_write_metadata(r->factory);
    for (int i = 0; i < r->nmeta; i++) {
        if (r->meta[i].virtual_col)
            continue;
        if (!list) {
            sql_fail(s, sc, at, "Table '%s' declares persistable metadata columns, but the "
                     "underlying DynamicTableSink doesn't implement the SupportsWritingMetadata "
                     "interface. If the column should not be persisted, it can be declared with "
                     "the VIRTUAL keyword. (connector '%s')", r->name, r->factory->name);
            return WEIR_EINVAL;
        }
        int err = check_metadata(s, sc, at, r, &r->meta[i], list, true);
        if (err)
            return err;
    }
    return 0;
}

int sql_catalog_check_write_metadata(weir_sql_session *s, const sql_script *sc, uint32_t at,
                                     const sql_relation *r)
{
    return check_write_metadata(s, sc, at, r);
}

/* The table's metadata columns (r->meta), each key once, none in the
 * PRIMARY KEY, checked against what the connector reads (a source) or
 * writes (a sink only). */
static int metadata_columns(weir_connector_context *c)
{
    const sql_stmt *st = c->st;
    sql_relation *r = c->r;
    int n = 0;
    for (int i = 0; i < st->ncols; i++)
        n += st->cols[i].metadata;
    if (!n)
        return 0;
    if (!(r->meta = calloc((size_t)n, sizeof *r->meta)))
        return WEIR_ENOMEM;
    for (int i = 0; i < st->ncols; i++) {
        const sql_column_def *d = &st->cols[i];
        if (!d->metadata)
            continue;
        char *name = sql_unquote(c->sc, d->name);
        char *key = d->meta_key.len ? sql_unquote(c->sc, d->meta_key) : name;
        if (!name || !key)
            return WEIR_ENOMEM;
        sql_meta_col *m = &r->meta[r->nmeta];
        *m = (sql_meta_col){.col = weir_schema_column_index(r->schema, name), .key = key,
                            .virtual_col = d->virtual_col,
                            .at = d->meta_key.len ? d->meta_key.start : d->meta_at.start};
        for (int k = 0; k < r->nmeta; k++)
            if (strcmp(r->meta[k].key, key) == 0) {
                sql_fail(c->s, c->sc, m->at, "The column `%s` and `%s` in the table are both "
                         "from the same metadata key '%s'. Please specify one of the columns as "
                         "the metadata column.", weir_schema_column_name(r->schema, r->meta[k].col),
                         name, key);
                return WEIR_EINVAL;
            }
        for (int k = 0; k < weir_schema_primary_key_count(r->schema); k++)
            if (weir_schema_primary_key_column(r->schema, k) == m->col) {
                sql_fail(c->s, c->sc, d->name.start, "Invalid primary key of table '%s'. Column "
                         "'%s' is not a physical column.", r->name, name);
                return WEIR_EINVAL;
            }
        r->nmeta++;
    }
    const weir_connector_metadata *list = sql_read_metadata(r->factory);
    if (!r->factory->source)
        return check_write_metadata(c->s, c->sc, r->meta[0].at, r);
    if (!list) {
        sql_fail(c->s, c->sc, r->meta[0].at, "Table '%s' declares metadata columns, but the "
                 "underlying DynamicTableSource doesn't implement the SupportsReadingMetadata "
                 "interface. Therefore, metadata cannot be read from the given source. "
                 "(connector '%s')", r->name, r->factory->name);
        return WEIR_EINVAL;
    }
    for (int i = 0; i < r->nmeta; i++) {
        int err = check_metadata(c->s, c->sc, r->meta[i].at, r, &r->meta[i], list, false);
        if (err)
            return err;
    }
    return 0;
}

/* ---- CREATE TABLE ------------------------------------------------------------------- */

/* A watermark option on a table without a WATERMARK: refused at it. */
static int without_watermark(weir_connector_context *c, const sql_option *o)
{
    sql_fail(c->s, c->sc, o->at.start, "option '%s' needs a WATERMARK FOR ... AS ... in the "
             "table", o->key);
    return WEIR_EINVAL;
}

/* Flink's watermark alignment options: the source's group, max drift and
 * update interval (weir_source_align_watermarks; without them the source's
 * partitions are aligned by weir's default). */
static int alignment_options(weir_connector_context *c, sql_relation *r)
{
    const sql_option *group = find_option(c, "scan.watermark.alignment.group");
    const sql_option *drift = find_option(c, "scan.watermark.alignment.max-drift");
    const sql_option *every = find_option(c, "scan.watermark.alignment.update-interval");
    const sql_option *first = group ? group : drift ? drift : every;
    if (!first)
        return 0;
    if (!c->st->wm_col.len)
        return without_watermark(c, first);
    if (group) {
        size_t len = strlen(group->value);
        if (len < 1 || len > 100 || len >= sizeof r->align_group)
            return weir_connector_fail(c, group->key, "a group name is 1 to 100 bytes");
        memcpy(r->align_group, group->value, len + 1);
    }
    if (drift && (sql_duration_ms(drift->value, &r->align_drift_ms) || r->align_drift_ms <= 0))
        return weir_connector_fail(c, drift->key, "not a duration above 0 ('1 min', '30 s')");
    if (every && (sql_duration_ms(every->value, &r->align_update_ms) || r->align_update_ms <= 0))
        return weir_connector_fail(c, every->key, "not a duration above 0 ('1 s')");
    r->align_set = true;
    return 0;
}

static int watermark_options(weir_connector_context *c, weir_schema_builder *b, bool apply)
{
    const sql_option *emit = find_option(c, "scan.watermark.emit.strategy");
    const sql_option *idle = find_option(c, "scan.watermark.idle-timeout");
    if (!emit && !idle)
        return 0;
    bool on_event = false;
    int64_t idle_ms = 0;
    if (emit) {
        if (strcmp(emit->value, "on-event") == 0)
            on_event = true;
        else if (strcmp(emit->value, "on-periodic") != 0)
            return weir_connector_fail(c, emit->key, "expected 'on-event' or 'on-periodic'");
    }
    if (idle && (sql_duration_ms(idle->value, &idle_ms) || idle_ms < 0))
        return weir_connector_fail(c, idle->key, "not a duration ('2 s')");
    if (!c->st->wm_col.len)
        return without_watermark(c, emit ? emit : idle);
    c->r->wm_options = true;
    c->r->wm_on_event = on_event;
    c->r->wm_idle_ms = idle_ms;
    return apply && weir_schema_watermark_emit(b, on_event, idle_ms) ? WEIR_EINVAL : 0;
}

static int table_columns(weir_connector_context *c, weir_schema_builder *b)
{
    weir_sql_session *s = c->s;
    sql_script *sc = c->sc;
    const sql_stmt *st = c->st;
    const weir_connector_factory *f = c->r->factory;
    if (f->schema_begin && f->schema_begin(c, b))
        return s->err[0] ? WEIR_EINVAL : WEIR_ENOMEM;
    /* each name unquoted once (the script's arena keeps what it is given) */
    char **names = sql_arena_alloc(&sc->arena, ((size_t)st->ncols + 1) * sizeof *names);
    if (!names)
        return WEIR_ENOMEM;
    for (int i = 0; i < st->ncols; i++) {
        const sql_column_def *col = &st->cols[i];
        char *name = names[i] = sql_unquote(sc, col->name);
        if (!name)
            return WEIR_ENOMEM;
        for (int j = 0; j < i; j++) {
            if (strcmp(names[j], name) == 0) {
                sql_fail(s, sc, col->name.start, "column '%s' is declared twice", name);
                return WEIR_EINVAL;
            }
        }
        if (col->computed)
            continue; /* computed when the table is read (computed_columns) */
        char *type_text = sql_span_text(sc, col->type);
        if (!type_text)
            return WEIR_ENOMEM;
        weir_type type;
        char why[256];
        if (weir_type_parse(type_text, &type, why, sizeof why)) {
            sql_fail(s, sc, col->type.start, "%s", why);
            return WEIR_EINVAL;
        }
        c->column = col;
        int err = f->column ? f->column(c, b, name, type) : weir_schema_column(b, name, type);
        c->column = NULL;
        if (err) {
            if (!s->err[0])
                sql_fail(s, sc, col->name.start, "column '%s' cannot be made", name);
            return err;
        }
    }
    return 0;
}

/* The key list, unquoted and comma-separated. */
static int primary_key(sql_script *sc, const sql_stmt *st, weir_schema_builder *b)
{
    char keys[1024] = "";
    size_t n = 0;
    for (int i = 0; i < st->npk; i++) {
        char *k = sql_unquote(sc, st->pk[i]);
        if (!k)
            return WEIR_ENOMEM;
        int w = snprintf(keys + n, sizeof keys - n, "%s`%s`", i ? ", " : "", k);
        if (w < 0 || (size_t)w >= sizeof keys - n)
            return WEIR_EINVAL;
        n += (size_t)w;
    }
    return weir_schema_primary_key(b, keys);
}

static bool proctime_call(const struct weir_ast *a);

/* Binds the watermark expression's tree against the table's columns, for
 * its errors at their place (the schema keeps its text, which the table
 * layer compiles when the source opens). */
static int check_watermark(weir_sql_session *s, sql_script *sc, const sql_stmt *st,
                           const weir_schema *schema)
{
    weir_expr *e = NULL;
    weir_expr_scope scope = {.schema = schema, .zone = s->zone};
    size_t at = 0;
    char msg[512];
    int err = weir_expr_bind(st->wm_ast, sc->text, &scope, -1, NULL, &e, &at, msg, sizeof msg);
    int rt = weir_schema_rowtime(schema);
    if (!err && rt >= 0 && weir_expr_type(e).id != weir_schema_column_type(schema, rt).id) {
        /* Flink's resolver: the watermark is of its rowtime's type root */
        char a[64], b[64];
        weir_type et = weir_expr_type(e), ct = weir_schema_column_type(schema, rt);
        weir_type_format(et, a, sizeof a);
        weir_type_format(ct, b, sizeof b);
        sql_fail(s, sc, st->wm_expr.start, "The watermark declaration's output data type '%s%s' "
                 "is different from the time field's data type '%s'.", a,
                 proctime_call(st->wm_ast) ? " *PROCTIME*" : "", b);
        err = WEIR_EINVAL;
    }
    weir_expr_destroy(e);
    if (err == WEIR_ENOMEM)
        snprintf(s->err, sizeof s->err, "out of memory");
    else if (err && !s->err[0])
        sql_fail(s, sc, (uint32_t)at, "%s", msg);
    return err;
}

/* Whether the watermark expression is SOURCE_WATERMARK(). */
static bool source_watermark(const weir_ast *a)
{
    return a && a->kind == WEIR_AST_CALL && a->nargs == 0 && !a->star &&
           strcasecmp(a->text, "SOURCE_WATERMARK") == 0;
}

/* SOURCE_WATERMARK() takes the watermarks the source emits itself; weir's
 * SQL connectors emit none (rows only), so Flink's planner would keep its
 * declarative function in the plan and fail with this message. */
static int no_source_watermark(weir_sql_session *s, const sql_script *sc, const sql_stmt *st,
                               const char *connector)
{
    sql_fail(s, sc, st->wm_expr.start, "SOURCE_WATERMARK() is a declarative function and "
             "doesn't have concrete implementation. It should only be used in WATERMARK FOR "
             "clause in CREATE TABLE DDL. It must be pushed down into source and the source "
             "should emit system defined watermarks. Please check the source connector "
             "implementation. (Connector '%s' emits no watermarks of its own: write WATERMARK "
             "FOR col AS col - INTERVAL ...)", connector);
    return WEIR_EINVAL;
}

/* PARTITIONED BY's columns: each a column of the table, once. */
static int partition_keys(weir_connector_context *c)
{
    const sql_stmt *st = c->st;
    sql_relation *r = c->r;
    if (!st->npartition_by)
        return 0;
    if (!(r->partition_keys = calloc((size_t)st->npartition_by, sizeof *r->partition_keys)))
        return WEIR_ENOMEM;
    for (int i = 0; i < st->npartition_by; i++) {
        char *name = sql_unquote(c->sc, st->partition_by[i]);
        if (!name)
            return WEIR_ENOMEM;
        int col = weir_schema_column_index(r->schema, name);
        if (col < 0) {
            /* Flink's words (its SqlCreateTableConverter) */
            char cols[1024] = "";
            size_t at = 0;
            for (int k = 0; k < weir_schema_ncolumns(r->schema) && at < sizeof cols; k++)
                at += (size_t)snprintf(cols + at, sizeof cols - at, "%s'%s'", k ? ", " : "",
                                       weir_schema_column_name(r->schema, k));
            sql_fail(c->s, c->sc, st->partition_by[i].start, "Partition column '%s' not defined "
                     "in the table schema. Available columns: [%s]", name, cols);
            return WEIR_EINVAL;
        }
        for (int k = 0; k < i; k++)
            if (r->partition_keys[k] == col) {
                sql_fail(c->s, c->sc, st->partition_by[i].start, "partition column '%s' is "
                         "listed twice", name);
                return WEIR_EINVAL;
            }
        r->partition_keys[r->npartition_keys++] = col;
    }
    return 0;
}


/* ---- computed columns ------------------------------------------------------------------ */

static bool has_computed(const sql_stmt *st)
{
    for (int i = 0; i < st->ncols; i++)
        if (st->cols[i].computed)
            return true;
    return false;
}

/* Whether `a` is PROCTIME(): the column is the processing-time attribute. */
static bool proctime_call(const weir_ast *a)
{
    return a && a->kind == WEIR_AST_CALL && a->nargs == 0 && !a->star &&
           strcasecmp(a->text, "PROCTIME") == 0;
}

/* The declared column named `name` (computed or not), or -1. */
static int declared_index(sql_script *sc, const sql_stmt *st, const char *name)
{
    for (int i = 0; i < st->ncols; i++) {
        char *n = sql_unquote(sc, st->cols[i].name);
        if (n && strcmp(n, name) == 0)
            return i;
    }
    return -1;
}

/* The first name in `a` that is a computed column's, or NULL: a computed
 * column reads the physical and metadata columns only (Flink validates its
 * expression against those), so one naming another, or itself, is
 * refused. */
static const weir_ast *computed_name_in(sql_script *sc, const sql_stmt *st, const weir_ast *a)
{
    if (!a)
        return NULL;
    if (a->kind == WEIR_AST_NAME && !a->qualifier) {
        int i = declared_index(sc, st, a->text);
        if (i >= 0 && st->cols[i].computed)
            return a;
    }
    const weir_ast *x = computed_name_in(sc, st, a->a);
    if (!x)
        x = computed_name_in(sc, st, a->b);
    for (int k = 0; !x && k < a->nargs; k++)
        x = computed_name_in(sc, st, a->args[k]);
    return x;
}

/* `a` with each name of a computed column replaced by the column's
 * expression (its tree; the formatter parenthesizes it where needed): the
 * watermark as the source runs it over its rows, as Flink pushes a
 * computed rowtime's watermark into the scan. NULL when out of memory. */
static const weir_ast *inline_computed(sql_script *sc, const sql_stmt *st, weir_ast_arena **arena,
                                       const weir_ast *a)
{
    if (!a)
        return NULL;
    if (a->kind == WEIR_AST_NAME && !a->qualifier) {
        int i = declared_index(sc, st, a->text);
        return i >= 0 && st->cols[i].computed ? st->cols[i].expr_ast : a;
    }
    weir_ast *n = weir_ast_new(arena, a->kind, NULL, a->start, a->end);
    if (!n)
        return NULL;
    *n = *a; /* text, qualifier shared */
    if ((a->a && !(n->a = (weir_ast *)inline_computed(sc, st, arena, a->a))) ||
        (a->b && !(n->b = (weir_ast *)inline_computed(sc, st, arena, a->b))))
        return NULL;
    if (a->nargs) {
        n->args = sql_arena_alloc(&sc->arena, (size_t)a->nargs * sizeof *n->args);
        if (!n->args)
            return NULL;
        for (int k = 0; k < a->nargs; k++)
            if (!(n->args[k] = (weir_ast *)inline_computed(sc, st, arena, a->args[k])))
                return NULL;
    }
    return n;
}

/* The schema the computed columns' expressions read: the physical and
 * metadata columns, made again as the table's are (a second builder, its
 * columns through the connector's hooks). */
static int source_columns(weir_connector_context *c, weir_schema **out)
{
    weir_schema_builder *b = weir_schema_builder_create(c->r->name);
    if (!b)
        return WEIR_ENOMEM;
    if (c->s->string_capacity)
        weir_schema_builder_string_capacity(b, c->s->string_capacity);
    if (c->s->collection_capacity)
        weir_schema_builder_collection_capacity(b, c->s->collection_capacity);
    int err = table_columns(c, b);
    if (err) {
        weir_schema_builder_destroy(b);
        return err;
    }
    char why[512];
    if (weir_schema_build(b, out, why, sizeof why)) {
        sql_fail(c->s, c->sc, c->st->name.start, "%s", why);
        return WEIR_EINVAL;
    }
    return 0;
}

/* Each computed column's expression bound against the source's columns:
 * its type into types[i] (for declared column i), its errors at their
 * place. */
static int bind_computed(weir_connector_context *c, const weir_schema *src, weir_type *types)
{
    const sql_stmt *st = c->st;
    for (int i = 0; i < st->ncols; i++) {
        const sql_column_def *d = &st->cols[i];
        if (!d->computed)
            continue;
        const weir_ast *other = computed_name_in(c->sc, st, d->expr_ast);
        if (other) {
            /* Calcite's words, as Flink's DDL reports it */
            sql_fail(c->s, c->sc, other->start, "Column '%s' not found in any table (a "
                     "computed column reads the table's physical and metadata columns, not "
                     "another computed column)", other->text);
            return WEIR_EINVAL;
        }
        weir_expr *e = NULL;
        weir_expr_scope scope = {.schema = src, .zone = c->s->zone};
        size_t at = 0;
        char msg[512];
        int err = weir_expr_bind(d->expr_ast, c->sc->text, &scope, -1, NULL, &e, &at, msg,
                                 sizeof msg);
        if (err == WEIR_ENOMEM)
            return err;
        if (err) {
            sql_fail(c->s, c->sc, (uint32_t)at, "%s", msg);
            return err;
        }
        types[i] = weir_expr_type(e);
        weir_expr_destroy(e);
    }
    return 0;
}

/* The table as declared (r->declared): every column in its order, the
 * computed ones of their expressions' types, the primary key, the
 * WATERMARK (run after the Calc that computes the columns, or, when it ran
 * at the source already, `in_source`) and the processing-time attribute. */
static int declared_schema(weir_connector_context *c, const weir_schema *src,
                           const weir_type *types, bool in_source)
{
    weir_sql_session *s = c->s;
    sql_script *sc = c->sc;
    const sql_stmt *st = c->st;
    sql_relation *r = c->r;
    if (!(r->declared_from = calloc((size_t)st->ncols, sizeof *r->declared_from)) ||
        !(r->computed = calloc((size_t)st->ncols, sizeof *r->computed)))
        return WEIR_ENOMEM;
    weir_schema_builder *b = weir_schema_builder_create(r->name);
    if (!b)
        return WEIR_ENOMEM;
    if (s->string_capacity)
        weir_schema_builder_string_capacity(b, s->string_capacity);
    if (s->collection_capacity)
        weir_schema_builder_collection_capacity(b, s->collection_capacity);
    const char *proc = NULL;
    for (int i = 0; i < st->ncols; i++) {
        const sql_column_def *d = &st->cols[i];
        char *name = sql_unquote(sc, d->name);
        if (!name) {
            weir_schema_builder_destroy(b);
            return WEIR_ENOMEM;
        }
        int from = d->computed ? -1 : weir_schema_column_index(src, name);
        r->declared_from[i] = from;
        r->computed[i] = d->computed ? d->expr_ast : NULL;
        if (d->computed && proctime_call(d->expr_ast))
            proc = name;
        weir_type t = d->computed ? types[i] : weir_schema_column_type(src, from);
        if (weir_schema_column(b, name, t)) {
            char why[512];
            weir_schema_build(b, &(weir_schema *){NULL}, why, sizeof why);
            sql_fail(s, sc, d->name.start, "%s", why);
            return WEIR_EINVAL;
        }
    }
    int err = st->npk ? primary_key(sc, st, b) : 0;
    if (!err && st->wm_col.len) {
        char *col = sql_unquote(sc, st->wm_col), *expr = sql_span_text(sc, st->wm_expr);
        err = !col || !expr ? WEIR_ENOMEM : weir_schema_watermark(b, col, expr);
        if (!err && r->wm_options)
            err = weir_schema_watermark_emit(b, r->wm_on_event, r->wm_idle_ms);
        if (!err && in_source)
            err = weir_schema_watermark_in_source(b);
    }
    if (!err && proc)
        err = weir_schema_proctime_attribute(b, proc);
    char why[512];
    if (err == WEIR_ENOMEM) {
        weir_schema_builder_destroy(b);
        return err;
    }
    if (weir_schema_build(b, &r->declared, why, sizeof why)) {
        sql_fail(s, sc, st->wm_col.len && (strstr(why, "watermark") || strstr(why, "Watermark"))
                            ? st->wm_col.start
                            : st->name.start,
                 "%s", why);
        return WEIR_EINVAL;
    }
    return 0;
}

/* WATERMARK FOR a column that is none: Flink's message (its DDL's
 * MergeTableLikeUtil), with the columns there are. */
static int unknown_rowtime(weir_sql_session *s, sql_script *sc, const sql_stmt *st,
                           const char *col)
{
    char cols[1024] = "";
    size_t len = 0;
    for (int k = 0; k < st->ncols; k++) {
        char *n = sql_unquote(sc, st->cols[k].name);
        if (!n)
            return WEIR_ENOMEM;
        weir__append(cols, sizeof cols, &len, "%s'%s'", k ? ", " : "", n);
    }
    sql_fail(s, sc, st->wm_col.start, "The rowtime attribute field '%s' is not defined in the "
             "table schema. Available fields: [%s]", col, cols);
    return WEIR_EINVAL;
}

static int create_table(weir_sql_session *s, sql_script *sc, const sql_stmt *st, sql_relation *r)
{
    weir_connector_context c = {.s = s, .sc = sc, .st = st, .r = r};
    const char *conn = weir_connector_option(&c, "connector");
    if (!conn) {
        char names[512];
        weir_connector_names("', '", names, sizeof names);
        sql_fail(s, sc, st->name.start, "table %s has no 'connector' option (WITH "
                 "('connector' = '%s', ...))", r->name, names);
        return WEIR_EINVAL;
    }
    r->factory = weir_connector_find(conn);
    if (!r->factory) {
        char names[512];
        weir_connector_names(" ", names, sizeof names);
        return weir_connector_fail(&c, "connector", "Could not find any factory for identifier "
                                   "'%s'. Available factory identifiers are: %s%s", conn, names,
                                   strcmp(conn, "filesystem") == 0
                                       ? " (a program registers the filesystem connector: "
                                         "weir_file_register_connectors, weir/file_source.h)"
                                       : "");
    }
    r->sink_kinds = r->factory->sink_kinds;
    r->changelog_mode = WEIR_CHANGELOG_INSERT_ONLY;
    weir_schema_builder *b = weir_schema_builder_create(r->name);
    if (!b)
        return WEIR_ENOMEM;
    if (s->string_capacity)
        weir_schema_builder_string_capacity(b, s->string_capacity);
    if (s->collection_capacity)
        weir_schema_builder_collection_capacity(b, s->collection_capacity);
    char *wm_col = NULL, *wm_expr = NULL;
    bool computed = has_computed(st), wm_on_source = false;
    weir_schema *src = NULL;
    weir_type *types = NULL;
    int err = table_columns(&c, b);
    if (!err && computed) {
        /* the computed columns' expressions, bound against the source's
         * columns: their types and errors */
        if (!(types = calloc((size_t)st->ncols, sizeof *types)))
            err = WEIR_ENOMEM;
        else if (!(err = source_columns(&c, &src)))
            err = bind_computed(&c, src, types);
        for (int k = 0; !err && k < st->npk; k++) {
            char *key = sql_unquote(sc, st->pk[k]);
            int i = key ? declared_index(sc, st, key) : -1;
            if (!key) {
                err = WEIR_ENOMEM;
            } else if (i >= 0 && st->cols[i].computed) {
                sql_fail(s, sc, st->pk[k].start, "Invalid primary key of table '%s'. Column "
                         "'%s' is not a physical column.", r->name, key);
                err = WEIR_EINVAL;
            }
        }
    }
    if (!err && st->npk)
        err = primary_key(sc, st, b);
    if (!err && st->wm_col.len) {
        wm_col = sql_unquote(sc, st->wm_col);
        wm_expr = sql_span_text(sc, st->wm_expr);
        int rt = wm_col ? declared_index(sc, st, wm_col) : -1;
        if (!wm_col || !wm_expr)
            err = WEIR_ENOMEM;
        else if (rt < 0)
            err = unknown_rowtime(s, sc, st, wm_col);
        else if (computed && st->cols[rt].computed && proctime_call(st->cols[rt].expr_ast)) {
            sql_fail(s, sc, st->wm_col.start, "A watermark can not be defined for a "
                     "processing-time attribute.");
            err = WEIR_EINVAL;
        } else if (source_watermark(st->wm_ast) && !r->factory->source_watermarks)
            err = no_source_watermark(s, sc, st, conn);
        else if (source_watermark(st->wm_ast) && computed && st->cols[rt].computed) {
            sql_fail(s, sc, st->wm_expr.start, "SOURCE_WATERMARK() takes the source's own "
                     "watermarks, of its own timestamps: the rowtime '%s' is computed after "
                     "the source", wm_col);
            err = WEIR_EINVAL;
        } else if (!computed || source_watermark(st->wm_ast) ||
                   (!st->cols[rt].computed && !computed_name_in(sc, st, st->wm_ast))) {
            /* a physical rowtime whose watermark reads no computed column:
             * at the source, as without computed columns (the connector
             * sees its rowtime: 'scan.speed' paces by it) */
            err = weir_schema_watermark(b, wm_col, wm_expr);
            wm_on_source = true;
        } else if (sql_source_watermarked(r->factory)) {
            /* the source runs it over its rows: the computed columns'
             * expressions in place of their names, a computed rowtime
             * then set by the Calc behind it */
            weir_ast_arena *arena = NULL;
            const weir_ast *in = inline_computed(sc, st, &arena, st->wm_ast);
            char text[4096];
            int len = in ? weir_ast_format(in, text, sizeof text) : -1;
            if (!in)
                err = WEIR_ENOMEM;
            else if (len < 0 || (size_t)len >= sizeof text)
                err = WEIR_EINVAL;
            else
                err = weir_schema_watermark(b, st->cols[rt].computed ? NULL : wm_col, text);
            weir_ast_arena_free(&arena);
            wm_on_source = true;
        }
        /* a source that runs the expression itself, per partition */
        bool in_source = !err && wm_on_source && !source_watermark(st->wm_ast) &&
                         sql_source_watermarked(r->factory);
        if (in_source)
            err = weir_schema_watermark_in_source(b);
    }
    if (!err)
        err = watermark_options(&c, b, wm_on_source);
    if (!err)
        err = alignment_options(&c, r);
    int64_t par = 0;
    if (!err && r->factory->sink)
        err = weir_connector_option_int(&c, "sink.parallelism", 1, 1024, &par);
    r->sink_parallelism = (int)par;
    if (err && s->err[0]) {
        weir_schema_builder_destroy(b);
        weir_schema_destroy(src);
        free(types);
        return err;
    }
    char why[512];
    if (weir_schema_build(b, &r->schema, why, sizeof why)) {
        sql_fail(s, sc, st->wm_col.len && strstr(why, "watermark") ? st->wm_col.start
                                                                   : st->name.start,
                 "%s", why);
        weir_schema_destroy(src);
        free(types);
        return WEIR_EINVAL;
    }
    if (computed) {
        /* the watermark ran at the source (its WatermarkAssigner, or in
         * it): none behind the Calc */
        err = declared_schema(&c, src, types, wm_on_source && !source_watermark(st->wm_ast));
        weir_schema_destroy(src);
        free(types);
        if (err)
            return err;
    }
    if (wm_expr && (err = check_watermark(s, sc, st, r->declared ? r->declared : r->schema)))
        return err;
    if ((err = metadata_columns(&c)))
        return err;
    if ((err = partition_keys(&c)))
        return err;
    if ((err = r->factory->validate(&c, &r->state)))
        return s->err[0] ? err : WEIR_ENOMEM;
    if (r->npartition_keys && !c.partitions_read) {
        sql_fail(s, sc, st->partition_by[0].start, "Table '%s' is a partitioned table, but "
                 "connector '%s' does not support PARTITIONED BY", r->name, r->factory->name);
        return WEIR_EINVAL;
    }
    if ((err = unused_options(&c)))
        return err;
    if (r->changelog_mode == WEIR_CHANGELOG_UPSERT && !st->npk) {
        sql_fail(s, sc, st->name.start, "an upsert table needs a PRIMARY KEY (...) NOT ENFORCED");
        return WEIR_EINVAL;
    }
    return 0;
}

int sql_catalog_create(weir_sql_session *s, sql_script *sc, const sql_stmt *st)
{
    char *name = sql_unquote(sc, st->name);
    if (!name)
        return WEIR_ENOMEM;
    if (strlen(name) >= SQL_NAME_MAX) {
        sql_fail(s, sc, st->name.start, "the name '%.40s...' is longer than %d bytes", name,
                 SQL_NAME_MAX - 1);
        return WEIR_EINVAL;
    }
    if (sql_catalog_find(s, name) || weir_table_env_view(s->env, name)) {
        sql_fail(s, sc, st->name.start, "a table or view named '%s' exists already", name);
        return WEIR_EINVAL;
    }
    sql_relation *r = calloc(1, sizeof *r);
    sql_relation **v = realloc(s->rels, (size_t)(s->nrels + 1) * sizeof *v);
    if (!r || !v) {
        free(r);
        if (v)
            s->rels = v;
        return WEIR_ENOMEM;
    }
    s->rels = v;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->script = sc;
    r->stmt = st;
    int err = 0;
    if (st->kind == SQL_STMT_CREATE_VIEW)
        r->view = true;
    else
        err = create_table(s, sc, st, r);
    if (err) {
        sql_catalog_free(r);
        return err;
    }
    s->rels[s->nrels++] = r;
    return 0;
}

bool sql_catalog_is_source(const sql_relation *r)
{
    return r->view || r->factory->source;
}

bool sql_catalog_is_sink(const sql_relation *r)
{
    return !r->view && r->factory->sink;
}

const char *sql_catalog_connector_name(const sql_relation *r)
{
    return r->view ? "view" : r->factory->name;
}

void sql_catalog_free(sql_relation *r)
{
    if (r->state && r->factory && r->factory->free_state)
        r->factory->free_state(r->state);
    weir_schema_destroy(r->schema);
    weir_schema_destroy(r->declared);
    free(r->declared_from);
    free(r->computed);
    free(r->partition_keys);
    free(r->meta);
    free(r);
}

/* The Calc behind a table's source that computes its computed columns
 * (as Flink's planner puts a projection after the scan): each declared
 * column, read (a name) or computed (its expression), bound against the
 * source's columns. NULL with the job's error, or s->err. */
static weir_table *computed_calc(weir_sql_session *s, const sql_relation *r, weir_table *t)
{
    const weir_schema *src = weir_table_schema(t);
    int n = weir_schema_ncolumns(r->declared);
    weir_expr **items = calloc((size_t)n, sizeof *items);
    weir_ast_arena *arena = NULL;
    if (!items) {
        snprintf(s->err, sizeof s->err, "out of memory");
        return NULL;
    }
    int err = 0;
    for (int i = 0; !err && i < n; i++) {
        const char *name = weir_schema_column_name(r->declared, i);
        const weir_ast *a = r->computed[i];
        bool read = !a;
        if (read && !(a = weir_ast_new(&arena, WEIR_AST_NAME, name, 0, 0))) {
            err = WEIR_ENOMEM;
            break;
        }
        weir_expr_scope scope = {.schema = src, .zone = weir_table_env_config(
                                                       weir_table_get_env(t))->time_zone};
        size_t at = 0;
        char msg[512];
        err = weir_expr_bind(a, read ? NULL : r->script->text, &scope, -1, read ? NULL : name,
                             &items[i], &at, msg, sizeof msg);
        if (err && err != WEIR_ENOMEM)
            sql_fail(s, r->script, (uint32_t)at, "%s", msg);
    }
    weir_ast_arena_free(&arena);
    if (err) {
        if (err == WEIR_ENOMEM)
            snprintf(s->err, sizeof s->err, "out of memory");
        for (int i = 0; i < n; i++)
            weir_expr_destroy(items[i]);
        free(items);
        return NULL;
    }
    weir_table *out = weir_table_computed_columns(t, items, n, r->declared);
    free(items);
    return out;
}

weir_table *sql_catalog_open(weir_sql_session *s, weir_job *job, weir_table_env *env,
                             sql_relation *r, const sql_script *sc, uint32_t at)
{
    if (r->open_job == s->job_seq && r->opened)
        return r->opened;
    weir_watermark_strategy wm;
    bool in_source = sql_source_watermarked(r->factory) &&
                     weir_schema_watermark_strategy(r->schema, &wm) == 0;
    /* Flink's 'table.exec.source.idle-timeout' (the env's), for a table
     * without a 'scan.watermark.idle-timeout' of its own */
    const weir_table_config *tc = weir_table_env_config(env);
    if (in_source && wm.idleness_ms == 0 && tc)
        wm.idleness_ms = tc->source_idle_timeout_ms;
    weir_stream *src = in_source ? sql_source_watermarked(r->factory)(r->state, r->schema, job,
                                                                      r->name, &wm)
                                 : r->factory->source(r->state, r->schema, job, r->name);
    if (src && r->align_set) {
        weir_watermark_alignment al = {.group = r->align_group[0] ? r->align_group : NULL,
                                       .max_drift_ms = r->align_drift_ms,
                                       .update_interval_ms = r->align_update_ms};
        src = weir_source_align_watermarks(src, &al);
    }
    weir_table *t = r->changelog_mode && r->changelog_mode != WEIR_CHANGELOG_INSERT_ONLY
                        ? weir_table_from_changelog_stream(env, src, r->schema, r->changelog_mode)
                        : weir_table_from_stream(env, src, r->schema);
    /* An upsert table is normalized at its source, where Flink's planner
     * puts ChangelogNormalize: on its primary key, before any projection
     * can drop it, so that everything above reads a retracting changelog
     * (-U rows made, a -D with the whole row). */
    if (t && r->changelog_mode == WEIR_CHANGELOG_UPSERT)
        t = weir_table_normalize(t);
    if (t && r->declared && !(t = computed_calc(s, r, t)))
        return s->err[0] ? NULL : sql_fail(s, sc, at, "table %s: %s", r->name, sql_job_message(job));
    if (!t)
        return sql_fail(s, sc, at, "table %s: %s", r->name, sql_job_message(job));
    r->open_job = s->job_seq;
    r->opened = t;
    return t;
}
