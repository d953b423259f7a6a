/* nested.c — the nested types ROW<...>, ARRAY<...> and MAP<...> (weir/row.h):
 * their descriptions, their layout inside a row, their values read from
 * JSON text and written as Flink writes them.
 *
 * A nested type is described once, process-wide: weir_type's capacity is
 * the number of its description in a registry that only grows (at most
 * WEIR__NESTED_MAX descriptions; equal ones are the same entry, so two types
 * are the same when their numbers are). Descriptions are made while
 * schemas and expressions are built (under a lock) and read lock-free
 * everywhere else (an acquire load of the entry): the data path never
 * waits.
 *
 * Layout: a value has a fixed size, inline in its row, and no pointer:
 *   ROW      one null bit per field (bit f%8 of byte f/8), then the fields
 *            at their alignment, as a row's columns are laid out;
 *   ARRAY    a uint32 count, one null bit per element, then `capacity`
 *            elements at their alignment (stride: the element's size);
 *   MAP      a uint32 count, one null bit per key, one per value, then
 *            `capacity` keys, then `capacity` values.
 * Bytes of NULL fields, of elements past the count and of padding are zero,
 * so that equal values are equal bytes (group keys, the changelog's
 * comparisons). A value of more elements than the capacity is an error,
 * never cut. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "expr_tree.h"
#include "table_internal.h"
#include "weir/error.h"

#define WEIR__NESTED_MAX 4096
#define NESTED_MAX_FIELDS 1024

static pthread_mutex_t nested_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(weir__nested *) nested_reg[WEIR__NESTED_MAX];
static int nested_count;


const weir__nested *weir__nested_of(weir_type t)
{
    if (!weir__type_is_nested(t.id) || t.capacity == 0 || t.capacity > WEIR__NESTED_MAX)
        return NULL;
    return atomic_load_explicit(&nested_reg[t.capacity - 1], memory_order_acquire);
}

static bool same_desc(const weir__nested *d, weir_type_id id, uint32_t n,
                      const char *const *names, const weir_type *types)
{
    if (d->id != id || d->n != n)
        return false;
    int nt = id == WEIR_TYPE_ROW ? (int)n : id == WEIR_TYPE_ARRAY ? 1 : 2;
    for (int i = 0; i < nt; i++) {
        if (!weir__type_same(d->types[i], types[i]) || d->types[i].not_null != types[i].not_null)
            return false;
        if (id == WEIR_TYPE_ROW && strcmp(d->names[i], names[i]) != 0)
            return false;
    }
    return true;
}

static uint32_t align_up(uint32_t x, uint32_t a)
{
    return (x + a - 1) & ~(a - 1);
}

/* Computes a description's layout; false when it is larger than a row. */
static bool lay_out(weir__nested *d)
{
    uint64_t off, a = 1;
    if (d->id == WEIR_TYPE_ROW) {
        off = (d->n + 7) / 8;
        for (uint32_t i = 0; i < d->n; i++) {
            uint32_t fa = weir__type_align(d->types[i]);
            off = (off + fa - 1) & ~(uint64_t)(fa - 1);
            d->offs[i] = (uint32_t)(off > UINT32_MAX ? 0 : off);
            off += weir__type_size(d->types[i]);
            if (fa > a)
                a = fa;
            if (off > WEIR_ROW_MAX_SIZE)
                return false;
        }
    } else {
        uint32_t bits = (d->n + 7) / 8;
        weir_type k = d->types[0];
        uint32_t ka = weir__type_align(k), ks = align_up(weir__type_size(k), ka);
        a = ka > 4 ? ka : 4;
        d->knulls = 4;
        d->vnulls = 4 + bits;
        off = 4 + (uint64_t)bits * (d->id == WEIR_TYPE_MAP ? 2 : 1);
        off = (off + ka - 1) & ~(uint64_t)(ka - 1);
        d->koff = (uint32_t)off;
        d->kstride = ks;
        off += (uint64_t)ks * d->n;
        if (d->id == WEIR_TYPE_MAP) {
            weir_type v = d->types[1];
            uint32_t va = weir__type_align(v), vs = align_up(weir__type_size(v), va);
            if (va > a)
                a = va;
            off = (off + va - 1) & ~(uint64_t)(va - 1);
            d->voff = (uint32_t)(off > UINT32_MAX ? 0 : off);
            d->vstride = vs;
            off += (uint64_t)vs * d->n;
        }
        if (off > WEIR_ROW_MAX_SIZE)
            return false;
    }
    off = (off + a - 1) & ~(uint64_t)(a - 1);
    if (off == 0)
        off = 1;
    if (off > WEIR_ROW_MAX_SIZE)
        return false;
    d->size = (uint32_t)off;
    d->align = (uint32_t)a;
    return true;
}

static void desc_free(weir__nested *d)
{
    if (!d)
        return;
    if (d->names)
        for (uint32_t i = 0; i < d->n; i++)
            free(d->names[i]);
    free(d->names);
    free(d->types);
    free(d->offs);
    free(d);
}

