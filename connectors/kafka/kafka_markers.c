/* kafka_markers.c — the watermark markers' text (kafka_markers.h). */
#include "kafka_markers.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/error.h"

int weir__kafka_marker_format(const weir__kafka_marker *m, char *buf, size_t size)
{
    return snprintf(buf, size, "%d %d %c %" PRId64, m->writer, m->writers, (char)m->kind,
                    m->watermark);
}

/* A decimal integer in [lo, hi] at *p followed by `end` ('\0': the end);
 * advances *p past both. Only digits and a leading '-' (strtoll would take
 * spaces and '+' too, and sscanf's %lld gives no word on overflow). */
static bool number(const char **p, long long lo, long long hi, char end, long long *out)
{
    const char *s = *p;
    if (!((*s >= '0' && *s <= '9') || (*s == '-' && s[1] >= '0' && s[1] <= '9')))
        return false;
    errno = 0;
    char *e;
    long long v = strtoll(s, &e, 10);
    if (errno == ERANGE || v < lo || v > hi || *e != end)
        return false;
    *p = end ? e + 1 : e;
    *out = v;
    return true;
}

int weir__kafka_marker_parse(const void *text, size_t len, weir__kafka_marker *m)
{
    char buf[WEIR__KAFKA_MARKER_MAX];
    if (len >= sizeof buf)
        return WEIR_EFORMAT;
    memcpy(buf, text, len);
    buf[len] = '\0';
    const char *p = buf;
    long long writer, writers, wm;
    if (!number(&p, 0, WEIR__KAFKA_MAX_WRITERS - 1, ' ', &writer) ||
        !number(&p, 1, WEIR__KAFKA_MAX_WRITERS, ' ', &writers) || writer >= writers)
        return WEIR_EFORMAT;
    char kind = *p;
    if (!kind || !strchr("WIAE", kind) || p[1] != ' ')
        return WEIR_EFORMAT;
    p += 2;
    if (!number(&p, INT64_MIN, INT64_MAX, '\0', &wm))
        return WEIR_EFORMAT;
    *m = (weir__kafka_marker){.writer = (int)writer,
                              .writers = (int)writers,
                              .kind = (weir__kafka_mark)kind,
                              .watermark = (int64_t)wm};
    return 0;
}
