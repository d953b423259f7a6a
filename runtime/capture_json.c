/* capture_json.c — msgpack object to canonical JSON text (capture_json.h). */
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

void weir__buf_append(weir__buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = true;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    /* n == 0 comes with s NULL (an empty msgpack string has no bytes), and
     * memcpy from NULL is undefined even for no bytes */
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
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

static void put_string(weir__buf *b, const char *s, size_t n)
{
    if (n == 0) {
        /* msgpack gives an empty string a NULL pointer: no arithmetic on it */
        weir__buf_append(b, "\"\"", 2);
        return;
    }
    weir__buf_append(b, "\"", 1);
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
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
            if (c < 0x20) {
                snprintf(u, sizeof u, "\\u%04x", c);
                esc = u;
            }
        }
        if (esc) {
            weir__buf_append(b, s + start, i - start);
            put(b, esc);
            start = i + 1;
        }
    }
    weir__buf_append(b, s + start, n - start);
    weir__buf_append(b, "\"", 1);
}

/* An integer in decimal, by hand: captures are mostly integers (times,
 * timestamps, counters), and snprintf's format parsing cost more than the
 * rest of the conversion. */
static void put_integer(weir__buf *out, uint64_t magnitude, bool negative)
{
    char num[24];
    size_t i = sizeof num;
    do {
        num[--i] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (negative)
        num[--i] = '-';
    weir__buf_append(out, num + i, sizeof num - i);
}

int weir__msgpack_to_json(const msgpack_object *o, weir__buf *out)
{
    char num[40];
    switch (o->type) {
    case MSGPACK_OBJECT_NIL:
        put(out, "null");
        break;
    case MSGPACK_OBJECT_BOOLEAN:
        put(out, o->via.boolean ? "true" : "false");
        break;
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        put_integer(out, o->via.u64, false);
        break;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        /* The magnitude in unsigned arithmetic: -INT64_MIN does not fit. */
        put_integer(out, 0 - (uint64_t)o->via.i64, o->via.i64 < 0);
        break;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        /* JSON has no NaN or infinity: refuse rather than print "nan", which
         * no JSON reader accepts. */
        if (!isfinite(o->via.f64))
            return -1;
        snprintf(num, sizeof num, "%.17g", o->via.f64);
        if (!strpbrk(num, ".eEn"))
            strcat(num, ".0");
        put(out, num);
        break;
    case MSGPACK_OBJECT_STR:
        put_string(out, o->via.str.ptr, o->via.str.size);
        break;
    case MSGPACK_OBJECT_ARRAY:
        put(out, "[");
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            if (i)
                put(out, ",");
            if (weir__msgpack_to_json(&o->via.array.ptr[i], out))
                return -1;
        }
        put(out, "]");
        break;
    case MSGPACK_OBJECT_MAP:
        put(out, "{");
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object_kv *kv = &o->via.map.ptr[i];
            if (kv->key.type != MSGPACK_OBJECT_STR)
                return -1;
            if (i)
                put(out, ",");
            put_string(out, kv->key.via.str.ptr, kv->key.via.str.size);
            put(out, ":");
            if (weir__msgpack_to_json(&kv->val, out))
                return -1;
        }
        put(out, "}");
        break;
    default:
        return -1;
    }
    return out->failed ? -1 : 0;
}