weir_type weir__nested_make(weir_type_id id, uint32_t n, const char *const *names,
                            const weir_type *types, bool not_null, const char **why)
{
    weir_type none = {.id = WEIR_TYPE_NULL};
    if (id == WEIR_TYPE_ROW && (n == 0 || n > NESTED_MAX_FIELDS)) {
        *why = n ? "a ROW has more than 1024 fields" : "a ROW needs a field";
        return none;
    }
    if (id != WEIR_TYPE_ROW && n > WEIR_COLLECTION_MAX_CAPACITY) {
        *why = "a collection capacity above WEIR_COLLECTION_MAX_CAPACITY";
        return none;
    }
    int nt = id == WEIR_TYPE_ROW ? (int)n : id == WEIR_TYPE_ARRAY ? 1 : 2;
    for (int i = 0; i < nt; i++)
        if (!weir__type_is_column(types[i].id)) {
            *why = "an element of a type a column may not have";
            return none;
        }
    pthread_mutex_lock(&nested_lock);
    for (int i = 0; i < nested_count; i++) {
        weir__nested *d = atomic_load_explicit(&nested_reg[i], memory_order_relaxed);
        if (same_desc(d, id, n, names, types)) {
            pthread_mutex_unlock(&nested_lock);
            return (weir_type){.id = id, .capacity = (uint32_t)i + 1, .not_null = not_null};
        }
    }
    weir__nested *d = calloc(1, sizeof *d);
    if (d) {
        d->id = id;
        d->n = n;
        d->types = calloc((size_t)nt, sizeof *d->types);
        if (id == WEIR_TYPE_ROW) {
            d->names = calloc(n, sizeof *d->names);
            d->offs = calloc(n, sizeof *d->offs);
        }
    }
    bool ok = d && d->types && (id != WEIR_TYPE_ROW || (d->names && d->offs));
    for (int i = 0; ok && i < nt; i++) {
        d->types[i] = types[i];
        if (id == WEIR_TYPE_ROW && !(d->names[i] = strdup(names[i])))
            ok = false;
    }
    if (!ok) {
        pthread_mutex_unlock(&nested_lock);
        desc_free(d);
        *why = "out of memory";
        return none;
    }
    if (!lay_out(d)) {
        pthread_mutex_unlock(&nested_lock);
        desc_free(d);
        *why = "a nested value larger than WEIR_ROW_MAX_SIZE";
        return none;
    }
    if (nested_count == WEIR__NESTED_MAX) {
        pthread_mutex_unlock(&nested_lock);
        desc_free(d);
        *why = "more than 4096 distinct nested types in the process";
        return none;
    }
    int at = nested_count++;
    atomic_store_explicit(&nested_reg[at], d, memory_order_release);
    pthread_mutex_unlock(&nested_lock);
    return (weir_type){.id = id, .capacity = (uint32_t)at + 1, .not_null = not_null};
}

int weir__type_resolve(weir_type *t, uint32_t string_cap, uint32_t coll_cap, const char **why)
{
    if (weir__type_is_var(t->id)) {
        if (t->capacity == 0 && (t->id == WEIR_TYPE_VARCHAR || t->id == WEIR_TYPE_VARBINARY))
            t->capacity = string_cap;
        return 0;
    }
    const weir__nested *d = weir__nested_of(*t);
    if (!d)
        return 0;
    int nt = d->id == WEIR_TYPE_ROW ? (int)d->n : d->id == WEIR_TYPE_ARRAY ? 1 : 2;
    weir_type types[NESTED_MAX_FIELDS];
    for (int i = 0; i < nt; i++) {
        types[i] = d->types[i];
        int r = weir__type_resolve(&types[i], string_cap, coll_cap, why);
        if (r)
            return r;
    }
    uint32_t n = d->id == WEIR_TYPE_ROW || d->n ? d->n : coll_cap;
    weir_type r = weir__nested_make(d->id, n, (const char *const *)d->names, types, t->not_null,
                                    why);
    if (r.id == WEIR_TYPE_NULL)
        return strcmp(*why, "out of memory") == 0 ? WEIR_ENOMEM : WEIR_EINVAL;
    *t = r;
    return 0;
}

uint32_t weir__nested_size(weir_type t)
{
    const weir__nested *d = weir__nested_of(t);
    return d ? d->size : 8;
}

uint32_t weir__nested_align(weir_type t)
{
    const weir__nested *d = weir__nested_of(t);
    return d ? d->align : 8;
}

int weir_type_nested_count(weir_type t)
{
    const weir__nested *d = weir__nested_of(t);
    return d ? (int)d->n : 0;
}

const char *weir_type_nested_name(weir_type t, int i)
{
    const weir__nested *d = weir__nested_of(t);
    return d && d->id == WEIR_TYPE_ROW && i >= 0 && (uint32_t)i < d->n ? d->names[i] : NULL;
}

weir_type weir_type_nested_type(weir_type t, int i)
{
    const weir__nested *d = weir__nested_of(t);
    int nt = !d ? 0 : d->id == WEIR_TYPE_ROW ? (int)d->n : d->id == WEIR_TYPE_ARRAY ? 1 : 2;
    return i >= 0 && i < nt ? d->types[i] : (weir_type){.id = WEIR_TYPE_NULL};
}

