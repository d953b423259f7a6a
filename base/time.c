/* time.c — the public helpers of weir/time.h. */
#include <inttypes.h>
#include <stdio.h>

#include "weir/time.h"

char *weir_ts_format(int64_t t, char buf[21])
{
    if (t == WEIR_TS_MIN)
        snprintf(buf, 21, "MIN");
    else if (t == WEIR_TS_MAX)
        snprintf(buf, 21, "MAX");
    else
        snprintf(buf, 21, "%" PRId64, t);
    return buf;
}
