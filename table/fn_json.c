/* fn_json.c — JSON_VALUE, JSON_QUERY and JSON_EXISTS (fn.h), as Flink's
 * SqlJsonUtils computes them (Jackson's parse, Jayway's JsonPath) for the
 * common paths: $, .name, ['name'] or ["name"], [index] (a negative one
 * from the end), chained ($.a.b[0]['c d']), a path without $ read as $.
 * after it (Jayway's), and the modes: 'lax $...' or 'strict $...' (no
 * prefix is strict, as in Flink: a missing member is then an error, and
 * the ON ERROR clause answers, not ON EMPTY).
 *
 * libweir does not link jansson (tests/walls/check_links.cmake: it is
 * libweir-file's), so the JSON is read here in place: the document is
 * checked whole once (Jackson's parse; text after the first value is
 * ignored, as there), then the path is followed through the text — no tree
 * is built and nothing is allocated. A member named twice is its last
 * value (Jackson's map). JSON_QUERY writes what it selects as Jackson
 * writes it: compact, each object's keys sorted (Flink's
 * ORDER_MAP_ENTRIES_BY_KEYS), decimals as BigDecimal.toString (1e2 is
 * 1E+2). JSON_VALUE's RETURNING takes STRING, VARCHAR, BOOLEAN, INT,
 * BIGINT or DOUBLE; a value that is not of that type answers ON ERROR.
 * JSON_OBJECT and JSON_ARRAY write their values as JSON (below).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "fn.h"
#include "weir/error.h"

#define JSON_MAX_DEPTH 500

/* ---- reading JSON text ------------------------------------------------------------------ */

static uint32_t ws(const char *s, uint32_t n, uint32_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* The end of the string at s[i] (its opening quote), or 0 when it is not
 * one. */
static uint32_t string_end(const char *s, uint32_t n, uint32_t i)
{
    if (i >= n || s[i] != '"')
        return 0;
    for (i++; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"')
            return i + 1;
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            if (++i >= n)
                return 0;
            if (s[i] == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (i + k >= n || !isxdigit((unsigned char)s[i + k]))
                        return 0;
                i += 4;
            } else if (!strchr("\"\\/bfnrt", s[i])) {
                return 0;
            }
        }
    }
    return 0;
}

static uint32_t number_end(const char *s, uint32_t n, uint32_t i)
{
    uint32_t a = i;
    if (i < n && s[i] == '-')
        i++;
    if (i >= n || !isdigit((unsigned char)s[i]))
        return 0;
    if (s[i] == '0')
        i++;
    else
        while (i < n && isdigit((unsigned char)s[i]))
            i++;
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || !isdigit((unsigned char)s[i]))
            return 0;
        while (i < n && isdigit((unsigned char)s[i]))
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= n || !isdigit((unsigned char)s[i]))
            return 0;
        while (i < n && isdigit((unsigned char)s[i]))
            i++;
    }
    return i > a ? i : 0;
}

/* The end of the value at s[i] (whitespace before it skipped), checked
 * whole; 0 when it is not JSON. */
static uint32_t value_end(const char *s, uint32_t n, uint32_t i, int depth)
{
    i = ws(s, n, i);
    if (i >= n || depth > JSON_MAX_DEPTH)
        return 0;
    switch (s[i]) {
    case '"': return string_end(s, n, i);
    case '{':
    case '[': {
        char close = s[i] == '{' ? '}' : ']';
        bool obj = s[i] == '{';
        i = ws(s, n, i + 1);
        if (i < n && s[i] == close)
            return i + 1;
        for (;;) {
            if (obj) {
                i = string_end(s, n, ws(s, n, i));
                if (!i)
                    return 0;
                i = ws(s, n, i);
                if (i >= n || s[i] != ':')
                    return 0;
                i++;
            }
            i = value_end(s, n, i, depth + 1);
            if (!i)
                return 0;
            i = ws(s, n, i);
            if (i < n && s[i] == ',') {
                i++;
                continue;
            }
            return i < n && s[i] == close ? i + 1 : 0;
        }
    }
    case 't': return n - i >= 4 && memcmp(s + i, "true", 4) == 0 ? i + 4 : 0;
    case 'f': return n - i >= 5 && memcmp(s + i, "false", 5) == 0 ? i + 5 : 0;
    case 'n': return n - i >= 4 && memcmp(s + i, "null", 4) == 0 ? i + 4 : 0;
    default: return number_end(s, n, i);
    }
}

/* The next code point of the JSON string body at s[*i] (escapes decoded,
 * surrogate pairs joined); -1 at its closing quote. */
static int64_t string_char(const char *s, uint32_t n, uint32_t *i)
{
    if (*i >= n || s[*i] == '"')
        return -1;
    if (s[*i] != '\\') {
        uint32_t used;
        uint32_t cp = weir__utf8_decode(s + *i, n - *i, &used);
        *i += used;
        return cp;
    }
    char e = s[*i + 1];
    *i += 2;
    switch (e) {
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'u': {
        uint32_t cp = (uint32_t)strtoul((char[5]){s[*i], s[*i + 1], s[*i + 2], s[*i + 3], 0},
                                        NULL, 16);
        *i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && *i + 6 <= n && s[*i] == '\\' && s[*i + 1] == 'u') {
            uint32_t lo = (uint32_t)strtoul(
                (char[5]){s[*i + 2], s[*i + 3], s[*i + 4], s[*i + 5], 0}, NULL, 16);
            if (lo >= 0xDC00 && lo < 0xE000) {
                *i += 6;
                return 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
        }
        return cp;
    }
    default: return (unsigned char)e;
    }
}

/* The string at s[a] (its quote) decoded into out (room: its length);
 * the decoded length. */
static uint32_t string_decode(const char *s, uint32_t n, uint32_t a, char *out)
{
    uint32_t i = a + 1, k = 0;
    int64_t cp;
    while ((cp = string_char(s, n, &i)) >= 0)
        k += weir__utf8_encode((uint32_t)cp, out + k);
    return k;
}

