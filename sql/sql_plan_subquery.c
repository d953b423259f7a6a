/* sql_plan_subquery.c — WHERE's conjuncts over subqueries as Flink's
 * subquery removal plans them (FlinkSubQueryRemoveRule): semi and anti
 * joins of the query's FROM with the subquery (table/table_semi_join.c).
 *
 *   x IN (SELECT y ...)         LeftSemiJoin on x = y
 *   x NOT IN (SELECT y ...)     LeftAntiJoin on x = y OR (x = y) IS NULL: a
 *                               row is dropped by a y equal to x, and by any
 *                               row at all when x is NULL or a y is NULL
 *                               (SQL's three values; no equality to key on:
 *                               every row in one key, as Flink's)
 *   x IN (SELECT y ... WHERE c) LeftSemiJoin on x = y AND c's correlated
 *                               conjuncts (a subquery naming the outer
 *                               query's columns, decorrelated)
 *   EXISTS (SELECT ... WHERE c) LeftSemiJoin on c's correlated conjuncts
 *   NOT EXISTS (...)            LeftAntiJoin on them
 *
 * A correlated conjunct of an EXISTS subquery names a column of the outer
 * query by its qualifier; it and the others that name a column by a
 * qualifier are the join's condition, the rest filter the subquery's rows
 * before the join. The subquery's select list does not matter to EXISTS (its FROM and
 * the rest of its WHERE are read); an uncorrelated IN subquery is planned as
 * it is and must give one column. Correlated on both inputs' window starts
 * and ends, over windowed inputs, the join is a window semi or anti join
 * (table/table_window_join.c).
 */
#include <stdio.h>
#include <string.h>

#include "sql_plan.h"

/* The qualifier a NOT IN / IN subquery's column is named by in the join. */
#define SUB_QUALIFIER "$subquery"

static weir_ast *binary(planner *p, weir_ast_op op, weir_ast *a, weir_ast *b)
{
    weir_ast *n = weir_ast_new(p->trees, WEIR_AST_BINARY, NULL, a->start, b->end);
    if (!n)
        return NULL;
    n->op = op;
    n->a = a;
    n->b = b;
    n->op_at = a->end;
    n->depth = (a->depth > b->depth ? a->depth : b->depth) + 1;
    return n;
}

/* Whether a names a column by one of the outer scope's qualifiers (and not
 * the subquery's own). */
static bool correlated(const weir_ast *a, const weir_expr_scope *outer, const char *own)
{
    if (!a)
        return false;
    if (a->kind == WEIR_AST_NAME && a->qualifier && (!own || strcmp(a->qualifier, own) != 0))
        for (int k = 0; k < outer->ninputs; k++)
            if (outer->inputs[k].qualifier && strcmp(outer->inputs[k].qualifier, a->qualifier) == 0)
                return true;
    if (correlated(a->a, outer, own) || correlated(a->b, outer, own))
        return true;
    for (int i = 0; i < a->nargs; i++)
        if (correlated(a->args[i], outer, own))
            return true;
    return false;
}

/* Whether a names a column with a qualifier. */
static bool qualified(const weir_ast *a)
{
    if (!a)
        return false;
    if (a->kind == WEIR_AST_NAME && a->qualifier)
        return true;
    if (qualified(a->a) || qualified(a->b))
        return true;
    for (int i = 0; i < a->nargs; i++)
        if (qualified(a->args[i]))
            return true;
    return false;
}

/* The conjuncts of `a` into *corr (correlated) and *rest (ANDed). false:
 * out of memory. */
static bool split(planner *p, weir_ast *a, const weir_expr_scope *outer, const char *own,
                  weir_ast **corr, weir_ast **rest)
{
    if (!a)
        return true;
    if (a->kind == WEIR_AST_BINARY && a->op == WEIR_AST_AND)
        return split(p, a->a, outer, own, corr, rest) && split(p, a->b, outer, own, corr, rest);
    /* a conjunct of the subquery's own names alone filters its rows first;
     * one naming a table (a single table's query binds no qualified name)
     * is checked on each pair with the correlated ones */
    weir_ast **to = correlated(a, outer, own) || qualified(a) ? corr : rest;
    if (!*to) {
        *to = a;
        return true;
    }
    return (*to = binary(p, WEIR_AST_AND, *to, a)) != NULL;
}

