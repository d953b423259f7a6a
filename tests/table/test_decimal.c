/* test_decimal.c — DECIMAL(p, s) arithmetic (table/decimal.c) against an
 * independent computation: GMP's exact integers and rationals, rounded by
 * the test's own HALF_UP, for +, -, *, /, % and rescaling (CAST) of random
 * operands of every precision and scale, with Flink's result types
 * (LogicalTypeMerging, written again here) and its NULL on overflow;
 * division rounds twice as Flink's does (38 significant digits, then the
 * scale). Also: text both ways, comparisons, and the conversions to and
 * from numbers at their edges. */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"

/* ---- the test's own decimals: GMP integers ------------------------------------------- */

static void to_mpz(mpz_t z, weir__i128 x)
{
    weir__u128 m = x < 0 ? (weir__u128)0 - (weir__u128)x : (weir__u128)x;
    mpz_set_ui(z, (unsigned long)(uint64_t)(m >> 64));
    mpz_mul_2exp(z, z, 64);
    mpz_add_ui(z, z, (unsigned long)(uint64_t)m);
    if (x < 0)
        mpz_neg(z, z);
}

/* z rounded HALF_UP (away from zero at .5) to an integer after dividing by
 * 10^k (k >= 0). */
static void div_pow10_half_up(mpz_t z, unsigned k)
{
    if (k == 0)
        return;
    mpz_t d, q, r, twice;
    mpz_inits(d, q, r, twice, NULL);
    mpz_ui_pow_ui(d, 10, k);
    int sign = mpz_sgn(z);
    mpz_abs(z, z);
    mpz_tdiv_qr(q, r, z, d);
    mpz_mul_2exp(twice, r, 1);
    if (mpz_cmp(twice, d) >= 0)
        mpz_add_ui(q, q, 1);
    mpz_set(z, q);
    if (sign < 0)
        mpz_neg(z, z);
    mpz_clears(d, q, r, twice, NULL);
}

/* The unscaled z at scale `from`, at scale `to` (HALF_UP). */
static void rescale(mpz_t z, int from, int to)
{
    if (to > from) {
        mpz_t f;
        mpz_init(f);
        mpz_ui_pow_ui(f, 10, (unsigned long)(to - from));
        mpz_mul(z, z, f);
        mpz_clear(f);
    } else {
        div_pow10_half_up(z, (unsigned)(from - to));
    }
}

/* Whether |z| < 10^p. */
static bool fits(const mpz_t z, int p)
{
    mpz_t b, a;
    mpz_inits(b, a, NULL);
    mpz_ui_pow_ui(b, 10, (unsigned long)p);
    mpz_abs(a, z);
    bool ok = mpz_cmp(a, b) < 0;
    mpz_clears(b, a, NULL);
    return ok;
}

/* ---- Flink's result types (LogicalTypeMerging), again -------------------------------- */

typedef struct dtype {
    int p, s;
} dtype;

static dtype adjust(int p, int s)
{
    if (p <= 38)
        return (dtype){p, s};
    int digits = p - s, min_scale = s < 6 ? s : 6, scale = 38 - digits;
    return (dtype){38, scale > min_scale ? scale : min_scale};
}

static dtype result_type(char op, dtype a, dtype b)
{
    int max_s = a.s > b.s ? a.s : b.s;
    switch (op) {
    case '+':
    case '-': {
        int d = a.p - a.s > b.p - b.s ? a.p - a.s : b.p - b.s;
        return adjust(d + max_s + 1, max_s);
    }
    case '*': return adjust(a.p + b.p + 1, a.s + b.s);
    case '/': {
        int s = a.s + b.p + 1 > 6 ? a.s + b.p + 1 : 6;
        return adjust(a.p - a.s + b.s + s, s);
    }
    default: {
        int d = a.p - a.s < b.p - b.s ? a.p - a.s : b.p - b.s;
        return adjust(d + max_s, max_s);
    }
    }
}

/* ---- the expected results ------------------------------------------------------------ */

