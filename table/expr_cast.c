/* expr_cast.c — CAST, as Flink casts: which casts the binder allows
 * (LogicalTypeCasts.supportsExplicitCast, and the refusals of Flink's cast
 * rules with their messages), and a value converted from one type into
 * another on the evaluator's side (Flink's cast rules in
 * org.apache.flink.table.planner.functions.casting and the runtime
 * methods they call: BinaryStringDataUtil's string parsers, Java's
 * narrowing casts, Float.toString ...).
 *
 * Numbers convert as Java does: an integer into a narrower one wraps
 * ((byte) 300 is 44); a FLOAT or DOUBLE into an integer truncates toward
 * zero and saturates at INT's (for TINYINT, SMALLINT, INT: Java's
 * (byte) (int) d) or BIGINT's range, NaN is 0; into a FLOAT rounds to the
 * nearest. A string into a number is parsed as Flink parses it and a
 * string that is not one fails the row with Flink's message ("For input
 * string: 'x'. Invalid character found."), the value and the column
 * named; TRY_CAST makes that NULL instead. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "civil.h"
#include "decimal.h"
#include "expr_tree.h"
#include "weir/error.h"

/* ---- which casts ------------------------------------------------------------------- */

bool weir__cast_allowed(weir_type from, weir_type to, char *why, size_t size)
{
    weir_type_id f = from.id, t = to.id;
    if (f == t || f == WEIR_TYPE_NULL)
        return true;
    /* binary strings: among themselves and with character strings (their
     * UTF-8 bytes), as Flink's BINARY / VARBINARY casts */
    if (weir__type_is_binary(f) || weir__type_is_binary(t)) {
        if (weir__type_is_var(f) && weir__type_is_var(t))
            return true;
    } else if (weir__type_is_string(f) || weir__type_is_string(t)) {
        /* every predefined type has a text, and a text may hold any */
        return !weir__type_is_interval(f) && !weir__type_is_interval(t);
    }
    if (weir__type_is_numeric(f) && weir__type_is_numeric(t))
        return true;
    if ((f == WEIR_TYPE_BOOLEAN && weir__type_is_numeric(t)) ||
        (weir__type_is_numeric(f) && t == WEIR_TYPE_BOOLEAN))
        return true;
    /* the datetimes: a DATE from and to a timestamp, a TIME from and to
     * a timestamp and another TIME, a timestamp from any of them */
    if (weir__type_is_time(t) && weir__type_is_datetime(f))
        return true;
    if ((t == WEIR_TYPE_DATE || t == WEIR_TYPE_TIME) && weir__type_is_time(f))
        return true;
    /* Flink's cast rules refuse these with their own words
     * (NumericToTimestampCastRule, TimestampToNumericCastRule). */
    if (weir__type_is_numeric(f) && t == WEIR_TYPE_TIMESTAMP) {
        snprintf(why, size, "The cast from NUMERIC type to TIMESTAMP type is not allowed. It's "
                 "recommended to use TO_TIMESTAMP(FROM_UNIXTIME(numeric_col)) instead, note the "
                 "numeric is in seconds.");
        return false;
    }
    if (weir__type_is_numeric(f) && t == WEIR_TYPE_TIMESTAMP_LTZ) {
        snprintf(why, size, "The cast from NUMERIC type to TIMESTAMP_LTZ type is not allowed. "
                 "It's recommended to use TO_TIMESTAMP_LTZ(numeric_col, precision) instead.");
        return false;
    }
    if (f == WEIR_TYPE_TIMESTAMP && weir__type_is_numeric(t)) {
        snprintf(why, size, "The cast from TIMESTAMP type to NUMERIC type is not allowed. It's "
                 "recommended to use UNIX_TIMESTAMP(CAST(timestamp_col AS STRING)) instead.");
        return false;
    }
    if (f == WEIR_TYPE_TIMESTAMP_LTZ && weir__type_is_numeric(t)) {
        snprintf(why, size, "The cast from TIMESTAMP_LTZ type to NUMERIC type is not allowed.");
        return false;
    }
    char a[48], b[48];
    weir_type fa = from, tb = to;
    fa.not_null = tb.not_null = false;
    weir_type_format(fa, a, sizeof a);
    weir_type_format(tb, b, sizeof b);
    snprintf(why, size, "cannot cast %s to %s", a, b);
    return false;
}

/* ---- numbers --------------------------------------------------------------------------- */

/* Java's (long) and (int) casts of a double: NaN is 0, beyond the range
 * saturates. */
