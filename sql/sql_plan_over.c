/* sql_plan_over.c — OVER windows, ROW_NUMBER patterns, ORDER BY and LIMIT
 * onto the table layer, as Flink's planner plans them:
 *
 *   SELECT ..., agg(x) OVER (PARTITION BY k ORDER BY rt frame) ...
 *        an OverAggregate (weir_table_over_exprs) of every OVER call, named
 *        w0$o0, w0$o1 ... as Flink's plans name them, then a Calc of the
 *        select list over its columns;
 *   SELECT ... FROM (SELECT ..., ROW_NUMBER() OVER (PARTITION BY p ORDER BY
 *        o) AS rn FROM t | TABLE(TUMBLE(...))) WHERE rn <= N [AND ...]
 *        a rank (weir_table_rank: a Deduplicate, a Rank or a WindowRank as
 *        the order and the partition say; FlinkLogicalRankRule reads the
 *        range of rn out of the filter, the rest of it stays a filter
 *        after), with rn a column only when the query around reads it (a
 *        constant rn, rn = 1, is the literal, ConstantRankNumberColumn
 *        RemoveRule);
 *   ORDER BY rt [, ...]        a TemporalSort (weir_table_sort);
 *   ORDER BY ... LIMIT n       a SortLimit (weir_table_sort_limit);
 *   LIMIT n                    a Limit (weir_table_limit).
 * What Flink refuses on a stream is refused with its message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql_plan.h"
#include "weir/error.h"

#define fail(p, at, ...) sql_fail((p)->s, (p)->sc, (at), __VA_ARGS__)

static const char *bare(const weir_ast *a)
{
    return a && a->kind == WEIR_AST_NAME && !a->qualifier ? a->text : NULL;
}

static bool is_call(const weir_ast *a, const char *name)
{
    return a && a->kind == WEIR_AST_CALL && strcasecmp(a->text, name) == 0;
}

static bool is_row_number(const weir_ast *a)
{
    return is_call(a, "ROW_NUMBER") && a->nargs == 0;
}

bool sql_over_query(const sql_query *q)
{
    for (int i = 0; i < q->nitems; i++)
        if (q->items[i].over || q->items[i].nover)
            return true;
    return false;
}

/* The column name an OVER call's value goes out as (w0$oK). */
typedef char over_name[32];

static int replace_over_calls(planner *p, const sql_item *it, over_name *names,
                              const weir_ast *a, const weir_ast **out);

typedef struct over_arg {
    const sql_item *it;
    over_name *names;
} over_arg;

static int replace_child(planner *p, const void *arg, const weir_ast *a, const weir_ast **out)
{
    const over_arg *oa = arg;
    return replace_over_calls(p, oa->it, oa->names, a, out);
}

/* `a` with each OVER call of item `it` (by node) as the name of its column
 * (names[k] for it->over_calls[k]), into *out. 0 or WEIR_ENOMEM. */
static int replace_over_calls(planner *p, const sql_item *it, over_name *names,
                              const weir_ast *a, const weir_ast **out)
{
    *out = a;
    if (!a)
        return 0;
    for (int k = 0; k < it->nover; k++)
        if (a == it->over_calls[k]) {
            weir_ast *n = weir_ast_new(p->trees, WEIR_AST_NAME, names[k], a->start, a->end);
            if (!n)
                return WEIR_ENOMEM;
            n->depth = 1;
            *out = n;
            return 0;
        }
    over_arg oa = {it, names};
    return sql_plan_rewrite_children(p, a, replace_child, &oa, out);
}

static bool tree_has_aggregate(const weir_ast *a)
{
    if (!a)
        return false;
    if (weir_ast_is_aggregate_call(a))
        return true;
    if (tree_has_aggregate(a->a) || tree_has_aggregate(a->b))
        return true;
    for (int i = 0; i < a->nargs; i++)
        if (tree_has_aggregate(a->args[i]))
            return true;
    return false;
}

static void *oom(planner *p, uint32_t at)
{
    return fail(p, at, "out of memory");
}

/* ---- OVER aggregates --------------------------------------------------------------- */

static bool same_asts(const weir_ast *const *a, const weir_ast *const *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!weir_ast_equal(a[i], b[i]))
            return false;
    return true;
}

