/* decimal.c — DECIMAL(p, s) arithmetic (decimal.h): exact, HALF_UP, NULL
 * on overflow, as Flink's DecimalDataUtils.
 *
 * Values are unscaled 128-bit integers. The operations that need more
 * room — a product of two 38-digit numbers, operands aligned to a common
 * scale, a quotient's dividend shifted left — work on 256-bit magnitudes
 * (four 64-bit words) with a sign beside them: 10^77 > 2^255 is the most
 * any of them reaches, as the bounds below show. Rounding is HALF_UP,
 * which looks at the first digit dropped only. */
#include "decimal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"
#include "util.h"

weir__i128 weir__dec_pow10(int n)
{
    if (n <= 19)
        return (weir__i128)weir__pow10_u64(n);
    return (weir__i128)weir__pow10_u64(19) * (weir__i128)weir__pow10_u64(n - 19);
}

static weir__u128 mag128(weir__i128 x)
{
    return x < 0 ? (weir__u128)0 - (weir__u128)x : (weir__u128)x;
}

bool weir__dec_fits(weir__i128 x, int p)
{
    return mag128(x) < (weir__u128)weir__dec_pow10(p);
}

/* ---- 256-bit magnitudes ------------------------------------------------------------ */

typedef struct u256 {
    uint64_t w[4]; /* little-endian words */
} u256;

static u256 u256_of(weir__u128 x)
{
    return (u256){{(uint64_t)x, (uint64_t)(x >> 64), 0, 0}};
}

static bool u256_fits128(const u256 *a)
{
    return a->w[2] == 0 && a->w[3] == 0;
}

static weir__u128 u256_low128(const u256 *a)
{
    return (weir__u128)a->w[1] << 64 | a->w[0];
}

