/* sql_catalog.c — CREATE TABLE and CREATE VIEW: the session's catalog, and
 * its tables' connectors (Flink's WITH options) made into sources of a job.
 *
 *   'connector'='datagen'     weir's generator (weir/generator.h): columns
 *                             named after its event's fields
 *   'connector'='filesystem'  weir_source_file (weir/file_source.h): JSON
 *                             lines or CSV, a folder being one partition a file
 *   'connector'='print'       a sink: rows printed as Flink's print connector
 *   'connector'='blackhole'   a sink: rows discarded
 *
 * Everything a table's definition can get wrong is found here, at CREATE
 * TABLE, with the line and column of what is wrong; opening a table in a
 * job then only makes its source. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql_internal.h"
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

/* ---- options ---------------------------------------------------------------------- */

typedef struct options {
    const sql_stmt *st;
    bool used[256];
} options;

static const sql_option *option(options *o, const char *key)
{
    for (int i = 0; i < o->st->nopts && i < 256; i++)
        if (strcmp(o->st->opts[i].key, key) == 0) {
            o->used[i] = true;
            return &o->st->opts[i];
        }
    return NULL;
}

static int bad_option(weir_sql_session *s, const sql_script *sc, const sql_option *op,
                      const char *what)
{
    sql_fail(s, sc, op->at.start, "option '%s'='%s': %s", op->key, op->value, what);
    return WEIR_EINVAL;
}

static int opt_duration(weir_sql_session *s, const sql_script *sc, options *o, const char *key,
                        int64_t *ms)
{
    const sql_option *op = option(o, key);
    if (op && sql_duration_ms(op->value, ms))
        return bad_option(s, sc, op, "not a duration ('200 ms', '2 s', '1 min')");
    return 0;
}

/* A number option: an integer in ilo..ihi into *n when n is given (read
 * exactly, as an integer), else any number in lo..hi into *d. */
static int opt_number(weir_sql_session *s, const sql_script *sc, options *o, const char *key,
                      double lo, double hi, double *d, int64_t ilo, int64_t ihi, int64_t *n)
{
    const sql_option *op = option(o, key);
    if (!op)
        return 0;
    char *end;
    errno = 0;
    long long i = 0;
    double x = 0;
    if (n)
        i = strtoll(op->value, &end, 10);
    else
        x = strtod(op->value, &end);
    bool ok = end != op->value && !*end && !errno &&
              (n ? i >= ilo && i <= ihi : x >= lo && x <= hi);
    if (!ok) {
        char why[96];
        if (n)
            snprintf(why, sizeof why, "not an integer in %lld..%lld", (long long)ilo,
                     (long long)ihi);
        else
            snprintf(why, sizeof why, "not a number in %g..%g", lo, hi);
        return bad_option(s, sc, op, why);
    }
    if (n)
        *n = i;
    else
        *d = x;
    return 0;
}

static int opt_double(weir_sql_session *s, const sql_script *sc, options *o, const char *key,
                      double lo, double hi, double *v)
{
    return opt_number(s, sc, o, key, lo, hi, v, 0, 0, NULL);
}

static int opt_int(weir_sql_session *s, const sql_script *sc, options *o, const char *key,
                   int64_t lo, int64_t hi, int64_t *v)
{
    return opt_number(s, sc, o, key, 0, 0, NULL, lo, hi, v);
}

static int opt_bool(weir_sql_session *s, const sql_script *sc, options *o, const char *key, bool *v)
{
    const sql_option *op = option(o, key);
    if (!op)
        return 0;
    if (strcasecmp(op->value, "true") == 0)
        *v = true;
    else if (strcasecmp(op->value, "false") == 0)
        *v = false;
    else
        return bad_option(s, sc, op, "expected 'true' or 'false'");
    return 0;
}

/* Every option the connector did not read is unknown. */
static int unused_options(weir_sql_session *s, const sql_script *sc, options *o, const char *conn,
                          const char *known)
{
    for (int i = 0; i < o->st->nopts && i < 256; i++)
        if (!o->used[i]) {
            sql_fail(s, sc, o->st->opts[i].at.start, "unknown option '%s' for connector '%s' "
                     "(it takes %s)", o->st->opts[i].key, conn, known);
            return WEIR_EINVAL;
        }
    return 0;
}

/* ---- datagen ----------------------------------------------------------------------- */

typedef struct gen_field {
    const char *name;
    size_t offset, size;
    weir_type_id id, alt; /* the types the column may be declared as */
} gen_field;

