/* fn_tz.c — time zones by name for CONVERT_TZ (fn_temporal.c), read from
 * the system's tz database (/usr/share/zoneinfo, Debian's tzdata: the
 * same IANA data Java bundles, maybe of another release): a zone's TZif
 * file (RFC 8536: its transitions, and its POSIX TZ rule for the times
 * after the last one) read once, then the offset of any instant found by
 * a binary search, with no allocation and no I/O.
 *
 * Names resolve as Java's TimeZone.getTimeZone does them, which Flink's
 * CONVERT_TZ calls: a region of the database ("Europe/Berlin",
 * "America/Los_Angeles", "UTC", "EST5EDT"), Java's custom "GMT+8",
 * "GMT-08:00", "GMT+0530", Java's old three-letter IDs ("PST" is
 * America/Los_Angeles, "CTT" Asia/Shanghai ...), and any other name is GMT
 * (Java's answer for a zone it does not know).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fn_datetime.h"

#ifndef WEIR_ZONEINFO_DIR
#define WEIR_ZONEINFO_DIR "/usr/share/zoneinfo"
#endif

/* A POSIX TZ rule's transition day: Jn (1..365, no Feb 29), n (0..365),
 * Mm.w.d; and its time of day (seconds, local). */
typedef struct tz_day {
    char kind; /* 'J', 'N', 'M' */
    int a, b, c;
    int32_t secs;
} tz_day;

struct weir__tz {
    int n;          /* transitions */
    int64_t *at;    /* their instants (s) */
    int32_t *off;   /* the offset (s) from each on */
    int32_t before; /* the offset before the first */
    bool rule;      /* the footer's rule, after the last transition */
    int32_t std_off, dst_off;
    bool has_dst;
    tz_day start, end;
};

void weir__tz_free(weir__tz *z)
{
    if (!z)
        return;
    free(z->at);
    free(z->off);
    free(z);
}

/* ---- the POSIX TZ rule ------------------------------------------------------------------ */

/* [+-]hh[:mm[:ss]] into seconds; the end, or NULL. */
static const char *posix_time(const char *s, int32_t *out)
{
    int sign = 1;
    if (*s == '+' || *s == '-')
        sign = *s++ == '-' ? -1 : 1;
    if (!isdigit((unsigned char)*s))
        return NULL;
    int32_t h = 0, m = 0, sec = 0;
    while (isdigit((unsigned char)*s))
        h = h * 10 + (*s++ - '0');
    if (*s == ':') {
        s++;
        while (isdigit((unsigned char)*s))
            m = m * 10 + (*s++ - '0');
        if (*s == ':') {
            s++;
            while (isdigit((unsigned char)*s))
                sec = sec * 10 + (*s++ - '0');
        }
    }
    *out = sign * (h * 3600 + m * 60 + sec);
    return s;
}

static const char *posix_name(const char *s)
{
    if (*s == '<') {
        const char *e = strchr(s, '>');
        return e ? e + 1 : NULL;
    }
    const char *e = s;
    while (isalpha((unsigned char)*e))
        e++;
    return e - s >= 3 ? e : NULL;
}

static const char *posix_day(const char *s, tz_day *d)
{
    d->secs = 7200;
    if (*s == 'M') {
        d->kind = 'M';
        if (sscanf(s + 1, "%d.%d.%d", &d->a, &d->b, &d->c) != 3)
            return NULL;
        s++;
        while (isdigit((unsigned char)*s) || *s == '.')
            s++;
    } else {
        d->kind = *s == 'J' ? 'J' : 'N';
        if (*s == 'J')
            s++;
        if (!isdigit((unsigned char)*s))
            return NULL;
        d->a = 0;
        while (isdigit((unsigned char)*s))
            d->a = d->a * 10 + (*s++ - '0');
    }
    if (*s == '/') {
        s = posix_time(s + 1, &d->secs);
        if (!s)
            return NULL;
    }
    return s;
}

/* The footer "STD off [DST [off] ,start[/t],end[/t]]" into z (UTC offsets:
 * POSIX writes them west-positive). */
static bool posix_rule(weir__tz *z, const char *s)
{
    const char *e = posix_name(s);
    int32_t t;
    if (!e || !(e = posix_time(e, &t)))
        return false;
    z->std_off = -t;
    z->dst_off = z->std_off + 3600;
    z->has_dst = false;
    z->rule = true;
    if (!*e)
        return true;
    if (!(e = posix_name(e)))
        return false;
    if (*e && *e != ',') {
        if (!(e = posix_time(e, &t)))
            return false;
        z->dst_off = -t;
    }
    if (*e != ',' || !(e = posix_day(e + 1, &z->start)) || *e != ',' ||
        !posix_day(e + 1, &z->end))
        return false;
    z->has_dst = true;
    return true;
}

