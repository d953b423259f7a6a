/* datetime.c — DATE, TIME and TIMESTAMP(p) values as text, both ways, and
 * their calendar arithmetic, as Flink has them (its DateTimeUtils):
 *
 *   - the SQL text Flink's SQL client prints and CAST writes: a DATE as
 *     2024-01-05; a TIME(p) as 10:00:00 with, for p > 0, the fraction's
 *     digits up to the last one that is not 0 but at least one
 *     (formatTimestampMillis: 10:00:00.5, 10:00:00.0); a TIMESTAMP(p) as
 *     2024-01-05 10:00:00 with a fraction of at least p digits, more only
 *     where the value has them (formatTimestamp);
 *   - Java's toString of LocalDate, LocalTime, LocalDateTime and Instant,
 *     which the print connector writes (2024-01-05T10:00, 10:00:00.500);
 *   - the strict text of literals and of the file formats (DATE
 *     '2024-01-05', 'yyyy-MM-dd HH:mm:ss[.f]' to nine digits), and the
 *     lenient text CAST reads (DateTimeUtils.parseDate, parseTime, the
 *     DEFAULT_TIMESTAMP_FORMATTER of parseTimestampData);
 *   - months added as Flink adds them: the day of the month kept, or the
 *     month's last day when it has fewer (Jan 31 + 1 month is Feb 29 in a
 *     leap year).
 *
 * A timestamp is milliseconds since 1970-01-01 00:00 and the nanoseconds
 * within that millisecond (0..999999), as Flink's TimestampData. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "civil.h"
#include "table_internal.h"
#include "weir/error.h"

#define MS_PER_DAY 86400000LL

/* ---- writing -------------------------------------------------------------------------- */

int weir__format_date(int64_t days, char *buf, size_t size)
{
    int64_t y;
    unsigned m, d;
    weir__civil_from_days(days, &y, &m, &d);
    return snprintf(buf, size, "%04" PRId64 "-%02u-%02u", y, m, d);
}

int weir__format_time(int64_t ms, int precision, char *buf, size_t size)
{
    ms = weir__floor_mod(ms, MS_PER_DAY);
    int n = snprintf(buf, size, "%02u:%02u:%02u", (unsigned)(ms / 3600000),
                     (unsigned)(ms / 60000 % 60), (unsigned)(ms / 1000 % 60));
    if (precision > 0) {
        /* the fraction's digits until the rest is 0, at least one, as
         * Flink's formatTimestampMillis (and java.sql.Timestamp) */
        char f[8];
        int k = 0;
        unsigned r = (unsigned)(ms % 1000);
        while (precision > 0) {
            f[k++] = (char)('0' + r / 100);
            r = r % 100 * 10;
            if (r == 0)
                break;
            precision--;
        }
        f[k] = 0;
        n += snprintf(n < (int)size ? buf + n : NULL, n < (int)size ? size - (size_t)n : 0,
                      ".%s", f);
    }
    return n;
}

int weir__format_timestamp(int64_t ms, int32_t nanos, int precision, char *buf, size_t size)
{
    int64_t days = weir__floor_div(ms, MS_PER_DAY), rem = weir__floor_mod(ms, MS_PER_DAY);
    int64_t y;
    unsigned mo, d;
    weir__civil_from_days(days, &y, &mo, &d);
    /* nine digits of the second's fraction, trailing zeros dropped down to p */
    char f[16];
    snprintf(f, sizeof f, "%09u", (unsigned)(rem % 1000) * 1000000u + (unsigned)nanos);
    int k = 9;
    while (k > precision && f[k - 1] == '0')
        k--;
    f[k] = 0;
    return snprintf(buf, size, "%04" PRId64 "-%02u-%02u %02u:%02u:%02u%s%s", y, mo, d,
                    (unsigned)(rem / 3600000), (unsigned)(rem / 60000 % 60),
                    (unsigned)(rem / 1000 % 60), k ? "." : "", f);
}

/* Java's LocalTime.toString: HH:mm, then :ss unless it and the fraction
 * are 0, then the fraction in groups of three digits. */