static const gen_field gen_fields[] = {
    {"key", offsetof(weir_gen_event, key), 8, WEIR_TYPE_BIGINT, WEIR_TYPE_BIGINT},
    {"value", offsetof(weir_gen_event, value), 8, WEIR_TYPE_BIGINT, WEIR_TYPE_BIGINT},
    {"ts", offsetof(weir_gen_event, timestamp), 8, WEIR_TYPE_TIMESTAMP, WEIR_TYPE_TIMESTAMP_LTZ},
    {"partition_id", offsetof(weir_gen_event, partition), 4, WEIR_TYPE_INT, WEIR_TYPE_INT},
    {"late", offsetof(weir_gen_event, late), 4, WEIR_TYPE_INT, WEIR_TYPE_INT},
    {"seq", offsetof(weir_gen_event, seq), 8, WEIR_TYPE_BIGINT, WEIR_TYPE_BIGINT},
};
enum { NGEN_FIELDS = sizeof gen_fields / sizeof *gen_fields };

#define DATAGEN_OPTIONS                                                                    \
    "'rows-per-second', 'number-of-rows', 'duration', 'partitions', 'keys', 'key-skew', "  \
    "'zipf-s', 'disorder', 'late-fraction', 'late-by', 'start', 'pace', 'speed', 'seed', " \
    "'idle-partitions', 'scan.watermark.emit.strategy', 'scan.watermark.idle-timeout', "   \
    "'scan.watermark.alignment.group', 'scan.watermark.alignment.max-drift', "             \
    "'scan.watermark.alignment.update-interval'"

static int datagen_column(weir_sql_session *s, const sql_script *sc, weir_schema_builder *b,
                          const sql_column_def *c, const char *name, weir_type type)
{
    for (int f = 0; f < NGEN_FIELDS; f++) {
        const gen_field *g = &gen_fields[f];
        if (strcmp(name, g->name) != 0)
            continue;
        if (type.id != g->id && type.id != g->alt) {
            char want[32];
            weir_type_format((weir_type){.id = g->id}, want, sizeof want);
            sql_fail(s, sc, c->type.start, "datagen column '%s' is %s%s%s", name, want,
                     g->alt != g->id ? " or " : "", g->alt != g->id ? "TIMESTAMP_LTZ(3)" : "");
            return WEIR_EINVAL;
        }
        return weir_schema_column_at(b, name, type, g->offset, g->size) ? WEIR_EINVAL : 0;
    }
    sql_fail(s, sc, c->name.start, "datagen makes the columns key BIGINT, value BIGINT, ts "
             "TIMESTAMP(3), partition_id INT, late INT and seq BIGINT; not '%s'", name);
    return WEIR_EINVAL;
}

/* 'idle-partitions'='P@FROM-TO, ...': partition P emits nothing for the
 * slots due FROM..TO after 'start' (durations; no TO: for ever). */
static int datagen_idle(weir_sql_session *s, const sql_script *sc, const sql_option *op,
                        weir_generator_config *g)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", op->value);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        char *at = strchr(item, '@'), *dash = at ? strchr(at, '-') : NULL;
        char *end;
        long p = strtol(item, &end, 10);
        int64_t from, to = WEIR_TS_MAX;
        if (!at || !dash || end == item || (end != at && !isspace((unsigned char)*end)) || p < 0)
            return bad_option(s, sc, op, "expected 'PARTITION@FROM-TO, ...' (durations after "
                              "'start'; TO may be left out: for ever)");
        *dash = '\0';
        if (sql_duration_ms(at + 1, &from))
            return bad_option(s, sc, op, "an idle span's FROM is not a duration");
        char *t = dash + 1;
        while (isspace((unsigned char)*t))
            t++;
        if (*t && sql_duration_ms(t, &to))
            return bad_option(s, sc, op, "an idle span's TO is not a duration");
        if (g->nidle == WEIR_GEN_MAX_IDLE)
            return bad_option(s, sc, op, "more idle spans than the generator takes (16)");
        g->idle[g->nidle++] = (weir_gen_idle){.partition = (int)p, .from_ms = g->start_ms + from,
                                              .to_ms = to == WEIR_TS_MAX ? to : g->start_ms + to};
    }
    return 0;
}

