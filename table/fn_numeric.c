/* fn_numeric.c — the numeric functions (fn.h), as Flink computes them:
 * Java's Math for DOUBLE (ABS, FLOOR, CEIL, POWER, SQRT, LN, LOG, LOG10,
 * LOG2, EXP, SIGN and the trigonometry, by the C library's libm: results
 * may differ from the JVM's in the last bit for some arguments), Java's
 * integer arithmetic for INT and BIGINT (ABS of the smallest wraps, as
 * Math.abs), BigDecimal's HALF_UP for ROUND and DOWN for TRUNCATE (on the
 * DOUBLE's shortest decimal text, as BigDecimal.valueOf reads it: ROUND(2.675,
 * 2) is 2.68), and java.util.Random for RAND and RAND_INTEGER (a seed gives
 * Java's sequence: RAND(42)'s first value is 0.7275636800328681).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "fn.h"
#include "weir/error.h"

static weir_type with_null(weir_type_id id, bool not_null)
{
    return (weir_type){.id = id, .not_null = not_null};
}

/* Every argument as DOUBLE; a DOUBLE result. */
static bool t_double(weir__fnbind *b)
{
    for (int i = 0; i < b->n->nargs; i++)
        if (!(b->n->args[i] = weir__bind_cast(b->p, b->n->args[i],
                                              with_null(WEIR_TYPE_DOUBLE, false))))
            return false;
    b->n->type = with_null(WEIR_TYPE_DOUBLE, weir__fn_args_not_null(b));
    return true;
}

/* The first argument's type (ABS, SIGN, FLOOR, CEIL, ROUND, TRUNCATE). */
static bool t_arg0(weir__fnbind *b)
{
    b->n->type = b->n->args[0]->type;
    b->n->type.not_null = weir__fn_args_not_null(b);
    return true;
}

/* Java's narrowing of an integer into the type: INT wraps to 32 bits,
 * TINYINT to 8 ... */
static int64_t narrow(weir_type_id id, int64_t v)
{
    return weir__int_wrap(id, v);
}

/* FLOOR(x), CEIL(x): a DECIMAL(p, s) is a DECIMAL(p, 0) (Calcite's
 * ARG0_OR_EXACT_NO_SCALE; DecimalDataUtils.floor keeps the precision),
 * another number its own type. */
static bool t_floor(weir__fnbind *b)
{
    t_arg0(b);
    if (b->n->type.id == WEIR_TYPE_DECIMAL)
        b->n->type = weir__type_decimal(weir_type_precision(b->n->type), 0, b->n->type.not_null);
    return true;
}

/* ROUND(x, r), TRUNCATE(x, r): a DECIMAL(p, s) with a literal r is Flink's
 * findRoundDecimalType: itself for r >= s, DECIMAL(1 + p - s + r, r) for
 * 0 <= r < s (a carry may add a digit), DECIMAL(min(38, 1 + p - s), 0)
 * for r < 0; with an r known per row only, its own type. */
static bool t_round(weir__fnbind *b)
{
    t_arg0(b);
    weir_type t = b->n->type;
    const weir__val *r;
    if (t.id != WEIR_TYPE_DECIMAL || (b->n->nargs > 1 && !weir__fn_literal(b, 1, &r)))
        return true;
    int64_t d = b->n->nargs > 1 ? r->i : 0;
    int p = weir_type_precision(t), s = t.scale;
    if (d >= s)
        return true;
    if (d < 0)
        b->n->type = weir__type_decimal(1 + p - s < 38 ? 1 + p - s : 38, 0, t.not_null);
    else
        b->n->type = weir__type_decimal(1 + p - s + (int)d, (int)d, t.not_null);
    b->n->type.not_null = false; /* a result past its digits is NULL */
    return true;
}

/* MOD of DECIMALs: Flink's findModuloDecimalType and BigDecimal.remainder. */
static int e_mod_decimal(const weir__fncall *c, weir__val *o, const char **why)
{
    weir__i128 r = 0;
    int e = weir__dec_arith('%', weir__dec_get(&c->args[0]), c->n->args[0]->type.scale,
                            weir__dec_get(&c->args[1]), c->n->args[1]->type.scale,
                            weir_type_precision(c->n->type), c->n->type.scale, &r);
    if (e < 0) {
        *why = "division by zero";
        return WEIR_ERANGE;
    }
    o->null = e > 0;
    weir__dec_set(o, r);
    return 0;
}

