/* table_agg.c — the aggregate functions of group and window aggregates:
 * their accumulators, how a value is folded in or retracted, how two
 * accumulators merge (window panes and sessions), and the result.
 *
 * Accumulators are fixed-size slots in one block per group (or window):
 *     COUNT(*), COUNT(x)      int64 count
 *     SUM(x), AVG(x)          int64 non-NULL count, then an int64 or double sum, or a
 *                             DECIMAL's 16-byte sum (its unscaled 128 bits)
 *     MIN(x), MAX(x)          int64 "has a value", then the value (vsize)
 *     list aggregates         int64 entries, then the current MIN/MAX value
 *     a function from C       its acc_size bytes (8-aligned), its own layout
 * List aggregates — MIN/MAX over an input that retracts, and COUNT(DISTINCT
 * x) — keep a sorted list of (value, count) in keyed list state (the
 * caller's); the slot caches what the list says, so a result never reads
 * the list. That is Flink's MinWithRetractAggFunction / its DISTINCT view:
 * exact under retraction, at the cost of one entry per distinct value.
 *
 * An aggregate function from C (weir/function.h) gets its accumulator's
 * bytes in the block and is called: init for a new one, accumulate and
 * retract per row, merge, get_value. Its calls may fail, the built-ins'
 * cannot, so they have calls of their own (weir__agg_call and its kin).
 *
 * Types and overflow as Flink: COUNT is BIGINT NOT NULL; SUM keeps its
 * argument's type and wraps around on overflow (INT at 32 bits, TINYINT
 * at 8 ...; SUM(FLOAT) adds in float, rounding each time, as Flink's
 * FloatSumAggFunction); AVG of an integer type is that type, the sum (a
 * BIGINT) divided by the count, truncated toward zero; AVG(DOUBLE) is
 * DOUBLE, AVG(FLOAT) is FLOAT (a DOUBLE sum divided, then rounded). SUM, AVG, MIN and MAX of no non-NULL
 * value are NULL.
 */
#include <string.h>

#include "decimal.h"
#include "table_internal.h"
#include "weir/error.h"

static bool is_str(weir_type t) { return weir__type_is_var(t.id); }
static bool is_approx(weir_type t) { return weir__type_is_approx(t.id); }

uint32_t weir__agg_layout(weir__agg *aggs, int n, const weir_expr *const *items, bool retract)
{
    uint32_t off = 0;
    for (int i = 0; i < n; i++) {
        weir__agg *a = &aggs[i];
        const weir_expr *e = items[i];
        *a = (weir__agg){.kind = e->agg, .distinct = e->distinct, .arg = e->agg_arg,
                         .out_type = e->type};
        if (a->kind == WEIR_AGG_FUNCTION) {
            /* the function's own bytes, 8-aligned */
            a->fn = e->fn;
            a->args = e->agg_args;
            a->nargs = e->nagg_args;
            a->slot = off;
            off += (uint32_t)((e->fn->agg.acc_size + 7u) & ~(size_t)7u);
            continue;
        }
        if (a->arg)
            a->arg_type = a->arg->type;
        a->vsize = a->arg ? (is_str(a->arg_type) ? 4 + a->arg_type.capacity
                                                 : weir__type_size(a->arg_type))
                          : 8;
        a->vsize = (a->vsize + 7u) & ~7u;
        a->esize = a->vsize + 8;
        a->list = a->distinct ||
                  (retract && (a->kind == WEIR_AGG_MIN || a->kind == WEIR_AGG_MAX));
        a->slot = off;
        /* the slots of the table above; a list aggregate's int64 entries
         * share COUNT's and MIN/MAX's first word */
        switch (a->kind) {
        case WEIR_AGG_COUNT_STAR:
        case WEIR_AGG_COUNT: off += sizeof(int64_t); break;
        case WEIR_AGG_SUM:
        case WEIR_AGG_AVG:
            /* the count, then the sum (a DECIMAL's 16 bytes) */
            off += sizeof(int64_t) + (a->arg_type.id == WEIR_TYPE_DECIMAL ? 16 : 8);
            break;
        default: off += sizeof(int64_t) + a->vsize; break;
        }
    }
    return off;
}