/* Compares the JSON string at s[a] (its quote) with the key (decoded
 * bytes): <0, 0, >0 in code point order. */
static int key_compare(const char *s, uint32_t n, uint32_t a, const char *key, uint32_t klen)
{
    uint32_t i = a + 1, j = 0;
    for (;;) {
        int64_t x = string_char(s, n, &i);
        int64_t y = -1;
        if (j < klen) {
            uint32_t used;
            y = weir__utf8_decode(key + j, klen - j, &used);
            j += used;
        }
        if (x != y)
            return x < y ? -1 : 1;
        if (x < 0)
            return 0;
    }
}

/* Two JSON strings (at their quotes) compared in code point order. */
static int strings_compare(const char *s, uint32_t n, uint32_t a, uint32_t b)
{
    uint32_t i = a + 1, j = b + 1;
    for (;;) {
        int64_t x = string_char(s, n, &i), y = string_char(s, n, &j);
        if (x != y)
            return x < y ? -1 : 1;
        if (x < 0)
            return 0;
    }
}

/* ---- paths ----------------------------------------------------------------------------- */

typedef struct jstep {
    int32_t index;     /* [index] (INT32_MIN: a name) */
    uint32_t key, len; /* a name: its bytes in the path's text (quoted: still escaped) */
    char quote;        /* 0 a bare name, '\'' or '"' a bracketed one */
} jstep;

typedef struct jpath {
    bool lax;
    int n;
    jstep step[];
} jpath;

/* Compiles path text p (n bytes) into x (room for n + 1 steps). 0, or -1
 * with why. */
static int path_compile(const char *p, uint32_t n, jpath *x, const char **why)
{
    uint32_t i = ws(p, n, 0);
    x->lax = false;
    x->n = 0;
    /* "lax " / "strict " */
    for (int m = 0; m < 2; m++) {
        const char *w = m ? "strict" : "lax";
        uint32_t l = (uint32_t)strlen(w);
        if (n - i > l && strncasecmp(p + i, w, l) == 0 && isspace((unsigned char)p[i + l])) {
            x->lax = m == 0;
            i = ws(p, n, i + l);
            break;
        }
    }
    if (i < n && p[i] == '$')
        i++;
    else if (i < n && p[i] != '.' && p[i] != '[') {
        /* Jayway: "a.b" is "$.a.b" */
        jstep *st = &x->step[x->n++];
        uint32_t a = i;
        while (i < n && p[i] != '.' && p[i] != '[')
            i++;
        *st = (jstep){.index = INT32_MIN, .key = a, .len = i - a};
    } else if (i >= n) {
        *why = "an empty JSON path";
        return -1;
    }
    while (i < n) {
        jstep *st = &x->step[x->n];
        if (p[i] == '.') {
            uint32_t a = ++i;
            while (i < n && p[i] != '.' && p[i] != '[' && !isspace((unsigned char)p[i]))
                i++;
            if (i == a || (i - a == 1 && p[a] == '*')) {
                *why = i == a ? "a JSON path with '..' or a '.' before nothing (deep scan is not "
                                "supported)"
                              : "a JSON path with a wildcard (not supported: $, .name, ['name'], "
                                "[index])";
                return -1;
            }
            *st = (jstep){.index = INT32_MIN, .key = a, .len = i - a};
        } else if (p[i] == '[') {
            i = ws(p, n, i + 1);
            if (i < n && (p[i] == '\'' || p[i] == '"')) {
                char q = p[i];
                uint32_t a = ++i;
                while (i < n && p[i] != q) {
                    if (p[i] == '\\')
                        i++;
                    i++;
                }
                if (i >= n) {
                    *why = "a JSON path with an unterminated name";
                    return -1;
                }
                *st = (jstep){.index = INT32_MIN, .key = a, .len = i - a, .quote = q};
                i++;
            } else {
                bool neg = i < n && p[i] == '-';
                if (neg)
                    i++;
                uint32_t a = i;
                int64_t v = 0;
                while (i < n && isdigit((unsigned char)p[i]) && v < INT32_MAX)
                    v = v * 10 + (p[i++] - '0');
                if (i == a) {
                    *why = "a JSON path with a subscript that is not a name or an index "
                           "(wildcards, slices and filters are not supported)";
                    return -1;
                }
                *st = (jstep){.index = (int32_t)(neg ? -v : v)};
            }
            i = ws(p, n, i);
            if (i >= n || p[i] != ']') {
                *why = "a JSON path with a subscript that is not a name or an index (wildcards, "
                       "slices and filters are not supported)";
                return -1;
            }
            i++;
        } else if (isspace((unsigned char)p[i])) {
            i = ws(p, n, i);
            if (i < n) {
                *why = "a JSON path with text after it";
                return -1;
            }
            break;
        } else {
            *why = "a JSON path with an unexpected character";
            return -1;
        }
        x->n++;
    }
    return 0;
}

/* Whether the member name at s[a] (its quote) is step st's name. */
static bool name_is(const char *s, uint32_t n, uint32_t a, const char *p, const jstep *st)
{
    if (st->quote == 0)
        return key_compare(s, n, a, p + st->key, st->len) == 0;
    /* a bracketed name: compare with its own escapes undone (\' \" \\) */
    uint32_t i = a + 1, j = st->key, e = st->key + st->len;
    for (;;) {
        int64_t x = string_char(s, n, &i);
        int64_t y = -1;
        if (j < e) {
            if (p[j] == '\\' && j + 1 < e)
                j++;
            uint32_t used;
            y = weir__utf8_decode(p + j, e - j, &used);
            j += used;
        }
        if (x != y)
            return false;
        if (x < 0)
            return true;
    }
}

/* Follows the path from the value at s[*at]: true and *at at the value it
 * selects, false when it selects nothing (a missing member or index, or a
 * step into a scalar). */
