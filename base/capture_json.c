/* capture_json.c — the canonical JSON text of a capture event: the growing
 * buffer, the writer, and a msgpack object printed through it (capture_json.h). */
#include "capture_json.h"

#include <inttypes.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void weir__buf_reset(weir__buf *b)
{
    b->len = 0;
    b->failed = false;
}

void weir__buf_free(weir__buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

bool weir__buf_grow(weir__buf *b, size_t n)
{
    if (b->failed)
        return false;
    if (b->len + n + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d) {
        b->failed = true;
        return false;
    }
    b->data = d;
    b->cap = cap;
    return true;
}

const char *weir__buf_cstr(weir__buf *b)
{
    weir__buf_append(b, "", 0);
    if (b->failed || !b->data)
        return "";
    b->data[b->len] = '\0';
    return b->data;
}

static void put(weir__buf *b, const char *s)
{
    weir__buf_append(b, s, strlen(s));
}

/* The length of the well-formed UTF-8 sequence at s[0..n), or 0 if it is
 * not one (a stray continuation byte, a cut sequence, an overlong form, a
 * surrogate, above U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    }
    return len;
}

/* The string's bytes from `start` (its plain prefix written), escaped. */
static void put_string_rest(weir__buf *b, const char *s, size_t n, size_t start);

static void put_string(weir__buf *b, const char *s, size_t n)
{
    if (n == 0) {
        /* msgpack gives an empty string a NULL pointer: no arithmetic on it */
        weir__buf_append(b, "\"\"", 2);
        return;
    }
    size_t plain = weir__json_plain_prefix(s, n);
    if (plain == n) {
        /* most strings: quotes around a copy, one reservation */
        if (b->len + n + 3 > b->cap && !weir__buf_grow(b, n + 2))
            return;
        char *p = b->data + b->len;
        *p = '"';
        memcpy(p + 1, s, n);
        p[n + 1] = '"';
        b->len += n + 2;
        return;
    }
    weir__buf_append(b, "\"", 1);
    put_string_rest(b, s, n, 0);
}

static void put_string_rest(weir__buf *b, const char *s, size_t n, size_t start)
{
    for (size_t i = start; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (weir__json_plain_byte(c))
            continue; /* most strings are all plain: one copy at the end */
        const char *esc = NULL;
        char u[8];
        if (c >= 0x80) {
            /* JSON text is UTF-8: a byte that does not start a well-formed
             * sequence (a user's key formatter writing Latin-1, a key cut at
             * the record's key size in the middle of a character) becomes
             * U+FFFD, so every line stays JSON that any reader accepts. */
            size_t len = utf8_len((const unsigned char *)s + i, n - i);
            if (len) {
                i += len - 1;
                continue;
            }
            weir__buf_append(b, s + start, i - start);
            put(b, "\\ufffd");
            start = i + 1;
            continue;
        }
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\t': esc = "\\t"; break;
        case '\r': esc = "\\r"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default:
            snprintf(u, sizeof u, "\\u%04x", c);
            esc = u;
        }
        weir__buf_append(b, s + start, i - start);
        put(b, esc);
        start = i + 1;
    }
    weir__buf_append(b, s + start, n - start);
    weir__buf_append(b, "\"", 1);
}

/* ---- the writer ----------------------------------------------------------- */

void weir__json_begin(weir__json_writer *w, weir__buf *out)
{
    w->out = out;
    w->depth = 0;
    w->invalid = false;
}

/* The punctuation before a value (a comma between members, a colon between
 * a key and its value), or 0; counts the value in its container. */
static inline char punctuation(weir__json_writer *w)
{
    if (w->depth == 0)
        return 0;
    uint64_t k = w->open[w->depth - 1].written++;
    if (w->open[w->depth - 1].map && (k & 1))
        return ':';
    return k ? ',' : 0;
}

static inline void before_value(weir__json_writer *w)
{
    char c = punctuation(w);
    if (c)
        weir__buf_append(w->out, &c, 1);
}

/* Room for n more bytes at the end of b (NULL: out of memory, b->failed). */
static inline char *room(weir__buf *b, size_t n)
{
    if (b->len + n + 1 > b->cap && !weir__buf_grow(b, n))
        return NULL;
    return b->data + b->len;
}

/* Closes every container whose last value was just written. */
static inline void after_value(weir__json_writer *w)
{
    while (w->depth > 0 && w->open[w->depth - 1].written == w->open[w->depth - 1].values) {
        w->depth--;
        weir__buf_append(w->out, w->open[w->depth].map ? "}" : "]", 1);
    }
}

static void open_container(weir__json_writer *w, uint64_t values, bool map)
{
    before_value(w);
    if (w->depth == WEIR__JSON_DEPTH) {
        w->invalid = true;
        return;
    }
    weir__buf_append(w->out, map ? "{" : "[", 1);
    w->open[w->depth].values = values;
    w->open[w->depth].written = 0;
    w->open[w->depth].map = map;
    w->depth++;
    after_value(w); /* an empty one closes at once */
}

void weir__json_map(weir__json_writer *w, uint32_t pairs)
{
    open_container(w, 2 * (uint64_t)pairs, true);
}

void weir__json_array(weir__json_writer *w, uint32_t n)
{
    open_container(w, n, false);
}

