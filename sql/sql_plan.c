/* sql_plan.c — the planner: a parsed query (sql_ast.h) onto the table layer
 * (weir/table.h), as Flink's planner puts a SELECT onto its relational
 * nodes.
 *
 *   FROM name | view | (query) | TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), ...))
 *   WHERE p                     weir_table_where
 *   SELECT items                weir_table_select (DISTINCT: a group by all)
 *   GROUP BY keys [, window]    a Calc for computed keys, then
 *   HAVING h                    weir_table_group_by or weir_table_window_aggregate,
 *                               a filter, and a Calc for the select list
 *   UNION ALL                   weir_table_union_all
 *
 * The table layer takes aggregate calls only at the top of its items, and
 * columns as group keys. So a grouped query is rewritten: each aggregate
 * call of the select list and HAVING becomes a hidden column `$fN` of the
 * aggregate node, each computed GROUP BY expression a column `$fN` of a
 * Calc before it, and the group window's TUMBLE_START / _END / _ROWTIME
 * (HOP_, SESSION_) its window_start / window_end / window_time; HAVING and
 * the select list are then a filter and a projection over the aggregate's
 * columns. When the select list needs no rewriting beyond naming (every item
 * a key, a window column or an aggregate call, and no HAVING), the aggregate
 * node makes the select list itself, as Flink's plan does.
 *
 * Every expression is compiled here first against the schema it will read,
 * so that an error is reported at its line and column in the statements
 * (rewritten texts keep a map to where each piece came from, sql_text.h);
 * the table layer then compiles it again as it plans the node. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "message_text.h"
#include "sql_internal.h"
#include "sql_lexer.h"
#include "sql_text.h"

typedef struct planner {
    weir_sql_session *s;
    weir_job *job;
    weir_table_env *env;
    sql_script *sc;
    sql_arena **tmp; /* the texts and arrays of this query's planning */
    int depth; /* views and subqueries being planned around this one */
    /* The table or view the statement itself reads that is being planned
     * (set outside views): where a plan too large is reported. */
    sql_script *top_sc;
    sql_span top_name;
} planner;

/* Views and subqueries inside each other deeper than this are refused: the
 * planner recurses per level, with its texts on the stack. */
#define PLAN_MAX_DEPTH 32

/* The most table nodes a query's plan may have. A view is planned anew
 * wherever a query reads it, so views that each read the one before twice
 * (a UNION ALL of it with itself) double the plan at each level: without
 * a bound, twenty such levels would plan a million sources. */
#define PLAN_MAX_NODES 1000

/* A grouped query's parts, as the rewriting needs them (arrays in the
 * planner's arena: keys as many as GROUP BY has, aggregate calls growing
 * as they are found). */
typedef struct grouping {
    sql_window_kind window; /* the group window's or the TVF's kind, or NONE */
    bool tvf;
    const sql_window *win; /* the group window or the TVF */
    int nkeys;
    sql_span *keys;
    char (*key_names)[SQL_NAME_MAX];
    bool *key_computed;
    int naggs, aggs_cap;
    sql_span *aggs;
} grouping;

static const char *const aggregate_names[] = {"COUNT", "SUM", "MIN", "MAX", "AVG", NULL};
static const char *const window_names[] = {[SQL_WINDOW_TUMBLE] = "TUMBLE",
                                           [SQL_WINDOW_HOP] = "HOP",
                                           [SQL_WINDOW_CUMULATE] = "CUMULATE",
                                           [SQL_WINDOW_SESSION] = "SESSION"};

static void *table_fail(planner *p, uint32_t at)
{
    if (weir_job_error_code(p->job) == WEIR_ENOMEM)
        return sql_fail(p->s, p->sc, at, "out of memory");
    return sql_fail(p->s, p->sc, at, "%s", sql_job_message(p->job));
}

static int lex_span(planner *p, sql_span sp, sql_tokens *out)
{
    char err[256];
    int r = sql_lex(p->sc->text + sp.start, sp.len, out, err, sizeof err);
    if (r) {
        sql_fail(p->s, p->sc, sp.start, "%s", r == WEIR_ENOMEM ? "out of memory" : err);
        return r;
    }
    for (size_t i = 0; i <= out->n; i++)
        out->v[i].start += sp.start;
    return 0;
}

static bool is_sym(const planner *p, const sql_tok *t, const char *sym)
{
    return sql_tok_sym(p->sc->text, t, sym);
}

/* The index of the ')' that closes the '(' at i, or n. */
static size_t closing(const planner *p, const sql_tokens *t, size_t i)
{
    int depth = 0;
    for (size_t k = i; k < t->n; k++) {
        if (is_sym(p, &t->v[k], "("))
            depth++;
        else if (is_sym(p, &t->v[k], ")") && --depth == 0)
            return k;
    }
    return t->n;
}