/* ---- MOD, ABS, SIGN, FLOOR, CEIL --------------------------------------------------------- */

/* MOD(a, b) of two integers: Java's %, its sign the dividend's, of b's
 * type; a zero divisor fails the row. */
static bool t_mod(weir__fnbind *b)
{
    weir__enode **a = &b->n->args[0], **c = &b->n->args[1];
    if ((*a)->type.id == WEIR_TYPE_DECIMAL || (*c)->type.id == WEIR_TYPE_DECIMAL) {
        /* an integer as the DECIMAL of its digits */
        if (!(*a = weir__bind_cast(b->p, *a, weir__type_as_decimal((*a)->type))) ||
            !(*c = weir__bind_cast(b->p, *c, weir__type_as_decimal((*c)->type))))
            return false;
        b->n->type = weir__decimal_result('%', (*a)->type, (*c)->type);
        b->n->aux[0] = 1;
        return true;
    }
    /* Calcite's NULLABLE_MOD: an integer MOD is of the divisor's type (the
     * remainder is smaller than it), computed in the wider of the two */
    weir_type divisor = (*c)->type.id == WEIR_TYPE_NULL ? (*a)->type : (*c)->type;
    if (!weir__bind_unify(b->p, a, c, b->a->start, "MOD"))
        return false;
    b->n->type = divisor.id == WEIR_TYPE_NULL ? (*a)->type : divisor;
    b->n->type.not_null = weir__fn_args_not_null(b);
    return true;
}

static int e_mod(const weir__fncall *c, weir__val *o, const char **why)
{
    if (c->n->aux[0] == 1)
        return e_mod_decimal(c, o, why);
    /* the remainder is smaller than the divisor: its type's wrap keeps it */
    return weir__int_arith(OP_MOD, c->n->type.id, c->args[0].i, c->args[1].i, &o->i, why);
}

static int e_abs(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    weir_type_id id = c->n->type.id;
    if (weir__type_is_approx(id))
        o->d = fabs(c->args[0].d);
    else if (id == WEIR_TYPE_DECIMAL)
        weir__dec_set(o, weir__dec_get(&c->args[0]) < 0 ? -weir__dec_get(&c->args[0])
                                                       : weir__dec_get(&c->args[0]));
    else
        o->i = narrow(id, c->args[0].i < 0 ? (int64_t)(0 - (uint64_t)c->args[0].i) : c->args[0].i);
    return 0;
}

static int e_sign(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    if (weir__type_is_approx(c->n->type.id)) {
        double x = c->args[0].d;
        o->d = x > 0 ? 1.0 : x < 0 ? -1.0 : x; /* NaN and -0.0 as they are (Math.signum) */
    } else if (c->n->type.id == WEIR_TYPE_DECIMAL) {
        /* DecimalDataUtils.sign: the signum at the argument's scale */
        weir__i128 x = weir__dec_get(&c->args[0]);
        weir__dec_set(o, (weir__i128)((x > 0) - (x < 0)) * weir__dec_pow10(c->n->type.scale));
    } else {
        o->i = (c->args[0].i > 0) - (c->args[0].i < 0);
    }
    return 0;
}

/* FLOOR(x), CEIL(x): an integer is itself. */
static int e_floor_ceil(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    if (weir__type_is_approx(c->n->type.id)) {
        o->d = c->n->aux[0] == 0 ? floor(c->args[0].d) : ceil(c->args[0].d);
    } else if (c->n->type.id == WEIR_TYPE_DECIMAL) {
        /* to a whole number at scale 0: floor or ceiling */
        weir__i128 x = weir__dec_get(&c->args[0]), u = weir__dec_pow10(c->n->args[0]->type.scale);
        weir__i128 q = x / u, r = x % u;
        if (r != 0 && (c->n->aux[0] == 0 ? x < 0 : x > 0))
            q += c->n->aux[0] == 0 ? -1 : 1;
        weir__dec_set(o, q);
    } else {
        o->i = c->args[0].i;
    }
    return 0;
}

/* ---- ROUND, TRUNCATE ----------------------------------------------------------------------- */

