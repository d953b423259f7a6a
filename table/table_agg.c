/* table_agg.c — the aggregate functions of group and window aggregates:
 * their accumulators, how a value is folded in or retracted, how two
 * accumulators merge (window panes and sessions), and the result.
 *
 * Accumulators are fixed-size slots in one block per group (or window):
 *     COUNT(*), COUNT(x)      int64 count
 *     SUM(x), AVG(x)          int64 non-NULL count, then an int64 or double sum, or a
 *                             DECIMAL's 16-byte sum (its unscaled 128 bits)
 *     MIN(x), MAX(x)          int64 "has a value", then the value (vsize)
 *     FIRST_VALUE, LAST_VALUE as MIN and MAX
 *     STDDEV_*, VAR_*         int64 non-NULL count, the sum and the sum of squares (int64
 *                             in the argument's integer type, wrapping; or double)
 *     LISTAGG(x[, sep])       int64 "has a value", then the result: a uint32 length and
 *                             the string capacity's bytes (bounded: a longer result fails
 *                             the job, "LISTAGG's result is longer than its capacity")
 *     COUNT(DISTINCT x) of a  int64 count, then the distinct values, sorted (at most
 *     window                  WEIR__DISTINCT_BYTES of them: one more fails the job)
 *     list aggregates         int64 entries, then the current MIN/MAX value (or
 *                             FIRST_VALUE's, LAST_VALUE's, LISTAGG's result)
 *     a function from C       its acc_size bytes (8-aligned), its own layout
 * List aggregates — MIN/MAX over an input that retracts, and COUNT(DISTINCT
 * x) — keep a sorted list of (value, count) in keyed list state (the
 * caller's); the slot caches what the list says, so a result never reads
 * the list. That is Flink's MinWithRetractAggFunction / its DISTINCT view:
 * exact under retraction, at the cost of one entry per distinct value.
 * FIRST_VALUE, LAST_VALUE and LISTAGG over an input that retracts keep
 * their values in arrival order instead (an entry per row, appended; a
 * retraction takes out the earliest equal one), as Flink's
 * FirstValueWithRetractAggFunction, LastValueWithRetractAggFunction and
 * ListAggWithRetractAggFunction keep theirs: the first, the last, or all
 * of them joined by the separator.
 *
 * STDDEV_POP, STDDEV_SAMP, VAR_POP and VAR_SAMP are Calcite's reduction
 * (AggregateReduceFunctionsRule, which Flink's planner applies):
 * (SUM(x * x) - SUM(x) * SUM(x) / COUNT(x)) / COUNT(x) (or COUNT(x) - 1,
 * NULL for one value), POWER(.., 0.5) for the deviations, CAST to x's
 * type: for an integer x each step in integers (x * x and the sums wrap in
 * x's type, the divisions truncate), so STDDEV_POP of INT is an INT. They
 * retract and merge as the sums and the count do. Of a DECIMAL(p, s) the
 * sums are DECIMALs (SUM(x) DECIMAL(38, s), SUM(x * x) of x * x's scale,
 * each NULL from an overflow on) and the steps are DECIMAL arithmetic in
 * Flink's types, the result DECIMAL(38, max(6, s)) (dec_stats_result).
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
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "decimal.h"
#include "table_internal.h"
#include "weir/error.h"

static bool is_str(weir_type t) { return weir__type_is_var(t.id); }
static bool is_approx(weir_type t) { return weir__type_is_approx(t.id); }

/* LISTAGG(x, sep) with a separator per row: its argument is ROW(x, sep)
 * (expr_bind.c's listagg_pair). */
static bool listagg_pairs(const weir__agg *a)
{
    return a->kind == WEIR_AGG_LISTAGG && a->arg_type.id == WEIR_TYPE_ROW;
}