/* Whether token i starts a call of one of `names` (a word followed by '('). */
static bool is_call(const planner *p, const sql_tokens *t, size_t i, const char *const *names)
{
    if (t->v[i].kind != SQL_TOK_WORD || i + 1 >= t->n || !is_sym(p, &t->v[i + 1], "("))
        return false;
    for (int k = 0; names[k]; k++)
        if (sql_tok_is(p->sc->text, &t->v[i], names[k]))
            return true;
    return false;
}

/* Whether two spans are the same tokens. */
static bool same_tokens(planner *p, sql_span a, sql_span b)
{
    sql_tokens x = {0}, y = {0};
    bool same = false;
    if (lex_span(p, a, &x) == 0 && lex_span(p, b, &y) == 0 && x.n == y.n) {
        same = true;
        for (size_t i = 0; same && i < x.n; i++)
            same = x.v[i].kind == y.v[i].kind && x.v[i].len == y.v[i].len &&
                   memcmp(p->sc->text + x.v[i].start, p->sc->text + y.v[i].start,
                          x.v[i].len) == 0;
    }
    sql_tokens_free(&x);
    sql_tokens_free(&y);
    p->s->err[0] = '\0'; /* the spans were lexed once already: no error here */
    return same;
}

/* The span of a bare column name (one word or `quoted` token), or len 0. */
static bool bare_name(planner *p, sql_span sp, char *out, size_t size)
{
    sql_tokens t = {0};
    bool bare = false;
    if (lex_span(p, sp, &t) == 0 && t.n == 1 &&
        (t.v[0].kind == SQL_TOK_WORD || t.v[0].kind == SQL_TOK_QUOTED)) {
        sql_span n = {.start = t.v[0].start, .len = t.v[0].len};
        char *s = sql_unquote(p->sc, n);
        if (s && strlen(s) < size) {
            snprintf(out, size, "%s", s);
            bare = true;
        }
    }
    sql_tokens_free(&t);
    return bare;
}

/* ---- compiling for errors at their place ---------------------------------------- */

/* Compiles `t` against `schema` (as a select item when `item`): 0, or the
 * compiler's error at the statements' place it came from. */
static int check_text(planner *p, const sql_text *t, const weir_schema *schema, bool item,
                      bool allow_agg)
{
    if (t->nomem) {
        sql_fail(p->s, p->sc, t->npieces ? t->pieces[0].orig : 0, "out of memory");
        return WEIR_ENOMEM;
    }
    weir_expr *e = NULL;
    char msg[1024];
    int r = item ? weir_expr_compile_item(t->buf, schema, allow_agg, &e, msg, sizeof msg)
                 : weir_expr_compile(t->buf, schema, &e, msg, sizeof msg);
    weir_expr_destroy(e);
    if (r == 0)
        return 0;
    size_t pos;
    const char *what = sql_expr_message(t->buf, msg, &pos);
    sql_fail(p->s, p->sc, sql_text_origin(t, pos ? pos - 1 : 0), "%s", what);
    return r;
}

static int check_span(planner *p, sql_span sp, const weir_schema *schema)
{
    sql_text t;
    sql_text_init(&t, p->tmp);
    sql_text_copy(&t, p->sc->text, sp.start, sp.len);
    return check_text(p, &t, schema, false, false);
}

/* ---- FROM --------------------------------------------------------------------------- */

static weir_table *plan_query(planner *p, const sql_query *q);
static weir_table *plan_union(planner *p, const sql_query *q);

static weir_table *plan_read(planner *p, sql_span name_span)
{
    if (sql_cancelled(p->s))
        return sql_fail(p->s, p->sc, name_span.start, "cancelled");
    char *name = sql_unquote(p->sc, name_span);
    if (!name)
        return sql_fail(p->s, p->sc, name_span.start, "out of memory");
    sql_relation *r = sql_catalog_find(p->s, name);
    if (!r) {
        const char *hint = sql_catalog_hint(p->s, name);
        if (hint)
            return sql_fail(p->s, p->sc, name_span.start,
                            "unknown table '%s' (did you mean '%s'?)", name, hint);
        return sql_fail(p->s, p->sc, name_span.start, "unknown table '%s'", name);
    }
    if (weir_table_env_node_count(p->env) >= PLAN_MAX_NODES) {
        char *top = sql_unquote(p->top_sc, p->top_name);
        return sql_fail(p->s, p->top_sc, p->top_name.start,
                        "reading '%s' makes the query's plan larger than %d nodes, weir's limit "
                        "(a view is planned anew at each read: views that each read the one "
                        "before twice double the plan at each level)",
                        top ? top : "", PLAN_MAX_NODES);
    }
    if (!r->view)
        return sql_catalog_open(p->s, p->job, p->env, r, p->sc, name_span.start);
    /* A view is planned anew where it is read, in its own statements' text. */
    planner vp = *p;
    vp.sc = r->script;
    return plan_query(&vp, r->stmt->query);
}

/* A table or view by name; a read by the statement itself is where a plan
 * too large is reported. */
static weir_table *plan_name(planner *p, sql_span name_span)
{
    if (p->top_sc)
        return plan_read(p, name_span);
    p->top_sc = p->sc;
    p->top_name = name_span;
    weir_table *t = plan_read(p, name_span);
    p->top_sc = NULL;
    return t;
}