/* x rounded to d decimals on its shortest decimal text (Java's
 * BigDecimal.valueOf): half away from zero (ROUND's HALF_UP) or toward
 * zero (TRUNCATE's DOWN); a zero result has no sign (BigDecimal has no
 * -0); NaN and the infinities stay (where BigDecimal.valueOf would throw
 * and fail Flink's job). */
static double round_decimal(double x, int d, bool half_up)
{
    if (x == 0)
        return 0.0; /* BigDecimal has no -0 */
    if (!isfinite(x))
        return x;
    /* the shortest digits that read back as x */
    char buf[40];
    int p;
    for (p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, fabs(x));
        if (strtod(buf, NULL) == fabs(x))
            break;
    }
    char digits[24];
    int nd = 0;
    const char *c = buf;
    for (; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9')
            digits[nd++] = *c;
    int e = atoi(c + 1); /* digit 0's place is 10^e */
    int last = e + d;    /* the last digit kept */
    if (last >= nd - 1)
        return x;
    char kept[48];
    int nk = 0;
    if (last >= 0) {
        memcpy(kept, digits, (size_t)last + 1);
        nk = last + 1;
    }
    int first_dropped = last + 1 >= 0 ? digits[last + 1] - '0' : 0;
    bool up = half_up && first_dropped >= 5;
    if (nk == 0)
        kept[nk++] = '0';
    if (up) {
        int i = nk - 1;
        while (i >= 0 && kept[i] == '9')
            kept[i--] = '0';
        if (i >= 0) {
            kept[i]++;
        } else {
            memmove(kept + 1, kept, (size_t)nk);
            kept[0] = '1';
            nk++;
        }
    }
    kept[nk] = 0;
    bool zero = strspn(kept, "0") == (size_t)nk;
    char out[80];
    snprintf(out, sizeof out, "%s%se%d", x < 0 && !zero ? "-" : "", kept, -d);
    return strtod(out, NULL);
}

__extension__ typedef __int128 i128;           /* GCC's and Clang's: exact products */
__extension__ typedef unsigned __int128 u128;

/* An integer to d < 0 decimals (ROUND(1250, -2) is 1300), wrapped to its
 * type as BigDecimal.intValue / longValue do. */
static int64_t round_integer(int64_t x, int d, bool half_up, weir_type_id id)
{
    if (d >= 0)
        return x;
    if (d < -38)
        return 0;
    i128 p = 1;
    for (int i = 0; i < -d; i++)
        p *= 10;
    i128 v = x, q = v / p, r = v % p;
    if (half_up && (r < 0 ? -r : r) * 2 >= p)
        q += v < 0 ? -1 : 1;
    i128 res = q * p;
    return narrow(id, (int64_t)(uint64_t)(u128)res);
}

static int e_round(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    int d = c->n->nargs > 1 ? (int32_t)(uint32_t)(uint64_t)c->args[1].i : 0;
    bool half_up = c->n->aux[0] == 0;
    if (c->n->type.id == WEIR_TYPE_DECIMAL) {
        /* DecimalDataUtils.sround (HALF_UP) or DOWN, to d digits, at the
         * result's scale; NULL past its precision */
        weir__i128 x = weir__dec_get(&c->args[0]);
        int s = c->n->args[0]->type.scale, k = s - d;
        if (k > 38) {
            x = 0; /* |x| < 10^38: less than half of 10^k */
            s = d;
        } else if (k > 0) {
            weir__i128 u = weir__dec_pow10(k), q = x / u, r = x % u;
            if (half_up && (r < 0 ? -r : r) * 2 >= u)
                q += x < 0 ? -1 : 1;
            x = q; /* at scale d */
            s = d;
        }
        if (s < 0) {
            /* ROUND(1250.0, -2): 13 hundreds, 1300 at scale 0 */
            if (x != 0 && (-s > 38 || !weir__dec_fits(x, 38 + s))) {
                o->null = true;
                return 0;
            }
            x *= weir__dec_pow10(-s > 38 ? 0 : -s);
            s = 0;
        }
        weir__i128 out;
        if (!weir__dec_rescale(x, s, c->n->type.scale, weir_type_precision(c->n->type), &out)) {
            o->null = true;
            return 0;
        }
        weir__dec_set(o, out);
    } else if (weir__type_is_approx(c->n->type.id)) {
        o->d = round_decimal(c->args[0].d, d, half_up);
        if (c->n->type.id == WEIR_TYPE_FLOAT)
            o->d = (float)o->d;
    } else
        o->i = round_integer(c->args[0].i, d, half_up, c->n->type.id);
    return 0;
}