/* ---- type text ---------------------------------------------------------------------------- */

/* A name as Flink writes a ROW's field: `name`, a back quote doubled. */
static void put_name(char *buf, size_t size, size_t *n, const char *name)
{
    weir__append(buf, size, n, "`");
    for (const char *c = name; *c; c++)
        weir__append(buf, size, n, *c == '`' ? "``" : "%c", *c);
    weir__append(buf, size, n, "`");
}

int weir__nested_format_type(weir_type t, char *buf, size_t size)
{
    const weir__nested *d = weir__nested_of(t);
    size_t n = 0;
    char sub[1024];
    if (!d)
        return snprintf(buf, size, "?");
    if (d->id == WEIR_TYPE_ROW) {
        weir__append(buf, size, &n, "ROW<");
        for (uint32_t i = 0; i < d->n; i++) {
            if (i)
                weir__append(buf, size, &n, ", ");
            put_name(buf, size, &n, d->names[i]);
            weir_type_format(d->types[i], sub, sizeof sub);
            weir__append(buf, size, &n, " %s", sub);
        }
        weir__append(buf, size, &n, ">");
    } else {
        weir_type_format(d->types[0], sub, sizeof sub);
        weir__append(buf, size, &n, "%s<%s", d->id == WEIR_TYPE_ARRAY ? "ARRAY" : "MAP", sub);
        if (d->id == WEIR_TYPE_MAP) {
            weir_type_format(d->types[1], sub, sizeof sub);
            weir__append(buf, size, &n, ", %s", sub);
        }
        weir__append(buf, size, &n, ">");
    }
    if (t.not_null)
        weir__append(buf, size, &n, " NOT NULL");
    return (int)n;
}

/* ---- values -------------------------------------------------------------------------------- */

void weir__nested_load(const unsigned char *p, weir_type t, bool null, weir__val *v)
{
    *v = (weir__val){.null = null};
    if (!null)
        weir__read_value(p, t, v);
}

void weir__nested_element(const weir__nested *d, const unsigned char *slot, int part, uint32_t i,
                          weir__val *v)
{
    if (d->id == WEIR_TYPE_ROW) {
        weir__nested_load(slot + d->offs[i], d->types[i], weir__bit(slot, i), v);
    } else if (part == 0) {
        weir__nested_load(slot + d->koff + i * d->kstride, d->types[0],
                          weir__bit(slot + d->knulls, i), v);
    } else {
        weir__nested_load(slot + d->voff + i * d->vstride, d->types[1],
                          weir__bit(slot + d->vnulls, i), v);
    }
}

uint32_t weir__nested_count_of(const weir__nested *d, const unsigned char *slot)
{
    if (d->id == WEIR_TYPE_ROW)
        return d->n;
    uint32_t c;
    memcpy(&c, slot, 4);
    return c;
}

/* A value as Flink prints it: the SQL client's casts to a string
 * (RowToStringCastRule "(1, a)", ArrayToStringCastRule "[1, 2]",
 * MapToStringCastRule "{k=v}", a NULL inside "null"), or the print
 * connector's Row.toString ("+I[1, a]", Java's arrays and maps). */
int weir__nested_format_val(weir_type t, const weir__val *v, weir_row_style style,
                            const weir_time_zone *zone, char *buf, size_t size)
{
    const weir__nested *d = weir__nested_of(t);
    if (v->null)
        return snprintf(buf, size, "null");
    if (!d)
        return snprintf(buf, size, "?");
    const unsigned char *slot = (const unsigned char *)v->s;
    bool print = style == WEIR_ROW_STYLE_PRINT_CONNECTOR;
    size_t n = 0;
    uint32_t count = weir__nested_count_of(d, slot);
    const char *open = d->id == WEIR_TYPE_ROW ? (print ? "+I[" : "(")
                       : d->id == WEIR_TYPE_ARRAY ? "["
                                                  : "{";
    const char *close = d->id == WEIR_TYPE_ROW ? (print ? "]" : ")")
                        : d->id == WEIR_TYPE_ARRAY ? "]"
                                                   : "}";
    weir__append(buf, size, &n, "%s", open);
    for (uint32_t i = 0; i < count; i++) {
        if (i)
            weir__append(buf, size, &n, ", ");
        for (int part = 0; part < (d->id == WEIR_TYPE_MAP ? 2 : 1); part++) {
            weir__val e;
            weir__nested_element(d, slot, part, i, &e);
            weir_type et = d->id == WEIR_TYPE_ROW ? d->types[i] : d->types[part];
            if (part)
                weir__append(buf, size, &n, "=");
            int w = weir__format_val(et, &e, style, zone, n < size ? buf + n : NULL,
                                     n < size ? size - n : 0);
            if (w > 0)
                n += (size_t)w;
        }
    }
    weir__append(buf, size, &n, "%s", close);
    return (int)n;
}

/* ---- JSON text in ---------------------------------------------------------------------------- */

typedef struct jin {
    const char *s;
    uint32_t n, i;
    char *why;
    size_t whysize;
    char path[160]; /* where in the value: "field b", "element 3", "key 'k'" */
} jin;

