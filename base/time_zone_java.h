/* time_zone_java.h — time zones as java.util.TimeZone reads them, for
 * the functions Flink computes with java.util classes (CONVERT_TZ,
 * FROM_UNIXTIME, UNIX_TIMESTAMP, DATE_FORMAT of a string: TimeZone and
 * SimpleDateFormat's lenient GregorianCalendar). The zones are
 * weir/time_zone.h's (one reading of the tz database, one list of zones
 * kept for the process); only the names and the wall-clock rule differ.
 * Private to libweir (base/ and the table layer).
 */
#ifndef WEIR_BASE_TIME_ZONE_JAVA_H
#define WEIR_BASE_TIME_ZONE_JAVA_H

#include <stddef.h>
#include <stdint.h>

#include "weir/time_zone.h"

/* The zone Java's TimeZone.getTimeZone(name) is: a region of the tz
 * database ("Europe/Berlin", "UTC", "EST5EDT"), Java's custom IDs
 * ("GMT+8", "GMT-08:00", "GMT+0530", "GMT+530"), Java's old three-letter
 * IDs ("PST" is America/Los_Angeles, "CTT" Asia/Shanghai ...); any other
 * name (not NUL-terminated: len bytes) is GMT, as Java answers for a zone
 * it does not know. 0 and *out, or WEIR_ENOMEM. MT safe; plan time, or
 * per row behind a cache (the first lookup of a name reads its file). */
int weir__time_zone_java(const char *name, size_t len, const weir_time_zone **out);

/* The instant of the local date-time `local_ms` as Java's lenient
 * GregorianCalendar finds it (SimpleDateFormat's parse): in a gap (the
 * clocks jumped forward) the time moved on by the gap, as java.time does,
 * but in an overlap (they fell back) the later instant (standard time),
 * where java.time (weir_time_zone_to_utc) takes the earlier. */
int64_t weir__time_zone_to_utc_lenient(const weir_time_zone *zone, int64_t local_ms);

#endif