/* a op b (unscaled, scales sa and sb) as DECIMAL(t): false for NULL. */
static bool expected(char op, const mpz_t a, int sa, const mpz_t b, int sb, dtype t, mpz_t out)
{
    int m = sa > sb ? sa : sb;
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    mpz_set(x, a);
    mpz_set(y, b);
    rescale(x, sa, m);
    rescale(y, sb, m);
    switch (op) {
    case '+': mpz_add(out, x, y); rescale(out, m, t.s); break;
    case '-': mpz_sub(out, x, y); rescale(out, m, t.s); break;
    case '*':
        mpz_mul(out, a, b);
        rescale(out, sa + sb, t.s);
        break;
    case '%':
        mpz_tdiv_r(out, x, y); /* the dividend's sign, BigDecimal.remainder */
        rescale(out, m, t.s);
        break;
    case '/': {
        if (mpz_sgn(a) == 0) {
            mpz_set_ui(out, 0);
            break;
        }
        /* q = a / b exactly, as a rational; its leading digit's place E
         * (10^E <= |q| < 10^(E+1)); rounded to 38 significant digits, then
         * to the scale. */
        mpq_t q, p10, aq;
        mpq_inits(q, p10, aq, NULL);
        mpq_set_num(q, x);
        mpq_set_den(q, y);
        mpz_abs(mpq_numref(q), mpq_numref(q));
        mpz_abs(mpq_denref(q), mpq_denref(q));
        mpq_canonicalize(q);
        int E = 0;
        mpq_set_ui(p10, 1, 1);
        /* start from a guess, then walk */
        E = (int)mpz_sizeinbase(mpq_numref(q), 10) - (int)mpz_sizeinbase(mpq_denref(q), 10);
        for (;;) {
            mpz_t pw;
            mpz_init(pw);
            mpz_ui_pow_ui(pw, 10, (unsigned long)(E < 0 ? -E : E));
            if (E >= 0) {
                mpq_set_z(p10, pw);
            } else {
                mpq_set_ui(p10, 1, 1);
                mpz_set(mpq_denref(p10), pw);
                mpq_canonicalize(p10);
            }
            mpz_clear(pw);
            if (mpq_cmp(q, p10) < 0) {
                E--;
                continue;
            }
            /* q >= 10^E: is q < 10^(E+1)? */
            mpq_t next;
            mpq_init(next);
            mpz_t ten;
            mpz_init_set_ui(ten, 10);
            mpq_set_z(next, ten);
            mpq_mul(next, next, p10);
            bool below = mpq_cmp(q, next) < 0;
            mpq_clear(next);
            mpz_clear(ten);
            if (below)
                break;
            E++;
        }
        /* k = q * 10^(37 - E), an exact rational; its integer rounded
         * HALF_UP is the 38 digits, scale 37 - E */
        int sc = 37 - E;
        mpz_t num, den, pw;
        mpz_inits(num, den, pw, NULL);
        mpz_set(num, mpq_numref(q));
        mpz_set(den, mpq_denref(q));
        mpz_ui_pow_ui(pw, 10, (unsigned long)(sc < 0 ? -sc : sc));
        if (sc >= 0)
            mpz_mul(num, num, pw);
        else
            mpz_mul(den, den, pw);
        mpz_t qi, r, twice;
        mpz_inits(qi, r, twice, NULL);
        mpz_tdiv_qr(qi, r, num, den);
        mpz_mul_2exp(twice, r, 1);
        if (mpz_cmp(twice, den) >= 0)
            mpz_add_ui(qi, qi, 1);
        if ((mpz_sgn(a) < 0) != (mpz_sgn(b) < 0))
            mpz_neg(qi, qi);
        mpz_set(out, qi);
        rescale(out, sc, t.s);
        mpz_clears(num, den, pw, qi, r, twice, NULL);
        mpq_clears(q, p10, aq, NULL);
        break;
    }
    }
    mpz_clears(x, y, NULL);
    return fits(out, t.p);
}

/* ---- random operands ----------------------------------------------------------------- */

static unsigned seed = 39;

static uint64_t rnd(void)
{
    return (uint64_t)rand_r(&seed) << 33 ^ (uint64_t)rand_r(&seed) << 11 ^ (uint64_t)rand_r(&seed);
}

static dtype random_type(void)
{
    int p = 1 + (int)(rnd() % 38);
    int s = (int)(rnd() % (uint64_t)(p + 1));
    return (dtype){p, s};
}

/* A value of DECIMAL(t): up to p digits, often fewer, sometimes the
 * extreme, sometimes ending in 5 (a rounding's tie), sometimes 0. */
static weir__i128 random_value(dtype t)
{
    int kind = (int)(rnd() % 8);
    weir__i128 max = weir__dec_pow10(t.p) - 1;
    if (kind == 0)
        return 0;
    if (kind == 1)
        return rnd() % 2 ? max : -max;
    int digits = 1 + (int)(rnd() % (uint64_t)t.p);
    weir__i128 v = 0;
    for (int i = 0; i < digits; i++)
        v = v * 10 + (weir__i128)(rnd() % 10);
    if (kind == 2)
        v = v - v % 10 + 5 < max ? v - v % 10 + 5 : v;
    return rnd() % 2 ? -v : v;
}

