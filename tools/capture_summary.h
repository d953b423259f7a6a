/* capture_summary.h — `weir capture summary` (capture_summary.c). */
#ifndef WEIR_TOOLS_CAPTURE_SUMMARY_H
#define WEIR_TOOLS_CAPTURE_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

/* `weir capture summary` after its options: the report of the capture at
 * path on out, or -1 with the first problem in err. */
int cap_summary_main(const char *path, FILE *out, char *err, size_t errsize);

#endif
