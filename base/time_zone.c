/* time_zone.c — time zones read from the system's tzdata (weir/time_zone.h).
 *
 * A TZif file (RFC 8536) holds a zone's history: the instants at which its
 * offset changed and the offset after each, and (version 2 and later) a
 * POSIX TZ rule ("CET-1CEST,M3.5.0,M10.5.0/3") for every instant after
 * the last one. We read the 64-bit block and the rule once per zone name,
 * keep them in a list that is never freed (compiled expressions point at
 * zones), and answer offsets by a binary search of the transitions, or by
 * the rule past them. Nothing here allocates after the zone is read.
 */
#include "weir/time_zone.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "civil.h"
#include "time_zone_java.h"
#include "weir/error.h"

/* A POSIX TZ rule's date: Mm.w.d, Jn or n, and the local time of day. */
typedef struct tz_date {
    char kind; /* 'M', 'J' or 'n' */
    int month, week, wday, day;
    int32_t secs; /* of the day, local: may be negative or past 24 h */
} tz_date;

struct weir_time_zone {
    char name[128];
    int ntrans;
    int64_t *trans;     /* UTC seconds, ascending */
    int32_t *after;     /* the offset (seconds east) from trans[i] on */
    int32_t before;     /* the offset before the first transition */
    bool rule;          /* a POSIX rule after the last transition */
    int32_t std_off, dst_off;
    bool has_dst;
    tz_date start, end;
    struct weir_time_zone *next;
};

static weir_time_zone utc_zone = {.name = "UTC"};

const weir_time_zone *weir_time_zone_utc(void)
{
    return &utc_zone;
}

const char *weir_time_zone_name(const weir_time_zone *z)
{
    return z ? z->name : "UTC";
}

/* ---- POSIX TZ rules --------------------------------------------------------------- */

/* [+-]hh[:mm[:ss]] at *p into *secs; false if not there. */
static bool posix_time(const char **p, int32_t *secs)
{
    const char *s = *p;
    int sign = 1;
    if (*s == '+' || *s == '-')
        sign = *s++ == '-' ? -1 : 1;
    if (!isdigit((unsigned char)*s))
        return false;
    long v[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        if (i && *s != ':')
            break;
        if (i)
            s++;
        if (!isdigit((unsigned char)*s))
            return false;
        long x = 0;
        while (isdigit((unsigned char)*s))
            x = x * 10 + (*s++ - '0');
        v[i] = x;
    }
    *secs = (int32_t)(sign * (v[0] * 3600 + v[1] * 60 + v[2]));
    *p = s;
    return true;
}

/* A zone abbreviation: letters, or <...>. */
static bool posix_name(const char **p)
{
    const char *s = *p;
    if (*s == '<') {
        while (*s && *s != '>')
            s++;
        if (*s != '>')
            return false;
        *p = s + 1;
        return true;
    }
    const char *b = s;
    while (isalpha((unsigned char)*s))
        s++;
    *p = s;
    return s - b >= 3;
}

static bool posix_date(const char **p, tz_date *d)
{
    const char *s = *p;
    char *end;
    *d = (tz_date){.secs = 7200};
    if (*s == 'M') {
        d->kind = 'M';
        d->month = (int)strtol(s + 1, &end, 10);
        if (*end != '.')
            return false;
        d->week = (int)strtol(end + 1, &end, 10);
        if (*end != '.')
            return false;
        d->wday = (int)strtol(end + 1, &end, 10);
        if (d->month < 1 || d->month > 12 || d->week < 1 || d->week > 5 || d->wday < 0 ||
            d->wday > 6)
            return false;
    } else if (*s == 'J' || isdigit((unsigned char)*s)) {
        d->kind = *s == 'J' ? 'J' : 'n';
        d->day = (int)strtol(s + (*s == 'J'), &end, 10);
    } else {
        return false;
    }
    s = end;
    if (*s == '/') {
        s++;
        if (!posix_time(&s, &d->secs))
            return false;
    }
    *p = s;
    return true;
}

/* "STDoff[DST[off][,start[/time],end[/time]]]" into z. */
static bool posix_rule(weir_time_zone *z, const char *s)
{
    int32_t off;
    if (!posix_name(&s) || !posix_time(&s, &off))
        return false;
    z->std_off = -off; /* POSIX counts west */
    z->rule = true;
    if (!*s)
        return true;
    if (!posix_name(&s))
        return false;
    z->has_dst = true;
    z->dst_off = z->std_off + 3600;
    if (*s && *s != ',') {
        if (!posix_time(&s, &off))
            return false;
        z->dst_off = -off;
    }
    if (*s != ',')
        return false; /* no rule: tzdata always writes one */
    s++;
    if (!posix_date(&s, &z->start) || *s != ',')
        return false;
    s++;
    return posix_date(&s, &z->end) && !*s;
}

