/* fn_cond.c — the conditional functions and predicates (fn.h): IF, IFNULL,
 * NULLIF, IS [NOT] DISTINCT FROM, [NOT] BETWEEN [SYMMETRIC], GREATEST,
 * LEAST, IS [NOT] TRUE / FALSE / UNKNOWN, with SQL's three-valued logic as
 * Flink's (COALESCE, CASE and IN are the expression language's own, in
 * expr_bind.c and expr_eval.c).
 *
 * IF and IFNULL become CASE and COALESCE when bound: they evaluate only the
 * branch that decides, as those do.
 */
#include <stdio.h>
#include <string.h>

#include "decimal.h"
#include "fn.h"
#include "weir/error.h"

/* a <=> b of two non-NULL values of types ta and tb (the same type, but
 * for two DECIMALs of different scales): -1, 0, 1; 2 when unordered (a
 * DOUBLE or FLOAT NaN). Strings by their bytes (UTF-8: code point order,
 * as Flink's BinaryStringData compares), timestamps to the nanosecond,
 * DECIMALs exactly. */
static int compare(weir_type ta, const weir__val *a, weir_type tb, const weir__val *b)
{
    if (weir__type_is_approx(ta.id) && (a->d != a->d || b->d != b->d))
        return 2;
    if (ta.id == WEIR_TYPE_DECIMAL && tb.id == WEIR_TYPE_DECIMAL)
        return weir__dec_compare(weir__dec_get(a), ta.scale, weir__dec_get(b), tb.scale);
    return weir__val_compare(ta, a, b);
}

static weir_type boolean(bool not_null)
{
    return (weir_type){.id = WEIR_TYPE_BOOLEAN, .not_null = not_null};
}

/* ---- IF, IFNULL ------------------------------------------------------------------------ */

/* IF(c, a, b): CASE WHEN c THEN a ELSE b END, of a's and b's common type. */
static bool t_if(weir__fnbind *b)
{
    weir__enode *n = b->n;
    weir_type t;
    if (!weir__bind_common(b->p, n->args + 1, 2,
                           n->args[1]->type.not_null && n->args[2]->type.not_null, "IF", &t))
        return false;
    n->op = OP_CASE;
    n->has_else = true;
    n->type = t;
    return true;
}

/* IFNULL(a, b): COALESCE(a, b). */
static bool t_ifnull(weir__fnbind *b)
{
    weir__enode *n = b->n;
    weir_type t;
    if (!weir__bind_common(b->p, n->args, 2, n->args[0]->type.not_null || n->args[1]->type.not_null,
                           "IFNULL", &t))
        return false;
    n->op = OP_COALESCE;
    n->type = t;
    return true;
}

/* ---- NULLIF, IS DISTINCT FROM -------------------------------------------------------------- */

/* Two values brought to one comparable type ("cannot compare A with B"). */
static bool t_comparable(weir__fnbind *b)
{
    for (int i = 1; i < b->n->nargs; i++)
        if (!weir__bind_unify(b->p, &b->n->args[0], &b->n->args[i], b->a->start, "compare"))
            return false;
    /* and the first again to the widest the others made */
    for (int i = 1; i < b->n->nargs; i++)
        if (!weir__bind_unify(b->p, &b->n->args[0], &b->n->args[i], b->a->start, "compare"))
            return false;
    return true;
}

static bool t_nullif(weir__fnbind *b)
{
    if (!t_comparable(b))
        return false;
    b->n->type = b->n->args[0]->type;
    b->n->type.not_null = false;
    return true;
}

/* NULLIF(a, b): NULL when a = b, else a. */
static int e_nullif(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    const weir__val *a = &c->args[0], *b = &c->args[1];
    *o = *a;
    if (!a->null && !b->null &&
        compare(c->n->args[0]->type, a, c->n->args[1]->type, b) == 0)
        *o = (weir__val){.null = true};
    return 0;
}

static bool t_distinct(weir__fnbind *b)
{
    if (!t_comparable(b))
        return false;
    b->n->type = boolean(true);
    b->n->aux[1] = b->a->negate;
    return true;
}

/* a IS [NOT] DISTINCT FROM b: NULL is not distinct from NULL; never NULL. */
static int e_distinct(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    const weir__val *a = &c->args[0], *b = &c->args[1];
    bool distinct;
    if (a->null || b->null)
        distinct = a->null != b->null;
    else
        distinct = compare(c->n->args[0]->type, a, c->n->args[1]->type, b) != 0;
    o->i = distinct != (c->n->aux[1] != 0);
    return 0;
}

/* ---- BETWEEN ------------------------------------------------------------------------------------ */

static bool t_between(weir__fnbind *b)
{
    if (!t_comparable(b))
        return false;
    b->n->type = boolean(weir__fn_args_not_null(b));
    b->n->aux[1] = b->a->negate;
    b->n->aux[2] = b->a->value; /* SYMMETRIC */
    return true;
}

/* Three-valued: 1 true, 0 false, -1 unknown. */
static int tv_and(int x, int y) { return x == 0 || y == 0 ? 0 : x < 0 || y < 0 ? -1 : 1; }
static int tv_or(int x, int y) { return x == 1 || y == 1 ? 1 : x < 0 || y < 0 ? -1 : 0; }

/* x <= y (or x >= y): three-valued; NaN makes it false. */
static int tv_le(weir_type tx, const weir__val *x, weir_type ty, const weir__val *y)
{
    if (x->null || y->null)
        return -1;
    int c = compare(tx, x, ty, y);
    return c <= 0; /* 2, unordered (NaN), is above 0 */
}