/* Day of the year (0-based) of rule day d in year y. */
static int64_t rule_yday(const tz_day *d, int64_t y)
{
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d->kind == 'J')
        return d->a - 1 + (leap && d->a >= 60 ? 1 : 0);
    if (d->kind == 'N')
        return d->a;
    /* Mm.w.d: day d (0 Sunday) of week w (5: the last) of month m */
    int64_t first = weir__days_from_civil(y, (unsigned)d->a, 1);
    int64_t jan1 = weir__days_from_civil(y, 1, 1);
    int dow = (int)(((first + 4) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
    int64_t day = first + (d->c - dow + 7) % 7 + 7 * (int64_t)(d->b - 1);
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int last = mdays[d->a - 1] + (d->a == 2 && leap);
    while (day - first >= last)
        day -= 7;
    return day - jan1;
}

/* The offset the rule gives at t (s): an instant, or with `wall` a
 * wall-clock time, each transition then at its instant plus the offset it
 * brings (Java's ZoneInfo reading a wall time). */
static int32_t rule_offset(const weir__tz *z, int64_t t, bool wall)
{
    if (!z->has_dst)
        return z->std_off;
    int64_t y;
    unsigned m, d;
    int64_t local = wall ? t : t + z->std_off;
    int64_t days = local / 86400 - (local % 86400 < 0);
    weir__civil_from_days(days, &y, &m, &d);
    int64_t jan1 = weir__days_from_civil(y, 1, 1) * 86400;
    int64_t start = jan1 + rule_yday(&z->start, y) * 86400 + z->start.secs - z->std_off;
    int64_t end = jan1 + rule_yday(&z->end, y) * 86400 + z->end.secs - z->dst_off;
    if (wall) {
        start += z->dst_off;
        end += z->std_off;
    }
    bool dst = start < end ? (t >= start && t < end) : !(t >= end && t < start);
    return dst ? z->dst_off : z->std_off;
}

/* ---- TZif ------------------------------------------------------------------------------------ */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p)
{
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

/* A zone from TZif bytes (version 2 or later: its 64-bit part and footer). */
static weir__tz *parse_tzif(const unsigned char *b, size_t n)
{
    if (n < 44 || memcmp(b, "TZif", 4) != 0 || b[4] < '2')
        return NULL;
    uint32_t c[6];
    for (int i = 0; i < 6; i++)
        c[i] = be32(b + 20 + 4 * i);
    /* skip the version 1 block */
    size_t v1 = 44 + (size_t)c[3] * 5 + (size_t)c[4] * 6 + c[5] + (size_t)c[2] * 8 + c[1] + c[0];
    if (v1 + 44 > n || memcmp(b + v1, "TZif", 4) != 0)
        return NULL;
    const unsigned char *h = b + v1;
    for (int i = 0; i < 6; i++)
        c[i] = be32(h + 20 + 4 * i);
    uint32_t isut = c[0], isstd = c[1], leap = c[2], timecnt = c[3], typecnt = c[4],
             charcnt = c[5];
    size_t need = 44 + (size_t)timecnt * 9 + (size_t)typecnt * 6 + charcnt + (size_t)leap * 12 +
                  isstd + isut;
    if (typecnt == 0 || v1 + need > n)
        return NULL;
    const unsigned char *times = h + 44, *idx = times + (size_t)timecnt * 8,
                        *types = idx + timecnt;
    weir__tz *z = calloc(1, sizeof *z);
    if (!z)
        return NULL;
    z->n = (int)timecnt;
    if (timecnt && (!(z->at = malloc(timecnt * sizeof *z->at)) ||
                    !(z->off = malloc(timecnt * sizeof *z->off)))) {
        weir__tz_free(z);
        return NULL;
    }
    for (uint32_t i = 0; i < timecnt; i++) {
        uint8_t k = idx[i];
        if (k >= typecnt) {
            weir__tz_free(z);
            return NULL;
        }
        z->at[i] = be64(times + 8 * i);
        z->off[i] = (int32_t)be32(types + 6 * k);
    }
    z->before = (int32_t)be32(types);
    /* the footer: "\nRULE\n" */
    const unsigned char *f = h + need;
    if (f < b + n && *f == '\n') {
        const unsigned char *e = memchr(f + 1, '\n', (size_t)(b + n - f - 1));
        char rule[128];
        size_t rl = e ? (size_t)(e - f - 1) : 0;
        if (e && rl > 0 && rl < sizeof rule) {
            memcpy(rule, f + 1, rl);
            rule[rl] = 0;
            if (!posix_rule(z, rule))
                z->rule = false;
        }
    }
    return z;
}

/* A fixed offset (Java's custom GMT+h[h][[:]mm]); false if s is not one. */
static bool custom_id(const char *s, size_t n, int32_t *off)
{
    if (n < 4 || strncmp(s, "GMT", 3) != 0 || (s[3] != '+' && s[3] != '-'))
        return false;
    int sign = s[3] == '-' ? -1 : 1;
    size_t i = 4;
    int h = 0, m = 0, hd = 0, md = 0;
    while (i < n && isdigit((unsigned char)s[i]) && hd < 4)
        h = h * 10 + (s[i++] - '0'), hd++;
    if (hd == 0)
        return false;
    if (hd > 2) { /* hhmm */
        if (hd != 4 && hd != 3)
            return false;
        m = h % 100;
        h /= 100;
    } else if (i < n && s[i] == ':') {
        i++;
        while (i < n && isdigit((unsigned char)s[i]))
            m = m * 10 + (s[i++] - '0'), md++;
        if (md != 2)
            return false;
    }
    if (i != n || h > 23 || m > 59)
        return false;
    *off = sign * (h * 3600 + m * 60);
    return true;
}

/* Java's old three-letter IDs and the regions they stand for. */
static const char *old_id(const char *s, size_t n)
{
    static const char *const ids[][2] = {
        {"ACT", "Australia/Darwin"},   {"AET", "Australia/Sydney"},
        {"AGT", "America/Argentina/Buenos_Aires"}, {"ART", "Africa/Cairo"},
        {"AST", "America/Anchorage"},  {"BET", "America/Sao_Paulo"},
        {"BST", "Asia/Dhaka"},         {"CAT", "Africa/Harare"},
        {"CNT", "America/St_Johns"},   {"CST", "America/Chicago"},
        {"CTT", "Asia/Shanghai"},      {"EAT", "Africa/Addis_Ababa"},
        {"ECT", "Europe/Paris"},       {"IET", "America/Indiana/Indianapolis"},
        {"IST", "Asia/Kolkata"},       {"JST", "Asia/Tokyo"},
        {"MIT", "Pacific/Apia"},       {"NET", "Asia/Yerevan"},
        {"NST", "Pacific/Auckland"},   {"PLT", "Asia/Karachi"},
        {"PNT", "America/Phoenix"},    {"PRT", "America/Puerto_Rico"},
        {"PST", "America/Los_Angeles"}, {"SST", "Pacific/Guadalcanal"},
        {"VST", "Asia/Ho_Chi_Minh"}};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (n == 3 && memcmp(s, ids[i][0], 3) == 0)
            return ids[i][1];
    return NULL;
}

const weir__tz *weir__tz_gmt(void)
{
    static const weir__tz gmt = {.rule = true};
    return &gmt;
}

/* A fixed-offset zone. */
static weir__tz *fixed(int32_t off)
{
    weir__tz *z = calloc(1, sizeof *z);
    if (z) {
        z->before = off;
        z->std_off = off;
        z->rule = true;
    }
    return z;
}

weir__tz *weir__tz_load(const char *name, size_t len)
{
    int32_t off;
    if (custom_id(name, len, &off))
        return fixed(off);
    const char *alias = old_id(name, len);
    char path[512];
    if (alias) {
        name = alias;
        len = strlen(alias);
    }
    /* a name of the database only: no absolute path, no "..", no odd bytes */
    bool ok = len > 0 && len < 200 && name[0] != '/';
    for (size_t i = 0; ok && i < len; i++) {
        unsigned char ch = (unsigned char)name[i];
        ok = isalnum(ch) || ch == '/' || ch == '_' || ch == '-' || ch == '+';
        if (ch == '.' )
            ok = false;
    }
    if (!ok)
        return fixed(0); /* Java: GMT */
    snprintf(path, sizeof path, "%s/%.*s", WEIR_ZONEINFO_DIR, (int)len, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fixed(0);
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 4096;
            unsigned char *nb = nc <= (1u << 20) ? realloc(buf, nc) : NULL;
            if (!nb)
                break;
            buf = nb;
            cap = nc;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        if (r == 0)
            break;
        n += r;
    }
    fclose(f);
    weir__tz *z = buf ? parse_tzif(buf, n) : NULL;
    free(buf);
    return z ? z : fixed(0);
}

/* The offset at t (s): an instant, or with `wall` a wall-clock time. */
static int32_t offset_s(const weir__tz *z, int64_t t, bool wall)
{
#define AT(i) (z->at[i] + (wall ? z->off[i] : 0))
    if (z->n == 0 || t < AT(0))
        return z->n == 0 && z->rule ? rule_offset(z, t, wall) : z->before;
    int lo = 0, hi = z->n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (AT(mid) <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
#undef AT
    if (lo == z->n - 1 && z->rule)
        return rule_offset(z, t, wall);
    return z->off[lo];
}

int64_t weir__tz_offset_ms(const weir__tz *z, int64_t utc_ms)
{
    int64_t t = utc_ms / 1000 - (utc_ms % 1000 < 0);
    return (int64_t)offset_s(z, t, false) * 1000;
}

/* A wall-clock time of the zone as an instant, as Java's lenient
 * GregorianCalendar finds it: the offset of the last transition whose
 * wall-clock time (its instant plus the offset it brings) is not after
 * it, so a time in a spring-forward gap moves on by the gap and one in a
 * fall-back overlap is the later instant (standard time). */
int64_t weir__tz_local_to_utc_ms(const weir__tz *z, int64_t local_ms)
{
    int64_t t = local_ms / 1000 - (local_ms % 1000 < 0);
    return local_ms - (int64_t)offset_s(z, t, true) * 1000;
}