/* An interval argument of a window in milliseconds, > 0. */
static int interval_arg(planner *p, const sql_window *w, int i, int64_t *ms)
{
    char why[256];
    const sql_span *a = &w->args[i];
    if (sql_interval_ms(p->sc->text + a->start, a->len, ms, why, sizeof why)) {
        sql_fail(p->s, p->sc, a->start, "%s", why);
        return WEIR_EINVAL;
    }
    if (*ms <= 0) {
        sql_fail(p->s, p->sc, a->start, "a window's interval must be positive");
        return WEIR_EINVAL;
    }
    return 0;
}

/* The table layer's window for a group window or a TVF: its intervals, and
 * its time column, which must be t's rowtime. */
static int window_of(planner *p, const sql_window *w, const weir_table *t,
                     weir_table_window *out)
{
    static const int nargs[] = {[SQL_WINDOW_TUMBLE] = 1, [SQL_WINDOW_HOP] = 2,
                                [SQL_WINDOW_CUMULATE] = 2, [SQL_WINDOW_SESSION] = 1};
    const char *fn = window_names[w->kind];
    if (w->nargs != nargs[w->kind]) {
        sql_fail(p->s, p->sc, w->at.start, "%s takes %s after its time column", fn,
                 nargs[w->kind] == 1 ? (w->kind == SQL_WINDOW_SESSION ? "a gap" : "a size")
                 : w->kind == SQL_WINDOW_HOP ? "a slide and a size" : "a step and a size");
        return WEIR_EINVAL;
    }
    char col[SQL_NAME_MAX];
    char *c = sql_unquote(p->sc, w->time_col);
    if (!c)
        return WEIR_ENOMEM;
    snprintf(col, sizeof col, "%s", c);
    const weir_schema *schema = weir_table_schema(t);
    int ci = weir_schema_column_index(schema, col);
    if (ci < 0) {
        sql_text tx;
        sql_text_init(&tx, p->tmp);
        sql_text_copy(&tx, p->sc->text, w->time_col.start, w->time_col.len);
        if (check_text(p, &tx, schema, false, false) == 0) /* reports the column's hint */
            sql_fail(p->s, p->sc, w->time_col.start, "unknown column '%s'", col);
        return WEIR_EINVAL;
    }
    if (ci != weir_table_rowtime(t)) {
        sql_fail(p->s, p->sc, w->time_col.start,
                 "%s needs a time attribute: '%s' is not the rowtime of its input (declare "
                 "WATERMARK FOR %s AS ... in the table)", fn, col, col);
        return WEIR_EINVAL;
    }
    int64_t a = 0, b = 0;
    int r = interval_arg(p, w, 0, &a);
    if (!r && w->nargs > 1)
        r = interval_arg(p, w, 1, &b);
    if (r)
        return r;
    *out = (weir_table_window){0};
    switch (w->kind) {
    case SQL_WINDOW_TUMBLE: out->kind = WEIR_TABLE_TUMBLE; out->size_ms = a; break;
    case SQL_WINDOW_HOP: out->kind = WEIR_TABLE_HOP; out->slide_ms = a; out->size_ms = b; break;
    case SQL_WINDOW_CUMULATE:
        out->kind = WEIR_TABLE_CUMULATE;
        out->step_ms = a;
        out->size_ms = b;
        break;
    case SQL_WINDOW_SESSION: out->kind = WEIR_TABLE_SESSION; out->gap_ms = a; break;
    default: break;
    }
    return 0;
}

static weir_table *plan_from(planner *p, const sql_query *q)
{
    switch (q->from_kind) {
    case SQL_FROM_QUERY:
        return plan_query(p, q->from_query);
    case SQL_FROM_NAME:
    case SQL_FROM_WINDOW:
    default:
        return plan_name(p, q->from_name);
    }
}

/* ---- rewriting a grouped query's expressions ----------------------------------------- */

/* The name of aggregate call j's column in the aggregate's output, as
 * Flink's plans name a field with no name of its own: $f and its index (the
 * keys and window columns come first). */
static void agg_column_name(const grouping *g, int j, char *buf, size_t size)
{
    int window_columns = g->window != SQL_WINDOW_NONE ? 3 : 0;
    snprintf(buf, size, "$f%d", g->nkeys + window_columns + j);
}

/* The hidden column of an aggregate call (added when new and `add`). -1 if
 * it is not there and not added, -2 when out of memory. */
static int agg_index(planner *p, grouping *g, sql_span call, bool add)
{
    for (int j = 0; j < g->naggs; j++)
        if (same_tokens(p, g->aggs[j], call))
            return j;
    if (!add)
        return -1;
    if (g->naggs == g->aggs_cap) {
        int cap = g->aggs_cap ? 2 * g->aggs_cap : 8;
        sql_span *v = sql_arena_alloc(p->tmp, (size_t)cap * sizeof *v);
        if (!v)
            return -2;
        if (g->naggs)
            memcpy(v, g->aggs, (size_t)g->naggs * sizeof *v);
        g->aggs = v;
        g->aggs_cap = cap;
    }
    g->aggs[g->naggs] = call;
    return g->naggs++;
}

