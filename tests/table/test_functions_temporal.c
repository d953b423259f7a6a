/* test_functions_temporal.c — the temporal functions (table/fn_temporal.c,
 * fn_pattern.c; zones base/time_zone.c) against an independent computation: the C
 * library's calendar (gmtime_r, timegm, strftime) and its time zones
 * (localtime_r under TZ, glibc's own reading of the tz database), for
 * thousands of instants drawn at random from 1900 to 2100 (a fixed seed: the
 * same every run). Leap years, month ends, ISO weeks that cross a year, DST
 * transitions and the POSIX rule past the tz files' last transition are all
 * in that range.
 */
#include <stdlib.h>
#include <time.h>

#include "table_internal.h"
#include "table/table_testutil.h"

static weir_schema *sc;
static weir_expr *compile(const char *text)
{
    weir_expr *e;
    char msg[512];
    cr_assert_eq(weir_expr_compile(text, sc, &e, msg, sizeof msg), 0, "%s: %s", text, msg);
    return e;
}

static unsigned char scratch[16384];

/* e on a row of ts (ms) and s. */
static weir__val eval(const weir_expr *e, int64_t ts, const char *s)
{
    unsigned char row[256];
    weir_row_init(sc, row, WEIR_ROW_INSERT);
    weir_row_set_int(sc, row, 0, ts);
    weir_row_set_int(sc, row, 1, ts / 1000);
    weir_row_set_string(sc, row, 2, s, strlen(s));
    weir__val v;
    const char *why = NULL;
    memset(scratch, 0, sizeof scratch); /* each expression's own, zeroed (weir__expr_eval) */
    int r = weir__expr_eval(e, row, scratch, &v, &why);
    cr_assert_eq(r, 0, "%s: %s", e->text, why);
    return v;
}

static uint64_t state = 42;
static int64_t draw(int64_t lo, int64_t hi)
{
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (int64_t)((state >> 11) % (uint64_t)(hi - lo));
}

#define FROM_1900 (-2208988800LL)
#define TO_2100 4102444800LL

Test(functions_temporal, calendar_fields_as_gmtime)
{
    sc = tt_schema("t", "ts TIMESTAMP(3), n BIGINT, s VARCHAR(40)", NULL);
    static const char *const units[] = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND",
                                        "DOY", "DOW", "QUARTER", "WEEK", "ISOYEAR",
                                        "ISODOW", "MILLISECOND"};
    enum { NU = sizeof units / sizeof units[0] };
    weir_expr *x[NU];
    for (int u = 0; u < NU; u++) {
        char text[64];
        snprintf(text, sizeof text, "EXTRACT(%s FROM ts)", units[u]);
        x[u] = compile(text);
    }
    for (int k = 0; k < 5000; k++) {
        int64_t ms = draw(FROM_1900 * 1000, TO_2100 * 1000);
        time_t t = (time_t)(ms / 1000 - (ms % 1000 < 0));
        struct tm tm;
        gmtime_r(&t, &tm);
        char iso_week[8], iso_year[8];
        strftime(iso_week, sizeof iso_week, "%V", &tm);
        strftime(iso_year, sizeof iso_year, "%G", &tm);
        int64_t want[NU] = {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                            tm.tm_sec, tm.tm_yday + 1, tm.tm_wday + 1, tm.tm_mon / 3 + 1,
                            atoi(iso_week), atoi(iso_year), tm.tm_wday ? tm.tm_wday : 7,
                            ((ms % 1000) + 1000) % 1000};
        for (int u = 0; u < NU; u++)
            cr_assert_eq(eval(x[u], ms, "").i, want[u], "EXTRACT(%s) of %lld", units[u],
                         (long long)ms);
    }
    for (int u = 0; u < NU; u++)
        weir_expr_destroy(x[u]);
    weir_schema_destroy(sc);
}

