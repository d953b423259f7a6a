/* capture_reader.c — reads a capture back, JSONL or msgpack, one canonical
 * JSON line per event (weir/capture.h).
 *
 * Design. The input (a file, a borrowed stream or a borrowed buffer) is seen
 * through one window `data[pos..len)` of unread bytes whose first byte sits at
 * offset `base` of the input. For a buffer the window is the buffer itself;
 * for a stream it is an owned buffer that `fill` compacts (dropping what was
 * consumed), grows and refills, so memory stays at about the largest event
 * whatever the capture's size.
 *
 * JSONL: an event is the bytes up to the next '\n' (the last line may lack
 * it), copied out and NUL-terminated. msgpack: msgpack_unpack_next() is tried
 * on the window; "continue" means the event is not all there yet — read more,
 * or, at the end of the input, the event was cut short. The event is printed
 * with weir__msgpack_to_json, the printer the JSONL sink uses, which is what
 * makes a converted capture byte-identical to the run's own JSONL.
 *
 * Every error is sticky and carries its place (the event's line or byte
 * offset), and a single event larger than MAX_EVENT is refused rather than
 * buffered, so a corrupt length or a file with no newline cannot make the
 * reader swallow all memory.
 */
#include "weir/capture.h"

#include <errno.h>
#include <inttypes.h>
#include <msgpack.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "capture_json.h"
#include "util.h"
#include "weir/error.h"

#define CHUNK (64 * 1024)
#define MAX_EVENT ((size_t)64 * 1024 * 1024)

struct weir_capture_reader {
    char *name;
    FILE *f;       /* NULL when reading a buffer */
    bool own_file; /* opened by weir_capture_reader_open: closed with the reader */
    unsigned char *buf;
    size_t cap;
    const unsigned char *data; /* the window: buf, or the caller's buffer */
    size_t len, pos;
    int64_t base;  /* input offset of data[0] */
    bool eof;
    weir_capture_format format;
    int64_t number, line, offset; /* of the event last returned (or failed on) */
    int64_t next_line;
    int status;    /* 0 while reading; then WEIR_CAPTURE_END or an error, for good */
    char err[512];
    msgpack_unpacked up;
    weir__buf json;
};

static void set_msg(char *buf, size_t size, const char *name, const char *what, int err)
{
    if (buf && size)
        snprintf(buf, size, "%s: %s: %s", name, what, strerror(err));
}

/* Reads more input into the window. 0, or a negative code after setting the
 * reader's error. At the end of the input it sets eof and returns 0. */
static int fill(weir_capture_reader *r)
{
    if (r->eof)
        return 0;
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->base += (int64_t)r->pos;
        r->pos = 0;
    }
    if (r->cap - r->len < CHUNK / 2) {
        size_t cap = r->cap ? r->cap * 2 : CHUNK;
        unsigned char *b = realloc(r->buf, cap);
        if (!b) {
            snprintf(r->err, sizeof r->err, "%s: out of memory", r->name);
            return WEIR_ENOMEM;
        }
        r->buf = b;
        r->cap = cap;
    }
    r->data = r->buf;
    size_t n = fread(r->buf + r->len, 1, r->cap - r->len, r->f);
    r->len += n;
    if (n == 0) {
        if (ferror(r->f)) {
            set_msg(r->err, sizeof r->err, r->name, "cannot read", errno ? errno : EIO);
            return WEIR_EIO;
        }
        r->eof = true;
    }
    return 0;
}

/* The first byte of a msgpack map: fixmap, map 16, map 32. Every event of a
 * msgpack capture is a map, so a capture starts with one of these; a JSON
 * text never does (it starts with ASCII: white space or a value; a byte
 * order mark starts with 0xef). */
static bool is_map_header(unsigned char c)
{
    return (c >= 0x80 && c <= 0x8f) || c == 0xde || c == 0xdf;
}

/* Reads the first byte and decides the format: msgpack when it starts a map,
 * else JSONL (what is not JSON is then refused as such, "FILE:1: ...", not
 * as bad msgpack). A UTF-8 byte order mark in front of JSONL is skipped. */
static int detect(weir_capture_reader *r)
{
    while (r->len < 3 && !r->eof) {
        int e = fill(r); /* pos is 0 here: nothing is consumed yet */
        if (e)
            return e;
    }
    if (r->len > 0 && is_map_header(r->data[0])) {
        r->format = WEIR_CAPTURE_MSGPACK;
        return 0;
    }
    r->format = WEIR_CAPTURE_JSONL;
    if (r->len >= 3 && memcmp(r->data, "\xef\xbb\xbf", 3) == 0)
        r->pos = 3;
    return 0;
}

