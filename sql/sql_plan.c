/* sql_plan.c — the planner: a parsed query (sql_ast.h) onto the table layer
 * (weir/table.h), as Flink's planner puts a SELECT onto its relational
 * nodes.
 *
 *   FROM name | view | (query) | TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), ...))
 *   WHERE p                     weir_table_where_expr
 *   SELECT items                weir_table_select_exprs (DISTINCT: a group by all)
 *   GROUP BY keys [, window]    a Calc for computed keys, then
 *   HAVING h                    weir_table_group_by_exprs or
 *                               weir_table_window_aggregate_exprs, a filter,
 *                               and a Calc for the select list
 *   UNION ALL                   weir_table_union_all
 *
 * Every expression is a syntax tree (weir/expr_ast.h) that the planner
 * binds once, against the schema it reads, and hands to the table layer as
 * the compiled expression: no text goes back through a parser, and an
 * error is reported at its own line and column.
 *
 * The table layer takes aggregate calls only at the top of its items, and
 * columns as group keys. So a grouped query's trees are rewritten: each
 * aggregate call of the select list and HAVING becomes a column of the
 * aggregate node, each computed GROUP BY expression a column of a Calc
 * before it (both named as Flink's plans name a field of no name of its
 * own: $f and its index), and the group window's TUMBLE_START / _END /
 * _ROWTIME (HOP_, SESSION_) its window_start / window_end / window_time;
 * HAVING and the select list are then a filter and a projection over the
 * aggregate's columns. When the select list needs no rewriting beyond
 * naming (every item a key, a window column or an aggregate call, and no
 * HAVING), the aggregate node makes the select list itself, as Flink's
 * plan does.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql_internal.h"
#include "sql_plan.h"
#include "sql_lexer.h"
#include "message_text.h"
#include "weir/expr_ast.h"


/* Views and subqueries inside each other deeper than this are refused: the
 * planner recurses per level. */
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
    const weir_ast **keys;
    char (*key_names)[SQL_NAME_MAX];
    bool *key_computed;
    int naggs, aggs_cap;
    const weir_ast **aggs;
    const weir_schema *in_schema; /* the grouped input's (a join's: t.col names its columns) */
} grouping;

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

static void *no_memory(planner *p, uint32_t at)
{
    return sql_fail(p->s, p->sc, at, "out of memory");
}

/* ---- trees ---------------------------------------------------------------------------- */

static bool is_call_of(const weir_ast *a, const char *const *names)
{
    if (a->kind != WEIR_AST_CALL)
        return false;
    for (int k = 0; names[k]; k++)
        if (strcasecmp(a->text, names[k]) == 0)
            return true;
    return false;
}

static bool has_aggregate(const weir_ast *a)
{
    if (!a)
        return false;
    if (weir_ast_is_aggregate_call(a))
        return true;
    if (has_aggregate(a->a) || has_aggregate(a->b))
        return true;
    for (int i = 0; i < a->nargs; i++)
        if (has_aggregate(a->args[i]))
            return true;
    return false;
}

/* The name of a bare column (an unqualified name), or NULL. */
static const char *bare_name(const weir_ast *a)
{
    return a && a->kind == WEIR_AST_NAME && !a->qualifier ? a->text : NULL;
}

/* A name node standing where `at` stood (messages point there). */
static weir_ast *name_node(planner *p, const char *name, const weir_ast *at)
{
    weir_ast *n = weir_ast_new(p->trees, WEIR_AST_NAME, name, at ? at->start : 0,
                               at ? at->end : 0);
    if (!n)
        no_memory(p, at ? at->start : 0);
    return n;
}

int sql_plan_rewrite_children(planner *p, const weir_ast *a, sql_rewrite_fn fn, const void *arg,
                              const weir_ast **out)
{
    *out = a;
    const weir_ast *na, *nb;
    int r = fn(p, arg, a->a, &na);
    if (!r)
        r = fn(p, arg, a->b, &nb);
    if (r)
        return r;
    const weir_ast **args = NULL;
    for (int i = 0; i < a->nargs; i++) {
        const weir_ast *x;
        if ((r = fn(p, arg, a->args[i], &x)))
            return r;
        if (x != a->args[i] && !args) {
            if (!(args = sql_arena_alloc(p->tmp, (size_t)a->nargs * sizeof *args))) {
                no_memory(p, a->start);
                return WEIR_ENOMEM;
            }
            memcpy(args, a->args, (size_t)i * sizeof *args);
        }
        if (args)
            args[i] = x;
    }
    if (na == a->a && nb == a->b && !args)
        return 0;
    weir_ast *n = weir_ast_new(p->trees, a->kind, NULL, a->start, a->end);
    if (!n) {
        no_memory(p, a->start);
        return WEIR_ENOMEM;
    }
    *n = *a; /* the rest as it was; text, qualifier and the arrays shared */
    n->a = (weir_ast *)na;
    n->b = (weir_ast *)nb;
    if (args)
        n->args = (weir_ast **)args;
    *out = n;
    return 0;
}

/* ---- binding ---------------------------------------------------------------------------- */

/* A list of compiled expressions being made: handed over to the table layer
 * whole, or destroyed. */
typedef sql_exprs exprs;

static void exprs_free(exprs *x)
{
    for (int i = 0; i < x->n; i++)
        weir_expr_destroy(x->v[i]);
    x->n = 0;
}

/* Whether `schema` holds the columns of the join being read (the join's
 * own output, or a filter's over it), so its names bind by the tables'
 * qualifiers. */
static bool join_scope_fits(const planner *p, const weir_schema *schema)
{
    const weir_schema *js = p->scope.schema;
    if (p->scope.ninputs == 0 || !js || p->scope_off)
        return false;
    if (js == schema)
        return true;
    int n = weir_schema_ncolumns(js);
    if (weir_schema_ncolumns(schema) != n)
        return false;
    for (int c = 0; c < n; c++)
        if (strcmp(weir_schema_column_name(js, c), weir_schema_column_name(schema, c)) != 0)
            return false;
    return true;
}

/* Binds `a` against `schema` (a select item when alias, or allow_agg >= 0)
 * and appends it to x. `text` is the statements' text when `a` is a tree of
 * them as parsed (an expression then shows as written), NULL for a
 * rewritten tree (it shows as formatted). 0, or WEIR_E* after reporting at
 * the place in the statements. */
static int bind(planner *p, exprs *x, const weir_ast *a, const char *text,
                const weir_schema *schema, int allow_agg, const char *alias, uint32_t list_at)
{
    if (x->n == PLAN_MAX_ITEMS) {
        sql_fail(p->s, p->sc, list_at, "a list of more than %d items (the table layer's limit)",
                 PLAN_MAX_ITEMS);
        return WEIR_EINVAL;
    }
    weir_expr_scope scope = {.schema = schema, .zone = weir_table_env_config(p->env)->time_zone};
    if (join_scope_fits(p, schema)) {
        scope = p->scope;
        scope.schema = schema;
    }
    size_t at = 0;
    char msg[1024];
    int r = weir_expr_bind(a, text, &scope, allow_agg, alias, &x->v[x->n], &at, msg, sizeof msg);
    if (r == WEIR_ENOMEM)
        no_memory(p, a->start);
    else if (r)
        sql_fail(p->s, p->sc, (uint32_t)at, "%s", msg);
    else
        x->n++;
    return r;
}

/* A tree as parsed shows as written: the statements' text, for binding. */
static const char *text_of(const planner *p, const weir_ast *a, const weir_ast *as_parsed)
{
    return a == as_parsed ? p->sc->text : NULL;
}

/* The same for a select item: a column of a t.* shows as formatted (t.col). */
static const char *item_text(const planner *p, const sql_item *it, const weir_ast *a)
{
    return it->star_of.len ? NULL : text_of(p, a, it->ast);
}

/* ---- FROM --------------------------------------------------------------------------- */

static weir_table *plan_query(planner *p, const sql_query *q);
static weir_table *plan_union(planner *p, const sql_query *q);
static weir_table *plan_after_from(planner *p, const sql_query *q, weir_table *t);
static weir_table *values_source(planner *p, int nrows, uint32_t at);

