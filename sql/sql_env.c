/* sql_env.c — SQL run in a table environment (weir/sql.h: Flink's
 * StreamTableEnvironment.executeSql and sqlQuery): the env carries a
 * session of its own (its catalog and settings, weir_table_env_sql_state),
 * whose statements plan into the env's job beside the program's operators
 * and read the env's views by name; the program runs the job. The same
 * planner as weir_sql_session's, which makes a job and an env per
 * statement instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_internal.h"

static void session_free(void *s)
{
    weir_sql_session_destroy(s);
}

/* The env's session, made at its first use. NULL when out of memory. */
static weir_sql_session *env_session(weir_table_env *env)
{
    weir_sql_session *s = weir_table_env_sql_state(env);
    if (s)
        return s;
    if (weir_sql_session_create(NULL, &s))
        return NULL;
    s->env = env;
    s->job_seq = 1; /* one job: every read of a table shares its source */
    const weir_table_config *tc = weir_table_env_config(env);
    s->string_capacity = tc->string_capacity;
    s->zone = tc->time_zone;
    weir_table_env_set_sql_state(env, s, session_free);
    return s;
}

/* The session's error as the job's (weir_job_error), and its code. */
static int fail_job(weir_table_env *env, weir_sql_session *s, int r)
{
    weir_job_record_error(weir_table_env_job(env), r, "%s",
                          s && s->err[0] ? s->err : weir_strerror(r));
    return r;
}

int weir_table_env_execute_sql(weir_table_env *env, const char *text)
{
    if (!env)
        return WEIR_EINVAL;
    weir_sql_session *s = env_session(env);
    if (!s)
        return fail_job(env, NULL, WEIR_ENOMEM);
    if (!text)
        return fail_job(env, NULL, WEIR_EINVAL);
    int r = weir_sql_execute(s, text, strlen(text));
    return r ? fail_job(env, s, r) : 0;
}

weir_table *weir_table_env_sql_query(weir_table_env *env, const char *text)
{
    if (!env)
        return NULL;
    weir_sql_session *s = env_session(env);
    if (!s) {
        fail_job(env, NULL, WEIR_ENOMEM);
        return NULL;
    }
    if (!text) {
        fail_job(env, NULL, WEIR_EINVAL);
        return NULL;
    }
    sql_script *sc;
    s->err[0] = '\0';
    int r = sql_session_parse(s, text, strlen(text), &sc);
    if (r) {
        fail_job(env, s, r);
        return NULL;
    }
    if (sc->n != 1 || sc->stmts[0].kind != SQL_STMT_SELECT) {
        sql_fail(s, sc, sc->n ? sc->stmts[sc->n > 1 ? 1 : 0].at.start : 0,
                 "weir_table_env_sql_query takes one query (SELECT or VALUES)%s",
                 sc->n > 1 ? "; this is its second statement" : "");
        fail_job(env, s, WEIR_EINVAL);
        return NULL;
    }
    weir_table *t = sql_plan_query(s, weir_table_env_job(env), env, sc, sc->stmts[0].query);
    if (!t)
        fail_job(env, s, s->err[0] ? WEIR_EINVAL : WEIR_ENOMEM);
    return t;
}

/* ---- statement sets ------------------------------------------------------------------------ */

/* One INSERT of a set: a statement of a script the session keeps, or a
 * table of the env written into a catalog table. */
typedef struct set_insert {
    sql_script *sc;
    const sql_stmt *st;
    sql_relation *sink;
    weir_table *t;
} set_insert;

struct weir_statement_set {
    weir_table_env *env;
    set_insert *v;
    int n, cap;
};

weir_statement_set *weir_table_env_create_statement_set(weir_table_env *env)
{
    if (!env)
        return NULL;
    weir_statement_set *set = calloc(1, sizeof *set);
    if (set)
        set->env = env;
    return set;
}

void weir_statement_set_destroy(weir_statement_set *set)
{
    if (!set)
        return;
    free(set->v);
    free(set);
}

int weir_statement_set_count(const weir_statement_set *set)
{
    return set ? set->n : 0;
}