static int u256_cmp(const u256 *a, const u256 *b)
{
    for (int i = 3; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

static bool u256_zero(const u256 *a)
{
    return !(a->w[0] | a->w[1] | a->w[2] | a->w[3]);
}

static u256 u256_add(u256 a, const u256 *b)
{
    weir__u128 carry = 0;
    for (int i = 0; i < 4; i++) {
        weir__u128 s = (weir__u128)a.w[i] + b->w[i] + carry;
        a.w[i] = (uint64_t)s;
        carry = s >> 64;
    }
    return a;
}

/* a - b, a >= b */
static u256 u256_sub(u256 a, const u256 *b)
{
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t x = a.w[i], y = b->w[i];
        uint64_t d = x - y - borrow;
        borrow = (x < y) || (x == y && borrow) ? 1 : 0;
        a.w[i] = d;
    }
    return a;
}

static u256 u256_mul64(u256 a, uint64_t m)
{
    weir__u128 carry = 0;
    for (int i = 0; i < 4; i++) {
        weir__u128 p = (weir__u128)a.w[i] * m + carry;
        a.w[i] = (uint64_t)p;
        carry = p >> 64;
    }
    return a;
}

static u256 u256_mul128(weir__u128 x, weir__u128 y)
{
    const uint64_t a[2] = {(uint64_t)x, (uint64_t)(x >> 64)};
    const uint64_t b[2] = {(uint64_t)y, (uint64_t)(y >> 64)};
    u256 r = {{0, 0, 0, 0}};
    for (int i = 0; i < 2; i++) {
        weir__u128 carry = 0;
        for (int j = 0; j < 2; j++) {
            weir__u128 p = (weir__u128)a[i] * b[j] + r.w[i + j] + carry;
            r.w[i + j] = (uint64_t)p;
            carry = p >> 64;
        }
        r.w[i + 2] = (uint64_t)carry;
    }
    return r;
}

/* a / d in place, the remainder returned. */
static uint64_t u256_div64(u256 *a, uint64_t d)
{
    weir__u128 r = 0;
    for (int i = 3; i >= 0; i--) {
        weir__u128 cur = r << 64 | a->w[i];
        a->w[i] = (uint64_t)(cur / d);
        r = cur % d;
    }
    return (uint64_t)r;
}

static u256 u256_shl1(u256 a)
{
    for (int i = 3; i > 0; i--)
        a.w[i] = a.w[i] << 1 | a.w[i - 1] >> 63;
    a.w[0] <<= 1;
    return a;
}

/* n / d (d not 0), the remainder into *rem: binary long division. */
static u256 u256_divmod(const u256 *n, const u256 *d, u256 *rem)
{
    u256 q = {{0, 0, 0, 0}}, r = {{0, 0, 0, 0}};
    for (int bit = 255; bit >= 0; bit--) {
        r = u256_shl1(r);
        r.w[0] |= (n->w[bit / 64] >> (bit % 64)) & 1;
        if (u256_cmp(&r, d) >= 0) {
            r = u256_sub(r, d);
            q.w[bit / 64] |= 1ULL << (bit % 64);
        }
    }
    if (rem)
        *rem = r;
    return q;
}

/* a times 10^k (the caller keeps it within 256 bits). */
static u256 u256_scale_up(u256 a, int k)
{
    while (k > 0) {
        int step = k > 19 ? 19 : k;
        a = u256_mul64(a, weir__pow10_u64(step));
        k -= step;
    }
    return a;
}

/* a divided by 10^k, HALF_UP (the first digit dropped decides). */
static u256 u256_scale_down(u256 a, int k)
{
    if (k <= 0)
        return a;
    while (k > 1) {
        int step = k - 1 > 19 ? 19 : k - 1;
        u256_div64(&a, weir__pow10_u64(step));
        k -= step;
    }
    uint64_t last = u256_div64(&a, 10);
    if (last >= 5) {
        u256 one = u256_of(1);
        a = u256_add(a, &one);
    }
    return a;
}

/* Decimal digits of a (0 has 1). */
static int u256_digits(const u256 *a)
{
    u256 x = *a;
    int n = 0;
    while (!u256_zero(&x)) {
        u256_div64(&x, 10);
        n++;
    }
    return n ? n : 1;
}

/* A signed 256-bit value. */
typedef struct s256 {
    bool neg;
    u256 m;
} s256;

static s256 s256_of(weir__i128 x)
{
    return (s256){x < 0, u256_of(mag128(x))};
}

static s256 s256_add(s256 a, s256 b)
{
    if (a.neg == b.neg)
        return (s256){a.neg, u256_add(a.m, &b.m)};
    if (u256_cmp(&a.m, &b.m) >= 0)
        return (s256){a.neg, u256_sub(a.m, &b.m)};
    return (s256){b.neg, u256_sub(b.m, &a.m)};
}

/* x (scale `from`) into DECIMAL(p, to): false on overflow. */
static bool s256_finish(s256 x, int from, int to, int p, weir__i128 *out)
{
    u256 m;
    if (to > from) {
        /* exact: within p digits only if x is within p - k of them */
        int k = to - from;
        if (!u256_fits128(&x.m))
            return false;
        weir__u128 u = u256_low128(&x.m);
        if (k > p ? u != 0 : u >= (weir__u128)weir__dec_pow10(p - k))
            return false;
        m = u256_of(u * (weir__u128)weir__dec_pow10(k > p ? 0 : k));
    } else {
        m = u256_scale_down(x.m, from - to);
    }
    if (!u256_fits128(&m))
        return false;
    weir__u128 u = u256_low128(&m);
    if (u >= (weir__u128)weir__dec_pow10(p))
        return false;
    *out = x.neg ? -(weir__i128)u : (weir__i128)u;
    return true;
}

bool weir__dec_rescale(weir__i128 x, int from, int to, int p, weir__i128 *out)
{
    if (from == to) {
        if (!weir__dec_fits(x, p))
            return false;
        *out = x;
        return true;
    }
    if (to < from && from - to <= 38) {
        /* the common case, in 128 bits: drop digits, HALF_UP */
        weir__u128 m = mag128(x), d = (weir__u128)weir__dec_pow10(from - to - 1);
        weir__u128 q = m / d;
        weir__u128 r = q % 10;
        q = q / 10 + (r >= 5);
        if (q >= (weir__u128)weir__dec_pow10(p))
            return false;
        *out = x < 0 ? -(weir__i128)q : (weir__i128)q;
        return true;
    }
    return s256_finish(s256_of(x), from, to, p, out);
}

int weir__dec_compare(weir__i128 a, int sa, weir__i128 b, int sb)
{
    if (sa == sb)
        return a < b ? -1 : a > b;
    if ((a < 0) != (b < 0))
        return a < 0 ? -1 : 1;
    int s = sa > sb ? sa : sb;
    u256 x = u256_scale_up(u256_of(mag128(a)), s - sa), y = u256_scale_up(u256_of(mag128(b)), s - sb);
    int c = u256_cmp(&x, &y);
    return a < 0 ? -c : c;
}

/* |a| / |b| rounded to 38 significant digits HALF_UP (Java's
 * MathContext(38, HALF_UP)), as a magnitude at the scale *scale. */
static u256 divide38(weir__u128 a, int sa, weir__u128 b, int sb, int *scale)
{
    /* The quotient q = a / b * 10^(sb - sa) truncated at scale t, with t
     * chosen so that it has 39 digits (one past the 38 kept): 39 digits
     * times b's 38 stay within 10^77 < 2^256. */
    int da = u256_digits(&(u256){{(uint64_t)a, (uint64_t)(a >> 64), 0, 0}});
    int db = u256_digits(&(u256){{(uint64_t)b, (uint64_t)(b >> 64), 0, 0}});
    int t = 38 - (da - db) + (sa - sb) + 1;
    for (int tries = 0; tries < 3; tries++) {
        int e = t + sb - sa; /* q_t = a * 10^e / b */
        u256 n = u256_of(a), d = u256_of(b);
        if (e >= 0)
            n = u256_scale_up(n, e);
        else
            d = u256_scale_up(d, -e);
        u256 q = u256_divmod(&n, &d, NULL);
        int nd = u256_digits(&q);
        if (nd == 39 || tries == 2) {
            *scale = t - 1;
            return u256_scale_down(q, 1);
        }
        t += 39 - nd;
    }
    *scale = t;
    return u256_of(0);
}

int weir__dec_arith(char op, weir__i128 a, int sa, weir__i128 b, int sb, int p, int s,
                    weir__i128 *out)
{
    switch (op) {
    case '+':
    case '-': {
        if (op == '-')
            b = -b;
        if (sa == sb && sa == s) {
            /* |a|, |b| < 10^38: the sum stays within 128 bits */
            weir__i128 r = a + b;
            if (!weir__dec_fits(r, p))
                return 1;
            *out = r;
            return 0;
        }
        int m = sa > sb ? sa : sb;
        s256 x = s256_of(a), y = s256_of(b);
        x.m = u256_scale_up(x.m, m - sa);
        y.m = u256_scale_up(y.m, m - sb);
        return s256_finish(s256_add(x, y), m, s, p, out) ? 0 : 1;
    }
    case '*': {
        weir__u128 ma = mag128(a), mb = mag128(b);
        bool neg = (a < 0) != (b < 0);
        if (ma < ((weir__u128)1 << 63) && mb < ((weir__u128)1 << 63)) {
            /* two 18-digit operands: the product fits 128 bits */
            weir__i128 r = (weir__i128)(ma * mb);
            return weir__dec_rescale(neg ? -r : r, sa + sb, s, p, out) ? 0 : 1;
        }
        s256 x = {neg, u256_mul128(ma, mb)};
        return s256_finish(x, sa + sb, s, p, out) ? 0 : 1;
    }
    case '/': {
        if (b == 0)
            return -1;
        if (a == 0) {
            *out = 0;
            return 0;
        }
        int qs;
        u256 q = divide38(mag128(a), sa, mag128(b), sb, &qs);
        s256 x = {(a < 0) != (b < 0), q};
        /* then to the result's scale, HALF_UP again (setScale) */
        return s256_finish(x, qs, s, p, out) ? 0 : 1;
    }
    case '%': {
        if (b == 0)
            return -1;
        /* exactly: a - b * trunc(a / b), at the larger scale, the
         * dividend's sign (BigDecimal.remainder) */
        int m = sa > sb ? sa : sb;
        u256 x = u256_scale_up(u256_of(mag128(a)), m - sa);
        u256 y = u256_scale_up(u256_of(mag128(b)), m - sb);
        u256 r;
        u256_divmod(&x, &y, &r);
        return s256_finish((s256){a < 0, r}, m, s, p, out) ? 0 : 1;
    }
    }
    return -1;
}

/* ---- numbers and text ---------------------------------------------------------------- */

double weir__dec_to_double(weir__i128 x, int scale)
{
    if (x >= INT64_MIN && x <= INT64_MAX && scale <= 18)
        return (double)(int64_t)x / (double)weir__pow10_u64(scale); /* as Flink's compact case */
    char buf[64];
    weir__dec_format(x, scale, false, buf, sizeof buf);
    return strtod(buf, NULL); /* correctly rounded: BigDecimal.doubleValue */
}

int weir__dec_from_double(double d, int p, int s, weir__i128 *out)
{
    if (!isfinite(d))
        return -1;
    char buf[48];
    int n = weir__format_double(d, buf, sizeof buf);
    return weir__dec_parse(buf, (size_t)n, p, s, out);
}

int64_t weir__dec_to_long(weir__i128 x, int scale)
{
    weir__i128 q = x / weir__dec_pow10(scale); /* toward zero */
    return (int64_t)(uint64_t)(weir__u128)q;
}

int weir__dec_parse(const char *text, size_t len, int p, int s, weir__i128 *out)
{
    const char *c = text, *e = text + len;
    while (c < e && isspace((unsigned char)*c))
        c++;
    while (e > c && isspace((unsigned char)e[-1]))
        e--;
    bool neg = false;
    if (c < e && (*c == '+' || *c == '-'))
        neg = *c++ == '-';
    /* The significant digits (leading zeros aside), at most 77, into a
     * 256-bit magnitude (10^77 < 2^256). More cannot matter: a value that
     * fits a DECIMAL has its rounding digit within its first 77 (38
     * whole digits, 38 of fraction and one more); a whole digit past them
     * only makes the value 10 times larger (an overflow). */
    u256 m = u256_of(0);
    int ndig = 0, nfrac = 0, total = 0;
    bool point = false;
    for (; c < e; c++) {
        if (*c == '.' && !point) {
            point = true;
            continue;
        }
        if (!isdigit((unsigned char)*c))
            break;
        total++;
        if (ndig == 0 && *c == '0') {
            nfrac += point;
            continue;
        }
        if (ndig < 77) {
            m = u256_add(u256_mul64(m, 10), &(u256){{(uint64_t)(*c - '0'), 0, 0, 0}});
            ndig++;
            nfrac += point;
        } else if (!point) {
            nfrac--;
        }
    }
    if (total == 0)
        return -1;
    long exp = 0;
    if (c < e && (*c == 'e' || *c == 'E')) {
        c++;
        bool eneg = false;
        if (c < e && (*c == '+' || *c == '-'))
            eneg = *c++ == '-';
        if (c == e || !isdigit((unsigned char)*c))
            return -1;
        for (; c < e && isdigit((unsigned char)*c); c++)
            if (exp < 100000)
                exp = exp * 10 + (*c - '0');
        if (eneg)
            exp = -exp;
    }
    if (c != e)
        return -1;
    /* value = m * 10^(exp - nfrac) */
    long scale = (long)nfrac - exp;
    if (u256_zero(&m)) {
        *out = 0;
        return 0;
    }
    if (scale > s) {
        if (scale - s > 80) {
            *out = 0; /* rounds to 0 */
            return 0;
        }
        m = u256_scale_down(m, (int)(scale - s));
    } else {
        if (s - scale + ndig > 77)
            return 1;
        m = u256_scale_up(m, (int)(s - scale));
    }
    if (!u256_fits128(&m) || u256_low128(&m) >= (weir__u128)weir__dec_pow10(p))
        return 1;
    weir__u128 u = u256_low128(&m);
    *out = neg ? -(weir__i128)u : (weir__i128)u;
    return 0;
}

int weir__dec_format(weir__i128 x, int scale, bool java, char *buf, size_t size)
{
    char dig[48];
    weir__u128 m = mag128(x);
    int n = 0;
    do {
        dig[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    /* dig holds the digits least significant first */
    char out[96];
    int k = 0;
    if (x < 0)
        out[k++] = '-';
    int adjusted = n - 1 - scale;
    if (java && scale > 0 && adjusted < -6) {
        /* BigDecimal.toString: d.ddd E-x */
        out[k++] = dig[n - 1];
        if (n > 1) {
            /* every digit of the unscaled value, as toString keeps them */
            out[k++] = '.';
            for (int i = n - 2; i >= 0; i--)
                out[k++] = dig[i];
        }
        k += snprintf(out + k, sizeof out - (size_t)k, "E%d", adjusted);
        return snprintf(buf, size, "%.*s", k, out);
    }
    if (scale == 0) {
        for (int i = n - 1; i >= 0; i--)
            out[k++] = dig[i];
    } else if (n > scale) {
        for (int i = n - 1; i >= scale; i--)
            out[k++] = dig[i];
        out[k++] = '.';
        for (int i = scale - 1; i >= 0; i--)
            out[k++] = dig[i];
    } else {
        out[k++] = '0';
        out[k++] = '.';
        for (int i = scale; i > n; i--)
            out[k++] = '0';
        for (int i = n - 1; i >= 0; i--)
            out[k++] = dig[i];
    }
    return snprintf(buf, size, "%.*s", k, out);
}