static bool follow(const char *s, uint32_t n, const char *ptext, const jpath *x, uint32_t *at)
{
    uint32_t i = ws(s, n, *at);
    for (int k = 0; k < x->n; k++) {
        const jstep *st = &x->step[k];
        if (st->index == INT32_MIN) {
            if (s[i] != '{')
                return false;
            uint32_t j = ws(s, n, i + 1), found = 0;
            bool any = false;
            while (s[j] != '}') {
                uint32_t kend = string_end(s, n, j);
                uint32_t v = ws(s, n, ws(s, n, kend) + 1);
                if (name_is(s, n, j, ptext, st)) {
                    found = v; /* the last of a name given twice */
                    any = true;
                }
                j = ws(s, n, value_end(s, n, v, 0));
                if (s[j] == ',')
                    j = ws(s, n, j + 1);
            }
            if (!any)
                return false;
            i = found;
        } else {
            if (s[i] != '[')
                return false;
            /* a negative index from the end: count first */
            int32_t want = st->index;
            if (want < 0) {
                int32_t count = 0;
                uint32_t j = ws(s, n, i + 1);
                while (s[j] != ']') {
                    count++;
                    j = ws(s, n, value_end(s, n, j, 0));
                    if (s[j] == ',')
                        j = ws(s, n, j + 1);
                }
                want += count;
                if (want < 0)
                    return false;
            }
            uint32_t j = ws(s, n, i + 1);
            int32_t idx = 0;
            while (s[j] != ']' && idx < want) {
                j = ws(s, n, value_end(s, n, j, 0));
                if (s[j] == ',')
                    j = ws(s, n, j + 1);
                idx++;
            }
            if (s[j] == ']')
                return false;
            i = j;
        }
    }
    *at = i;
    return true;
}

/* ---- Jackson's writing ---------------------------------------------------------------------- */

typedef struct jout {
    char *p;
    uint32_t len, cap;
    bool full;
} jout;