static int set_append(weir_statement_set *set, set_insert in)
{
    if (set->n == set->cap) {
        int cap = set->cap ? 2 * set->cap : 4;
        set_insert *v = realloc(set->v, (size_t)cap * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        set->v = v;
        set->cap = cap;
    }
    set->v[set->n++] = in;
    return 0;
}

int weir_statement_set_add_insert_sql(weir_statement_set *set, const char *insert)
{
    if (!set)
        return WEIR_EINVAL;
    weir_table_env *env = set->env;
    weir_sql_session *s = env_session(env);
    if (!s)
        return fail_job(env, NULL, WEIR_ENOMEM);
    if (!insert)
        return fail_job(env, NULL, WEIR_EINVAL);
    sql_script *sc;
    s->err[0] = '\0';
    int r = sql_session_parse(s, insert, strlen(insert), &sc);
    if (r)
        return fail_job(env, s, r);
    if (sc->n != 1 || sc->stmts[0].kind != SQL_STMT_INSERT) {
        sql_fail(s, sc, sc->n ? sc->stmts[sc->n > 1 ? 1 : 0].at.start : 0,
                 "weir_statement_set_add_insert_sql takes one INSERT INTO statement%s",
                 sc->n > 1 ? "; this is its second statement" : "");
        return fail_job(env, s, WEIR_EINVAL);
    }
    const sql_stmt *st = &sc->stmts[0];
    char *name = sql_unquote(sc, st->name);
    if (!name)
        return fail_job(env, s, WEIR_ENOMEM);
    if (!sql_insert_sink(s, sc, st->name.start, env, name))
        return fail_job(env, s, WEIR_EINVAL);
    r = set_append(set, (set_insert){.sc = sc, .st = st});
    return r ? fail_job(env, s, r) : 0;
}

int weir_statement_set_add_insert(weir_statement_set *set, const char *table, weir_table *t)
{
    if (!set)
        return WEIR_EINVAL;
    weir_table_env *env = set->env;
    weir_sql_session *s = env_session(env);
    if (!s)
        return fail_job(env, NULL, WEIR_ENOMEM);
    s->err[0] = '\0';
    if (!table || !t) {
        snprintf(s->err, sizeof s->err, "weir_statement_set_add_insert: %s is NULL",
                 table ? "the table to write" : "the sink table's name");
        return fail_job(env, s, WEIR_EINVAL);
    }
    if (weir_table_get_env(t) != env) {
        snprintf(s->err, sizeof s->err, "weir_statement_set_add_insert: the table written "
                 "into '%s' belongs to another env", table);
        return fail_job(env, s, WEIR_EINVAL);
    }
    sql_relation *sink = sql_insert_sink(s, NULL, 0, env, table);
    if (!sink)
        return fail_job(env, s, WEIR_EINVAL);
    int r = set_append(set, (set_insert){.sink = sink, .t = t});
    return r ? fail_job(env, s, r) : 0;
}

int weir_statement_set_execute(weir_statement_set *set)
{
    if (!set)
        return WEIR_EINVAL;
    weir_table_env *env = set->env;
    weir_sql_session *s = env_session(env);
    if (!s)
        return fail_job(env, NULL, WEIR_ENOMEM);
    s->err[0] = '\0';
    if (set->n == 0) {
        snprintf(s->err, sizeof s->err, "weir_statement_set_execute: the statement set is "
                 "empty: add an INSERT (weir_statement_set_add_insert_sql) first");
        return fail_job(env, s, WEIR_EINVAL);
    }
    weir_job *job = weir_table_env_job(env);
    int n = set->n;
    set->n = 0;
    for (int i = 0; i < n; i++) {
        const set_insert *in = &set->v[i];
        int r = in->st ? sql_plan_insert(s, job, env, in->sc, in->st)
                       : sql_insert_table(s, job, env, in->sink, in->t);
        if (r && !in->st) { /* a C table's error has no statement: say which */
            char why[SQL_ERR_MAX];
            snprintf(why, sizeof why, "%s", s->err);
            snprintf(s->err, sizeof s->err, "weir_statement_set_execute: writing a table "
                     "into '%s': %.700s", in->sink->name, why);
        }
        if (r)
            return fail_job(env, s, r);
    }
    return 0;
}