/* ---- POWER, SQRT, LN, LOG, LOG10, LOG2, EXP, trigonometry ---------------------------------- */

enum {
    F_POWER, F_SQRT, F_LN, F_LOG, F_LOG10, F_LOG2, F_EXP, F_SIN, F_COS, F_TAN, F_COT, F_ASIN,
    F_ACOS, F_ATAN, F_ATAN2, F_SINH, F_COSH, F_TANH, F_DEGREES, F_RADIANS
};

static int e_math(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    double x = c->args[0].d, y = c->n->nargs > 1 ? c->args[1].d : 0;
    switch (c->n->aux[0]) {
    case F_POWER: o->d = pow(x, y); break;
    case F_SQRT: o->d = sqrt(x); break;
    case F_LN: o->d = log(x); break;
    case F_LOG: o->d = c->n->nargs > 1 ? log(y) / log(x) : log(x); break;
    case F_LOG10: o->d = log10(x); break;
    case F_LOG2: o->d = log(x) / log(2); break;
    case F_EXP: o->d = exp(x); break;
    case F_SIN: o->d = sin(x); break;
    case F_COS: o->d = cos(x); break;
    case F_TAN: o->d = tan(x); break;
    case F_COT: o->d = 1.0 / tan(x); break;
    case F_ASIN: o->d = asin(x); break;
    case F_ACOS: o->d = acos(x); break;
    case F_ATAN: o->d = atan(x); break;
    case F_ATAN2: o->d = atan2(x, y); break;
    case F_SINH: o->d = sinh(x); break;
    case F_COSH: o->d = cosh(x); break;
    case F_TANH: o->d = tanh(x); break;
    case F_DEGREES: o->d = x * 57.29577951308232; break;    /* Math.toDegrees */
    case F_RADIANS: o->d = x * 0.017453292519943295; break; /* Math.toRadians */
    }
    return 0;
}

static bool t_const(weir__fnbind *b)
{
    b->n->type = with_null(WEIR_TYPE_DOUBLE, true);
    return true;
}

static int e_const(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    o->d = c->n->aux[0] == 0 ? M_PI : M_E;
    return 0;
}

/* ---- RAND, RAND_INTEGER ----------------------------------------------------------------------- */

/* A generator per call and per subtask, in the call's work bytes (zero
 * until the first row): seeded by the literal seed, as Flink's
 * new java.util.Random(seed) made when the operator opens, or from the
 * system for an unseeded call. */
typedef struct rand_state {
    uint64_t started;
    weir__jrandom r;
} rand_state;

static bool t_rand(weir__fnbind *b)
{
    bool integer = b->f->which == 1;
    int seeded = b->n->nargs - (integer ? 1 : 0);
    if (seeded) {
        const weir__val *v;
        if (!weir__fn_literal(b, 0, &v)) {
            weir__bind_fail(b->p, b->n->args[0]->pos, "%s's seed must be a literal (Flink makes "
                            "its generator once, when the query starts)", b->f->name);
            return false;
        }
        b->n->aux[1] = 1;
        weir_type st = b->n->args[0]->type;
        b->n->aux[2] = weir__type_is_approx(st.id) ? (int64_t)v->d
                       : st.id == WEIR_TYPE_DECIMAL ? weir__dec_to_long(weir__dec_get(v), st.scale)
                                                    : v->i;
    }
    b->work = sizeof(rand_state);
    b->n->type = with_null(integer ? WEIR_TYPE_INT : WEIR_TYPE_DOUBLE,
                           integer ? b->n->args[b->n->nargs - 1]->type.not_null : true);
    return true;
}

static weir__jrandom *generator(const weir__fncall *c)
{
    rand_state *st = (rand_state *)(void *)c->work;
    if (!st->started) {
        int64_t seed;
        if (c->n->aux[1])
            seed = c->n->aux[2];
        else
            weir__fn_random_bytes((unsigned char *)&seed, sizeof seed);
        weir__jrandom_seed(&st->r, seed);
        st->started = 1;
    }
    return &st->r;
}

static int e_rand(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    o->d = weir__jrandom_double(generator(c));
    return 0;
}