static void expect_same(const char *what, weir__i128 got, int r, const mpz_t want, bool ok,
                        weir__i128 a, dtype ta, weir__i128 b, dtype tb, dtype t)
{
    char sa[64], sb[64], sg[64];
    weir__dec_format(a, ta.s, false, sa, sizeof sa);
    weir__dec_format(b, tb.s, false, sb, sizeof sb);
    weir__dec_format(got, t.s, false, sg, sizeof sg);
    char *w = mpz_get_str(NULL, 10, want);
    cr_assert_eq(r == 0, ok, "%s of %s (%d,%d) and %s (%d,%d) into (%d,%d): %s, expected %s",
                 what, sa, ta.p, ta.s, sb, tb.p, tb.s, t.p, t.s, r == 0 ? "a value" : "NULL",
                 ok ? "a value" : "NULL");
    if (ok) {
        mpz_t g;
        mpz_init(g);
        to_mpz(g, got);
        cr_assert_eq(mpz_cmp(g, want), 0,
                     "%s of %s (%d,%d) and %s (%d,%d) into (%d,%d): %s, unscaled %s expected",
                     what, sa, ta.p, ta.s, sb, tb.p, tb.s, t.p, t.s, sg, w);
        mpz_clear(g);
    }
    free(w);
}

static void property(char op, int n)
{
    mpz_t za, zb, want;
    mpz_inits(za, zb, want, NULL);
    for (int i = 0; i < n; i++) {
        dtype ta = random_type(), tb = random_type();
        weir__i128 a = random_value(ta), b = random_value(tb);
        if ((op == '/' || op == '%') && b == 0)
            b = 1;
        dtype t = result_type(op, ta, tb);
        to_mpz(za, a);
        to_mpz(zb, b);
        bool ok = expected(op, za, ta.s, zb, tb.s, t, want);
        weir__i128 got = 0;
        int r = weir__dec_arith(op, a, ta.s, b, tb.s, t.p, t.s, &got);
        cr_assert_neq(r, -1);
        char what[2] = {op, 0};
        expect_same(what, got, r, want, ok, a, ta, b, tb, t);
    }
    mpz_clears(za, zb, want, NULL);
}

Test(decimal, addition_against_gmp) { property('+', 20000); }
Test(decimal, subtraction_against_gmp) { property('-', 20000); }
Test(decimal, multiplication_against_gmp) { property('*', 20000); }
Test(decimal, division_against_gmp) { property('/', 5000); }
Test(decimal, remainder_against_gmp) { property('%', 5000); }

/* CAST(a AS DECIMAL(p, s)): HALF_UP to the new scale, NULL past p digits. */
Test(decimal, rescaling_against_gmp)
{
    mpz_t z;
    mpz_init(z);
    for (int i = 0; i < 20000; i++) {
        dtype ta = random_type(), t = random_type();
        weir__i128 a = random_value(ta), got = 0;
        to_mpz(z, a);
        rescale(z, ta.s, t.s);
        bool ok = fits(z, t.p);
        bool r = weir__dec_rescale(a, ta.s, t.s, t.p, &got);
        expect_same("CAST", got, r ? 0 : 1, z, ok, a, ta, 0, (dtype){1, 0}, t);
    }
    mpz_clear(z);
}

/* Comparisons of two scales, exact (10^38 scales up past 128 bits). */
Test(decimal, comparison_against_gmp)
{
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    for (int i = 0; i < 20000; i++) {
        dtype ta = random_type(), tb = random_type();
        weir__i128 a = random_value(ta), b = random_value(tb);
        if (i % 4 == 0)
            weir__dec_rescale(a, ta.s, tb.s, 38, &b); /* sometimes equal values */
        to_mpz(x, a);
        to_mpz(y, b);
        int m = ta.s > tb.s ? ta.s : tb.s;
        rescale(x, ta.s, m);
        rescale(y, tb.s, m);
        int want = mpz_cmp(x, y);
        want = want < 0 ? -1 : want > 0;
        cr_assert_eq(weir__dec_compare(a, ta.s, b, tb.s), want);
    }
    mpz_clears(x, y, NULL);
}