static void jput(jout *o, const char *s, uint32_t n)
{
    if (o->len + n > o->cap) {
        o->full = true;
        return;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
}

/* A JSON number as Java prints what Jackson made of it: an integer as
 * it is (no '-' on a zero); a decimal as BigDecimal.toString. */
static void put_number(jout *o, const char *s, uint32_t n)
{
    bool neg = s[0] == '-';
    uint32_t i = neg, digits_at = 0;
    char digits[400];
    uint32_t nd = 0;
    int64_t scale = 0;
    bool decimal = false;
    for (; i < n && s[i] != 'e' && s[i] != 'E'; i++) {
        if (s[i] == '.') {
            decimal = true;
            continue;
        }
        if (nd < sizeof digits)
            digits[nd++] = s[i];
        if (decimal)
            scale++;
    }
    if (i < n) {
        decimal = true;
        scale -= strtoll(s + i + 1, NULL, 10);
    }
    while (digits_at + 1 < nd && digits[digits_at] == '0')
        digits_at++;
    const char *coeff = digits + digits_at;
    uint32_t cl = nd - digits_at;
    bool zero = cl == 1 && coeff[0] == '0';
    if (neg && !zero)
        jput(o, "-", 1);
    if (!decimal || scale == 0) {
        jput(o, coeff, cl);
        return;
    }
    int64_t adjusted = -scale + (int64_t)(cl - 1);
    char buf[48];
    if (scale > 0 && adjusted >= -6) {
        if ((int64_t)cl > scale) {
            jput(o, coeff, cl - (uint32_t)scale);
            jput(o, ".", 1);
            jput(o, coeff + cl - scale, (uint32_t)scale);
        } else {
            jput(o, "0.", 2);
            for (int64_t z = 0; z < scale - (int64_t)cl; z++)
                jput(o, "0", 1);
            jput(o, coeff, cl);
        }
        return;
    }
    jput(o, coeff, 1);
    if (cl > 1) {
        jput(o, ".", 1);
        jput(o, coeff + 1, cl - 1);
    }
    int k = snprintf(buf, sizeof buf, "E%s%" PRId64, adjusted > 0 ? "+" : "", adjusted);
    jput(o, buf, (uint32_t)k);
}

/* A string as Jackson writes it: '"', '\\' and control characters
 * escaped, the rest as it is. */
static void put_string(jout *o, const char *s, uint32_t n, uint32_t a)
{
    jput(o, "\"", 1);
    uint32_t i = a + 1;
    int64_t cp;
    while ((cp = string_char(s, n, &i)) >= 0) {
        char b[8];
        uint32_t k;
        if (cp == '"' || cp == '\\') {
            b[0] = '\\';
            b[1] = (char)cp;
            k = 2;
        } else if (cp < 0x20) {
            static const char esc[] = "btn\0fr";
            if (cp >= 8 && cp <= 13 && cp != 11 && esc[cp - 8]) {
                b[0] = '\\';
                b[1] = esc[cp - 8];
                k = 2;
            } else {
                k = (uint32_t)snprintf(b, sizeof b, "\\u%04X", (unsigned)cp);
            }
        } else {
            k = weir__utf8_encode((uint32_t)cp, b);
        }
        jput(o, b, k);
    }
    jput(o, "\"", 1);
}

/* The value at s[i] written compactly, objects' keys sorted (a name given
 * twice once, with its last value). */
static void put_value(jout *o, const char *s, uint32_t n, uint32_t i, int depth)
{
    i = ws(s, n, i);
    if (depth > JSON_MAX_DEPTH) {
        o->full = true;
        return;
    }
    if (s[i] == '"') {
        put_string(o, s, n, i);
    } else if (s[i] == '[') {
        jput(o, "[", 1);
        uint32_t j = ws(s, n, i + 1);
        bool first = true;
        while (s[j] != ']') {
            if (!first)
                jput(o, ",", 1);
            first = false;
            put_value(o, s, n, j, depth + 1);
            j = ws(s, n, value_end(s, n, j, 0));
            if (s[j] == ',')
                j = ws(s, n, j + 1);
        }
        jput(o, "]", 1);
    } else if (s[i] == '{') {
        jput(o, "{", 1);
        /* each time the smallest key above the last written one */
        uint32_t last = 0;
        bool first = true;
        for (;;) {
            uint32_t best = 0, best_v = 0;
            uint32_t j = ws(s, n, i + 1);
            while (s[j] != '}') {
                uint32_t v = ws(s, n, ws(s, n, string_end(s, n, j)) + 1);
                if ((!last || strings_compare(s, n, j, last) > 0) &&
                    (!best || strings_compare(s, n, j, best) <= 0)) {
                    best = j; /* <=: a later one of equal names wins */
                    best_v = v;
                }
                j = ws(s, n, value_end(s, n, v, 0));
                if (s[j] == ',')
                    j = ws(s, n, j + 1);
            }
            if (!best)
                break;
            if (!first)
                jput(o, ",", 1);
            first = false;
            put_string(o, s, n, best);
            jput(o, ":", 1);
            put_value(o, s, n, best_v, depth + 1);
            last = best;
        }
        jput(o, "}", 1);
    } else if (s[i] == 't' || s[i] == 'f' || s[i] == 'n') {
        jput(o, s + i, s[i] == 'f' ? 5 : 4);
    } else {
        put_number(o, s + i, number_end(s, n, i) - i);
    }
}

/* ---- the functions ------------------------------------------------------------------------- */

/* A literal path compiled at plan time (n->data); a path per row compiles
 * into the work bytes. */
typedef struct plan_path {
    char *text;
    uint32_t len;
    jpath *path;
} plan_path;

static void plan_path_free(void *p)
{
    plan_path *x = p;
    if (x) {
        free(x->text);
        free(x->path);
    }
    free(x);
}

static bool t_path(weir__fnbind *b)
{
    const weir__val *v;
    if (!weir__fn_literal(b, 1, &v)) {
        uint32_t cap = b->n->args[1]->type.capacity;
        b->work = (uint32_t)(sizeof(jpath) + (cap + 1) * sizeof(jstep));
        return true;
    }
    plan_path *x = calloc(1, sizeof *x);
    char *text = malloc(v->len + 1);
    jpath *path = malloc(sizeof *path + (v->len + 1) * sizeof(jstep));
    if (!x || !text || !path) {
        free(x);
        free(text);
        free(path);
        weir__bind_nomem(b->p);
        return false;
    }
    x->path = path;
    memcpy(text, v->s, v->len);
    text[v->len] = 0;
    x->text = text;
    x->len = v->len;
    const char *why = NULL;
    if (path_compile(text, v->len, x->path, &why)) {
        plan_path_free(x);
        weir__bind_fail(b->p, b->n->args[1]->pos, "%s: %s: '%.*s'", b->f->name, why,
                        (int)v->len, v->s);
        return false;
    }
    b->n->data = x;
    b->n->data_free = plan_path_free;
    return true;
}

/* What a call's path selects: 1 and *at a value, 0 nothing there (lax)
 * or JSON null, -1 an error (the document is not JSON, a strict path
 * misses, a path per row does not compile). */
static int select_value(const weir__fncall *c, uint32_t *at, bool *lax)
{
    const weir__val *doc = &c->args[0];
    const jpath *path;
    const char *ptext;
    if (c->n->data) {
        const plan_path *x = c->n->data;
        path = x->path;
        ptext = x->text;
    } else {
        jpath *x = (jpath *)(void *)c->work;
        const char *why;
        if (path_compile(c->args[1].s ? c->args[1].s : "", c->args[1].len, x, &why))
            return -1;
        path = x;
        ptext = c->args[1].s;
    }
    *lax = path->lax;
    const char *s = doc->s ? doc->s : "";
    if (!value_end(s, doc->len, 0, 0))
        return path->lax ? 0 : -1; /* Jackson refuses it: lax reads nothing */
    uint32_t i = 0;
    if (!follow(s, doc->len, ptext, path, &i))
        return path->lax ? 0 : -1;
    *at = ws(s, doc->len, i);
    return s[*at] == 'n' ? 0 : 1; /* JSON null is no value */
}

enum { B_NULL, B_ERROR, B_DEFAULT, B_TRUE, B_FALSE, B_UNKNOWN, B_EMPTY_ARRAY, B_EMPTY_OBJECT };

static int behaviour(const char *w)
{
    static const char *const names[] = {"NULL", "ERROR", "DEFAULT", "TRUE", "FALSE", "UNKNOWN",
                                        "EMPTY ARRAY", "EMPTY OBJECT"};
    for (int i = 0; i < 8; i++)
        if (strcmp(w, names[i]) == 0)
            return i;
    return B_NULL;
}

/* JSON_VALUE: args j, p, the ON EMPTY default, the ON ERROR default; sym
 * the RETURNING type, the ON EMPTY and ON ERROR behaviours. */
static bool t_json_value(weir__fnbind *b)
{
    weir__enode *n = b->n;
    weir_type rt;
    char why[128];
    if (weir_type_parse(b->sym[0], &rt, why, sizeof why) ||
        !(weir__type_is_string(rt.id) || rt.id == WEIR_TYPE_BOOLEAN || rt.id == WEIR_TYPE_INT ||
          rt.id == WEIR_TYPE_BIGINT || rt.id == WEIR_TYPE_DOUBLE)) {
        weir__bind_fail(b->p, b->a->start, "Unsupported type '%s' for RETURNING in JSON_VALUE().",
                        b->sym[0]);
        return false;
    }
    rt.not_null = false;
    if (weir__type_is_string(rt.id)) {
        /* a value is a part of the document, unescaped (or a number
         * written as Java does: one byte more at most) */
        uint64_t cap = (uint64_t)n->args[0]->type.capacity + 2;
        if (rt.capacity && rt.capacity < cap)
            cap = rt.capacity;
        rt = weir__fn_varchar(cap, false);
        rt.id = WEIR_TYPE_VARCHAR;
    }
    n->aux[0] = behaviour(b->sym[1]);
    n->aux[1] = behaviour(b->sym[2]);
    for (int i = 2; i < 4; i++) {
        weir__enode *d = n->args[i];
        weir__bind_retype_null(d, rt);
        bool ok = d->type.id == rt.id ||
                  (weir__type_is_string(d->type.id) && weir__type_is_string(rt.id)) ||
                  (weir__type_is_numeric(d->type.id) && weir__type_is_numeric(rt.id));
        if (!ok) {
            char t1[64], t2[64];
            weir__bind_fail(b->p, d->pos, "JSON_VALUE: the DEFAULT value is %s, not of its "
                            "RETURNING type %s",
                            weir__fn_type_name(d->type, t1, sizeof t1),
                            weir__fn_type_name(rt, t2, sizeof t2));
            return false;
        }
        if (weir__type_is_string(rt.id)) {
            if (d->type.capacity > rt.capacity)
                rt.capacity = d->type.capacity;
        } else if (!(n->args[i] = weir__bind_cast(b->p, d, rt))) {
            return false;
        }
    }
    n->type = rt;
    return t_path(b);
}

/* The behaviour `k` (0 ON EMPTY, 1 ON ERROR) of JSON_VALUE. */
static int value_behaviour(const weir__fncall *c, int k, const char *message, weir__val *o,
                           const char **why)
{
    switch (c->n->aux[k]) {
    case B_ERROR:
        *why = message;
        return WEIR_EINVAL;
    case B_DEFAULT:
        *o = c->args[2 + k];
        return 0;
    default:
        o->null = true;
        return 0;
    }
}

static int e_json_value(const weir__fncall *c, weir__val *o, const char **why)
{
    if (c->args[0].null || c->args[1].null) {
        o->null = true;
        return 0;
    }
    const char *s = c->args[0].s ? c->args[0].s : "";
    uint32_t n = c->args[0].len, at;
    bool lax;
    int r = select_value(c, &at, &lax);
    if (r < 0)
        return value_behaviour(c, 1, "JSON_VALUE: the document is not JSON, or the strict path "
                               "selects nothing", o, why);
    bool scalar = r > 0 && s[at] != '{' && s[at] != '[';
    if (r == 0 || (lax && !scalar))
        return value_behaviour(c, 0, "Empty result of JSON_VALUE function is not allowed", o,
                               why);
    if (!scalar)
        return value_behaviour(c, 1, "Strict jsonpath mode requires scalar value", o, why);
    weir_type_id t = c->n->type.id;
    if (weir__type_is_string(t)) {
        jout out = {.p = c->buf, .cap = c->n->type.capacity};
        if (s[at] == '"') {
            uint32_t i = at + 1, len = 0;
            int64_t cp;
            char tmp[4];
            while ((cp = string_char(s, n, &i)) >= 0)
                len += weir__utf8_encode((uint32_t)cp, tmp);
            if (len > out.cap)
                return weir__fn_too_long(c, why);
            out.len = string_decode(s, n, at, c->buf);
        } else if (s[at] == 't' || s[at] == 'f') {
            jput(&out, s + at, s[at] == 't' ? 4 : 5);
        } else {
            put_number(&out, s + at, number_end(s, n, at) - at);
        }
        if (out.full)
            return weir__fn_too_long(c, why);
        o->s = c->buf;
        o->len = out.len;
        return 0;
    }
    if (t == WEIR_TYPE_BOOLEAN) {
        if (s[at] != 't' && s[at] != 'f')
            return value_behaviour(c, 1, "JSON_VALUE: the value is not a BOOLEAN", o, why);
        o->i = s[at] == 't';
        return 0;
    }
    if (s[at] == '"' || s[at] == 't' || s[at] == 'f')
        return value_behaviour(c, 1, "JSON_VALUE: the value is not a number", o, why);
    uint32_t e = number_end(s, n, at);
    char num[64];
    if (e - at >= sizeof num)
        return value_behaviour(c, 1, "JSON_VALUE: the number is out of the type's range", o, why);
    memcpy(num, s + at, e - at);
    num[e - at] = 0;
    if (t == WEIR_TYPE_DOUBLE) {
        o->d = strtod(num, NULL);
        return 0;
    }
    /* an integer of the type's range: Jackson's Integer (or Long) */
    char *end;
    errno = 0;
    long long v = strtoll(num, &end, 10);
    if (*end || errno || (t == WEIR_TYPE_INT && (v < INT32_MIN || v > INT32_MAX)))
        return value_behaviour(c, 1, "JSON_VALUE: the number is not an integer of the type's "
                               "range", o, why);
    o->i = v;
    return 0;
}

/* JSON_QUERY: sym the wrapper, the ON EMPTY and ON ERROR behaviours. */
static bool t_json_query(weir__fnbind *b)
{
    const char *w = b->sym[0];
    b->n->aux[0] = strcmp(w, "WITHOUT ARRAY") == 0 ? 0
                   : strcmp(w, "WITH CONDITIONAL ARRAY") == 0 ? 1
                                                              : 2;
    b->n->aux[1] = behaviour(b->sym[1]);
    b->n->aux[2] = behaviour(b->sym[2]);
    /* compact text of a part of the document, a decimal's exponent one
     * byte longer ("1e2" is "1E+2"), and two for a wrapping array */
    uint64_t cap = (uint64_t)b->n->args[0]->type.capacity;
    b->n->type = weir__fn_varchar(cap + cap / 3 + 2, false);
    return t_path(b);
}

static int query_behaviour(const weir__fncall *c, int b, const char *message, weir__val *o,
                           const char **why)
{
    switch (b) {
    case B_ERROR: *why = message; return WEIR_EINVAL;
    case B_EMPTY_ARRAY: o->s = "[]"; o->len = 2; return 0;
    case B_EMPTY_OBJECT: o->s = "{}"; o->len = 2; return 0;
    default: o->null = true; return 0;
    }
}

/* The JSON value at s[at] (of n bytes), written compact into the call's
 * room as its result, inside [ ] when `wrapped`; too long for the result
 * type's capacity fails the row. */
static int json_result(const weir__fncall *c, const char *s, uint32_t n, uint32_t at,
                       bool wrapped, weir__val *o, const char **why)
{
    jout out = {.p = c->buf, .cap = c->n->type.capacity};
    if (wrapped)
        jput(&out, "[", 1);
    put_value(&out, s, n, at, 0);
    if (wrapped)
        jput(&out, "]", 1);
    if (out.full)
        return weir__fn_too_long(c, why);
    o->s = c->buf;
    o->len = out.len;
    return 0;
}

static int e_json_query(const weir__fncall *c, weir__val *o, const char **why)
{
    const char *s = c->args[0].s ? c->args[0].s : "";
    uint32_t n = c->args[0].len, at;
    bool lax;
    int r = select_value(c, &at, &lax);
    if (r < 0)
        return query_behaviour(c, (int)c->n->aux[2], "JSON_QUERY: the document is not JSON, "
                               "or the strict path selects nothing", o, why);
    if (r == 0)
        return query_behaviour(c, (int)c->n->aux[1], "Empty result of JSON_QUERY function is "
                               "not allowed", o, why);
    bool array = s[at] == '[', scalar = s[at] != '{' && !array;
    int wrap = (int)c->n->aux[0];
    bool wrapped = wrap == 2 || (wrap == 1 && !array);
    if (!wrapped && scalar) {
        if (lax)
            return query_behaviour(c, (int)c->n->aux[1], "Empty result of JSON_QUERY function "
                                   "is not allowed", o, why);
        return query_behaviour(c, (int)c->n->aux[2], "Strict jsonpath mode requires array or "
                               "object value", o, why);
    }
    return json_result(c, s, n, at, wrapped, o, why);
}

static bool t_json_exists(weir__fnbind *b)
{
    b->n->aux[0] = behaviour(b->sym[0]);
    b->n->type = (weir_type){.id = WEIR_TYPE_BOOLEAN};
    return t_path(b);
}

/* Whether the path selects a value (JSON null is none, as Jayway reads
 * it); an error answers ON ERROR (FALSE unless said). */
static int e_json_exists(const weir__fncall *c, weir__val *o, const char **why)
{
    uint32_t at;
    bool lax;
    int r = select_value(c, &at, &lax);
    if (r >= 0) {
        o->i = r > 0;
        return 0;
    }
    switch (c->n->aux[0]) {
    case B_TRUE: o->i = 1; return 0;
    case B_UNKNOWN: o->null = true; return 0;
    case B_ERROR:
        *why = "JSON_EXISTS: the document is not JSON, or the strict path selects nothing";
        return WEIR_EINVAL;
    default: o->i = 0; return 0;
    }
}

/* ---- JSON_OBJECT and JSON_ARRAY ------------------------------------------------------------ */

/* As Flink's JsonObjectCallGen and JsonArrayCallGen with JsonGenerateUtils:
 * each value a Jackson node of its type, a JSON_OBJECT or JSON_ARRAY call
 * as a value its JSON as it is (a raw node, not a string), then the whole
 * serialized as SqlJsonUtils.serializeJson does (through Java objects:
 * objects' keys sorted, a floating-point number as BigDecimal.toString).
 * The text is written into the work bytes as it comes, then rewritten
 * into the result by put_value (keys sorted, a name given twice once with
 * its last value, as ObjectNode.set keeps it). */

/* A string's bytes as a JSON string. */
static void put_text(jout *o, const char *s, uint32_t n)
{
    jput(o, "\"", 1);
    for (uint32_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            char b[2] = {'\\', (char)ch};
            jput(o, b, 2);
        } else if (ch < 0x20) {
            char b[8];
            int k = snprintf(b, sizeof b, "\\u%04X", ch);
            jput(o, b, (uint32_t)k);
        } else {
            jput(o, s + i, 1);
        }
    }
    jput(o, "\"", 1);
}