/* a BETWEEN lo AND hi is a >= lo AND a <= hi; SYMMETRIC also tries hi AND
 * lo; NOT negates (UNKNOWN stays). */
static int e_between(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    weir_type ta = c->n->args[0]->type, tl = c->n->args[1]->type, th = c->n->args[2]->type;
    const weir__val *a = &c->args[0], *lo = &c->args[1], *hi = &c->args[2];
    int r = tv_and(tv_le(tl, lo, ta, a), tv_le(ta, a, th, hi));
    if (c->n->aux[2])
        r = tv_or(r, tv_and(tv_le(th, hi, ta, a), tv_le(ta, a, tl, lo)));
    if (r < 0) {
        o->null = true;
        return 0;
    }
    o->i = (r == 1) != (c->n->aux[1] != 0);
    return 0;
}

/* ---- GREATEST, LEAST ---------------------------------------------------------------------------- */

/* Flink's comparable() strategy: every argument comparable with every
 * other ("Invalid function call: GREATEST(INT NOT NULL, VARCHAR(1) NOT
 * NULL): All types in a comparison should support 'EQUALS' ..."), then
 * the common type. */
static bool t_greatest(weir__fnbind *b)
{
    weir__enode **v = b->n->args;
    int n = b->n->nargs;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            weir_type_id x = v[i]->type.id, y = v[j]->type.id;
            bool ok = x == WEIR_TYPE_NULL || y == WEIR_TYPE_NULL || x == y ||
                      (weir__type_is_numeric(x) && weir__type_is_numeric(y)) ||
                      (weir__type_is_string(x) && weir__type_is_string(y)) ||
                      (weir__type_is_time(x) && weir__type_is_time(y));
            if (ok)
                continue;
            char msg[700], t1[48], t2[48];
            size_t len = 0;
            weir__append(msg, sizeof msg, &len, "Invalid function call: %s(", b->f->name);
            for (int k = 0; k < n; k++) {
                weir_type_format(v[k]->type, t1, sizeof t1);
                weir__append(msg, sizeof msg, &len, "%s%s", k ? ", " : "", t1);
            }
            weir_type_format(v[i]->type, t1, sizeof t1);
            weir_type_format(v[j]->type, t2, sizeof t2);
            weir__append(msg, sizeof msg, &len,
                         "): All types in a comparison should support 'EQUALS' comparison with "
                         "each other. Can not compare %s with %s",
                         t1, t2);
            weir__bind_fail(b->p, b->a->start, "%s", msg);
            return false;
        }
    return weir__bind_common(b->p, v, n, weir__fn_args_not_null(b), b->f->name, &b->n->type);
}

/* The greatest (or least) of the arguments; NULL if any is (strict). */
static int e_greatest(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    weir_type t = c->n->type;
    int best = 0;
    for (int i = 1; i < c->n->nargs; i++) {
        int r = compare(t, &c->args[i], t, &c->args[best]);
        if ((c->n->aux[0] == 0 && r == 1) || (c->n->aux[0] == 1 && r == -1))
            best = i;
    }
    *o = c->args[best];
    return 0;
}

/* ---- IS [NOT] TRUE / FALSE / UNKNOWN ------------------------------------------------------------- */

static bool t_truth(weir__fnbind *b)
{
    b->n->type = boolean(true);
    b->n->aux[1] = b->a->negate;
    return true;
}

/* which 0 TRUE, 1 FALSE, 2 UNKNOWN; never NULL. */
static int e_truth(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    const weir__val *a = &c->args[0];
    bool is;
    switch (c->n->aux[0]) {
    case 0: is = !a->null && a->i; break;
    case 1: is = !a->null && !a->i; break;
    default: is = a->null; break;
    }
    o->i = is != (c->n->aux[1] != 0);
    return 0;
}

/* ---- the table ------------------------------------------------------------------------------- */

#define CALL WEIR_AST_FORM_CALL
#define IS WEIR_AST_FORM_IS

const weir__builtin weir__fn_cond[] = {
    {"IF", 3, 3, CALL, 0, "B,N,N;B,S,S;B,B,B;B,C,C;B,T,T", t_if, NULL, 0},
    {"IFNULL", 2, 2, CALL, 0, NULL, t_ifnull, NULL, 0},
    {"NULLIF", 2, 2, CALL, FN_NULLS, NULL, t_nullif, e_nullif, 0},
    {"IS DISTINCT FROM", 2, 2, IS, FN_NULLS, NULL, t_distinct, e_distinct, 0},
    {"BETWEEN", 3, 3, WEIR_AST_FORM_BETWEEN, FN_NULLS, NULL, t_between, e_between, 0},
    {"GREATEST", 1, -1, CALL, 0, NULL, t_greatest, e_greatest, 0},
    {"LEAST", 1, -1, CALL, 0, NULL, t_greatest, e_greatest, 1},
    {"IS TRUE", 1, 1, IS, FN_NULLS, "B", t_truth, e_truth, 0},
    {"IS FALSE", 1, 1, IS, FN_NULLS, "B", t_truth, e_truth, 1},
    {"IS UNKNOWN", 1, 1, IS, FN_NULLS, "B", t_truth, e_truth, 2},
    {NULL, 0, 0, CALL, 0, NULL, NULL, NULL, 0},
};
