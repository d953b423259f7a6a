/* fn_temporal.c — the temporal functions (fn.h) on TIMESTAMP(p) and
 * TIMESTAMP_LTZ(p) (EXTRACT, YEAR() ... and TIMESTAMPDIFF on DATE and
 * TIME too; TO_DATE into a DATE), as Flink computes them (DateTimeUtils, the planner's
 * ExtractCallGen, FloorCeilCallGen, TimestampDiffCallGen and
 * CurrentTimePointCallGen). A TIMESTAMP_LTZ is read in the session's
 * 'table.local-time-zone' (the node's zone, weir__bind_zone) where Flink
 * reads it: EXTRACT and YEAR() ... (Calcite casts it to TIMESTAMP first),
 * FLOOR/CEIL (DateTimeUtils.timestampFloor's offset at the instant),
 * DATE_FORMAT; so are FROM_UNIXTIME, UNIX_TIMESTAMP(s), DATE_FORMAT of a
 * string (SimpleDateFormat set to the session's zone), LOCALTIMESTAMP,
 * CURRENT_DATE, CURRENT_TIME and LOCALTIME. The zones are
 * base/time_zone.c's: the session's by Flink's names, CONVERT_TZ's by
 * java.util.TimeZone's (time_zone_java.h). The nanoseconds of a
 * TIMESTAMP(p > 3) count where Flink's code reads them (DATE_FORMAT's
 * fraction, EXTRACT of MICROSECOND and NANOSECOND, TIMESTAMPADD); FLOOR,
 * CEIL and TIMESTAMPDIFF read the milliseconds only, as Flink's.
 *
 * Where weir's calendar differs from Flink's: before 1970, Flink's EXTRACT
 * and FLOOR/CEIL to a day or more divide the millisecond value toward zero
 * (EXTRACT(DAY FROM TIMESTAMP '1969-12-31 12:00:00') is 1 there); weir's
 * are the calendar's (31). Flink's CEIL(ts TO MONTH) of a time on the
 * month's first day is that day's midnight, below ts (Calcite's
 * julianDateFloor looks at the date only): so is weir's, to agree.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "fn_datetime.h"
#include "time_zone_java.h"
#include "weir/error.h"

/* ---- units --------------------------------------------------------------------------------- */

enum {
    U_MILLENNIUM, U_CENTURY, U_DECADE, U_YEAR, U_QUARTER, U_MONTH, U_WEEK, U_DAY, U_HOUR,
    U_MINUTE, U_SECOND, U_MILLISECOND, U_MICROSECOND, U_NANOSECOND, U_DOW, U_DOY, U_ISODOW,
    U_ISOYEAR, U_EPOCH, U_COUNT
};

static const char *const unit_names[U_COUNT] = {
    "MILLENNIUM", "CENTURY",     "DECADE",      "YEAR",       "QUARTER", "MONTH",  "WEEK",
    "DAY",        "HOUR",        "MINUTE",      "SECOND",     "MILLISECOND", "MICROSECOND",
    "NANOSECOND", "DOW",         "DOY",         "ISODOW",     "ISOYEAR", "EPOCH"};

/* The unit a word names (SQL_TSI_DAY too; FRAC_SECOND is MICROSECOND), or
 * -1. */
static int unit_of(const char *w)
{
    if (strncmp(w, "SQL_TSI_", 8) == 0)
        w += 8;
    if (strcmp(w, "FRAC_SECOND") == 0)
        return U_MICROSECOND;
    for (int u = 0; u < U_COUNT; u++)
        if (strcmp(w, unit_names[u]) == 0)
            return u;
    return -1;
}

/* The unit of the call's first SYMBOL, one of `allowed` (a bit per unit),
 * or a refusal naming them. */
static int want_unit(weir__fnbind *b, unsigned allowed, const char *what)
{
    int u = b->nsym ? unit_of(b->sym[0]) : -1;
    if (u >= 0 && (allowed >> u & 1u))
        return u;
    char list[300];
    size_t len = 0;
    list[0] = 0;
    for (int k = 0; k < U_COUNT; k++)
        if (allowed >> k & 1u)
            weir__append(list, sizeof list, &len, "%s%s", len ? ", " : "", unit_names[k]);
    weir__bind_fail(b->p, b->a->start, "%s: '%s' is not one of its units (%s)", what,
                    b->nsym ? b->sym[0] : "", list);
    return -1;
}

#define UNITS(...) unit_bits((const int[]){__VA_ARGS__, -1})
static unsigned unit_bits(const int *u)
{
    unsigned b = 0;
    for (; *u >= 0; u++)
        b |= 1u << *u;
    return b;
}

static weir_type type_of(weir_type_id id, bool not_null)
{
    return (weir_type){.id = id, .not_null = not_null};
}

/* The session's zone on the node (a TIMESTAMP_LTZ argument, the local
 * clock functions). */
static void want_zone(weir__fnbind *b)
{
    b->n->zone = weir__bind_zone(b->p);
}

static bool is_ltz(const weir__enode *n)
{
    return n->type.id == WEIR_TYPE_TIMESTAMP_LTZ;
}

/* A timestamp argument's local date-time (ms): a TIMESTAMP's own, a
 * TIMESTAMP_LTZ's in the session's zone. */
static int64_t local_ms(const weir__fncall *c, int k)
{
    int64_t ms = c->args[k].i;
    return is_ltz(c->n->args[k]) ? ms + weir_time_zone_offset(c->n->zone, ms) : ms;
}

/* ---- EXTRACT, YEAR(), ..., SECOND() ---------------------------------------------------------- */

/* ISO 8601's week and its year of the day. */
static void iso_week(const dt_fields *f, int64_t *year, int *week)
{
    int wd = f->dow == 0 ? 7 : f->dow;       /* Monday 1 .. Sunday 7 */
    int64_t thursday = f->days - wd + 4;     /* the week's Thursday decides */
    int64_t y;
    unsigned m, d;
    weir__civil_from_days(thursday, &y, &m, &d);
    *year = y;
    *week = (int)((thursday - weir__days_from_civil(y, 1, 1)) / 7) + 1;
}

static int64_t extract(int unit, int64_t ms, int32_t nanos)
{
    dt_fields f;
    dt_split(ms, &f);
    int64_t iy;
    int wk;
    switch (unit) {
    case U_MILLENNIUM: return f.year > 0 ? (f.year + 999) / 1000 : (f.year - 999) / 1000;
    case U_CENTURY: return f.year > 0 ? (f.year + 99) / 100 : (f.year - 99) / 100;
    case U_DECADE: return f.year / 10;
    case U_YEAR: return f.year;
    case U_QUARTER: return (f.month + 2) / 3;
    case U_MONTH: return f.month;
    case U_WEEK: iso_week(&f, &iy, &wk); return wk;
    case U_ISOYEAR: iso_week(&f, &iy, &wk); return iy;
    case U_DAY: return f.day;
    case U_DOW: return f.dow + 1; /* Sunday 1 .. Saturday 7 */
    case U_ISODOW: return f.dow == 0 ? 7 : f.dow;
    case U_DOY: return f.doy;
    case U_HOUR: return f.hour;
    case U_MINUTE: return f.minute;
    case U_SECOND: return f.second;
    case U_MILLISECOND: return f.milli;
    case U_MICROSECOND: return (int64_t)f.milli * 1000 + nanos / 1000;
    case U_NANOSECOND: return (int64_t)f.milli * 1000000 + nanos;
    }
    return 0;
}

