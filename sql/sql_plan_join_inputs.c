/* sql_plan_join_inputs.c — what a regular join's inputs carry into it, as
 * Flink's planner does before its join (FilterJoinRule, and the column
 * pruning of ProjectJoinTransposeRule / the field trimmer):
 *
 *   - a WHERE conjunct of a query whose joins are all regular INNER joins
 *     (JOIN ... ON, no comma, lookup, temporal or UNNEST join), that reads
 *     columns of one insert-only input only, each named with that input's
 *     qualifier, filters that input before the join instead of the join's
 *     output (unless it calls a function of the clock or a random one,
 *     whose value would move with where it runs); the WHERE keeps the
 *     rest;
 *   - an insert-only input of a regular join is narrowed to the columns
 *     the query reads of it (and its unique key), so that the join's state
 *     holds rows as wide as what is read of them, not the input's whole
 *     rows. A windowed input keeps its window's bounds (a window join
 *     tells its inputs by them). An input whose columns a `*` or `t.*`
 *     takes whole, or a query with WHERE subqueries (which may read an
 *     outer column), keeps them all.
 *
 * Both leave the results as they were: a filter of one input of an inner
 * join lets through the same pairs before the join as after it, and a
 * column the query never names cannot change what it computes. Names are
 * matched conservatively: an unqualified name keeps the column of that
 * name in every input, and a qualifier that names no input (a ROW
 * column's field, r.f) keeps the column it names too. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql_internal.h"
#include "sql_parser.h"
#include "sql_plan.h"
#include "weir/expr_ast.h"
#include "weir/table.h"

/* ---- which input a conjunct reads ------------------------------------------------- */

/* Functions whose value depends on when or where a row is evaluated. */
static const char *const moving_functions[] = {
    "RAND", "RAND_INTEGER", "UUID", "NOW", "CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME",
    "LOCALTIME", "LOCALTIMESTAMP", "CURRENT_ROW_TIMESTAMP", "PROCTIME", "UNIX_TIMESTAMP",
    NULL};

/* Side k (0 the first source, j + 1 the right input of join j) when every
 * name of `a` is qualified by sides[k] and nothing in it moves or
 * aggregates; *side stays -1 for a tree without names. Returns false when
 * the tree cannot go to one side. */
static bool one_side(const weir_ast *a, const char *const *quals, int nsides, int *side)
{
    if (!a)
        return true;
    if (a->kind == WEIR_AST_NAME) {
        if (!a->qualifier)
            return false;
        int k = 0;
        while (k < nsides && !(quals[k] && strcmp(quals[k], a->qualifier) == 0))
            k++;
        if (k == nsides || (*side >= 0 && *side != k))
            return false;
        *side = k;
        return true;
    }
    if (a->kind == WEIR_AST_CALL) {
        if (weir_ast_is_aggregate_call(a))
            return false;
        for (int i = 0; moving_functions[i]; i++)
            if (a->text && strcasecmp(a->text, moving_functions[i]) == 0)
                return false;
    }
    if (!one_side(a->a, quals, nsides, side) || !one_side(a->b, quals, nsides, side))
        return false;
    for (int i = 0; i < a->nargs; i++)
        if (!one_side(a->args[i], quals, nsides, side))
            return false;
    return true;
}

static bool is_and(const weir_ast *a)
{
    return a->kind == WEIR_AST_BINARY && a->op == WEIR_AST_AND;
}

/* Each conjunct of `a` (an AND tree) into the plan, with the side it could
 * filter (-1: none). false when there are too many. */
static bool conjuncts(const weir_ast *a, const char *const *quals, int nsides, sql_join_push *push)
{
    if (is_and(a))
        return conjuncts(a->a, quals, nsides, push) && conjuncts(a->b, quals, nsides, push);
    if (push->nconj == PLAN_MAX_ITEMS)
        return false;
    int side = -1;
    if (!one_side(a, quals, nsides, &side))
        side = -1;
    push->conj[push->nconj] = a;
    push->conj_side[push->nconj++] = side;
    return true;
}