static int64_t d2l(double d)
{
    if (d != d)
        return 0;
    if (d >= 9223372036854775807.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

static int64_t d2i(double d)
{
    if (d != d)
        return 0;
    if (d >= 2147483647.0)
        return INT32_MAX;
    if (d <= -2147483648.0)
        return INT32_MIN;
    return (int32_t)d;
}

/* A number x of type `from` as type `to` (both numeric or BOOLEAN), as
 * Java converts it, and a DECIMAL as Flink's DecimalDataUtils: into an
 * integer truncated toward zero and wrapped (castToIntegral, then Java's
 * narrowing), into a DOUBLE as doubleValue; a number into a DECIMAL
 * rounded HALF_UP to its scale (a double through its Double.toString
 * digits), NULL when it then has more digits than the precision. -1 for
 * NaN or an infinity into a DECIMAL (Java's "Infinite or NaN"), else 0. */
static int convert_number(weir_type ft, weir_type tt, const weir__val *x, weir__val *o)
{
    weir_type_id from = ft.id, to = tt.id;
    bool fa = weir__type_is_approx(from);
    if (to == WEIR_TYPE_DECIMAL) {
        int p = weir_type_precision(tt), s = tt.scale, r = 0;
        weir__i128 v = 0;
        if (from == WEIR_TYPE_DECIMAL)
            r = weir__dec_rescale(weir__dec_get(x), ft.scale, s, p, &v) ? 0 : 1;
        else if (fa)
            r = weir__dec_from_double(x->d, p, s, &v);
        else
            r = weir__dec_rescale((weir__i128)(from == WEIR_TYPE_BOOLEAN ? x->i != 0 : x->i), 0,
                                  s, p, &v) ? 0 : 1;
        if (r < 0)
            return -1;
        *o = (weir__val){.null = r > 0};
        weir__dec_set(o, v);
        return 0;
    }
    if (from == WEIR_TYPE_DECIMAL) {
        weir__i128 v = weir__dec_get(x);
        if (to == WEIR_TYPE_BOOLEAN)
            o->i = v != 0;
        else if (weir__type_is_approx(to))
            o->d = to == WEIR_TYPE_FLOAT ? (double)(float)weir__dec_to_double(v, ft.scale)
                                         : weir__dec_to_double(v, ft.scale);
        else
            o->i = weir__int_wrap(to, weir__dec_to_long(v, ft.scale));
        return 0;
    }
    if (to == WEIR_TYPE_BOOLEAN) {
        o->i = fa ? x->d != 0 : x->i != 0;
    } else if (to == WEIR_TYPE_DOUBLE) {
        o->d = fa ? x->d : (double)x->i;
    } else if (to == WEIR_TYPE_FLOAT) {
        o->d = fa ? (double)(float)x->d : (double)(float)x->i;
    } else if (to == WEIR_TYPE_BIGINT) {
        o->i = fa ? d2l(x->d) : x->i;
    } else {
        o->i = weir__int_wrap(to, fa ? d2i(x->d) : x->i);
    }
    return 0;
}

/* ---- dates and times ------------------------------------------------------------- */

#define MS_PER_DAY 86400000LL

/* A datetime x of type `from` as one of type `to` (Flink's cast rules for
 * DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ): a local date-time meets an
 * instant in `zone`; a timestamp's DATE is its day, its TIME its time of
 * day; a DATE is its midnight, a TIME on 1970-01-01; a precision lowered
 * cuts digits off (DateTimeUtils.truncate). */
static void convert_datetime(weir_type from, weir_type to, const weir__val *x, weir__val *o,
                             const weir_time_zone *zone)
{
    int64_t ms = x->i;
    int32_t nanos = weir__type_is_time(from.id) ? x->nanos : 0;
    /* first as a local date-time in ms (and nanos) */
    if (from.id == WEIR_TYPE_DATE)
        ms = x->i * MS_PER_DAY;
    else if (from.id == WEIR_TYPE_TIMESTAMP_LTZ && to.id != WEIR_TYPE_TIMESTAMP_LTZ)
        ms = x->i + weir_time_zone_offset(zone, x->i);
    /* then into the target */
    o->nanos = 0;
    switch (to.id) {
    case WEIR_TYPE_DATE: o->i = weir__floor_div(ms, MS_PER_DAY); break;
    case WEIR_TYPE_TIME: {
        int64_t t = from.id == WEIR_TYPE_TIME ? ms : weir__floor_mod(ms, MS_PER_DAY);
        int32_t no = 0;
        if (weir_type_precision(to) < 3)
            weir__timestamp_truncate(&t, &no, weir_type_precision(to));
        o->i = t;
        break;
    }
    default: /* TIMESTAMP, TIMESTAMP_LTZ */
        if (to.id == WEIR_TYPE_TIMESTAMP_LTZ && from.id != WEIR_TYPE_TIMESTAMP_LTZ)
            ms = weir_time_zone_to_utc(zone, ms);
        weir__timestamp_truncate(&ms, &nanos, weir_type_precision(to));
        o->i = ms;
        o->nanos = nanos;
        break;
    }
}

/* weir__convert, and -1 where a cast fails the row (NaN into a DECIMAL). */
static int convert(weir_type from, weir_type to, const weir__val *x, weir__val *o,
                   const weir_time_zone *zone)
{
    *o = *x;
    if (x->null || weir__type_same(from, to))
        return 0;
    if ((weir__type_is_numeric(from.id) || from.id == WEIR_TYPE_BOOLEAN) &&
        (weir__type_is_numeric(to.id) || to.id == WEIR_TYPE_BOOLEAN))
        return convert_number(from, to, x, o);
    if (weir__type_is_datetime(from.id) && weir__type_is_datetime(to.id))
        convert_datetime(from, to, x, o, zone);
    return 0;
}

void weir__convert(weir_type from, weir_type to, const weir__val *x, weir__val *o,
                   const weir_time_zone *zone)
{
    if (convert(from, to, x, o, zone))
        *o = (weir__val){.null = true}; /* a sink's implicit cast has no row to fail */
}

/* ---- strings into values ---------------------------------------------------------- */

/* Why the cast of the current row failed: a buffer of the calling thread,
 * valid until its next failure (the operator copies it into the job's
 * error at once). */
static _Thread_local char failure[512];

/* The failure of casting the text s (len bytes) into n's type: Flink's
 * `reason` with the value and the column named. Returns WEIR_EFORMAT. */
static int cast_failed_shown(const weir__enode *n, const char *shown, const char *reason,
                             const char **why)
{
    char type[48];
    weir_type t = n->type;
    t.not_null = false;
    weir_type_format(t, type, sizeof type);
    snprintf(failure, sizeof failure, "CAST of %s%s%s%s to %s: %s", shown,
             n->sbuf ? " (column '" : "", n->sbuf ? n->sbuf : "", n->sbuf ? "')" : "", type,
             reason);
    *why = failure;
    return WEIR_EFORMAT;
}

static int cast_failed(const weir__enode *n, const char *s, uint32_t len, const char *reason,
                       const char **why)
{
    char shown[84];
    snprintf(shown, sizeof shown, "'%.*s'", len > 80 ? 80 : (int)len, s);
    return cast_failed_shown(n, shown, reason, why);
}

/* BinaryStringDataUtil.toLong / toInt: an optional sign and decimal digits,
 * a fraction after a '.' checked and dropped (CAST('12.7' AS INT) is 12),
 * within 64 (or 32) bits. 0, or why not in *reason (Flink's words). */
static int parse_integer(const char *s, uint32_t len, bool wide, int64_t *out,
                         const char **reason)
{
    if (len == 0) {
        *reason = "Input is empty.";
        return -1;
    }
    uint32_t i = 0;
    bool negative = s[0] == '-';
    if (negative || s[0] == '+') {
        i++;
        if (len == 1) {
            *reason = "Input has only positive or negative symbol.";
            return -1;
        }
    }
    /* accumulated negative, as Flink does: MIN has one digit more than MAX */
    int64_t min = wide ? INT64_MIN : INT32_MIN, stop = min / 10, r = 0;
    for (; i < len; i++) {
        char c = s[i];
        if (c == '.') {
            i++;
            break;
        }
        if (c < '0' || c > '9') {
            *reason = "Invalid character found.";
            return -1;
        }
        if (r < stop || r * 10 < min + (c - '0')) {
            *reason = "Overflow.";
            return -1;
        }
        r = r * 10 - (c - '0');
    }
    for (; i < len; i++)
        if (s[i] < '0' || s[i] > '9') {
            *reason = "Invalid character found.";
            return -1;
        }
    if (!negative) {
        if (r == min) {
            *reason = "Overflow.";
            return -1;
        }
        r = -r;
    }
    *out = r;
    return 0;
}

/* Java's Float.parseFloat / Double.parseDouble grammar (decimal forms):
 * [sign] (NaN | Infinity | digits [. digits] | . digits) [e [sign] digits]
 * [fFdD]; the number's text without the suffix into buf. */
static bool java_number(const char *s, uint32_t len, char *buf, size_t size)
{
    uint32_t i = 0, k = 0;
    if (len >= size)
        return false;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    if ((len - i == 3 && memcmp(s + i, "NaN", 3) == 0) ||
        (len - i == 8 && memcmp(s + i, "Infinity", 8) == 0)) {
        memcpy(buf, s, len);
        buf[len] = 0;
        return true;
    }
    uint32_t digits = 0;
    while (i < len && isdigit((unsigned char)s[i]))
        i++, digits++;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && isdigit((unsigned char)s[i]))
            i++, digits++;
    }
    if (digits == 0)
        return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        uint32_t e = 0;
        while (i < len && isdigit((unsigned char)s[i]))
            i++, e++;
        if (e == 0)
            return false;
    }
    k = i;
    if (i < len && strchr("fFdD", s[i]))
        i++;
    if (i != len)
        return false;
    memcpy(buf, s, k);
    buf[k] = 0;
    return true;
}