static int reader_new(const char *name, weir_capture_reader **out)
{
    weir_capture_reader *r = calloc(1, sizeof *r);
    if (!r)
        return WEIR_ENOMEM;
    r->name = weir__strdup(name);
    if (!r->name) {
        free(r);
        return WEIR_ENOMEM;
    }
    r->next_line = 1;
    msgpack_unpacked_init(&r->up);
    *out = r;
    return 0;
}

/* Finishes an open: detects the format or undoes everything. */
static int reader_start(weir_capture_reader *r, weir_capture_reader **out, char *errbuf,
                        size_t errsize)
{
    int e = detect(r);
    if (e) {
        if (errbuf && errsize)
            snprintf(errbuf, errsize, "%s", r->err);
        weir_capture_reader_close(r);
        return e;
    }
    r->err[0] = '\0';
    *out = r;
    return 0;
}

int weir_capture_reader_open(const char *path, weir_capture_reader **out, char *errbuf,
                             size_t errsize)
{
    if (!out)
        return WEIR_EINVAL;
    *out = NULL;
    if (!path)
        return WEIR_EINVAL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        int err = errno;
        set_msg(errbuf, errsize, path, "cannot open", err);
        return err == ENOENT ? WEIR_ENOENT : WEIR_EIO;
    }
    weir_capture_reader *r;
    int e = reader_new(path, &r);
    if (e) {
        fclose(f);
        if (errbuf && errsize)
            snprintf(errbuf, errsize, "%s: out of memory", path);
        return e;
    }
    r->f = f;
    r->own_file = true;
    return reader_start(r, out, errbuf, errsize);
}

int weir_capture_reader_open_file(FILE *f, const char *name, weir_capture_reader **out,
                                  char *errbuf, size_t errsize)
{
    if (!out)
        return WEIR_EINVAL;
    *out = NULL;
    if (!f || !name)
        return WEIR_EINVAL;
    weir_capture_reader *r;
    int e = reader_new(name, &r);
    if (e) {
        if (errbuf && errsize)
            snprintf(errbuf, errsize, "%s: out of memory", name);
        return e;
    }
    r->f = f;
    return reader_start(r, out, errbuf, errsize);
}

int weir_capture_reader_open_memory(const void *data, size_t size, const char *name,
                                    weir_capture_reader **out, char *errbuf, size_t errsize)
{
    if (!out)
        return WEIR_EINVAL;
    *out = NULL;
    if ((!data && size) || !name)
        return WEIR_EINVAL;
    weir_capture_reader *r;
    int e = reader_new(name, &r);
    if (e) {
        if (errbuf && errsize)
            snprintf(errbuf, errsize, "%s: out of memory", name);
        return e;
    }
    r->data = data ? data : (const unsigned char *)"";
    r->len = size;
    r->eof = true;
    return reader_start(r, out, errbuf, errsize);
}

void weir_capture_reader_close(weir_capture_reader *r)
{
    if (!r)
        return;
    if (r->own_file && r->f)
        fclose(r->f);
    msgpack_unpacked_destroy(&r->up);
    weir__buf_free(&r->json);
    free(r->buf);
    free(r->name);
    free(r);
}

/* Fails the reader at the current event with "PLACE: what". */
static int fail(weir_capture_reader *r, int code, const char *what)
{
    int n = weir_capture_reader_where(r, r->err, sizeof r->err);
    if (n >= 0 && (size_t)n < sizeof r->err)
        snprintf(r->err + n, sizeof r->err - (size_t)n, ": %s", what);
    r->status = code;
    return code;
}

static int out_of_memory(weir_capture_reader *r)
{
    snprintf(r->err, sizeof r->err, "%s: out of memory", r->name);
    r->status = WEIR_ENOMEM;
    return WEIR_ENOMEM;
}