/* Whether tokens a[0..n) and b[0..m) are the same: same kinds and texts,
 * words without regard to case (INTERVAL '1' minute is INTERVAL '1'
 * MINUTE). */
static bool same_args(const planner *p, const sql_tok *a, size_t n, const sql_tok *b, size_t m)
{
    if (n != m)
        return false;
    const char *text = p->sc->text;
    for (size_t i = 0; i < n; i++) {
        if (a[i].kind != b[i].kind || a[i].len != b[i].len)
            return false;
        if (a[i].kind == SQL_TOK_WORD ? strncasecmp(text + a[i].start, text + b[i].start, a[i].len)
                                      : memcmp(text + a[i].start, text + b[i].start, a[i].len))
            return false;
    }
    return true;
}

/* Whether the arguments of the auxiliary call t->v[i] (its '(' at i + 1,
 * its ')' at end) are those of the GROUP BY window g->win, as Calcite's
 * check of an auxiliary group function compares them: the same time
 * column, and the same interval expressions (as written, not by value). */
static bool window_args_match(planner *p, const grouping *g, const sql_tokens *t, size_t i,
                              size_t end)
{
    const sql_window *w = g->win;
    size_t from = i + 2;
    int arg = 0;
    bool match = true;
    for (size_t k = from, depth = 0; match && k <= end; k++) {
        if (k < end && is_sym(p, &t->v[k], "("))
            depth++;
        else if (k < end && is_sym(p, &t->v[k], ")"))
            depth--;
        if (k < end && !(depth == 0 && is_sym(p, &t->v[k], ",")))
            continue;
        /* the argument t->v[from..k) */
        if (arg > w->nargs || k == from) {
            match = false;
        } else if (arg == 0) {
            char name[SQL_NAME_MAX];
            sql_span sp = {.start = t->v[from].start,
                           .len = t->v[k - 1].start + t->v[k - 1].len - t->v[from].start};
            char *col = sql_unquote(p->sc, w->time_col);
            match = col && k - from == 1 && bare_name(p, sp, name, sizeof name) &&
                    strcmp(name, col) == 0;
        } else {
            sql_tokens wa = {0};
            match = lex_span(p, w->args[arg - 1], &wa) == 0 &&
                    same_args(p, &t->v[from], k - from, wa.v, wa.n);
            sql_tokens_free(&wa);
        }
        arg++;
        from = k + 1;
    }
    return match && arg == w->nargs + 1;
}

/* Which window column a TUMBLE_START-like call t->v[i] (its ')' at end)
 * names ("window_start"), or NULL with the error when it does not match
 * the GROUP BY window: Calcite's message (Flink's planner refuses
 * TUMBLE_START(ts, INTERVAL '1' MINUTE) with TUMBLE(ts, INTERVAL '2'
 * MINUTE), which would otherwise be the 2-minute windows' starts). */