static bool same_bound(const sql_bound *a, const sql_bound *b)
{
    return a->kind == b->kind && (!a->ast || !b->ast ? a->ast == b->ast
                                                     : weir_ast_equal(a->ast, b->ast));
}

/* Whether two OVER windows are the same window. */
static bool same_window(const sql_over *a, const sql_over *b)
{
    if (a->npartition != b->npartition || a->norder != b->norder || a->frame != b->frame)
        return false;
    if (!same_asts((const weir_ast *const *)a->partition_asts,
                   (const weir_ast *const *)b->partition_asts, a->npartition))
        return false;
    for (int i = 0; i < a->norder; i++)
        if (!weir_ast_equal(a->order[i].ast, b->order[i].ast) ||
            a->order[i].desc != b->order[i].desc || a->order[i].nulls != b->order[i].nulls)
            return false;
    return !a->frame || (same_bound(&a->lo, &b->lo) && same_bound(&a->hi, &b->hi));
}

/* The key list of the partition columns ("`a`, `b`"), each a column of
 * schema; NULL after reporting. `what` names the clause. */
static char *partition_list(planner *p, sql_span *spans, weir_ast **asts, int n,
                            const weir_schema *schema, const char *what,
                            const char *const *names)
{
    size_t cap = 4;
    for (int i = 0; i < n; i++)
        cap += 2 * strlen(names && names[i] ? names[i] : asts[i]->text ? asts[i]->text : "") + 8;
    char *buf = sql_arena_alloc(p->tmp, cap);
    if (!buf)
        return oom(p, n ? spans[0].start : 0);
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        const char *name = names && names[i] ? names[i] : bare(asts[i]);
        if (!name)
            return fail(p, spans[i].start, "not supported: %s a computed expression (compute it "
                        "in a subquery and %s its column)", what, what);
        if (weir_schema_column_index(schema, name) < 0) {
            sql_exprs x = {.n = 0};
            if (sql_plan_bind(p, &x, asts[i], true, schema, -1, NULL, spans[i].start) == 0) {
                sql_plan_exprs_free(&x);
                return fail(p, spans[i].start, "%s '%s': not a column of its input", what, name);
            }
            return NULL;
        }
        len += (size_t)snprintf(buf + len, cap - len, "%s`", i ? ", " : "");
        for (const char *c = name; *c; c++) {
            buf[len++] = *c;
            if (*c == '`')
                buf[len++] = '`';
        }
        buf[len++] = '`';
        buf[len] = 0;
    }
    return buf;
}

