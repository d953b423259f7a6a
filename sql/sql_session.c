/* sql_session.c — a SQL session (weir/sql.h): statements parsed, then run
 * in order against the session's catalog and settings. Each SELECT is one
 * job: planned (sql_plan.c), its table turned into a changelog stream into a
 * sink of parallelism 1 that prints each row as Flink's Row.toString does
 * (or hands it to the config's callback), run to its end. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "sql_internal.h"
#include "sql_text.h"

int weir_sql_session_create(const weir_sql_config *config, weir_sql_session **out)
{
    *out = NULL;
    sql_connectors_builtin();
    weir_sql_session *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    if (config)
        s->cfg = *config;
    const char *dir = config && config->base_dir ? config->base_dir : ".";
    const char *cap = config && config->capture_path ? config->capture_path : "";
    if (strlen(dir) >= sizeof s->base_dir || strlen(cap) >= sizeof s->capture_path) {
        free(s);
        return WEIR_EINVAL;
    }
    snprintf(s->base_dir, sizeof s->base_dir, "%s", dir);
    snprintf(s->capture_path, sizeof s->capture_path, "%s", cap);
    s->cfg.base_dir = s->base_dir;
    s->cfg.capture_path = s->capture_path[0] ? s->capture_path : NULL;
    s->parallelism = 1;
    s->capture_level = WEIR_DIAG_STANDARD;
    s->clock = WEIR_CLOCK_VIRTUAL;
    if (sql_settings_init(s)) {
        free(s);
        return WEIR_EINVAL;
    }
    *out = s;
    return 0;
}

void weir_sql_session_destroy(weir_sql_session *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nrels; i++)
        sql_catalog_free(s->rels[i]);
    free(s->rels);
    for (int i = 0; i < s->nscripts; i++) {
        free((char *)s->scripts[i]->text);
        sql_script_free(s->scripts[i]);
        free(s->scripts[i]);
    }
    free(s->scripts);
    sql_settings_free(s);
    free(s);
}

_Static_assert(ATOMIC_BOOL_LOCK_FREE == 2 && ATOMIC_POINTER_LOCK_FREE == 2,
               "weir_sql_cancel runs in signal handlers");

void weir_sql_cancel(weir_sql_session *s)
{
    if (!s)
        return;
    atomic_store(&s->cancelled, true);
    weir_job *job = atomic_load(&s->running);
    if (job)
        weir_job_cancel(job);
}

void weir_sql_clear_cancel(weir_sql_session *s)
{
    if (s)
        atomic_store(&s->cancelled, false);
}

const char *weir_sql_error(const weir_sql_session *s)
{
    return s->err;
}

bool weir_sql_error_at_run(const weir_sql_session *s)
{
    return s->run_failed;
}

/* ---- SELECT and EXPLAIN ------------------------------------------------------------------ */

typedef struct result_sink {
    weir_sql_session *s;
    const weir_schema *schema;
    FILE *out;
    /* the errno of a write to `out` that failed (the sink's one thread
     * writes it, the caller reads it after the run): the job's message
     * says why, a closed pipe as a broken pipe */
    int write_errno;
} result_sink;

static int print_row(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    (void)timestamp;
    (void)subtask;
    result_sink *r = arg;
    if (r->s->cfg.on_row)
        return r->s->cfg.on_row(r->schema, elem, r->s->cfg.on_row_arg);
    return sql_print_line(r->out, "", r->schema, elem, WEIR_ROW_STYLE_SQL, r->s->zone,
                          &r->write_errno);
}

/* The capture path of the session's n-th job: PATH, then PATH-2.EXT, ...
 * A PATH that is (through its links) a FIFO or a device, where captures are
 * written in place (weir/outfile.h), takes every job's: /dev/null-2 or
 * /dev/stdout-2 would be a new file among the devices. */