/* A copy of `a` whose unqualified column names are qualified by the outer
 * input that has them (x in x IN (SELECT x ...) is the outer query's):
 * NULL when out of memory. Call arguments stay as written. */
static weir_ast *outer_names(planner *p, const weir_ast *a, const weir_expr_scope *outer)
{
    if (!a)
        return NULL;
    weir_ast *n = weir_ast_new(p->trees, a->kind, NULL, a->start, a->end);
    if (!n)
        return NULL;
    *n = *a;
    if (a->kind == WEIR_AST_NAME && !a->qualifier)
        for (int k = 0; k < outer->ninputs; k++)
            if (outer->inputs[k].qualifier &&
                weir_schema_column_index(outer->inputs[k].columns, a->text) >= 0) {
                n->qualifier = (char *)outer->inputs[k].qualifier;
                break;
            }
    if ((a->a && !(n->a = outer_names(p, a->a, outer))) ||
        (a->b && !(n->b = outer_names(p, a->b, outer))))
        return NULL;
    return n;
}

/* A copy of `a` whose unqualified column names that are columns of `cols`
 * are qualified by q (the subquery's column in the pair's scope): NULL
 * when out of memory. Call arguments stay as written. */
static weir_ast *own_names(planner *p, const weir_ast *a, const char *q, const weir_schema *cols)
{
    if (!a)
        return NULL;
    weir_ast *n = weir_ast_new(p->trees, a->kind, NULL, a->start, a->end);
    if (!n)
        return NULL;
    *n = *a;
    if (a->kind == WEIR_AST_NAME && !a->qualifier && q && weir_schema_column_index(cols, a->text) >= 0)
        n->qualifier = (char *)q;
    if ((a->a && !(n->a = own_names(p, a->a, q, cols))) ||
        (a->b && !(n->b = own_names(p, a->b, q, cols))))
        return NULL;
    return n;
}

/* Whether a conjunct of a's names a column of the outer query. */
static bool any_correlated(const weir_ast *a, const weir_expr_scope *outer, const char *own)
{
    if (a && a->kind == WEIR_AST_BINARY && a->op == WEIR_AST_AND)
        return any_correlated(a->a, outer, own) || any_correlated(a->b, outer, own);
    return a && correlated(a, outer, own);
}

/* The rows a correlated subquery reads: its FROM filtered by the conjuncts
 * of its WHERE that name only its own columns (*corr: the others, the
 * join's condition); NULL with the session failed. */
static weir_table *correlated_rows(planner *p, const sql_query *sub, const char *what,
                                   const weir_expr_scope *outer, const char *own,
                                   weir_ast **corr)
{
    if (sub->ngroup || sub->group_window.kind || sub->having_ast || sub->union_all ||
        sub->njoins || sub->nvalues || sub->from_kind == SQL_FROM_NONE)
        return sql_fail(p->s, p->sc, sub->at.start, "not supported: %s over a subquery "
                        "with GROUP BY, HAVING, a join, UNION ALL or VALUES (%s reads one "
                        "table, view, window table function or subquery, filtered by WHERE)",
                        what, what);
    weir_ast *rest = NULL;
    *corr = NULL;
    if (!split(p, sub->where_ast, outer, own, corr, &rest))
        return sql_fail(p->s, p->sc, sub->at.start, "out of memory");
    sql_query rows = *sub;
    rows.star = true;
    rows.items = NULL;
    rows.nitems = 0;
    rows.distinct = false;
    rows.where_ast = rest;
    rows.norder = 0;
    rows.limit = -1;
    rows.offset = 0;
    return sql_plan_subquery_table(p, &rows);
}

