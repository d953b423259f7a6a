/* capture_json.h — the one way weir writes an event as JSON text: a writer
 * that is told the event's values in msgpack's order (a map or array with its
 * size first, then its members) and prints them. The collector drives it and
 * msgpack's packer with one call sequence per event (diag_events.c), and
 * `weir capture convert` drives it from a msgpack object it read
 * (weir__msgpack_to_json), so the two encodings carry the same events and a
 * msgpack -> JSONL conversion is byte-identical to the JSONL the run wrote.
 *
 * Formatting: map keys in their order, no spaces; integers in decimal; floats
 * with %.17g (and ".0" appended when that looks like an integer, so a float
 * stays a float); strings with ", \ and control characters escaped (\n \t \r
 * \b \f, others \u00XX), well-formed UTF-8 as it is, and every byte that is
 * not part of a well-formed UTF-8 sequence as \ufffd.
 */
#ifndef WEIR_BASE_CAPTURE_JSON_H
#define WEIR_BASE_CAPTURE_JSON_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

typedef struct weir__buf {
    char *data;
    size_t len, cap;
    bool failed; /* out of memory: contents incomplete */
} weir__buf;

void weir__buf_reset(weir__buf *b);
void weir__buf_free(weir__buf *b);
/* Grows b to hold n more bytes and a NUL; false (and b->failed) if it cannot. */
bool weir__buf_grow(weir__buf *b, size_t n);

/* Inline: the collector appends a few bytes at a time, a dozen times an
 * event. */
static inline void weir__buf_append(weir__buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap && !weir__buf_grow(b, n))
        return;
    /* n == 0 comes with s NULL (an empty msgpack string has no bytes), and
     * memcpy from NULL is undefined even for no bytes */
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
}
/* NUL-terminates (not counted in len). */
const char *weir__buf_cstr(weir__buf *b);

/* Containers open at once: an event is a map of scalars, arrays of pairs and
 * the job event's maps inside an array (4 levels); msgpack-c's unpacker stops
 * at 32. */
#define WEIR__JSON_DEPTH 32

/* The writer: where it writes, and for each open container how many values it
 * holds (a map's keys and values both count) and how many were written, which
 * decides the punctuation before the next value and when the container
 * closes (after its last value, so there is no explicit end call). */
typedef struct weir__json_writer {
    weir__buf *out;
    int depth;
    bool invalid; /* nested too deep: the text is cut */
    struct {
        uint64_t values, written;
        bool map;
    } open[WEIR__JSON_DEPTH];
} weir__json_writer;

void weir__json_begin(weir__json_writer *w, weir__buf *out);
void weir__json_map(weir__json_writer *w, uint32_t pairs);
void weir__json_array(weir__json_writer *w, uint32_t n);
void weir__json_str(weir__json_writer *w, const char *s, size_t n);
/* A string the caller knows needs no escaping (printable ASCII without " or
 * \: the events' keys and kind names), written without looking at it. */
void weir__json_plain(weir__json_writer *w, const char *s, size_t n);
void weir__json_int(weir__json_writer *w, int64_t v);
void weir__json_uint(weir__json_writer *w, uint64_t v);
void weir__json_bool(weir__json_writer *w, bool v);
void weir__json_nil(weir__json_writer *w);
/* A float that is not finite has no JSON form: the caller writes something
 * else (weir__json_double refuses it: false, nothing written). */
bool weir__json_double(weir__json_writer *w, double v);

/* ---- map members in one piece ---------------------------------------------
 * A map member whose key is a name weir defines (printable ASCII without "
 * or \, as weir__json_plain takes), written with its punctuation and its
 * value in one reservation: the collector's events are maps of such
 * members, and this is the writer's per-value cost. Inline, so that a
 * literal key's copy is a constant one. The same text as weir__json_plain
 * of the key followed by the value's own call, wherever it is called (out
 * of a map's key position they take that general way). */

/* Inlined into the caller, whatever the compiler's size estimate: the
 * caller's literal key makes its copy a constant one. */
#define WEIR__JSON_INLINE static inline __attribute__((always_inline))

/* Closes every container whose last value was just written. */
void weir__json_close_full(weir__json_writer *w);

enum { WEIR__JSON_KV_INT, WEIR__JSON_KV_STR, WEIR__JSON_KV_PLAIN, WEIR__JSON_KV_RAW };
/* The general way of a member (not at a map's key, or a string to escape). */
void weir__json_kv_general(weir__json_writer *w, const char *key, size_t klen, int kind,
                           int64_t i, const char *s, size_t n);

/* The bytes a string is copied with as they are: printable ASCII except "
 * and \. Everything else is escaped, or (from 0x80) checked as UTF-8. */
WEIR__JSON_INLINE bool weir__json_plain_byte(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* How many bytes at the start of s[0..n) are plain. */
WEIR__JSON_INLINE size_t weir__json_plain_prefix(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && weir__json_plain_byte((unsigned char)s[i]))
        i++;
    return i;
}

/* The next value is a key of the innermost container, a map, with room for
 * its value. */
WEIR__JSON_INLINE bool weir__json_at_key(const weir__json_writer *w)
{
    if (w->depth <= 0)
        return false;
    const uint64_t values = w->open[w->depth - 1].values, written = w->open[w->depth - 1].written;
    return w->open[w->depth - 1].map && !(written & 1) && values - written >= 2;
}

/* Room for the member (key and up to vmax bytes of value), its punctuation
 * and "key": written, both values counted. NULL when out of memory (the
 * buffer failed; the member is counted all the same). */
