/* decimal.h — DECIMAL(p, s) values and their exact arithmetic, as Flink's
 * DecimalData / DecimalDataUtils compute them (decimal.c). Private to the
 * table layer.
 *
 * A value is its unscaled integer (the value times 10^s) with the scale
 * kept by its type: an int64 for p <= 18, a 128-bit two's complement
 * number for 18 < p <= 38 (|v| < 10^38 < 2^127). Arithmetic works on
 * gcc's __int128 and, where an exact intermediate needs more (a product of
 * two 38-digit numbers, an operand aligned 38 digits to the left), on
 * 256-bit magnitudes: nothing is allocated, nothing is approximate.
 * Results are rounded HALF_UP to their type's scale (BigDecimal's
 * setScale(s, HALF_UP)); one that then has more than p digits is NULL,
 * as Flink's DecimalData.fromBigDecimal makes it. Division first rounds
 * the quotient to 38 significant digits (Java's MathContext(38, HALF_UP),
 * Flink's DecimalDataUtils.divide), then to the scale. */
#ifndef WEIR_TABLE_DECIMAL_H
#define WEIR_TABLE_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/function.h"

__extension__ typedef __int128 weir__i128;
__extension__ typedef unsigned __int128 weir__u128;

#define WEIR__DECIMAL_MAX_PRECISION 38

/* The unscaled value of v (i the low 64 bits, hi the high), and back. */
static inline weir__i128 weir__dec_get(const weir_value *v)
{
    return (weir__i128)(((weir__u128)(uint64_t)v->hi << 64) | (uint64_t)v->i);
}

static inline void weir__dec_set(weir_value *v, weir__i128 x)
{
    v->i = (int64_t)(uint64_t)(weir__u128)x;
    v->hi = (int64_t)(uint64_t)((weir__u128)x >> 64);
}

/* 10^n for n in 0..38. */
weir__i128 weir__dec_pow10(int n);

/* Whether x has at most p digits. */
bool weir__dec_fits(weir__i128 x, int p);

/* x (scale `from`) at scale `to` (HALF_UP when digits go): false when it
 * has more than p digits there (Flink: NULL). */
bool weir__dec_rescale(weir__i128 x, int from, int to, int p, weir__i128 *out);

/* a op b (scales sa, sb) into a DECIMAL(p, s): 0, 1 for NULL (overflow),
 * or -1 for a division by zero. op is '+', '-', '*', '/', '%'. */
int weir__dec_arith(char op, weir__i128 a, int sa, weir__i128 b, int sb, int p, int s,
                    weir__i128 *out);

/* -1, 0, 1: a (scale sa) against b (scale sb), exactly. */
int weir__dec_compare(weir__i128 a, int sa, weir__i128 b, int sb);

/* The value as a double (Flink's DecimalDataUtils.doubleValue). */
double weir__dec_to_double(weir__i128 x, int scale);
/* A double as DECIMAL(p, s), through Java's Double.toString digits
 * (BigDecimal.valueOf): 0, 1 for NULL (overflow), -1 for NaN or an
 * infinity (Java's "Infinite or NaN"). */
int weir__dec_from_double(double d, int p, int s, weir__i128 *out);
/* Truncated toward zero, its low 64 bits (BigDecimal.longValue). */
int64_t weir__dec_to_long(weir__i128 x, int scale);

/* Text: [space][sign]digits[.digits][e[sign]digits][space] as DECIMAL(p, s)
 * (HALF_UP): 0, 1 for overflow, -1 for text that is no number. */
int weir__dec_parse(const char *text, size_t len, int p, int s, weir__i128 *out);
/* The plain text (BigDecimal.toPlainString: s digits after the point), or
 * (java) BigDecimal.toString's (1E-8 where the exponent is below -6). */
int weir__dec_format(weir__i128 x, int scale, bool java, char *buf, size_t size);

#endif
