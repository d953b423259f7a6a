/* capture_read.h — reading a capture once, event by event (capture_read.c):
 * the reader (weir/capture.h) gives each event as a JSON line, jansson
 * parses it, the checker (capture_validate.h) checks it, and a visitor (the
 * summary, the chrome trace) then folds it into its output. */
#ifndef WEIR_TOOLS_CAPTURE_READ_H
#define WEIR_TOOLS_CAPTURE_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "capture_validate.h"
#include "weir/capture.h"

/* Opens the capture at path ("-": stdin) with the library's reader. 0, or
 * -1 with the reader's message in err. */
int cap_open(const char *path, weir_capture_reader **r, char *err, size_t errsize);

/* Called for every event after the checker passed it. 0, or -1 with the
 * problem in msg (size 1024). */
typedef int (*cap_visit_fn)(void *arg, const cap_check *c, json_t *ev, char *msg);

/* Reads and checks the capture at path ("-": stdin), calling visit (may be
 * NULL) for every event. 0 when it is valid; else -1 with the first problem,
 * with its place ("FILE:LINE: ..."), in err. */
int cap_read(const char *path, cap_check *c, cap_visit_fn visit, void *arg, char *err,
             size_t errsize);

/* jansson's allocations, watched (capture_read.c): jansson does not always say
 * it ran out of memory (a failed allocation while parsing may come out as
 * a syntax error, or corrupt its lexer; json_object() returns NULL, and
 * setting a member of NULL is ignored), so the tool puts its own allocator
 * under jansson's, which records a failure (and serves it from a reserve).
 * cap_json_watch() installs it (once) and clears the record;
 * cap_json_failed() says whether any jansson allocation failed since.
 * cap_read calls cap_json_watch when it starts, and fails with "out of
 * memory" at an event whose parse met a failure. */
void cap_json_watch(void);
bool cap_json_failed(void);

#endif