static int jbad(jin *j, int code, const char *fmt, ...) WEIR_PRINTF(3, 4);
static int jbad(jin *j, int code, const char *fmt, ...)
{
    if (j->why && j->whysize) {
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (j->path[0])
            snprintf(j->why, j->whysize, "%s: %s", j->path, msg);
        else
            snprintf(j->why, j->whysize, "%s", msg);
    }
    return code;
}

static void jws(jin *j)
{
    while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' ||
                           j->s[j->i] == '\r'))
        j->i++;
}

static bool jlit(jin *j, const char *w)
{
    size_t k = strlen(w);
    if (j->n - j->i >= k && memcmp(j->s + j->i, w, k) == 0) {
        j->i += (uint32_t)k;
        return true;
    }
    return false;
}

static void put_utf8(char *out, uint32_t *k, uint32_t c)
{
    if (c < 0x80) {
        out[(*k)++] = (char)c;
    } else if (c < 0x800) {
        out[(*k)++] = (char)(0xC0 | c >> 6);
        out[(*k)++] = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out[(*k)++] = (char)(0xE0 | c >> 12);
        out[(*k)++] = (char)(0x80 | (c >> 6 & 0x3F));
        out[(*k)++] = (char)(0x80 | (c & 0x3F));
    } else {
        out[(*k)++] = (char)(0xF0 | c >> 18);
        out[(*k)++] = (char)(0x80 | (c >> 12 & 0x3F));
        out[(*k)++] = (char)(0x80 | (c >> 6 & 0x3F));
        out[(*k)++] = (char)(0x80 | (c & 0x3F));
    }
}

static int hex4(const char *s, uint32_t *c)
{
    *c = 0;
    for (int k = 0; k < 4; k++) {
        int h = isdigit((unsigned char)s[k])   ? s[k] - '0'
                : s[k] >= 'a' && s[k] <= 'f' ? s[k] - 'a' + 10
                : s[k] >= 'A' && s[k] <= 'F' ? s[k] - 'A' + 10
                                             : -1;
        if (h < 0)
            return -1;
        *c = *c << 4 | (uint32_t)h;
    }
    return 0;
}

/* A JSON string at j->i decoded into out (room: the raw text's length,
 * which a decoded string never passes); its length in *len. */
static int jstring(jin *j, char *out, uint32_t *len)
{
    if (j->i >= j->n || j->s[j->i] != '"')
        return jbad(j, WEIR_EFORMAT, "a string expected");
    uint32_t k = 0;
    for (j->i++; j->i < j->n; j->i++) {
        unsigned char c = (unsigned char)j->s[j->i];
        if (c == '"') {
            j->i++;
            *len = k;
            return 0;
        }
        if (c < 0x20)
            return jbad(j, WEIR_EFORMAT, "a control character in a string");
        if (c != '\\') {
            out[k++] = (char)c;
            continue;
        }
        if (++j->i >= j->n)
            break;
        char e = j->s[j->i];
        const char *map = strchr("\"\\/bfnrt", e);
        if (map) {
            static const char to[] = "\"\\/\b\f\n\r\t";
            out[k++] = to[map - "\"\\/bfnrt"];
        } else if (e == 'u' && j->n - j->i > 4) {
            uint32_t cp;
            if (hex4(j->s + j->i + 1, &cp))
                return jbad(j, WEIR_EFORMAT, "a bad \\u escape");
            j->i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && j->n - j->i > 6 && j->s[j->i + 1] == '\\' &&
                j->s[j->i + 2] == 'u') {
                uint32_t lo;
                if (!hex4(j->s + j->i + 3, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    j->i += 6;
                }
            }
            put_utf8(out, &k, cp);
        } else {
            return jbad(j, WEIR_EFORMAT, "a bad escape in a string");
        }
    }
    return jbad(j, WEIR_EFORMAT, "a string not closed");
}

/* The extent of a JSON number at j->i. */
static int jnumber(jin *j, uint32_t *a, uint32_t *b, bool *integer)
{
    uint32_t i = j->i;
    *a = i;
    *integer = true;
    if (i < j->n && j->s[i] == '-')
        i++;
    if (i >= j->n || !isdigit((unsigned char)j->s[i]))
        return jbad(j, WEIR_EFORMAT, "a value expected");
    while (i < j->n && isdigit((unsigned char)j->s[i]))
        i++;
    if (i < j->n && j->s[i] == '.') {
        *integer = false;
        i++;
        while (i < j->n && isdigit((unsigned char)j->s[i]))
            i++;
    }
    if (i < j->n && (j->s[i] == 'e' || j->s[i] == 'E')) {
        *integer = false;
        i++;
        if (i < j->n && (j->s[i] == '+' || j->s[i] == '-'))
            i++;
        while (i < j->n && isdigit((unsigned char)j->s[i]))
            i++;
    }
    *b = i;
    j->i = i;
    return 0;
}

static int jvalue(jin *j, weir_type t, unsigned char *p, bool *null, int depth);