/* x [NOT] IN (subquery): the subquery's table and the condition. A
 * subquery whose WHERE names the outer query's columns (Flink decorrelates
 * it) reads its FROM filtered by its own conjuncts, and the correlated
 * ones join x = y in the condition: x IN (SELECT y FROM R WHERE R.c = L.c)
 * is a semi join ON x = y AND R.c = L.c (a window semi join when R.c and
 * L.c are the two inputs' window starts and ends). */
static weir_table *in_side(planner *p, const sql_subquery *sq, const weir_expr_scope *outer,
                           weir_expr_scope *right, weir_ast **cond)
{
    const sql_query *sub = sq->query;
    const char *own = sql_plan_qualifier(p, sub->from_kind, sub->from_name, sub->from_alias);
    if (sub->where_ast && any_correlated(sub->where_ast, outer, own)) {
        if (sub->star || sub->nitems != 1 || !sub->items[0].ast || sub->items[0].over)
            return sql_fail(p->s, p->sc, sub->at.start, "not supported: IN with a correlated "
                            "subquery of other than one expression (one is compared with the "
                            "value before IN)");
        weir_ast *corr;
        weir_table *r = correlated_rows(p, sub, "a correlated IN", outer, own, &corr);
        if (!r)
            return NULL;
        const weir_schema *rs = weir_table_schema(r);
        *right = (weir_expr_scope){.schema = rs, .ninputs = 1};
        right->inputs[0].qualifier = own;
        right->inputs[0].columns = rs;
        uint32_t at = sub->at.start;
        weir_ast *x = outer_names(p, sq->left_ast, outer);
        weir_ast *y[2] = {own_names(p, sub->items[0].ast, own, rs),
                          own_names(p, sub->items[0].ast, own, rs)};
        weir_ast *eq = x && y[0] && y[1] ? binary(p, WEIR_AST_EQ, x, y[0]) : NULL;
        if (eq && sq->kind == SQL_SUB_NOT_IN) {
            weir_ast *eq2 = binary(p, WEIR_AST_EQ, x, y[1]);
            weir_ast *isnull = eq2 ? weir_ast_new(p->trees, WEIR_AST_IS_NULL, NULL, eq2->start,
                                                  eq2->end) : NULL;
            if (isnull) {
                isnull->a = eq2;
                isnull->op_at = eq2->end;
                isnull->depth = eq2->depth + 1;
            }
            eq = isnull ? binary(p, WEIR_AST_OR, eq, isnull) : NULL;
        }
        if (eq && corr)
            eq = binary(p, WEIR_AST_AND, eq, corr);
        if (!(*cond = eq))
            return sql_fail(p->s, p->sc, at, "out of memory");
        return r;
    }
    weir_table *r = sql_plan_subquery_table(p, sq->query);
    if (!r)
        return NULL;
    const weir_schema *rs = weir_table_schema(r);
    if (weir_schema_ncolumns(rs) != 1)
        return sql_fail(p->s, p->sc, sq->query->at.start, "not supported: IN with a subquery of "
                        "%d columns (one is compared with the value before IN)",
                        weir_schema_ncolumns(rs));
    *right = (weir_expr_scope){.schema = rs, .ninputs = 1};
    right->inputs[0].qualifier = SUB_QUALIFIER;
    right->inputs[0].columns = rs;
    uint32_t at = sq->query->at.start;
    weir_ast *y[2], *q;
    for (int i = 0; i < 2; i++) {
        if (!(y[i] = weir_ast_new(p->trees, WEIR_AST_NAME, weir_schema_column_name(rs, 0), at,
                                  at)) ||
            !(q = weir_ast_new(p->trees, WEIR_AST_NAME, SUB_QUALIFIER, at, at)))
            return sql_fail(p->s, p->sc, at, "out of memory");
        y[i]->qualifier = q->text;
        y[i]->depth = 1;
    }
    weir_ast *x = outer_names(p, sq->left_ast, outer);
    weir_ast *eq = x ? binary(p, WEIR_AST_EQ, x, y[0]) : NULL;
    if (eq && sq->kind == SQL_SUB_NOT_IN) {
        weir_ast *eq2 = binary(p, WEIR_AST_EQ, x, y[1]);
        weir_ast *isnull = eq2 ? weir_ast_new(p->trees, WEIR_AST_IS_NULL, NULL, eq2->start,
                                              eq2->end) : NULL;
        if (isnull) {
            isnull->a = eq2;
            isnull->op_at = eq2->end;
            isnull->depth = eq2->depth + 1;
        }
        eq = isnull ? binary(p, WEIR_AST_OR, eq, isnull) : NULL;
    }
    if (!(*cond = eq))
        return sql_fail(p->s, p->sc, at, "out of memory");
    return r;
}

