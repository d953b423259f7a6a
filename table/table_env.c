/* table_env.c — the table environment and its plan: table nodes, their
 * changelog modes and unique keys, the plan-time errors, and EXPLAIN.
 *
 * Every table node is planned into its operator when it is made (the
 * builder functions in table_calc.c, table_group.c, table_window.c), so
 * the plan a user can print is exactly what runs; the node only keeps what
 * the planner needs to reason about what comes next: the schema, the
 * changelog mode (which kinds it may emit), the rowtime column and a
 * unique key.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"
#include "weir/error.h"

int weir_changelog_mode_format(unsigned mode, char *buf, size_t size)
{
    static const char *names[] = {"I", "UB", "UA", "D"};
    char tmp[32] = "[";
    bool first = true;
    for (int k = 0; k < 4; k++)
        if (mode & WEIR_CHANGELOG_KIND(k)) {
            if (!first)
                strcat(tmp, ",");
            strcat(tmp, names[k]);
            first = false;
        }
    strcat(tmp, "]");
    return snprintf(buf, size, "%s", tmp);
}

int weir_table_env_create(weir_job *job, const weir_table_config *config, weir_table_env **out)
{
    if (!out)
        return WEIR_EINVAL;
    *out = NULL;
    if (!job)
        return WEIR_EINVAL;
    weir_table_config c = config ? *config : (weir_table_config){0};
    if (c.string_capacity > WEIR_STRING_MAX_CAPACITY || c.parallelism < 0 ||
        c.parallelism > WEIR_MAX_PARALLELISM || c.source_idle_timeout_ms < 0 ||
        c.state_ttl_ms < 0)
        return WEIR_EINVAL;
    if (c.string_capacity == 0)
        c.string_capacity = WEIR_STRING_DEFAULT_CAPACITY;
    weir_table_env *env = calloc(1, sizeof *env);
    if (!env)
        return WEIR_ENOMEM;
    env->job = job;
    env->config = c;
    *out = env;
    return 0;
}

void weir_table_env_destroy(weir_table_env *env)
{
    if (!env)
        return;
    weir_table *t = env->nodes;
    while (t) {
        weir_table *n = t->next_alloc;
        if (t->impl_free)
            t->impl_free(t->impl);
        weir_schema_destroy(t->schema);
        free(t->more);
        free(t->ukey);
        free(t->mono);
        free(t->name);
        free(t->settings);
        free(t);
        t = n;
    }
    free(env->names);
    if (env->sql_free)
        env->sql_free(env->sql);
    for (int i = 0; i < env->nviews; i++)
        free(env->views[i].name);
    free(env->views);
    free(env);
}

void *weir__table_fail(weir_table_env *env, int err, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    weir_job_record_error(env->job, err, "%s", msg);
    return NULL;
}

/* ---- node names: a hash set of the names given ------------------------------- */

static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The slot of `name`, or the empty slot where it would go. */
static weir__name_slot *name_slot(const weir_table_env *env, const char *name)
{
    size_t mask = env->names_cap - 1;
    for (size_t i = name_hash(name) & mask;; i = (i + 1) & mask)
        if (!env->names[i].name || strcmp(env->names[i].name, name) == 0)
            return &env->names[i];
}

/* Room for one more name (the table at most half full). 0 or WEIR_ENOMEM. */
static int names_reserve(weir_table_env *env)
{
    if (2 * (env->nnames + 1) <= env->names_cap)
        return 0;
    size_t cap = env->names_cap ? 2 * env->names_cap : 64;
    weir__name_slot *old = env->names;
    size_t old_cap = env->names_cap;
    env->names = calloc(cap, sizeof *env->names);
    if (!env->names) {
        env->names = old;
        return WEIR_ENOMEM;
    }
    env->names_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].name)
            *name_slot(env, old[i].name) = old[i];
    free(old);
    return 0;
}

size_t weir_table_env_node_count(const weir_table_env *env)
{
    return env ? env->nnames : 0;
}