/* Skips one JSON value (an object's field the ROW does not have). */
static int jskip(jin *j, int depth)
{
    if (depth > 100)
        return jbad(j, WEIR_EFORMAT, "nested too deep");
    jws(j);
    if (j->i >= j->n)
        return jbad(j, WEIR_EFORMAT, "a value expected");
    char c = j->s[j->i];
    if (c == '"') {
        for (j->i++; j->i < j->n && j->s[j->i] != '"'; j->i++)
            if (j->s[j->i] == '\\')
                j->i++;
        if (j->i >= j->n)
            return jbad(j, WEIR_EFORMAT, "a string not closed");
        j->i++;
        return 0;
    }
    if (c == '{' || c == '[') {
        char end = c == '{' ? '}' : ']';
        j->i++;
        jws(j);
        if (j->i < j->n && j->s[j->i] == end) {
            j->i++;
            return 0;
        }
        for (;;) {
            if (c == '{') {
                int r = jskip(j, depth + 1);
                if (r)
                    return r;
                jws(j);
                if (j->i >= j->n || j->s[j->i] != ':')
                    return jbad(j, WEIR_EFORMAT, "':' expected");
                j->i++;
            }
            int r = jskip(j, depth + 1);
            if (r)
                return r;
            jws(j);
            if (j->i < j->n && j->s[j->i] == ',') {
                j->i++;
                continue;
            }
            if (j->i < j->n && j->s[j->i] == end) {
                j->i++;
                return 0;
            }
            return jbad(j, WEIR_EFORMAT, "',' or '%c' expected", end);
        }
    }
    if (jlit(j, "true") || jlit(j, "false") || jlit(j, "null"))
        return 0;
    uint32_t a, b;
    bool integer;
    return jnumber(j, &a, &b, &integer);
}

/* A scalar value from its text, as weir_row_set_text reads a column's. */
static int text_to_slot(jin *j, weir_type t, const char *text, uint32_t len, unsigned char *p)
{
    weir__val v = {0};
    char tf[64];
    tf[0] = 0;
    if (weir__type_is_var(t.id)) {
        // cppcheck-suppress variableScope ; src points into b after the branch that fills it
        unsigned char b[WEIR_STRING_MAX_CAPACITY + 3];
        const char *src = text;
        if (weir__type_is_binary(t.id)) {
            int k = weir__base64_decode(text, len, b, (size_t)t.capacity + 3);
            if (k == -1)
                return jbad(j, WEIR_EFORMAT, "not base64");
            if (k == -2 || (uint32_t)k > t.capacity)
                return jbad(j, WEIR_ERANGE, "%u bytes or more are longer than its capacity %u",
                            t.capacity + 1, t.capacity);
            src = (const char *)b;
            len = (uint32_t)k;
        } else if (len > t.capacity) {
            return jbad(j, WEIR_ERANGE, "a string of %u bytes is longer than its capacity %u",
                        len, t.capacity);
        }
        uint32_t stored = len;
        memcpy(p + 4, src, len);
        if (t.id == WEIR_TYPE_CHAR || t.id == WEIR_TYPE_BINARY) {
            memset(p + 4 + len, t.id == WEIR_TYPE_CHAR ? ' ' : 0, t.capacity - len);
            stored = t.capacity;
        }
        memcpy(p, &stored, 4);
        return 0;
    }
    int r = 0;
    if (weir__type_is_time(t.id)) {
        if (t.id == WEIR_TYPE_TIMESTAMP_LTZ && len > 19 && text[len - 1] == 'Z')
            len--;
        if (weir__parse_timestamp(text, len, &v.i, &v.nanos, NULL))
            r = WEIR_EFORMAT;
        else
            weir__timestamp_truncate(&v.i, &v.nanos, weir_type_precision(t));
    } else if (t.id == WEIR_TYPE_DECIMAL) {
        weir__i128 x;
        int e = weir__dec_parse(text, len, weir_type_precision(t), t.scale, &x);
        if (e)
            r = e > 0 ? WEIR_ERANGE : WEIR_EFORMAT;
        else
            weir__dec_set(&v, x);
    } else if (t.id == WEIR_TYPE_DATE) {
        r = weir__parse_date(text, len, &v.i) ? WEIR_EFORMAT : 0;
    } else if (t.id == WEIR_TYPE_TIME) {
        int digits;
        if (weir__parse_time(text, len, &v.i, &digits))
            r = WEIR_EFORMAT;
    } else if (len == 0 || len >= sizeof tf) {
        r = WEIR_EFORMAT;
    } else {
        memcpy(tf, text, len);
        tf[len] = 0;
        r = weir__parse_literal(t.id, tf, &v);
        if (!r && t.id == WEIR_TYPE_FLOAT)
            v.d = (float)v.d;
    }
    if (r) {
        char ty[64];
        weir_type_format(t, ty, sizeof ty);
        return r == WEIR_ERANGE
                   ? jbad(j, r, "'%.*s' is out of the range of %s", len > 40 ? 40 : (int)len,
                          text, ty)
                   : jbad(j, r, "'%.*s' is not a %s", len > 40 ? 40 : (int)len, text, ty);
    }
    weir__write_value(p, t, &v);
    return 0;
}

static const char *jkind(char c)
{
    return c == '{' ? "an object" : c == '[' ? "an array" : c == '"' ? "a string"
           : c == 't' || c == 'f'             ? "a boolean"
                                              : "a number";
}