static int java_time(int64_t ms_of_day, int32_t nanos, bool always_seconds, char *buf,
                     size_t size)
{
    unsigned h = (unsigned)(ms_of_day / 3600000), mi = (unsigned)(ms_of_day / 60000 % 60),
             s = (unsigned)(ms_of_day / 1000 % 60);
    uint32_t nano = (uint32_t)(ms_of_day % 1000) * 1000000u + (uint32_t)nanos;
    if (nano == 0 && s == 0 && !always_seconds)
        return snprintf(buf, size, "%02u:%02u", h, mi);
    if (nano == 0)
        return snprintf(buf, size, "%02u:%02u:%02u", h, mi, s);
    if (nano % 1000000 == 0)
        return snprintf(buf, size, "%02u:%02u:%02u.%03u", h, mi, s, nano / 1000000);
    if (nano % 1000 == 0)
        return snprintf(buf, size, "%02u:%02u:%02u.%06u", h, mi, s, nano / 1000);
    return snprintf(buf, size, "%02u:%02u:%02u.%09u", h, mi, s, nano);
}

int weir__format_java_time(int64_t ms, char *buf, size_t size)
{
    return java_time(weir__floor_mod(ms, MS_PER_DAY), 0, false, buf, size);
}

int weir__format_java_timestamp(int64_t ms, int32_t nanos, bool instant, char *buf, size_t size)
{
    int64_t days = weir__floor_div(ms, MS_PER_DAY), rem = weir__floor_mod(ms, MS_PER_DAY);
    char date[32], time[32];
    weir__format_date(days, date, sizeof date);
    /* Instant.toString (ISO_INSTANT) always writes the seconds */
    java_time(rem, nanos, instant, time, sizeof time);
    return snprintf(buf, size, "%sT%s%s", date, time, instant ? "Z" : "");
}

/* ---- strict reading: literals and the file formats ---------------------------------- */

/* n digits at *p into *v; false if they are not there. */
static bool digits(const char **p, const char *end, int n, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (*p >= end || !isdigit((unsigned char)**p))
            return false;
        *v = *v * 10 + (unsigned)(**p - '0');
    }
    return true;
}

static bool valid_date(unsigned y, unsigned m, unsigned d)
{
    return m >= 1 && m <= 12 && d >= 1 && d <= weir__month_days(y, m) && y <= 9999;
}

/* yyyy-MM-dd at *p. */
static bool strict_date(const char **p, const char *end, int64_t *days)
{
    unsigned y, m, d;
    if (!digits(p, end, 4, &y) || *p == end || *(*p)++ != '-' || !digits(p, end, 2, &m) ||
        *p == end || *(*p)++ != '-' || !digits(p, end, 2, &d) || !valid_date(y, m, d))
        return false;
    *days = weir__days_from_civil(y, m, d);
    return true;
}

/* HH:mm:ss[.f{1,9}] at *p: ms of the day, nanos of the ms, the fraction's
 * digits. */
static bool strict_time(const char **p, const char *end, int64_t *ms, int32_t *nanos,
                        int *fdigits)
{
    unsigned h, mi, s, frac = 0;
    if (!digits(p, end, 2, &h) || *p == end || *(*p)++ != ':' || !digits(p, end, 2, &mi) ||
        *p == end || *(*p)++ != ':' || !digits(p, end, 2, &s) || h > 23 || mi > 59 || s > 59)
        return false;
    int n = 0;
    if (*p < end && **p == '.') {
        for ((*p)++; *p < end && isdigit((unsigned char)**p); (*p)++, n++)
            if (n < 9)
                frac = frac * 10 + (unsigned)(**p - '0');
        if (n == 0 || n > 9)
            return false;
        for (int k = n; k < 9; k++)
            frac *= 10;
    }
    *ms = ((int64_t)h * 3600 + mi * 60 + s) * 1000 + frac / 1000000;
    *nanos = (int32_t)(frac % 1000000);
    *fdigits = n;
    return true;
}

int weir__parse_date(const char *text, size_t len, int64_t *days)
{
    const char *p = text, *end = text + len;
    return strict_date(&p, end, days) && p == end ? 0 : WEIR_EFORMAT;
}

int weir__parse_time(const char *text, size_t len, int64_t *ms, int *fdigits)
{
    const char *p = text, *end = text + len;
    int32_t nanos;
    /* Flink's TIME keeps milliseconds: the rest of a longer fraction goes */
    return strict_time(&p, end, ms, &nanos, fdigits) && p == end ? 0 : WEIR_EFORMAT;
}

