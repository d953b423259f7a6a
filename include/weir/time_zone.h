/* weir/time_zone.h — time zones for TIMESTAMP_LTZ: Flink's
 * 'table.local-time-zone', in which a TIMESTAMP_LTZ (an instant) is shown
 * and converted to and from the local date-times TIMESTAMP, DATE and TIME.
 *
 * A zone is read once from the system's time zone database (tzdata's
 * TZif files under /usr/share/zoneinfo, or $TZDIR): its transitions and
 * the POSIX rule that goes on after the last one, so that offsets are
 * right in every year. Looking a zone up is for plan time; a zone, once
 * had, is immutable and never freed (the process keeps each zone it read,
 * one per name), so that compiled expressions may point at it: every
 * function here is MT safe, and the offset calls allocate nothing.
 *
 * Names are Flink's: a TZDB name ('America/Los_Angeles', 'Asia/Shanghai',
 * 'Europe/Berlin'), 'UTC', or a fixed offset 'GMT+08:00' / 'GMT-3'. Other
 * forms that Java would read differently (abbreviations such as 'PST', a
 * bare '+08:00') are refused, as Flink's TableConfig refuses them. */
#ifndef WEIR_TIME_ZONE_H
#define WEIR_TIME_ZONE_H

#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_time_zone weir_time_zone;

/* The zone named `name` (see above; 'default' is the system's zone:
 * $TZ, else /etc/localtime, else UTC): 0 and *out, or WEIR_EINVAL with
 * Flink's message in err (an unknown or refused name, an unreadable
 * zone file), or WEIR_ENOMEM. MT safe; the zone lives as long as the
 * process. */
WEIR_EXPORT int weir_time_zone_get(const char *name, const weir_time_zone **out, char *err,
                                   size_t errsize);

/* UTC (never fails). */
WEIR_EXPORT const weir_time_zone *weir_time_zone_utc(void);

/* The zone's name as it was asked for ('UTC', 'Europe/Berlin'). */
WEIR_EXPORT const char *weir_time_zone_name(const weir_time_zone *zone);

/* The zone's offset from UTC, in milliseconds, at the instant `utc_ms`
 * (milliseconds since the epoch): local time is utc_ms + the offset. */
WEIR_EXPORT int64_t weir_time_zone_offset(const weir_time_zone *zone, int64_t utc_ms);

/* The instant of the local date-time `local_ms` (milliseconds since
 * 1970-01-01 00:00, local), as Java's LocalDateTime.atZone: in a gap (the
 * clocks jumped forward) the local time is moved later by the gap's
 * length; in an overlap (they fell back) the earlier instant. */
WEIR_EXPORT int64_t weir_time_zone_to_utc(const weir_time_zone *zone, int64_t local_ms);

#ifdef __cplusplus
}
#endif
#endif