static int jwrong(jin *j, weir_type t, char c)
{
    char ty[256];
    weir_type_format(t, ty, sizeof ty);
    return jbad(j, WEIR_EFORMAT, "%s where %s is expected", jkind(c), ty);
}

static int jscalar(jin *j, weir_type t, unsigned char *p)
{
    char c = j->s[j->i];
    if (c == '"') {
        /* decoded into a buffer as long as the raw text */
        uint32_t start = j->i, len;
        uint32_t end = start + 1;
        while (end < j->n && j->s[end] != '"')
            end += j->s[end] == '\\' ? 2 : 1;
        uint32_t room = end - start + 4;
        char stackbuf[4096];
        char *buf = room <= sizeof stackbuf ? stackbuf : malloc(room);
        if (!buf)
            return jbad(j, WEIR_ENOMEM, "out of memory");
        int r = jstring(j, buf, &len);
        if (!r) {
            bool ok = weir__type_is_var(t.id) || weir__type_is_datetime(t.id) ||
                      t.id == WEIR_TYPE_DECIMAL;
            r = ok ? text_to_slot(j, t, buf, len, p) : jwrong(j, t, c);
        }
        if (buf != stackbuf)
            free(buf);
        return r;
    }
    if (jlit(j, "true") || jlit(j, "false")) {
        if (t.id != WEIR_TYPE_BOOLEAN)
            return jwrong(j, t, c);
        p[0] = c == 't';
        return 0;
    }
    uint32_t a, b;
    bool integer;
    int r = jnumber(j, &a, &b, &integer);
    if (r)
        return r;
    if (!(weir__type_is_integer(t.id) && integer) && !weir__type_is_approx(t.id) &&
        t.id != WEIR_TYPE_DECIMAL)
        return jwrong(j, t, c);
    if (weir__type_is_approx(t.id)) {
        char tf[64];
        uint32_t len = b - a < sizeof tf - 1 ? b - a : (uint32_t)sizeof tf - 1;
        memcpy(tf, j->s + a, len);
        tf[len] = 0;
        weir__val v = {.d = t.id == WEIR_TYPE_FLOAT ? (double)strtof(tf, NULL) : strtod(tf, NULL)};
        weir__write_value(p, t, &v);
        return 0;
    }
    return text_to_slot(j, t, j->s + a, b - a, p);
}

