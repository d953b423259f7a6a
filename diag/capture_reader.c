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
 *
 * msgpack_unpack_next() builds an object as soon as it reads a container's
 * header: a map claiming 4 G entries makes it allocate for all of them, and
 * nesting deeper than its stack (32 levels) is reported like a failed
 * allocation. So scan() walks the bytes of an event first, without
 * building anything, and refuses what no event can be — a byte that is no
 * msgpack type, more elements than MAX_EVENT bytes can hold, nesting deeper
 * than MAX_DEPTH — as malformed at its byte offset; the unpacker only sees
 * an event that is whole and within those bounds, so its out of memory is
 * one.
 *
 * A capture whose writer was stopped (a run killed) ends inside an event:
 * a msgpack event cut short, or a JSONL last line without its newline. The
 * reader says so (weir_capture_reader_cut) so that tools can tell "cut
 * short" from "malformed".
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
/* Capture events nest 4 levels (summary, operators, an entry, ...);
 * msgpack-c's unpacker holds 32. */
#define MAX_DEPTH 32

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
    bool cut;      /* the input ended inside the event last returned or failed on */
    int status;    /* 0 while reading; then WEIR_CAPTURE_END or an error, for good */
    char err[512];
    msgpack_unpacked up;
    weir__buf json;
};

/* "NAME: WHAT: reason"; the C library's ENOMEM (fopen allocates) is said as
 * every other allocation failure is, "out of memory". */
