/* message.h — the command line's error messages on standard error, with
 * every byte they echo from the input made printable (message.c). */
#ifndef WEIR_TOOLS_MESSAGE_H
#define WEIR_TOOLS_MESSAGE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <weir.h>

/* Formats the message, escapes it (weir_tool_escape) and writes it with a
 * newline to standard error. Never truncates: a message longer than the
 * stack buffer is formatted on the heap (and, without memory, written in
 * pieces as it is escaped). */
void weir_tool_error(const char *fmt, ...) WEIR_PRINTF(1, 2);
/* The same with a prefix (escaped too; NULL for none) and a va_list. */
void weir_tool_errorv(const char *prefix, const char *fmt, va_list ap) WEIR_PRINTF(2, 0);

/* Writes `n` bytes of `s` to `out` with every byte that could drive a
 * terminal written as an escape: the C0 controls and DEL as \t, \n, \r or
 * \xNN, a byte that is not part of valid UTF-8 as \xNN, and the C1 controls
 * (U+0080..U+009F) and the bidirectional overrides (U+202A..U+202E,
 * U+2066..U+2069) as the \xNN of their bytes. Valid printable UTF-8 passes
 * unchanged, so file names in any language stay readable. */
void weir_tool_escape(FILE *out, const char *s, size_t n);

/* strerror(err) for a message, but ENOMEM (the C library's calls that
 * allocate: fopen, fdopen, realpath) is "out of memory", as every other
 * allocation failure of the command line says it. */
const char *weir_tool_strerror(int err);

/* Why writes to `f` failed, for a message, when the C library no longer
 * says: its error flag is set, but errno was lost (stdio keeps no errno with
 * it, and a write on another thread set another thread's errno). EPIPE when
 * f is a pipe or a socket whose reader has gone (the usual case: `weir ... |
 * head` with SIGPIPE ignored, as under a supervisor), else EIO. Call it
 * before f is closed. */
int weir_tool_lost_write_errno(FILE *f);

/* Standard output failed and the command has said so, with the reason:
 * weir's exit (weir.c), which checks standard output, says nothing more.
 * Main thread only. */
void weir_tool_stdout_said(void);
bool weir_tool_stdout_was_said(void);

#endif