static int jvalue(jin *j, weir_type t, unsigned char *p, bool *null, int depth)
{
    jws(j);
    if (j->i >= j->n)
        return jbad(j, WEIR_EFORMAT, "a value expected");
    *null = false;
    if (jlit(j, "null")) {
        if (t.not_null)
            return jbad(j, WEIR_EFORMAT, "NULL in a NOT NULL place");
        *null = true;
        return 0;
    }
    if (depth > 100)
        return jbad(j, WEIR_EFORMAT, "nested too deep");
    const weir__nested *d = weir__nested_of(t);
    char c = j->s[j->i];
    if (!d)
        return jscalar(j, t, p);
    size_t plen = strlen(j->path);
    if (d->id == WEIR_TYPE_ARRAY) {
        if (c != '[')
            return jwrong(j, t, c);
        j->i++;
        jws(j);
        uint32_t k = 0;
        if (j->i < j->n && j->s[j->i] == ']') {
            j->i++;
        } else {
            for (;;) {
                if (k == d->n)
                    return jbad(j, WEIR_ERANGE, "an array of more than %u elements (its "
                                "capacity: weir.collection-capacity)", d->n);
                snprintf(j->path + plen, sizeof j->path - plen, "%selement %u",
                         plen ? ", " : "", k + 1);
                bool en;
                int r = jvalue(j, d->types[0], p + d->koff + k * d->kstride, &en, depth + 1);
                if (r)
                    return r;
                j->path[plen] = 0;
                if (en)
                    p[d->knulls + k / 8] |= (unsigned char)(1u << (k % 8));
                k++;
                jws(j);
                if (j->i < j->n && j->s[j->i] == ',') {
                    j->i++;
                    continue;
                }
                if (j->i < j->n && j->s[j->i] == ']') {
                    j->i++;
                    break;
                }
                return jbad(j, WEIR_EFORMAT, "',' or ']' expected");
            }
        }
        memcpy(p, &k, 4);
        return 0;
    }
    if (c != '{')
        return jwrong(j, t, c);
    j->i++;
    jws(j);
    uint32_t k = 0;
    bool seen[NESTED_MAX_FIELDS] = {0};
    if (j->i < j->n && j->s[j->i] == '}') {
        j->i++;
    } else {
        for (;;) {
            jws(j);
            uint32_t ks = j->i, kend = ks + 1;
            while (kend < j->n && j->s[kend] != '"')
                kend += j->s[kend] == '\\' ? 2 : 1;
            char kbuf[1024];
            uint32_t klen;
            if (kend - ks + 4 > sizeof kbuf)
                return jbad(j, WEIR_EFORMAT, "a key longer than 1000 bytes");
            int r = jstring(j, kbuf, &klen);
            if (r)
                return r;
            jws(j);
            if (j->i >= j->n || j->s[j->i] != ':')
                return jbad(j, WEIR_EFORMAT, "':' expected");
            j->i++;
            if (d->id == WEIR_TYPE_ROW) {
                uint32_t f = 0;
                while (f < d->n && (strlen(d->names[f]) != klen ||
                                    memcmp(d->names[f], kbuf, klen) != 0))
                    f++;
                if (f == d->n) {
                    r = jskip(j, depth + 1); /* a field the ROW does not have */
                } else {
                    snprintf(j->path + plen, sizeof j->path - plen, "%sfield %s",
                             plen ? ", " : "", d->names[f]);
                    bool fn;
                    unsigned char *fp = p + d->offs[f];
                    memset(fp, 0, weir__type_size(d->types[f]));
                    p[f / 8] &= (unsigned char)~(1u << (f % 8));
                    r = jvalue(j, d->types[f], fp, &fn, depth + 1);
                    if (!r && fn) {
                        memset(fp, 0, weir__type_size(d->types[f]));
                        p[f / 8] |= (unsigned char)(1u << (f % 8));
                    }
                    seen[f] = true;
                    j->path[plen] = 0;
                }
            } else {
                if (k == d->n)
                    return jbad(j, WEIR_ERANGE, "a map of more than %u entries (its capacity: "
                                "weir.collection-capacity)", d->n);
                snprintf(j->path + plen, sizeof j->path - plen, "%skey '%.*s'",
                         plen ? ", " : "", klen > 40 ? 40 : (int)klen, kbuf);
                /* the key: its text as the key type reads it */
                weir_type kt = d->types[0];
                unsigned char *kp = p + d->koff + k * d->kstride;
                const weir__nested *kd = weir__nested_of(kt);
                if (kd) {
                    r = jbad(j, WEIR_EFORMAT, "a map with nested keys is not read from JSON");
                } else if (kt.id == WEIR_TYPE_BOOLEAN) {
                    bool b = klen == 4 && memcmp(kbuf, "true", 4) == 0;
                    if (!b && !(klen == 5 && memcmp(kbuf, "false", 5) == 0))
                        r = jbad(j, WEIR_EFORMAT, "not a BOOLEAN");
                    kp[0] = b;
                } else if (weir__type_is_approx(kt.id)) {
                    char tf[64];
                    uint32_t len = klen < sizeof tf - 1 ? klen : (uint32_t)sizeof tf - 1;
                    memcpy(tf, kbuf, len);
                    tf[len] = 0;
                    char *e;
                    weir__val v = {.d = strtod(tf, &e)};
                    if (e == tf || *e) /* nothing read (an empty key too), or more after it */
                        r = jbad(j, WEIR_EFORMAT, "not a number");
                    else
                        weir__write_value(kp, kt, &v);
                } else {
                    r = text_to_slot(j, kt, kbuf, klen, kp);
                }
                if (!r) {
                    bool vn;
                    r = jvalue(j, d->types[1], p + d->voff + k * d->vstride, &vn, depth + 1);
                    if (!r && vn)
                        p[d->vnulls + k / 8] |= (unsigned char)(1u << (k % 8));
                }
                j->path[plen] = 0;
                k++;
            }
            if (r)
                return r;
            jws(j);
            if (j->i < j->n && j->s[j->i] == ',') {
                j->i++;
                continue;
            }
            if (j->i < j->n && j->s[j->i] == '}') {
                j->i++;
                break;
            }
            return jbad(j, WEIR_EFORMAT, "',' or '}' expected");
        }
    }
    if (d->id == WEIR_TYPE_ROW) {
        /* a field the object does not have is NULL (Flink's json format) */
        for (uint32_t f = 0; f < d->n; f++) {
            if (seen[f])
                continue;
            if (d->types[f].not_null) {
                snprintf(j->path + plen, sizeof j->path - plen, "%sfield %s", plen ? ", " : "",
                         d->names[f]);
                return jbad(j, WEIR_EFORMAT, "NULL in a NOT NULL place");
            }
            p[f / 8] |= (unsigned char)(1u << (f % 8));
        }
    } else {
        memcpy(p, &k, 4);
    }
    return 0;
}

int weir__json_to_slot(weir_type t, const char *text, size_t len, unsigned char *slot,
                       bool *null, char *why, size_t whysize)
{
    if (len > UINT32_MAX)
        return WEIR_ERANGE;
    jin j = {.s = text, .n = (uint32_t)len, .why = why, .whysize = whysize};
    memset(slot, 0, weir__type_size(t));
    int r = jvalue(&j, t, slot, null, 0);
    if (!r) {
        jws(&j);
        if (j.i != j.n)
            r = jbad(&j, WEIR_EFORMAT, "text after the value");
    }
    if (r || *null)
        memset(slot, 0, weir__type_size(t));
    return r;
}

/* ---- conversions ---------------------------------------------------------------------- */

static bool scalar_castable(weir_type f, weir_type t)
{
    if (weir__type_same(f, t))
        return true;
    if (weir__type_is_var(f.id) || weir__type_is_var(t.id))
        return f.id == t.id; /* only the capacity differs */
    /* numbers widening, timestamps: conversions that cannot fail */
    return weir_type_casts_implicitly(f, t) && t.id != WEIR_TYPE_DECIMAL;
}