int weir__parse_timestamp(const char *text, size_t len, int64_t *ms, int32_t *nanos,
                          int *fdigits)
{
    const char *p = text, *end = text + len;
    int64_t days, t = 0;
    int32_t ns = 0;
    int n = 0;
    if (!strict_date(&p, end, &days))
        return WEIR_EFORMAT;
    if (p < end) {
        if (*p != ' ' && *p != 'T')
            return WEIR_EFORMAT;
        p++;
        if (!strict_time(&p, end, &t, &ns, &n) || p != end)
            return WEIR_EFORMAT;
    }
    *ms = days * MS_PER_DAY + t;
    *nanos = ns;
    if (fdigits)
        *fdigits = n;
    return 0;
}

/* ---- lenient reading: CAST of a string --------------------------------------------- */

/* Digits only, and at least one (Flink's isInteger of a trimmed part). */
static bool number_part(const char *s, size_t n, long *v)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n > 9)
        return false;
    long x = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return true;
}

int weir__cast_to_date(const char *s, size_t n, int64_t *days)
{
    /* DateTimeUtils.parseDate: "2017-12-12 09:30:00.0" is its date; y,
     * y-m and y-m-d, each part trimmed */
    const char *sp = memchr(s, ' ', n);
    if (sp && sp > s)
        n = (size_t)(sp - s);
    const char *h1 = memchr(s, '-', n);
    long y, m = 1, d = 1;
    if (!h1) {
        if (!number_part(s, n, &y))
            return WEIR_EFORMAT;
    } else {
        if (!number_part(s, (size_t)(h1 - s), &y))
            return WEIR_EFORMAT;
        const char *rest = h1 + 1, *e = s + n;
        const char *h2 = memchr(rest, '-', (size_t)(e - rest));
        if (!h2) {
            if (!number_part(rest, (size_t)(e - rest), &m))
                return WEIR_EFORMAT;
        } else if (!number_part(rest, (size_t)(h2 - rest), &m) ||
                   !number_part(h2 + 1, (size_t)(e - h2 - 1), &d)) {
            return WEIR_EFORMAT;
        }
    }
    if (y < 0 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31 ||
        (unsigned)d > weir__month_days(y, (unsigned)m))
        return WEIR_EFORMAT;
    *days = weir__days_from_civil(y, (unsigned)m, (unsigned)d);
    return 0;
}

int weir__cast_to_time(const char *s, size_t n, int64_t *ms)
{
    /* DateTimeUtils.parseTime: h[:m[:s[.fff]]], each part trimmed, and an
     * offset [+-]hh[:mm] that is added (as Flink does) */
    const char *e = s + n, *tz = memchr(s, '-', n);
    int op = -1;
    if (!tz) {
        tz = memchr(s, '+', n);
        op = 1;
    }
    long tzh = 0, tzm = 0;
    if (tz) {
        const char *c3 = memchr(tz, ':', (size_t)(e - tz));
        if (!c3) {
            if (!number_part(tz + 1, (size_t)(e - tz - 1), &tzh))
                return WEIR_EFORMAT;
        } else if (!number_part(tz + 1, (size_t)(c3 - tz - 1), &tzh) ||
                   !number_part(c3 + 1, (size_t)(e - c3 - 1), &tzm)) {
            return WEIR_EFORMAT;
        }
        e = tz;
    }
    long h, m = 0, sec = 0, milli = 0;
    const char *c1 = memchr(s, ':', (size_t)(e - s));
    if (!c1) {
        if (!number_part(s, (size_t)(e - s), &h))
            return WEIR_EFORMAT;
    } else {
        if (!number_part(s, (size_t)(c1 - s), &h))
            return WEIR_EFORMAT;
        const char *c2 = memchr(c1 + 1, ':', (size_t)(e - c1 - 1));
        if (!c2) {
            if (!number_part(c1 + 1, (size_t)(e - c1 - 1), &m))
                return WEIR_EFORMAT;
        } else {
            if (!number_part(c1 + 1, (size_t)(c2 - c1 - 1), &m))
                return WEIR_EFORMAT;
            const char *dot = memchr(c2, '.', (size_t)(e - c2));
            if (!dot) {
                if (!number_part(c2 + 1, (size_t)(e - c2 - 1), &sec))
                    return WEIR_EFORMAT;
            } else {
                if (!number_part(c2 + 1, (size_t)(dot - c2 - 1), &sec))
                    return WEIR_EFORMAT;
                /* parseFraction: three digits, rounded by the fourth */
                long mult = 100;
                for (const char *f = dot + 1; f < e; f++) {
                    int x = *f < '0' || *f > '9' ? 0 : *f - '0';
                    milli += mult * x;
                    if (mult < 10) {
                        if (f + 1 < e && f[1] >= '5')
                            milli++;
                        break;
                    }
                    mult /= 10;
                }
            }
        }
    }
    h += op * tzh;
    m += op * tzm;
    *ms = h * 3600000 + m * 60000 + sec * 1000 + milli;
    return 0;
}