/* The frame of an OVER window over t into *w; 0 or WEIR_EINVAL (reported). */
static int over_frame(planner *p, const sql_over *o, const weir_table *t,
                      weir_table_over_window *w, const char **order_col)
{
    /* an updating input (weir's extension, ChangelogOverAggregate): ordered
     * by a column's value, a ROWS frame */
    bool changes = weir_table_changelog_mode(t) != WEIR_CHANGELOG_INSERT_ONLY;
    const weir_schema *schema = weir_table_schema(t);
    if (o->norder != 1)
        return fail(p, o->at.start, "The window can only be ordered by a single time column."),
               WEIR_EINVAL;
    const sql_order_key *k = &o->order[0];
    if (k->desc)
        return fail(p, k->expr.start, "The window can only be ordered in ASCENDING mode."),
               WEIR_EINVAL;
    const char *col = sql_plan_column_name(p, schema, k->ast); /* ts, or Q.ts */
    int ci = col ? weir_schema_column_index(schema, col) : -1;
    if (col && ci < 0) {
        sql_exprs x = {.n = 0};
        if (sql_plan_bind(p, &x, k->ast, true, schema, -1, NULL, k->expr.start) == 0) {
            sql_plan_exprs_free(&x);
            fail(p, k->expr.start, "unknown column '%s'", col);
        }
        return WEIR_EINVAL;
    }
    /* the processing-time attribute: a processing-time OVER */
    bool proc = !changes && ci >= 0 && ci != weir_table_rowtime(t) &&
                ci == weir_table_proctime(t);
    if (ci < 0 || (!changes && !proc && ci != weir_table_rowtime(t)))
        return fail(p, k->expr.start, "OVER windows' ordering in stream mode must be defined "
                    "on a time attribute."), WEIR_EINVAL;
    *order_col = changes || proc ? col : NULL;
    *w = (weir_table_over_window){.frame = WEIR_OVER_RANGE_UNBOUNDED};
    if (changes && o->frame != 'R')
        return fail(p, o->frame ? o->frame_at.start : o->at.start, "an OVER window over an "
                    "updating input takes a ROWS frame (ROWS BETWEEN n PRECEDING AND CURRENT "
                    "ROW, or UNBOUNDED PRECEDING): weir computes it as a materialized view "
                    "ordered by %s, a RANGE of times is not planned", col), WEIR_EINVAL;
    if (!o->frame)
        return 0;
    bool rows = o->frame == 'R';
    if (o->hi.kind != SQL_BOUND_CURRENT_ROW ||
        (o->lo.kind != SQL_BOUND_UNBOUNDED_PRECEDING && o->lo.kind != SQL_BOUND_PRECEDING))
        return fail(p, o->frame_at.start, "OVER RANGE FOLLOWING windows are not supported "
                    "yet."), WEIR_EINVAL;
    if (o->lo.kind == SQL_BOUND_UNBOUNDED_PRECEDING) {
        w->frame = rows ? WEIR_OVER_ROWS_UNBOUNDED : WEIR_OVER_RANGE_UNBOUNDED;
        return 0;
    }
    const weir_ast *b = o->lo.ast;
    if (rows) {
        char *end = NULL;
        long long n = b->kind == WEIR_AST_INT ? strtoll(b->text, &end, 10) : -1;
        if (b->kind != WEIR_AST_INT || *end || n < 0 || n > INT32_MAX)
            return fail(p, b->start, "ROWS value must be a non-negative integral constant"),
                   WEIR_EINVAL;
        w->frame = WEIR_OVER_ROWS;
        w->preceding = n;
        return 0;
    }
    if (b->kind != WEIR_AST_INTERVAL)
        return fail(p, b->start, "Data Type mismatch between ORDER BY and RANGE clause"),
               WEIR_EINVAL;
    if (b->value < 0)
        return fail(p, b->start, "RANGE value must be a non-negative constant"), WEIR_EINVAL;
    w->frame = WEIR_OVER_RANGE;
    w->preceding = b->value;
    return 0;
}