static int datagen_options(weir_sql_session *s, const sql_script *sc, options *o,
                           sql_relation *r)
{
    weir_generator_config *g = &r->gen;
    memset(g, 0, sizeof *g);
    g->name = r->name;
    g->rate = 10;
    int64_t v = 0;
    int err = 0;
    if ((err = opt_double(s, sc, o, "rows-per-second", 1e-9, 1e9, &g->rate)) ||
        (err = opt_int(s, sc, o, "number-of-rows", 1, INT64_MAX, &g->count)) ||
        (err = opt_duration(s, sc, o, "duration", &g->duration_ms)))
        return err;
    v = 0;
    if ((err = opt_int(s, sc, o, "partitions", 1, 256, &v)))
        return err;
    g->partitions = (int)v;
    if ((err = opt_int(s, sc, o, "keys", 1, INT64_MAX, &g->keys)) ||
        (err = opt_double(s, sc, o, "zipf-s", 0.01, 100, &g->zipf_s)) ||
        (err = opt_duration(s, sc, o, "disorder", &g->disorder_ms)) ||
        (err = opt_double(s, sc, o, "late-fraction", 0, 1, &g->late_fraction)) ||
        (err = opt_duration(s, sc, o, "late-by", &g->late_ms)) ||
        (err = opt_double(s, sc, o, "speed", 1e-6, 1e9, &g->speed)))
        return err;
    v = 0;
    if ((err = opt_int(s, sc, o, "seed", 0, INT64_MAX, &v)))
        return err;
    g->seed = (uint64_t)v;
    const sql_option *op = option(o, "key-skew");
    if (op) {
        if (strcmp(op->value, "zipf") == 0)
            g->skew = WEIR_GEN_ZIPF;
        else if (strcmp(op->value, "uniform") != 0)
            return bad_option(s, sc, op, "expected 'uniform' or 'zipf'");
    }
    if ((op = option(o, "start"))) {
        char *end;
        long long ms = strtoll(op->value, &end, 10);
        if (end != op->value && !*end)
            g->start_ms = ms;
        else if (weir_timestamp_parse(op->value, strlen(op->value), &g->start_ms))
            return bad_option(s, sc, op, "expected a timestamp 'YYYY-MM-DD HH:MM:SS[.fff]' (UTC) "
                              "or milliseconds");
    }
    if ((op = option(o, "pace"))) {
        if (strcmp(op->value, "paced") == 0)
            g->pace = WEIR_GEN_PACED;
        else if (strcmp(op->value, "fast") != 0)
            return bad_option(s, sc, op, "expected 'fast' or 'paced'");
    }
    if ((op = option(o, "idle-partitions")) && (err = datagen_idle(s, sc, op, g)))
        return err;
    if (!g->count && !g->duration_ms) {
        sql_fail(s, sc, o->st->name.start, "a datagen table is bounded here: give "
                 "'number-of-rows' (per partition) or 'duration' (of event time)");
        return WEIR_EINVAL;
    }
    char why[256];
    int parts = g->partitions ? g->partitions : (s->parallelism ? s->parallelism : 1);
    if (weir_generator_check(g, parts, why, sizeof why)) {
        sql_fail(s, sc, o->st->name.start, "datagen table %s: %s", r->name, why);
        return WEIR_EINVAL;
    }
    return 0;
}

/* ---- filesystem --------------------------------------------------------------------- */

#define FILESYSTEM_OPTIONS                                                            \
    "'path', 'format', 'json.ignore-parse-errors', 'csv.ignore-parse-errors', "       \
    "'csv.field-delimiter', 'changelog-mode', 'changelog.kind-field', 'scan.speed', " \
    "'scan.watermark.emit.strategy', 'scan.watermark.idle-timeout', "                 \
    "'scan.watermark.alignment.group', 'scan.watermark.alignment.max-drift', "        \
    "'scan.watermark.alignment.update-interval'"