static const char *window_function(planner *p, const grouping *g, const sql_tokens *t,
                                   size_t i, size_t end)
{
    const sql_tok *tok = &t->v[i];
    const char *w = p->sc->text + tok->start;
    const char *us = memchr(w, '_', tok->len);
    size_t fn = us ? (size_t)(us - w) : 0;
    const char *part = us ? us + 1 : "";
    size_t plen = us ? tok->len - fn - 1 : 0;
    const char *col = plen == 5 && strncasecmp(part, "START", 5) == 0     ? "window_start"
                      : plen == 3 && strncasecmp(part, "END", 3) == 0     ? "window_end"
                      : plen == 7 && strncasecmp(part, "ROWTIME", 7) == 0 ? "window_time"
                                                                          : NULL;
    if (!col)
        return NULL;
    if (g->tvf || g->window == SQL_WINDOW_NONE || g->window == SQL_WINDOW_CUMULATE ||
        strlen(window_names[g->window]) != fn ||
        strncasecmp(window_names[g->window], w, fn) != 0 ||
        !window_args_match(p, g, t, i, end)) {
        char name[32], group[16];
        snprintf(name, sizeof name, "%.*s", (int)tok->len, w);
        snprintf(group, sizeof group, "%.*s", (int)fn, w);
        for (char *c = name; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        for (char *c = group; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        sql_fail(p->s, p->sc, tok->start, "Call to auxiliary group function '%s' must have "
                 "matching call to group function '%s' in GROUP BY clause", name, group);
        return NULL;
    }
    return col;
}

static const char *const window_function_names[] = {
    "TUMBLE_START", "TUMBLE_END", "TUMBLE_ROWTIME", "HOP_START",      "HOP_END",
    "HOP_ROWTIME",  "SESSION_START", "SESSION_END", "SESSION_ROWTIME", NULL};

/* Rewrites `sp` into `out`: each aggregate call as its hidden column, each
 * window function as its window column, and the whole span as its key's
 * column when it is a computed GROUP BY expression. `collect`: only register
 * the aggregate calls (out unused). 0, or an error. */
static int rewrite(planner *p, grouping *g, sql_span sp, sql_text *out, bool collect)
{
    for (int k = 0; !collect && k < g->nkeys; k++)
        if (g->key_computed[k] && same_tokens(p, g->keys[k], sp)) {
            sql_text_put(out, sp.start, g->key_names[k]);
            return 0;
        }
    sql_tokens t = {0};
    int r = lex_span(p, sp, &t);
    uint32_t copied = sp.start;
    for (size_t i = 0; r == 0 && i < t.n; i++) {
        const sql_tok *tok = &t.v[i];
        char name[32];
        const char *put = NULL;
        size_t end = i;
        if (is_call(p, &t, i, aggregate_names)) {
            end = closing(p, &t, i + 1);
            sql_span call = {.start = tok->start,
                             .len = t.v[end].start + t.v[end].len - tok->start};
            int j = agg_index(p, g, call, collect);
            if (j == -2) {
                sql_fail(p->s, p->sc, tok->start, "out of memory");
                r = WEIR_ENOMEM;
                break;
            }
            agg_column_name(g, j, name, sizeof name);
            put = name;
        } else if (is_call(p, &t, i, window_function_names)) {
            end = closing(p, &t, i + 1);
            if (!(put = window_function(p, g, &t, i, end))) {
                r = WEIR_EINVAL;
                break;
            }
        }
        if (!put)
            continue;
        if (!collect) {
            sql_text_copy(out, p->sc->text, copied, tok->start - copied);
            sql_text_put(out, tok->start, put);
        }
        copied = t.v[end].start + t.v[end].len;
        i = end;
    }
    if (r == 0 && !collect)
        sql_text_copy(out, p->sc->text, copied, sp.start + sp.len - copied);
    sql_tokens_free(&t);
    return r;
}

static bool has_aggregate(planner *p, sql_span sp)
{
    sql_tokens t = {0};
    bool found = false;
    if (lex_span(p, sp, &t) == 0)
        for (size_t i = 0; !found && i < t.n; i++)
            found = is_call(p, &t, i, aggregate_names);
    sql_tokens_free(&t);
    return found;
}

/* ---- SELECT lists ---------------------------------------------------------------- */

/* The output name of select item i: its alias, a bare column's name, or
 * Flink's EXPR$i. */
static int item_name(planner *p, const sql_item *it, int i, char *out, size_t size)
{
    if (it->alias.len) {
        char *a = sql_unquote(p->sc, it->alias);
        if (!a)
            return WEIR_ENOMEM;
        snprintf(out, size, "%s", a);
    } else if (!bare_name(p, it->expr, out, size)) {
        snprintf(out, size, "EXPR$%d", i);
    }
    return 0;
}

/* Appends `before` and the name in back quotes (a back quote in it
 * doubled). */
static void quoted_name(sql_text *t, const char *before, const char *name)
{
    sql_text_glue(t, before);
    sql_text_glue(t, "`");
    for (const char *q; (q = strchr(name, '`')); name = q + 1) {
        sql_text_glue_n(t, name, (size_t)(q - name));
        sql_text_glue(t, "``");
    }
    sql_text_glue(t, name);
    sql_text_glue(t, "`");
}

/* Appends " AS `name`" (names are quoted: they may be EXPR$0 or a keyword). */
static void glue_alias(sql_text *t, const char *name)
{
    quoted_name(t, " AS ", name);
}

/* Appends `item` to a comma-separated list, after checking it alone
 * against `schema` (NULL: a window column, which only the window aggregate
 * makes, and which it checks). */
static int list_add(planner *p, sql_text *list, const sql_text *item, const weir_schema *schema,
                    bool allow_agg)
{
    int r = schema ? check_text(p, item, schema, true, allow_agg) : 0;
    if (r)
        return r;
    if (list->len)
        sql_text_glue(list, ", ");
    sql_text_append(list, item);
    if (list->nomem) {
        sql_fail(p->s, p->sc, item->npieces ? item->pieces[0].orig : 0, "out of memory");
        return WEIR_ENOMEM;
    }
    return 0;
}

/* A plain (not grouped) select list over t. */
static weir_table *plan_select(planner *p, const sql_query *q, weir_table *t)
{
    const weir_schema *schema = weir_table_schema(t);
    sql_text list;
    sql_text_init(&list, p->tmp);
    for (int i = 0; i < q->nitems; i++) {
        sql_text it;
        char name[SQL_NAME_MAX];
        if (item_name(p, &q->items[i], i, name, sizeof name))
            return sql_fail(p->s, p->sc, q->items[i].expr.start, "out of memory");
        sql_text_init(&it, p->tmp);
        sql_text_copy(&it, p->sc->text, q->items[i].expr.start, q->items[i].expr.len);
        glue_alias(&it, name);
        if (list_add(p, &list, &it, schema, false))
            return NULL;
    }
    weir_table *out = weir_table_select(t, list.buf);
    return out ? out : table_fail(p, q->at.start);
}

/* SELECT DISTINCT: a group aggregate keyed by every column, no aggregates. */
static weir_table *plan_distinct(planner *p, const sql_query *q, weir_table *t)
{
    const weir_schema *schema = weir_table_schema(t);
    sql_text cols;
    sql_text_init(&cols, p->tmp);
    for (int c = 0; c < weir_schema_ncolumns(schema); c++)
        quoted_name(&cols, c ? ", " : "", weir_schema_column_name(schema, c));
    if (cols.nomem)
        return sql_fail(p->s, p->sc, q->at.start, "out of memory");
    weir_table *out = weir_table_group_by(t, cols.buf, cols.buf);
    return out ? out : table_fail(p, q->at.start);
}

/* ---- grouped queries ---------------------------------------------------------------- */

static bool is_window_column(const char *name)
{
    return strcmp(name, "window_start") == 0 || strcmp(name, "window_end") == 0 ||
           strcmp(name, "window_time") == 0;
}

/* GROUP BY's expressions as keys: a bare column is itself, anything else a
 * computed column $fN of a Calc planned before the aggregate (*t is
 * replaced by it). A TVF's window_start / window_end are the window. */
static int group_keys(planner *p, const sql_query *q, grouping *g, weir_table **t)
{
    const weir_schema *schema = weir_table_schema(*t);
    bool computed = false, has_start = false, has_end = false;
    int ncomputed = 0;
    size_t n = q->ngroup ? (size_t)q->ngroup : 1;
    g->keys = sql_arena_alloc(p->tmp, n * sizeof *g->keys);
    g->key_names = sql_arena_alloc(p->tmp, n * sizeof *g->key_names);
    g->key_computed = sql_arena_alloc(p->tmp, n * sizeof *g->key_computed);
    if (!g->keys || !g->key_names || !g->key_computed) {
        sql_fail(p->s, p->sc, q->at.start, "out of memory");
        return WEIR_ENOMEM;
    }
    for (int i = 0; i < q->ngroup; i++) {
        char name[SQL_NAME_MAX];
        sql_span sp = q->group[i];
        if (bare_name(p, sp, name, sizeof name) && g->tvf && is_window_column(name)) {
            has_start = has_start || strcmp(name, "window_start") == 0;
            has_end = has_end || strcmp(name, "window_end") == 0;
            continue;
        }
        int k = g->nkeys++;
        g->keys[k] = sp;
        if (bare_name(p, sp, name, sizeof name) && weir_schema_column_index(schema, name) >= 0) {
            snprintf(g->key_names[k], sizeof g->key_names[k], "%s", name);
            continue;
        }
        int r = check_span(p, sp, schema);
        if (r)
            return r;
        if (has_aggregate(p, sp)) {
            sql_fail(p->s, p->sc, sp.start, "an aggregate call in GROUP BY");
            return WEIR_EINVAL;
        }
        /* Flink's name of a computed field: $f and its index in the Calc */
        snprintf(g->key_names[k], sizeof g->key_names[k], "$f%d",
                 weir_schema_ncolumns(schema) + ncomputed++);
        g->key_computed[k] = computed = true;
    }
    if (g->tvf && (!has_start || !has_end)) {
        sql_fail(p->s, p->sc, q->from_window.at.start,
                 "a window TVF is read by GROUP BY window_start, window_end[, keys]: weir "
                 "plans no other use of it");
        return WEIR_EINVAL;
    }
    if (!computed)
        return 0;
    /* every column, then the computed keys */
    sql_text list;
    sql_text_init(&list, p->tmp);
    for (int c = 0; c < weir_schema_ncolumns(schema); c++)
        quoted_name(&list, c ? ", " : "", weir_schema_column_name(schema, c));
    for (int k = 0; k < g->nkeys; k++) {
        if (!g->key_computed[k])
            continue;
        sql_text_glue(&list, ", ");
        sql_text_copy(&list, p->sc->text, g->keys[k].start, g->keys[k].len);
        glue_alias(&list, g->key_names[k]);
    }
    weir_table *calc = weir_table_select(*t, list.buf);
    if (!calc) {
        table_fail(p, q->group[0].start);
        return WEIR_EINVAL;
    }
    *t = calc;
    return 0;
}

/* Whether a rewritten item is only a name the aggregate node makes: a key,
 * a window column or an aggregate call. */
static bool direct_item(planner *p, const grouping *g, const sql_item *it)
{
    char name[SQL_NAME_MAX];
    if (bare_name(p, it->expr, name, sizeof name)) {
        if (is_window_column(name))
            return g->window != SQL_WINDOW_NONE && g->tvf;
        for (int k = 0; k < g->nkeys; k++)
            if (!g->key_computed[k] && strcmp(g->key_names[k], name) == 0)
                return true;
        return false;
    }
    sql_tokens t = {0};
    bool direct = false;
    if (lex_span(p, it->expr, &t) == 0 && t.n > 1 &&
        (is_call(p, &t, 0, aggregate_names) || is_call(p, &t, 0, window_function_names)))
        direct = closing(p, &t, 1) == t.n - 1;
    sql_tokens_free(&t);
    return direct;
}

/* The aggregate node's items: the keys, the window columns and the hidden
 * aggregates (or, when `direct`, the select list itself). */
static int aggregate_items(planner *p, const sql_query *q, grouping *g, bool direct,
                           const weir_schema *schema, sql_text *list)
{
    if (direct) {
        for (int i = 0; i < q->nitems; i++) {
            char name[SQL_NAME_MAX];
            sql_text it;
            sql_text_init(&it, p->tmp);
            if (item_name(p, &q->items[i], i, name, sizeof name))
                return WEIR_ENOMEM;
            sql_tokens t = {0};
            int r = lex_span(p, q->items[i].expr, &t);
            bool window_fn = r == 0 && is_call(p, &t, 0, window_function_names);
            sql_tokens_free(&t);
            char bare[SQL_NAME_MAX];
            bool window_col = window_fn || (bare_name(p, q->items[i].expr, bare, sizeof bare) &&
                                            is_window_column(bare));
            if (window_fn) {
                if (rewrite(p, g, q->items[i].expr, &it, false))
                    return WEIR_EINVAL;
            } else {
                sql_text_copy(&it, p->sc->text, q->items[i].expr.start, q->items[i].expr.len);
            }
            glue_alias(&it, name);
            if ((r = list_add(p, list, &it, window_col ? NULL : schema, true)))
                return r;
        }
        return 0;
    }
    for (int k = 0; k < g->nkeys; k++) {
        sql_text it;
        sql_text_init(&it, p->tmp);
        sql_text_put(&it, g->keys[k].start, g->key_names[k]);
        int r = list_add(p, list, &it, schema, true);
        if (r)
            return r;
    }
    if (g->window != SQL_WINDOW_NONE)
        sql_text_glue(list, list->len ? ", window_start, window_end, window_time"
                                      : "window_start, window_end, window_time");
    for (int j = 0; j < g->naggs; j++) {
        char name[32];
        sql_text it;
        sql_text_init(&it, p->tmp);
        agg_column_name(g, j, name, sizeof name);
        sql_text_copy(&it, p->sc->text, g->aggs[j].start, g->aggs[j].len);
        glue_alias(&it, name);
        int r = list_add(p, list, &it, schema, true);
        if (r)
            return r;
    }
    return 0;
}

/* The group keys as the table layer's key list. */
static void key_list(const grouping *g, sql_text *out)
{
    for (int k = 0; k < g->nkeys; k++)
        quoted_name(out, k ? ", " : "", g->key_names[k]);
}

/* A select-list item that names a column of the input the aggregate does
 * not keep: Flink's "Expression 'x' is not being grouped". */
static int not_grouped(planner *p, const sql_text *it, const weir_schema *agg_schema,
                       const weir_schema *in_schema)
{
    weir_expr *e = NULL;
    char msg[1024];
    if (weir_expr_compile_item(it->buf, agg_schema, 0, &e, msg, sizeof msg) == 0) {
        weir_expr_destroy(e);
        return 0;
    }
    if (weir_expr_compile_item(it->buf, in_schema, 0, &e, msg, sizeof msg) == 0) {
        weir_expr_destroy(e);
        size_t pos;
        sql_expr_message(it->buf, msg, &pos);
        uint32_t at = it->npieces ? it->pieces[0].orig : 0;
        const char *as = strstr(it->buf, " AS `");
        size_t n = as ? (size_t)(as - it->buf) : it->len;
        char *expr = sql_arena_alloc(p->tmp, n + 1), echo[WEIR__EXPR_ECHO + 4];
        if (!expr) {
            sql_fail(p->s, p->sc, at, "out of memory");
            return WEIR_ENOMEM;
        }
        memcpy(expr, it->buf, n);
        sql_fail(p->s, p->sc, at, "expression '%s' is not being grouped",
                 weir__expr_echo(expr, echo));
        return WEIR_EINVAL;
    }
    return check_text(p, it, agg_schema, true, false);
}

static weir_table *plan_grouped(planner *p, const sql_query *q, weir_table *t)
{
    grouping g = {.window = q->from_kind == SQL_FROM_WINDOW ? q->from_window.kind
                                                             : q->group_window.kind,
                  .tvf = q->from_kind == SQL_FROM_WINDOW};
    const sql_window *win = g.tvf ? &q->from_window : &q->group_window;
    g.win = win;
    weir_table_window tw;
    if (g.window != SQL_WINDOW_NONE && window_of(p, win, t, &tw))
        return NULL;
    if (q->star)
        return sql_fail(p->s, p->sc, q->at.start, "SELECT * in a grouped query");
    const weir_schema *in_schema = weir_table_schema(t);
    if (group_keys(p, q, &g, &t))
        return NULL;
    const weir_schema *schema = weir_table_schema(t);
    for (int i = 0; i < q->nitems; i++)
        if (rewrite(p, &g, q->items[i].expr, NULL, true))
            return NULL;
    if (q->having.len && rewrite(p, &g, q->having, NULL, true))
        return NULL;
    bool direct = !q->having.len;
    for (int i = 0; direct && i < q->nitems; i++)
        direct = direct_item(p, &g, &q->items[i]);
    sql_text list;
    sql_text_init(&list, p->tmp);
    if (aggregate_items(p, q, &g, direct, schema, &list))
        return NULL;
    sql_text keys;
    sql_text_init(&keys, p->tmp);
    key_list(&g, &keys);
    if (keys.nomem || list.nomem)
        return sql_fail(p->s, p->sc, q->at.start, "out of memory");
    weir_table *agg = g.window != SQL_WINDOW_NONE
                          ? weir_table_window_aggregate(t, &tw, keys.buf, list.buf)
                          : weir_table_group_by(t, keys.buf, list.buf);
    if (!agg)
        return table_fail(p, q->at.start);
    if (direct)
        return agg;
    const weir_schema *agg_schema = weir_table_schema(agg);
    if (q->having.len) {
        sql_text h;
        sql_text_init(&h, p->tmp);
        if (rewrite(p, &g, q->having, &h, false) || check_text(p, &h, agg_schema, false, false))
            return NULL;
        if (!(agg = weir_table_where(agg, h.buf)))
            return table_fail(p, q->having.start);
    }
    sql_text out;
    sql_text_init(&out, p->tmp);
    for (int i = 0; i < q->nitems; i++) {
        char name[SQL_NAME_MAX];
        sql_text it;
        sql_text_init(&it, p->tmp);
        if (item_name(p, &q->items[i], i, name, sizeof name) ||
            rewrite(p, &g, q->items[i].expr, &it, false))
            return NULL;
        glue_alias(&it, name);
        if (not_grouped(p, &it, agg_schema, in_schema) ||
            list_add(p, &out, &it, agg_schema, false))
            return NULL;
    }
    weir_table *sel = weir_table_select(agg, out.buf);
    return sel ? sel : table_fail(p, q->at.start);
}

/* ---- queries ------------------------------------------------------------------------ */

static bool is_grouped(planner *p, const sql_query *q)
{
    if (q->ngroup || q->group_window.kind || q->having.len || q->from_kind == SQL_FROM_WINDOW)
        return true;
    for (int i = 0; i < q->nitems; i++)
        if (has_aggregate(p, q->items[i].expr))
            return true;
    return false;
}

static weir_table *plan_body(planner *p, const sql_query *q)
{
    weir_table *t = plan_from(p, q);
    if (!t)
        return NULL;
    if (q->where.len) {
        if (has_aggregate(p, q->where))
            return sql_fail(p->s, p->sc, q->where.start,
                            "an aggregate call in WHERE (HAVING filters groups)");
        if (check_span(p, q->where, weir_table_schema(t)))
            return NULL;
        char *w = sql_span_text(p->sc, q->where);
        if (!w)
            return sql_fail(p->s, p->sc, q->where.start, "out of memory");
        if (!(t = weir_table_where(t, w)))
            return table_fail(p, q->where.start);
    }
    if (is_grouped(p, q)) {
        if (q->distinct)
            return sql_fail(p->s, p->sc, q->at.start, "SELECT DISTINCT with GROUP BY or "
                            "aggregates: weir does not plan it (group by the columns instead)");
        return plan_grouped(p, q, t);
    }
    if (!q->star && !(t = plan_select(p, q, t)))
        return NULL;
    return q->distinct ? plan_distinct(p, q, t) : t;
}

static weir_table *plan_query(planner *p, const sql_query *q)
{
    if (p->depth == PLAN_MAX_DEPTH)
        return sql_fail(p->s, p->sc, q->at.start, "views and subqueries nested deeper than %d",
                        PLAN_MAX_DEPTH);
    p->depth++;
    weir_table *t = plan_union(p, q);
    p->depth--;
    return t;
}

static weir_table *plan_union(planner *p, const sql_query *q)
{
    int n = 0;
    for (const sql_query *b = q; b; b = b->union_all)
        n++;
    weir_table **tables = sql_arena_alloc(p->tmp, (size_t)n * sizeof *tables);
    if (!tables)
        return sql_fail(p->s, p->sc, q->at.start, "out of memory");
    n = 0;
    for (const sql_query *b = q; b; b = b->union_all)
        if (!(tables[n++] = plan_body(p, b)))
            return NULL;
    if (n == 1)
        return tables[0];
    weir_table *u = weir_table_union_all(tables, n);
    return u ? u : table_fail(p, q->union_all->at.start);
}

weir_table *sql_plan_query(weir_sql_session *s, weir_job *job, weir_table_env *env,
                           sql_script *sc, const sql_query *q)
{
    sql_arena *tmp = NULL;
    planner p = {.s = s, .job = job, .env = env, .sc = sc, .tmp = &tmp};
    weir_table *t = plan_query(&p, q);
    sql_arena_free(&tmp);
    return t;
}