static const char *side_qualifier(planner *p, const sql_query *q, int k)
{
    if (k == 0)
        return sql_plan_qualifier(p, q->from_kind, q->from_name, q->from_alias);
    const sql_join *j = &q->joins[k - 1];
    return sql_plan_qualifier(p, j->from_kind, j->from_name, j->alias);
}

/* a AND b, shown as formatted (NULL: out of memory, reported). */
static weir_ast *and_of(planner *p, const weir_ast *a, const weir_ast *b, uint32_t at)
{
    weir_ast *n = weir_ast_new(p->trees, WEIR_AST_BINARY, NULL, a->start, b->end);
    if (!n) {
        sql_fail(p->s, p->sc, at, "out of memory");
        return NULL;
    }
    n->op = WEIR_AST_AND;
    n->a = (weir_ast *)a;
    n->b = (weir_ast *)b;
    n->depth = 1 + (a->depth > b->depth ? a->depth : b->depth);
    return n;
}

int sql_plan_join_pushdown(planner *p, const sql_query *q, sql_join_push *push)
{
    memset(push, 0, sizeof *push);
    if (!q->njoins || !q->where_ast || q->nsubs || q->njoins + 1 > SQL_JOIN_PUSH_SIDES ||
        (q->from_kind != SQL_FROM_NAME && q->from_kind != SQL_FROM_QUERY))
        return 0;
    for (int i = 0; i < q->njoins; i++) {
        const sql_join *j = &q->joins[i];
        if (j->kind != WEIR_JOIN_INNER || j->for_time_ast || j->from_kind == SQL_FROM_UNNEST)
            return 0;
    }
    const char *quals[SQL_JOIN_PUSH_SIDES];
    int nsides = q->njoins + 1;
    for (int k = 0; k < nsides; k++)
        quals[k] = side_qualifier(p, q, k);
    if (!conjuncts(q->where_ast, quals, nsides, push)) {
        push->nconj = 0;
        return 0;
    }
    /* each side's conjuncts in one AND (in the order written) */
    for (int i = 0; i < push->nconj; i++) {
        int k = push->conj_side[i];
        if (k < 0)
            continue;
        if (!push->where[k]) {
            push->where[k] = push->conj[i];
            continue;
        }
        if (!(push->where[k] = and_of(p, push->where[k], push->conj[i], q->where.start)))
            return WEIR_ENOMEM;
        push->formatted[k] = true; /* its text is no span of the statement's */
    }
    return 0;
}

int sql_plan_join_residual(planner *p, const sql_query **qp, const sql_join_push *push)
{
    const sql_query *q = *qp;
    int kept = 0;
    const weir_ast *rest = NULL;
    for (int i = 0; i < push->nconj; i++) {
        int k = push->conj_side[i];
        if (k >= 0 && push->applied[k])
            continue;
        kept++;
        if (!rest)
            rest = push->conj[i];
        else if (!(rest = and_of(p, rest, push->conj[i], q->where.start)))
            return WEIR_ENOMEM;
    }
    if (kept == push->nconj)
        return 0; /* nothing went down: the WHERE as it is */
    sql_query *copy = sql_arena_alloc(p->tmp, sizeof *copy);
    if (!copy) {
        sql_fail(p->s, p->sc, q->where.start, "out of memory");
        return WEIR_ENOMEM;
    }
    *copy = *q;
    copy->where_ast = (weir_ast *)rest;
    copy->where_formatted = kept > 1;
    if (rest) {
        copy->where.start = rest->start;
        copy->where.len = rest->end - rest->start;
    }
    *qp = copy;
    return 0;
}

/* ---- which columns of an input the query reads ------------------------------------ */

