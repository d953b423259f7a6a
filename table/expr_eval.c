/* expr_eval.c — evaluating a compiled expression on a row (weir__expr_eval,
 * table_internal.h): a walk with one switch per node, no lookups, no
 * parsing, no allocation; strings a node builds go to its region of the
 * caller's scratch. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "decimal.h"
#include "fn.h"
#include "weir/error.h"

/* ---- evaluation -------------------------------------------------------------------- */

int weir__val_compare(weir_type t, const weir__val *a, const weir__val *b)
{
    if (weir__type_is_nested(t.id)) {
        /* equal values are equal bytes (their layout is canonical) */
        int c = memcmp(a->s, b->s, weir__nested_size(t));
        return c < 0 ? -1 : c > 0;
    }
    if (weir__type_is_approx(t.id))
        return a->d < b->d ? -1 : a->d > b->d;
    if (weir__type_is_var(t.id)) {
        /* strings and binary strings: their bytes, unsigned */
        uint32_t n = a->len < b->len ? a->len : b->len;
        int c = n ? memcmp(a->s, b->s, n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return a->len < b->len ? -1 : a->len > b->len;
    }
    if (t.id == WEIR_TYPE_DECIMAL) {
        weir__i128 x = weir__dec_get(a), y = weir__dec_get(b);
        return x < y ? -1 : x > y;
    }
    if (a->i != b->i || !weir__type_is_time(t.id))
        return a->i < b->i ? -1 : a->i > b->i;
    /* timestamps: the nanoseconds within the millisecond */
    return a->nanos < b->nanos ? -1 : a->nanos > b->nanos;
}

/* a (of type ta) against b (of type tb): the same type but for DECIMAL,
 * whose two scales compare exactly. */
static int cmp_typed(weir_type ta, const weir__val *a, weir_type tb, const weir__val *b)
{
    if (ta.id == WEIR_TYPE_DECIMAL && tb.id == WEIR_TYPE_DECIMAL)
        return weir__dec_compare(weir__dec_get(a), ta.scale, weir__dec_get(b), tb.scale);
    return weir__val_compare(ta, a, b);
}

static int ev(const weir__enode *n, const unsigned char *row, unsigned char *sc, weir__val *o,
              const char **why);

/* A column of the row, its NULL bit from the row's header. */
static void ev_column(const weir__enode *n, const unsigned char *row, weir__val *o)
{
    o->null = weir__row_null(NULL, row, n->col);
    weir__read_value(row + n->off, n->type, o);
}

/* weir__int_arith (expr_tree.h), inline where the evaluators call it for
 * every row. */
static inline int int_arith(weir__eop op, weir_type_id wrap, int64_t a, int64_t b, int64_t *out,
                            const char **why)
{
    if (op == OP_DIV || op == OP_MOD) {
        if (b == 0) {
            *why = "division by zero";
            return WEIR_ERANGE;
        }
        /* MIN / -1 wraps to MIN as in Java (C would trap). */
        if (b == -1)
            *out = op == OP_MOD ? 0 : (int64_t)(0 - (uint64_t)a);
        else
            *out = op == OP_DIV ? a / b : a % b;
    } else {
        uint64_t x = (uint64_t)a, y = (uint64_t)b;
        *out = (int64_t)(op == OP_ADD ? x + y : op == OP_SUB ? x - y : x * y);
    }
    *out = weir__int_wrap(wrap, *out);
    return 0;
}

int weir__int_arith(weir__eop op, weir_type_id wrap, int64_t a, int64_t b, int64_t *out,
                    const char **why)
{
    return int_arith(op, wrap, a, b, out, why);
}

/* A datetime a +- an interval b (n->a's and n->b's types), as Flink's
 * code generator does it (ScalarOperatorGens.generateTemporalPlusMinus):
 * a timestamp moves by the interval's milliseconds (its nanoseconds
 * kept), a DATE by the interval's whole days (truncated: minus 1 hour is
 * the same day), a TIME around the clock; months move the date, its day
 * cut to the month's last. */
static void ev_datetime_arith(const weir__enode *n, const weir__val *a, const weir__val *b,
                              weir__val *o)
{
    int64_t v = n->op == OP_SUB ? (int64_t)(0 - (uint64_t)b->i) : b->i;
    o->nanos = a->nanos;
    if (n->b->type.id == WEIR_TYPE_INTERVAL_YM) {
        o->i = n->a->type.id == WEIR_TYPE_DATE ? weir__add_months(a->i, v)
                                               : weir__timestamp_add_months(a->i, v);
        return;
    }
    switch (n->a->type.id) {
    case WEIR_TYPE_DATE: o->i = a->i + v / 86400000; break;
    case WEIR_TYPE_TIME: o->i = ((a->i + v % 86400000) % 86400000 + 86400000) % 86400000; break;
    default: o->i = (int64_t)((uint64_t)a->i + (uint64_t)v); break;
    }
}

/* + - * / MOD of two non-NULL values: a DOUBLE's IEEE result, an integer's
 * wrapped to its width (Java's), a zero divisor an error. */
static int ev_arith(const weir__enode *n, const weir__val *a, const weir__val *b, weir__val *o,
                    const char **why)
{
    if (weir__type_is_datetime(n->type.id)) {
        ev_datetime_arith(n, a, b, o);
        return 0;
    }
    if (n->type.id == WEIR_TYPE_DECIMAL) {
        static const char ops[] = {[OP_ADD] = '+', [OP_SUB] = '-', [OP_MUL] = '*',
                                   [OP_DIV] = '/', [OP_MOD] = '%'};
        weir__i128 r = 0;
        int e = weir__dec_arith(ops[n->op], weir__dec_get(a), n->a->type.scale,
                                weir__dec_get(b), n->b->type.scale,
                                weir_type_precision(n->type), n->type.scale, &r);
        if (e < 0) {
            *why = "division by zero";
            return WEIR_ERANGE;
        }
        o->null = e > 0; /* more digits than the type holds: NULL, as Flink */
        weir__dec_set(o, r);
        return 0;
    }
    if (weir__type_is_approx(n->type.id)) {
        switch (n->op) {
        case OP_ADD: o->d = a->d + b->d; break;
        case OP_SUB: o->d = a->d - b->d; break;
        case OP_MUL: o->d = a->d * b->d; break;
        default: o->d = a->d / b->d; break;
        }
        /* a FLOAT's operation rounds to a float: done in double, the one
         * rounding is the same (a double holds the exact result of +, -,
         * * and / of two floats to well past a float's rounding) */
        if (n->type.id == WEIR_TYPE_FLOAT)
            o->d = (float)o->d;
        return 0;
    }
    return int_arith(n->op, n->type.id == WEIR_TYPE_INTERVAL_YM ? WEIR_TYPE_INT : n->type.id,
                     a->i, b->i, &o->i, why);
}

/* Whether comparison op (OP_EQ .. OP_GE) holds for a comparison's result
 * c (-1, 0 or 1). */
static bool op_holds(weir__eop op, int c)
{
    switch (op) {
    case OP_EQ: return c == 0;
    case OP_NE: return c != 0;
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    default: return c >= 0;
    }
}

/* = <> < <= > >= of two non-NULL values of n->a's type. */
static void ev_compare(const weir__enode *n, const weir__val *a, const weir__val *b, weir__val *o)
{
    int c = cmp_typed(n->a->type, a, n->b->type, b);
    if (weir__type_is_approx(n->a->type.id) && (a->d != a->d || b->d != b->d)) {
        o->i = n->op == OP_NE; /* NaN compares unequal to everything */
        return;
    }
    o->i = op_holds(n->op, c);
}

/* AND, OR of a (n->a's value): three-valued, evaluating b only when a does
 * not decide. */
static int ev_logic(const weir__enode *n, const weir__val *a, const unsigned char *row,
                    unsigned char *sc, weir__val *o, const char **why)
{
    weir__val b;
    int r;
    bool decides = n->op == OP_AND ? 0 : 1;
    if (!a->null && (a->i != 0) == decides) {
        *o = *a;
        return 0;
    }
    if ((r = ev(n->b, row, sc, &b, why)))
        return r;
    *o = (weir__val){0};
    if (!b.null && (b.i != 0) == decides) {
        o->i = decides;
        return 0;
    }
    if (a->null || b.null) {
        o->null = true;
        return 0;
    }
    o->i = !decides;
    return 0;
}

/* a [NOT] IN (list), with a n->a's value: NULL when no element matches
 * and one is NULL. */
static int ev_in(const weir__enode *n, const weir__val *a, const unsigned char *row,
                 unsigned char *sc, weir__val *o, const char **why)
{
    weir__val b;
    *o = (weir__val){0};
    if (a->null) {
        o->null = true;
        return 0;
    }
    bool saw_null = false;
    for (int i = 0; i < n->nargs; i++) {
        int r = ev(n->args[i], row, sc, &b, why);
        if (r)
            return r;
        if (b.null) {
            saw_null = true;
            continue;
        }
        if (cmp_typed(n->a->type, a, n->args[i]->type, &b) == 0) {
            o->i = !n->negate;
            return 0;
        }
    }
    if (saw_null)
        o->null = true;
    else
        o->i = n->negate;
    return 0;
}

/* CASE: the value of the first WHEN that is TRUE, else the ELSE's (or
 * NULL). */
static int ev_case(const weir__enode *n, const unsigned char *row, unsigned char *sc, weir__val *o,
                   const char **why)
{
    weir__val a;
    int k = n->nargs, pairs = n->has_else ? (k - 1) / 2 : k / 2;
    for (int i = 0; i < pairs; i++) {
        int r = ev(n->args[2 * i], row, sc, &a, why);
        if (r)
            return r;
        if (!a.null && a.i)
            return ev(n->args[2 * i + 1], row, sc, o, why);
    }
    if (n->has_else)
        return ev(n->args[k - 1], row, sc, o, why);
    *o = (weir__val){.null = true};
    return 0;
}

/* a || b of two non-NULL strings, into this node's scratch region. */
static void ev_concat(const weir__enode *n, const weir__val *a, const weir__val *b,
                      unsigned char *sc, weir__val *o)
{
    char *buf = (char *)sc + n->scratch;
    /* a may already be in this buffer's region only if it is this node's
     * own output, which it is not: regions are per node. */
    memmove(buf, a->s, a->len);
    memmove(buf + a->len, b->s, b->len);
    o->s = buf;
    o->len = a->len + b->len;
}

/* A call of a scalar function from C: every argument evaluated (an error
 * in any fails the row, as for any operator), then the function called
 * with their values, unless a NOT NULL parameter got a NULL (the result is
 * then NULL). The values and the result's bytes are in this node's scratch
 * region (aligned here: the caller's scratch may start anywhere). */
static int ev_function(const weir__enode *n, const unsigned char *row, unsigned char *sc,
                       weir__val *o, const char **why)
{
    const weir__function *f = n->fn;
    uintptr_t at = (uintptr_t)(sc + n->scratch);
    weir__val *args = (weir__val *)(void *)((at + 7u) & ~(uintptr_t)7u);
    bool skip = false;
    for (int i = 0; i < n->nargs; i++) {
        int r = ev(n->args[i], row, sc, &args[i], why);
        if (r)
            return r;
        skip = skip || (args[i].null && f->arg_types[i].not_null);
    }
    *o = (weir__val){0};
    if (skip) {
        o->null = true;
        return 0;
    }
    bool str = weir__type_is_var(n->type.id);
    char *buf = (char *)(args + n->nargs);
    char err[256];
    err[0] = 0;
    weir_function_call call = {.name = f->name, .arg = f->arg, .buf = str ? buf : NULL,
                               .capacity = str ? n->type.capacity : 0, .err = err,
                               .errsize = sizeof err};
    int r = f->eval(args, n->nargs, o, &call);
    if (r)
        return weir__function_failed(f, r, err, why);
    return weir__function_result(f, n->type, o, buf, why);
}

/* ROW(...), ARRAY[...], MAP[...]: the values into this node's scratch (a
 * MAP's later value for a key it has already replaces the first, as
 * Flink's map constructor keeps the last). */
static int ev_ctor(const weir__enode *n, const unsigned char *row, unsigned char *sc, weir__val *o,
                   const char **why)
{
    const weir__nested *d = weir__nested_of(n->type);
    unsigned char *dst = sc + n->scratch;
    memset(dst, 0, d->size);
    uint32_t count = 0;
    for (int i = 0; i < n->nargs; i++) {
        weir__val v, k = {0};
        int r;
        int part = d->id == WEIR_TYPE_MAP ? i % 2 : 0;
        uint32_t at = d->id == WEIR_TYPE_ROW ? (uint32_t)i : count;
        if (d->id == WEIR_TYPE_MAP) {
            /* the key, then its value */
            if ((r = ev(n->args[i], row, sc, &k, why)))
                return r;
            i++;
            part = 1;
            for (at = 0; at < count; at++) {
                weir__val e;
                weir__nested_element(d, dst, 0, at, &e);
                if (e.null ? k.null : !k.null && weir__val_compare(d->types[0], &e, &k) == 0)
                    break;
            }
            if (at == count) {
                count++;
                if (k.null)
                    dst[d->knulls + at / 8] |= (unsigned char)(1u << (at % 8));
                else if ((r = weir__slot_store(dst + d->koff + at * d->kstride, d->types[0], &k,
                                               why)))
                    return r;
            }
        }
        if ((r = ev(n->args[i], row, sc, &v, why)))
            return r;
        weir_type t = d->id == WEIR_TYPE_ROW ? d->types[at] : d->types[part];
        uint32_t bits = d->id == WEIR_TYPE_ROW ? 0 : part ? d->vnulls : d->knulls;
        unsigned char *slot = d->id == WEIR_TYPE_ROW ? dst + d->offs[at]
                              : part                 ? dst + d->voff + at * d->vstride
                                                     : dst + d->koff + at * d->kstride;
        memset(slot, 0, weir__type_size(t));
        dst[bits + at / 8] &= (unsigned char)~(1u << (at % 8));
        if (v.null)
            dst[bits + at / 8] |= (unsigned char)(1u << (at % 8));
        else if ((r = weir__slot_store(slot, t, &v, why)))
            return r;
        if (d->id == WEIR_TYPE_ARRAY)
            count++;
    }
    if (d->id != WEIR_TYPE_ROW)
        memcpy(dst, &count, 4);
    *o = (weir__val){.s = (const char *)dst, .len = d->size};
    return 0;
}

/* a[b]: an ARRAY's element b (1-based), a MAP's value at key b; NULL when
 * there is none. */
static void ev_index(const weir__enode *n, const weir__val *a, const weir__val *b, weir__val *o)
{
    const weir__nested *d = weir__nested_of(n->a->type);
    const unsigned char *slot = (const unsigned char *)a->s;
    uint32_t count = weir__nested_count_of(d, slot);
    *o = (weir__val){.null = true};
    if (d->id == WEIR_TYPE_ARRAY) {
        if (b->i >= 1 && (uint64_t)b->i <= count)
            weir__nested_element(d, slot, 0, (uint32_t)(b->i - 1), o);
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        weir__val k;
        weir__nested_element(d, slot, 0, i, &k);
        if (!k.null && weir__val_compare(d->types[0], &k, b) == 0) {
            weir__nested_element(d, slot, 1, i, o);
            return;
        }
    }
}

/* Evaluates n on `row` into *o, with `sc` the expression's scratch. 0, or a
 * WEIR_E* code with *why saying what went wrong. */
static int ev(const weir__enode *n, const unsigned char *row, unsigned char *sc, weir__val *o,
              const char **why)
{
    weir__val a, b;
    int r;
    switch (n->op) {
    case OP_LIT:
        *o = n->lit;
        return 0;
    case OP_COL:
        ev_column(n, row, o);
        return 0;
    case OP_NEG:
        if ((r = ev(n->a, row, sc, o, why)))
            return r;
        if (weir__type_is_approx(n->type.id))
            o->d = -o->d;
        else if (n->type.id == WEIR_TYPE_DECIMAL)
            weir__dec_set(o, -weir__dec_get(o));
        else
            o->i = weir__int_wrap(n->type.id == WEIR_TYPE_INTERVAL_YM ? WEIR_TYPE_INT : n->type.id,
                                  (int64_t)(0 - (uint64_t)o->i));
        return 0;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MOD:
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
    case OP_CONCAT:
        /* Strict in both operands: NULL if either is. */
        if ((r = ev(n->a, row, sc, &a, why)) || (r = ev(n->b, row, sc, &b, why)))
            return r;
        *o = (weir__val){0};
        if (a.null || b.null) {
            o->null = true;
            return 0;
        }
        if (n->op == OP_CONCAT)
            ev_concat(n, &a, &b, sc, o);
        else if (n->op >= OP_EQ && n->op <= OP_GE)
            ev_compare(n, &a, &b, o);
        else
            return ev_arith(n, &a, &b, o, why);
        return 0;
    case OP_AND: case OP_OR: case OP_IN:
        if ((r = ev(n->a, row, sc, &a, why)))
            return r;
        return n->op == OP_IN ? ev_in(n, &a, row, sc, o, why) : ev_logic(n, &a, row, sc, o, why);
    case OP_NOT:
        if ((r = ev(n->a, row, sc, o, why)))
            return r;
        o->i = !o->i;
        return 0;
    case OP_ISNULL: case OP_ISNOTNULL:
        if ((r = ev(n->a, row, sc, &a, why)))
            return r;
        *o = (weir__val){.i = n->op == OP_ISNULL ? a.null : !a.null};
        return 0;
    case OP_CASE:
        return ev_case(n, row, sc, o, why);
    case OP_CAST:
        if ((r = ev(n->a, row, sc, &a, why)))
            return r;
        if (weir__type_is_nested(n->type.id)) {
            *o = (weir__val){.null = a.null};
            if (a.null)
                return 0;
            r = weir__nested_convert(n->a->type, n->type, (const unsigned char *)a.s,
                                     sc + n->scratch, why);
            if (r && n->try_cast) {
                o->null = true;
                return 0;
            }
            o->s = (const char *)sc + n->scratch;
            o->len = weir__nested_size(n->type);
            return r;
        }
        return weir__cast_eval(n, &a, sc, o, why);
    case OP_FIELD:
        if ((r = ev(n->a, row, sc, &a, why)))
            return r;
        weir__nested_load((const unsigned char *)a.s + n->off, n->type,
                          a.null || weir__bit((const unsigned char *)a.s, (uint32_t)n->col), o);
        return 0;
    case OP_INDEX:
        if ((r = ev(n->a, row, sc, &a, why)) || (r = ev(n->b, row, sc, &b, why)))
            return r;
        if (a.null || b.null)
            *o = (weir__val){.null = true};
        else
            ev_index(n, &a, &b, o);
        return 0;
    case OP_CARD:
        if ((r = ev(n->a, row, sc, &a, why)))
            return r;
        *o = (weir__val){.null = a.null};
        if (!a.null)
            o->i = weir__nested_count_of(weir__nested_of(n->a->type), (const unsigned char *)a.s);
        return 0;
    case OP_CTOR:
        return ev_ctor(n, row, sc, o, why);
    case OP_COALESCE:
        for (int i = 0; i < n->nargs; i++) {
            if ((r = ev(n->args[i], row, sc, o, why)))
                return r;
            if (!o->null)
                return 0;
        }
        return 0;
    case OP_BUILTIN:
        return weir__builtin_eval(n, row, sc, o, why);
    case OP_FUNC:
        return ev_function(n, row, sc, o, why);
    case OP_AGG:
        break;
    }
    *why = "internal: an aggregate evaluated as a value";
    return WEIR_EINTERNAL;
}

int weir__expr_eval_node(const weir__enode *n, const unsigned char *row, unsigned char *scratch,
                         weir__val *out, const char **why)
{
    return ev(n, row, scratch, out, why);
}

int weir__expr_eval_now(const weir_expr *e, const unsigned char *row, unsigned char *scratch,
                        int64_t now, weir__val *out, const char **why)
{
    if (e->clock_slot >= 0)
        memcpy(scratch + e->clock_slot, &now, sizeof now);
    return ev(e->root, row, scratch, out, why);
}

int weir__expr_eval(const weir_expr *e, const unsigned char *row, unsigned char *scratch,
                    weir__val *out, const char **why)
{
    return weir__expr_eval_now(e, row, scratch, e->clock_slot >= 0 ? weir__table_now(NULL, false) : 0,
                               out, why);
}

int64_t weir__table_now(const weir_ctx *ctx, bool virtual_clock)
{
    if (ctx && virtual_clock)
        return weir_ctx_now(ctx);
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ---- integer comparisons in place (weir__int_tests) ------------------------------------ */

/* An operand under the binder's widening between integer types (which
 * keeps its value; a narrowing cast would not, and stays). */
static const weir__enode *unwidened(const weir__enode *n)
{
    while (n->op == OP_CAST && n->implicit && weir__type_is_integer(n->type.id) &&
           weir__type_is_integer(n->a->type.id) &&
           weir__int_bits(n->type.id) >= weir__int_bits(n->a->type.id))
        n = n->a;
    return n;
}

/* A divisor that cannot be zero: a non-zero literal. */
static bool nonzero_literal(const weir__enode *n)
{
    n = unwidened(n);
    return n->op == OP_LIT && !n->lit.null && n->lit.i != 0;
}

/* n's steps into p, its operands' first (postfix); `safe`: only what cannot
 * fail (every divisor a non-zero literal). */
static bool plan_calc(weir__int_calc *p, const weir__enode *n, bool safe)
{
    n = unwidened(n);
    if (p->n == WEIR__INT_CALC || !weir__type_is_integer(n->type.id))
        return false;
    struct weir__int_step st = {.op = n->op, .type = n->type};
    switch (n->op) {
    case OP_COL:
        st.col = n->col;
        st.off = n->off;
        break;
    case OP_LIT:
        if (n->lit.null)
            return false;
        st.value = n->lit.i;
        break;
    case OP_NEG:
        if (!plan_calc(p, n->a, safe))
            return false;
        break;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MOD:
        if ((safe && (n->op == OP_DIV || n->op == OP_MOD) && !nonzero_literal(n->b)) ||
            !plan_calc(p, n->a, safe) || !plan_calc(p, n->b, safe))
            return false;
        break;
    case OP_BUILTIN: /* MOD(a, b) of two integers (aux 1: of DECIMALs): % */
        if (strcmp(n->bi->name, "MOD") != 0 || n->aux[0] == 1 || n->nargs != 2 ||
            (safe && !nonzero_literal(n->args[1])) || !plan_calc(p, n->args[0], safe) ||
            !plan_calc(p, n->args[1], safe))
            return false;
        st.op = OP_MOD;
        break;
    default:
        return false;
    }
    if (p->n == WEIR__INT_CALC)
        return false;
    p->s[p->n++] = st;
    return true;
}

bool weir__int_calc_plan(const weir_expr *e, weir__int_calc *p)
{
    p->n = 0;
    if (e->clock_slot < 0 && plan_calc(p, e->root, false))
        return true;
    p->n = 0;
    return false;
}

int weir__int_calc_eval(const weir__int_calc *p, const unsigned char *row, weir__val *v,
                        const char **why)
{
    /* A plan has one step at least, which writes x[0] and null[0]; they
     * are set here too so that a plan of none would read NULL, not junk
     * (the whole arrays cleared cost 19 instructions a row, measured). */
    int64_t x[WEIR__INT_CALC];
    bool null[WEIR__INT_CALC];
    x[0] = 0;
    null[0] = true;
    int top = 0;
    for (int k = 0; k < p->n; k++) {
        const struct weir__int_step *st = &p->s[k];
        if (st->op == OP_COL) {
            weir__val c = {0};
            null[top] = weir__row_null(NULL, row, st->col);
            weir__read_value(row + st->off, st->type, &c);
            x[top++] = c.i;
            continue;
        }
        if (st->op == OP_LIT) {
            null[top] = false;
            x[top++] = st->value;
            continue;
        }
        if (st->op == OP_NEG) { /* as the interpreter: wrapped to its width */
            x[top - 1] = weir__int_wrap(st->type.id, (int64_t)(0 - (uint64_t)x[top - 1]));
            continue;
        }
        top--; /* a binary operation: x[top - 1] op x[top], strict in both */
        null[top - 1] = null[top - 1] || null[top];
        if (null[top - 1])
            continue;
        int r = int_arith((weir__eop)st->op, st->type.id, x[top - 1], x[top], &x[top - 1], why);
        if (r)
            return r;
    }
    *v = (weir__val){.i = x[0], .null = null[0]};
    return 0;
}

/* n's comparisons into t: each of an integer column (the left, once
 * swapped) with a non-NULL integer literal, under ANDs only; one of them
 * may have an integer expression that cannot fail for its column. */
static bool plan_tests(weir__int_tests *t, const weir__enode *n)
{
    if (n->op == OP_AND)
        return plan_tests(t, n->a) && plan_tests(t, n->b);
    if (n->op < OP_EQ || n->op > OP_GE || t->n == WEIR__INT_TESTS)
        return false;
    const weir__enode *a = unwidened(n->a), *b = unwidened(n->b);
    weir__eop op = n->op;
    if (a->op == OP_LIT && b->op != OP_LIT) {
        const weir__enode *x = a;
        a = b;
        b = x;
        /* 5 < x is x > 5 */
        op = op == OP_LT ? OP_GT : op == OP_GT ? OP_LT : op == OP_LE ? OP_GE
                                                  : op == OP_GE ? OP_LE : op;
    }
    if (b->op != OP_LIT || !weir__type_is_integer(a->type.id) ||
        !weir__type_is_integer(b->type.id) || b->lit.null)
        return false;
    if (a->op != OP_COL) { /* an integer expression that cannot fail, once */
        if (t->calc.n || !plan_calc(&t->calc, a, true)) {
            t->calc.n = 0;
            return false;
        }
        t->t[t->n++] = (struct weir__int_test){.op = (int)op, .value = b->lit.i, .calc = true};
        return true;
    }
    t->t[t->n++] = (struct weir__int_test){
        .off = a->off, .col = a->col, .type = a->type, .op = (int)op, .value = b->lit.i};
    return true;
}

bool weir__int_tests_plan(const weir_expr *e, weir__int_tests *t)
{
    t->n = 0;
    t->calc.n = 0;
    if (e->clock_slot < 0 && plan_tests(t, e->root))
        return true;
    t->n = 0; /* a part was planned before the rest was refused */
    t->calc.n = 0;
    return false;
}

bool weir__int_tests_hold(const weir__int_tests *t, const unsigned char *row)
{
    for (int k = 0; k < t->n; k++) {
        const struct weir__int_test *c = &t->t[k];
        weir__val v = {0};
        if (c->calc) {
            const char *why;
            (void)weir__int_calc_eval(&t->calc, row, &v, &why); /* planned not to fail */
            if (v.null)
                return false;
        } else {
            if (weir__row_null(NULL, row, c->col))
                return false;
            weir__read_value(row + c->off, c->type, &v);
        }
        if (!op_holds((weir__eop)c->op, (v.i > c->value) - (v.i < c->value)))
            return false;
    }
    return true;
}