/* Flink's BinaryStringDataUtil.toBoolean: t, true, y, yes, 1 / f, false,
 * n, no, 0, in any case. */
static int parse_boolean(const char *s, uint32_t len, int64_t *out)
{
    static const char *const yes[] = {"t", "true", "y", "yes", "1"};
    static const char *const no[] = {"f", "false", "n", "no", "0"};
    for (int i = 0; i < 5; i++) {
        if (strlen(yes[i]) == len && strncasecmp(s, yes[i], len) == 0) {
            *out = 1;
            return 0;
        }
        if (strlen(no[i]) == len && strncasecmp(s, no[i], len) == 0) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

/* A string x into n's type (not a string). */
static int from_string(const weir__enode *n, const weir__val *x, weir__val *o, const char **why)
{
    weir_type_id to = n->type.id;
    const char *s = x->s;
    uint32_t l = x->len;
    /* space around the value is not part of it */
    while (l && isspace((unsigned char)*s))
        s++, l--;
    while (l && isspace((unsigned char)s[l - 1]))
        l--;
    const char *reason = NULL;
    char quoted[128];
    if (to == WEIR_TYPE_BOOLEAN) {
        if (parse_boolean(s, l, &o->i) == 0)
            return 0;
        snprintf(quoted, sizeof quoted, "Cannot parse '%.*s' as BOOLEAN.", l > 80 ? 80 : (int)l,
                 s);
        return cast_failed(n, x->s, x->len, quoted, why);
    }
    if (weir__type_is_integer(to)) {
        int64_t v;
        if (parse_integer(s, l, to == WEIR_TYPE_BIGINT, &v, &reason) == 0) {
            if (weir__int_fits(to, v)) {
                o->i = v;
                return 0;
            }
            reason = "Overflow.";
        }
        snprintf(quoted, sizeof quoted, "For input string: '%.*s'. %s", l > 80 ? 80 : (int)l, s,
                 reason);
        return cast_failed(n, x->s, x->len, quoted, why);
    }
    if (to == WEIR_TYPE_DECIMAL) {
        int p = weir_type_precision(n->type);
        weir__i128 v;
        int r = weir__dec_parse(s, l, p, n->type.scale, &v);
        if (r == 0) {
            weir__dec_set(o, v);
            return 0;
        }
        /* BinaryStringDataUtil.toDecimal: a text it cannot take, as a long
         * (p <= 18, at most 18 bytes), is "Overflow." whatever is wrong;
         * else BigDecimal's NumberFormatException */
        const char *bad = s;
        while (bad < s + l && (isdigit((unsigned char)*bad) || strchr(".eE+-", *bad)))
            bad++;
        if (r > 0 || (p <= 18 && l <= 18) || bad == s + l)
            snprintf(quoted, sizeof quoted, "For input string: '%.*s'. Overflow.",
                     l > 80 ? 80 : (int)l, s);
        else
            snprintf(quoted, sizeof quoted, "Character %c is neither a decimal digit number, "
                     "decimal point, nor \"e\" notation exponential mark.", *bad);
        return cast_failed(n, x->s, x->len, quoted, why);
    }
    if (weir__type_is_approx(to)) {
        char num[80];
        if (java_number(s, l, num, sizeof num)) {
            o->d = to == WEIR_TYPE_FLOAT ? (double)strtof(num, NULL) : strtod(num, NULL);
            return 0;
        }
        if (l == 0)
            snprintf(quoted, sizeof quoted, "empty String");
        else
            snprintf(quoted, sizeof quoted, "For input string: \"%.*s\"", l > 80 ? 80 : (int)l,
                     s);
        return cast_failed(n, x->s, x->len, quoted, why);
    }
    if (weir__type_is_time(to)) {
        /* DateTimeUtils.parseTimestampData(s, precision); a TIMESTAMP_LTZ's
         * text is a local date-time of the session's zone */
        if (weir__cast_to_timestamp(s, l, weir_type_precision(n->type), &o->i, &o->nanos) == 0) {
            if (to == WEIR_TYPE_TIMESTAMP_LTZ)
                o->i = weir_time_zone_to_utc(n->zone, o->i);
            return 0;
        }
        /* Java's DateTimeParseException begins so */
        snprintf(quoted, sizeof quoted, "Text '%.*s' could not be parsed", l > 80 ? 80 : (int)l,
                 s);
        return cast_failed(n, x->s, x->len, quoted, why);
    }
    if (to == WEIR_TYPE_DATE || to == WEIR_TYPE_TIME) {
        int r = to == WEIR_TYPE_DATE ? weir__cast_to_date(s, l, &o->i)
                                     : weir__cast_to_time(s, l, &o->i);
        if (r == 0 && to == WEIR_TYPE_TIME) {
            int32_t no = 0;
            weir__timestamp_truncate(&o->i, &no, weir_type_precision(n->type));
        }
        if (r == 0)
            return 0;
        snprintf(quoted, sizeof quoted, "For input string: '%.*s'.", l > 80 ? 80 : (int)l, s);
        return cast_failed(n, x->s, x->len, quoted, why);
    }
    return cast_failed(n, x->s, x->len, "not a value of the type", why);
}

/* ---- values into strings ------------------------------------------------------------- */

/* x (of type `from`, not a string) as CAST to a string writes it, into
 * tmp: Flink's SQL text (a TIMESTAMP_LTZ in the session's zone). */
static int to_text(weir_type from, const weir__val *x, const weir_time_zone *zone, char *tmp,
                   size_t size)
{
    switch (from.id) {
    case WEIR_TYPE_BOOLEAN: return snprintf(tmp, size, "%s", x->i ? "TRUE" : "FALSE");
    case WEIR_TYPE_DOUBLE: return weir__format_double(x->d, tmp, size);
    case WEIR_TYPE_FLOAT: return weir__format_float(x->d, tmp, size);
    default: return weir__format_val(from, x, WEIR_ROW_STYLE_SQL, zone, tmp, size);
    }
}

/* Whether s is well-formed UTF-8 (no overlong forms, no surrogates, at
 * most U+10FFFF), as Java's strict decoder takes it. */
bool weir__utf8_valid(const char *s, uint32_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (uint32_t i = 0; i < n;) {
        unsigned char c = p[i];
        uint32_t k = c < 0x80             ? 1
                     : (c & 0xE0) == 0xC0 ? 2
                     : (c & 0xF0) == 0xE0 ? 3
                     : (c & 0xF8) == 0xF0 ? 4
                                          : 0;
        if (k == 0 || i + k > n)
            return false;
        uint32_t cp = k == 1 ? c : c & (0x7F >> k);
        for (uint32_t j = 1; j < k; j++) {
            if ((p[i + j] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (p[i + j] & 0x3F);
        }
        static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < least[k] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += k;
    }
    return true;
}

int weir__cast_eval(const weir__enode *n, const weir__val *x, unsigned char *sc, weir__val *o,
                    const char **why)
{
    weir_type_id from = n->a->type.id, to = n->type.id;
    *o = *x;
    if (x->null)
        return 0;
    if (weir__type_is_binary(to)) {
        /* the bytes (a string's UTF-8), n of them at most (Flink cuts a
         * longer value), BINARY(n) padded with zero bytes */
        char *buf = (char *)sc + n->scratch;
        uint32_t cap = n->type.capacity, len = x->len < cap ? x->len : cap;
        memmove(buf, x->s, len);
        if (to == WEIR_TYPE_BINARY && len < cap) {
            memset(buf + len, 0, cap - len);
            len = cap;
        }
        o->s = buf;
        o->len = len;
        return 0;
    }
    if (weir__type_is_binary(from)) {
        /* bytes as text: Flink's strict UTF-8 (the default) refuses bytes
         * that are not; then as a string into the string type */
        if (!weir__utf8_valid(x->s, x->len)) {
            /* the value shown as Flink prints bytes, x'..', its first 39 */
            char hex[84];
            size_t at = (size_t)snprintf(hex, sizeof hex, "x'");
            for (uint32_t k = 0; k < x->len && k < 39; k++)
                at += (size_t)snprintf(hex + at, sizeof hex - at, "%02x", (unsigned char)x->s[k]);
            snprintf(hex + at, sizeof hex - at, "'");
            int r = cast_failed_shown(n, hex, "the bytes are not valid UTF-8 (Flink's strict "
                                      "'table.exec.legacy-bytes-to-string-cast' = false)", why);
            if (n->try_cast) {
                *o = (weir__val){.null = true};
                return 0;
            }
            return r;
        }
        from = WEIR_TYPE_VARCHAR;
    }
    if (weir__type_is_string(to)) {
        char *buf = (char *)sc + n->scratch;
        uint32_t cap = n->type.capacity;
        int len;
        if (weir__type_is_var(from)) {
            /* The first `chars` characters that fit the capacity, never a
             * part of one: a character is a byte and the continuation bytes
             * (10xxxxxx) after it. */
            uint32_t k = 0, nchars = 0, most = n->chars ? n->chars : UINT32_MAX;
            while (k < x->len && nchars < most) {
                uint32_t l = 1;
                while (k + l < x->len && ((unsigned char)x->s[k + l] & 0xC0) == 0x80)
                    l++;
                if (k + l > cap)
                    break;
                k += l;
                nchars++;
            }
            len = (int)k;
            memmove(buf, x->s, (size_t)len);
        } else if (weir__type_is_nested(from)) {
            /* Flink's RowToStringCastRule, ArrayToStringCastRule and
             * MapToStringCastRule: "(1, a)", "[1, 2]", "{k=v}", each element
             * cast to a string (TRUE, FALSE), a NULL one "null". Written into
             * the scratch (capacity + 1 bytes: snprintf's end); VARCHAR(n)
             * keeps n characters as Flink trims it, STRING the whole text or
             * fails the row, never a cut */
            int w = weir__format_val(n->a->type, x, WEIR__ROW_STYLE_CAST, n->zone, buf,
                                     (size_t)cap + 1);
            if (w < 0)
                w = 0;
            if ((uint32_t)w > cap && !n->chars) {
                char reason[120];
                snprintf(reason, sizeof reason,
                         "its text of %d bytes is longer than the capacity %u "
                         "('weir.string-capacity')",
                         w, cap);
                char type[48];
                weir_type ft = n->a->type;
                ft.not_null = false;
                weir_type_format(ft, type, sizeof type);
                char shown[64];
                snprintf(shown, sizeof shown, "a value of %.*s", 50, type);
                int r = cast_failed_shown(n, shown, reason, why);
                if (n->try_cast) {
                    *o = (weir__val){.null = true};
                    return 0;
                }
                return r;
            }
            uint32_t have = (uint32_t)w > cap ? cap : (uint32_t)w;
            uint32_t k = 0, nchars = 0, most = n->chars ? n->chars : UINT32_MAX;
            while (k < have && nchars < most) {
                uint32_t l = 1;
                while (k + l < have && ((unsigned char)buf[k + l] & 0xC0) == 0x80)
                    l++;
                if (k + l > have)
                    break;
                k += l;
                nchars++;
            }
            len = (int)k;
        } else {
            char tmp[64];
            len = to_text(n->a->type, x, n->zone, tmp, sizeof tmp);
            if ((uint32_t)len > cap)
                len = (int)cap;
            memcpy(buf, tmp, (size_t)len);
        }
        if (to == WEIR_TYPE_CHAR && (uint32_t)len < cap) {
            memset(buf + len, ' ', cap - (uint32_t)len);
            len = (int)cap;
        }
        o->s = buf;
        o->len = (uint32_t)len;
        return 0;
    }
    if (weir__type_is_string(from)) {
        int r = from_string(n, x, o, why);
        if (r && n->try_cast) {
            *o = (weir__val){.null = true};
            return 0;
        }
        return r;
    }
    if (convert(n->a->type, n->type, x, o, n->zone) == 0)
        return 0;
    if (n->try_cast) {
        *o = (weir__val){.null = true};
        return 0;
    }
    char text[48];
    weir__format_double(x->d, text, sizeof text);
    return cast_failed(n, text, (uint32_t)strlen(text), "Infinite or NaN", why);
}
