/* fn_datetime.h — the date-time patterns and time zones of the temporal
 * functions (fn_temporal.c, fn_pattern.c); their time zones are
 * base/time_zone.c's (weir/time_zone.h, time_zone_java.h). Private to the
 * table layer.
 */
#ifndef WEIR_TABLE_FN_DATETIME_H
#define WEIR_TABLE_FN_DATETIME_H

#include "fn.h"

/* ---- a timestamp's calendar fields (UTC, proleptic Gregorian) ------------------ */

typedef struct dt_fields {
    int64_t year;
    unsigned month, day;   /* 1-based */
    int hour, minute, second, milli;
    int64_t days;          /* since 1970-01-01 */
    int dow;               /* 0 Sunday .. 6 Saturday */
    int doy;               /* 1-based */
} dt_fields;

void dt_split(int64_t ms, dt_fields *f);

/* ---- patterns: Java's DateTimeFormatter (java.time) and SimpleDateFormat ------- */

typedef struct dt_tok {
    uint16_t off, len; /* a literal: its bytes in the pattern's text */
    char letter;       /* 0 a literal; '[' and ']' an optional section */
    uint8_t count;
} dt_tok;

typedef struct dt_pat {
    const char *text; /* the pattern (not owned) */
    bool sdf;         /* SimpleDateFormat's letters, else DateTimeFormatter's */
    int n;
    dt_tok *tok;
} dt_pat;

/* Compiles `len` bytes of pattern into p, its tokens into tok (room for
 * len + 1): 0, or -1 with the message in why (Java's: "Unknown pattern
 * letter: b", "Illegal pattern character 'b'"; a zone letter where the
 * value has no zone). */
int dt_compile(dt_pat *p, const char *text, uint32_t len, bool sdf, dt_tok *tok,
               char *why, size_t whysize);
/* The most bytes the pattern writes. */
uint32_t dt_max_len(const dt_pat *p);
/* ms (a local date-time) and the nanoseconds within its millisecond
 * (0..999999: a TIMESTAMP(p > 3)'s, for DateTimeFormatter's S beyond three
 * digits, n and N) written in the pattern into out (cap bytes): its
 * length, or -1 when it does not fit. */
int dt_format(const dt_pat *p, int64_t ms, int32_t nanos, char *out, uint32_t cap);

/* What a parse found. */
typedef struct dt_parsed {
    int64_t year;
    int month, day, hour, hour12, ampm, minute, second;
    int64_t nano;  /* DateTimeFormatter's fraction; SimpleDateFormat's S milliseconds */
    bool has_year, has_month, has_day, has_hour, has_hour12, has_minute, has_second;
} dt_parsed;

/* Parses s with the pattern: DateTimeFormatter's strict widths and the
 * whole of s, or SimpleDateFormat's lenient fields and any rest left. 0,
 * or -1 when s does not fit it. */
int dt_parse(const dt_pat *p, const char *s, uint32_t n, dt_parsed *out);

/* The local time (ms) of what SimpleDateFormat's lenient calendar makes of
 * it (a month 13 is next January, a day 32 the next month's first ...). */
int64_t dt_resolve_lenient(const dt_parsed *f);
/* The local time of what DateTimeFormatter's SMART resolver makes of it (a
 * day past the month's end is its last day when the year, month and day
 * are all given; 24:00:00 is the next day), as Flink's defaults fill the
 * rest (1970-01-01 00:00:00): 0 and *ms, or -1 (out of range). */
int dt_resolve_smart(const dt_parsed *f, int64_t *ms);

#endif