static int e_rand_integer(const weir__fncall *c, weir__val *o, const char **why)
{
    int64_t bound = c->args[c->n->nargs - 1].i;
    weir_type bt = c->n->args[c->n->nargs - 1]->type;
    if (weir__type_is_approx(bt.id))
        bound = (int64_t)c->args[c->n->nargs - 1].d;
    else if (bt.id == WEIR_TYPE_DECIMAL)
        bound = weir__dec_to_long(weir__dec_get(&c->args[c->n->nargs - 1]), bt.scale);
    int32_t b = (int32_t)(uint32_t)(uint64_t)bound;
    if (b <= 0) {
        *why = "RAND_INTEGER's bound must be positive";
        return WEIR_EINVAL;
    }
    o->i = weir__jrandom_int(generator(c), b);
    return 0;
}

/* ---- the table ------------------------------------------------------------------------------ */

#define CALL WEIR_AST_FORM_CALL

const weir__builtin weir__fn_numeric[] = {
    {"MOD", 2, 2, CALL, 0, "E,E", t_mod, e_mod, 0},
    {"ABS", 1, 1, CALL, 0, "N;V", t_arg0, e_abs, 0},
    {"SIGN", 1, 1, CALL, 0, "N", t_arg0, e_sign, 0},
    {"FLOOR", 1, 1, CALL, 0, "N", t_floor, e_floor_ceil, 0},
    {"CEIL", 1, 1, CALL, 0, "N", t_floor, e_floor_ceil, 1},
    {"CEILING", 1, 1, CALL, 0, "N", t_floor, e_floor_ceil, 1},
    {"ROUND", 1, 2, CALL, 0, "N,I;N", t_round, e_round, 0},
    {"TRUNCATE", 1, 2, CALL, 0, "N,I;N", t_round, e_round, 1},
    {"POWER", 2, 2, CALL, 0, "N,N", t_double, e_math, F_POWER},
    {"SQRT", 1, 1, CALL, 0, "N", t_double, e_math, F_SQRT},
    {"LN", 1, 1, CALL, 0, "N", t_double, e_math, F_LN},
    {"LOG", 1, 2, CALL, 0, "N;N,N", t_double, e_math, F_LOG},
    {"LOG10", 1, 1, CALL, 0, "N", t_double, e_math, F_LOG10},
    {"LOG2", 1, 1, CALL, 0, "N", t_double, e_math, F_LOG2},
    {"EXP", 1, 1, CALL, 0, "N", t_double, e_math, F_EXP},
    {"SIN", 1, 1, CALL, 0, "N", t_double, e_math, F_SIN},
    {"COS", 1, 1, CALL, 0, "N", t_double, e_math, F_COS},
    {"TAN", 1, 1, CALL, 0, "N", t_double, e_math, F_TAN},
    {"COT", 1, 1, CALL, 0, "N", t_double, e_math, F_COT},
    {"ASIN", 1, 1, CALL, 0, "N", t_double, e_math, F_ASIN},
    {"ACOS", 1, 1, CALL, 0, "N", t_double, e_math, F_ACOS},
    {"ATAN", 1, 1, CALL, 0, "N", t_double, e_math, F_ATAN},
    {"ATAN2", 2, 2, CALL, 0, "N,N", t_double, e_math, F_ATAN2},
    {"SINH", 1, 1, CALL, 0, "N", t_double, e_math, F_SINH},
    {"COSH", 1, 1, CALL, 0, "N", t_double, e_math, F_COSH},
    {"TANH", 1, 1, CALL, 0, "N", t_double, e_math, F_TANH},
    {"DEGREES", 1, 1, CALL, 0, "N", t_double, e_math, F_DEGREES},
    {"RADIANS", 1, 1, CALL, 0, "N", t_double, e_math, F_RADIANS},
    {"PI", 0, 0, CALL, 0, NULL, t_const, e_const, 0},
    {"E", 0, 0, CALL, 0, NULL, t_const, e_const, 1},
    {"RAND", 0, 1, CALL, 0, ";N", t_rand, e_rand, 0},
    {"RAND_INTEGER", 1, 2, CALL, 0, "N;N,N", t_rand, e_rand_integer, 1},
    {NULL, 0, 0, CALL, 0, NULL, NULL, NULL, 0},
};