void weir__agg_encode(const weir__agg *a, const weir__val *v, unsigned char *dst)
{
    memset(dst, 0, a->vsize);
    if (is_str(a->arg_type)) {
        memcpy(dst, &v->len, 4);
        memcpy(dst + 4, v->s, v->len);
    } else if (a->arg_type.id == WEIR_TYPE_BOOLEAN || weir__type_is_integer(a->arg_type.id)) {
        memcpy(dst, &v->i, 8); /* 8 bytes, as the sums keep them */
    } else {
        weir__write_value(dst, a->arg_type, v); /* the row's own bytes */
    }
}

static void decode(const weir__agg *a, const unsigned char *src, weir__val *v)
{
    *v = (weir__val){0};
    if (is_str(a->arg_type)) {
        memcpy(&v->len, src, 4);
        v->s = (const char *)src + 4;
    } else if (a->arg_type.id == WEIR_TYPE_BOOLEAN || weir__type_is_integer(a->arg_type.id)) {
        memcpy(&v->i, src, 8);
    } else {
        weir__read_value(src, a->arg_type, v);
    }
}

/* Compares two encoded values of the aggregate's argument type. */
static int cmp_enc(const weir__agg *a, const unsigned char *x, const unsigned char *y)
{
    weir__val vx, vy;
    decode(a, x, &vx);
    decode(a, y, &vy);
    return weir__val_compare(a->arg_type, &vx, &vy);
}

/* A DECIMAL sum whose value passed 38 digits: its result is NULL from then
 * on (Flink's sum is NULL at the overflow; it then starts again from the
 * next value, weir keeps it NULL). */
static weir__i128 dec_overflow(void)
{
    return weir__dec_pow10(38);
}

/* Adds x to the DECIMAL sum at p (16 bytes), sticking at dec_overflow. */
static void dec_add(unsigned char *p, weir__i128 x)
{
    weir__i128 sum, r;
    memcpy(&sum, p, 16);
    if (sum == dec_overflow())
        return;
    if (__builtin_add_overflow(sum, x, &r) || !weir__dec_fits(r, 38))
        r = dec_overflow();
    memcpy(p, &r, 16);
}