weir_table *sql_plan_over(planner *p, const sql_query *q, weir_table *t)
{
    const sql_over *first = NULL;
    int nover = 0;
    for (int i = 0; i < q->nitems; i++) {
        const sql_item *it = &q->items[i];
        if (!it->over && !it->nover) {
            if (q->items[i].ast && tree_has_aggregate(q->items[i].ast))
                return fail(p, it->expr.start, "an aggregate without OVER beside OVER "
                            "aggregates (GROUP BY in a subquery, or OVER for each)");
            continue;
        }
        /* the item's OVER calls: itself, or the calls inside it */
        for (int k = it->over ? -1 : 0; k < (it->over ? 0 : it->nover); k++) {
            const weir_ast *call = k < 0 ? it->ast : it->over_calls[k];
            const sql_over *ov = k < 0 ? it->over : it->overs[k];
            uint32_t at = k < 0 ? it->expr.start : call->start;
            if (is_row_number(call))
                return fail(p, at, "ROW_NUMBER() OVER: weir plans it, as Flink does, as a "
                            "Top-N or a deduplication, from a subquery filtered on its number "
                            "(SELECT * FROM (SELECT *, ROW_NUMBER() OVER (...) AS rn FROM t) "
                            "WHERE rn <= N)");
            if (!weir_ast_is_aggregate_call(call)) {
                char name[64];
                snprintf(name, sizeof name, "%s", call->kind == WEIR_AST_CALL
                                                      ? call->text : "this expression");
                return fail(p, at, "not supported: %s OVER (an OVER window takes an aggregate "
                            "call: COUNT, SUM, MIN, MAX, AVG or a function from C)", name);
            }
            if (!first)
                first = ov;
            else if (!same_window(first, ov))
                return fail(p, ov->at.start, "All aggregates must be computed on the same "
                            "window.");
            nover++;
        }
    }
    if (q->distinct)
        return fail(p, q->at.start, "SELECT DISTINCT with OVER aggregates: weir does not plan "
                    "it (SELECT DISTINCT over a subquery instead)");
    const weir_schema *schema = weir_table_schema(t);
    weir_table_over_window w;
    const char *order_col = NULL;
    if (over_frame(p, first, t, &w, &order_col))
        return NULL;
    const char **pnames = sql_arena_alloc(p->tmp, (size_t)(first->npartition + 1) *
                                                  sizeof *pnames);
    if (!pnames)
        return oom(p, first->at.start);
    for (int i = 0; i < first->npartition; i++) /* k, or Q.k */
        pnames[i] = sql_plan_column_name(p, schema, first->partition_asts[i]);
    char *part = partition_list(p, first->partition, first->partition_asts, first->npartition,
                                schema, "PARTITION BY", pnames);
    if (!part)
        return NULL;
    w.partition_by = part;
    /* the OVER calls, each once, named w0$oK */
    sql_exprs x = {.n = 0};
    int *col = sql_arena_alloc(p->tmp, (size_t)q->nitems * sizeof *col);
    if (!col)
        return oom(p, q->at.start);
    /* each distinct OVER call once (those inside items too): the calls
     * bound so far, to find one again */
    const weir_ast **bound = sql_arena_alloc(p->tmp, (size_t)(nover + 1) * sizeof *bound);
    over_name **inner = sql_arena_alloc(p->tmp, (size_t)q->nitems * sizeof *inner);
    // cppcheck-suppress knownConditionTrueFalse ; sql_arena_alloc is NULL when malloc fails
    if (!bound || !inner)
        return oom(p, q->at.start);
    for (int i = 0; i < q->nitems; i++) {
        const sql_item *it = &q->items[i];
        col[i] = -1;
        inner[i] = NULL;
        if (!it->over && !it->nover)
            continue;
        if (it->nover && !(inner[i] = sql_arena_alloc(p->tmp, (size_t)it->nover *
                                                               sizeof *inner[i])))
            return oom(p, q->at.start);
        for (int k = it->over ? -1 : 0; k < (it->over ? 0 : it->nover); k++) {
            const weir_ast *call = k < 0 ? it->ast : it->over_calls[k];
            int c = 0;
            while (c < x.n && !weir_ast_equal(bound[c], call))
                c++;
            if (c == x.n) {
                char alias[32];
                snprintf(alias, sizeof alias, "w0$o%d", x.n);
                bound[x.n] = call;
                if (sql_plan_bind(p, &x, call, true, schema, 1, alias, it->expr.start)) {
                    sql_plan_exprs_free(&x);
                    return NULL;
                }
            }
            if (k < 0)
                col[i] = c;
            else
                snprintf(inner[i][k], sizeof inner[i][k], "w0$o%d", c);
        }
    }
    (void)nover;
    weir_table *o = order_col ? weir_table_over_by_exprs(t, &w, order_col, x.v, x.n)
                              : weir_table_over_exprs(t, &w, x.v, x.n);
    if (!o)
        return sql_plan_table_fail(p, first->at.start);
    /* the select list over the OverAggregate's columns */
    const weir_schema *os = weir_table_schema(o);
    sql_exprs out = {.n = 0};
    if (q->star && sql_plan_all_columns(p, &out, schema, q->at.start))
        return NULL;
    for (int i = 0; i < q->nitems; i++) {
        char name[SQL_NAME_MAX];
        if (sql_plan_item_name(p, &q->items[i], i, name, sizeof name)) {
            sql_plan_exprs_free(&out);
            return oom(p, q->items[i].expr.start);
        }
        const weir_ast *a = q->items[i].ast;
        if (inner[i] && replace_over_calls(p, &q->items[i], inner[i], a, &a)) {
            sql_plan_exprs_free(&out);
            return oom(p, q->items[i].expr.start);
        }
        if (inner[i] && tree_has_aggregate(a)) {
            sql_plan_exprs_free(&out);
            return fail(p, q->items[i].expr.start, "an aggregate without OVER beside OVER "
                        "aggregates (GROUP BY in a subquery, or OVER for each)");
        }
        if (col[i] < 0 && sql_plan_unqualify(p, schema, a, &a)) { /* Q.k: k */
            sql_plan_exprs_free(&out);
            return NULL;
        }
        if (col[i] >= 0) {
            char c[32];
            snprintf(c, sizeof c, "w0$o%d", col[i]);
            weir_ast *n = weir_ast_new(p->trees, WEIR_AST_NAME, c, a->start, a->end);
            if (!n) {
                sql_plan_exprs_free(&out);
                return oom(p, a->start);
            }
            n->depth = 1;
            a = n;
        }
        if (sql_plan_bind(p, &out, a, a == q->items[i].ast && !q->items[i].star_of.len, os, 0,
                          name, q->at.start)) {
            sql_plan_exprs_free(&out);
            return NULL;
        }
    }
    weir_table *sel = weir_table_select_exprs(o, out.v, out.n);
    return sel ? sel : sql_plan_table_fail(p, q->at.start);
}