static bool t_extract(weir__fnbind *b)
{
    int u = (int)b->n->aux[0];
    if (b->f->form == WEIR_AST_FORM_EXTRACT) {
        u = want_unit(b, (1u << U_COUNT) - 1, "EXTRACT");
        if (u < 0)
            return false;
        if (u == U_EPOCH) {
            weir__bind_fail(b->p, b->a->start, "Unit 'EPOCH' is not supported.");
            return false;
        }
    }
    /* a DATE or a TIME: Flink's ExtractCallGen. The calendar's units of a
     * DATE are its day's; MICROSECOND and NANOSECOND take a TIMESTAMP only,
     * the calendar's units are refused on a TIME */
    weir_type at = b->n->args[0]->type;
    bool calendar = u != U_HOUR && u != U_MINUTE && u != U_SECOND && u != U_MILLISECOND &&
                    u != U_MICROSECOND && u != U_NANOSECOND;
    if (at.id == WEIR_TYPE_TIME && calendar) {
        weir__bind_fail(b->p, b->a->start, "unit %s can not be applied to time variable",
                        unit_names[u]);
        return false;
    }
    if ((at.id == WEIR_TYPE_TIME || at.id == WEIR_TYPE_DATE) &&
        (u == U_MICROSECOND || u == U_NANOSECOND)) {
        char tn[64];
        weir_type_format(at, tn, sizeof tn);
        weir__bind_fail(b->p, b->a->start, "unit %s can not be applied to %s variable",
                        unit_names[u], tn);
        return false;
    }
    b->n->aux[0] = u;
    b->n->type = type_of(WEIR_TYPE_BIGINT, weir__fn_args_not_null(b));
    want_zone(b);
    return true;
}

/* ExtractCallGen's arithmetic on a DATE's days or a TIME's milliseconds
 * for the units of a day: (v % factor) / the unit's milliseconds, Java's
 * truncating % and /. On a DATE this is what Flink computes on the number
 * of days (EXTRACT(SECOND FROM DATE '2024-01-05') is 19723 % 60000 / 1000,
 * 19), not the day's midnight. */
static int64_t extract_of_day(int unit, int64_t v)
{
    switch (unit) {
    case U_HOUR: return (v % 86400000) / 3600000;
    case U_MINUTE: return (v % 3600000) / 60000;
    case U_SECOND: return (v % 60000) / 1000;
    default: return v % 1000; /* MILLISECOND */
    }
}

static int e_extract(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    int u = (int)c->n->aux[0];
    weir_type_id t = c->n->args[0]->type.id;
    if (t == WEIR_TYPE_DATE || t == WEIR_TYPE_TIME) {
        bool of_day = u == U_HOUR || u == U_MINUTE || u == U_SECOND || u == U_MILLISECOND;
        o->i = of_day ? extract_of_day(u, c->args[0].i)
                      : extract(u, c->args[0].i * 86400000, 0); /* a DATE's day */
        return 0;
    }
    o->i = extract(u, local_ms(c, 0), c->args[0].nanos);
    return 0;
}

/* ---- FLOOR(ts TO unit), CEIL(ts TO unit) -------------------------------------------------------- */