static int next_jsonl(weir_capture_reader *r)
{
    size_t scanned = 0; /* bytes of the window already searched for '\n' */
    size_t start, end;
    for (;;) {
        const unsigned char *nl = memchr(r->data + r->pos + scanned, '\n', r->len - r->pos - scanned);
        if (nl) {
            start = r->pos;
            end = (size_t)(nl - r->data);
            r->pos = end + 1;
            break;
        }
        if (r->eof) {
            if (r->pos == r->len)
                return r->status = WEIR_CAPTURE_END;
            start = r->pos; /* a last line without its newline */
            end = r->len;
            r->pos = r->len;
            break;
        }
        scanned = r->len - r->pos;
        if (scanned > MAX_EVENT) {
            r->number++;
            r->line = r->next_line;
            r->offset = r->base + (int64_t)r->pos;
            return fail(r, WEIR_EFORMAT, "line longer than 64 MiB");
        }
        int e = fill(r);
        if (e)
            return r->status = e;
    }
    r->number++;
    r->line = r->next_line++;
    r->offset = r->base + (int64_t)start;
    size_t n = end - start;
    if (n == 0)
        return fail(r, WEIR_EFORMAT, "empty line (a capture has one JSON object per line)");
    if (memchr(r->data + start, '\0', n))
        return fail(r, WEIR_EFORMAT, "NUL byte in the line (not JSONL text)");
    weir__buf_reset(&r->json);
    weir__buf_append(&r->json, (const char *)r->data + start, n);
    weir__buf_cstr(&r->json);
    if (r->json.failed)
        return out_of_memory(r);
    return WEIR_CAPTURE_EVENT;
}

static int next_msgpack(weir_capture_reader *r)
{
    for (;;) {
        if (r->pos < r->len) {
            size_t off = 0;
            msgpack_unpack_return rc = msgpack_unpack_next(
                &r->up, (const char *)r->data + r->pos, r->len - r->pos, &off);
            if (rc == MSGPACK_UNPACK_SUCCESS || rc == MSGPACK_UNPACK_EXTRA_BYTES) {
                r->number++;
                r->offset = r->base + (int64_t)r->pos;
                r->pos += off;
                break;
            }
            if (rc == MSGPACK_UNPACK_NOMEM_ERROR)
                return out_of_memory(r);
            if (rc != MSGPACK_UNPACK_CONTINUE || r->eof || r->len - r->pos > MAX_EVENT) {
                r->number++;
                r->offset = r->base + (int64_t)r->pos;
                return fail(r, WEIR_EFORMAT,
                            rc != MSGPACK_UNPACK_CONTINUE ? "malformed msgpack event"
                            : r->eof                      ? "truncated msgpack event"
                                                          : "msgpack event larger than 64 MiB");
            }
        } else if (r->eof) {
            return r->status = WEIR_CAPTURE_END;
        }
        int e = fill(r);
        if (e)
            return r->status = e;
    }
    if (r->up.data.type != MSGPACK_OBJECT_MAP)
        return fail(r, WEIR_EFORMAT, "event is not a map");
    weir__buf_reset(&r->json);
    if (weir__msgpack_to_json(&r->up.data, &r->json) != 0) {
        if (r->json.failed)
            return out_of_memory(r);
        return fail(r, WEIR_EFORMAT,
                    "event has no JSON form (a map key that is not a string, binary or ext "
                    "data, or a float that is not finite)");
    }
    weir__buf_cstr(&r->json);
    if (r->json.failed)
        return out_of_memory(r);
    return WEIR_CAPTURE_EVENT;
}

int weir_capture_reader_next(weir_capture_reader *r, const char **json, size_t *len)
{
    if (!r || !json)
        return WEIR_EINVAL;
    *json = NULL;
    if (len)
        *len = 0;
    if (r->status)
        return r->status;
    int e = r->format == WEIR_CAPTURE_JSONL ? next_jsonl(r) : next_msgpack(r);
    if (e == WEIR_CAPTURE_EVENT) {
        *json = r->json.data;
        if (len)
            *len = r->json.len;
    }
    return e;
}

weir_capture_format weir_capture_reader_format(const weir_capture_reader *r)
{
    return r->format;
}

const char *weir_capture_reader_name(const weir_capture_reader *r)
{
    return r->name;
}

const char *weir_capture_reader_error(const weir_capture_reader *r)
{
    return r->status < 0 ? r->err : "";
}

int64_t weir_capture_reader_event_number(const weir_capture_reader *r)
{
    return r->number;
}

int64_t weir_capture_reader_line(const weir_capture_reader *r)
{
    return r->format == WEIR_CAPTURE_JSONL ? r->line : 0;
}

int64_t weir_capture_reader_offset(const weir_capture_reader *r)
{
    return r->offset;
}

int weir_capture_reader_where(const weir_capture_reader *r, char *buf, size_t size)
{
    if (r->format == WEIR_CAPTURE_JSONL)
        return snprintf(buf, size, "%s:%" PRId64, r->name, r->line);
    return snprintf(buf, size, "%s: byte offset %" PRId64, r->name, r->offset);
}