/* ---- ORDER BY and LIMIT -------------------------------------------------------------- */

/* The order keys as the table layer reads them ("`a` DESC, `b` ASC"),
 * from key `from` on; each a column of schema. NULL after reporting. */
static char *order_list(planner *p, const sql_order_key *keys, int from, int n,
                        const weir_schema *schema, const char *const *names)
{
    size_t cap = 4;
    for (int i = from; i < n; i++)
        cap += 2 * strlen(names && names[i] ? names[i]
                          : keys[i].ast->text ? keys[i].ast->text : "") + 32;
    char *buf = sql_arena_alloc(p->tmp, cap);
    if (!buf)
        return oom(p, 0);
    size_t len = 0;
    buf[0] = 0;
    for (int i = from; i < n; i++) {
        const char *name = names && names[i] ? names[i] : bare(keys[i].ast);
        if (!name)
            return fail(p, keys[i].expr.start, "not supported: ORDER BY a computed expression "
                        "(compute it in a subquery and order by its column)");
        if (weir_schema_column_index(schema, name) < 0) {
            sql_exprs x = {.n = 0};
            if (sql_plan_bind(p, &x, keys[i].ast, true, schema, -1, NULL,
                              keys[i].expr.start) == 0) {
                sql_plan_exprs_free(&x);
                fail(p, keys[i].expr.start, "unknown column '%s'", name);
            }
            return NULL;
        }
        len += (size_t)snprintf(buf + len, cap - len, "%s`", i > from ? ", " : "");
        for (const char *c = name; *c; c++) {
            buf[len++] = *c;
            if (*c == '`')
                buf[len++] = '`';
        }
        len += (size_t)snprintf(buf + len, cap - len, "` %s%s", keys[i].desc ? "DESC" : "ASC",
                                keys[i].nulls == 1   ? " NULLS FIRST"
                                : keys[i].nulls == 2 ? " NULLS LAST"
                                                     : "");
    }
    return buf;
}

weir_table *sql_plan_order_limit(planner *p, const sql_query *q, weir_table *t)
{
    const weir_schema *schema = weir_table_schema(t);
    weir_table *out;
    if (q->norder) {
        char *keys = order_list(p, q->order, 0, q->norder, schema, NULL);
        if (!keys)
            return NULL;
        if (q->limit < 0) {
            const char *first = bare(q->order[0].ast);
            if (q->order[0].desc || weir_schema_column_index(schema, first) != weir_table_rowtime(t))
                return fail(p, q->order[0].expr.start, "Sort on a non-time-attribute field is "
                            "not supported.");
            char *rest = order_list(p, q->order, 1, q->norder, schema, NULL);
            if (!rest)
                return NULL;
            out = weir_table_sort(t, rest);
        } else {
            out = weir_table_sort_limit(t, keys, q->offset, q->limit);
        }
        return out ? out : sql_plan_table_fail(p, q->order_at.start);
    }
    out = weir_table_limit(t, q->offset, q->limit);
    return out ? out : sql_plan_table_fail(p, q->limit_at.start);
}

/* ---- ROW_NUMBER: Top-N, deduplication, window Top-N -------------------------------- */

/* The ROW_NUMBER item of q, or -1. */
static int row_number_item(const sql_query *q)
{
    for (int i = 0; i < q->nitems; i++)
        if (q->items[i].over && is_row_number(q->items[i].ast))
            return i;
    return -1;
}

bool sql_rank_query(const sql_query *q)
{
    return q->from_kind == SQL_FROM_QUERY && q->from_query && !q->nfrom_cols &&
           !q->from_query->union_all &&
           !q->from_query->nvalues && row_number_item(q->from_query) >= 0;
}