/* Whether a value of type t can be a JSON value (JsonGenerateUtils'
 * createNodeTerm), else Flink's message into why. */
static bool json_writable(weir_type t, char *why, size_t size)
{
    const weir__nested *d = weir__nested_of(t);
    switch (t.id) {
    case WEIR_TYPE_VARCHAR: case WEIR_TYPE_CHAR: case WEIR_TYPE_BOOLEAN:
    case WEIR_TYPE_DECIMAL: case WEIR_TYPE_TINYINT: case WEIR_TYPE_SMALLINT:
    case WEIR_TYPE_INT: case WEIR_TYPE_BIGINT: case WEIR_TYPE_FLOAT: case WEIR_TYPE_DOUBLE:
    case WEIR_TYPE_TIMESTAMP: case WEIR_TYPE_TIMESTAMP_LTZ:
    case WEIR_TYPE_BINARY: case WEIR_TYPE_VARBINARY:
    case WEIR_TYPE_NULL:
        return true;
    case WEIR_TYPE_ROW:
    case WEIR_TYPE_ARRAY:
        for (uint32_t i = 0; d && i < (t.id == WEIR_TYPE_ROW ? d->n : 1); i++)
            if (!json_writable(d->types[i], why, size))
                return false;
        return d != NULL;
    case WEIR_TYPE_MAP:
        if (d && !weir__type_is_string(d->types[0].id)) {
            char k[128];
            weir_type_format(d->types[0], k, sizeof k);
            snprintf(why, size, "Type '%s' is not supported for JSON conversion. The key type "
                     "must be a character string.", k);
            return false;
        }
        return d && json_writable(d->types[1], why, size);
    default: {
        char k[128];
        weir_type_format(t, k, sizeof k);
        snprintf(why, size, "Type '%s' is not scalar or cannot be converted into JSON.", k);
        return false;
    }
    }
}