bool weir__nested_castable(weir_type from, weir_type to)
{
    const weir__nested *a = weir__nested_of(from), *b = weir__nested_of(to);
    if (!a || !b)
        return !a && !b && scalar_castable(from, to);
    if (a->id != b->id || (a->id == WEIR_TYPE_ROW && a->n != b->n))
        return false;
    int nt = a->id == WEIR_TYPE_ROW ? (int)a->n : a->id == WEIR_TYPE_ARRAY ? 1 : 2;
    for (int i = 0; i < nt; i++)
        if (!weir__nested_castable(a->types[i], b->types[i]))
            return false;
    return true;
}

static int convert_one(weir_type f, weir_type t, const unsigned char *src, unsigned char *dst,
                       const char **why)
{
    if (weir__type_same(f, t)) {
        memcpy(dst, src, weir__type_size(t));
        return 0;
    }
    if (weir__type_is_nested(t.id))
        return weir__nested_convert(f, t, src, dst, why);
    weir__val x = {0}, o = {0};
    weir__read_value(src, f, &x);
    if (weir__type_is_var(t.id)) {
        uint32_t len = x.len;
        if (t.id == WEIR_TYPE_CHAR || t.id == WEIR_TYPE_BINARY) {
            /* the padded value: its padding past the target's capacity goes */
            while (len > t.capacity && x.s[len - 1] == (t.id == WEIR_TYPE_CHAR ? ' ' : 0))
                len--;
        }
        if (len > t.capacity) {
            *why = "a string inside a nested value is longer than its capacity";
            return WEIR_ERANGE;
        }
        memcpy(dst + 4, x.s, len);
        if (t.id == WEIR_TYPE_CHAR || t.id == WEIR_TYPE_BINARY) {
            memset(dst + 4 + len, t.id == WEIR_TYPE_CHAR ? ' ' : 0, t.capacity - len);
            len = t.capacity;
        }
        memcpy(dst, &len, 4);
        return 0;
    }
    weir__convert(f, t, &x, &o, NULL);
    weir__write_value(dst, t, &o);
    return 0;
}

int weir__nested_convert(weir_type from, weir_type to, const unsigned char *src,
                         unsigned char *dst, const char **why)
{
    const weir__nested *a = weir__nested_of(from), *b = weir__nested_of(to);
    memset(dst, 0, b->size);
    if (a == b) {
        memcpy(dst, src, b->size);
        return 0;
    }
    uint32_t count = weir__nested_count_of(a, src);
    if (b->id != WEIR_TYPE_ROW && count > b->n) {
        static _Thread_local char msg[128];
        snprintf(msg, sizeof msg, "%s of %u %s is more than its capacity %u",
                 b->id == WEIR_TYPE_ARRAY ? "an ARRAY" : "a MAP", count,
                 b->id == WEIR_TYPE_ARRAY ? "elements" : "entries", b->n);
        *why = msg;
        return WEIR_ERANGE;
    }
    for (uint32_t i = 0; i < count; i++) {
        for (int part = 0; part < (a->id == WEIR_TYPE_MAP ? 2 : 1); part++) {
            int r;
            if (a->id == WEIR_TYPE_ROW) {
                if (weir__bit(src, i)) {
                    dst[i / 8] |= (unsigned char)(1u << (i % 8));
                    continue;
                }
                r = convert_one(a->types[i], b->types[i], src + a->offs[i], dst + b->offs[i], why);
            } else {
                uint32_t an = part ? a->vnulls : a->knulls, bn = part ? b->vnulls : b->knulls;
                if (weir__bit(src + an, i)) {
                    dst[bn + i / 8] |= (unsigned char)(1u << (i % 8));
                    continue;
                }
                r = convert_one(a->types[part], b->types[part],
                                src + (part ? a->voff + i * a->vstride : a->koff + i * a->kstride),
                                dst + (part ? b->voff + i * b->vstride : b->koff + i * b->kstride),
                                why);
            }
            if (r)
                return r;
        }
    }
    if (b->id != WEIR_TYPE_ROW)
        memcpy(dst, &count, 4);
    return 0;
}

int weir__slot_store(unsigned char *p, weir_type t, const weir__val *v, const char **why)
{
    if (!weir__type_is_var(t.id)) {
        weir__write_value(p, t, v);
        return 0;
    }
    uint32_t len = v->len;
    if (len > t.capacity) {
        *why = "a string inside a nested value is longer than its capacity";
        return WEIR_ERANGE;
    }
    memmove(p + 4, v->s, len);
    /* CHAR(n) padded with spaces, BINARY(n) with zero bytes; after a
     * VARCHAR's or VARBINARY's bytes, zeros (equal values, equal bytes) */
    bool fixed = t.id == WEIR_TYPE_CHAR || t.id == WEIR_TYPE_BINARY;
    memset(p + 4 + len, t.id == WEIR_TYPE_CHAR ? ' ' : 0, t.capacity - len);
    if (fixed)
        len = t.capacity;
    memcpy(p, &len, 4);
    return 0;
}