/* Whether `a` reads the column `name`. */
static bool reads(const weir_ast *a, const char *name)
{
    if (!a)
        return false;
    if (a->kind == WEIR_AST_NAME)
        return strcmp(a->text, name) == 0;
    if (reads(a->a, name) || reads(a->b, name))
        return true;
    for (int i = 0; i < a->nargs; i++)
        if (reads(a->args[i], name))
            return true;
    return false;
}

/* An integer literal's value; false if `a` is not one. */
static bool int_literal(const weir_ast *a, int64_t *v)
{
    if (!a || a->kind != WEIR_AST_INT)
        return false;
    char *end;
    long long x = strtoll(a->text, &end, 10);
    if (*end)
        return false;
    *v = x;
    return true;
}

/* The rank range of a conjunct on rn (rn = c, rn <= c, rn < c, c >= rn,
 * rn BETWEEN a AND b ...) narrowed into [*start, *end]; false if it is no
 * such conjunct. */
static bool rank_conjunct(const weir_ast *a, const char *rn, int64_t *start, int64_t *end)
{
    int64_t c, c2;
    if (a->kind == WEIR_AST_CALL && a->form == WEIR_AST_FORM_BETWEEN && !a->negate &&
        a->nargs == 3 && bare(a->args[0]) && strcmp(bare(a->args[0]), rn) == 0 &&
        int_literal(a->args[1], &c) && int_literal(a->args[2], &c2)) {
        if (c > *start)
            *start = c;
        if (c2 < *end)
            *end = c2;
        return true;
    }
    if (a->kind != WEIR_AST_BINARY)
        return false;
    weir_ast_op op = a->op;
    const weir_ast *n = a->a, *lit = a->b;
    if (!(bare(n) && strcmp(bare(n), rn) == 0)) {
        n = a->b;
        lit = a->a;
        /* c op rn is rn op' c */
        op = op == WEIR_AST_LT ? WEIR_AST_GT : op == WEIR_AST_LE ? WEIR_AST_GE
           : op == WEIR_AST_GT ? WEIR_AST_LT : op == WEIR_AST_GE ? WEIR_AST_LE : op;
    }
    if (!(bare(n) && strcmp(bare(n), rn) == 0) || !int_literal(lit, &c))
        return false;
    switch (op) {
    case WEIR_AST_EQ:
        if (c > *start)
            *start = c;
        if (c < *end)
            *end = c;
        return true;
    case WEIR_AST_LE: if (c < *end) *end = c; return true;
    case WEIR_AST_LT: if (c - 1 < *end) *end = c - 1; return true;
    case WEIR_AST_GE: if (c > *start) *start = c; return true;
    case WEIR_AST_GT: if (c + 1 > *start) *start = c + 1; return true;
    default: return false;
    }
}

/* Splits `a` at its ANDs: the conjuncts on rn narrow the range, the others
 * are ANDed again into *rest (NULL: none). 0 or WEIR_ENOMEM. */
static int split_where(planner *p, const weir_ast *a, const char *rn, int64_t *start,
                       int64_t *end, bool *found, const weir_ast **rest)
{
    if (a->kind == WEIR_AST_BINARY && a->op == WEIR_AST_AND) {
        const weir_ast *ra = NULL, *rb = NULL;
        int r = split_where(p, a->a, rn, start, end, found, &ra);
        if (!r)
            r = split_where(p, a->b, rn, start, end, found, &rb);
        if (r)
            return r;
        if (!ra || !rb) {
            *rest = ra ? ra : rb;
            return 0;
        }
        if (ra == a->a && rb == a->b) {
            *rest = a;
            return 0;
        }
        weir_ast *n = weir_ast_new(p->trees, WEIR_AST_BINARY, NULL, a->start, a->end);
        if (!n)
            return WEIR_ENOMEM;
        *n = *a;
        n->a = (weir_ast *)ra;
        n->b = (weir_ast *)rb;
        *rest = n;
        return 0;
    }
    if (rank_conjunct(a, rn, start, end)) {
        *found = true;
        *rest = NULL;
        return 0;
    }
    *rest = a;
    return 0;
}

/* The column of a ranked subquery's output (schema) that a PARTITION BY or
 * ORDER BY key names: a bare column of it, or the column of the item the
 * key is (B.price; a column of A.*), inner's items from column `first` on.
 * NULL: neither (partition_list and order_list report it). */