static void capture_name(const weir_sql_session *s, int n, char *out, size_t size)
{
    const char *path = s->capture_path;
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    struct stat st;
    if (n > 1 && stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
        n = 1;
    if (n == 1 || !dot)
        snprintf(out, size, n == 1 ? "%s" : "%s-%d", path, n);
    else
        snprintf(out, size, "%.*s-%d%s", (int)(dot - path), path, n, dot);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* A job with the session's settings (and its capture, if any). */
static int make_job(weir_sql_session *s, weir_job **job)
{
    char capture[sizeof s->capture_path + 16];
    weir_job_config jc;
    if (sql_settings_job_config(s, &jc))
        return WEIR_EINVAL;
    if (s->capture_path[0]) {
        capture_name(s, ++s->jobs, capture, sizeof capture);
        if (ends_with(capture, ".msgpack"))
            jc.diag.msgpack_path = capture;
        else
            jc.diag.jsonl_path = capture;
    } else if (!s->cfg.http_addr) {
        jc.diag.level = WEIR_DIAG_OFF;
    }
    jc.http_addr = s->cfg.http_addr;
    s->job_seq++;
    int r = weir_job_create(&jc, job);
    if (r)
        snprintf(s->err, sizeof s->err, "%s", r == WEIR_ENOMEM ? "out of memory"
                                                               : "cannot make the job");
    return r;
}

/* The plan's text without each node's changelog mode (" [I,UB,UA]"). */
static void strip_modes(char *plan)
{
    char *out = plan;
    for (char *line = plan; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        size_t keep = len;
        for (size_t i = len; i-- > 1;)
            if (line[i] == '[' && line[i - 1] == ' ' && line[len - 1] == ']' &&
                strspn(line + i + 1, "IUBD,") == len - i - 2) {
                keep = i - 1;
                break;
            }
        memmove(out, line, keep);
        out += keep;
        if (nl)
            *out++ = '\n';
        line += len + (nl ? 1 : 0);
    }
    *out = '\0';
}

/* Where a SELECT's rows go: the result sink (parallelism 1) that prints
 * them or hands them to the config's callback. */
static weir_stream *result_sink_of(weir_sql_session *s, weir_table *t, result_sink *rs)
{
    rs->s = s;
    rs->out = s->cfg.out ? s->cfg.out : stdout;
    rs->schema = weir_table_schema(t);
    weir_stream *cs = weir_table_to_changelog_stream(t, WEIR_CHANGELOG_AS_PRODUCED);
    return weir_stream_set_parallelism(
        weir_stream_set_name(sql_print_sink(cs, print_row, rs, s->cfg.on_row ? NULL : rs->out,
                                            &rs->write_errno),
                             "Sink(print)"),
        1);
}

/* Plans what a statement runs into env's job: a SELECT with its result
 * sink, an INSERT with its table's sink, every INSERT of a statement set.
 * 0, or WEIR_E* with s->err. */
static int plan_pipeline(weir_sql_session *s, sql_script *sc, const sql_stmt *st, weir_job *job,
                         weir_table_env *env, result_sink *rs)
{
    switch (st->kind) {
    case SQL_STMT_INSERT: return sql_plan_insert(s, job, env, sc, st);
    case SQL_STMT_STATEMENT_SET:
        for (int i = 0; i < st->nset; i++) {
            int r = sql_plan_insert(s, job, env, sc, &st->set[i]);
            if (r)
                return r;
        }
        return 0;
    default: break;
    }
    weir_table *t = sql_plan_query(s, job, env, sc, st->query);
    if (!t)
        return s->err[0] ? WEIR_EINVAL : WEIR_ENOMEM;
    if (!result_sink_of(s, t, rs)) {
        sql_fail(s, sc, st->at.start, "%s", sql_job_message(job));
        return WEIR_EINVAL;
    }
    return 0;
}

/* Runs a planned job to its end; a failure's message into s->err. */
static int run_job(weir_sql_session *s, weir_job *job, const result_sink *rs)
{
    if (s->cfg.on_job)
        s->cfg.on_job(job, s->cfg.on_job_arg);
    atomic_store(&s->running, job);
    if (sql_cancelled(s)) /* a cancel that came before the store */
        weir_job_cancel(job);
    int r = weir_job_run(job);
    atomic_store(&s->running, NULL);
    if (s->cfg.on_job)
        s->cfg.on_job(NULL, s->cfg.on_job_arg);
    if (r) {
        if (rs->write_errno)
            snprintf(s->err, sizeof s->err, "cannot write the results: %s",
                     strerror(rs->write_errno));
        else
            snprintf(s->err, sizeof s->err, "%s", weir_job_error(job));
        s->run_failed = true;
    }
    return r;
}

/* ---- DESCRIBE ------------------------------------------------------------------------------- */

/* EXPLAIN: the query's plan, with or without each node's changelog mode. */
static int explain(weir_sql_session *s, sql_script *sc, const sql_stmt *st, weir_table *t)
{
    FILE *out = s->cfg.out ? s->cfg.out : stdout;
    char plan[16384];
    int n = weir_table_explain(t, plan, sizeof plan);
    if (n < 0 || (size_t)n >= sizeof plan) {
        sql_fail(s, sc, st->at.start, "the plan does not fit in %zu bytes", sizeof plan);
        return n < 0 ? n : WEIR_EINVAL;
    }
    if (!st->changelog_mode)
        strip_modes(plan);
    if (fputs(plan, out) < 0 ||
        (plan[0] && plan[strlen(plan) - 1] != '\n' && fputc('\n', out) < 0)) {
        snprintf(s->err, sizeof s->err, "writing the plan: %s", strerror(errno));
        return WEIR_EIO;
    }
    return 0;
}

/* A statement that needs a job (SELECT, EXPLAIN, INSERT, a statement set)
 * in a session of its own: a job and an env made for it, planned, run to
 * its end (EXPLAIN and plan_only: planned only). */
static int run_query(weir_sql_session *s, sql_script *sc, const sql_stmt *st)
{
    weir_job *job = NULL;
    weir_table_env *env = NULL;
    int r = make_job(s, &job);
    if (r)
        return r;
    weir_table_config tc = {.string_capacity = s->string_capacity,
                            .source_idle_timeout_ms = s->source_idle_ms, .time_zone = s->zone,
                            .state_ttl_ms = s->state_ttl_ms};
    if ((r = weir_table_env_create(job, &tc, &env))) {
        weir_job_destroy(job);
        snprintf(s->err, sizeof s->err, "out of memory");
        return r;
    }
    result_sink rs = {.s = s};
    if (st->kind == SQL_STMT_EXPLAIN) {
        weir_table *t = sql_plan_query(s, job, env, sc, st->query);
        r = !t ? (s->err[0] ? WEIR_EINVAL : WEIR_ENOMEM) : explain(s, sc, st, t);
    } else {
        r = plan_pipeline(s, sc, st, job, env, &rs);
    }
    if (sql_cancelled(s)) {
        r = WEIR_ECANCELED;
        snprintf(s->err, sizeof s->err, "cancelled");
    } else if (!r && st->kind != SQL_STMT_EXPLAIN && !s->cfg.plan_only) {
        r = run_job(s, job, &rs);
    }
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    return r;
}

/* The same in a session of an env (weir_table_env_execute_sql): planned
 * into the env's job, which the program runs. */
static int plan_in_env(weir_sql_session *s, sql_script *sc, const sql_stmt *st)
{
    if (st->kind == SQL_STMT_EXPLAIN) {
        sql_fail(s, sc, st->at.start, "EXPLAIN in weir_table_env_execute_sql would put the "
                 "query's operators into the program's job: explain its table instead "
                 "(weir_table_explain(weir_table_env_sql_query(env, ...)))");
        return WEIR_EINVAL;
    }
    weir_job *job = weir_table_env_job(s->env);
    result_sink *rs = sql_arena_alloc(&sc->arena, sizeof *rs);
    if (!rs)
        return WEIR_ENOMEM;
    return plan_pipeline(s, sc, st, job, s->env, rs);
}

/* ---- statements ---------------------------------------------------------------------------- */

int sql_session_parse(weir_sql_session *s, const char *text, size_t len, sql_script **out)
{
    char *copy = malloc(len + 1);
    sql_script *sc = calloc(1, sizeof *sc);
    sql_script **v = realloc(s->scripts, (size_t)(s->nscripts + 1) * sizeof *v);
    if (v)
        s->scripts = v;
    if (!copy || !sc || !v) {
        free(copy);
        free(sc);
        snprintf(s->err, sizeof s->err, "out of memory");
        return WEIR_ENOMEM;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    int r = sql_parse(copy, len, sc, s->err, sizeof s->err);
    if (r) {
        free(copy);
        free(sc);
        if (r == WEIR_ENOMEM)
            snprintf(s->err, sizeof s->err, "out of memory");
        return r;
    }
    s->scripts[s->nscripts++] = sc;
    *out = sc;
    return 0;
}

int weir_sql_execute(weir_sql_session *s, const char *text, size_t len)
{
    s->err[0] = '\0';
    s->run_failed = false;
    sql_script *sc;
    int r = sql_cancelled(s) ? WEIR_ECANCELED : sql_session_parse(s, text, len, &sc);
    for (int i = 0; r == 0 && i < sc->n; i++) {
        const sql_stmt *st = &sc->stmts[i];
        if (sql_cancelled(s)) {
            r = WEIR_ECANCELED;
            snprintf(s->err, sizeof s->err, "cancelled");
            break;
        }
        switch (st->kind) {
        case SQL_STMT_CREATE_TABLE:
        case SQL_STMT_CREATE_VIEW: r = sql_catalog_create(s, sc, st); break;
        case SQL_STMT_SET: r = sql_settings_set(s, sc, st); break;
        case SQL_STMT_RESET: r = sql_settings_reset(s, sc, st); break;
        case SQL_STMT_SHOW: r = sql_show(s, sc, st); break;
        case SQL_STMT_DESCRIBE: r = sql_describe(s, sc, st); break;
        case SQL_STMT_SELECT:
        case SQL_STMT_EXPLAIN:
        case SQL_STMT_INSERT:
        case SQL_STMT_STATEMENT_SET:
            r = s->env ? plan_in_env(s, sc, st) : run_query(s, sc, st);
            break;
        default: r = WEIR_EINVAL; break;
        }
        if (r && !s->err[0])
            snprintf(s->err, sizeof s->err, "%s", r == WEIR_ENOMEM ? "out of memory"
                                                                   : weir_strerror(r));
    }
    if (r == 0)
        s->err[0] = '\0';
    return r;
}
