/* report.h — the one-file report: viewer/index.html with captures embedded
 * (report.c). */
#ifndef WEIR_TOOLS_REPORT_H
#define WEIR_TOOLS_REPORT_H

#include <stddef.h>

/* Writes `path`: the viewer with the JSONL captures `files` embedded under
 * `names` (shown in that order, side by side when several). Written by
 * weir/outfile.h's writer: a regular PATH through a temporary file renamed
 * over it, so a failure leaves nothing half-written; a link through to the
 * file it names; a FIFO or a device in place. Returns 0, or 1 after
 * printing the reason on stderr. */
int weir_report_write(const char *path, const char *const *names, const char *const *files,
                      size_t n);

/* The viewer's text, built into the program (report_viewer.c, generated). */
extern const unsigned char weir_viewer_html[];
extern const size_t weir_viewer_html_size;

#endif
