/* civil.h — days and civil dates of the proleptic Gregorian calendar, as
 * Java's LocalDate counts them (Flink's DATE is days since 1970-01-01):
 * one copy for the time zones (time_zone.c) and the table layer's dates
 * and timestamps. Howard Hinnant's algorithms, exact for every year. */
#ifndef WEIR_BASE_CIVIL_H
#define WEIR_BASE_CIVIL_H

#include <stdbool.h>
#include <stdint.h>

/* Days since 1970-01-01 of y-m-d (m 1..12, d 1..31). */
static inline int64_t weir__days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* The civil date of `days` since 1970-01-01. */
static inline void weir__civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    unsigned doe = (unsigned)(days - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

static inline bool weir__leap_year(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* The days of month m of year y. */
static inline unsigned weir__month_days(int64_t y, unsigned m)
{
    static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && weir__leap_year(y) ? 29 : days[m - 1];
}

/* a divided by b (b > 0), rounded toward negative infinity, and its
 * remainder in 0..b-1 (Java's Math.floorDiv / floorMod). */
static inline int64_t weir__floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static inline int64_t weir__floor_mod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return r < 0 ? r + b : r;
}

#endif