Test(functions_temporal, patterns_as_strftime)
{
    sc = tt_schema("t", "ts TIMESTAMP(3), n BIGINT, s VARCHAR(40)", NULL);
    weir_expr *fmt = compile("DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss EEE MMM D')");
    weir_expr *fmt12 = compile("DATE_FORMAT(ts, 'hh a EEEE MMMM')");
    weir_expr *unix_fmt = compile("FROM_UNIXTIME(n)");
    weir_expr *back = compile("TO_TIMESTAMP(s)");
    weir_expr *back_fmt = compile("TO_TIMESTAMP(s, 'yyyy-MM-dd HH:mm:ss')");
    weir_expr *secs = compile("UNIX_TIMESTAMP(s)");
    for (int k = 0; k < 5000; k++) {
        int64_t ms = draw(FROM_1900 * 1000, TO_2100 * 1000) / 1000 * 1000;
        time_t t = (time_t)(ms / 1000);
        struct tm tm;
        gmtime_r(&t, &tm);
        char want[80], want12[80], plain[40];
        strftime(want, sizeof want, "%Y-%m-%d %H:%M:%S %a %b ", &tm);
        size_t wl = strlen(want);
        snprintf(want + wl, sizeof want - wl, "%d", tm.tm_yday + 1);
        strftime(want12, sizeof want12, "%I %p %A %B", &tm);
        strftime(plain, sizeof plain, "%Y-%m-%d %H:%M:%S", &tm);
        weir__val v = eval(fmt, ms, "");
        cr_assert(v.len == strlen(want) && memcmp(v.s, want, v.len) == 0, "%.*s, not %s",
                  (int)v.len, v.s, want);
        v = eval(fmt12, ms, "");
        cr_assert(v.len == strlen(want12) && memcmp(v.s, want12, v.len) == 0, "%.*s, not %s",
                  (int)v.len, v.s, want12);
        v = eval(unix_fmt, ms, "");
        cr_assert(v.len == strlen(plain) && memcmp(v.s, plain, v.len) == 0, "%.*s, not %s",
                  (int)v.len, v.s, plain);
        /* and back: the text to the instant */
        cr_assert_eq(eval(back, 0, plain).i, ms, "TO_TIMESTAMP('%s')", plain);
        cr_assert_eq(eval(back_fmt, 0, plain).i, ms, "TO_TIMESTAMP('%s', format)", plain);
        cr_assert_eq(eval(secs, 0, plain).i, (int64_t)timegm(&tm), "UNIX_TIMESTAMP('%s')",
                     plain);
    }
    weir_expr_destroy(fmt);
    weir_expr_destroy(fmt12);
    weir_expr_destroy(unix_fmt);
    weir_expr_destroy(back);
    weir_expr_destroy(back_fmt);
    weir_expr_destroy(secs);
    weir_schema_destroy(sc);
}

/* FLOOR/CEIL to a unit and TIMESTAMPADD of months, against struct tm
 * arithmetic (timegm normalizes a field out of range). */