/* Whether `a` names column `col` of the input qualified `qual`. */
static bool names(const weir_ast *a, const char *qual, const char *col)
{
    if (!a)
        return false;
    if (a->kind == WEIR_AST_NAME) {
        if (strcmp(a->text, col) == 0 &&
            (!a->qualifier || (qual && strcmp(a->qualifier, qual) == 0)))
            return true;
        /* r.f: a ROW column r's field, unless r is an input */
        if (a->qualifier && strcmp(a->qualifier, col) == 0)
            return true;
    }
    if (names(a->a, qual, col) || names(a->b, qual, col))
        return true;
    for (int i = 0; i < a->nargs; i++)
        if (names(a->args[i], qual, col))
            return true;
    return false;
}

static bool over_names(const sql_over *o, const char *qual, const char *col)
{
    if (!o)
        return false;
    for (int i = 0; i < o->npartition; i++)
        if (names(o->partition_asts[i], qual, col))
            return true;
    for (int i = 0; i < o->norder; i++)
        if (names(o->order[i].ast, qual, col))
            return true;
    return names(o->lo.ast, qual, col) || names(o->hi.ast, qual, col);
}

static bool span_is(planner *p, sql_span sp, const char *text)
{
    if (!sp.len)
        return false;
    const char *t = sql_unquote(p->sc, sp);
    return !t || strcmp(t, text) == 0; /* out of memory: kept */
}

/* Whether q reads column `col` of its input k qualified `qual` (not
 * counting the WHERE conjuncts that filter that input before the join). */
static bool query_reads(planner *p, const sql_query *q, const sql_join_push *push, int k,
                        const char *qual, const char *col)
{
    for (int i = 0; i < q->nitems; i++) {
        const sql_item *it = &q->items[i];
        if (names(it->ast, qual, col) || over_names(it->over, qual, col))
            return true;
        for (int o = 0; o < it->nover; o++)
            if (over_names(it->overs[o], qual, col))
                return true;
    }
    if (push->nconj) {
        for (int i = 0; i < push->nconj; i++)
            if (!(push->conj_side[i] == k && push->applied[k]) && names(push->conj[i], qual, col))
                return true;
    } else if (names(q->where_ast, qual, col)) {
        return true;
    }
    if (names(q->having_ast, qual, col))
        return true;
    for (int i = 0; i < q->ngroup; i++)
        if (names(q->group_asts[i], qual, col))
            return true;
    const sql_window *w = &q->group_window;
    if (w->kind != SQL_WINDOW_NONE) {
        if (span_is(p, w->time_col, col) &&
            (!w->time_qual.len || !qual || span_is(p, w->time_qual, qual)))
            return true;
        for (int i = 0; i < w->nargs; i++)
            if (names(w->arg_asts[i], qual, col))
                return true;
    }
    for (int i = 0; i < q->norder; i++)
        if (names(q->order[i].ast, qual, col))
            return true;
    for (int i = 0; i < q->njoins; i++) {
        const sql_join *j = &q->joins[i];
        if (names(j->on_ast, qual, col) || names(j->for_time_ast, qual, col) ||
            names(j->unnest_ast, qual, col))
            return true;
    }
    return false;
}

/* Whether q takes every column of the input qualified `qual`: SELECT *,
 * or qual.* among its items. */
static bool takes_all(planner *p, const sql_query *q, const char *qual)
{
    if (q->star)
        return true;
    for (int i = 0; i < q->nitems; i++) {
        const sql_item *it = &q->items[i];
        if (it->star_of.len && !it->ast && (!qual || span_is(p, it->star_of, qual)))
            return true;
    }
    return false;
}

/* The rows of `t` that pred (taken over; NULL: all) keeps, with the
 * columns q reads of it (and its unique key), or all of them when it
 * needs them all or is not insert-only: one Calc. NULL after reporting. */
