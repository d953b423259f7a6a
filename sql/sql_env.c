/* sql_env.c — SQL run in a table environment (weir/sql.h: Flink's
 * StreamTableEnvironment.executeSql and sqlQuery): the env carries a
 * session of its own (its catalog and settings, weir_table_env_sql_state),
 * whose statements plan into the env's job beside the program's operators
 * and read the env's views by name; the program runs the job. The same
 * planner as weir_sql_session's, which makes a job and an env per
 * statement instead. */
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