/* A double as Jackson's DoubleNode goes through BigDecimal.valueOf (its
 * Double.toString digits); NaN and the infinities as the quoted names
 * Jackson writes. */
static void put_double(jout *o, double x)
{
    char b[64];
    int k = weir__format_double(x, b, sizeof b);
    if (isnan(x) || isinf(x))
        put_text(o, b, (uint32_t)k);
    else
        put_number(o, b, (uint32_t)k);
}

/* A value of type t (not NULL) as JSON; a MAP's NULL key fails (Flink's
 * message). */
static int put_val(jout *o, weir_type t, const weir__val *v, int depth, const char **why)
{
    char b[96];
    int k;
    switch (t.id) {
    case WEIR_TYPE_VARCHAR:
    case WEIR_TYPE_CHAR:
        put_text(o, v->s, v->len);
        return 0;
    case WEIR_TYPE_BOOLEAN:
        jput(o, v->i ? "true" : "false", v->i ? 4 : 5);
        return 0;
    case WEIR_TYPE_TINYINT: case WEIR_TYPE_SMALLINT: case WEIR_TYPE_INT: case WEIR_TYPE_BIGINT:
        k = snprintf(b, sizeof b, "%" PRId64, v->i);
        jput(o, b, (uint32_t)k);
        return 0;
    case WEIR_TYPE_FLOAT:
        put_double(o, (double)(float)v->d); /* FloatNode: BigDecimal.valueOf((double) f) */
        return 0;
    case WEIR_TYPE_DOUBLE:
        put_double(o, v->d);
        return 0;
    case WEIR_TYPE_DECIMAL:
        k = weir__dec_format(weir__dec_get(v), t.scale, true, b, sizeof b);
        jput(o, b, (uint32_t)k);
        return 0;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: {
        /* ISO_LOCAL_DATE_TIME: seconds always, the fraction without its
         * trailing zeros; an instant's UTC date-time and a Z */
        int64_t ms = v->i, days = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);
        int64_t in_day = ms - days * 86400000, y;
        unsigned mo, d;
        weir__civil_from_days(days, &y, &mo, &d);
        k = snprintf(b, sizeof b, "%04" PRId64 "-%02u-%02uT%02d:%02d:%02d", y, mo, d,
                     (int)(in_day / 3600000), (int)(in_day / 60000 % 60),
                     (int)(in_day / 1000 % 60));
        int64_t ns = in_day % 1000 * 1000000 + v->nanos;
        if (ns) {
            char f[16];
            int fl = snprintf(f, sizeof f, "%09" PRId64, ns);
            while (fl > 0 && f[fl - 1] == '0')
                fl--;
            k += snprintf(b + k, sizeof b - (size_t)k, ".%.*s", fl, f);
        }
        if (t.id == WEIR_TYPE_TIMESTAMP_LTZ)
            b[k++] = 'Z';
        put_text(o, b, (uint32_t)k);
        return 0;
    }
    case WEIR_TYPE_BINARY:
    case WEIR_TYPE_VARBINARY: {
        /* a binary node: Jackson writes base64 */
        uint32_t need = (v->len + 2) / 3 * 4;
        jput(o, "\"", 1);
        if (o->len + need > o->cap) {
            o->full = true;
            return 0;
        }
        weir__base64_encode((const unsigned char *)v->s, v->len, o->p + o->len, need);
        o->len += need;
        jput(o, "\"", 1);
        return 0;
    }
    case WEIR_TYPE_ROW:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP: {
        const weir__nested *nd = weir__nested_of(t);
        const unsigned char *slot = (const unsigned char *)v->s;
        if (!nd || depth > JSON_MAX_DEPTH) {
            o->full = true;
            return 0;
        }
        bool object = t.id != WEIR_TYPE_ARRAY;
        jput(o, object ? "{" : "[", 1);
        uint32_t count = weir__nested_count_of(nd, slot);
        for (uint32_t i = 0; i < count && !o->full; i++) {
            if (i)
                jput(o, ",", 1);
            weir__val e;
            if (t.id == WEIR_TYPE_ROW) {
                put_text(o, nd->names[i], (uint32_t)strlen(nd->names[i]));
                jput(o, ":", 1);
            } else if (t.id == WEIR_TYPE_MAP) {
                weir__nested_element(nd, slot, 0, i, &e);
                if (e.null) {
                    *why = "Key was null. This is not supported during conversion to JSON.";
                    return WEIR_EINVAL;
                }
                put_text(o, e.s, e.len);
                jput(o, ":", 1);
            }
            int part = t.id == WEIR_TYPE_MAP;
            weir_type et = t.id == WEIR_TYPE_ROW ? nd->types[i] : nd->types[part];
            weir__nested_element(nd, slot, part, i, &e);
            if (e.null) {
                jput(o, "null", 4);
            } else {
                int r = put_val(o, et, &e, depth + 1, why);
                if (r)
                    return r;
            }
        }
        jput(o, object ? "}" : "]", 1);
        return 0;
    }
    default:
        o->full = true; /* refused at plan time */
        return 0;
    }
}