static int filesystem_options(weir_sql_session *s, const sql_script *sc, options *o,
                              sql_relation *r)
{
    const sql_option *path = option(o, "path"), *format = option(o, "format");
    if (!path || !format) {
        sql_fail(s, sc, o->st->name.start, "a filesystem table needs 'path' and 'format' "
                 "('json' or 'csv')");
        return WEIR_EINVAL;
    }
    int n = path->value[0] == '/' || strcmp(s->base_dir, ".") == 0
                ? snprintf(r->file_path, sizeof r->file_path, "%s", path->value)
                : snprintf(r->file_path, sizeof r->file_path, "%s/%s", s->base_dir, path->value);
    if (n < 0 || (size_t)n >= sizeof r->file_path)
        return bad_option(s, sc, path, "the path is too long");
    if (strcmp(format->value, "csv") == 0)
        r->file_csv = true;
    else if (strcmp(format->value, "json") != 0)
        return bad_option(s, sc, format, "expected 'json' or 'csv'");
    int err = opt_bool(s, sc, o, r->file_csv ? "csv.ignore-parse-errors" : "json.ignore-parse-errors",
                       &r->ignore_parse_errors);
    if (err)
        return err;
    const sql_option *op = option(o, "csv.field-delimiter");
    if (op) {
        if (!r->file_csv)
            return bad_option(s, sc, op, "a CSV option on a JSON table");
        const char *d = op->value;
        if (strcmp(d, "\\t") == 0)
            r->csv_delimiter = '\t';
        else if (strlen(d) == 1 && d[0] != '"' && d[0] != '\n' && d[0] != '\r')
            r->csv_delimiter = d[0];
        else
            return bad_option(s, sc, op, "expected one character (or '\\t')");
    }
    r->changelog_mode = WEIR_CHANGELOG_INSERT_ONLY;
    if ((op = option(o, "changelog-mode"))) {
        if (strcmp(op->value, "upsert") == 0)
            r->changelog_mode = WEIR_CHANGELOG_UPSERT;
        else if (strcmp(op->value, "all") == 0)
            r->changelog_mode = WEIR_CHANGELOG_ALL;
        else if (strcmp(op->value, "insert-only") != 0)
            return bad_option(s, sc, op, "expected 'insert-only', 'upsert' or 'all'");
    }
    if ((op = option(o, "changelog.kind-field"))) {
        if (snprintf(r->kind_field, sizeof r->kind_field, "%s", op->value) >= (int)sizeof r->kind_field ||
            !op->value[0])
            return bad_option(s, sc, op, "expected a field name");
    }
    if (r->changelog_mode != WEIR_CHANGELOG_INSERT_ONLY && !r->kind_field[0]) {
        sql_fail(s, sc, o->st->name.start, "a changelog file needs 'changelog.kind-field': the "
                 "field (JSON) or first column (CSV) holding +I, -U, +U or -D");
        return WEIR_EINVAL;
    }
    return opt_double(s, sc, o, "scan.speed", 1e-6, 1e9, &r->speed);
}

/* ---- print and blackhole ------------------------------------------------------------ */

#define PRINT_OPTIONS "'print-identifier', 'standard-error', 'sink.parallelism'"
#define BLACKHOLE_OPTIONS "no options"

static int sink_options(weir_sql_session *s, const sql_script *sc, options *o, sql_relation *r)
{
    int64_t par = 0;
    int err = opt_int(s, sc, o, "sink.parallelism", 1, 1024, &par);
    if (err)
        return err;
    r->sink_parallelism = (int)par;
    if (r->connector == SQL_CONNECTOR_BLACKHOLE)
        return 0;
    const sql_option *id = option(o, "print-identifier");
    if (id && snprintf(r->print_identifier, sizeof r->print_identifier, "%s", id->value) >=
                  (int)sizeof r->print_identifier)
        return bad_option(s, sc, id, "longer than 127 bytes");
    return opt_bool(s, sc, o, "standard-error", &r->print_stderr);
}

bool sql_catalog_is_source(const sql_relation *r)
{
    return r->view || r->connector == SQL_CONNECTOR_DATAGEN ||
           r->connector == SQL_CONNECTOR_FILESYSTEM;
}

bool sql_catalog_is_sink(const sql_relation *r)
{
    return !r->view && (r->connector == SQL_CONNECTOR_PRINT ||
                        r->connector == SQL_CONNECTOR_BLACKHOLE);
}

const char *sql_catalog_connector_name(const sql_relation *r)
{
    static const char *const names[] = {[SQL_CONNECTOR_DATAGEN] = "datagen",
                                        [SQL_CONNECTOR_FILESYSTEM] = "filesystem",
                                        [SQL_CONNECTOR_PRINT] = "print",
                                        [SQL_CONNECTOR_BLACKHOLE] = "blackhole"};
    return r->view ? "view" : names[r->connector];
}

/* ---- CREATE TABLE ------------------------------------------------------------------- */

/* Flink's watermark alignment options: the source's group, max drift and
 * update interval (weir_source_align_watermarks; without them the source's
 * partitions are aligned by weir's default). */
