/* test_time_zone.c — time zones from the system's tzdata (weir/time_zone.h):
 * Flink's names accepted and refused with its message, offsets at known
 * instants (a transition's two sides, a southern-hemisphere zone, a year
 * past the last transition, where the POSIX rule answers), local
 * date-times into instants as Java's LocalDateTime.atZone does in gaps
 * and overlaps, and a property test: the offsets at random instants from
 * 1900 to 2200 against the C library's own reading of the same zones
 * (localtime_r with TZ set), an independent implementation. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weir/error.h"
#include "weir/time_zone.h"

static const weir_time_zone *zone(const char *name)
{
    const weir_time_zone *z = NULL;
    char err[512];
    int r = weir_time_zone_get(name, &z, err, sizeof err);
    cr_assert_eq(r, 0, "%s: %s", name, err);
    cr_assert_not_null(z);
    return z;
}

/* 2024-03-31 01:00:00 UTC and friends, in ms. */
#define H (3600 * 1000LL)
static const int64_t mar31_01z = 1711846800000LL;

Test(time_zone, names_flink_takes_and_refuses)
{
    cr_assert_eq(zone("UTC"), weir_time_zone_utc());
    cr_assert_str_eq(weir_time_zone_name(zone("Europe/Berlin")), "Europe/Berlin");
    cr_assert_eq(zone("Europe/Berlin"), zone("Europe/Berlin"), "read once, kept");
    cr_assert_eq(weir_time_zone_offset(zone("GMT+08:00"), 0), 8 * H);
    cr_assert_eq(weir_time_zone_offset(zone("GMT-3"), 0), -3 * H);
    cr_assert_eq(weir_time_zone_offset(zone("GMT"), 0), 0);
    static const char *bad[] = {"PST", "+08:00", "UTC+8", "Europe/Nowhere", "../etc/passwd",
                                "GMT+25", "Z", "America", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const weir_time_zone *z = NULL;
        char err[512];
        cr_expect_eq(weir_time_zone_get(bad[i], &z, err, sizeof err), WEIR_EINVAL, "%s", bad[i]);
        cr_expect(strstr(err, "Invalid time zone for 'table.local-time-zone'. The value should "
                              "be a Time Zone Database (TZDB) ID"),
                  "%s: %s", bad[i], err);
    }
}

Test(time_zone, offsets_at_known_instants)
{
    const weir_time_zone *berlin = zone("Europe/Berlin");
    /* CET until 2024-03-31 01:00 UTC, CEST from then on */
    cr_assert_eq(weir_time_zone_offset(berlin, mar31_01z - 1), 1 * H);
    cr_assert_eq(weir_time_zone_offset(berlin, mar31_01z), 2 * H);
    /* 2150: past tzdata's last transition, the POSIX rule's answer */
    cr_assert_eq(weir_time_zone_offset(berlin, 5649350400000LL /* 2149-01-10 */), 1 * H);
    cr_assert_eq(weir_time_zone_offset(berlin, 5664988800000LL /* 2149-07-10 */), 2 * H);
    /* Sydney: daylight time in January */
    const weir_time_zone *sydney = zone("Australia/Sydney");
    cr_assert_eq(weir_time_zone_offset(sydney, 1704844800000LL /* 2024-01-10 */), 11 * H);
    cr_assert_eq(weir_time_zone_offset(sydney, 1720569600000LL /* 2024-07-10 */), 10 * H);
    cr_assert_eq(weir_time_zone_offset(zone("Asia/Kolkata"), 0), 5 * H + 30 * 60000);
}

Test(time_zone, local_times_into_instants_as_java)
{
    const weir_time_zone *berlin = zone("Europe/Berlin");
    int64_t local_0230 = mar31_01z + 1 * H + 30 * 60000; /* 2024-03-31 02:30, in the gap */
    /* Java: moved later by the gap, 03:30 CEST = 01:30 UTC */
    cr_assert_eq(weir_time_zone_to_utc(berlin, local_0230), mar31_01z + 30 * 60000);
    int64_t local_0130 = mar31_01z + 30 * 60000;    /* 01:30 CET = 00:30 UTC */
    cr_assert_eq(weir_time_zone_to_utc(berlin, local_0130), mar31_01z - 30 * 60000);
    /* 2024-10-27 02:30 happens twice: the earlier (CEST) instant, 00:30 UTC */
    int64_t oct27_0230_local = 1729996200000LL + 2 * H + 30 * 60000 - 2 * H;
    (void)oct27_0230_local;
    int64_t oct27 = 1729987200000LL; /* 2024-10-27 00:00 UTC */
    cr_assert_eq(weir_time_zone_to_utc(berlin, oct27 + 2 * H + 30 * 60000),
                 oct27 + 30 * 60000);
    cr_assert_eq(weir_time_zone_to_utc(weir_time_zone_utc(), 12345), 12345);
}

/* The C library's offset of zone `name` at UTC second t. */
static long libc_offset(const char *name, time_t t)
{
    struct tm tm;
    cr_assert_not_null(localtime_r(&t, &tm));
    (void)name;
    return tm.tm_gmtoff;
}

Test(time_zone, offsets_agree_with_the_c_library)
{
    static const char *names[] = {"Europe/Berlin", "America/Los_Angeles", "Australia/Sydney",
                                  "America/Sao_Paulo", "Asia/Tehran", "Pacific/Chatham",
                                  "Africa/Casablanca", "America/Santiago", "Asia/Shanghai",
                                  "Europe/London", "Pacific/Apia", "Etc/GMT+8"};
    unsigned seed = 39;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const weir_time_zone *z = zone(names[i]);
        setenv("TZ", names[i], 1);
        tzset();
        for (int k = 0; k < 4000; k++) {
            /* 1900 .. 2200 */
            int64_t lo = -2208988800LL, span = 9467280000LL;
            int64_t t = lo + (int64_t)(((uint64_t)rand_r(&seed) << 31 ^ (uint64_t)rand_r(&seed)) %
                                       (uint64_t)span);
            long want = libc_offset(names[i], (time_t)t);
            int64_t got = weir_time_zone_offset(z, t * 1000) / 1000;
            cr_assert_eq(got, want, "%s at %lld: %lld, the C library says %ld", names[i],
                         (long long)t, (long long)got, want);
        }
    }
    unsetenv("TZ");
    tzset();
}