void weir__json_str(weir__json_writer *w, const char *s, size_t n)
{
    before_value(w);
    put_string(w->out, s, n);
    after_value(w);
}

/* The value's bytes after its punctuation, in one reservation: the
 * collector's keys and integers are most of an event. */
static void put_raw(weir__json_writer *w, const char *open, const char *s, size_t n,
                    const char *close)
{
    char c = punctuation(w);
    size_t no = open ? 1 : 0, nc = close ? 1 : 0;
    char *p = room(w->out, n + no + nc + 1);
    if (p) {
        char *start = p;
        if (c)
            *p++ = c;
        if (open)
            *p++ = *open;
        memcpy(p, s, n);
        p += n;
        if (close)
            *p++ = *close;
        w->out->len += (size_t)(p - start);
    }
    after_value(w);
}

void weir__json_plain(weir__json_writer *w, const char *s, size_t n)
{
    put_raw(w, "\"", s, n, "\"");
}

/* ---- map members in one piece: the slow paths ----------------------------
 * (the fast paths are inline, capture_json.h) */

void weir__json_close_full(weir__json_writer *w)
{
    after_value(w);
}

void weir__json_kv_general(weir__json_writer *w, const char *key, size_t klen, int kind,
                           int64_t i, const char *s, size_t n)
{
    if (kind == WEIR__JSON_KV_STR && weir__json_at_key(w)) {
        /* a string with escapes or UTF-8 to look at: the key in one piece,
         * the string the general way */
        char *p = weir__json_member(w, key, klen, 1);
        if (p) {
            *p++ = '"';
            w->out->len = (size_t)(p - w->out->data);
            put_string_rest(w->out, s, n, 0);
        }
        after_value(w);
        return;
    }
    weir__json_plain(w, key, klen);
    switch (kind) {
    case WEIR__JSON_KV_INT:
        weir__json_int(w, i);
        break;
    case WEIR__JSON_KV_STR:
        weir__json_str(w, s, n);
        break;
    case WEIR__JSON_KV_PLAIN:
        weir__json_plain(w, s, n);
        break;
    default: /* the value's text as it is, one scalar */
        put_raw(w, NULL, s, n, NULL);
        break;
    }
}

/* An integer in decimal into the bytes before `end` (21 at most: 20 digits
 * and a sign), by hand (captures are mostly integers, and snprintf's format
 * parsing cost more than the rest of the event): returns where it starts. */
static char *decimal(char *end, uint64_t magnitude, bool negative)
{
    char *p = end;
    do {
        *--p = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (negative)
        *--p = '-';
    return p;
}

void weir__json_int(weir__json_writer *w, int64_t v)
{
    char num[24];
    /* The magnitude in unsigned arithmetic: -INT64_MIN does not fit. */
    char *p = decimal(num + sizeof num, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
    put_raw(w, NULL, p, (size_t)(num + sizeof num - p), NULL);
}

void weir__json_uint(weir__json_writer *w, uint64_t v)
{
    char num[24];
    char *p = decimal(num + sizeof num, v, false);
    put_raw(w, NULL, p, (size_t)(num + sizeof num - p), NULL);
}

void weir__json_bool(weir__json_writer *w, bool v)
{
    before_value(w);
    put(w->out, v ? "true" : "false");
    after_value(w);
}

void weir__json_nil(weir__json_writer *w)
{
    before_value(w);
    put(w->out, "null");
    after_value(w);
}

bool weir__json_double(weir__json_writer *w, double v)
{
    /* JSON has no NaN or infinity: refuse rather than print "nan", which no
     * JSON reader accepts. */
    if (!isfinite(v))
        return false;
    char num[40];
    snprintf(num, sizeof num, "%.17g", v);
    if (!strpbrk(num, ".eEn"))
        strcat(num, ".0");
    before_value(w);
    put(w->out, num);
    after_value(w);
    return true;
}

/* ---- a msgpack object through the writer ---------------------------------- */

static int object_to_json(weir__json_writer *w, const msgpack_object *o)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL:
        weir__json_nil(w);
        break;
    case MSGPACK_OBJECT_BOOLEAN:
        weir__json_bool(w, o->via.boolean);
        break;
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        weir__json_uint(w, o->via.u64);
        break;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        weir__json_int(w, o->via.i64);
        break;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        if (!weir__json_double(w, o->via.f64))
            return -1;
        break;
    case MSGPACK_OBJECT_STR:
        weir__json_str(w, o->via.str.ptr, o->via.str.size);
        break;
    case MSGPACK_OBJECT_ARRAY:
        weir__json_array(w, o->via.array.size);
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            if (object_to_json(w, &o->via.array.ptr[i]))
                return -1;
        }
        break;
    case MSGPACK_OBJECT_MAP:
        weir__json_map(w, o->via.map.size);
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object_kv *kv = &o->via.map.ptr[i];
            if (kv->key.type != MSGPACK_OBJECT_STR)
                return -1;
            weir__json_str(w, kv->key.via.str.ptr, kv->key.via.str.size);
            if (object_to_json(w, &kv->val))
                return -1;
        }
        break;
    default:
        return -1;
    }
    return w->invalid || w->out->failed ? -1 : 0;
}

int weir__msgpack_to_json(const msgpack_object *o, weir__buf *out)
{
    weir__json_writer w;
    weir__json_begin(&w, out);
    return object_to_json(&w, o);
}