static int alignment_options(weir_sql_session *s, const sql_script *sc, options *o,
                             sql_relation *r)
{
    const sql_option *group = option(o, "scan.watermark.alignment.group");
    const sql_option *drift = option(o, "scan.watermark.alignment.max-drift");
    const sql_option *every = option(o, "scan.watermark.alignment.update-interval");
    const sql_option *first = group ? group : drift ? drift : every;
    if (!first)
        return 0;
    if (!o->st->wm_col.len) {
        sql_fail(s, sc, first->at.start, "option '%s' needs a WATERMARK FOR ... AS ... in the "
                 "table", first->key);
        return WEIR_EINVAL;
    }
    if (group) {
        size_t len = strlen(group->value);
        if (len < 1 || len > 100 || len >= sizeof r->align_group)
            return bad_option(s, sc, group, "a group name is 1 to 100 bytes");
        memcpy(r->align_group, group->value, len + 1);
    }
    if (drift && (sql_duration_ms(drift->value, &r->align_drift_ms) || r->align_drift_ms <= 0))
        return bad_option(s, sc, drift, "not a duration above 0 ('1 min', '30 s')");
    if (every && (sql_duration_ms(every->value, &r->align_update_ms) || r->align_update_ms <= 0))
        return bad_option(s, sc, every, "not a duration above 0 ('1 s')");
    r->align_set = true;
    return 0;
}

static int watermark_options(weir_sql_session *s, const sql_script *sc, options *o,
                             weir_schema_builder *b)
{
    const sql_option *emit = option(o, "scan.watermark.emit.strategy");
    const sql_option *idle = option(o, "scan.watermark.idle-timeout");
    if (!emit && !idle)
        return 0;
    bool on_event = false;
    int64_t idle_ms = 0;
    if (emit) {
        if (strcmp(emit->value, "on-event") == 0)
            on_event = true;
        else if (strcmp(emit->value, "on-periodic") != 0)
            return bad_option(s, sc, emit, "expected 'on-event' or 'on-periodic'");
    }
    if (idle && (sql_duration_ms(idle->value, &idle_ms) || idle_ms < 0))
        return bad_option(s, sc, idle, "not a duration ('2 s')");
    if (!o->st->wm_col.len) {
        sql_fail(s, sc, (emit ? emit : idle)->at.start, "option '%s' needs a WATERMARK FOR "
                 "... AS ... in the table", (emit ? emit : idle)->key);
        return WEIR_EINVAL;
    }
    return weir_schema_watermark_emit(b, on_event, idle_ms) ? WEIR_EINVAL : 0;
}