static void set_msg(char *buf, size_t size, const char *name, const char *what, int err)
{
    if (buf && size)
        snprintf(buf, size, "%s: %s: %s", name, what,
                 err == ENOMEM ? "out of memory" : strerror(err));
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

/* A reader named `name` with nothing to read yet; on failure the message is in errbuf. */
static int reader_new(const char *name, weir_capture_reader **out, char *errbuf, size_t errsize)
{
    weir_capture_reader *r = calloc(1, sizeof *r);
    if (r) {
        r->name = weir__strdup(name);
        if (!r->name) {
            free(r);
            r = NULL;
        }
    }
    if (!r) {
        if (errbuf && errsize)
            snprintf(errbuf, errsize, "%s: out of memory", name);
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
        return err == ENOENT ? WEIR_ENOENT : err == ENOMEM ? WEIR_ENOMEM : WEIR_EIO;
    }
    weir_capture_reader *r;
    int e = reader_new(path, &r, errbuf, errsize);
    if (e) {
        fclose(f);
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
    int e = reader_new(name, &r, errbuf, errsize);
    if (e)
        return e;
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
    int e = reader_new(name, &r, errbuf, errsize);
    if (e)
        return e;
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
            r->cut = true;
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

/* What scan() found at the start of a window. */
typedef enum scan_result { SCAN_WHOLE, SCAN_MORE, SCAN_BAD } scan_result;

static uint64_t be(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* Walks the one msgpack object at p[0..n) without building it: SCAN_WHOLE
 * with its size in *size, SCAN_MORE when it goes on past n, or SCAN_BAD with
 * the offending byte's offset in *size and why in `why`.
 * Longer than 80 lines on purpose: one loop over msgpack's format bytes,
 * whose stack of open containers is the loop's own state; split, every
 * part would take and return that stack, and each case is a few lines. */
static scan_result scan(const unsigned char *p, size_t n, size_t *size, char *why, size_t whysize)
{
    uint64_t left[MAX_DEPTH + 1]; /* elements still to come, per open container */
    int depth = 0;
    left[0] = 1;
    size_t i = 0;
    for (;;) {
        if (i >= n)
            return SCAN_MORE;
        unsigned c = p[i];
        int head = 1;        /* bytes of the header */
        int lenbytes = 0;    /* of them, the big-endian length or count after the type */
        uint64_t body = 0;   /* bytes after the header */
        uint64_t elements = 0;
        bool container = false, is_map = false;
        if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) {
            /* fixint, nil, false, true */
        } else if (c <= 0x8f) {
            container = is_map = true;
            elements = c & 0x0f;
        } else if (c <= 0x9f) {
            container = true;
            elements = c & 0x0f;
        } else if (c <= 0xbf) {
            body = c & 0x1f;
        } else if (c == 0xc1) {
            *size = i;
            snprintf(why, whysize, "byte 0xc1 is no msgpack type");
            return SCAN_BAD;
        } else if (c >= 0xc4 && c <= 0xc6) { /* bin 8/16/32 */
            lenbytes = 1 << (c - 0xc4);
        } else if (c >= 0xc7 && c <= 0xc9) { /* ext 8/16/32: length, then type */
            lenbytes = 1 << (c - 0xc7);
            head = 2;
        } else if (c == 0xca || c == 0xcb) { /* float 32/64 */
            body = c == 0xca ? 4 : 8;
        } else if (c >= 0xcc && c <= 0xd3) { /* uint, int 8..64 */
            body = (uint64_t)1 << ((c - 0xcc) & 3);
        } else if (c >= 0xd4 && c <= 0xd8) { /* fixext 1..16, after a type byte */
            body = 1 + ((uint64_t)1 << (c - 0xd4));
        } else if (c >= 0xd9 && c <= 0xdb) { /* str 8/16/32 */
            lenbytes = 1 << (c - 0xd9);
        } else { /* 0xdc..0xdf: array 16/32, map 16/32 */
            container = true;
            is_map = c >= 0xde;
            lenbytes = c == 0xdc || c == 0xde ? 2 : 4;
        }
        head += lenbytes;
        if (n - i < (size_t)head)
            return SCAN_MORE;
        if (lenbytes) {
            uint64_t v = be(p + i + 1, lenbytes); /* right after the type byte */
            if (container)
                elements = v;
            else
                body = v;
        }
        if (container) {
            /* every element takes a byte at least: more than an event can
             * hold is no event, whatever follows */
            if (elements > MAX_EVENT) {
                *size = i;
                snprintf(why, whysize, "%s of %" PRIu64 " %s (an event of at most 64 MiB holds "
                         "fewer)", is_map ? "a map" : "an array", elements,
                         is_map ? "entries" : "elements");
                return SCAN_BAD;
            }
            if (is_map)
                elements *= 2;
        } else if (body > MAX_EVENT) {
            *size = i;
            snprintf(why, whysize, "a string, binary or ext value of %" PRIu64 " bytes (an event "
                     "of at most 64 MiB holds fewer)", body);
            return SCAN_BAD;
        } else if (body > n - i - (size_t)head) {
            return SCAN_MORE;
        }
        if (container && elements > 0 && depth == MAX_DEPTH) {
            *size = i;
            snprintf(why, whysize, "nested deeper than %d levels", MAX_DEPTH);
            return SCAN_BAD;
        }
        i += (size_t)head + (size_t)body;
        left[depth]--;
        if (container && elements > 0)
            left[++depth] = elements;
        while (left[depth] == 0) {
            if (depth == 0) {
                *size = i;
                return SCAN_WHOLE;
            }
            depth--;
        }
    }
}

static int next_msgpack(weir_capture_reader *r)
{
    size_t size;
    for (;;) {
        if (r->pos < r->len) {
            char why[160];
            scan_result sr = scan(r->data + r->pos, r->len - r->pos, &size, why, sizeof why);
            if (sr == SCAN_WHOLE)
                break;
            if (sr == SCAN_BAD || r->eof || r->len - r->pos > MAX_EVENT) {
                r->number++;
                r->offset = r->base + (int64_t)r->pos;
                if (sr == SCAN_BAD) {
                    char what[256];
                    snprintf(what, sizeof what,
                             "malformed msgpack event: %s, at byte offset %" PRId64, why,
                             r->offset + (int64_t)size);
                    return fail(r, WEIR_EFORMAT, what);
                }
                if (!r->eof)
                    return fail(r, WEIR_EFORMAT, "msgpack event larger than 64 MiB");
                r->cut = true;
                return fail(r, WEIR_EFORMAT,
                            "the capture was cut short in the middle of an event (the writing "
                            "process stopped)");
            }
        } else if (r->eof) {
            return r->status = WEIR_CAPTURE_END;
        }
        int e = fill(r);
        if (e)
            return r->status = e;
    }
    size_t off = 0;
    msgpack_unpack_return rc =
        msgpack_unpack_next(&r->up, (const char *)r->data + r->pos, size, &off);
    r->number++;
    r->offset = r->base + (int64_t)r->pos;
    r->pos += size;
    if (rc == MSGPACK_UNPACK_NOMEM_ERROR)
        return out_of_memory(r);
    if (rc != MSGPACK_UNPACK_SUCCESS || off != size) /* scan() and msgpack-c disagree */
        return fail(r, WEIR_EFORMAT, "malformed msgpack event");
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

bool weir_capture_reader_cut(const weir_capture_reader *r)
{
    return r->cut;
}

int weir_capture_reader_where(const weir_capture_reader *r, char *buf, size_t size)
{
    if (r->format == WEIR_CAPTURE_JSONL)
        return snprintf(buf, size, "%s:%" PRId64, r->name, r->line);
    return snprintf(buf, size, "%s: byte offset %" PRId64, r->name, r->offset);
}