/* The day (since the epoch) a rule's date falls on in year y. */
static int64_t rule_day(const tz_date *d, int64_t y)
{
    int64_t jan1 = weir__days_from_civil(y, 1, 1);
    if (d->kind == 'J')
        return jan1 + d->day - 1 + (weir__leap_year(y) && d->day >= 60);
    if (d->kind == 'n')
        return jan1 + d->day;
    int64_t first = weir__days_from_civil(y, (unsigned)d->month, 1);
    int64_t wd = weir__floor_mod(first + 4, 7); /* 1970-01-01 was a Thursday */
    int64_t day = first + weir__floor_mod(d->wday - wd, 7) + 7 * (d->week - 1);
    int64_t last = first + weir__month_days(y, (unsigned)d->month) - 1;
    while (day > last)
        day -= 7;
    return day;
}

/* The offset the rule gives at UTC second t. */
static int32_t rule_offset(const weir_time_zone *z, int64_t t)
{
    if (!z->has_dst)
        return z->std_off;
    int64_t y;
    unsigned m, d;
    weir__civil_from_days(weir__floor_div(t + z->std_off, 86400), &y, &m, &d);
    int64_t start = rule_day(&z->start, y) * 86400 + z->start.secs - z->std_off;
    int64_t end = rule_day(&z->end, y) * 86400 + z->end.secs - z->dst_off;
    bool dst = start < end ? (t >= start && t < end) : !(t >= end && t < start);
    return dst ? z->dst_off : z->std_off;
}

/* ---- offsets -------------------------------------------------------------------------- */