static int table_columns(weir_sql_session *s, sql_script *sc, const sql_stmt *st,
                         sql_relation *r, weir_schema_builder *b)
{
    if (r->connector == SQL_CONNECTOR_DATAGEN)
        weir_schema_bind_struct(b, sizeof(weir_gen_event));
    /* each name unquoted once (the script's arena keeps what it is given) */
    char **names = sql_arena_alloc(&sc->arena, ((size_t)st->ncols + 1) * sizeof *names);
    if (!names)
        return WEIR_ENOMEM;
    for (int i = 0; i < st->ncols; i++) {
        const sql_column_def *c = &st->cols[i];
        char *name = names[i] = sql_unquote(sc, c->name), *type_text = sql_span_text(sc, c->type);
        if (!name || !type_text)
            return WEIR_ENOMEM;
        for (int j = 0; j < i; j++) {
            if (strcmp(names[j], name) == 0) {
                sql_fail(s, sc, c->name.start, "column '%s' is declared twice", name);
                return WEIR_EINVAL;
            }
        }
        weir_type type;
        char why[256];
        if (weir_type_parse(type_text, &type, why, sizeof why)) {
            sql_fail(s, sc, c->type.start, "%s", why);
            return WEIR_EINVAL;
        }
        int err = r->connector == SQL_CONNECTOR_DATAGEN
                      ? datagen_column(s, sc, b, c, name, type)
                      : weir_schema_column(b, name, type);
        if (err) {
            if (!s->err[0])
                sql_fail(s, sc, c->name.start, "column '%s' cannot be made", name);
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

/* Binds the watermark expression's tree against the table's columns, for
 * its errors at their place (the schema keeps its text, which the table
 * layer compiles when the source opens). */
static int check_watermark(weir_sql_session *s, sql_script *sc, const sql_stmt *st,
                           const weir_schema *schema)
{
    weir_expr *e = NULL;
    weir_expr_scope scope = {.schema = schema};
    size_t at = 0;
    char msg[512];
    int err = weir_expr_bind(st->wm_ast, sc->text, &scope, -1, NULL, &e, &at, msg, sizeof msg);
    weir_expr_destroy(e);
    if (err == WEIR_ENOMEM)
        snprintf(s->err, sizeof s->err, "out of memory");
    else if (err)
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

static int create_table(weir_sql_session *s, sql_script *sc, const sql_stmt *st, sql_relation *r)
{
    options o = {.st = st};
    const sql_option *conn = option(&o, "connector");
    if (!conn) {
        sql_fail(s, sc, st->name.start, "table %s has no 'connector' option (WITH "
                 "('connector'='datagen' or 'filesystem', ...))", r->name);
        return WEIR_EINVAL;
    }
    static const char *const names[] = {"datagen", "filesystem", "print", "blackhole", NULL};
    static const char *const known[] = {DATAGEN_OPTIONS, FILESYSTEM_OPTIONS, PRINT_OPTIONS,
                                        BLACKHOLE_OPTIONS};
    int c = 0;
    while (names[c] && strcmp(conn->value, names[c]) != 0)
        c++;
    if (!names[c])
        return bad_option(s, sc, conn, "weir has the connectors 'datagen', 'filesystem', "
                          "'print' and 'blackhole'");
    r->connector = (sql_connector)(c + 1);
    int err = r->connector == SQL_CONNECTOR_DATAGEN      ? datagen_options(s, sc, &o, r)
              : r->connector == SQL_CONNECTOR_FILESYSTEM ? filesystem_options(s, sc, &o, r)
                                                         : sink_options(s, sc, &o, r);
    if (err)
        return err;
    weir_schema_builder *b = weir_schema_builder_create(r->name);
    if (!b)
        return WEIR_ENOMEM;
    if (s->string_capacity)
        weir_schema_builder_string_capacity(b, s->string_capacity);
    char *wm_col = NULL, *wm_expr = NULL;
    if (!(err = table_columns(s, sc, st, r, b)) && st->npk)
        err = primary_key(sc, st, b);
    if (!err && st->wm_col.len) {
        wm_col = sql_unquote(sc, st->wm_col);
        wm_expr = sql_span_text(sc, st->wm_expr);
        if (!wm_col || !wm_expr)
            err = WEIR_ENOMEM;
        else if (source_watermark(st->wm_ast))
            err = no_source_watermark(s, sc, st, conn->value);
        else
            err = weir_schema_watermark(b, wm_col, wm_expr);
    }
    if (!err)
        err = watermark_options(s, sc, &o, b);
    if (!err)
        err = alignment_options(s, sc, &o, r);
    if (!err)
        err = unused_options(s, sc, &o, conn->value, known[c]);
    if (err && s->err[0]) {
        weir_schema_builder_destroy(b);
        return err;
    }
    char why[512];
    if (weir_schema_build(b, &r->schema, why, sizeof why)) {
        sql_fail(s, sc, st->wm_col.len && strstr(why, "watermark") ? st->wm_col.start
                                                                   : st->name.start,
                 "%s", why);
        return WEIR_EINVAL;
    }
    if (wm_expr && (err = check_watermark(s, sc, st, r->schema)))
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
        weir_schema_destroy(r->schema);
        free(r);
        return err;
    }
    s->rels[s->nrels++] = r;
    return 0;
}

weir_table *sql_catalog_open(weir_sql_session *s, weir_job *job, weir_table_env *env,
                             sql_relation *r, const sql_script *sc, uint32_t at)
{
    if (r->open_job == s->job_seq && r->opened)
        return r->opened;
    const char *name = r->name;
    weir_stream *src;
    if (r->connector == SQL_CONNECTOR_DATAGEN) {
        weir_generator_config g = r->gen;
        g.name = name;
        src = weir_source_generator(job, &g);
    } else {
        weir_file_source_config fc = {
            .name = name,
            .path = r->file_path,
            .format = r->file_csv ? WEIR_FILE_CSV : WEIR_FILE_JSON,
            .ignore_parse_errors = r->ignore_parse_errors,
            .csv_field_delimiter = r->csv_delimiter,
            .kind_field = r->kind_field[0] ? r->kind_field : NULL,
            .speed = r->speed,
        };
        src = weir_source_file(job, r->schema, &fc);
    }
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
    if (!t)
        return sql_fail(s, sc, at, "table %s: %s", r->name, sql_job_message(job));
    r->open_job = s->job_seq;
    r->opened = t;
    return t;
}