static int e_json_ctor(const weir__fncall *c, weir__val *o, const char **why);

/* JSON_OBJECT (aux[0] 1) and JSON_ARRAY (0): sym the ON NULL behaviour;
 * the keys character strings that are never NULL (Calcite's check). */
static bool t_json_ctor(weir__fnbind *b)
{
    weir__enode *n = b->n;
    bool object = n->aux[0] == 1;
    if (object && n->nargs % 2) {
        weir__bind_fail(b->p, b->a->start, "JSON_OBJECT: a key without its value");
        return false;
    }
    for (int i = 0; i < n->nargs; i++) {
        weir__enode *x = n->args[i];
        if (object && i % 2 == 0) {
            const weir_ast *ka = b->a->args[1 + i];
            if (!weir__type_is_string(x->type.id)) {
                weir__bind_fail(b->p, x->pos, "Expected a character type");
                return false;
            }
            if (!x->type.not_null) {
                char kt[256];
                weir_ast_format(ka, kt, sizeof kt);
                weir__bind_fail(b->p, x->pos, "Argument '%s' must not be NULL", kt);
                return false;
            }
            continue;
        }
        char why[300];
        if (!json_writable(x->type, why, sizeof why)) {
            weir__bind_fail(b->p, x->pos, "%s", why);
            return false;
        }
    }
    n->aux[1] = strcmp(b->nsym ? b->sym[0] : (object ? "NULL" : "ABSENT"), "ABSENT") == 0;
    uint32_t cap = weir__bind_string_capacity(b->p);
    n->type = weir__fn_varchar(cap, true);
    /* the text as written, before its keys are sorted: the result's room
     * twice (numbers and escapes may be rewritten shorter, a key given
     * twice once) */
    n->aux[2] = 2 * (int64_t)n->type.capacity + 16;
    b->work = (uint32_t)n->aux[2];
    return true;
}