static const char *item_column(const sql_query *inner, int first, const weir_ast *key,
                               const weir_schema *schema)
{
    const char *name = bare(key);
    if (name && weir_schema_column_index(schema, name) >= 0)
        return name;
    for (int i = 0; i < inner->nitems; i++)
        if (inner->items[i].ast && weir_ast_equal(inner->items[i].ast, key) &&
            first + i < weir_schema_ncolumns(schema))
            return weir_schema_column_name(schema, first + i);
    return NULL;
}

weir_table *sql_plan_rank(planner *p, const sql_query *q)
{
    const sql_query *sub = q->from_query;
    int ri = row_number_item(sub);
    const sql_item *rit = &sub->items[ri];
    const sql_over *o = rit->over;
    char rn[SQL_NAME_MAX];
    if (sql_plan_item_name(p, rit, ri, rn, sizeof rn))
        return oom(p, rit->expr.start);
    for (int i = 0; i < sub->nitems; i++)
        if (i != ri && (sub->items[i].over || weir_ast_is_aggregate_call(sub->items[i].ast)))
            return fail(p, sub->items[i].expr.start, "not supported: another OVER window or "
                        "an aggregate beside ROW_NUMBER() OVER");
    if (sub->ngroup || sub->group_window.kind || sub->having_ast || sub->distinct ||
        sub->norder || sub->limit >= 0)
        return fail(p, sub->at.start, "not supported: ROW_NUMBER() OVER in a grouped or sorted "
                    "query (rank the rows of a subquery that groups or sorts them)");
    if (o->frame)
        return fail(p, o->frame_at.start, "not supported: a frame for ROW_NUMBER()");
    if (o->norder == 0)
        return fail(p, o->at.start, "Over Agg: The window rank function without order by. "
                    "please re-check the over window statement.");
    /* the range of rn from the filter around */
    int64_t start = 1, end = INT64_MAX;
    bool found = false;
    const weir_ast *rest = NULL;
    if (q->where_ast && split_where(p, q->where_ast, rn, &start, &end, &found, &rest))
        return oom(p, q->where.start);
    if (!found || end == INT64_MAX)
        return fail(p, q->where_ast ? q->where.start : q->at.start, "Rank end is not "
                    "specified. Currently rank only support TopN, which means the rank end must "
                    "be specified.");
    if (start < 1)
        start = 1;
    if (end < start)
        return fail(p, q->where.start, "the filter on %s leaves no rank (%lld to %lld)", rn,
                    (long long)start, (long long)end);
    /* the subquery's input and its select list but rn (a t.* among it
     * replaced by t's columns) */
    weir_table *t = sql_plan_from(p, &sub);
    if (!t || !(sub = sql_plan_expand_stars(p, sub)))
        return NULL;
    ri = row_number_item(sub);
    if (sub->from_kind == SQL_FROM_WINDOW) {
        /* the window TVF's rows: a window Top-N or deduplication reads them */
        weir_table_window tw;
        if (sql_plan_window_of(p, &sub->from_window, t, &tw))
            return NULL;
        if (!(t = weir_table_window_tvf(t, &tw)))
            return sql_plan_table_fail(p, sub->from_window.at.start);
    }
    sql_query inner = *sub;
    inner.items = NULL;
    inner.nitems = 0;
    sql_item *items = sql_arena_alloc(p->tmp, (size_t)sub->nitems * sizeof *items);
    if (!items)
        return oom(p, sub->at.start);
    for (int i = 0; i < sub->nitems; i++)
        if (i != ri)
            items[inner.nitems++] = sub->items[i];
    inner.items = items;
    inner.from_kind = SQL_FROM_QUERY; /* planned already: t */
    inner.union_all = NULL;
    /* the columns in the subquery's order: rn's place among them */
    int rn_at = sub->star ? weir_schema_ncolumns(weir_table_schema(t)) + ri : ri;
    if (!(sub->star && inner.nitems == 0) || sub->where_ast)
        if (!(t = sql_plan_body_over(p, &inner, t)))
            return NULL;
    const weir_schema *schema = weir_table_schema(t);
    /* a key that is one of the subquery's items (A.id, B.price, a column of
     * A.*) is that item's column */
    int first_item = sub->star ? rn_at - ri : 0;
    const char **pnames = sql_arena_alloc(p->tmp, (size_t)(o->npartition + 1) * sizeof *pnames);
    const char **onames = sql_arena_alloc(p->tmp, (size_t)(o->norder + 1) * sizeof *onames);
    if (!pnames || !onames)
        return oom(p, o->at.start);
    for (int i = 0; i < o->npartition; i++)
        pnames[i] = item_column(&inner, first_item, o->partition_asts[i], schema);
    for (int i = 0; i < o->norder; i++)
        onames[i] = item_column(&inner, first_item, o->order[i].ast, schema);
    char *part = partition_list(p, o->partition, o->partition_asts, o->npartition, schema,
                                "PARTITION BY", pnames);
    char *order = part ? order_list(p, o->order, 0, o->norder, schema, onames) : NULL;
    if (!order)
        return NULL;
    /* rn a column of the rank's output when read around it and not constant */
    bool read = q->star || q->ngroup || q->having_ast || q->group_window.kind;
    for (int i = 0; !read && i < q->nitems; i++)
        read = reads(q->items[i].ast, rn);
    for (int i = 0; !read && i < q->ngroup; i++)
        read = reads(q->group_asts[i], rn);
    read = read || (rest && reads(rest, rn)) || (q->having_ast && reads(q->having_ast, rn));
    bool constant = start == end;
    weir_table_rank_spec spec = {.partition_by = part, .order_by = order, .rank_start = start,
                                 .rank_end = end,
                                 .rank_column = read && !constant ? rn : NULL};
    weir_table *r = weir_table_rank(t, &spec);
    if (!r)
        return sql_plan_table_fail(p, o->at.start);
    /* the subquery's columns in its order, rn among them (its literal when
     * constant), where the rank's output is not that already */
    const weir_schema *rs = weir_table_schema(r);
    int ncols = weir_schema_ncolumns(rs);
    if (read && (constant || rn_at != ncols - 1)) {
        sql_exprs x = {.n = 0};
        int total = ncols + (constant ? 1 : 0);
        for (int c = 0, k = 0; c < total; c++) {
            const char *cname;
            weir_ast *a;
            if (c == rn_at) {
                cname = rn;
                if (constant) {
                    char num[32];
                    snprintf(num, sizeof num, "%lld", (long long)start);
                    weir_ast *i = weir_ast_new(p->trees, WEIR_AST_INT, num, rit->expr.start,
                                               rit->expr.start);
                    a = weir_ast_new(p->trees, WEIR_AST_CAST, "BIGINT", rit->expr.start,
                                     rit->expr.start);
                    if (!i || !a) {
                        sql_plan_exprs_free(&x);
                        return oom(p, rit->expr.start);
                    }
                    i->depth = 1;
                    a->a = i;
                    a->depth = 2;
                } else {
                    a = weir_ast_new(p->trees, WEIR_AST_NAME, rn, q->at.start, q->at.start);
                }
            } else {
                if (!constant && strcmp(weir_schema_column_name(rs, k), rn) == 0)
                    k++;
                cname = weir_schema_column_name(rs, k++);
                a = weir_ast_new(p->trees, WEIR_AST_NAME, cname, q->at.start, q->at.start);
            }
            if (!a) {
                sql_plan_exprs_free(&x);
                return oom(p, q->at.start);
            }
            if (!a->depth)
                a->depth = 1;
            if (sql_plan_bind(p, &x, a, false, rs, 0, cname, q->at.start)) {
                sql_plan_exprs_free(&x);
                return NULL;
            }
        }
        if (!(r = weir_table_select_exprs(r, x.v, x.n)))
            return sql_plan_table_fail(p, q->at.start);
        rs = weir_table_schema(r);
    }
    /* the rest of the filter around, then the query around as over any table
     * (its names of the ranked subquery's columns by its alias too) */
    sql_plan_source_scope(p, q, r);
    if (rest) {
        sql_exprs x = {.n = 0};
        if (sql_plan_bind(p, &x, rest, rest == q->where_ast, rs, -1, NULL, q->where.start))
            return NULL;
        if (!(r = weir_table_where_expr(r, x.v[0])))
            return sql_plan_table_fail(p, q->where.start);
    }
    sql_query outer = *q;
    outer.where_ast = NULL;
    outer.where.len = 0;
    outer.from_kind = SQL_FROM_QUERY;
    outer.union_all = NULL;
    outer.norder = 0;
    outer.limit = -1;
    return sql_plan_body_over(p, &outer, r);
}