static int32_t offset_secs(const weir_time_zone *z, int64_t t)
{
    if (z->ntrans == 0)
        return z->rule ? rule_offset(z, t) : z->before;
    if (t < z->trans[0])
        return z->before;
    if (t >= z->trans[z->ntrans - 1] && z->rule)
        return rule_offset(z, t);
    int lo = 0, hi = z->ntrans - 1; /* the last transition <= t */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (z->trans[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return z->after[lo];
}

int64_t weir_time_zone_offset(const weir_time_zone *z, int64_t utc_ms)
{
    if (!z || z == &utc_zone)
        return 0;
    return (int64_t)offset_secs(z, weir__floor_div(utc_ms, 1000)) * 1000;
}

int64_t weir_time_zone_to_utc(const weir_time_zone *z, int64_t local_ms)
{
    if (!z || z == &utc_zone)
        return local_ms;
    /* The offsets a day before and after: the same (no transition near),
     * or the two sides of one. The local time read with the earlier
     * offset, if that offset holds there (a normal time, or an overlap's
     * earlier instant); else with the later one; else (a gap) with the
     * earlier: the time moved on by the gap, as Java does. */
    int64_t before = weir_time_zone_offset(z, local_ms - 86400000);
    int64_t after = weir_time_zone_offset(z, local_ms + 86400000);
    int64_t t1 = local_ms - before, t2 = local_ms - after;
    if (weir_time_zone_offset(z, t1) == before)
        return t1;
    if (weir_time_zone_offset(z, t2) == after)
        return t2;
    return t1;
}

int64_t weir__time_zone_to_utc_lenient(const weir_time_zone *z, int64_t local_ms)
{
    if (!z || z == &utc_zone)
        return local_ms;
    /* The offsets a day before and after (at most one transition between):
     * the later one if the local time read with it is on its side of the
     * transition (after a gap, or in an overlap: standard time), else the
     * earlier (before the transition, or in the gap: moved on by it). */
    int64_t before = weir_time_zone_offset(z, local_ms - 86400000);
    int64_t after = weir_time_zone_offset(z, local_ms + 86400000);
    if (before == after || weir_time_zone_offset(z, local_ms - after) == after)
        return local_ms - after;
    return local_ms - before;
}

/* ---- reading a zone ---------------------------------------------------------------- */

static int fail(char *err, size_t errsize, int code, const char *name, const char *why)
{
    if (err && errsize) {
        if (why)
            snprintf(err, errsize, "time zone '%s': %s", name, why);
        else
            snprintf(err, errsize, "Invalid time zone for 'table.local-time-zone'. The value "
                     "should be a Time Zone Database (TZDB) ID such as 'America/Los_Angeles' "
                     "to include daylight saving time. Fixed offsets are supported using "
                     "'GMT-03:00' or 'GMT+03:00'. Or use 'UTC' without time zone and daylight "
                     "saving time. (not one: '%s')", name);
    }
    return code;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p)
{
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

/* The counts of a TZif header at p: isut, isstd, leap, time, type, char. */
static bool tzif_header(const unsigned char *p, size_t n, uint32_t c[6])
{
    if (n < 44 || memcmp(p, "TZif", 4) != 0)
        return false;
    for (int i = 0; i < 6; i++)
        c[i] = be32(p + 20 + 4 * i);
    return c[3] < 1000000 && c[4] >= 1 && c[4] < 256;
}

/* Parses the TZif bytes into z. false: not a valid file. */
static bool tzif_parse(weir_time_zone *z, const unsigned char *p, size_t n)
{
    uint32_t c[6];
    if (!tzif_header(p, n, c))
        return false;
    size_t v1 = (size_t)c[3] * 5 + (size_t)c[4] * 6 + c[5] + (size_t)c[2] * 8 + c[1] + c[0];
    bool v2 = p[4] >= '2';
    if (v2) {
        /* skip the 32-bit block to the 64-bit one */
        p += 44 + v1;
        n -= 44 + v1 > n ? n : 44 + v1;
        if (!tzif_header(p, n, c))
            return false;
    }
    size_t tsize = v2 ? 8 : 4;
    size_t need = 44 + (size_t)c[3] * (tsize + 1) + (size_t)c[4] * 6 + c[5];
    if (n < need)
        return false;
    const unsigned char *times = p + 44, *idx = times + (size_t)c[3] * tsize,
                        *types = idx + c[3];
    z->ntrans = (int)c[3];
    z->trans = calloc((size_t)c[3] + 1, sizeof *z->trans);
    z->after = calloc((size_t)c[3] + 1, sizeof *z->after);
    if (!z->trans || !z->after)
        return false;
    for (uint32_t i = 0; i < c[3]; i++) {
        z->trans[i] = v2 ? be64(times + 8 * i) : (int32_t)be32(times + 4 * i);
        if (idx[i] >= c[4])
            return false;
        z->after[i] = (int32_t)be32(types + 6 * idx[i]);
    }
    /* before the first transition: the first time type (RFC 8536 3.2) */
    z->before = (int32_t)be32(types);
    if (v2) {
        size_t rest = n - (need + (size_t)c[2] * 12 + c[1] + c[0]);
        const unsigned char *f = p + (n - rest);
        if (rest >= 2 && f[0] == '\n') {
            const unsigned char *e = memchr(f + 1, '\n', rest - 1);
            if (e && e > f + 1) {
                char rule[128];
                size_t len = (size_t)(e - f - 1);
                if (len < sizeof rule) {
                    memcpy(rule, f + 1, len);
                    rule[len] = 0;
                    if (!posix_rule(z, rule))
                        z->rule = false;
                }
            }
        }
    }
    return true;
}

/* GMT, GMT+h, GMT-hh:mm ...: a fixed offset (seconds east) in *off. */
static bool fixed_offset(const char *name, int32_t *off)
{
    if (strncmp(name, "GMT", 3) != 0)
        return false;
    const char *s = name + 3;
    if (!*s) {
        *off = 0;
        return true;
    }
    int sign = *s == '-' ? -1 : *s == '+' ? 1 : 0;
    if (!sign || !isdigit((unsigned char)s[1]))
        return false;
    s++;
    int h = 0, m = 0, nd = 0;
    while (isdigit((unsigned char)*s) && nd < 2)
        h = h * 10 + (*s++ - '0'), nd++;
    if (*s == ':') {
        s++;
        if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]))
            return false;
        m = (s[0] - '0') * 10 + (s[1] - '0');
        s += 2;
    } else if (nd == 2 && isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1])) {
        m = (s[0] - '0') * 10 + (s[1] - '0'); /* GMT+0800 */
        s += 2;
    }
    if (*s || h > 23 || m > 59)
        return false;
    *off = sign * (h * 3600 + m * 60);
    return true;
}

static pthread_mutex_t zones_lock = PTHREAD_MUTEX_INITIALIZER;
static weir_time_zone *zones;

/* The system's zone name: $TZ (a name, or ":name"), else the zone
 * /etc/localtime links to, else UTC. */
static void system_zone(char *out, size_t size)
{
    const char *tz = getenv("TZ");
    if (tz && *tz) {
        snprintf(out, size, "%s", tz + (*tz == ':'));
        return;
    }
    char link[PATH_MAX];
    ssize_t n = readlink("/etc/localtime", link, sizeof link - 1);
    const char *z = NULL;
    if (n > 0) {
        link[n] = 0;
        z = strstr(link, "zoneinfo/");
    }
    snprintf(out, size, "%s", z ? z + 9 : "UTC");
}