/* Text: the plain form back to the same value; BigDecimal's toString. */
Test(decimal, text_both_ways)
{
    for (int i = 0; i < 20000; i++) {
        dtype t = random_type();
        weir__i128 a = random_value(t), back = 1;
        char buf[64];
        int n = weir__dec_format(a, t.s, false, buf, sizeof buf);
        cr_assert_eq(weir__dec_parse(buf, (size_t)n, t.p, t.s, &back), 0, "%s", buf);
        cr_assert(back == a, "%s", buf);
        /* GMP's digits are the same */
        mpz_t z;
        mpz_init(z);
        to_mpz(z, a);
        char *digits = mpz_get_str(NULL, 10, z);
        char stripped[64];
        int k = 0;
        for (const char *c = buf; *c; c++)
            if (*c != '.')
                stripped[k++] = *c;
        stripped[k] = 0;
        /* "-0.05" is "-005" without the point: drop leading zeros */
        const char *s = stripped;
        bool neg = *s == '-';
        s += neg;
        while (s[0] == '0' && s[1])
            s++;
        char norm[64];
        snprintf(norm, sizeof norm, "%s%s", neg && strcmp(s, "0") ? "-" : "", s);
        cr_assert_str_eq(norm, digits, "%s", buf);
        free(digits);
        mpz_clear(z);
    }
    static const struct { const char *in; int p, s; const char *plain, *java; } cases[] = {
        {"1.5", 2, 1, "1.5", "1.5"},
        {"-0.05", 3, 2, "-0.05", "-0.05"},
        {"0.00000001", 10, 8, "0.00000001", "1E-8"},
        {"0.0000012", 10, 8, "0.00000120", "0.00000120"},
        {"0.0000001200", 12, 10, "0.0000001200", "1.200E-7"},
        {"12.345", 5, 2, "12.35", "12.35"},
        {"-12.345", 5, 2, "-12.35", "-12.35"},
        {"1e2", 5, 1, "100.0", "100.0"},
        {"  7 ", 3, 0, "7", "7"},
        {"99999999999999999999999999999999999999", 38, 0,
         "99999999999999999999999999999999999999", "99999999999999999999999999999999999999"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir__i128 v;
        cr_assert_eq(weir__dec_parse(cases[i].in, strlen(cases[i].in), cases[i].p, cases[i].s, &v),
                     0, "%s", cases[i].in);
        char buf[64];
        weir__dec_format(v, cases[i].s, false, buf, sizeof buf);
        cr_expect_str_eq(buf, cases[i].plain);
        weir__dec_format(v, cases[i].s, true, buf, sizeof buf);
        cr_expect_str_eq(buf, cases[i].java);
    }
    weir__i128 v;
    cr_assert_eq(weir__dec_parse("123.45", 6, 4, 2, &v), 1, "5 digits into DECIMAL(4, 2)");
    cr_assert_eq(weir__dec_parse("99.995", 6, 4, 2, &v), 1, "rounds up to 100.00");
    cr_assert_eq(weir__dec_parse("abc", 3, 4, 2, &v), -1);
    cr_assert_eq(weir__dec_parse("1.2.3", 5, 4, 2, &v), -1);
    cr_assert_eq(weir__dec_parse("", 0, 4, 2, &v), -1);
}

/* Numbers: a double through Java's Double.toString digits (0.1 is 0.1,
 * HALF_UP from there), NaN refused; to a double as Flink divides; to a
 * long truncated and wrapped as BigDecimal.longValue. */
Test(decimal, numbers)
{
    weir__i128 v;
    cr_assert_eq(weir__dec_from_double(0.1, 10, 5, &v), 0);
    cr_assert(v == 10000);
    cr_assert_eq(weir__dec_from_double(0.125, 3, 2, &v), 0);
    cr_assert(v == 13, "HALF_UP from the digits 0.125");
    cr_assert_eq(weir__dec_from_double(-2.5, 2, 0, &v), 0);
    cr_assert(v == -3);
    cr_assert_eq(weir__dec_from_double(1e20, 10, 0, &v), 1, "overflow: NULL");
    cr_assert_eq(weir__dec_from_double(0.0 / 0.0, 10, 0, &v), -1);
    cr_assert_eq(weir__dec_to_double(12345, 2), 123.45);
    cr_assert_eq(weir__dec_to_double(weir__dec_pow10(38) - 1, 0), 1e38);
    cr_assert_eq(weir__dec_to_long(-1299, 2), -12);
    cr_assert_eq(weir__dec_to_long(weir__dec_pow10(20) + 5, 0), (int64_t)(uint64_t)(weir__u128)(weir__dec_pow10(20) + 5));
}