WEIR__JSON_INLINE char *weir__json_member(weir__json_writer *w, const char *key, size_t klen,
                                      size_t vmax)
{
    uint64_t k = w->open[w->depth - 1].written;
    w->open[w->depth - 1].written = k + 2;
    weir__buf *b = w->out;
    if (b->len + klen + 4 + vmax + 1 > b->cap && !weir__buf_grow(b, klen + 4 + vmax))
        return NULL;
    char *p = b->data + b->len;
    *p = ',';
    p += k != 0;
    *p++ = '"';
    memcpy(p, key, klen);
    p += klen;
    *p++ = '"';
    *p++ = ':';
    return p;
}

/* The member ends at p (NULL: not written): counted, full containers closed. */
WEIR__JSON_INLINE void weir__json_member_end(weir__json_writer *w, const char *p)
{
    if (p)
        w->out->len = (size_t)(p - w->out->data);
    if (w->open[w->depth - 1].written == w->open[w->depth - 1].values)
        weir__json_close_full(w);
}

/* v in decimal at p (21 bytes at most); the end. The digits counted from
 * the bit length, then written four a step (captures are mostly
 * millisecond timestamps: 13 digits). */
WEIR__JSON_INLINE char *weir__json_decimal(char *p, int64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930"
                                "31323334353637383940414243444546474849505152535455565758596061"
                                "62636465666768697071727374757677787980818283848586878889909192"
                                "93949596979899";
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    if (v < 0)
        *p++ = '-';
    /* floor(log10) from the bit length (1233/4096 ~ log10(2)), then one
     * compare: digits */
    int bits = 64 - __builtin_clzll(m | 1);
    int n = (bits * 1233) >> 12;
    n += n < 20 && m >= weir__pow10_u64(n);
    n += n == 0;
    char *e = p + n;
    while (m >= 10000) {
        uint64_t q = m / 10000;
        unsigned r = (unsigned)(m - q * 10000);
        m = q;
        e -= 4;
        memcpy(e, pairs + 2 * (r / 100), 2);
        memcpy(e + 2, pairs + 2 * (r % 100), 2);
    }
    while (m >= 100) {
        unsigned r = (unsigned)(m % 100);
        m /= 100;
        e -= 2;
        memcpy(e, pairs + 2 * r, 2);
    }
    if (m >= 10)
        memcpy(e - 2, pairs + 2 * m, 2);
    else
        e[-1] = (char)('0' + m);
    return p + n;
}

WEIR__JSON_INLINE void weir__json_kv_int(weir__json_writer *w, const char *key, size_t klen, int64_t v)
{
    if (!weir__json_at_key(w)) {
        weir__json_kv_general(w, key, klen, WEIR__JSON_KV_INT, v, NULL, 0);
        return;
    }
    char *p = weir__json_member(w, key, klen, 21);
    weir__json_member_end(w, p ? weir__json_decimal(p, v) : NULL);
}

/* The value is JSON text the caller made (a string it wrote once with this
 * writer and keeps, a literal): copied as it is. */
WEIR__JSON_INLINE void weir__json_kv_raw(weir__json_writer *w, const char *key, size_t klen,
                                     const char *value, size_t n)
{
    if (!weir__json_at_key(w)) {
        weir__json_kv_general(w, key, klen, WEIR__JSON_KV_RAW, 0, value, n);
        return;
    }
    char *p = weir__json_member(w, key, klen, n);
    if (p) {
        memcpy(p, value, n);
        p += n;
    }
    weir__json_member_end(w, p);
}

/* The value a string that needs no escaping, as weir__json_plain's. */
WEIR__JSON_INLINE void weir__json_kv_plain(weir__json_writer *w, const char *key, size_t klen,
                                       const char *s, size_t n)
{
    if (!weir__json_at_key(w)) {
        weir__json_kv_general(w, key, klen, WEIR__JSON_KV_PLAIN, 0, s, n);
        return;
    }
    char *p = weir__json_member(w, key, klen, n + 2);
    if (p) {
        *p++ = '"';
        memcpy(p, s, n);
        p += n;
        *p++ = '"';
    }
    weir__json_member_end(w, p);
}

/* Any string: escaped and repaired as weir__json_str does. */
WEIR__JSON_INLINE void weir__json_kv_str(weir__json_writer *w, const char *key, size_t klen,
                                     const char *s, size_t n)
{
    if (weir__json_plain_prefix(s, n) < n || !weir__json_at_key(w)) {
        weir__json_kv_general(w, key, klen, WEIR__JSON_KV_STR, 0, s, n);
        return;
    }
    char *p = weir__json_member(w, key, klen, n + 2);
    if (p) {
        *p++ = '"';
        if (n)
            memcpy(p, s, n);
        p += n;
        *p++ = '"';
    }
    weir__json_member_end(w, p);
}

WEIR__JSON_INLINE void weir__json_kv_bool(weir__json_writer *w, const char *key, size_t klen, bool v)
{
    if (v)
        weir__json_kv_raw(w, key, klen, "true", 4);
    else
        weir__json_kv_raw(w, key, klen, "false", 5);
}

/* Appends the JSON text of `o`. 0, or -1 for an object JSON cannot hold (bin,
 * ext, a map key that is not a string, a NaN or infinite float) or out of
 * memory (out->failed tells which). */
int weir__msgpack_to_json(const msgpack_object *o, weir__buf *out);

#endif