static int e_json_ctor(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__enode *n = c->n;
    bool object = n->aux[0] == 1, absent = n->aux[1] != 0;
    int step = object ? 2 : 1;
    jout raw = {.p = (char *)c->work, .cap = (uint32_t)n->aux[2]};
    jput(&raw, object ? "{" : "[", 1);
    bool first = true;
    for (int i = 0; i < n->nargs && !raw.full; i += step) {
        const weir__val *v = &c->args[i + step - 1];
        const weir__enode *x = n->args[i + step - 1];
        if (v->null && absent)
            continue;
        if (!first)
            jput(&raw, ",", 1);
        first = false;
        if (object) {
            put_text(&raw, c->args[i].s, c->args[i].len);
            jput(&raw, ":", 1);
        }
        if (v->null) {
            jput(&raw, "null", 4);
        } else if (x->op == OP_BUILTIN && x->bi->eval == e_json_ctor) {
            jput(&raw, v->s, v->len); /* a raw node */
        } else {
            int r = put_val(&raw, x->type, v, 0, why);
            if (r)
                return r;
        }
    }
    jput(&raw, object ? "}" : "]", 1);
    if (raw.full)
        return weir__fn_too_long(c, why);
    jout out = {.p = c->buf, .cap = n->type.capacity};
    put_value(&out, raw.p, raw.len, 0, 0);
    if (out.full)
        return weir__fn_too_long(c, why);
    o->s = c->buf;
    o->len = out.len;
    return 0;
}

/* JSON_STRING(v): the value as JSON text (Flink's JsonStringCallGen: the
 * node JsonGenerateUtils makes of it, serialized as above); NULL for NULL. */
static bool t_json_string(weir__fnbind *b)
{
    char why[300];
    if (!json_writable(b->n->args[0]->type, why, sizeof why)) {
        weir__bind_fail(b->p, b->n->args[0]->pos, "%s", why);
        return false;
    }
    b->n->type = weir__fn_varchar(weir__bind_string_capacity(b->p), false);
    b->n->aux[2] = 2 * (int64_t)b->n->type.capacity + 16;
    b->work = (uint32_t)b->n->aux[2];
    return true;
}

static int e_json_string(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__enode *x = c->n->args[0];
    const weir__val *v = &c->args[0];
    jout raw = {.p = (char *)c->work, .cap = (uint32_t)c->n->aux[2]};
    if (x->op == OP_BUILTIN && x->bi->eval == e_json_ctor) {
        jput(&raw, v->s, v->len);
    } else {
        int r = put_val(&raw, x->type, v, 0, why);
        if (r)
            return r;
    }
    if (raw.full)
        return weir__fn_too_long(c, why);
    return json_result(c, raw.p, raw.len, 0, false, o, why);
}

/* s IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT] (which 0..3), as
 * SqlJsonUtils.isJsonValue ... isJsonObject: the string read by Jackson
 * (text after the first value ignored), then its kind; BOOLEAN NOT NULL,
 * FALSE for NULL whether NOT or not (Flink's result is NOT NULL, so a NULL
 * argument gives the type's default). */
static bool t_is_json(weir__fnbind *b)
{
    b->n->type = (weir_type){.id = WEIR_TYPE_BOOLEAN, .not_null = true};
    b->n->aux[1] = b->a->negate;
    return true;
}

static int e_is_json(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    const weir__val *a = &c->args[0];
    if (a->null) {
        o->i = 0;
        return 0;
    }
    const char *s = a->s ? a->s : "";
    uint32_t n = a->len, i = ws(s, n, 0);
    bool is = value_end(s, n, 0, 0) != 0;
    if (is) {
        switch (c->n->aux[0]) {
        case 1: is = s[i] != '{' && s[i] != '['; break;
        case 2: is = s[i] == '['; break;
        case 3: is = s[i] == '{'; break;
        default: break;
        }
    }
    o->i = is != (c->n->aux[1] != 0);
    return 0;
}

#define JSON WEIR_AST_FORM_JSON

const weir__builtin weir__fn_json[] = {
    {"JSON_VALUE", 4, 4, JSON, FN_NULLS, "S,S,A,A", t_json_value, e_json_value, 0},
    {"JSON_QUERY", 2, 2, JSON, 0, "S,S", t_json_query, e_json_query, 0},
    {"JSON_EXISTS", 2, 2, JSON, 0, "S,S", t_json_exists, e_json_exists, 0},
    {"JSON_OBJECT", 0, -1, WEIR_AST_FORM_JSON_CTOR, FN_NULLS, NULL, t_json_ctor, e_json_ctor, 1},
    {"JSON_ARRAY", 0, -1, WEIR_AST_FORM_JSON_CTOR, FN_NULLS, NULL, t_json_ctor, e_json_ctor, 0},
    {"JSON_STRING", 1, 1, WEIR_AST_FORM_CALL, 0, NULL, t_json_string, e_json_string, 0},
    {"IS JSON VALUE", 1, 1, WEIR_AST_FORM_IS, FN_NULLS, "C", t_is_json, e_is_json, 0},
    {"IS JSON SCALAR", 1, 1, WEIR_AST_FORM_IS, FN_NULLS, "C", t_is_json, e_is_json, 1},
    {"IS JSON ARRAY", 1, 1, WEIR_AST_FORM_IS, FN_NULLS, "C", t_is_json, e_is_json, 2},
    {"IS JSON OBJECT", 1, 1, WEIR_AST_FORM_IS, FN_NULLS, "C", t_is_json, e_is_json, 3},
    {NULL, 0, 0, WEIR_AST_FORM_CALL, 0, NULL, NULL, NULL, 0},
};