/* [NOT] EXISTS (subquery): its FROM and uncorrelated WHERE as the table,
 * its correlated conjuncts as the condition (TRUE when none). */
static weir_table *exists_side(planner *p, const sql_subquery *sq, const weir_expr_scope *outer,
                               weir_expr_scope *right, weir_ast **cond)
{
    const sql_query *sub = sq->query;
    const char *own = sql_plan_qualifier(p, sub->from_kind, sub->from_name, sub->from_alias);
    weir_ast *corr = NULL;
    weir_table *r = correlated_rows(p, sub, "EXISTS", outer, own, &corr);
    if (!r)
        return NULL;
    *right = (weir_expr_scope){.schema = weir_table_schema(r), .ninputs = 1};
    right->inputs[0].qualifier = own;
    right->inputs[0].columns = weir_table_schema(r);
    if (!corr) { /* uncorrelated: does the subquery have a row at all */
        if (!(corr = weir_ast_new(p->trees, WEIR_AST_BOOLEAN, NULL, sub->at.start,
                                  sub->at.start)))
            return sql_fail(p->s, p->sc, sub->at.start, "out of memory");
        corr->value = 1;
        corr->depth = 1;
    }
    *cond = corr;
    return r;
}

weir_table *sql_plan_subqueries(planner *p, const sql_query *q, weir_table *t)
{
    for (int i = 0; i < q->nsubs; i++) {
        const sql_subquery *sq = &q->subs[i];
        bool joined = p->scope.ninputs > 0;
        weir_expr_scope outer = p->scope;
        if (!joined) {
            outer = (weir_expr_scope){.schema = weir_table_schema(t), .ninputs = 1,
                                      .zone = weir_table_env_config(p->env)->time_zone};
            outer.inputs[0].qualifier = sql_plan_qualifier(p, q->from_kind, q->from_name,
                                                           q->from_alias);
            outer.inputs[0].columns = weir_table_schema(t);
        }
        outer.schema = weir_table_schema(t);
        bool in = sq->kind == SQL_SUB_IN || sq->kind == SQL_SUB_NOT_IN;
        weir_expr_scope right;
        weir_ast *cond = NULL;
        /* the subquery is planned with no join scope of the outer query's */
        weir_expr_scope saved = p->scope;
        p->scope.ninputs = 0;
        weir_table *r = in ? in_side(p, sq, &outer, &right, &cond)
                           : exists_side(p, sq, &outer, &right, &cond);
        p->scope = saved;
        if (!r)
            return NULL;
        weir_join_kind kind = sq->kind == SQL_SUB_IN || sq->kind == SQL_SUB_EXISTS
                                  ? WEIR_JOIN_SEMI
                                  : WEIR_JOIN_ANTI;
        size_t err_at = (size_t)-1;
        weir_expr_scope out;
        /* IN's condition is made here: shown formatted (text NULL) */
        t = weir_table_join_tree(t, &outer, r, &right, kind, cond, in ? NULL : p->sc->text,
                                 p->trees, &err_at, &out);
        if (!t)
            return sql_plan_table_fail(p, err_at != (size_t)-1 ? (uint32_t)err_at
                                                                : sq->at.start);
        /* what reads the query binds its names by the FROM's qualifiers */
        p->scope = out;
    }
    return t;
}
