/* weir/capture.h — reading a capture back: the events a run's diagnostic
 * channel wrote (weir/diag.h), from a JSONL or a msgpack file, one canonical
 * JSON line per event.
 *
 * A capture (docs/CAPTURE.md) is either JSONL (one JSON object per line) or
 * msgpack (one map per event, concatenated). The reader tells them apart by
 * the first byte: a msgpack map header (0x80..0x8f, 0xde, 0xdf; every
 * msgpack event is a map) is msgpack, anything else is JSONL, with a UTF-8
 * byte order mark skipped. So a text file that is not JSON is refused as
 * JSONL, at its line ("FILE:1: not JSON ..." from a tool), not as msgpack.
 * Either way weir_capture_reader_next() hands out each event as one JSON text
 * without a newline: a JSONL line as it is in the file; a msgpack event
 * printed by the same printer the JSONL sink uses, so that converting a
 * run's msgpack capture gives, byte for byte, the JSONL the run wrote.
 *
 * The reader checks framing, not meaning: a msgpack event must be complete, at
 * most 64 MiB, nested at most 32 levels, and a map that JSON can hold; a
 * JSONL line must be non-empty text without NUL bytes, at most 64 MiB. Whether a JSONL line is JSON, and whether the events make sense
 * together, is `weir capture validate`'s business.
 *
 * Errors name where they are, so that a tool can print them as they are:
 *     FILE: cannot open: No such file or directory
 *     FILE: byte offset 1234: the capture was cut short in the middle of an
 *         event (the writing process stopped)
 *     FILE: byte offset 56: event is not a map
 *     FILE: byte offset 0: malformed msgpack event: nested deeper than 32
 *         levels, at byte offset 31
 *     FILE:17: empty line
 *
 * Lifetime: weir_capture_reader_open*() ... next() until END or an error ...
 * weir_capture_reader_close(). Threads: a reader is not MT safe (one thread
 * at a time uses it); different readers are independent and may be used on
 * different threads at once. No call here touches a job.
 */
#ifndef WEIR_CAPTURE_H
#define WEIR_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "weir/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_capture_reader weir_capture_reader;

typedef enum weir_capture_format {
    WEIR_CAPTURE_JSONL = 1,
    WEIR_CAPTURE_MSGPACK = 2
} weir_capture_format;

/* Flow results of weir_capture_reader_next() (not errors). */
typedef enum weir_capture_result {
    WEIR_CAPTURE_EVENT = 1, /* *json is the next event */
    WEIR_CAPTURE_END = 2    /* no more events */
} weir_capture_result;

/* Opens the capture at `path` (copied) and detects its format, reading its
 * first bytes. Returns 0 and sets *out, or a negative code with
 * *out NULL, nothing left open, and the message in errbuf (if errbuf is not
 * NULL; cut to errsize): WEIR_ENOENT for a missing file ("PATH: cannot open:
 * No such file or directory"), WEIR_EIO for one that cannot be opened or
 * read, WEIR_EINVAL for NULL arguments, WEIR_ENOMEM. An empty file opens as
 * JSONL with no events. */
WEIR_EXPORT WEIR_NODISCARD int weir_capture_reader_open(const char *path, weir_capture_reader **out,
                                                        char *errbuf, size_t errsize);

/* The same on a stream the caller opened (stdin, a pipe, ...): `f` is
 * borrowed, read from its current position, and never closed by the reader;
 * it must stay open until weir_capture_reader_close(). `name` (copied) is
 * what messages call it ("-" or "stdin", say). */
WEIR_EXPORT WEIR_NODISCARD int weir_capture_reader_open_file(FILE *f, const char *name,
                                                             weir_capture_reader **out,
                                                             char *errbuf, size_t errsize);

/* The same on `size` bytes at `data`: borrowed, they must stay valid and
 * unchanged until weir_capture_reader_close(). */
WEIR_EXPORT WEIR_NODISCARD int weir_capture_reader_open_memory(const void *data, size_t size,
                                                               const char *name,
                                                               weir_capture_reader **out,
                                                               char *errbuf, size_t errsize);

/* Closes the file it opened (not one given to _open_file) and frees the
 * reader. NULL is allowed. */
WEIR_EXPORT void weir_capture_reader_close(weir_capture_reader *r);

/* The next event. Returns WEIR_CAPTURE_EVENT with *json set to the event as
 * one NUL-terminated JSON text without a newline (and *len to its length, if
 * len is not NULL), WEIR_CAPTURE_END when the capture has no more, or a
 * negative code with the message in weir_capture_reader_error():
 * WEIR_EFORMAT (a truncated or malformed event), WEIR_EIO (a read error),
 * WEIR_ENOMEM. *json is owned by the reader and valid until the next call or
 * close. Once it returned END or an error, it returns the same again. */
WEIR_EXPORT int weir_capture_reader_next(weir_capture_reader *r, const char **json, size_t *len);

WEIR_EXPORT weir_capture_format weir_capture_reader_format(const weir_capture_reader *r);

/* The name messages use (the path, or the name given). Owned by the reader. */
WEIR_EXPORT const char *weir_capture_reader_name(const weir_capture_reader *r);

/* The message of the error next() returned ("" if none), with its place.
 * Owned by the reader, valid until close. */
WEIR_EXPORT const char *weir_capture_reader_error(const weir_capture_reader *r);

/* Where the event next() last returned (or failed on) starts: its 1-based
 * number in the capture (= its line in the JSONL form), its line in a JSONL
 * file (0 for msgpack), and its byte offset in the input. */
WEIR_EXPORT int64_t weir_capture_reader_event_number(const weir_capture_reader *r);
WEIR_EXPORT int64_t weir_capture_reader_line(const weir_capture_reader *r);
WEIR_EXPORT int64_t weir_capture_reader_offset(const weir_capture_reader *r);

/* Whether the input ended inside the event next() last returned or failed
 * on, as when the process writing the capture was stopped: a msgpack event
 * cut short (next() failed with WEIR_EFORMAT), or a JSONL last line without
 * its newline (returned as an event: the reader does not parse JSON, so a
 * tool that finds it is not JSON can say the capture was cut short rather
 * than malformed). A tool converting what is complete may stop there. */
WEIR_EXPORT bool weir_capture_reader_cut(const weir_capture_reader *r);

/* Writes that place the way the reader's own messages name it, "NAME:LINE"
 * for JSONL and "NAME: byte offset N" for msgpack, so that a tool reporting a
 * problem with an event reads like the reader reporting one. Returns the
 * length it wanted to write (like snprintf). */
WEIR_EXPORT int weir_capture_reader_where(const weir_capture_reader *r, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
