/* sql_text.c — the small texts of SQL's options and messages (sql_text.h). */
#include "sql_text.h"
#include "message_text.h"
#include "weir/error.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- durations ------------------------------------------------------------ */

typedef struct unit {
    const char *name;
    int64_t ms;
} unit;

int sql_duration_ms(const char *text, int64_t *ms)
{
    static const unit words[] = {
        {"ms", 1},          {"milli", 1},       {"millis", 1},   {"millisecond", 1},
        {"milliseconds", 1}, {"s", 1000},       {"sec", 1000},   {"secs", 1000},
        {"second", 1000},   {"seconds", 1000},  {"min", 60000},  {"mins", 60000},
        {"minute", 60000},  {"minutes", 60000}, {"h", 3600000},  {"hour", 3600000},
        {"hours", 3600000}, {"d", 86400000},    {"day", 86400000}, {"days", 86400000},
    };
    const char *s = text;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return WEIR_EINVAL;
    char *e;
    double v = strtod(s, &e);
    while (isspace((unsigned char)*e))
        e++;
    size_t n = strlen(e);
    while (n && isspace((unsigned char)e[n - 1]))
        n--;
    int64_t scale = n == 0 ? 1 : 0;
    for (size_t k = 0; n && k < sizeof words / sizeof *words; k++)
        if (strlen(words[k].name) == n && strncasecmp(e, words[k].name, n) == 0)
            scale = words[k].ms;
    if (!scale || v * (double)scale > 9.0e15)
        return WEIR_EINVAL;
    double r = v * (double)scale;
    if (r != (double)(int64_t)r)
        return WEIR_EINVAL; /* finer than a millisecond */
    *ms = (int64_t)r;
    return 0;
}

int sql_edit_distance(const char *a, const char *b)
{
    return weir__edit_distance(a, b);
}
