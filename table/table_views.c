/* table_views.c — the table environment's temporary views: tables
 * registered under a name (Flink's createTemporaryView), which SQL reads
 * by that name (weir/sql.h) and a program takes back with
 * weir_table_env_from. The env also carries the SQL layer's state for it,
 * which this file only keeps and frees. */
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"
#include "weir/error.h"

/* The longest view name: as long as a SQL name may be. */
#define VIEW_NAME_MAX 127

int weir_table_env_create_temporary_view(weir_table_env *env, const char *name, weir_table *t)
{
    if (!env)
        return WEIR_EINVAL;
    if (!name || !name[0] || strlen(name) > VIEW_NAME_MAX || !t || t->env != env) {
        weir__table_fail(env, WEIR_EINVAL, "weir_table_env_create_temporary_view: %s",
                         !name || !name[0]        ? "a view needs a name"
                         : strlen(name) > VIEW_NAME_MAX ? "the name is longer than 127 bytes"
                         : !t                      ? "no table (an earlier call failed)"
                                                   : "the table is of another environment");
        return WEIR_EINVAL;
    }
    if (weir_table_env_view(env, name)) {
        weir__table_fail(env, WEIR_EINVAL, "weir_table_env_create_temporary_view: a view named "
                         "'%s' exists already", name);
        return WEIR_EINVAL;
    }
    weir__view *v = realloc(env->views, (size_t)(env->nviews + 1) * sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    env->views = v;
    char *copy = strdup(name);
    if (!copy)
        return WEIR_ENOMEM;
    env->views[env->nviews++] = (weir__view){.name = copy, .table = t};
    return 0;
}

int weir_table_env_create_temporary_view_from_stream(weir_table_env *env, const char *name,
                                                     weir_stream *s, const weir_schema *schema)
{
    if (!env)
        return WEIR_EINVAL;
    weir_table *t = weir_table_from_stream(env, s, schema);
    if (!t)
        return weir_job_error_code(env->job) ? weir_job_error_code(env->job) : WEIR_EINVAL;
    return weir_table_env_create_temporary_view(env, name, t);
}

weir_table *weir_table_env_view(const weir_table_env *env, const char *name)
{
    if (!env || !name)
        return NULL;
    for (int i = 0; i < env->nviews; i++)
        if (strcmp(env->views[i].name, name) == 0)
            return env->views[i].table;
    return NULL;
}

int weir_table_env_view_count(const weir_table_env *env)
{
    return env ? env->nviews : 0;
}

const char *weir_table_env_view_name(const weir_table_env *env, int i)
{
    return env && i >= 0 && i < env->nviews ? env->views[i].name : NULL;
}

weir_table *weir_table_env_from(weir_table_env *env, const char *name)
{
    if (!env)
        return NULL;
    weir_table *t = weir_table_env_view(env, name);
    if (!t)
        return weir__table_fail(env, WEIR_EINVAL, "weir_table_env_from: no view named '%s'",
                                name ? name : "(null)");
    return t;
}

weir_job *weir_table_env_job(const weir_table_env *env)
{
    return env ? env->job : NULL;
}

const weir_table_config *weir_table_env_config(const weir_table_env *env)
{
    return env ? &env->config : NULL;
}

void *weir_table_env_sql_state(const weir_table_env *env)
{
    return env ? env->sql : NULL;
}

void weir_table_env_set_sql_state(weir_table_env *env, void *state, void (*free_fn)(void *))
{
    if (env->sql_free)
        env->sql_free(env->sql);
    env->sql = state;
    env->sql_free = free_fn;
}