weir_table *weir__table_node(weir_table_env *env, weir_table *input, const char *fmt, ...)
{
    weir_table *t = calloc(1, sizeof *t);
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    /* A job's operator names are unique: a second node of the same name (a
     * table read twice, the same projection on both sides of a UNION ALL)
     * is NAME#2, then NAME#3, ... The set of names keeps, for each name,
     * the suffix to try next, so that n nodes of one name cost O(n), not
     * the O(n^2) name searches of trying #2, #3, ... each time. */
    if (t && names_reserve(env) == 0) {
        weir__name_slot *sl = name_slot(env, name);
        if (sl->name) {
            /* room for the suffix in a name cut to the buffer */
            size_t base = strlen(name) < sizeof name - 16 ? strlen(name) : sizeof name - 16;
            int k = sl->next;
            do
                snprintf(name + base, sizeof name - base, "#%d", k++);
            while (name_slot(env, name)->name);
            sl->next = k;
        }
        t->name = strdup(name);
    }
    if (!t || !t->name) {
        free(t);
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", name);
    }
    *name_slot(env, t->name) = (weir__name_slot){.name = t->name, .next = 2};
    env->nnames++;
    t->env = env;
    t->input = input;
    t->rowtime = -1;
    t->proctime = -1;
    t->rowtime2 = -1;
    t->next_alloc = env->nodes;
    env->nodes = t;
    return t;
}

const char *weir__table_settings(weir_table *t, const char *extra)
{
    char mode[32];
    weir_changelog_mode_format(t->mode, mode, sizeof mode);
    size_t n = strlen(mode) + (extra ? strlen(extra) : 0) + 64;
    free(t->settings);
    t->settings = malloc(n);
    if (!t->settings)
        return NULL;
    snprintf(t->settings, n, "%s%s\"changelog_mode\":\"%s\"", extra ? extra : "",
             extra && *extra ? "," : "", mode);
    return t->settings;
}

const weir_table *weir__table_update_producer(const weir_table *t)
{
    for (;;) {
        const weir_table *next = NULL;
        if (t->input && t->input->mode != WEIR_CHANGELOG_INSERT_ONLY)
            next = t->input;
        for (int i = 0; !next && i < t->nmore; i++)
            if (t->more[i]->mode != WEIR_CHANGELOG_INSERT_ONLY)
                next = t->more[i];
        if (!next)
            return t;
        t = next;
    }
}

const weir_schema *weir_table_schema(const weir_table *t) { return t ? t->schema : NULL; }
weir_table_env *weir_table_get_env(const weir_table *t) { return t ? t->env : NULL; }
unsigned weir_table_changelog_mode(const weir_table *t) { return t ? t->mode : 0; }
int weir_table_rowtime(const weir_table *t) { return t ? t->rowtime : -1; }
int weir_table_proctime(const weir_table *t) { return t ? t->proctime : -1; }
int weir_table_unique_key(const weir_table *t, const int **cols)
{
    *cols = t ? t->ukey : NULL;
    return t ? t->nukey : 0;
}
bool weir_table_windowed(const weir_table *t, int *window_start, int *window_end)
{
    bool w = t && t->windowed;
    *window_start = w ? t->wstart : -1;
    *window_end = w ? t->wend : -1;
    return w;
}
const char *weir_table_node_name(const weir_table *t) { return t ? t->name : NULL; }
weir_stream *weir_table_stream(const weir_table *t) { return t ? t->stream : NULL; }

/* A node, then its inputs' subtrees one level deeper. */
static void explain(const weir_table *x, int depth, char *buf, size_t size, size_t *n)
{
    char mode[32];
    weir_changelog_mode_format(x->mode, mode, sizeof mode);
    weir__append(buf, size, n, "%*s%s %s\n", 2 * depth, "", x->name, mode);
    if (x->input)
        explain(x->input, depth + 1, buf, size, n);
    for (int i = 0; i < x->nmore; i++)
        explain(x->more[i], depth + 1, buf, size, n);
}

int weir_table_explain(const weir_table *t, char *buf, size_t size)
{
    size_t n = 0;
    if (t)
        explain(t, 0, buf, size, &n);
    return (int)n;
}

static int list_one(const char *item, size_t len, void *arg)
{
    weir__list *l = arg;
    if (l->n == WEIR__LIST_MAX)
        return WEIR_ERANGE;
    l->items[l->n] = item;
    l->lens[l->n++] = len;
    return 0;
}

int weir__list_split(const char *list, weir__list *out)
{
    out->n = 0;
    const char *p = list;
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    if (!*p)
        return 0; /* an empty list */
    return weir_expr_split(list, list_one, out);
}

