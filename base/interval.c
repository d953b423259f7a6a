/* interval.c — interval literals' values (interval.h). */
#include "interval.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct unit_def {
    const char *name;
    int64_t ms;
} unit_def;

static const unit_def units[WEIR__NUNITS] = {
    {"DAY", 86400000}, {"HOUR", 3600000}, {"MINUTE", 60000}, {"SECOND", 1000}, {"MILLISECOND", 1},
};

int weir__interval_unit(const char *w, size_t n)
{
    for (int u = 0; u < WEIR__NUNITS; u++) {
        size_t k = strlen(units[u].name);
        if ((n == k || (n == k + 1 && (w[k] == 's' || w[k] == 'S'))) &&
            strncasecmp(w, units[u].name, k) == 0)
            return u;
    }
    return -1;
}

const char *weir__interval_unit_name(int u)
{
    return u >= 0 && u < WEIR__NUNITS ? units[u].name : "";
}

/* A field of an interval's value: digits, and for seconds a fraction. */
static int field(const char **s, const char *end, bool fraction, int64_t unit_ms, int64_t *ms)
{
    const char *p = *s;
    int64_t v = 0;
    if (p >= end || !isdigit((unsigned char)*p))
        return -1;
    while (p < end && isdigit((unsigned char)*p)) {
        if (v > INT64_MAX / 10 - 10)
            return -1;
        v = v * 10 + (*p++ - '0');
    }
    if (v > INT64_MAX / unit_ms)
        return -1;
    v *= unit_ms;
    if (fraction && p < end && *p == '.') {
        p++;
        int64_t scale = unit_ms / 10;
        if (p >= end || !isdigit((unsigned char)*p))
            return -1;
        while (p < end && isdigit((unsigned char)*p)) {
            if (scale == 0 && *p != '0')
                return -1; /* finer than a millisecond */
            v += (*p++ - '0') * scale;
            scale /= 10;
        }
    }
    *s = p;
    *ms = v;
    return 0;
}

int weir__interval_value(const char *v, size_t vlen, int from, int to, int64_t *ms, char *why,
                         size_t whysize)
{
    /* The value's fields, one per unit of the range: DAY then ' ', the
     * others then ':'. */
    const char *p = v, *vend = v + vlen;
    int64_t total = 0;
    bool neg = p < vend && *p == '-';
    if (neg)
        p++;
    for (int u = from; u <= to; u++) {
        int64_t part;
        if (field(&p, vend, units[u].ms == 1000, units[u].ms, &part) || total > INT64_MAX - part) {
            snprintf(why, whysize, "'%.*s' is not a %s%s%s interval value", (int)vlen, v,
                     units[from].name, to != from ? " TO " : "", to != from ? units[to].name : "");
            return -1;
        }
        total += part;
        if (u < to) {
            char sep = units[u].ms == 86400000 ? ' ' : ':';
            if (p >= vend || *p != sep) {
                snprintf(why, whysize, "'%.*s' is not a %s TO %s interval value", (int)vlen,
                         v, units[from].name, units[to].name);
                return -1;
            }
            p++;
        }
    }
    if (p != vend) {
        snprintf(why, whysize, "'%.*s' is not a %s interval value", (int)vlen, v,
                 units[from].name);
        return -1;
    }
    *ms = neg ? -total : total;
    return 0;
}