static bool t_floor_to(weir__fnbind *b)
{
    int u = want_unit(b, UNITS(U_MILLENNIUM, U_CENTURY, U_DECADE, U_YEAR, U_QUARTER, U_MONTH,
                               U_WEEK, U_DAY, U_HOUR, U_MINUTE, U_SECOND, U_MILLISECOND),
                      b->f->name);
    if (u < 0)
        return false;
    /* a DATE floors to a week or more (Flink's UNIX_DATE_FLOOR, CEIL); a
     * TIME to an hour or less. Flink's code generator floors a DATE's day
     * number by a DAY's milliseconds (FLOOR_INTEGRAL: 1970-01-01) and a
     * TIME's milliseconds as a day number for a week or more: refused. */
    weir_type_id t = b->n->args[0]->type.id;
    if ((t == WEIR_TYPE_DATE && u >= U_DAY) || (t == WEIR_TYPE_TIME && u < U_HOUR)) {
        weir__bind_fail(b->p, b->a->start, "not supported: %s of a %s to %s (a DATE to WEEK, "
                        "MONTH, QUARTER, YEAR, DECADE, CENTURY or MILLENNIUM; a TIME to HOUR, "
                        "MINUTE, SECOND or MILLISECOND)", b->f->name,
                        t == WEIR_TYPE_DATE ? "DATE" : "TIME", b->sym[0]);
        return false;
    }
    weir__bind_retype_null(b->n->args[0], type_of(WEIR_TYPE_TIMESTAMP, false));
    b->n->aux[1] = u;
    b->n->aux[2] = t == WEIR_TYPE_DATE ? 1 : 0;
    b->n->type = b->n->args[0]->type;
    want_zone(b);
    return true;
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

/* Calcite's julianDateFloor on the day `days`: the first day of the
 * period (floor), or of the next unless the day starts one (ceil). */
static int64_t date_floor(int unit, int64_t days, bool floor)
{
    int64_t y;
    unsigned m, d;
    weir__civil_from_days(days, &y, &m, &d);
    switch (unit) {
    case U_MILLENNIUM: {
        int64_t k = floor_div(y + 999, 1000);
        return weir__days_from_civil(floor ? 1000 * k - 999 : 1000 * k + 1, 1, 1);
    }
    case U_CENTURY: {
        int64_t k = floor_div(y + 99, 100);
        return weir__days_from_civil(floor ? 100 * k - 99 : 100 * k + 1, 1, 1);
    }
    case U_DECADE: {
        int64_t k = y / 10;
        return weir__days_from_civil(floor ? 10 * k : 10 * (k + 1), 1, 1);
    }
    case U_YEAR:
        if (!floor && (m > 1 || d > 1))
            y++;
        return weir__days_from_civil(y, 1, 1);
    case U_MONTH:
        if (!floor && d > 1) {
            if (++m > 12) {
                m = 1;
                y++;
            }
        }
        return weir__days_from_civil(y, m, 1);
    case U_QUARTER: {
        unsigned q = (m + 2) / 3;
        if (!floor && (m > 1 || d > 1))
            q++;
        if (q > 4) {
            q = 1;
            y++;
        }
        return weir__days_from_civil(y, q * 3 - 2, 1);
    }
    case U_WEEK: {
        int dow = (int)(((days + 4) % 7 + 7) % 7); /* Sunday 0 */
        int off = dow;
        if (!floor && off > 0)
            off -= 7;
        return days - off;
    }
    }
    return days;
}

static int e_floor_to(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    int64_t ms = c->args[0].i;
    int unit = (int)c->n->aux[1];
    bool floor = c->n->aux[0] == 0;
    if (c->n->aux[2]) { /* a DATE: its day */
        o->i = date_floor(unit, ms, floor);
        return 0;
    }
    /* a TIMESTAMP_LTZ to an hour or more: DateTimeUtils.timestampFloor and
     * timestampCeil, the zone's offset at the instant added, the local time
     * floored, the same offset taken off (the nanoseconds dropped, as
     * Flink's TimestampData.fromEpochMillis drops them) */
    int64_t off = 0;
    if (is_ltz(c->n->args[0]) && unit <= U_HOUR) {
        off = weir_time_zone_offset(c->n->zone, ms);
        ms += off;
    }
    static const int64_t unit_len[] = {[U_DAY] = 86400000, [U_HOUR] = 3600000,
                                       [U_MINUTE] = 60000,  [U_SECOND] = 1000,
                                       [U_MILLISECOND] = 1};
    if (unit >= U_DAY && unit <= U_MILLISECOND) {
        int64_t u = unit_len[unit];
        int64_t f = floor_div(ms, u) * u;
        o->i = (floor || f == ms ? f : f + u) - off;
        if (c->n->type.id == WEIR_TYPE_TIME)
            o->i %= 86400000; /* CEIL(23:30 TO HOUR): midnight, a TIME's range */
        return 0;
    }
    int64_t days = floor_div(ms, 86400000);
    o->i = date_floor(unit, days, floor) * 86400000 - off;
    return 0;
}

/* ---- TIMESTAMPADD, TIMESTAMPDIFF --------------------------------------------------------------- */

static const unsigned add_units_list[] = {U_YEAR, U_QUARTER, U_MONTH, U_WEEK, U_DAY, U_HOUR,
                                         U_MINUTE, U_SECOND, U_MILLISECOND, U_MICROSECOND};

static unsigned add_units(void)
{
    unsigned b = 0;
    for (size_t i = 0; i < sizeof add_units_list / sizeof add_units_list[0]; i++)
        b |= 1u << add_units_list[i];
    return b;
}

/* The months of a unit that counts them (YEAR 12, QUARTER 3, MONTH 1), or
 * 0; the milliseconds of the others (MICROSECOND: -1000, a division). */
static int64_t unit_months(int u)
{
    return u == U_YEAR ? 12 : u == U_QUARTER ? 3 : u == U_MONTH ? 1 : 0;
}

static int64_t unit_ms(int u)
{
    switch (u) {
    case U_WEEK: return 7 * 86400000LL;
    case U_DAY: return 86400000;
    case U_HOUR: return 3600000;
    case U_MINUTE: return 60000;
    case U_SECOND: return 1000;
    case U_MILLISECOND: return 1;
    default: return 0;
    }
}

/* DateTimeUtils.addMonths: the day kept, or the month's last. */
static int64_t add_months(int64_t ms, int64_t months)
{
    int64_t days = floor_div(ms, 86400000), rest = ms - days * 86400000;
    int64_t y;
    unsigned m, d;
    weir__civil_from_days(days, &y, &m, &d);
    int64_t m0 = (int64_t)m - 1 + months;
    y += floor_div(m0, 12);
    m0 -= floor_div(m0, 12) * 12;
    static const unsigned md[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool lp = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    unsigned last = md[m0] + (m0 == 1 && lp);
    if (d > last)
        d = last;
    return weir__days_from_civil(y, (unsigned)m0 + 1, d) * 86400000 + rest;
}

/* TIMESTAMPADD's result type, as Flink's SqlTimestampAddFunction.deduceType:
 * MILLISECOND a TIMESTAMP (or TIMESTAMP_LTZ) of at least 3 digits,
 * MICROSECOND of at least 6; HOUR, MINUTE, SECOND keep a TIME or a
 * timestamp and make a DATE a TIMESTAMP (Flink's default precision, 6);
 * DAY and longer keep the type (a DATE stays one). aux[1]: the argument's
 * kind (0 a timestamp, 1 a DATE, 2 a TIME). */
static bool t_timestampadd(weir__fnbind *b)
{
    int u = want_unit(b, add_units(), "TIMESTAMPADD");
    if (u < 0)
        return false;
    weir_type_id x = b->n->args[0]->type.id, t = b->n->args[1]->type.id;
    if ((x != WEIR_TYPE_NULL && !weir__type_is_integer(x)) ||
        (t != WEIR_TYPE_NULL && !weir__type_is_datetime(t))) {
        char t1[64], t2[64];
        weir__bind_fail(b->p, b->a->start,
                        "Cannot apply 'TIMESTAMPADD' to arguments of type 'TIMESTAMPADD(<SYMBOL>, "
                        "<%s>, <%s>)'. Supported form(s): 'TIMESTAMPADD(<ANY>, <INTEGER>, "
                        "<DATETIME>)'",
                        weir__fn_type_name(b->n->args[0]->type, t1, sizeof t1),
                        weir__fn_type_name(b->n->args[1]->type, t2, sizeof t2));
        return false;
    }
    weir__bind_retype_null(b->n->args[0], type_of(WEIR_TYPE_INT, false));
    weir__bind_retype_null(b->n->args[1], type_of(WEIR_TYPE_TIMESTAMP, false));
    weir_type in = b->n->args[1]->type, out = in;
    bool sub_second = u == U_MILLISECOND || u == U_MICROSECOND;
    if (in.id == WEIR_TYPE_TIME && sub_second) {
        weir__bind_fail(b->p, b->a->start, "not supported: TIMESTAMPADD of a TIME by %s "
                        "(Flink types the result a TIMESTAMP, and its code generator adds to "
                        "the TIME)", u == U_MILLISECOND ? "MILLISECOND" : "MICROSECOND");
        return false;
    }
    if (sub_second) {
        int least = u == U_MILLISECOND ? 3 : 6;
        if (in.id == WEIR_TYPE_DATE)
            out = type_of(WEIR_TYPE_TIMESTAMP, false);
        if (weir_type_precision(out) < least || in.id == WEIR_TYPE_DATE)
            out.precision = (uint8_t)least;
    } else if (in.id == WEIR_TYPE_DATE && unit_ms(u) && unit_ms(u) < 86400000) {
        out = type_of(WEIR_TYPE_TIMESTAMP, false);
        out.precision = 6;
    }
    b->n->aux[0] = u;
    b->n->aux[1] = in.id == WEIR_TYPE_DATE ? 1 : in.id == WEIR_TYPE_TIME ? 2 : 0;
    b->n->type = out;
    b->n->type.not_null = weir__fn_args_not_null(b);
    return true;
}

static int e_timestampadd(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    int u = (int)c->n->aux[0];
    int64_t n = c->args[0].i, ts = c->args[1].i;
    o->nanos = c->args[1].nanos; /* a TIMESTAMP(p > 3) keeps its nanoseconds */
    if (c->n->aux[1] == 2) {
        /* a TIME goes around the clock by HOUR, MINUTE, SECOND and stays
         * by a day or more, as Flink's TIME + interval */
        int64_t ms = unit_months(u) ? 0 : (int64_t)((uint64_t)n * (uint64_t)unit_ms(u));
        o->i = (ts + 86400000 + ms % 86400000) % 86400000;
        return 0;
    }
    if (c->n->aux[1] == 1) {
        if (c->n->type.id == WEIR_TYPE_DATE) { /* DATE + months or days: a DATE */
            o->i = unit_months(u) ? floor_div(add_months(ts * 86400000, n * unit_months(u)),
                                              86400000)
                                  : ts + n * (unit_ms(u) / 86400000);
            return 0;
        }
        ts *= 86400000; /* its midnight, then as a timestamp */
        o->nanos = 0;
    }
    if (unit_months(u)) {
        o->i = add_months(ts, n * unit_months(u));
    } else if (u == U_MICROSECOND) {
        /* Calcite's convertlet: an interval of n milliseconds divided by
         * 1000 (DIVIDE_INTEGER, toward zero), the nanoseconds kept */
        o->i = ts + n / 1000;
    } else {
        o->i = (int64_t)((uint64_t)ts + (uint64_t)n * (uint64_t)unit_ms(u));
    }
    return 0;
}

static bool t_timestampdiff(weir__fnbind *b)
{
    int u = want_unit(b, add_units(), "TIMESTAMPDIFF");
    if (u < 0)
        return false;
    for (int i = 0; i < 2; i++) {
        weir_type_id t = b->n->args[i]->type.id;
        if (t != WEIR_TYPE_NULL && !weir__type_is_time(t) && t != WEIR_TYPE_DATE) {
            char t1[64], t2[64];
            weir__bind_fail(b->p, b->a->start,
                            "Cannot apply 'TIMESTAMPDIFF' to arguments of type "
                            "'TIMESTAMPDIFF(<SYMBOL>, <%s>, <%s>)'. Supported form(s): "
                            "'TIMESTAMPDIFF(<ANY>, <DATETIME>, <DATETIME>)'",
                            weir__fn_type_name(b->n->args[0]->type, t1, sizeof t1),
                            weir__fn_type_name(b->n->args[1]->type, t2, sizeof t2));
            return false;
        }
        weir__bind_retype_null(b->n->args[i], type_of(WEIR_TYPE_TIMESTAMP, false));
    }
    b->n->aux[0] = u;
    b->n->type = type_of(WEIR_TYPE_INT, weir__fn_args_not_null(b));
    return true;
}

/* DateTimeUtils.subtractMonths: whole months from t1 to t0. */
static int64_t months_between(int64_t t0, int64_t t1)
{
    if (t0 < t1)
        return -months_between(t1, t0);
    int64_t d0 = floor_div(t0, 86400000), d1 = floor_div(t1, 86400000);
    int64_t ms0 = t0 - d0 * 86400000, ms1 = t1 - d1 * 86400000;
    int64_t m = (d0 - d1) / 31;
    for (;;) {
        int64_t x = floor_div(add_months(d1 * 86400000, m), 86400000);
        if (x >= d0)
            break;
        int64_t x1 = floor_div(add_months(d1 * 86400000, m + 1), 86400000);
        if (x1 > d0)
            break;
        m++;
    }
    if (floor_div(add_months(d1 * 86400000, m), 86400000) == d0 && ms0 < ms1)
        m--;
    return m;
}

static int e_timestampdiff(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    int u = (int)c->n->aux[0];
    int64_t a = c->args[0].i, b = c->args[1].i, r;
    /* a DATE is its midnight (TimestampDiffCallGen: days * MILLIS_PER_DAY) */
    if (c->n->args[0]->type.id == WEIR_TYPE_DATE)
        a *= 86400000;
    if (c->n->args[1]->type.id == WEIR_TYPE_DATE)
        b *= 86400000;
    if (unit_months(u))
        r = months_between(b, a) / unit_months(u);
    else if (u == U_MICROSECOND)
        r = (b - a) * 1000;
    else
        r = (b - a) / unit_ms(u);
    o->i = (int32_t)(uint32_t)(uint64_t)r; /* Java's (int) */
    return 0;
}

/* ---- patterns: DATE_FORMAT, FROM_UNIXTIME, TO_TIMESTAMP, UNIX_TIMESTAMP ------------------------- */

/* A pattern compiled at plan time (argument k a literal), its text owned. */
typedef struct plan_pat {
    dt_pat pat;
    char *text;
    /* only fields of the day (years, months, days, weekdays, eras): every
     * instant of one local day writes the same text */
    bool day_only;
    dt_tok tok[];
} plan_pat;

/* Whether a compiled pattern writes only fields of the day: its letters
 * are among those that both SimpleDateFormat and DateTimeFormatter read
 * as the year, month, day of month or of year, weekday or era. */
static bool pattern_day_only(const dt_pat *p)
{
    for (int i = 0; i < p->n; i++) {
        char l = p->tok[i].letter;
        if (l && l != '[' && l != ']' && !strchr("yuYMLdDEG", l))
            return false;
    }
    return true;
}

/* DATE_FORMAT's work bytes with a literal pattern of the day: the local
 * day whose text its result room holds (a subtask formats a day once,
 * however many rows fall in it). */
typedef struct day_cache {
    int64_t day;
    uint32_t len;
    uint32_t valid;
} day_cache;

static void plan_pat_free(void *p)
{
    plan_pat *x = p;
    if (x)
        free(x->text);
    free(x);
}

/* Compiles argument k's literal pattern (or `dflt` when the call has no
 * such argument) into n->data; per-row patterns get work bytes to compile
 * into. false after a refusal. */
static bool t_pattern(weir__fnbind *b, int k, bool sdf, const char *dflt)
{
    const weir__val *v = NULL;
    weir__val d = {.s = dflt, .len = dflt ? (uint32_t)strlen(dflt) : 0};
    if (k >= b->n->nargs)
        v = dflt ? &d : NULL;
    else if (!weir__fn_literal(b, k, &v))
        v = NULL;
    if (!v) {
        uint32_t cap = b->n->args[k]->type.capacity;
        b->work = (cap + 1) * (uint32_t)sizeof(dt_tok);
        return true;
    }
    if (v->len > 60000) {
        weir__bind_fail(b->p, b->a->start, "%s: a pattern of %u bytes is too long", b->f->name,
                        v->len);
        return false;
    }
    plan_pat *x = calloc(1, sizeof *x + (v->len + 1) * sizeof(dt_tok));
    char *text = malloc(v->len + 1);
    if (!x || !text) {
        free(x);
        free(text);
        weir__bind_nomem(b->p);
        return false;
    }
    memcpy(text, v->s, v->len);
    text[v->len] = 0;
    x->text = text;
    char why[160];
    if (dt_compile(&x->pat, text, v->len, sdf, x->tok, why, sizeof why)) {
        plan_pat_free(x);
        weir__bind_fail(b->p, k < b->n->nargs ? b->n->args[k]->pos : b->a->start, "%s: %s",
                        b->f->name, why);
        return false;
    }
    x->day_only = pattern_day_only(&x->pat);
    b->n->data = x;
    b->n->data_free = plan_pat_free;
    return true;
}

/* The call's pattern: the plan's, or argument k's compiled into the work
 * bytes. NULL (why set) when it does not compile. */
static const dt_pat *pattern(const weir__fncall *c, int k, bool sdf, dt_pat *local,
                             const char **why)
{
    if (c->n->data)
        return &((const plan_pat *)c->n->data)->pat;
    const weir__val *v = &c->args[k];
    char msg[160];
    if (dt_compile(local, v->s ? v->s : "", v->len, sdf, (dt_tok *)(void *)c->work, msg,
                   sizeof msg)) {
        *why = sdf ? "a date pattern that SimpleDateFormat refuses"
                   : "a date pattern that DateTimeFormatter refuses";
        return NULL;
    }
    return local;
}

/* A string result of a literal pattern: its most bytes; else the schema's
 * string capacity, checked per row. */
static weir_type pattern_result(weir__fnbind *b, uint32_t extra)
{
    if (b->n->data)
        return weir__fn_varchar(dt_max_len(&((plan_pat *)b->n->data)->pat) + extra, false);
    return weir__fn_varchar(weir__bind_string_capacity(b->p), false);
}

static const char *const TS_FORMAT = "yyyy-MM-dd HH:mm:ss";

/* DATE_FORMAT(ts, f): a TIMESTAMP or TIMESTAMP_LTZ in java.time's pattern;
 * a string is read as SimpleDateFormat's yyyy-MM-dd HH:mm:ss (leniently)
 * and written in SimpleDateFormat's pattern (Flink's two paths). */
static bool t_date_format(weir__fnbind *b)
{
    bool from_string = weir__type_is_string(b->n->args[0]->type.id);
    b->n->aux[0] = from_string;
    if (!t_pattern(b, 1, from_string, NULL))
        return false;
    if (!from_string && b->n->data && ((const plan_pat *)b->n->data)->day_only)
        b->work = (uint32_t)sizeof(day_cache);
    b->n->type = pattern_result(b, 0);
    want_zone(b);
    return true;
}

static int write_pattern(const weir__fncall *c, const dt_pat *p, int64_t ms, int32_t nanos,
                         weir__val *o, const char **why)
{
    int n = dt_format(p, ms, nanos, c->buf, c->n->type.capacity);
    if (n < 0)
        return weir__fn_too_long(c, why);
    o->s = c->buf;
    o->len = (uint32_t)n;
    return 0;
}

/* SimpleDateFormat's parse of s (UTC): 0 and *ms, or -1. */
static int sdf_parse(const dt_pat *p, const weir__val *s, int64_t *ms)
{
    dt_parsed f;
    if (dt_parse(p, s->s ? s->s : "", s->len, &f))
        return -1;
    *ms = dt_resolve_lenient(&f);
    return 0;
}

static dt_pat ts_pattern(dt_tok *tok)
{
    dt_pat p;
    char why[80];
    dt_compile(&p, TS_FORMAT, (uint32_t)strlen(TS_FORMAT), true, tok, why, sizeof why);
    return p;
}

static int e_date_format(const weir__fncall *c, weir__val *o, const char **why)
{
    dt_pat local;
    const dt_pat *p = pattern(c, 1, c->n->aux[0] != 0, &local, why);
    if (!p)
        return WEIR_EINVAL;
    if (c->n->aux[0]) {
        /* DateTimeUtils.dateFormat: both SimpleDateFormats in the session's
         * zone, so the instant read is written back as the same local time
         * (but for one in a spring-forward gap, moved on by it) */
        dt_tok tok[32];
        dt_pat in = ts_pattern(tok);
        int64_t ms;
        if (sdf_parse(&in, &c->args[0], &ms)) {
            o->null = true; /* Flink: the ParseException is logged, NULL */
            return 0;
        }
        int64_t utc = weir__time_zone_to_utc_lenient(c->n->zone, ms);
        return write_pattern(c, p, utc + weir_time_zone_offset(c->n->zone, utc), 0, o, why);
    }
    int64_t ms = local_ms(c, 0);
    if (!c->n->data || !((const plan_pat *)c->n->data)->day_only)
        return write_pattern(c, p, ms, c->args[0].nanos, o, why);
    day_cache *dc = (day_cache *)(void *)c->work;
    int64_t day = ms / 86400000 - (ms % 86400000 < 0);
    if (!dc->valid || dc->day != day) {
        int r = write_pattern(c, p, ms, 0, o, why);
        if (r)
            return r;
        *dc = (day_cache){.day = day, .len = o->len, .valid = 1};
        return 0;
    }
    o->s = c->buf; /* still the day's text: nothing else writes the room */
    o->len = dc->len;
    return 0;
}

/* FROM_UNIXTIME(n[, f]): n seconds in SimpleDateFormat's pattern
 * (yyyy-MM-dd HH:mm:ss), the local time of the session's zone. */
static bool t_from_unixtime(weir__fnbind *b)
{
    if (!t_pattern(b, 1, true, b->n->nargs > 1 ? NULL : TS_FORMAT))
        return false;
    b->n->type = pattern_result(b, 0);
    want_zone(b);
    return true;
}

static int e_from_unixtime(const weir__fncall *c, weir__val *o, const char **why)
{
    dt_pat local;
    const dt_pat *p = pattern(c, 1, true, &local, why);
    if (!p)
        return WEIR_EINVAL;
    int64_t ms = (int64_t)((uint64_t)c->args[0].i * 1000u); /* Java's long arithmetic */
    /* DateTimeUtils.formatUnixTimestamp: in the session's zone */
    return write_pattern(c, p, ms + weir_time_zone_offset(c->n->zone, ms), 0, o, why);
}

/* TO_TIMESTAMP(s): Flink's DEFAULT_TIMESTAMP_FORMATTER,
 * yyyy-[MM][M]-[dd][d][ [HH][H]:[mm][m]:[ss][s][.fraction]], all of s;
 * NULL when it does not read. */
static int default_timestamp(const weir__val *s, int64_t *ms)
{
    const char *p = s->s ? s->s : "";
    uint32_t n = s->len, i = 0;
    dt_parsed f;
    memset(&f, 0, sizeof f);
#define DIGITS(out, lo, hi)                                                         \
    do {                                                                            \
        uint32_t k_ = 0;                                                            \
        int64_t v_ = 0;                                                             \
        while (i < n && p[i] >= '0' && p[i] <= '9' && k_ < (hi)) {                  \
            v_ = v_ * 10 + (p[i++] - '0');                                          \
            k_++;                                                                   \
        }                                                                           \
        if (k_ < (lo))                                                              \
            return -1;                                                              \
        out = v_;                                                                   \
    } while (0)
    DIGITS(f.year, 4, 10);
    if (i >= n || p[i++] != '-')
        return -1;
    int64_t v;
    DIGITS(v, 1, 2);
    f.month = (int)v;
    if (i >= n || p[i++] != '-')
        return -1;
    DIGITS(v, 1, 2);
    f.day = (int)v;
    f.has_year = f.has_month = f.has_day = true;
    if (i < n) {
        if (p[i++] != ' ')
            return -1;
        DIGITS(v, 1, 2);
        f.hour = (int)v;
        if (i >= n || p[i++] != ':')
            return -1;
        DIGITS(v, 1, 2);
        f.minute = (int)v;
        if (i >= n || p[i++] != ':')
            return -1;
        DIGITS(v, 1, 2);
        f.second = (int)v;
        if (i < n && p[i] == '.') {
            i++;
            int64_t nano = 0;
            uint32_t k = 0;
            while (i < n && p[i] >= '0' && p[i] <= '9' && k < 9) {
                nano = nano * 10 + (p[i++] - '0');
                k++;
            }
            for (; k < 9; k++)
                nano *= 10;
            f.nano = nano;
        }
        if (i != n)
            return -1;
    }
#undef DIGITS
    return dt_resolve_smart(&f, ms);
}

/* java.sql.Timestamp.valueOf / Date.valueOf, Flink's fallback after a
 * pattern that does not read: yyyy-[m]m-[d]d[ h:m:s[.f]], the month and
 * day checked (1-12, 1-31), the rest rolled over leniently. */
static int sql_timestamp_value(const weir__val *s, int64_t *ms)
{
    char buf[64];
    const char *p = s->s ? s->s : "";
    uint32_t a = 0, e = s->len;
    while (a < e && (unsigned char)p[a] <= ' ')
        a++;
    while (e > a && (unsigned char)p[e - 1] <= ' ')
        e--;
    if (e - a >= sizeof buf)
        return -1;
    memcpy(buf, p + a, e - a);
    buf[e - a] = 0;
    int y, mo, d, h = 0, mi = 0, sec = 0, used = 0;
    char frac[16] = "";
    if (strchr(buf, ' ')) {
        if (sscanf(buf, "%4d-%2d-%2d %d:%d:%d%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6)
            return -1;
        if (buf[used] == '.') {
            size_t fl = strspn(buf + used + 1, "0123456789");
            if (fl == 0 || fl > 9 || buf[used + 1 + fl])
                return -1;
            memcpy(frac, buf + used + 1, fl);
        } else if (buf[used]) {
            return -1;
        }
    } else {
        if (sscanf(buf, "%4d-%2d-%2d%n", &y, &mo, &d, &used) != 3 || buf[used])
            return -1;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31)
        return -1;
    dt_parsed f = {.year = y, .month = mo, .day = d, .hour = h, .minute = mi, .second = sec,
                   .has_year = true, .has_month = true, .has_day = true};
    int64_t millis = 0;
    for (int k = 0; k < 3; k++)
        millis = millis * 10 + (frac[k] ? frac[k] - '0' : 0);
    f.nano = millis;
    *ms = dt_resolve_lenient(&f);
    return 0;
}

static bool t_to_timestamp(weir__fnbind *b)
{
    if (b->n->nargs > 1 && !t_pattern(b, 1, false, NULL))
        return false;
    b->n->type = type_of(WEIR_TYPE_TIMESTAMP, false);
    return true;
}

/* TO_TIMESTAMP(s[, f]): NULL for a string that does not read (Flink
 * catches the exception). */
static int e_to_timestamp(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    int64_t ms;
    if (c->n->nargs == 1) {
        if (default_timestamp(&c->args[0], &ms)) {
            o->null = true;
            return 0;
        }
        o->i = ms;
        return 0;
    }
    dt_pat local;
    const char *bad = NULL;
    const dt_pat *p = pattern(c, 1, false, &local, &bad);
    dt_parsed f;
    if (p && dt_parse(p, c->args[0].s ? c->args[0].s : "", c->args[0].len, &f) == 0) {
        if (dt_resolve_smart(&f, &ms)) {
            o->null = true; /* a DateTimeException, not a parse exception: NULL too */
            return 0;
        }
        o->i = ms;
        return 0;
    }
    if (!p || sql_timestamp_value(&c->args[0], &ms)) {
        o->null = true;
        return 0;
    }
    o->i = ms;
    return 0;
}

/* TO_DATE(s): DateTimeUtils.parseDate(s), CAST's reading (y, y-m, y-m-d,
 * a timestamp's date), NULL when it does not read. TO_DATE(s, f):
 * DateTimeUtils.parseDate(s, f), SimpleDateFormat's lenient parse in UTC
 * and the day of that instant; a string that does not read is the day of
 * Long.MIN_VALUE milliseconds, as Flink's (its parse returns
 * Long.MIN_VALUE), through Calcite's ymdToUnixDate in Java's int, which
 * wraps at that year. */
static bool t_to_date(weir__fnbind *b)
{
    if (b->n->nargs > 1 && !t_pattern(b, 1, true, NULL))
        return false;
    b->n->type = type_of(WEIR_TYPE_DATE, false);
    return true;
}

/* Calcite's DateTimeUtils.ymdToUnixDate in Java's int arithmetic. */
static int32_t ymd_to_unix_date(int64_t year, int64_t month, int64_t day)
{
    int32_t y0 = (int32_t)(uint32_t)(uint64_t)year, m0 = (int32_t)month, d0 = (int32_t)day;
    int32_t a = (14 - m0) / 12;
    uint32_t y = (uint32_t)y0 + 4800u - (uint32_t)a;
    int32_t m = m0 + 12 * a - 3;
    int32_t yi = (int32_t)y;
    uint32_t julian = (uint32_t)d0 + (uint32_t)((153 * m + 2) / 5) + 365u * y +
                      (uint32_t)(yi / 4) - (uint32_t)(yi / 100) + (uint32_t)(yi / 400) -
                      32045u;
    return (int32_t)(julian - 2440588u);
}

static int e_to_date(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__val *s = &c->args[0];
    if (c->n->nargs == 1) {
        if (weir__cast_to_date(s->s ? s->s : "", s->len, &o->i))
            o->null = true;
        return 0;
    }
    dt_pat local;
    const dt_pat *p = pattern(c, 1, true, &local, why);
    if (!p)
        return WEIR_EINVAL;
    int64_t ms;
    if (sdf_parse(p, s, &ms))
        ms = INT64_MIN;
    int64_t y;
    unsigned m, d;
    weir__civil_from_days(floor_div(ms, 86400000), &y, &m, &d);
    o->i = ymd_to_unix_date(y, m, d);
    return 0;
}

/* UNIX_TIMESTAMP(): the row's time in seconds; UNIX_TIMESTAMP(s[, f]): s in
 * SimpleDateFormat's pattern (yyyy-MM-dd HH:mm:ss), a local time of the
 * session's zone, in seconds; a string that does not read is
 * Long.MIN_VALUE, as Flink's. */
static bool t_unix_timestamp(weir__fnbind *b)
{
    if (b->n->nargs == 0) {
        b->n->aux[1] = weir__bind_clock_slot(b->p);
        b->n->type = type_of(WEIR_TYPE_BIGINT, true);
        return true;
    }
    if (!t_pattern(b, 1, true, b->n->nargs > 1 ? NULL : TS_FORMAT))
        return false;
    b->n->type = type_of(WEIR_TYPE_BIGINT, weir__fn_args_not_null(b));
    want_zone(b);
    return true;
}

static int e_unix_timestamp(const weir__fncall *c, weir__val *o, const char **why)
{
    if (c->n->nargs == 0) {
        int64_t now;
        memcpy(&now, c->sc + c->n->aux[1], sizeof now);
        o->i = now / 1000;
        return 0;
    }
    dt_pat local;
    const dt_pat *p = pattern(c, 1, true, &local, why);
    if (!p)
        return WEIR_EINVAL;
    int64_t ms;
    if (sdf_parse(p, &c->args[0], &ms)) {
        o->i = INT64_MIN;
        return 0;
    }
    /* DateTimeUtils.unixTimestamp: the local time in the session's zone,
     * Date.getTime() / 1000 (Java's division, toward zero) */
    o->i = weir__time_zone_to_utc_lenient(c->n->zone, ms) / 1000;
    return 0;
}

/* TO_TIMESTAMP_LTZ(n, precision): n seconds (0) or milliseconds (3) since
 * the epoch; NULL outside 0000-01-01 .. 9999-12-31. */
static bool t_to_timestamp_ltz(weir__fnbind *b)
{
    const weir__val *v;
    if (!weir__fn_literal(b, 1, &v) || (v->i != 0 && v->i != 3)) {
        weir__bind_fail(b->p, b->n->args[1]->pos,
                        "The precision value '%" PRId64 "' for function TO_TIMESTAMP_LTZ(numeric, "
                        "precision) is unsupported, the supported value is '0' for second or "
                        "'3' for millisecond.",
                        weir__fn_literal(b, 1, &v) ? v->i : (int64_t)-1);
        return false;
    }
    b->n->aux[0] = v->i;
    b->n->type = type_of(WEIR_TYPE_TIMESTAMP_LTZ, false);
    return true;
}

static int e_to_timestamp_ltz(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    const int64_t min_s = -62167219200LL, max_s = 253402300799LL;
    bool dbl = weir__type_is_approx(c->n->args[0]->type.id);
    int64_t ms;
    if (c->n->args[0]->type.id == WEIR_TYPE_DECIMAL) {
        /* DateTimeUtils.toTimestampData(DecimalData, p): truncated toward
         * zero (setScale(0, DOWN)), seconds or milliseconds */
        int64_t v = weir__dec_to_long(weir__dec_get(&c->args[0]), c->n->args[0]->type.scale);
        ms = c->n->aux[0] == 0 ? (int64_t)((uint64_t)v * 1000u) : v;
    } else if (c->n->aux[0] == 0) {
        if (dbl ? !(c->args[0].d >= (double)min_s && c->args[0].d <= (double)max_s)
                : (c->args[0].i < min_s || c->args[0].i > max_s)) {
            o->null = true;
            return 0;
        }
        ms = dbl ? (int64_t)(c->args[0].d * 1000) : c->args[0].i * 1000;
    } else {
        double d = c->args[0].d;
        ms = dbl ? (d != d ? 0 : d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : (int64_t)d)
                 : c->args[0].i;
    }
    if (ms < min_s * 1000 || ms > max_s * 1000 + 999) {
        o->null = true;
        return 0;
    }
    o->i = ms;
    return 0;
}

/* ---- the clock: CURRENT_TIMESTAMP, NOW(), LOCALTIMESTAMP, CURRENT_DATE ... ------------------- */

/* The row's processing time: the job clock the operator reads once a row
 * (weir__table_now: the virtual clock's time, reproducible, or the system's
 * wall clock), from the expression's clock slot. CURRENT_TIMESTAMP, NOW()
 * and CURRENT_ROW_TIMESTAMP() are that instant, a TIMESTAMP_LTZ(3); the
 * others its local date-time in the session's zone, as Flink's
 * CurrentTimePointCallGen: LOCALTIMESTAMP a TIMESTAMP(3), CURRENT_DATE a
 * DATE, CURRENT_TIME and LOCALTIME a TIME(0) (its milliseconds kept, as
 * DateTimeUtils.timestampMillisToTime keeps them). */
enum { NOW_INSTANT, NOW_TIMESTAMP, NOW_DATE, NOW_TIME };

static bool t_now(weir__fnbind *b)
{
    static const weir_type_id ids[] = {WEIR_TYPE_TIMESTAMP_LTZ, WEIR_TYPE_TIMESTAMP,
                                       WEIR_TYPE_DATE, WEIR_TYPE_TIME};
    b->n->aux[1] = weir__bind_clock_slot(b->p);
    b->n->type = type_of(ids[b->f->which], true);
    if (b->f->which == NOW_TIME)
        b->n->type.precision = WEIR_PRECISION_ZERO;
    want_zone(b);
    return true;
}

static int e_now(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    int64_t now;
    memcpy(&now, c->sc + c->n->aux[1], sizeof now);
    int64_t local = now + weir_time_zone_offset(c->n->zone, now);
    switch (c->n->aux[0]) {
    case NOW_INSTANT: o->i = now; break;
    case NOW_TIMESTAMP: o->i = local; break;
    case NOW_DATE: o->i = floor_div(local, 86400000); break;
    default: o->i = local - floor_div(local, 86400000) * 86400000; break;
    }
    return 0;
}

/* ---- CONVERT_TZ --------------------------------------------------------------------------------- */

/* This thread's zones named per row: 8 names and the zones they are (the
 * zones are the process's, never freed: nothing to free here). */
#define TZ_CACHE 8
static _Thread_local struct {
    char name[64];             // cppcheck-suppress unusedStructMember ; read in zone_named
    uint32_t len;              // cppcheck-suppress unusedStructMember ; read in zone_named
    const weir_time_zone *z;   // cppcheck-suppress unusedStructMember ; read in zone_named
} zone_cache[TZ_CACHE];
static _Thread_local unsigned zone_next;

static const weir_time_zone *zone_named(const weir__val *v)
{
    const char *s = v->s ? v->s : "";
    for (int i = 0; i < TZ_CACHE; i++)
        if (zone_cache[i].z && zone_cache[i].len == v->len &&
            memcmp(zone_cache[i].name, s, v->len) == 0)
            return zone_cache[i].z;
    const weir_time_zone *z;
    if (weir__time_zone_java(s, v->len, &z))
        return NULL;
    if (v->len < sizeof zone_cache[0].name) {
        unsigned i = zone_next++ % TZ_CACHE;
        memcpy(zone_cache[i].name, s, v->len);
        zone_cache[i].len = v->len;
        zone_cache[i].z = z;
    }
    return z;
}

typedef struct tz_pair {
    const weir_time_zone *from, *to;
} tz_pair;

static bool t_convert_tz(weir__fnbind *b)
{
    const weir__val *f, *t;
    if (weir__fn_literal(b, 1, &f) && weir__fn_literal(b, 2, &t)) {
        tz_pair *z = calloc(1, sizeof *z);
        if (!z || weir__time_zone_java(f->s ? f->s : "", f->len, &z->from) ||
            weir__time_zone_java(t->s ? t->s : "", t->len, &z->to)) {
            free(z);
            weir__bind_nomem(b->p);
            return false;
        }
        b->n->data = z;
        b->n->data_free = free;
    }
    b->n->type = weir__fn_varchar(24, false);
    return true;
}

/* CONVERT_TZ(s, from, to): s (SimpleDateFormat's yyyy-MM-dd HH:mm:ss,
 * leniently) a time in zone `from`, written as the same instant's time in
 * zone `to`; NULL when s does not read. */
static int e_convert_tz(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir_time_zone *from, *to;
    if (c->n->data) {
        from = ((const tz_pair *)c->n->data)->from;
        to = ((const tz_pair *)c->n->data)->to;
    } else {
        from = zone_named(&c->args[1]);
        to = zone_named(&c->args[2]);
    }
    if (!from || !to) {
        *why = "CONVERT_TZ: out of memory reading a time zone";
        return WEIR_ENOMEM;
    }
    dt_tok tok[32];
    dt_pat p = ts_pattern(tok);
    int64_t local;
    if (sdf_parse(&p, &c->args[0], &local)) {
        o->null = true;
        return 0;
    }
    int64_t utc = weir__time_zone_to_utc_lenient(from, local);
    return write_pattern(c, &p, utc + weir_time_zone_offset(to, utc), 0, o, why);
}

/* ---- the table ---------------------------------------------------------------------------------- */

#define CALL WEIR_AST_FORM_CALL

const weir__builtin weir__fn_temporal[] = {
    {"EXTRACT", 1, 1, WEIR_AST_FORM_EXTRACT, 0, "D", t_extract, e_extract, 0},
    {"YEAR", 1, 1, CALL, 0, "D", t_extract, e_extract, U_YEAR},
    {"QUARTER", 1, 1, CALL, 0, "D", t_extract, e_extract, U_QUARTER},
    {"MONTH", 1, 1, CALL, 0, "D", t_extract, e_extract, U_MONTH},
    {"WEEK", 1, 1, CALL, 0, "D", t_extract, e_extract, U_WEEK},
    {"DAYOFYEAR", 1, 1, CALL, 0, "D", t_extract, e_extract, U_DOY},
    {"DAYOFMONTH", 1, 1, CALL, 0, "D", t_extract, e_extract, U_DAY},
    {"DAYOFWEEK", 1, 1, CALL, 0, "D", t_extract, e_extract, U_DOW},
    {"HOUR", 1, 1, CALL, 0, "D", t_extract, e_extract, U_HOUR},
    {"MINUTE", 1, 1, CALL, 0, "D", t_extract, e_extract, U_MINUTE},
    {"SECOND", 1, 1, CALL, 0, "D", t_extract, e_extract, U_SECOND},
    {"FLOOR", 1, 1, WEIR_AST_FORM_FLOOR_TO, 0, "D", t_floor_to, e_floor_to, 0},
    {"CEIL", 1, 1, WEIR_AST_FORM_FLOOR_TO, 0, "D", t_floor_to, e_floor_to, 1},
    {"CEILING", 1, 1, WEIR_AST_FORM_FLOOR_TO, 0, "D", t_floor_to, e_floor_to, 1},
    {"TIMESTAMPADD", 2, 2, CALL, 0, NULL, t_timestampadd, e_timestampadd, 0},
    {"TIMESTAMPDIFF", 2, 2, CALL, 0, NULL, t_timestampdiff, e_timestampdiff, 0},
    {"DATE_FORMAT", 2, 2, CALL, 0, "T,S;S,S", t_date_format, e_date_format, 0},
    {"FROM_UNIXTIME", 1, 2, CALL, 0, "I;I,S", t_from_unixtime, e_from_unixtime, 0},
    {"TO_TIMESTAMP", 1, 2, CALL, 0, "C;C,C", t_to_timestamp, e_to_timestamp, 0},
    {"TO_DATE", 1, 2, CALL, 0, "S;S,S", t_to_date, e_to_date, 0},
    {"UNIX_TIMESTAMP", 0, 2, CALL, 0, ";S;S,S", t_unix_timestamp, e_unix_timestamp, 0},
    {"TO_TIMESTAMP_LTZ", 2, 2, CALL, 0, "N,I", t_to_timestamp_ltz, e_to_timestamp_ltz, 0},
    {"CURRENT_TIMESTAMP", 0, 0, WEIR_AST_FORM_NILADIC, 0, NULL, t_now, e_now, NOW_INSTANT},
    {"LOCALTIMESTAMP", 0, 0, WEIR_AST_FORM_NILADIC, 0, NULL, t_now, e_now, NOW_TIMESTAMP},
    {"CURRENT_DATE", 0, 0, WEIR_AST_FORM_NILADIC, 0, NULL, t_now, e_now, NOW_DATE},
    {"CURRENT_TIME", 0, 0, WEIR_AST_FORM_NILADIC, 0, NULL, t_now, e_now, NOW_TIME},
    {"LOCALTIME", 0, 0, WEIR_AST_FORM_NILADIC, 0, NULL, t_now, e_now, NOW_TIME},
    {"NOW", 0, 0, CALL, 0, NULL, t_now, e_now, NOW_INSTANT},
    {"CURRENT_ROW_TIMESTAMP", 0, 0, CALL, 0, NULL, t_now, e_now, NOW_INSTANT},
    /* a processing-time attribute's value (`proc AS PROCTIME()`): the job
     * clock when the row is read, TIMESTAMP_LTZ(3) NOT NULL */
    {"PROCTIME", 0, 0, CALL, 0, NULL, t_now, e_now, NOW_INSTANT},
    {"CONVERT_TZ", 3, 3, CALL, 0, "S,S,S", t_convert_tz, e_convert_tz, 0},
    {NULL, 0, 0, CALL, 0, NULL, NULL, NULL, 0},
};