char *weir__list_dup(const weir__list *l, int i)
{
    char *s = malloc(l->lens[i] + 1);
    if (s) {
        memcpy(s, l->items[i], l->lens[i]);
        s[l->lens[i]] = 0;
    }
    return s;
}

int weir__compile_list(weir_table_env *env, const char *what, const char *list,
                       const weir_schema *schema, int allow_agg, weir_expr **out)
{
    weir__list l;
    int r = weir__list_split(list, &l);
    if (r || l.n == 0) {
        weir__list_fail(env, what, r, list);
        return -1;
    }
    for (int i = 0; i < l.n; i++) {
        char err[1024];
        char *text = weir__list_dup(&l, i);
        r = text ? weir__expr_compile_in(text, schema, allow_agg, env->config.time_zone,
                                         &out[i], err, sizeof err)
                 : WEIR_ENOMEM;
        free(text);
        if (r) {
            for (int j = 0; j < i; j++)
                weir_expr_destroy(out[j]);
            if (r == WEIR_ENOMEM)
                weir__table_fail(env, r, "%s: out of memory", what);
            else
                weir__table_fail(env, r, "%s: %s", what, err);
            return -1;
        }
    }
    return l.n;
}

void *weir__list_fail(weir_table_env *env, const char *what, int r, const char *list)
{
    if (r == WEIR_ERANGE)
        return weir__table_fail(env, WEIR_EINVAL, "%s: a list of more than %d items (the table "
                                "layer's limit)", what, WEIR__LIST_MAX);
    char echo[WEIR__EXPR_ECHO + 4];
    return weir__table_fail(env, WEIR_EINVAL, "%s: bad list '%s' (an empty item, or unbalanced "
                            "parentheses or quotes)", what, weir__expr_echo(list, echo));
}

bool weir__list_name(const char *item, size_t len, char *buf, size_t size)
{
    size_t n = 0;
    if (len >= 2 && item[0] == '`' && item[len - 1] == '`') {
        for (size_t i = 1; i + 1 < len; i++) {
            if (n + 1 >= size)
                return false;
            buf[n++] = item[i];
            if (item[i] == '`' && item[i + 1] == '`')
                i++;
        }
    } else {
        if (len >= size)
            return false;
        memcpy(buf, item, len);
        n = len;
    }
    buf[n] = 0;
    return true;
}

int weir__list_item(const weir__list *l, int i, char *buf, size_t size)
{
    if (l->lens[i] >= size)
        return WEIR_ERANGE;
    memcpy(buf, l->items[i], l->lens[i]);
    buf[l->lens[i]] = 0;
    return 0;
}

int weir__table_set_unique_key(weir_table *t, const int *cols, int n)
{
    t->nukey = 0;
    if (n == 0)
        return 0;
    t->ukey = malloc((size_t)n * sizeof *t->ukey);
    if (!t->ukey)
        return WEIR_ENOMEM;
    memcpy(t->ukey, cols, (size_t)n * sizeof *t->ukey);
    t->nukey = n;
    return 0;
}

weir__mono weir__table_monotonicity(const weir_table *t, int col)
{
    if (t->mode == WEIR_CHANGELOG_INSERT_ONLY)
        return WEIR__MONO_CONSTANT;
    return t->mono && col >= 0 && col < t->schema->ncols ? (weir__mono)t->mono[col]
                                                         : WEIR__MONO_NOT;
}

int weir__table_set_monotonicity(weir_table *t, const unsigned char *mono)
{
    free(t->mono);
    t->mono = malloc((size_t)t->schema->ncols + 1);
    if (!t->mono)
        return WEIR_ENOMEM;
    memcpy(t->mono, mono, (size_t)t->schema->ncols);
    return 0;
}

bool weir__item_name(weir_table_env *env, const char *what, weir__item_names *nm,
                     const weir_expr *e)
{
    int i = nm->n;
    const char *alias = weir_expr_alias(e);
    if (!alias) {
        snprintf(nm->auto_names[i], sizeof nm->auto_names[i], "EXPR$%d", i);
        alias = nm->auto_names[i];
    }
    for (int j = 0; j < i; j++)
        if (strcmp(nm->names[j], alias) == 0) {
            weir__table_fail(env, WEIR_EINVAL, "%s: duplicate column name '%s'", what, alias);
            return false;
        }
    nm->names[nm->n++] = alias;
    return true;
}