int weir__cast_to_timestamp(const char *s, size_t n, int precision, int64_t *ms,
                            int32_t *nanos)
{
    /* DEFAULT_TIMESTAMP_FORMATTER: yyyy-[MM][M]-[dd][d], optionally
     * " [HH][H]:[mm][m]:[ss][s]" and a fraction of up to nine digits */
    const char *p = s, *e = s + n;
    long v[6] = {0, 1, 1, 0, 0, 0};
    int nd = 0;
    while (p < e && isdigit((unsigned char)*p) && nd < 9)
        v[0] = v[0] * 10 + (*p++ - '0'), nd++;
    if (nd < 4)
        return WEIR_EFORMAT;
    static const char seps[] = "-- ::";
    for (int f = 1; f < 6; f++) {
        if (f == 3) {
            if (p == e)
                break;
            if (*p != ' ')
                return WEIR_EFORMAT;
            p++;
        } else {
            if (p == e || *p != seps[f - 1])
                return WEIR_EFORMAT;
            p++;
        }
        nd = 0;
        v[f] = 0;
        while (p < e && isdigit((unsigned char)*p) && nd < 2)
            v[f] = v[f] * 10 + (*p++ - '0'), nd++;
        if (nd == 0)
            return WEIR_EFORMAT;
    }
    uint32_t frac = 0;
    if (p < e && *p == '.') {
        int k = 0;
        for (p++; p < e && isdigit((unsigned char)*p) && k < 9; p++, k++)
            frac = frac * 10 + (uint32_t)(*p - '0');
        for (int j = k; j < 9; j++)
            frac *= 10;
    }
    if (p != e || v[0] > 9999 || !valid_date((unsigned)v[0], (unsigned)v[1], (unsigned)v[2]) ||
        v[3] > 23 || v[4] > 59 || v[5] > 59)
        return WEIR_EFORMAT;
    /* the fraction cut to the precision (fromTemporalAccessor floors it) */
    uint32_t unit = 1;
    for (int k = precision; k < 9; k++)
        unit *= 10;
    frac -= frac % unit;
    *ms = (weir__days_from_civil(v[0], (unsigned)v[1], (unsigned)v[2]) * 86400 +
           v[3] * 3600 + v[4] * 60 + v[5]) * 1000 + frac / 1000000;
    *nanos = (int32_t)(frac % 1000000);
    return 0;
}

/* ---- arithmetic ------------------------------------------------------------------------ */

int64_t weir__add_months(int64_t days, int64_t months)
{
    int64_t y;
    unsigned m, d;
    weir__civil_from_days(days, &y, &m, &d);
    int64_t mm = (int64_t)m - 1 + months;
    y += weir__floor_div(mm, 12);
    m = (unsigned)weir__floor_mod(mm, 12) + 1;
    unsigned last = weir__month_days(y, m);
    return weir__days_from_civil(y, m, d > last ? last : d);
}

int64_t weir__timestamp_add_months(int64_t ms, int64_t months)
{
    int64_t day = weir__floor_div(ms, MS_PER_DAY);
    return weir__add_months(day, months) * MS_PER_DAY + weir__floor_mod(ms, MS_PER_DAY);
}

void weir__timestamp_truncate(int64_t *ms, int32_t *nanos, int precision)
{
    if (precision >= 9)
        return;
    if (precision > 3) {
        int32_t unit = 1;
        for (int k = precision; k < 9; k++)
            unit *= 10;
        *nanos -= *nanos % unit;
        return;
    }
    *nanos = 0;
    int64_t unit = 1;
    for (int k = precision; k < 3; k++)
        unit *= 10;
    /* toward zero, as Flink's DateTimeUtils.truncate (Java's division):
     * 1969-12-31 23:59:58.500 to TIMESTAMP(0) is 23:59:59 */
    *ms = *ms / unit * unit;
}