uint32_t weir__agg_layout(weir__agg *aggs, int n, const weir_expr *const *items, bool retract,
                          bool window)
{
    uint32_t off = 0;
    for (int i = 0; i < n; i++) {
        weir__agg *a = &aggs[i];
        const weir_expr *e = items[i];
        *a = (weir__agg){.kind = e->agg, .distinct = e->distinct, .arg = e->agg_arg,
                         .filter = e->agg_filter, .sep = e->agg_sep, .out_type = e->type};
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
                  (retract && (a->kind == WEIR_AGG_MIN || a->kind == WEIR_AGG_MAX ||
                               a->kind == WEIR_AGG_FIRST_VALUE ||
                               a->kind == WEIR_AGG_LAST_VALUE || a->kind == WEIR_AGG_LISTAGG));
        a->slot = off;
        if (window && a->distinct) {
            /* the count, then the distinct values, sorted */
            a->list = false;
            a->set_max = WEIR__DISTINCT_BYTES / a->vsize;
            if (a->set_max == 0)
                a->set_max = 1;
            off += sizeof(int64_t) + a->set_max * a->vsize;
            continue;
        }
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
        case WEIR_AGG_STDDEV_POP:
        case WEIR_AGG_STDDEV_SAMP:
        case WEIR_AGG_VAR_POP:
        case WEIR_AGG_VAR_SAMP:
            /* the count and two sums; of a DECIMAL two 16-byte sums */
            off += a->arg_type.id == WEIR_TYPE_DECIMAL ? 8 + 2 * 16 : 3 * sizeof(int64_t);
            break;
        case WEIR_AGG_LISTAGG:
            a->rsize = (4 + a->out_type.capacity + 7u) & ~7u;
            if (listagg_pairs(a)) /* and the last row's separator */
                a->rsize += (4 + weir__nested_of(a->arg_type)->types[1].capacity + 7u) & ~7u;
            off += sizeof(int64_t) + a->rsize;
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

/* The message of a LISTAGG past its capacity (this thread's, as the
 * string functions' are). */
static const char *listagg_too_long(const weir__agg *a)
{
    static _Thread_local char msg[96];
    snprintf(msg, sizeof msg, "LISTAGG's result is longer than its capacity %u",
             a->out_type.capacity);
    return msg;
}

/* Appends the separator (if the result has a value) and n bytes to
 * LISTAGG's result at s; WEIR_ERANGE when they do not fit. */
static int listagg_append(const weir__agg *a, unsigned char *s, const char *b, uint32_t n,
                          const char **why)
{
    uint32_t len;
    memcpy(&len, s + 8, 4);
    bool has = get64(s) != 0;
    uint64_t need = (uint64_t)len + (has ? a->sep.len : 0) + n;
    if (need > a->out_type.capacity) {
        *why = listagg_too_long(a);
        return WEIR_ERANGE;
    }
    char *d = (char *)s + 12;
    if (has) {
        memcpy(d + len, a->sep.s, a->sep.len);
        len += a->sep.len;
    }
    memcpy(d + len, b, n);
    len += n;
    memcpy(s + 8, &len, 4);
    put64(s, 1);
    return 0;
}

/* LISTAGG(x, sep) with a separator per row, as Flink's ListAggFunction
 * (two operands) accumulates: each value joined to the result so far with
 * its own row's separator (a NULL separator makes the result NULL, and the
 * next value starts it again), the last row's separator kept for a merge
 * (accDelimiter: ',' before any row). After the result's bytes: a uint32,
 * 0 for the initial ',', UINT32_MAX for NULL, else the separator's length
 * + 1, then its bytes. */
static unsigned char *pair_delim(const weir__agg *a, unsigned char *s)
{
    return s + 8 + ((4 + a->out_type.capacity + 7u) & ~7u);
}

static void pair_split(const weir__agg *a, const weir__val *v, weir__val *x, weir__val *sep)
{
    const weir__nested *d = weir__nested_of(a->arg_type);
    weir__nested_element(d, (const unsigned char *)v->s, 0, 0, x);
    weir__nested_element(d, (const unsigned char *)v->s, 0, 1, sep);
}

/* The separator `sep` (NULL: the initial ',') joins x to the result at s. */
static int pair_join(const weir__agg *a, unsigned char *s, const char *x, uint32_t xlen,
                     const weir__val *sep, bool sep_null, const char **why)
{
    uint32_t len;
    memcpy(&len, s + 8, 4);
    if (!get64(s)) {
        len = 0;
    } else if (sep_null) {
        put64(s, 0); /* CONCAT(acc, NULL, x) is NULL */
        len = 0;
        memcpy(s + 8, &len, 4);
        return 0;
    }
    const char *sp = get64(s) ? (sep ? sep->s : ",") : "";
    uint32_t sl = get64(s) ? (sep ? sep->len : 1) : 0;
    if ((uint64_t)len + sl + xlen > a->out_type.capacity) {
        *why = listagg_too_long(a);
        return WEIR_ERANGE;
    }
    char *d = (char *)s + 12;
    memcpy(d + len, sp, sl);
    memcpy(d + len + sl, x, xlen);
    len += sl + xlen;
    memcpy(s + 8, &len, 4);
    put64(s, 1);
    return 0;
}

static void pair_keep_delim(const weir__agg *a, unsigned char *s, const weir__val *sep)
{
    unsigned char *d = pair_delim(a, s);
    uint32_t code = sep->null ? UINT32_MAX : sep->len + 1;
    memcpy(d, &code, 4);
    if (!sep->null)
        memcpy(d + 4, sep->s, sep->len);
}

static int pair_add(const weir__agg *a, unsigned char *s, const weir__val *v, const char **why)
{
    weir__val x, sep;
    pair_split(a, v, &x, &sep);
    pair_keep_delim(a, s, &sep);
    if (x.null)
        return 0;
    return pair_join(a, s, x.s, x.len, &sep, sep.null, why);
}

/* A pane's result joined after this one's with the pane's last separator. */
static int pair_merge(const weir__agg *a, unsigned char *s, const unsigned char *o,
                      const char **why)
{
    const unsigned char *od = pair_delim(a, (unsigned char *)(uintptr_t)o);
    uint32_t code;
    memcpy(&code, od, 4);
    weir__val sep = {.s = (const char *)od + 4, .len = code ? code - 1 : 0};
    if (get64(o)) {
        uint32_t olen;
        memcpy(&olen, o + 8, 4);
        int r = pair_join(a, s, (const char *)o + 12, olen, code ? &sep : NULL,
                          code == UINT32_MAX, why);
        if (r)
            return r;
    }
    memcpy(pair_delim(a, s), od, 4 + (code && code != UINT32_MAX ? code - 1 : 0));
    return 0;
}

/* Whether a list aggregate keeps its values in arrival order (else sorted,
 * with a count per value). */
static bool arrival_list(const weir__agg *a)
{
    return !a->distinct && (a->kind == WEIR_AGG_FIRST_VALUE || a->kind == WEIR_AGG_LAST_VALUE ||
                            a->kind == WEIR_AGG_LISTAGG);
}

/* Refreshes a list aggregate's cached result from its list. */
static int list_cache(const weir__agg *a, unsigned char *acc, const unsigned char *list,
                      size_t count, const char **why)
{
    unsigned char *s = acc + a->slot;
    if (a->distinct) {
        put64(s, (int64_t)count);
        return 0;
    }
    if (a->kind == WEIR_AGG_LISTAGG) {
        memset(s, 0, 8 + a->rsize);
        if (listagg_pairs(a)) {
            /* ListAggWsWithRetractAggFunction: the values joined by one
             * separator, the last row's (here the last value kept's) */
            weir__val last = {0}, x, sep = {.null = true};
            for (size_t i = count; i-- > 0;) {
                decode(a, list + i * a->esize, &last);
                pair_split(a, &last, &x, &sep);
                if (!x.null)
                    break;
            }
            for (size_t i = 0; i < count; i++) {
                weir__val v, vs;
                decode(a, list + i * a->esize, &v);
                pair_split(a, &v, &x, &vs);
                if (x.null)
                    continue;
                if (sep.null) { /* concatWs with a NULL separator: NULL */
                    put64(s, 0);
                    return 0;
                }
                int r = pair_join(a, s, x.s, x.len, &sep, false, why);
                if (r)
                    return r;
            }
            return 0;
        }
        for (size_t i = 0; i < count; i++) {
            weir__val v;
            decode(a, list + i * a->esize, &v);
            int r = listagg_append(a, s, v.s, v.len, why);
            if (r)
                return r;
        }
        return 0;
    }
    put64(s, count > 0);
    if (count > 0) {
        bool first = a->kind == WEIR_AGG_MIN || a->kind == WEIR_AGG_FIRST_VALUE;
        const unsigned char *e = first ? list : list + (count - 1) * a->esize;
        memcpy(s + 8, e, a->vsize);
    } else {
        memset(s + 8, 0, a->vsize);
    }
    return 0;
}

/* A window's COUNT(DISTINCT): the encoded value `key` into the sorted
 * values after the count at s (nothing if there); WEIR_ERANGE when they
 * are set_max already. */
static int set_add(const weir__agg *a, unsigned char *s, const unsigned char *key,
                   const char **why)
{
    size_t n = (size_t)get64(s), lo = 0, hi = n;
    unsigned char *list = s + 8;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = cmp_enc(a, list + mid * a->vsize, key);
        if (c == 0)
            return 0;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (n >= a->set_max) {
        static _Thread_local char msg[160];
        snprintf(msg, sizeof msg, "COUNT(DISTINCT) in a window aggregate: more than %u distinct "
                 "values in one window of one key (%u bytes of them)", a->set_max,
                 WEIR__DISTINCT_BYTES);
        *why = msg;
        return WEIR_ERANGE;
    }
    memmove(list + (lo + 1) * a->vsize, list + lo * a->vsize, (n - lo) * a->vsize);
    memcpy(list + lo * a->vsize, key, a->vsize);
    put64(s, (int64_t)n + 1);
    return 0;
}

/* Whether the aggregate is one of the variances and deviations. */
static bool is_stats(weir_agg_kind k)
{
    return k == WEIR_AGG_STDDEV_POP || k == WEIR_AGG_STDDEV_SAMP || k == WEIR_AGG_VAR_POP ||
           k == WEIR_AGG_VAR_SAMP;
}

/* Adds x (sign: in or out) to the double at p, in float for a FLOAT. */
static void add_double(const weir__agg *a, unsigned char *p, double x)
{
    double d;
    memcpy(&d, p, 8);
    d += x;
    if (a->arg_type.id == WEIR_TYPE_FLOAT)
        d = (float)d;
    memcpy(p, &d, 8);
}

/* A DECIMAL(p, s) x's square as the reduction types it (x * x, Flink's
 * multiplication type): 0, or 1 when it does not fit it (NULL, which
 * SUM(x * x) skips). */
static int dec_square(const weir__agg *a, weir__i128 x, weir__i128 *sq, int *scale)
{
    weir_type t = weir__decimal_result('*', a->arg_type, a->arg_type);
    *scale = t.scale;
    return weir__dec_arith('*', x, a->arg_type.scale, x, a->arg_type.scale,
                           weir_type_precision(t), t.scale, sq);
}

/* The variances' sums take x in or out: x and x * x (in x's type). */
static void stats_update(const weir__agg *a, unsigned char *s, const weir__val *v, int sign)
{
    put64(s, get64(s) + sign);
    if (a->arg_type.id == WEIR_TYPE_DECIMAL) {
        /* SUM(x), a DECIMAL(38, s), and SUM(x * x), each NULL from an
         * overflow on (as a DECIMAL SUM is) */
        weir__i128 x = weir__dec_get(v), sq;
        int sc;
        dec_add(s + 8, sign > 0 ? x : -x);
        if (dec_square(a, x, &sq, &sc) == 0)
            dec_add(s + 24, sign > 0 ? sq : -sq);
        return;
    }
    if (is_approx(a->arg_type)) {
        double sq = v->d * v->d;
        if (a->arg_type.id == WEIR_TYPE_FLOAT)
            sq = (float)sq;
        add_double(a, s + 8, sign > 0 ? v->d : -v->d);
        add_double(a, s + 16, sign > 0 ? sq : -sq);
        return;
    }
    uint64_t x = (uint64_t)v->i;
    uint64_t sq = (uint64_t)weir__int_wrap(a->arg_type.id, (int64_t)(x * x));
    put64(s + 8, (int64_t)(sign > 0 ? (uint64_t)get64(s + 8) + x : (uint64_t)get64(s + 8) - x));
    put64(s + 16,
          (int64_t)(sign > 0 ? (uint64_t)get64(s + 16) + sq : (uint64_t)get64(s + 16) - sq));
}

/* Java's (int) / (long) of a double into an integer type: NaN 0, out of
 * range the nearest bound (of int for TINYINT and SMALLINT, then wrapped,
 * as Java's (byte) (int) d). */
static int64_t double_to_integral(weir_type_id id, double d)
{
    if (d != d)
        return 0;
    if (id == WEIR_TYPE_BIGINT)
        return d >= 9223372036854775807.0 ? INT64_MAX : d <= -9223372036854775808.0 ? INT64_MIN
                                                                                 : (int64_t)d;
    int64_t i = d >= 2147483647.0 ? INT32_MAX : d <= -2147483648.0 ? INT32_MIN : (int64_t)d;
    return weir__int_wrap(id, i);
}

/* Of a DECIMAL(p, s) x, Calcite's reduction step by step in Flink's
 * DECIMAL types (LogicalTypeMerging), each step rounded HALF_UP and NULL
 * past its precision: SUM(x) cast to the result's DECIMAL(38, max(6, s)),
 * squared, divided by COUNT(x); SUM(x * x) minus that; divided by the
 * count (or count - 1); the deviations' POWER(.., 0.5) in DOUBLE; the end
 * cast to DECIMAL(38, max(6, s)). */
static void dec_stats_result(const weir__agg *a, const unsigned char *s, int64_t n,
                             int64_t denom, bool root, weir__val *out)
{
    weir__i128 sum, sumsq, cast, sq, avg, diff, div, r;
    memcpy(&sum, s + 8, 16);
    memcpy(&sumsq, s + 24, 16);
    out->null = true;
    if (sum == dec_overflow() || sumsq == dec_overflow())
        return;
    weir_type res = a->out_type, cnt = weir__type_decimal(19, 0, true);
    int rs = res.scale, sqs;
    weir_type sumsq_t;
    (void)dec_square(a, 0, &sq, &sqs);
    sumsq_t = weir__type_decimal(38, sqs, false);
    if (!weir__dec_rescale(sum, a->arg_type.scale, rs, 38, &cast))
        return;
    weir_type t1 = weir__decimal_result('*', res, res);
    weir_type t2 = weir__decimal_result('/', t1, cnt);
    weir_type t3 = weir__decimal_result('-', sumsq_t, t2);
    weir_type t4 = weir__decimal_result('/', t3, cnt);
    if (weir__dec_arith('*', cast, rs, cast, rs, weir_type_precision(t1), t1.scale, &sq) ||
        weir__dec_arith('/', sq, t1.scale, n, 0, weir_type_precision(t2), t2.scale, &avg) ||
        weir__dec_arith('-', sumsq, sqs, avg, t2.scale, weir_type_precision(t3), t3.scale,
                        &diff) ||
        weir__dec_arith('/', diff, t3.scale, denom, 0, weir_type_precision(t4), t4.scale, &div))
        return;
    if (root) {
        if (weir__dec_from_double(pow(weir__dec_to_double(div, t4.scale), 0.5), 38, rs, &r))
            return;
    } else if (!weir__dec_rescale(div, t4.scale, rs, 38, &r)) {
        return;
    }
    out->null = false;
    weir__dec_set(out, r);
}

/* The variance or deviation of the sums at s. */
static void stats_result(const weir__agg *a, const unsigned char *s, weir__val *out)
{
    int64_t n = get64(s);
    bool samp = a->kind == WEIR_AGG_STDDEV_SAMP || a->kind == WEIR_AGG_VAR_SAMP;
    bool root = a->kind == WEIR_AGG_STDDEV_POP || a->kind == WEIR_AGG_STDDEV_SAMP;
    if (n <= 0 || (samp && n == 1)) {
        out->null = true;
        return;
    }
    int64_t denom = samp ? n - 1 : n;
    if (a->arg_type.id == WEIR_TYPE_DECIMAL) {
        dec_stats_result(a, s, n, denom, root, out);
        return;
    }
    if (is_approx(a->arg_type)) {
        bool f = a->arg_type.id == WEIR_TYPE_FLOAT;
        double s1, s2;
        memcpy(&s1, s + 8, 8);
        memcpy(&s2, s + 16, 8);
        double sq = s1 * s1;
        if (f)
            sq = (float)sq;
        double avg = f ? (float)(sq / (double)n) : sq / (double)n;
        double diff = f ? (float)(s2 - avg) : s2 - avg;
        double div = f ? (float)(diff / (double)denom) : diff / (double)denom;
        out->d = root ? pow(div, 0.5) : div;
        if (f)
            out->d = (float)out->d;
        return;
    }
    weir_type_id t = a->arg_type.id;
    int64_t s1 = weir__int_wrap(t, get64(s + 8)), s2 = weir__int_wrap(t, get64(s + 16));
    int64_t sq = weir__int_wrap(t, (int64_t)((uint64_t)s1 * (uint64_t)s1));
    int64_t avg = sq / n; /* the type's value over the BIGINT count: a BIGINT */
    int64_t diff = (int64_t)((uint64_t)s2 - (uint64_t)avg);
    int64_t div = diff == INT64_MIN && denom == -1 ? diff : diff / denom;
    out->i = root ? double_to_integral(t, pow((double)div, 0.5)) : weir__int_wrap(t, div);
}

int weir__agg_update(const weir__agg *a, unsigned char *acc, const weir__val *v, int sign,
                     unsigned char *list, size_t *count, const char **why)
{
    unsigned char *s = acc + a->slot;
    if (a->kind == WEIR_AGG_COUNT_STAR) {
        put64(s, get64(s) + sign);
        return 0;
    }
    if (v->null)
        return 0;
    if (a->set_max) {
        unsigned char key[WEIR_STRING_MAX_CAPACITY + 16];
        weir__agg_encode(a, v, key);
        return set_add(a, s, key, why);
    }
    if (a->list && arrival_list(a)) {
        /* appended; a retraction takes out the earliest equal value */
        unsigned char key[WEIR_STRING_MAX_CAPACITY + 16];
        weir__agg_encode(a, v, key);
        if (sign > 0) {
            memcpy(list + *count * a->esize, key, a->vsize);
            put64(list + *count * a->esize + a->vsize, 1);
            (*count)++;
        } else {
            for (size_t i = 0; i < *count; i++)
                if (cmp_enc(a, list + i * a->esize, key) == 0) {
                    memmove(list + i * a->esize, list + (i + 1) * a->esize,
                            (*count - i - 1) * a->esize);
                    (*count)--;
                    break;
                }
        }
        return list_cache(a, acc, list, *count, why);
    }
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
        return list_cache(a, acc, list, *count, why);
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
    case WEIR_AGG_FIRST_VALUE:
    case WEIR_AGG_LAST_VALUE:
        /* insert-only: the first non-NULL value kept, or each replacing it */
        if (!get64(s) || a->kind == WEIR_AGG_LAST_VALUE) {
            put64(s, 1);
            weir__agg_encode(a, v, s + 8);
        }
        break;
    case WEIR_AGG_LISTAGG:
        if (listagg_pairs(a))
            return pair_add(a, s, v, why);
        return listagg_append(a, s, v->s, v->len, why);
    default:
        if (is_stats(a->kind))
            stats_update(a, s, v, sign);
        break;
    }
    return 0;
}

int weir__agg_merge(const weir__agg *a, unsigned char *acc, const unsigned char *other,
                    const char **why)
{
    unsigned char *s = acc + a->slot;
    const unsigned char *o = other + a->slot;
    if (a->set_max) {
        /* the union of two panes' values */
        for (int64_t i = 0; i < get64(o); i++) {
            int r = set_add(a, s, o + 8 + (size_t)i * a->vsize, why);
            if (r)
                return r;
        }
        return 0;
    }
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
    case WEIR_AGG_FIRST_VALUE:
    case WEIR_AGG_LAST_VALUE:
        /* the earlier pane's first value, the later one's last */
        if (get64(o) && (!get64(s) || a->kind == WEIR_AGG_LAST_VALUE)) {
            put64(s, 1);
            memcpy(s + 8, o + 8, a->vsize);
        }
        break;
    case WEIR_AGG_LISTAGG:
        if (listagg_pairs(a))
            return pair_merge(a, s, o, why);
        if (get64(o)) {
            uint32_t len;
            memcpy(&len, o + 8, 4);
            return listagg_append(a, s, (const char *)o + 12, len, why);
        }
        break;
    default:
        if (is_stats(a->kind)) {
            put64(s, get64(s) + get64(o));
            if (a->arg_type.id == WEIR_TYPE_DECIMAL) {
                for (int k = 8; k <= 24; k += 16) {
                    weir__i128 y;
                    memcpy(&y, o + k, 16);
                    if (y == dec_overflow())
                        memcpy(s + k, &y, 16);
                    else
                        dec_add(s + k, y);
                }
            } else if (is_approx(a->arg_type)) {
                double x;
                memcpy(&x, o + 8, 8);
                add_double(a, s + 8, x);
                memcpy(&x, o + 16, 8);
                add_double(a, s + 16, x);
            } else {
                put64(s + 8, (int64_t)((uint64_t)get64(s + 8) + (uint64_t)get64(o + 8)));
                put64(s + 16, (int64_t)((uint64_t)get64(s + 16) + (uint64_t)get64(o + 16)));
            }
        }
        break;
    }
    return 0;
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
    case WEIR_AGG_LISTAGG:
        if (a->distinct)
            break;
        if (!get64(s)) {
            out->null = true;
            return;
        }
        memcpy(&out->len, s + 8, 4);
        out->s = (const char *)s + 12;
        return;
    default:
        if (is_stats(a->kind)) {
            stats_result(a, s, out);
            return;
        }
        break;
    }
    if (!get64(s)) {
        out->null = true;
        return;
    }
    decode(a, s + 8, out);
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
