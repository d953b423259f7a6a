/* capture_chrome_trace.h — a capture as the Trace Event Format
 * (capture_chrome_trace.c). */
#ifndef WEIR_TOOLS_CAPTURE_CHROME_TRACE_H
#define WEIR_TOOLS_CAPTURE_CHROME_TRACE_H

#include <stddef.h>
#include <stdio.h>

/* The capture at `in` as a Trace Event Format JSON
 * document, written to `out` while it is read and checked. 0 when the whole
 * valid capture was written (write errors are the caller's to see with
 * ferror); -1 with the first problem in err, and `out` holding a partial
 * document to throw away. */
int cap_chrome_trace(const char *in, FILE *out, char *err, size_t errsize);

#endif