static weir_table *plan_read(planner *p, sql_span name_span)
{
    if (sql_cancelled(p->s))
        return sql_fail(p->s, p->sc, name_span.start, "cancelled");
    char *name = sql_unquote(p->sc, name_span);
    if (!name)
        return sql_fail(p->s, p->sc, name_span.start, "out of memory");
    sql_relation *r = sql_catalog_find(p->s, name);
    if (!r) {
        /* a table of the program's, registered as a view of the env */
        weir_table *view = weir_table_env_view(p->env, name);
        if (view)
            return view;
        const char *hint = sql_catalog_hint(p->s, p->env, name);
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
    if (!sql_catalog_is_source(r))
        return sql_fail(p->s, p->sc, name_span.start, "Connector '%s' can only be used as a "
                        "sink. It cannot be used as a source. (table '%s')",
                        sql_catalog_connector_name(r), r->name);
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
    const weir_ast *a = w->arg_asts[i];
    if (a->kind != WEIR_AST_INTERVAL) {
        sql_fail(p->s, p->sc, a->start, "expected an interval (INTERVAL '1' MINUTE)");
        return WEIR_EINVAL;
    }
    *ms = a->value;
    if (*ms <= 0) {
        sql_fail(p->s, p->sc, a->start, "a window's interval must be positive");
        return WEIR_EINVAL;
    }
    return 0;
}

static const char *join_column_name(planner *p, const weir_schema *schema, const weir_ast *a);

/* A window's time column as the name of a column of `schema`: ts, or B.ts
 * (B the source's qualifier: the column of B it names). NULL after
 * reporting. */
static const char *window_column(planner *p, const sql_window *w, const weir_schema *schema)
{
    char *col = sql_unquote(p->sc, w->time_col);
    char *qual = w->time_qual.len ? sql_unquote(p->sc, w->time_qual) : NULL;
    if (!col || (w->time_qual.len && !qual)) {
        no_memory(p, w->time_col.start);
        return NULL;
    }
    if (!qual)
        return col;
    uint32_t at = w->time_qual.start;
    weir_ast *n = weir_ast_new(p->trees, WEIR_AST_NAME, col, at,
                               w->time_col.start + w->time_col.len);
    if (!n) {
        no_memory(p, at);
        return NULL;
    }
    n->qualifier = qual;
    n->depth = 1;
    const char *jc = join_column_name(p, schema, n);
    if (jc)
        return jc;
    exprs x = {.n = 0};
    if (bind(p, &x, n, NULL, schema, -1, NULL, at) == 0) { /* else the binder's message */
        exprs_free(&x);
        sql_fail(p->s, p->sc, at, "unknown column '%s.%s'", qual, col);
    }
    return NULL;
}

/* The table layer's window for a group window or a TVF: its intervals, and
 * its time column, which must be t's rowtime. */
static int window_of(planner *p, const sql_window *w, bool tvf, const weir_table *t,
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
    const weir_schema *schema = weir_table_schema(t);
    const char *col = window_column(p, w, schema);
    if (!col)
        return WEIR_EINVAL;
    int ci = weir_schema_column_index(schema, col);
    if (ci < 0) {
        /* the binder's message, with its hint */
        exprs x = {.n = 0};
        weir_ast *n = weir_ast_new(p->trees, WEIR_AST_NAME, col, w->time_col.start,
                                   w->time_col.start + w->time_col.len);
        if (!n) {
            no_memory(p, w->time_col.start);
            return WEIR_ENOMEM;
        }
        if (bind(p, &x, n, NULL, schema, -1, NULL, w->time_col.start) == 0) {
            exprs_free(&x);
            sql_fail(p->s, p->sc, w->time_col.start, "unknown column '%s'", col);
        }
        return WEIR_EINVAL;
    }
    bool proctime = ci != weir_table_rowtime(t) && ci == weir_table_proctime(t);
    if (ci != weir_table_rowtime(t) && !proctime) {
        /* Flink's words: its window TVF's, its group window's */
        char type[64];
        weir_type_format(weir_schema_column_type(schema, ci), type, sizeof type);
        char *ltz = strstr(type, "TIMESTAMP_LTZ");
        if (ltz) { /* Calcite writes the type's SQL name */
            char rest[64];
            snprintf(rest, sizeof rest, "%s", ltz + strlen("TIMESTAMP_LTZ"));
            snprintf(ltz, sizeof type - (size_t)(ltz - type),
                     "TIMESTAMP_WITH_LOCAL_TIME_ZONE%s", rest);
        }
        if (tvf)
            sql_fail(p->s, p->sc, w->time_col.start, "The window function requires the timecol "
                     "is a time attribute type, but is %s. ('%s' is neither the rowtime of its "
                     "input, declared by WATERMARK FOR %s AS ..., nor a PROCTIME() column)", type,
                     col, col);
        else
            sql_fail(p->s, p->sc, w->time_col.start, "Window can only be defined on a time "
                     "attribute column, but is type of %s ('%s' is neither the rowtime of its "
                     "input, declared by WATERMARK FOR %s AS ..., nor a PROCTIME() column)",
                     type, col, col);
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
    out->proctime = proctime;
    return 0;
}

static weir_table *plan_joins(planner *p, const sql_query *q, sql_join_push *push,
                              weir_table *t);
static weir_table *plan_first_source(planner *p, const sql_query *q);
static weir_table *plan_unnest(planner *p, const sql_join *j, weir_table *t,
                               weir_expr_scope *scope);

static const char *qualifier_of(planner *p, sql_from_kind kind, sql_span name, sql_span alias);

/* A regular join (JOIN ... ON, a comma join): not lookup, temporal or
 * UNNEST. */
static bool regular_join(const sql_join *j)
{
    return !j->for_time_ast && j->from_kind != SQL_FROM_UNNEST;
}

/* FROM's table. With joins, *qp may become a copy of the query whose WHERE
 * lost the conjuncts that filter a join's input (sql_plan_join_inputs.c). */
static weir_table *plan_from(planner *p, const sql_query **qp)
{
    const sql_query *q = *qp;
    if (q->nttl && !q->njoins)
        return sql_fail(p->s, p->sc, q->ttl[0].name.start, "not supported: a STATE_TTL hint "
                        "on a query without a join (weir's STATE_TTL sets a regular join's "
                        "inputs' state times to live)");
    if (q->njoins) {
        sql_join_push push;
        if (sql_plan_join_pushdown(p, q, &push))
            return NULL;
        weir_table *t = plan_first_source(p, q);
        if (t && regular_join(&q->joins[0]))
            t = sql_plan_join_input(p, q, &push, 0, t);
        if (t)
            t = plan_joins(p, q, &push, t);
        return t && sql_plan_join_residual(p, qp, &push) == 0 ? t : NULL;
    }
    weir_table *t = plan_first_source(p, q);
    if (t)
        sql_plan_source_scope(p, q, t);
    return t;
}

void sql_plan_source_scope(planner *p, const sql_query *q, const weir_table *t)
{
    p->scope.ninputs = 0;
    if (q->from_kind == SQL_FROM_NONE)
        return;
    /* one source: its columns named by its qualifier too (Q.col of a
     * subquery Q, t.col of a table t), as a join's are */
    const char *qual = qualifier_of(p, q->from_kind, q->from_name, q->from_alias);
    if (qual) {
        const weir_schema *schema = weir_table_schema(t);
        p->scope = (weir_expr_scope){.schema = schema, .ninputs = 1,
                                     .zone = weir_table_env_config(p->env)->time_zone};
        p->scope.inputs[0].qualifier = qual;
        p->scope.inputs[0].columns = schema;
    }
}

static weir_table *plan_derived(planner *p, const sql_query *sub, sql_span alias,
                                const sql_span *cols, int ncols);
static weir_table *plan_name_as(planner *p, sql_span name, sql_span alias, const sql_span *cols,
                                int ncols);

static weir_table *plan_unnest_first(planner *p, const sql_query *q);

static weir_table *plan_first_source(planner *p, const sql_query *q)
{
    switch (q->from_kind) {
    case SQL_FROM_NONE:
        return values_source(p, 1, q->at.start); /* SELECT 1: one row */
    case SQL_FROM_QUERY:
        return plan_derived(p, q->from_query, q->from_alias, q->from_cols, q->nfrom_cols);
    case SQL_FROM_UNNEST:
        return plan_unnest_first(p, q);
    case SQL_FROM_NAME:
        return plan_name_as(p, q->from_name, q->from_alias, q->from_cols, q->nfrom_cols);
    case SQL_FROM_WINDOW:
    default:
        return plan_name(p, q->from_name);
    }
}

/* ---- rewriting a grouped query's trees ----------------------------------------------- */

/* The name of aggregate call j's column in the aggregate's output, as
 * Flink's plans name a field with no name of its own: $f and its index (the
 * keys and window columns come first); a computed key may have that name
 * already (the Calc before the aggregate names its fields $f after the
 * input's columns), and then, as Calcite makes a name unique, a digit is
 * added ($f3 -> $f30). */
static void agg_column_name(const grouping *g, int j, char *buf, size_t size)
{
    int window_columns = g->window != SQL_WINDOW_NONE ? 3 : 0;
    snprintf(buf, size, "$f%d", g->nkeys + window_columns + j);
    size_t base = strlen(buf);
    for (int suffix = 0;; suffix++) {
        bool taken = false;
        for (int k = 0; k < g->nkeys && !taken; k++)
            taken = strcmp(g->key_names[k], buf) == 0;
        if (!taken)
            return;
        snprintf(buf + base, size > base ? size - base : 0, "%d", suffix);
    }
}

/* The index of an aggregate call among g's (added when new and `add`), -1
 * if it is not there and not added. 0 or WEIR_ENOMEM in *r. */
static int agg_index(planner *p, grouping *g, const weir_ast *call, bool add, int *r)
{
    *r = 0;
    for (int j = 0; j < g->naggs; j++)
        if (weir_ast_equal(g->aggs[j], call))
            return j;
    if (!add)
        return -1;
    if (g->naggs == g->aggs_cap) {
        int cap = g->aggs_cap ? 2 * g->aggs_cap : 8;
        const weir_ast **v = sql_arena_alloc(p->tmp, (size_t)cap * sizeof *v);
        if (!v) {
            no_memory(p, call->start);
            *r = WEIR_ENOMEM;
            return -1;
        }
        if (g->naggs)
            memcpy(v, g->aggs, (size_t)g->naggs * sizeof *v);
        g->aggs = v;
        g->aggs_cap = cap;
    }
    g->aggs[g->naggs] = call;
    return g->naggs++;
}

/* The text of a span as written, for comparing two as Calcite does. */
static bool same_text(planner *p, const weir_ast *a, const weir_ast *b)
{
    sql_tokens x = {0}, y = {0};
    char err[64];
    bool same = sql_lex(p->sc->text + a->start, a->end - a->start, &x, err, sizeof err) == 0 &&
                sql_lex(p->sc->text + b->start, b->end - b->start, &y, err, sizeof err) == 0 &&
                x.n == y.n;
    for (size_t i = 0; same && i < x.n; i++) {
        const char *s = p->sc->text + a->start + x.v[i].start;
        const char *t = p->sc->text + b->start + y.v[i].start;
        same = x.v[i].kind == y.v[i].kind && x.v[i].len == y.v[i].len &&
               (x.v[i].kind == SQL_TOK_WORD ? strncasecmp(s, t, x.v[i].len) == 0
                                            : memcmp(s, t, x.v[i].len) == 0);
    }
    sql_tokens_free(&x);
    sql_tokens_free(&y);
    return same;
}

/* Whether the arguments of an auxiliary call are those of the GROUP BY
 * window g->win, as Calcite's check of an auxiliary group function compares
 * them: the same time column, and the same interval expressions (as
 * written, not by value). */
static bool window_args_match(planner *p, const grouping *g, const weir_ast *call)
{
    const sql_window *w = g->win;
    if (call->nargs != w->nargs + 1)
        return false;
    const char *col = window_column(p, w, g->in_schema);
    const char *name = bare_name(call->args[0]);
    if (!name)
        name = join_column_name(p, g->in_schema, call->args[0]); /* B.ts */
    if (!col || !name || strcmp(name, col) != 0)
        return false;
    for (int i = 0; i < w->nargs; i++)
        if (!same_text(p, call->args[i + 1], w->arg_asts[i]))
            return false;
    return true;
}

static const char *const window_function_names[] = {
    "TUMBLE_START", "TUMBLE_END", "TUMBLE_ROWTIME", "HOP_START",      "HOP_END",
    "HOP_ROWTIME",  "SESSION_START", "SESSION_END", "SESSION_ROWTIME", NULL};

/* Which window column a TUMBLE_START-like call names ("window_start"), or
 * NULL with the error when it does not match the GROUP BY window:
 * Calcite's message (Flink's planner refuses TUMBLE_START(ts, INTERVAL '1'
 * MINUTE) with TUMBLE(ts, INTERVAL '2' MINUTE), which would otherwise be
 * the 2-minute windows' starts). */
static const char *window_function(planner *p, const grouping *g, const weir_ast *call)
{
    const char *w = call->text;
    const char *us = strchr(w, '_');
    size_t fn = us ? (size_t)(us - w) : 0;
    const char *part = us ? us + 1 : "";
    const char *col = strcasecmp(part, "START") == 0     ? "window_start"
                      : strcasecmp(part, "END") == 0     ? "window_end"
                      : strcasecmp(part, "ROWTIME") == 0 ? "window_time"
                                                         : NULL;
    if (!col)
        return NULL;
    if (g->tvf || g->window == SQL_WINDOW_NONE || g->window == SQL_WINDOW_CUMULATE ||
        strlen(window_names[g->window]) != fn ||
        strncasecmp(window_names[g->window], w, fn) != 0 || !window_args_match(p, g, call)) {
        char name[32], group[16];
        snprintf(name, sizeof name, "%s", w);
        snprintf(group, sizeof group, "%.*s", (int)fn, w);
        for (char *c = name; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        for (char *c = group; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        sql_fail(p->s, p->sc, call->start, "Call to auxiliary group function '%s' must have "
                 "matching call to group function '%s' in GROUP BY clause", name, group);
        return NULL;
    }
    return col;
}

/* `a` rewritten over the aggregate's columns into *out: each aggregate call
 * as its column, each window function as its window column, and a subtree
 * that is a computed key as the key's column. A subtree with nothing to
 * rewrite is itself (shared, not copied). With `collect`, only finds the
 * aggregate calls (into g) and writes nothing. 0 or WEIR_E* (reported). */
static const char *join_column_name(planner *p, const weir_schema *schema, const weir_ast *a);

static int rewrite(planner *p, grouping *g, const weir_ast *a, const weir_ast **out, bool collect);

typedef struct rewrite_arg {
    grouping *g;
    bool collect;
} rewrite_arg;

static int rewrite_child(planner *p, const void *arg, const weir_ast *a, const weir_ast **out)
{
    const rewrite_arg *ra = arg;
    return rewrite(p, ra->g, a, out, ra->collect);
}

static int rewrite(planner *p, grouping *g, const weir_ast *a, const weir_ast **out, bool collect)
{
    *out = a;
    if (!a)
        return 0;
    const char *jc = collect ? NULL : join_column_name(p, g->in_schema, a);
    if (jc) { /* t.col of a join read: its column's name */
        weir_ast *n = name_node(p, jc, a);
        *out = n;
        return n ? 0 : WEIR_ENOMEM;
    }
    for (int k = 0; !collect && k < g->nkeys; k++)
        if (g->key_computed[k] && weir_ast_equal(g->keys[k], a)) {
            weir_ast *n = name_node(p, g->key_names[k], a);
            *out = n;
            return n ? 0 : WEIR_ENOMEM;
        }
    if (weir_ast_is_aggregate_call(a)) {
        int r;
        int j = agg_index(p, g, a, collect, &r);
        if (r || collect)
            return r;
        char name[32];
        agg_column_name(g, j, name, sizeof name);
        weir_ast *n = name_node(p, name, a);
        *out = n;
        return n ? 0 : WEIR_ENOMEM;
    }
    if (is_call_of(a, window_function_names)) {
        const char *col = window_function(p, g, a);
        if (!col)
            return WEIR_EINVAL;
        weir_ast *n = collect ? NULL : name_node(p, col, a);
        if (!collect)
            *out = n;
        return collect || n ? 0 : WEIR_ENOMEM;
    }
    rewrite_arg ra = {g, collect};
    return sql_plan_rewrite_children(p, a, rewrite_child, &ra, out);
}

/* ---- SELECT lists ---------------------------------------------------------------- */

/* Whether a is a compound identifier: t.a, r.a, r.a.b (fields of a name). */
static bool compound_name(const weir_ast *a)
{
    if (!a || (a->kind != WEIR_AST_FIELD && !(a->kind == WEIR_AST_NAME && a->qualifier)))
        return false;
    while (a->kind == WEIR_AST_FIELD)
        a = a->a;
    return a->kind == WEIR_AST_NAME;
}

/* The output name of select item i: its alias, a bare column's name, a
 * compound name's last part (t.a, r.a.b), or Flink's EXPR$i. */
static int item_name(planner *p, const sql_item *it, int i, char *out, size_t size)
{
    const char *bare = bare_name(it->ast);
    if (!bare && it->ast && it->ast->kind == WEIR_AST_NAME)
        bare = it->ast->text; /* t.col is named col, as Calcite names it */
    if (it->alias.len) {
        char *a = sql_unquote(p->sc, it->alias);
        if (!a)
            return WEIR_ENOMEM;
        snprintf(out, size, "%s", a);
    } else if (bare) {
        snprintf(out, size, "%s", bare);
    } else if (compound_name(it->ast)) {
        /* t.a, r.a, r.a.b: the last part, as Calcite names a compound identifier */
        snprintf(out, size, "%s", it->ast->text);
    } else {
        snprintf(out, size, "EXPR$%d", i);
    }
    return 0;
}

/* A qualified column's name made unique among the items before it, as
 * Calcite does (a.id, b.id: id, id0). */
static void unique_item_name(const sql_query *q, int i, char *name, size_t size)
{
    int before = 0;
    for (int j = 0; j < i; j++) {
        const weir_ast *a = q->items[j].ast;
        before += !q->items[j].alias.len && a->kind == WEIR_AST_NAME && strcmp(a->text, name) == 0;
    }
    if (before > 0 && strlen(name) + 12 < size)
        snprintf(name + strlen(name), 12, "%d", before - 1);
}

/* A plain (not grouped) select list over t. */

static int all_columns(planner *p, exprs *x, const weir_schema *schema, uint32_t at);

/* A plain (not grouped) select list over t (SELECT *, items: every column,
 * then the items). */
/* The select list over t, of the rows `pred` (taken over; NULL: all)
 * keeps. */
static weir_table *plan_select(planner *p, const sql_query *q, weir_table *t, weir_expr *pred)
{
    const weir_schema *schema = weir_table_schema(t);
    exprs x = {.n = 0};
    if (q->star && all_columns(p, &x, schema, q->at.start)) {
        exprs_free(&x);
        weir_expr_destroy(pred);
        return NULL;
    }
    for (int i = 0; i < q->nitems; i++) {
        char name[SQL_NAME_MAX];
        if (item_name(p, &q->items[i], i, name, sizeof name)) {
            exprs_free(&x);
            weir_expr_destroy(pred);
            return no_memory(p, q->items[i].expr.start);
        }
        if (!q->items[i].alias.len && q->items[i].ast->kind == WEIR_AST_NAME &&
            q->items[i].ast->qualifier)
            unique_item_name(q, i, name, sizeof name);
        if (bind(p, &x, q->items[i].ast, item_text(p, &q->items[i], q->items[i].ast), schema,
                 0, name, q->at.start)) {
            exprs_free(&x);
            weir_expr_destroy(pred);
            return NULL;
        }
    }
    weir_table *out = weir_table_calc_exprs(t, pred, x.v, x.n);
    return out ? out : table_fail(p, q->at.start);
}

static int all_columns_in(planner *p, exprs *x, const weir_schema *schema, uint32_t at);

/* Every column of `schema` as an item (a name node each). */
static int all_columns(planner *p, exprs *x, const weir_schema *schema, uint32_t at)
{
    bool off = p->scope_off;
    p->scope_off = true; /* the names are the schema's own, not the tables' */
    int r = all_columns_in(p, x, schema, at);
    p->scope_off = off;
    return r;
}

static int all_columns_in(planner *p, exprs *x, const weir_schema *schema, uint32_t at)
{
    for (int c = 0; c < weir_schema_ncolumns(schema); c++) {
        weir_ast *n = weir_ast_new(p->trees, WEIR_AST_NAME, weir_schema_column_name(schema, c),
                                   at, at);
        if (!n) {
            no_memory(p, at);
            return WEIR_ENOMEM;
        }
        int r = bind(p, x, n, NULL, schema, 1, NULL, at);
        if (r)
            return r;
    }
    return 0;
}

/* A derived table, (query) [AS] alias [(c, ...)]: the query planned, its
 * columns renamed by the list as Calcite's AliasNamespace renames them (a
 * projection of each column under its new name: a time attribute stays
 * one). Without a list, a VALUES of one column takes the alias as its
 * column's name, as Calcite names it. */
static weir_table *renamed(planner *p, weir_table *t, sql_span alias, const sql_span *cols,
                           int ncols, bool values);

static weir_table *plan_derived(planner *p, const sql_query *sub, sql_span alias,
                                const sql_span *cols, int ncols)
{
    return renamed(p, plan_query(p, sub), alias, cols, ncols,
                   sub->nvalues && !sub->union_all);
}

/* A table or a view, name [AS] alias [(c, ...)]: the same renaming. */
static weir_table *plan_name_as(planner *p, sql_span name, sql_span alias, const sql_span *cols,
                                int ncols)
{
    weir_table *t = plan_name(p, name);
    return ncols ? renamed(p, t, alias, cols, ncols, false) : t;
}

/* t's columns renamed by the list (values: a VALUES, whose one column an
 * alias without a list names). */
static weir_table *renamed(planner *p, weir_table *t, sql_span alias, const sql_span *cols,
                           int ncols, bool values)
{
    sql_span one = alias;
    if (!t || (!ncols && !(alias.len && values &&
                           weir_schema_ncolumns(weir_table_schema(t)) == 1)))
        return t;
    if (!ncols) {
        cols = &one;
        ncols = 1;
    }
    const weir_schema *schema = weir_table_schema(t);
    int n = weir_schema_ncolumns(schema);
    char **names = sql_arena_alloc(p->tmp, (size_t)ncols * sizeof *names);
    if (!names)
        return no_memory(p, cols[0].start);
    for (int c = 0; c < ncols; c++) {
        if (!(names[c] = sql_unquote(p->sc, cols[c])))
            return no_memory(p, cols[c].start);
        for (int d = 0; d < c; d++)
            if (strcmp(names[d], names[c]) == 0)
                return sql_fail(p->s, p->sc, cols[c].start,
                                "Duplicate name '%s' in column alias list", names[c]);
    }
    if (ncols != n) {
        char list[1024];
        size_t w = 0;
        list[0] = '\0';
        for (int c = 0; c < n && w < sizeof list; c++) {
            int k = snprintf(list + w, sizeof list - w, "%s'%s'", c ? ", " : "",
                             weir_schema_column_name(schema, c));
            w += k > 0 ? (size_t)k : 0;
        }
        return sql_fail(p->s, p->sc, cols[0].start, "List of column aliases must have same "
                        "degree as table; table has %d columns (%s), whereas alias list has %d "
                        "columns", n, list, ncols);
    }
    exprs x = {.n = 0};
    bool off = p->scope_off;
    p->scope_off = true; /* the names are the query's own columns */
    for (int c = 0; c < n; c++) {
        weir_ast *a = weir_ast_new(p->trees, WEIR_AST_NAME, weir_schema_column_name(schema, c),
                                   cols[c].start, cols[c].start);
        if (!a) {
            p->scope_off = off;
            exprs_free(&x);
            return no_memory(p, cols[c].start);
        }
        if (bind(p, &x, a, NULL, schema, 0, names[c], cols[c].start)) {
            p->scope_off = off;
            exprs_free(&x);
            return NULL;
        }
    }
    p->scope_off = off;
    weir_table *out = weir_table_select_exprs(t, x.v, x.n);
    return out ? out : table_fail(p, cols[0].start);
}

/* The names as the table layer's key list: `a`, `b`. */
static char *key_list(planner *p, const char *const *names, int n, uint32_t at)
{
    size_t len = 0;
    for (int k = 0; k < n; k++) /* measure */
        weir__append_name(NULL, 0, &len, k ? ", " : "", names[k]);
    char *s = sql_arena_alloc(p->tmp, len + 1);
    if (!s) {
        no_memory(p, at);
        return NULL;
    }
    size_t w = 0;
    for (int k = 0; k < n; k++)
        weir__append_name(s, len + 1, &w, k ? ", " : "", names[k]);
    return s;
}

/* SELECT DISTINCT: a group aggregate keyed by every column, no aggregates. */
static weir_table *plan_distinct(planner *p, const sql_query *q, weir_table *t)
{
    const weir_schema *schema = weir_table_schema(t);
    int n = weir_schema_ncolumns(schema);
    const char **names = sql_arena_alloc(p->tmp, (size_t)(n ? n : 1) * sizeof *names);
    if (!names)
        return no_memory(p, q->at.start);
    for (int c = 0; c < n; c++)
        names[c] = weir_schema_column_name(schema, c);
    char *keys = key_list(p, names, n, q->at.start);
    exprs x = {.n = 0};
    if (!keys || all_columns(p, &x, schema, q->at.start)) {
        exprs_free(&x);
        return NULL;
    }
    weir_table *out = weir_table_group_by_exprs(t, keys, x.v, x.n);
    return out ? out : table_fail(p, q->at.start);
}

/* ---- grouped queries ---------------------------------------------------------------- */

static bool is_window_column(const char *name)
{
    return name && (strcmp(name, "window_start") == 0 || strcmp(name, "window_end") == 0 ||
                    strcmp(name, "window_time") == 0);
}

/* A qualified name of the join being read (b.balance): the name of its
 * column in `schema`; NULL for anything else. */
static const char *join_column_name(planner *p, const weir_schema *schema, const weir_ast *a)
{
    if (!a || a->kind != WEIR_AST_NAME || !a->qualifier || !join_scope_fits(p, schema))
        return NULL;
    for (int k = 0; k < p->scope.ninputs; k++) {
        if (!p->scope.inputs[k].qualifier || strcmp(p->scope.inputs[k].qualifier, a->qualifier))
            continue;
        int c = weir_schema_column_index(p->scope.inputs[k].columns, a->text);
        if (c >= 0)
            return weir_schema_column_name(schema, p->scope.inputs[k].first + c);
    }
    return NULL;
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
        no_memory(p, q->at.start);
        return WEIR_ENOMEM;
    }
    exprs x = {.n = 0};
    for (int i = 0; i < q->ngroup; i++) {
        const weir_ast *key = q->group_asts[i];
        const char *name = bare_name(key);
        if (g->tvf && is_window_column(name)) {
            has_start = has_start || strcmp(name, "window_start") == 0;
            has_end = has_end || strcmp(name, "window_end") == 0;
            continue;
        }
        int k = g->nkeys++;
        g->keys[k] = key;
        if (!name)
            name = join_column_name(p, schema, key);
        if (name && weir_schema_column_index(schema, name) >= 0) {
            snprintf(g->key_names[k], sizeof g->key_names[k], "%s", name);
            continue;
        }
        if (has_aggregate(key)) {
            exprs_free(&x);
            sql_fail(p->s, p->sc, key->start, "an aggregate call in GROUP BY");
            return WEIR_EINVAL;
        }
        if (!computed && all_columns(p, &x, schema, q->at.start)) {
            exprs_free(&x);
            return WEIR_EINVAL;
        }
        /* Flink's name of a computed field: $f and its index in the Calc */
        snprintf(g->key_names[k], sizeof g->key_names[k], "$f%d",
                 weir_schema_ncolumns(schema) + ncomputed++);
        g->key_computed[k] = computed = true;
        if (bind(p, &x, key, p->sc->text, schema, -1, g->key_names[k], q->at.start)) {
            exprs_free(&x);
            return WEIR_EINVAL;
        }
    }
    if (g->tvf && (!has_start || !has_end)) {
        exprs_free(&x);
        sql_fail(p->s, p->sc, q->from_window.at.start,
                 "a window TVF is read by GROUP BY window_start, window_end[, keys]: weir "
                 "plans no other use of it");
        return WEIR_EINVAL;
    }
    if (!computed)
        return 0;
    weir_table *calc = weir_table_select_exprs(*t, x.v, x.n);
    if (!calc) {
        table_fail(p, q->group[0].start);
        return WEIR_EINVAL;
    }
    *t = calc;
    return 0;
}

/* Whether a select item is one the aggregate node can make itself: a key
 * column, a window column or a window function, or an aggregate call. */
static bool direct_item(planner *p, const grouping *g, const sql_item *it)
{
    const char *name = bare_name(it->ast);
    if (!name)
        name = join_column_name(p, g->in_schema, it->ast); /* Q.col, a.col */
    if (name) {
        if (is_window_column(name))
            return g->window != SQL_WINDOW_NONE && g->tvf;
        for (int k = 0; k < g->nkeys; k++)
            if (!g->key_computed[k] && strcmp(g->key_names[k], name) == 0)
                return true;
        return false;
    }
    return weir_ast_is_aggregate_call(it->ast) || is_call_of(it->ast, window_function_names);
}

/* The aggregate node's items: the keys, the window columns and the hidden
 * aggregates (or, when `direct`, the select list itself), bound against
 * the aggregate's input (`schema`: its columns, and a window's). */
static int aggregate_items(planner *p, const sql_query *q, grouping *g, bool direct,
                           const weir_schema *schema, exprs *x)
{
    if (direct) {
        for (int i = 0; i < q->nitems; i++) {
            char name[SQL_NAME_MAX];
            const weir_ast *a = q->items[i].ast;
            if (item_name(p, &q->items[i], i, name, sizeof name)) {
                no_memory(p, q->items[i].expr.start);
                return WEIR_ENOMEM;
            }
            const char *jc = join_column_name(p, g->in_schema, a);
            const weir_ast *rw = jc ? name_node(p, jc, a) : a;
            if (!rw)
                return WEIR_ENOMEM;
            if (is_call_of(a, window_function_names) && rewrite(p, g, a, &rw, false))
                return WEIR_EINVAL;
            int r = bind(p, x, rw, item_text(p, &q->items[i], rw), schema, 1, name, q->at.start);
            if (r)
                return r;
        }
        return 0;
    }
    for (int k = 0; k < g->nkeys; k++) {
        weir_ast *n = name_node(p, g->key_names[k], g->keys[k]);
        int r = n ? bind(p, x, n, NULL, schema, 1, NULL, q->at.start) : WEIR_ENOMEM;
        if (r)
            return r;
    }
    if (g->window != SQL_WINDOW_NONE) {
        static const char *const cols[] = {"window_start", "window_end", "window_time"};
        for (int c = 0; c < 3; c++) {
            weir_ast *n = name_node(p, cols[c], NULL);
            int r = n ? bind(p, x, n, NULL, schema, 1, NULL, q->at.start) : WEIR_ENOMEM;
            if (r)
                return r;
        }
    }
    for (int j = 0; j < g->naggs; j++) {
        char name[32];
        agg_column_name(g, j, name, sizeof name);
        int r = bind(p, x, g->aggs[j], p->sc->text, schema, 1, name, q->at.start);
        if (r)
            return r;
    }
    return 0;
}

/* A select-list item (rewritten: `rw`, of `it`) bound over the aggregate's
 * output; one that names a column of the input the aggregate does not keep
 * is refused with Flink's "Expression 'x' is not being grouped". */
static int bind_over_aggregate(planner *p, exprs *x, const sql_item *it, const weir_ast *rw,
                               const char *name, const weir_schema *agg_schema,
                               const weir_schema *in_schema, uint32_t list_at)
{
    if (x->n == PLAN_MAX_ITEMS)
        return bind(p, x, rw, NULL, agg_schema, 0, name, list_at); /* says so */
    const weir_time_zone *zone = weir_table_env_config(p->env)->time_zone;
    weir_expr_scope agg_scope = {.schema = agg_schema, .zone = zone},
                    in_scope = {.schema = in_schema, .zone = zone};
    size_t at = 0;
    char msg[1024];
    int r = weir_expr_bind(rw, item_text(p, it, rw), &agg_scope, 0, name, &x->v[x->n], &at,
                           msg, sizeof msg);
    if (r == 0) {
        x->n++;
        return 0;
    }
    weir_expr *e = NULL;
    char other[64];
    size_t other_at;
    if (r == WEIR_EINVAL &&
        weir_expr_bind(rw, NULL, &in_scope, 0, NULL, &e, &other_at, other, sizeof other) == 0) {
        weir_expr_destroy(e);
        char text[256], echo[WEIR__EXPR_ECHO + 4];
        weir_ast_format(rw, text, sizeof text);
        weir__expr_echo(text, echo);
        sql_fail(p->s, p->sc, it->ast->start, "expression '%s' is not being grouped", echo);
        return WEIR_EINVAL;
    }
    if (r == WEIR_ENOMEM)
        no_memory(p, rw->start);
    else
        sql_fail(p->s, p->sc, (uint32_t)at, "%s", msg);
    return r;
}

/* The input of a window over an interval join's second time attribute:
 * a projection whose records carry that time; t itself otherwise. */
static weir_table *window_time(planner *p, const sql_window *w, weir_table *t)
{
    const char *col = window_column(p, w, weir_table_schema(t));
    if (!col)
        return NULL;
    int ci = weir_schema_column_index(weir_table_schema(t), col);
    if (ci < 0 || ci != weir_table_second_rowtime(t))
        return t;
    weir_table *r = weir_table_with_rowtime(t, col);
    return r ? r : table_fail(p, w->time_col.start);
}

static weir_table *plan_grouped(planner *p, const sql_query *q, weir_table *t)
{
    grouping g = {.window = q->from_kind == SQL_FROM_WINDOW ? q->from_window.kind
                                                             : q->group_window.kind,
                  .tvf = q->from_kind == SQL_FROM_WINDOW};
    const sql_window *win = g.tvf ? &q->from_window : &q->group_window;
    g.win = win;
    g.in_schema = weir_table_schema(t);
    weir_table_window tw;
    if (g.window != SQL_WINDOW_NONE && !(t = window_time(p, win, t)))
        return NULL;
    if (g.window != SQL_WINDOW_NONE && window_of(p, win, g.tvf, t, &tw))
        return NULL;
    if (q->star)
        return sql_fail(p->s, p->sc, q->at.start, "SELECT * in a grouped query");
    const weir_schema *in_schema = weir_table_schema(t);
    if (group_keys(p, q, &g, &t))
        return NULL;
    const weir_ast *unused;
    for (int i = 0; i < q->nitems; i++)
        if (rewrite(p, &g, q->items[i].ast, &unused, true))
            return NULL;
    if (q->having_ast && rewrite(p, &g, q->having_ast, &unused, true))
        return NULL;
    bool direct = !q->having_ast;
    for (int i = 0; direct && i < q->nitems; i++)
        direct = direct_item(p, &g, &q->items[i]);
    /* the aggregate's items read its input's columns, and a window's */
    weir_schema *win_schema = NULL;
    if (g.window != SQL_WINDOW_NONE && !(win_schema = weir_table_window_columns_for(t, &tw)))
        return table_fail(p, q->at.start);
    const weir_schema *items_schema = win_schema ? win_schema : weir_table_schema(t);
    const char **knames = sql_arena_alloc(p->tmp, (size_t)(g.nkeys + 1) * sizeof *knames);
    exprs x = {.n = 0};
    char *keys = NULL;
    if (knames) {
        for (int k = 0; k < g.nkeys; k++)
            knames[k] = g.key_names[k];
        keys = key_list(p, knames, g.nkeys, q->at.start);
    } else {
        no_memory(p, q->at.start);
    }
    if (!keys || aggregate_items(p, q, &g, direct, items_schema, &x)) {
        exprs_free(&x);
        weir_schema_destroy(win_schema);
        return NULL;
    }
    weir_schema_destroy(win_schema);
    weir_table *agg = g.window != SQL_WINDOW_NONE
                          ? weir_table_window_aggregate_exprs(t, &tw, keys, x.v, x.n)
                          : weir_table_group_by_exprs(t, keys, x.v, x.n);
    if (!agg)
        return table_fail(p, q->at.start);
    if (direct)
        return agg;
    const weir_schema *agg_schema = weir_table_schema(agg);
    if (q->having_ast) {
        const weir_ast *h;
        exprs hx = {.n = 0};
        if (rewrite(p, &g, q->having_ast, &h, false) ||
            bind(p, &hx, h, text_of(p, h, q->having_ast), agg_schema, -1, NULL, q->at.start))
            return NULL;
        if (!(agg = weir_table_where_expr(agg, hx.v[0])))
            return table_fail(p, q->having.start);
        agg_schema = weir_table_schema(agg);
    }
    exprs out = {.n = 0};
    for (int i = 0; i < q->nitems; i++) {
        char name[SQL_NAME_MAX];
        const weir_ast *rw;
        if (item_name(p, &q->items[i], i, name, sizeof name)) {
            exprs_free(&out);
            return no_memory(p, q->items[i].expr.start);
        }
        if (rewrite(p, &g, q->items[i].ast, &rw, false) ||
            bind_over_aggregate(p, &out, &q->items[i], rw, name, agg_schema, in_schema,
                                q->at.start)) {
            exprs_free(&out);
            return NULL;
        }
    }
    weir_table *sel = weir_table_select_exprs(agg, out.v, out.n);
    return sel ? sel : table_fail(p, q->at.start);
}

/* ---- queries ------------------------------------------------------------------------ */

static bool is_grouped(const sql_query *q)
{
    if (q->ngroup || q->group_window.kind || q->having_ast ||
        (q->from_kind == SQL_FROM_WINDOW && q->from_window.kind == SQL_WINDOW_SESSION))
        return true;
    for (int i = 0; i < q->nitems; i++)
        if (has_aggregate(q->items[i].ast))
            return true;
    return false;
}

/* ---- VALUES ---------------------------------------------------------------------------- */

/* The type two values of one VALUES column have in common, as Flink's
 * type system finds it (weir_type_common: NULL takes the other's, numbers
 * widen, strings of different lengths become VARCHAR of the longest, as
 * Flink's ragged CHAR literals are VARCHAR). False when there is none. */
static bool common_type(weir_type a, weir_type b, weir_type *out)
{
    return weir_type_common(a, b, out);
}

/* VALUES (...), (...): a bounded source of one row per VALUES row, holding
 * only its index, and one projection whose column c is CASE on the index
 * of each row's c-th value, cast to the column's common type (one operator
 * however many rows; the values are compiled once, as every expression).
 * Columns are named EXPR$0, EXPR$1 ... as Flink names them. */
/* A bounded source of `nrows` rows holding only their index ($row 0, 1
 * ...), as an insert-only table: what VALUES and a SELECT without FROM
 * read. The rows are kept with the statements, which outlive the job. */
static weir_table *values_source(planner *p, int nrows, uint32_t at)
{
    weir_schema_builder *b = weir_schema_builder_create("Values");
    weir_schema *index = NULL;
    char why[256];
    weir_type it = {.id = WEIR_TYPE_INT, .not_null = true};
    if (b && p->s->string_capacity) /* the session's, as every table's (SELECT 1 reads this) */
        weir_schema_builder_string_capacity(b, p->s->string_capacity);
    if (b && p->s->collection_capacity)
        weir_schema_builder_collection_capacity(b, p->s->collection_capacity);
    if (b)
        weir_schema_column(b, "$row", it);
    if (!b || weir_schema_build(b, &index, why, sizeof why)) /* the build frees b */
        return no_memory(p, at);
    size_t rs = weir_schema_row_size(index);
    unsigned char *rows = sql_arena_alloc(&p->sc->arena, (size_t)nrows * rs);
    if (!rows) {
        weir_schema_destroy(index);
        return no_memory(p, at);
    }
    for (int r = 0; r < nrows; r++) {
        weir_row_init(index, rows + (size_t)r * rs, WEIR_ROW_INSERT);
        weir_row_set_int(index, rows + (size_t)r * rs, 0, r);
    }
    /* a job's operator names are unique: Values, Values#2 ... */
    if (p->s->values_job != p->s->job_seq) {
        p->s->values_job = p->s->job_seq;
        p->s->values_n = 0;
    }
    char name[32];
    if (++p->s->values_n == 1)
        snprintf(name, sizeof name, "Values");
    else
        snprintf(name, sizeof name, "Values#%d", p->s->values_n);
    weir_stream *src = weir_stream_set_name(weir_source_array(p->job, rows, (size_t)nrows, rs,
                                                              NULL), name);
    weir_table *t = src ? weir_table_from_stream(p->env, src, index) : NULL;
    weir_schema_destroy(index);
    return t ? t : table_fail(p, at);
}

static weir_table *plan_values(planner *p, const sql_query *q)
{
    int nrows = q->nvalues, ncols = q->values[0].n;
    weir_table *t = values_source(p, nrows, q->at.start);
    if (!t)
        return NULL;
    const weir_schema *index = weir_table_schema(t);
    weir_table *out = NULL;
    exprs x = {.n = 0};
    if (ncols > PLAN_MAX_ITEMS) {
        sql_fail(p->s, p->sc, q->at.start, "VALUES with more than %d columns", PLAN_MAX_ITEMS);
        goto done;
    }
    /* the common type of each column: every value bound once, alone */
    weir_type *types = sql_arena_alloc(p->tmp, (size_t)ncols * sizeof *types);
    if (!types) {
        no_memory(p, q->at.start);
        goto done;
    }
    for (int c = 0; c < ncols; c++) {
        for (int r = 0; r < nrows; r++) {
            const sql_item *v = &q->values[r].items[c];
            if (bind(p, &x, v->ast, p->sc->text, index, -1, NULL, v->expr.start))
                goto done;
            /* a bare NULL takes the column's type from the other rows */
            weir_type ty = {.id = WEIR_TYPE_NULL};
            if (v->ast->kind != WEIR_AST_NULL)
                ty = weir_expr_type(x.v[0]);
            exprs_free(&x);
            if (r == 0) {
                types[c] = ty;
            } else if (!common_type(types[c], ty, &types[c])) {
                char ta[64], tb[64];
                weir_type_format(types[c], ta, sizeof ta);
                weir_type_format(ty, tb, sizeof tb);
                sql_fail(p->s, p->sc, v->expr.start, "VALUES column %d: %s here and %s above "
                         "have no common type", c + 1, tb, ta);
                goto done;
            }
        }
        if (types[c].id == WEIR_TYPE_NULL) {
            sql_fail(p->s, p->sc, q->values[0].items[c].expr.start, "Illegal use of 'NULL': "
                     "VALUES column %d has no type (write CAST(NULL AS type))", c + 1);
            goto done;
        }
    }
    for (int c = 0; c < ncols; c++) {
        char type[64], alias[24];
        weir_type_format(types[c], type, sizeof type);
        snprintf(alias, sizeof alias, "EXPR$%d", c);
        weir_ast *col = NULL;
        weir_ast *cs = nrows > 1 ? weir_ast_new(p->trees, WEIR_AST_CASE, NULL, q->at.start,
                                                q->at.start)
                                 : NULL;
        if (cs && !(cs->args = sql_arena_alloc(p->tmp, 2 * (size_t)nrows * sizeof *cs->args)))
            cs = NULL;
        if (nrows > 1 && !cs) {
            no_memory(p, q->at.start);
            goto done;
        }
        for (int r = 0; r < nrows; r++) {
            const sql_item *v = &q->values[r].items[c];
            weir_ast *cast = weir_ast_new(p->trees, WEIR_AST_CAST, type, v->ast->start,
                                          v->ast->end);
            if (!cast) {
                no_memory(p, q->at.start);
                goto done;
            }
            cast->a = v->ast;
            cast->depth = v->ast->depth + 1;
            if (nrows == 1) {
                col = cast;
                break;
            }
            char num[16];
            snprintf(num, sizeof num, "%d", r);
            weir_ast *eq = weir_ast_new(p->trees, WEIR_AST_BINARY, NULL, v->ast->start,
                                        v->ast->start);
            weir_ast *idx = weir_ast_new(p->trees, WEIR_AST_NAME, "$row", v->ast->start,
                                         v->ast->start);
            weir_ast *lit = weir_ast_new(p->trees, WEIR_AST_INT, num, v->ast->start,
                                         v->ast->start);
            if (!eq || !idx || !lit) {
                no_memory(p, q->at.start);
                goto done;
            }
            idx->depth = lit->depth = 1;
            eq->op = WEIR_AST_EQ;
            eq->a = idx;
            eq->b = lit;
            eq->depth = 2;
            cs->args[cs->nargs++] = eq;
            cs->args[cs->nargs++] = cast;
            if (cast->depth + 1 > cs->depth)
                cs->depth = cast->depth + 1;
        }
        if (!col)
            col = cs;
        if (bind(p, &x, col, NULL, index, 0, alias, q->at.start))
            goto done;
    }
    out = weir_table_select_exprs(t, x.v, x.n);
    x.n = 0; /* the table layer has them */
    if (!out)
        table_fail(p, q->at.start);
done:
    exprs_free(&x);
    return out;
}

static weir_table *plan_body_in(planner *p, const sql_query *q);

/* A query body; a join's scope lives while its body is planned. */
static weir_table *plan_body(planner *p, const sql_query *q)
{
    weir_expr_scope saved = p->scope;
    p->scope.ninputs = 0;
    weir_table *t = plan_body_in(p, q);
    p->scope = saved;
    return t;
}

static weir_table *plan_body_in(planner *p, const sql_query *q)
{
    if (q->nvalues)
        return plan_values(p, q);
    if (sql_rank_query(q))
        return sql_plan_rank(p, q);
    weir_table *t = plan_from(p, &q);
    if (!t)
        return NULL;
    if (q->from_kind == SQL_FROM_WINDOW && !is_grouped(q)) {
        /* a window TVF's rows as a table (what a window join reads) */
        weir_table_window tw;
        if (!(t = window_time(p, &q->from_window, t)) || window_of(p, &q->from_window, true, t, &tw))
            return NULL;
        if (!(t = weir_table_window_tvf(t, &tw)))
            return table_fail(p, q->from_window.at.start);
    }
    return plan_after_from(p, q, t);
}

/* q with each t.* among its items replaced by t's columns (t.a, t.b ...,
 * each named by its column), read from the scope its FROM made; q itself
 * when it has none. NULL after reporting. */
static const sql_query *expand_stars(planner *p, const sql_query *q)
{
    int n = 0;
    bool any = false;
    for (int i = 0; i < q->nitems; i++) {
        const sql_item *it = &q->items[i];
        if (!it->star_of.len || it->ast) {
            n++;
            continue;
        }
        any = true;
        char *qual = sql_unquote(p->sc, it->star_of);
        if (!qual)
            return no_memory(p, it->star_of.start);
        int k = 0;
        while (k < p->scope.ninputs &&
               !(p->scope.inputs[k].qualifier && strcmp(p->scope.inputs[k].qualifier, qual) == 0))
            k++;
        if (k == p->scope.ninputs)
            return sql_fail(p->s, p->sc, it->star_of.start, "unknown table '%s' in '%s.*'", qual,
                            qual);
        n += weir_schema_ncolumns(p->scope.inputs[k].columns);
    }
    if (!any)
        return q;
    if (n > PLAN_MAX_ITEMS)
        return sql_fail(p->s, p->sc, q->at.start, "a list of more than %d items (the table "
                        "layer's limit)", PLAN_MAX_ITEMS);
    sql_query *out = sql_arena_alloc(p->tmp, sizeof *out);
    sql_item *items = sql_arena_alloc(p->tmp, (size_t)(n ? n : 1) * sizeof *items);
    if (!out || !items)
        return no_memory(p, q->at.start);
    *out = *q;
    out->items = items;
    out->nitems = 0;
    for (int i = 0; i < q->nitems; i++) {
        const sql_item *it = &q->items[i];
        if (!it->star_of.len || it->ast) {
            items[out->nitems++] = *it;
            continue;
        }
        char *qual = sql_unquote(p->sc, it->star_of);
        if (!qual)
            return no_memory(p, it->star_of.start);
        int k = 0;
        while (strcmp(p->scope.inputs[k].qualifier ? p->scope.inputs[k].qualifier : "", qual))
            k++;
        const weir_schema *cols = p->scope.inputs[k].columns;
        for (int c = 0; c < weir_schema_ncolumns(cols); c++) {
            weir_ast *a = name_node(p, weir_schema_column_name(cols, c), NULL);
            if (!a)
                return NULL;
            a->qualifier = qual;
            a->start = it->expr.start;
            a->end = it->expr.start + it->expr.len;
            a->depth = 1;
            items[out->nitems++] = (sql_item){.expr = it->expr, .ast = a, .star_of = it->star_of};
        }
    }
    return out;
}

/* WHERE, then the rest of a body over the table its FROM made. */
static weir_table *plan_after_from(planner *p, const sql_query *q, weir_table *t)
{
    if (!(q = expand_stars(p, q)))
        return NULL;
    /* WHERE's subquery conjuncts: semi and anti joins (sql_plan_subquery.c) */
    if (q->nsubs && !(t = sql_plan_subqueries(p, q, t)))
        return NULL;
    /* a comma join's condition is the WHERE (planned with the join) */
    /* a plain select list over the WHERE: one Calc of both, as Flink's */
    bool select = !sql_over_query(q) && !is_grouped(q) && (!q->star || q->nitems);
    weir_expr *pred = NULL;
    if (q->where_ast && !(q->njoins && q->joins[q->njoins - 1].kind == 0)) {
        if (has_aggregate(q->where_ast))
            return sql_fail(p->s, p->sc, q->where.start,
                            "an aggregate call in WHERE (HAVING filters groups)");
        exprs x = {.n = 0};
        if (bind(p, &x, q->where_ast, q->where_formatted ? NULL : p->sc->text,
                 weir_table_schema(t), -1, NULL, q->where.start))
            return NULL;
        if (select)
            pred = x.v[0];
        else if (!(t = weir_table_where_expr(t, x.v[0])))
            return table_fail(p, q->where.start);
    }
    if (select) {
        if (!(t = plan_select(p, q, t, pred)))
            return NULL;
        return q->distinct ? plan_distinct(p, q, t) : t;
    }
    if (sql_over_query(q))
        return sql_plan_over(p, q, t);
    if (is_grouped(q)) {
        if (q->distinct)
            return sql_fail(p->s, p->sc, q->at.start, "SELECT DISTINCT with GROUP BY or "
                            "aggregates: weir does not plan it (group by the columns instead)");
        return plan_grouped(p, q, t);
    }
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
    weir_table *u = n > 1 ? weir_table_union_all(tables, n) : tables[0];
    if (!u)
        return table_fail(p, q->union_all->at.start);
    return q->norder || q->limit >= 0 ? sql_plan_order_limit(p, q, u) : u;
}

weir_table *sql_plan_query(weir_sql_session *s, weir_job *job, weir_table_env *env,
                           sql_script *sc, const sql_query *q)
{
    sql_arena *tmp = NULL;
    weir_ast_arena *trees = NULL;
    planner p = {.s = s, .job = job, .env = env, .sc = sc, .tmp = &tmp, .trees = &trees};
    weir_table *t = plan_query(&p, q);
    sql_arena_free(&tmp);
    weir_ast_arena_free(&trees);
    return t;
}

/* ---- joins -------------------------------------------------------------------------- */

/* A source's qualifier: its alias, else a table's name; NULL for a
 * subquery without an alias. */
static const char *qualifier_of(planner *p, sql_from_kind kind, sql_span name, sql_span alias)
{
    if (alias.len)
        return sql_unquote(p->sc, alias);
    if (kind == SQL_FROM_NAME || kind == SQL_FROM_WINDOW)
        return sql_unquote(p->sc, name);
    return NULL;
}

/* The column of the left scope a FOR SYSTEM_TIME AS OF names, or -1. */
static int as_of_column(const weir_expr_scope *sc, const weir_ast *a)
{
    if (!a || a->kind != WEIR_AST_NAME)
        return -1;
    for (int k = 0; k < sc->ninputs; k++) {
        const char *q = sc->inputs[k].qualifier;
        if (a->qualifier && (!q || strcmp(a->qualifier, q) != 0))
            continue;
        int c = weir_schema_column_index(sc->inputs[k].columns, a->text);
        if (c >= 0)
            return sc->inputs[k].first + c;
    }
    return -1;
}

/* JOIN v FOR SYSTEM_TIME AS OF l.ts onto t: an event-time temporal join
 * (AS OF anything but the left's processing time, which is a lookup join;
 * the join's rules refuse what is not the left's rowtime). */
static weir_table *plan_temporal_join(planner *p, const sql_join *j, weir_table *t,
                                      weir_expr_scope *left)
{
    weir_table *r = plan_name(p, j->from_name);
    if (!r)
        return NULL;
    weir_expr_scope right = {.schema = weir_table_schema(r), .ninputs = 1};
    right.inputs[0].qualifier = qualifier_of(p, j->from_kind, j->from_name, j->alias);
    right.inputs[0].columns = weir_table_schema(r);
    size_t err_at = (size_t)-1;
    weir_expr_scope out;
    t = weir_table_temporal_join_tree(t, left, r, &right, (weir_join_kind)j->kind,
                                      j->for_time_ast, j->on_ast, p->sc->text, p->trees,
                                      &err_at, &out);
    if (!t)
        return table_fail(p, err_at != (size_t)-1 ? (uint32_t)err_at : j->on.start);
    *left = out;
    return t;
}

/* t CROSS JOIN UNNEST(expr) [WITH ORDINALITY] AS u(x, ...) (or a comma, or
 * LEFT JOIN ... ON TRUE): the collection bound in the scope so far (a
 * correlated reference: t.arr), its rows joined with each row by
 * weir_table_unnest_expr, and its columns named by u in the scope after. */
static weir_table *plan_unnest(planner *p, const sql_join *j, weir_table *t,
                               weir_expr_scope *scope)
{
    if (!j->cross && !(j->on_ast && j->on_ast->kind == WEIR_AST_BOOLEAN && j->on_ast->value))
        return sql_fail(p->s, p->sc, j->on.start, "not supported: a JOIN of UNNEST on a "
                        "condition other than ON TRUE (filter in WHERE)");
    int most = (int)(sizeof scope->inputs / sizeof scope->inputs[0]);
    if (scope->ninputs == most)
        return sql_fail(p->s, p->sc, j->at.start, "not supported: more than %d tables and "
                        "UNNESTs joined", most);
    exprs x = {.n = 0};
    weir_expr_scope saved = p->scope;
    p->scope = *scope;
    int r = bind(p, &x, j->unnest_ast, p->sc->text, weir_table_schema(t), -1, NULL,
                 j->unnest.start);
    p->scope = saved;
    if (r)
        return NULL;
    const char *names[8];
    int nnames = j->ncols;
    for (int k = 0; k < j->ncols; k++)
        if (!(names[k] = sql_unquote(p->sc, j->cols[k])))
            return no_memory(p, j->cols[k].start);
    /* an alias without a list names an ARRAY's element of another type
     * than ROW, the one column (ORDINALITY after it keeps its name), as
     * Calcite's AliasNamespace names a one-column UNNEST */
    weir_type ct = weir_expr_type(x.v[0]);
    if (!nnames && j->alias.len && ct.id == WEIR_TYPE_ARRAY &&
        weir_type_nested_type(ct, 0).id != WEIR_TYPE_ROW) {
        if (!(names[0] = sql_unquote(p->sc, j->alias)))
            return no_memory(p, j->alias.start);
        nnames = 1;
        if (j->ordinality)
            names[nnames++] = "ORDINALITY";
    }
    int nin = weir_schema_ncolumns(weir_table_schema(t));
    weir_table *u = weir_table_unnest_expr(t, x.v[0], names, nnames, j->ordinality,
                                           j->kind == WEIR_JOIN_LEFT && !j->cross);
    if (!u)
        return table_fail(p, j->unnest.start);
    weir_expr_scope out = *scope;
    out.schema = weir_table_schema(u);
    out.inputs[out.ninputs].qualifier = j->alias.len ? sql_unquote(p->sc, j->alias) : NULL;
    out.inputs[out.ninputs].columns = weir_table_unnest_columns(u);
    out.inputs[out.ninputs].first = nin;
    out.ninputs++;
    *scope = out;
    return u;
}

/* FROM UNNEST(expr) [WITH ORDINALITY] AS u(x, ...): the UNNEST joined to one
 * row (as Calcite's Uncollect over Values), then that row's own column
 * left out, so the collection's columns are the source's. */
static weir_table *plan_unnest_first(planner *p, const sql_query *q)
{
    const sql_join *j = q->from_unnest;
    weir_table *one = values_source(p, 1, j->at.start);
    if (!one)
        return NULL;
    weir_expr_scope scope = {.schema = weir_table_schema(one), .ninputs = 1};
    scope.inputs[0].columns = weir_table_schema(one);
    weir_table *u = plan_unnest(p, j, one, &scope);
    if (!u)
        return NULL;
    const weir_schema *schema = weir_table_schema(u);
    int n = weir_schema_ncolumns(schema);
    exprs x = {.n = 0};
    bool off = p->scope_off;
    p->scope_off = true; /* the names are the UNNEST's own columns */
    for (int c = 1; c < n; c++) {
        weir_ast *a = weir_ast_new(p->trees, WEIR_AST_NAME, weir_schema_column_name(schema, c),
                                   j->at.start, j->at.start);
        if (!a || bind(p, &x, a, NULL, schema, 0, NULL, j->at.start)) {
            p->scope_off = off;
            exprs_free(&x);
            return a ? NULL : no_memory(p, j->at.start);
        }
    }
    p->scope_off = off;
    weir_table *out = weir_table_select_exprs(u, x.v, x.n);
    return out ? out : table_fail(p, j->at.start);
}

/* SELECT's STATE_TTL hint on the join t of inputs named by `left` (a
 * single input's name only) and `right`: each option naming one is
 * matched, and a regular join's side takes its time to live (Flink's
 * StateTtlHint; the interval, temporal and window joins clean their state
 * by time and ignore it). 0, or -1 with the session failed. */
static int state_ttl(planner *p, const sql_query *q, weir_table *t, const weir_expr_scope *left,
                     const weir_expr_scope *right, bool *matched)
{
    int64_t ms[2] = {0, 0};
    for (int h = 0; h < q->nttl; h++) {
        const sql_ttl_hint *x = &q->ttl[h];
        for (int s = 0; s < 2; s++) {
            const weir_expr_scope *sc = s ? right : left;
            const char *n = sc->ninputs == 1 ? sc->inputs[0].qualifier : NULL;
            if (n && strlen(n) == x->name.len &&
                strncmp(n, p->sc->text + x->name.start, x->name.len) == 0) {
                matched[h] = true;
                ms[s] = x->ms;
            }
        }
    }
    if ((ms[0] || ms[1]) && strncmp(weir_table_node_name(t), "Join(", 5) == 0 &&
        weir_table_join_state_ttl(t, ms[0], ms[1])) {
        table_fail(p, q->at.start);
        return -1;
    }
    return 0;
}

/* FROM a [JOIN b ON ...]...: each join onto the table so far (left-deep,
 * as Calcite plans it), its columns named by each source's qualifier. */
static weir_table *plan_joins(planner *p, const sql_query *q, sql_join_push *push,
                              weir_table *t)
{
    bool matched[64] = {false}; /* STATE_TTL's options (64 at most) */
    if (q->nttl > 64)
        return sql_fail(p->s, p->sc, q->ttl[64].name.start, "STATE_TTL: more than 64 options");
    weir_expr_scope left = {.schema = weir_table_schema(t), .ninputs = 1};
    left.inputs[0].qualifier = qualifier_of(p, q->from_kind, q->from_name, q->from_alias);
    left.inputs[0].columns = weir_table_schema(t);
    for (int i = 0; i < q->njoins; i++) {
        const sql_join *j = &q->joins[i];
        if (j->for_time_ast && j->kind && (weir_table_proctime(t) < 0 ||
            as_of_column(&left, j->for_time_ast) != weir_table_proctime(t))) {
            if (!(t = plan_temporal_join(p, j, t, &left)))
                return NULL;
            continue;
        }
        if (j->from_kind == SQL_FROM_UNNEST) {
            if (!(t = plan_unnest(p, j, t, &left)))
                return NULL;
            continue;
        }
        if (j->kind == 0 && (q->njoins > 1 || !q->where_ast))
            return sql_fail(p->s, p->sc, j->at.start, "not supported: %s",
                            q->njoins > 1 ? "a comma join of more than two tables (write JOIN "
                            "... ON)" : "a comma join without WHERE (a cross join)");
        if (j->for_time_ast) { /* a lookup join, or a temporal join */
            weir_expr_scope out;
            if (!(t = sql_plan_for_system_time(p, j, t, &left, &out)))
                return NULL;
            left = out;
            continue;
        }
        weir_table *r = j->from_kind == SQL_FROM_QUERY
                            ? plan_derived(p, j->from_query, j->alias, j->alias_cols,
                                           j->nalias_cols)
                            : plan_name_as(p, j->from_name, j->alias, j->alias_cols,
                                           j->nalias_cols);
        if (r)
            r = sql_plan_join_input(p, q, push, i + 1, r);
        if (!r)
            return NULL;
        weir_expr_scope right = {.schema = weir_table_schema(r), .ninputs = 1};
        right.inputs[0].qualifier = qualifier_of(p, j->from_kind, j->from_name, j->alias);
        right.inputs[0].columns = weir_table_schema(r);
        const weir_ast *cond = j->kind ? j->on_ast : q->where_ast;
        uint32_t at = j->kind ? j->on.start : q->where.start;
        size_t err_at = (size_t)-1;
        weir_expr_scope out;
        t = weir_table_join_tree(t, &left, r, &right, j->kind ? (weir_join_kind)j->kind
                                 : WEIR_JOIN_INNER, cond, p->sc->text, p->trees, &err_at, &out);
        if (!t)
            return table_fail(p, err_at != (size_t)-1 ? (uint32_t)err_at : at);
        if (q->nttl && state_ttl(p, q, t, &left, &right, matched))
            return NULL;
        left = out;
    }
    for (int h = 0; h < q->nttl; h++)
        if (!matched[h])
            return sql_fail(p->s, p->sc, q->ttl[h].name.start, "The options of following hints "
                            "cannot match the name of input tables or views: `%.*s` in "
                            "STATE_TTL", (int)q->ttl[h].name.len,
                            p->sc->text + q->ttl[h].name.start);
    p->scope = left;
    return t;
}

/* ---- for the planning of OVER, ranks and sorts (sql_plan_over.c) ------------------- */

int sql_plan_bind(planner *p, sql_exprs *x, const weir_ast *a, bool as_parsed,
                  const weir_schema *schema, int allow_agg, const char *alias, uint32_t at)
{
    return bind(p, x, a, as_parsed ? p->sc->text : NULL, schema, allow_agg, alias, at);
}

void sql_plan_exprs_free(sql_exprs *x)
{
    exprs_free(x);
}

void *sql_plan_table_fail(planner *p, uint32_t at)
{
    return table_fail(p, at);
}

int sql_plan_item_name(planner *p, const sql_item *it, int i, char *out, size_t size)
{
    return item_name(p, it, i, out, size);
}

weir_table *sql_plan_from(planner *p, const sql_query **q)
{
    return plan_from(p, q);
}

const sql_query *sql_plan_expand_stars(planner *p, const sql_query *q)
{
    return expand_stars(p, q);
}

const char *sql_plan_column_name(planner *p, const weir_schema *schema, const weir_ast *a)
{
    const char *b = bare_name(a);
    return b ? b : join_column_name(p, schema, a);
}

static int unqualify_child(planner *p, const void *arg, const weir_ast *a, const weir_ast **out)
{
    return sql_plan_unqualify(p, arg, a, out);
}

int sql_plan_unqualify(planner *p, const weir_schema *schema, const weir_ast *a,
                       const weir_ast **out)
{
    *out = a;
    if (!a)
        return 0;
    const char *jc = join_column_name(p, schema, a);
    if (jc) {
        weir_ast *n = name_node(p, jc, a);
        if (n)
            n->depth = 1;
        *out = n;
        return n ? 0 : WEIR_ENOMEM;
    }
    return sql_plan_rewrite_children(p, a, unqualify_child, schema, out);
}

weir_table *sql_plan_body_over(planner *p, const sql_query *q, weir_table *t)
{
    return plan_after_from(p, q, t);
}

int sql_plan_all_columns(planner *p, sql_exprs *x, const weir_schema *schema, uint32_t at)
{
    return all_columns(p, x, schema, at);
}

weir_table *sql_plan_subquery_table(planner *p, const sql_query *q)
{
    return plan_query(p, q);
}

const char *sql_plan_qualifier(planner *p, sql_from_kind kind, sql_span name, sql_span alias)
{
    return qualifier_of(p, kind, name, alias);
}

int sql_plan_window_of(planner *p, const sql_window *w, const weir_table *t,
                       weir_table_window *out)
{
    return window_of(p, w, true, t, out);
}