int weir_time_zone_get(const char *name, const weir_time_zone **out, char *err, size_t errsize)
{
    if (!name || !out)
        return fail(err, errsize, WEIR_EINVAL, "", "a name and an output are required");
    char sys[128];
    if (strcmp(name, "default") == 0) {
        system_zone(sys, sizeof sys);
        name = sys;
    }
    if (strcmp(name, "UTC") == 0) {
        *out = &utc_zone;
        return 0;
    }
    /* a TZDB name: letters, digits, '_', '-', '+', '/', no '..' */
    size_t len = strlen(name);
    bool ok = len > 0 && len < sizeof utc_zone.name && name[0] != '/' && !strstr(name, "..");
    int32_t fixed;
    bool is_fixed = fixed_offset(name, &fixed);
    for (size_t i = 0; ok && !is_fixed && i < len; i++)
        ok = isalnum((unsigned char)name[i]) || strchr("_-+/", name[i]);
    if (!ok)
        return fail(err, errsize, WEIR_EINVAL, name, NULL);
    pthread_mutex_lock(&zones_lock);
    for (weir_time_zone *z = zones; z; z = z->next)
        if (strcmp(z->name, name) == 0) {
            pthread_mutex_unlock(&zones_lock);
            *out = z;
            return 0;
        }
    int r = 0;
    weir_time_zone *z = calloc(1, sizeof *z);
    if (!z) {
        r = fail(err, errsize, WEIR_ENOMEM, name, "out of memory");
        goto done;
    }
    snprintf(z->name, sizeof z->name, "%s", name);
    if (is_fixed) {
        z->before = fixed;
    } else if (strncmp(name, "GMT", 3) == 0 && name[3] && name[3] != '/') {
        r = fail(err, errsize, WEIR_EINVAL, name, NULL); /* 'GMT+25' */
    } else {
        const char *dir = getenv("TZDIR");
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
        FILE *f = fopen(path, "rb");
        unsigned char *bytes = NULL;
        size_t n = 0;
        if (f) {
            bytes = malloc(1 << 20);
            n = bytes ? fread(bytes, 1, 1 << 20, f) : 0;
            fclose(f);
        }
        if (!f) {
            r = fail(err, errsize, WEIR_EINVAL, name, NULL);
        } else if (!bytes) {
            r = fail(err, errsize, WEIR_ENOMEM, name, "out of memory");
        } else if (!tzif_parse(z, bytes, n)) {
            r = fail(err, errsize, WEIR_EINVAL, name, NULL);
        }
        free(bytes);
    }
    if (r == 0) {
        z->next = zones;
        zones = z;
        *out = z;
    }
done:
    pthread_mutex_unlock(&zones_lock);
    if (r && z) {
        free(z->trans);
        free(z->after);
        free(z);
    }
    return r;
}

/* ---- Java's names ------------------------------------------------------------------- */

/* Java's custom ID GMT[+-]h[h][[:]mm] (TimeZone.parseCustomTimeZone): its
 * offset (seconds east) in *off; false if s is not one. */
static bool java_custom_id(const char *s, size_t n, int32_t *off)
{
    if (n < 5 || strncmp(s, "GMT", 3) != 0 || (s[3] != '+' && s[3] != '-'))
        return false;
    int sign = s[3] == '-' ? -1 : 1;
    size_t i = 4;
    int h = 0, m = 0, hd = 0, md = 0;
    while (i < n && isdigit((unsigned char)s[i]) && hd < 4)
        h = h * 10 + (s[i++] - '0'), hd++;
    if (hd == 0)
        return false;
    if (hd > 2) { /* hmm or hhmm */
        m = h % 100;
        h /= 100;
    } else if (i < n && s[i] == ':') {
        i++;
        while (i < n && isdigit((unsigned char)s[i]) && md < 3)
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
static const char *java_old_id(const char *s, size_t n)
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

int weir__time_zone_java(const char *name, size_t len, const weir_time_zone **out)
{
    char buf[sizeof utc_zone.name];
    int32_t off;
    if (!name || len >= sizeof buf || memchr(name, 0, len)) {
        snprintf(buf, sizeof buf, "GMT"); /* no zone has such a name */
    } else if (java_custom_id(name, len, &off)) {
        /* as weir_time_zone_get names a fixed offset: GMT+hh:mm */
        int a = off < 0 ? -off : off;
        snprintf(buf, sizeof buf, "GMT%c%02d:%02d", off < 0 ? '-' : '+', a / 3600,
                 a / 60 % 60);
    } else {
        const char *alias = java_old_id(name, len);
        if (alias)
            snprintf(buf, sizeof buf, "%s", alias);
        else
            snprintf(buf, sizeof buf, "%.*s", (int)len, name);
        if (strcmp(buf, "default") == 0) /* weir's word for the system's zone */
            snprintf(buf, sizeof buf, "GMT");
    }
    char err[64];
    int r = weir_time_zone_get(buf, out, err, sizeof err);
    if (r == WEIR_EINVAL) /* a name Java does not know: GMT */
        r = weir_time_zone_get("GMT", out, err, sizeof err);
    return r;
}