static int64_t get64(const unsigned char *p)
{
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void put64(unsigned char *p, int64_t v)
{
    memcpy(p, &v, 8);
}

/* Refreshes a list aggregate's cached result from its sorted list. */
static void list_cache(const weir__agg *a, unsigned char *acc, const unsigned char *list,
                       size_t count)
{
    unsigned char *s = acc + a->slot;
    if (a->distinct) {
        put64(s, (int64_t)count);
        return;
    }
    put64(s, count > 0);
    if (count > 0) {
        const unsigned char *e = a->kind == WEIR_AGG_MIN ? list : list + (count - 1) * a->esize;
        memcpy(s + 8, e, a->vsize);
    } else {
        memset(s + 8, 0, a->vsize);
    }
}

void weir__agg_update(const weir__agg *a, unsigned char *acc, const weir__val *v, int sign,
                      unsigned char *list, size_t *count)
{
    unsigned char *s = acc + a->slot;
    if (a->kind == WEIR_AGG_COUNT_STAR) {
        put64(s, get64(s) + sign);
        return;
    }
    if (v->null)
        return;
    if (a->list) {
        unsigned char key[WEIR_STRING_MAX_CAPACITY + 16];
        weir__agg_encode(a, v, key);
        /* Binary search for the value's entry. */
        size_t lo = 0, hi = *count;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            int c = cmp_enc(a, list + mid * a->esize, key);
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        unsigned char *e = list + lo * a->esize;
        bool found = lo < *count && cmp_enc(a, e, key) == 0;
        if (sign > 0) {
            if (found) {
                put64(e + a->vsize, get64(e + a->vsize) + 1);
            } else {
                memmove(e + a->esize, e, (*count - lo) * a->esize);
                memcpy(e, key, a->vsize);
                put64(e + a->vsize, 1);
                (*count)++;
            }
        } else if (found) {
            int64_t c = get64(e + a->vsize) - 1;
            if (c > 0) {
                put64(e + a->vsize, c);
            } else {
                memmove(e, e + a->esize, (*count - lo - 1) * a->esize);
                (*count)--;
            }
        }
        list_cache(a, acc, list, *count);
        return;
    }
    switch (a->kind) {
    case WEIR_AGG_COUNT:
        put64(s, get64(s) + sign);
        break;
    case WEIR_AGG_SUM:
    case WEIR_AGG_AVG:
        put64(s, get64(s) + sign);
        if (a->arg_type.id == WEIR_TYPE_DECIMAL) {
            weir__i128 x = weir__dec_get(v);
            dec_add(s + 8, sign > 0 ? x : -x);
        } else if (is_approx(a->arg_type)) {
            double d;
            memcpy(&d, s + 8, 8);
            d += sign > 0 ? v->d : -v->d;
            if (a->kind == WEIR_AGG_SUM && a->arg_type.id == WEIR_TYPE_FLOAT)
                d = (float)d; /* SUM(FLOAT) adds floats; AVG(FLOAT) sums doubles */
            memcpy(s + 8, &d, 8);
        } else {
            uint64_t x = (uint64_t)get64(s + 8);
            x = sign > 0 ? x + (uint64_t)v->i : x - (uint64_t)v->i;
            put64(s + 8, (int64_t)x);
        }
        break;
    case WEIR_AGG_MIN:
    case WEIR_AGG_MAX: {
        /* Insert-only input: a plain running MIN/MAX (sign is always +1). */
        unsigned char enc[WEIR_STRING_MAX_CAPACITY + 16];
        weir__agg_encode(a, v, enc);
        int c = get64(s) ? cmp_enc(a, enc, s + 8) : 0;
        if (!get64(s) || (a->kind == WEIR_AGG_MIN ? c < 0 : c > 0)) {
            put64(s, 1);
            memcpy(s + 8, enc, a->vsize);
        }
        break;
    }
    default:
        break;
    }
}

void weir__agg_merge(const weir__agg *a, unsigned char *acc, const unsigned char *other)
{
    unsigned char *s = acc + a->slot;
    const unsigned char *o = other + a->slot;
    switch (a->kind) {
    case WEIR_AGG_COUNT_STAR:
    case WEIR_AGG_COUNT:
        put64(s, get64(s) + get64(o));
        break;
    case WEIR_AGG_SUM:
    case WEIR_AGG_AVG:
        put64(s, get64(s) + get64(o));
        if (a->arg_type.id == WEIR_TYPE_DECIMAL) {
            weir__i128 y;
            memcpy(&y, o + 8, 16);
            if (y == dec_overflow())
                memcpy(s + 8, &y, 16); /* an overflowed pane overflows the window */
            else
                dec_add(s + 8, y);
        } else if (is_approx(a->arg_type)) {
            double x, y;
            memcpy(&x, s + 8, 8);
            memcpy(&y, o + 8, 8);
            x += y;
            if (a->kind == WEIR_AGG_SUM && a->arg_type.id == WEIR_TYPE_FLOAT)
                x = (float)x;
            memcpy(s + 8, &x, 8);
        } else {
            put64(s + 8, (int64_t)((uint64_t)get64(s + 8) + (uint64_t)get64(o + 8)));
        }
        break;
    case WEIR_AGG_MIN:
    case WEIR_AGG_MAX:
        if (get64(o)) {
            int c = get64(s) ? cmp_enc(a, o + 8, s + 8) : 0;
            if (!get64(s) || (a->kind == WEIR_AGG_MIN ? c < 0 : c > 0)) {
                put64(s, 1);
                memcpy(s + 8, o + 8, a->vsize);
            }
        }
        break;
    default:
        break;
    }
}

void weir__agg_result(const weir__agg *a, const unsigned char *acc, weir__val *out)
{
    const unsigned char *s = acc + a->slot;
    *out = (weir__val){0};
    switch (a->kind) {
    case WEIR_AGG_COUNT_STAR:
    case WEIR_AGG_COUNT:
        out->i = get64(s);
        return;
    case WEIR_AGG_SUM:
    case WEIR_AGG_AVG: {
        int64_t n = get64(s);
        if (n <= 0) {
            out->null = true;
            return;
        }
        if (a->arg_type.id == WEIR_TYPE_DECIMAL) {
            weir__i128 sum, r = 0;
            memcpy(&sum, s + 8, 16);
            int e = sum == dec_overflow() ? 1 : 0;
            if (e == 0 && a->kind == WEIR_AGG_AVG)
                /* DecimalAvgAggFunction: the sum divided by the count */
                e = weir__dec_arith('/', sum, a->arg_type.scale, n, 0, 38, a->out_type.scale,
                                    &r);
            else
                r = sum;
            out->null = e != 0;
            weir__dec_set(out, r);
            return;
        }
        if (is_approx(a->arg_type)) {
            memcpy(&out->d, s + 8, 8);
            if (a->kind == WEIR_AGG_AVG)
                out->d /= (double)n;
            if (a->arg_type.id == WEIR_TYPE_FLOAT)
                out->d = (float)out->d; /* AVG(FLOAT): CAST(sum / count AS FLOAT) */
            return;
        }
        int64_t sum = get64(s + 8);
        out->i = a->kind == WEIR_AGG_AVG ? sum / n : sum;
        /* SUM(INT) wraps at 32 bits (TINYINT at 8 ...), AVG is cast back */
        out->i = weir__int_wrap(a->arg_type.id, out->i);
        return;
    }
    default:
        if (!get64(s)) {
            out->null = true;
            return;
        }
        decode(a, s + 8, out);
        return;
    }
}

/* ---- aggregate functions from C ----------------------------------------------------- */

void weir__agg_init(const weir__agg *a, unsigned char *acc)
{
    if (a->kind == WEIR_AGG_FUNCTION && a->fn->agg.init)
        a->fn->agg.init(acc + a->slot, a->fn->arg);
}

/* A call's context: no result buffer, the message into err. */
static weir_function_call call_of(const weir__agg *a, char *err, size_t errsize)
{
    weir_function_call c = {.name = a->fn->name, .arg = a->fn->arg, .err = err,
                            .errsize = errsize};
    err[0] = 0;
    return c;
}

int weir__agg_call(const weir__agg *a, unsigned char *acc, const weir__val *args, int sign,
                   const char **why)
{
    const weir__function *f = a->fn;
    for (int i = 0; i < a->nargs; i++)
        if (args[i].null && f->arg_types[i].not_null)
            return 0; /* a NULL where the function never takes one: the row is skipped */
    char err[256];
    weir_function_call call = call_of(a, err, sizeof err);
    int r = sign > 0 ? f->agg.accumulate(acc + a->slot, args, a->nargs, &call)
                     : f->agg.retract(acc + a->slot, args, a->nargs, &call);
    return r ? weir__function_failed(f, r, err, why) : 0;
}

int weir__agg_call_merge(const weir__agg *a, unsigned char *acc, const unsigned char *other,
                         const char **why)
{
    const weir__function *f = a->fn;
    if (!f->agg.merge) {
        /* the plan refuses windows that merge for a function without merge */
        weir__function_failed(f, WEIR_EINTERNAL, "internal: merged without a merge function",
                              why);
        return WEIR_EINTERNAL;
    }
    char err[256];
    weir_function_call call = call_of(a, err, sizeof err);
    int r = f->agg.merge(acc + a->slot, other + a->slot, &call);
    return r ? weir__function_failed(f, r, err, why) : 0;
}

int weir__agg_call_result(const weir__agg *a, const unsigned char *acc, weir__val *out,
                          char *buf, const char **why)
{
    const weir__function *f = a->fn;
    char err[256];
    weir_function_call call = call_of(a, err, sizeof err);
    bool str = is_str(a->out_type);
    call.buf = str ? buf : NULL;
    call.capacity = str ? a->out_type.capacity : 0;
    *out = (weir__val){0};
    int r = f->agg.get_value(acc + a->slot, out, &call);
    if (r)
        return weir__function_failed(f, r, err, why);
    return weir__function_result(f, a->out_type, out, buf, why);
}