static weir_table *narrow(planner *p, const sql_query *q, const sql_join_push *push, int k,
                          weir_table *t, const char *qual, uint32_t at, weir_expr *pred)
{
    const weir_schema *s = weir_table_schema(t);
    int n = weir_schema_ncolumns(s);
    if (q->nsubs || q->from_kind == SQL_FROM_WINDOW || n > PLAN_MAX_ITEMS ||
        weir_table_changelog_mode(t) != WEIR_CHANGELOG_INSERT_ONLY || takes_all(p, q, qual)) {
        if (pred && !(t = weir_table_where_expr(t, pred)))
            return sql_plan_table_fail(p, at);
        return t;
    }
    const int *ukey;
    int nukey = weir_table_unique_key(t, &ukey);
    bool keep[PLAN_MAX_ITEMS];
    int nkeep = 0;
    int wstart, wend;
    weir_table_windowed(t, &wstart, &wend);
    for (int c = 0; c < n; c++) {
        /* a window's bounds stay: a window join tells its inputs by them */
        keep[c] = c == wstart || c == wend ||
                  query_reads(p, q, push, k, qual, weir_schema_column_name(s, c));
        for (int u = 0; u < nukey && !keep[c]; u++)
            keep[c] = ukey[u] == c;
        nkeep += keep[c];
    }
    if (nkeep == n || nkeep == 0) {
        if (pred && !(t = weir_table_where_expr(t, pred)))
            return sql_plan_table_fail(p, at);
        return t;
    }
    sql_exprs x = {.n = 0};
    weir_expr_scope scope = {.schema = s, .zone = weir_table_env_config(p->env)->time_zone};
    for (int c = 0; c < n; c++) {
        if (!keep[c])
            continue;
        weir_ast *name = weir_ast_new(p->trees, WEIR_AST_NAME, weir_schema_column_name(s, c),
                                      at, at);
        size_t err_at = 0;
        char msg[512];
        int r = name ? weir_expr_bind(name, NULL, &scope, 1, NULL, &x.v[x.n], &err_at, msg,
                                      sizeof msg)
                     : WEIR_ENOMEM;
        if (r) {
            sql_plan_exprs_free(&x);
            weir_expr_destroy(pred);
            return sql_fail(p->s, p->sc, at, "%s", r == WEIR_ENOMEM ? "out of memory" : msg);
        }
        x.n++;
    }
    weir_table *out = weir_table_calc_exprs(t, pred, x.v, x.n);
    return out ? out : sql_plan_table_fail(p, at);
}

weir_table *sql_plan_join_input(planner *p, const sql_query *q, sql_join_push *push, int k,
                                weir_table *t)
{
    const char *qual = side_qualifier(p, q, k);
    uint32_t at = k == 0 ? q->from_name.start : q->joins[k - 1].at.start;
    /* an input with updates keeps its filter after the join: an upsert
     * input's row that leaves the filter must still replace its key's */
    const weir_ast *w =
        weir_table_changelog_mode(t) == WEIR_CHANGELOG_INSERT_ONLY ? push->where[k] : NULL;
    weir_expr *e = NULL;
    if (w) {
        /* bound in the input's own scope: its qualifier names it */
        const weir_schema *s = weir_table_schema(t);
        weir_expr_scope scope = {.schema = s, .ninputs = 1,
                                 .zone = weir_table_env_config(p->env)->time_zone};
        scope.inputs[0].qualifier = qual;
        scope.inputs[0].columns = s;
        size_t err_at = 0;
        char msg[1024];
        int r = weir_expr_bind(w, push->formatted[k] ? NULL : p->sc->text, &scope, -1, NULL, &e,
                               &err_at, msg, sizeof msg);
        if (r)
            return sql_fail(p->s, p->sc, r == WEIR_ENOMEM ? w->start : (uint32_t)err_at, "%s",
                            r == WEIR_ENOMEM ? "out of memory" : msg);
        push->applied[k] = true;
    }
    return narrow(p, q, push, k, t, qual, at, e);
}