Test(functions_temporal, floor_and_months_as_timegm)
{
    sc = tt_schema("t", "ts TIMESTAMP(3), n BIGINT, s VARCHAR(40)", NULL);
    weir_expr *fy = compile("FLOOR(ts TO YEAR)"), *fm = compile("FLOOR(ts TO MONTH)"),
              *fd = compile("FLOOR(ts TO DAY)"), *ch = compile("CEIL(ts TO HOUR)"),
              *fw = compile("FLOOR(ts TO WEEK)"), *add = compile("TIMESTAMPADD(MONTH, 13, ts)"),
              *diff = compile("TIMESTAMPDIFF(HOUR, TIMESTAMP '2000-01-01 00:00:00', ts)");
    for (int k = 0; k < 5000; k++) {
        int64_t ms = draw(FROM_1900 * 1000, TO_2100 * 1000);
        time_t t = (time_t)(ms / 1000 - (ms % 1000 < 0));
        struct tm tm, x;
        gmtime_r(&t, &tm);
        x = tm;
        x.tm_mon = 0;
        x.tm_mday = 1;
        x.tm_hour = x.tm_min = x.tm_sec = 0;
        cr_assert_eq(eval(fy, ms, "").i, (int64_t)timegm(&x) * 1000);
        x = tm;
        x.tm_mday = 1;
        x.tm_hour = x.tm_min = x.tm_sec = 0;
        cr_assert_eq(eval(fm, ms, "").i, (int64_t)timegm(&x) * 1000);
        x = tm;
        x.tm_hour = x.tm_min = x.tm_sec = 0;
        int64_t day = (int64_t)timegm(&x) * 1000;
        cr_assert_eq(eval(fd, ms, "").i, day);
        cr_assert_eq(eval(fw, ms, "").i, day - (int64_t)tm.tm_wday * 86400000);
        x = tm;
        x.tm_min = x.tm_sec = 0;
        int64_t hour = (int64_t)timegm(&x) * 1000;
        cr_assert_eq(eval(ch, ms, "").i, hour == ms ? hour : hour + 3600000);
        /* + 13 months: the same day, or the month's last */
        x = tm;
        x.tm_mon += 13;
        x.tm_mday = 1;
        time_t first = timegm(&x);
        struct tm f;
        gmtime_r(&first, &f);
        static const int md[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int y = f.tm_year + 1900;
        int last = md[f.tm_mon] + (f.tm_mon == 1 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
        x.tm_mday = tm.tm_mday < last ? tm.tm_mday : last;
        int64_t want = (int64_t)timegm(&x) * 1000 + ((ms % 1000) + 1000) % 1000;
        cr_assert_eq(eval(add, ms, "").i, want, "TIMESTAMPADD(MONTH, 13, %lld)", (long long)ms);
        int64_t h = (ms - 946684800000LL) / 3600000; /* toward zero, as Java's / */
        cr_assert_eq(eval(diff, ms, "").i, (int64_t)(int32_t)h);
    }
    weir_expr_destroy(fy);
    weir_expr_destroy(fm);
    weir_expr_destroy(fd);
    weir_expr_destroy(ch);
    weir_expr_destroy(fw);
    weir_expr_destroy(add);
    weir_expr_destroy(diff);
    weir_schema_destroy(sc);
}

/* CONVERT_TZ against glibc's localtime_r under TZ (its own reading of the
 * same tz files): every zone, instants before, during and long after the
 * files' transitions (the POSIX rule). */
Test(functions_temporal, time_zones_as_localtime)
{
    sc = tt_schema("t", "ts TIMESTAMP(3), n BIGINT, s VARCHAR(40)", NULL);
    static const char *const zones[] = {"Europe/Berlin",  "America/New_York", "Australia/Sydney",
                                        "Asia/Kolkata",   "America/Sao_Paulo", "Pacific/Chatham",
                                        "Africa/Casablanca", "Europe/London", "UTC",
                                        "America/St_Johns"};
    for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++) {
        char text[128];
        snprintf(text, sizeof text, "CONVERT_TZ(s, 'UTC', '%s')", zones[z]);
        weir_expr *e = compile(text);
        snprintf(text, sizeof text, "CONVERT_TZ(s, '%s', 'UTC')", zones[z]);
        weir_expr *back = compile(text);
        setenv("TZ", zones[z], 1);
        tzset();
        for (int k = 0; k < 1000; k++) {
            time_t t = (time_t)draw(0, 4102444800LL); /* 1970 .. 2100 */
            struct tm g, l;
            gmtime_r(&t, &g);
            localtime_r(&t, &l);
            char in[40], want[40];
            strftime(in, sizeof in, "%Y-%m-%d %H:%M:%S", &g);
            strftime(want, sizeof want, "%Y-%m-%d %H:%M:%S", &l);
            weir__val v = eval(e, 0, in);
            cr_assert(v.len == strlen(want) && memcmp(v.s, want, v.len) == 0,
                      "%s at %s: %.*s, not %s", zones[z], in, (int)v.len, v.s, want);
            /* and back, where the wall-clock time is not one of two instants
             * (a fall-back overlap: Java takes the later, glibc said the
             * earlier) */
            bool twice = false;
            for (int d = -7200; d <= 7200; d += 900) {
                time_t u = t + d;
                struct tm o;
                char s2[40];
                localtime_r(&u, &o);
                strftime(s2, sizeof s2, "%Y-%m-%d %H:%M:%S", &o);
                twice = twice || (d && strcmp(s2, want) == 0);
            }
            if (twice)
                continue;
            v = eval(back, 0, want);
            cr_assert(v.len == strlen(in) && memcmp(v.s, in, v.len) == 0,
                      "%s from %s: %.*s, not %s", zones[z], want, (int)v.len, v.s, in);
        }
        weir_expr_destroy(e);
        weir_expr_destroy(back);
    }
    unsetenv("TZ");
    tzset();
    weir_schema_destroy(sc);
}

/* EXTRACT and YEAR() ... of a DATE (the day's calendar) and a TIME (its
 * units of the day), TO_DATE with and without a pattern, TIMESTAMPDIFF of
 * DATEs, against gmtime's fields and strftime's text of the same day. */
Test(functions_temporal, dates_and_times_as_gmtime)
{
    sc = tt_schema("t", "ts TIMESTAMP(3), n BIGINT, s VARCHAR(40)", NULL);
    static const char *const units[] = {"YEAR", "MONTH", "DAY", "DOY", "DOW", "QUARTER",
                                        "WEEK", "ISOYEAR", "ISODOW"};
    enum { NU = sizeof units / sizeof units[0] };
    weir_expr *x[NU];
    for (int u = 0; u < NU; u++) {
        char text[64];
        snprintf(text, sizeof text, "EXTRACT(%s FROM CAST(ts AS DATE))", units[u]);
        x[u] = compile(text);
    }
    weir_expr *h = compile("HOUR(CAST(ts AS TIME(3)))"), *mi = compile("MINUTE(CAST(ts AS TIME(3)))"),
              *se = compile("SECOND(CAST(ts AS TIME(3)))"),
              *ml = compile("EXTRACT(MILLISECOND FROM CAST(ts AS TIME(3)))"),
              *to_date = compile("TO_DATE(s)"), *to_date_fmt = compile("TO_DATE(s, 'dd/MM/yyyy')"),
              *diff = compile("TIMESTAMPDIFF(DAY, DATE '2000-01-01', CAST(ts AS DATE))");
    for (int k = 0; k < 5000; k++) {
        int64_t ms = draw(FROM_1900 * 1000, TO_2100 * 1000);
        int64_t days = ms / 86400000 - (ms % 86400000 < 0);
        int64_t in_day = ms - days * 86400000;
        time_t t = (time_t)(days * 86400);
        struct tm tm;
        gmtime_r(&t, &tm);
        char iso_week[8], iso_year[8], ymd[16], dmy[16];
        strftime(iso_week, sizeof iso_week, "%V", &tm);
        strftime(iso_year, sizeof iso_year, "%G", &tm);
        strftime(ymd, sizeof ymd, "%Y-%m-%d", &tm);
        strftime(dmy, sizeof dmy, "%d/%m/%Y", &tm);
        int64_t want[NU] = {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_yday + 1,
                            tm.tm_wday + 1, tm.tm_mon / 3 + 1, atoi(iso_week), atoi(iso_year),
                            tm.tm_wday ? tm.tm_wday : 7};
        for (int u = 0; u < NU; u++)
            cr_assert_eq(eval(x[u], ms, "").i, want[u], "EXTRACT(%s) of the DATE %s", units[u],
                         ymd);
        cr_assert_eq(eval(h, ms, "").i, in_day / 3600000);
        cr_assert_eq(eval(mi, ms, "").i, in_day / 60000 % 60);
        cr_assert_eq(eval(se, ms, "").i, in_day / 1000 % 60);
        cr_assert_eq(eval(ml, ms, "").i, in_day % 1000);
        cr_assert_eq(eval(to_date, 0, ymd).i, days, "TO_DATE('%s')", ymd);
        cr_assert_eq(eval(to_date_fmt, 0, dmy).i, days, "TO_DATE('%s', 'dd/MM/yyyy')", dmy);
        cr_assert_eq(eval(diff, ms, "").i, days - 10957, "TIMESTAMPDIFF to %s", ymd);
    }
    for (int u = 0; u < NU; u++)
        weir_expr_destroy(x[u]);
    weir_expr_destroy(h);
    weir_expr_destroy(mi);
    weir_expr_destroy(se);
    weir_expr_destroy(ml);
    weir_expr_destroy(to_date);
    weir_expr_destroy(to_date_fmt);
    weir_expr_destroy(diff);
    weir_schema_destroy(sc);
}
