/* table_types.c — the column types (weir/row.h): their classes, sizes and
 * alignments in a row, and their SQL names read (weir_type_parse) and
 * written (weir_type_format). */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr_tree.h"
#include "table_internal.h"
#include "weir/error.h"







weir_type weir__type_decimal(int p, int s, bool not_null)
{
    weir_type t = {.id = WEIR_TYPE_DECIMAL, .precision = (uint8_t)p, .scale = (uint8_t)s,
                   .not_null = not_null};
    return t;
}

/* SQL Server's rule, which Flink adopted (LogicalTypeMerging): a precision
 * past 38 gives up scale, keeping at least 6 digits of it (fewer if it had
 * fewer), so that the whole part is not cut. */
static weir_type adjust_precision_scale(int p, int s)
{
    if (p <= 38)
        return weir__type_decimal(p, s, false);
    int digits = p - s, min_scale = s < 6 ? s : 6, scale = 38 - digits;
    return weir__type_decimal(38, scale > min_scale ? scale : min_scale, false);
}

weir_type weir__decimal_result(char op, weir_type a, weir_type b)
{
    int p1 = weir_type_precision(a), s1 = a.scale, p2 = weir_type_precision(b), s2 = b.scale;
    int max_s = s1 > s2 ? s1 : s2;
    switch (op) {
    case '+':
    case '-': {
        int d = p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2;
        return adjust_precision_scale(d + max_s + 1, max_s);
    }
    case '*': return adjust_precision_scale(p1 + p2 + 1, s1 + s2);
    case '/': {
        int s = s1 + p2 + 1 > 6 ? s1 + p2 + 1 : 6;
        return adjust_precision_scale(p1 - s1 + s2 + s, s);
    }
    default: { /* % */
        int d = p1 - s1 < p2 - s2 ? p1 - s1 : p2 - s2;
        return adjust_precision_scale(d + max_s, max_s);
    }
    }
}

weir_type weir__type_as_decimal(weir_type t)
{
    /* Flink's decimalOf: an integer's digits, scale 0 */
    switch (t.id) {
    case WEIR_TYPE_TINYINT: return weir__type_decimal(3, 0, t.not_null);
    case WEIR_TYPE_SMALLINT: return weir__type_decimal(5, 0, t.not_null);
    case WEIR_TYPE_INT: return weir__type_decimal(10, 0, t.not_null);
    case WEIR_TYPE_BIGINT: return weir__type_decimal(19, 0, t.not_null);
    default: return weir__type_decimal(weir_type_precision(t), t.scale, t.not_null);
    }
}




bool weir__type_is_column(weir_type_id id)
{
    return id != WEIR_TYPE_NULL && !weir__type_is_interval(id);
}

bool weir__type_wide_time(weir_type t)
{
    return weir__type_is_time(t.id) && weir_type_precision(t) > 3;
}

weir_type weir__type_time(weir_type_id id, int precision, bool not_null)
{
    weir_type t = {.id = id, .not_null = not_null};
    t.precision = precision == 0 && id != WEIR_TYPE_TIME ? WEIR_PRECISION_ZERO
                                                         : (uint8_t)precision;
    return t;
}

bool weir__type_same(weir_type a, weir_type b)
{
    return a.id == b.id &&
           ((!weir__type_is_var(a.id) && !weir__type_is_nested(a.id)) ||
            a.capacity == b.capacity) &&
           weir_type_precision(a) == weir_type_precision(b) && a.scale == b.scale;
}

int weir__int_bits(weir_type_id id)
{
    switch (id) {
    case WEIR_TYPE_TINYINT: return 8;
    case WEIR_TYPE_SMALLINT: return 16;
    case WEIR_TYPE_INT: return 32;
    default: return 64;
    }
}

bool weir__int_fits(weir_type_id id, int64_t v)
{
    return weir__int_wrap(id, v) == v;
}

/* Flink's LogicalTypeCasts.supportsImplicitCast, for weir's types: an
 * integer into a wider integer, any number into a FLOAT (but a DOUBLE) or
 * a DOUBLE, a string into a string, TIMESTAMP and TIMESTAMP_LTZ into each
 * other. */
bool weir_type_casts_implicitly(weir_type from, weir_type to)
{
    weir_type_id f = from.id, t = to.id;
    if (weir__type_is_nested(f) || weir__type_is_nested(t))
        return f == WEIR_TYPE_NULL ||
               (weir__type_is_nested(f) && weir__type_is_nested(t) &&
                weir__nested_castable(from, to));
    if (f == WEIR_TYPE_NULL || f == t)
        return true;
    if (weir__type_is_string(f) && weir__type_is_string(t))
        return true;
    if (weir__type_is_binary(f) && t == WEIR_TYPE_VARBINARY)
        return true; /* VARBINARY from any binary string; BINARY from BINARY only */
    if (weir__type_is_time(f) && weir__type_is_time(t))
        return true;
    if ((t == WEIR_TYPE_DATE || t == WEIR_TYPE_TIME) && f == WEIR_TYPE_TIMESTAMP)
        return true;
    if (weir__type_is_integer(f) && weir__type_is_integer(t))
        return weir__int_bits(f) <= weir__int_bits(t);
    if (t == WEIR_TYPE_FLOAT)
        return weir__type_is_integer(f) || f == WEIR_TYPE_DECIMAL;
    if (t == WEIR_TYPE_DOUBLE || t == WEIR_TYPE_DECIMAL)
        return weir__type_is_numeric(f);
    return false;
}

/* Flink's LogicalTypeMerging.findCommonType for two of weir's types. */
bool weir_type_common(weir_type a, weir_type b, weir_type *out)
{
    if (a.id == WEIR_TYPE_NULL || b.id == WEIR_TYPE_NULL) {
        *out = a.id == WEIR_TYPE_NULL ? b : a;
        out->not_null = false;
        return true;
    }
    weir_type t = a;
    t.not_null = a.not_null && b.not_null;
    if ((weir__type_is_string(a.id) && weir__type_is_string(b.id)) ||
        (weir__type_is_binary(a.id) && weir__type_is_binary(b.id))) {
        /* a CHAR (BINARY) of one length stays one; else a VARCHAR
         * (VARBINARY) of the longest */
        t.capacity = a.capacity > b.capacity ? a.capacity : b.capacity;
        if (a.id != b.id || a.capacity != b.capacity)
            t.id = weir__type_is_string(a.id) ? WEIR_TYPE_VARCHAR : WEIR_TYPE_VARBINARY;
    } else if (weir__type_is_numeric(a.id) && weir__type_is_numeric(b.id)) {
        bool dec = a.id == WEIR_TYPE_DECIMAL || b.id == WEIR_TYPE_DECIMAL;
        t.precision = t.scale = 0;
        if (a.id == WEIR_TYPE_DOUBLE || b.id == WEIR_TYPE_DOUBLE ||
            (dec && (weir__type_is_approx(a.id) || weir__type_is_approx(b.id)))) {
            t.id = WEIR_TYPE_DOUBLE; /* an approximate number and a DECIMAL: DOUBLE */
        } else if (a.id == WEIR_TYPE_FLOAT || b.id == WEIR_TYPE_FLOAT) {
            t.id = WEIR_TYPE_FLOAT;
        } else if (dec) {
            /* createCommonExactNumericType: the most whole digits and the
             * largest scale, within 38 digits */
            weir_type x = weir__type_as_decimal(a), y = weir__type_as_decimal(b);
            int px = weir_type_precision(x), py = weir_type_precision(y);
            int d = px - x.scale > py - y.scale ? px - x.scale : py - y.scale;
            if (d > 38)
                d = 38;
            int sc = x.scale > y.scale ? x.scale : y.scale;
            if (sc > 38 - d)
                sc = 38 - d;
            t = weir__type_decimal(d + sc, sc, t.not_null);
        } else {
            t.id = weir__int_bits(a.id) >= weir__int_bits(b.id) ? a.id : b.id;
        }
    } else if ((weir__type_is_time(a.id) && weir__type_is_time(b.id)) ||
               (a.id == WEIR_TYPE_TIME && b.id == WEIR_TYPE_TIME)) {
        /* the larger precision; Flink generalizes to the zoned type */
        int pa = weir_type_precision(a), pb = weir_type_precision(b);
        t = weir__type_time(a.id == b.id ? a.id : WEIR_TYPE_TIMESTAMP_LTZ, pa > pb ? pa : pb,
                            t.not_null);
    } else if (a.id != b.id || (weir__type_is_nested(a.id) && !weir__type_same(a, b))) {
        return false;
    }
    *out = t;
    return true;
}

uint32_t weir__type_size(weir_type t)
{
    switch (t.id) {
    case WEIR_TYPE_NULL:
    case WEIR_TYPE_BOOLEAN:
    case WEIR_TYPE_TINYINT: return 1;
    case WEIR_TYPE_SMALLINT: return 2;
    case WEIR_TYPE_INT:
    case WEIR_TYPE_FLOAT:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INTERVAL_YM: return 4;
    case WEIR_TYPE_VARCHAR:
    case WEIR_TYPE_CHAR:
    case WEIR_TYPE_VARBINARY:
    case WEIR_TYPE_BINARY: return 4 + t.capacity;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: return weir_type_precision(t) > 3 ? 12 : 8;
    case WEIR_TYPE_DECIMAL: return weir_type_precision(t) > 18 ? 16 : 8;
    case WEIR_TYPE_ROW:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP: return weir__nested_size(t);
    default: return 8;
    }
}

uint32_t weir__type_align(weir_type t)
{
    switch (t.id) {
    case WEIR_TYPE_NULL:
    case WEIR_TYPE_BOOLEAN:
    case WEIR_TYPE_TINYINT: return 1;
    case WEIR_TYPE_SMALLINT: return 2;
    case WEIR_TYPE_INT:
    case WEIR_TYPE_FLOAT:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INTERVAL_YM:
    case WEIR_TYPE_VARCHAR:
    case WEIR_TYPE_CHAR:
    case WEIR_TYPE_VARBINARY:
    case WEIR_TYPE_BINARY: return 4;
    case WEIR_TYPE_ROW:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP: return weir__nested_align(t);
    default: return 8;
    }
}

/* ---- type text -------------------------------------------------------------- */

const char *weir__skip_ws(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return p;
}

/* Matches keyword `kw` (case-insensitive) at p as a whole word. */
const char *weir__match_word(const char *p, const char *kw)
{
    size_t n = strlen(kw);
    if (strncasecmp(p, kw, n) != 0)
        return NULL;
    if (isalnum((unsigned char)p[n]) || p[n] == '_')
        return NULL;
    return p + n;
}

/* A type-text error into err (if there is room): returns WEIR_EINVAL. */
static int type_error(char *err, size_t errsize, const char *fmt, ...) WEIR_PRINTF(3, 4);
static int type_error(char *err, size_t errsize, const char *fmt, ...)
{
    if (err && errsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errsize, fmt, ap);
        va_end(ap);
    }
    return WEIR_EINVAL;
}

/* The "(n)" after a type name at p (the string's capacity, or a time's
 * precision, 0..9) into t; *rest is the text after it. */
static int parse_type_length(const char *p, const char *kw, bool has_len, weir_type *t,
                             const char *text, const char **rest, char *err, size_t errsize)
{
    if (!has_len)
        return type_error(err, errsize, "type %s takes no length: '%s'", kw, text);
    char *end;
    long long n = strtoll(p + 1, &end, 10);
    end = (char *)weir__skip_ws(end);
    if (t->id == WEIR_TYPE_DECIMAL) {
        /* DECIMAL(p[, s]): Flink's DecimalType's bounds and words */
        long long sc = 0;
        if (end > p + 1 && *end == ',') {
            char *e2;
            sc = strtoll(end + 1, &e2, 10);
            if (e2 == end + 1)
                return type_error(err, errsize, "bad scale in type '%s'", text);
            end = (char *)weir__skip_ws(e2);
        }
        if (end == p + 1 || *end != ')')
            return type_error(err, errsize, "bad precision in type '%s'", text);
        if (n < 1 || n > 38)
            return type_error(err, errsize, "Decimal precision must be between 1 and 38 (both "
                              "inclusive): '%s'", text);
        if (sc < 0 || sc > n)
            return type_error(err, errsize, "Decimal scale must be between 0 and the precision "
                              "%lld (both inclusive): '%s'", n, text);
        *t = weir__type_decimal((int)n, (int)sc, false);
        *rest = weir__skip_ws(end + 1);
        return 0;
    }
    if (end == p + 1 || *end != ')')
        return type_error(err, errsize, "bad length in type '%s'", text);
    if (weir__type_is_datetime(t->id)) {
        /* Flink's TimestampType / LocalZonedTimestampType / TimeType */
        if (n < 0 || n > 9)
            return type_error(err, errsize, "%s precision must be between 0 and 9 (both "
                              "inclusive): '%s'",
                              t->id == WEIR_TYPE_TIME            ? "Time"
                              : t->id == WEIR_TYPE_TIMESTAMP_LTZ ? "Timestamp with local time "
                                                                   "zone"
                                                                 : "Timestamp",
                              text);
        *t = weir__type_time(t->id, (int)n, false);
    } else {
        if (n <= 0 || n > (long long)WEIR_STRING_MAX_CAPACITY)
            return type_error(err, errsize, "string capacity %lld is not in 1..%u: '%s'", n,
                              WEIR_STRING_MAX_CAPACITY, text);
        t->capacity = (uint32_t)n;
    }
    *rest = weir__skip_ws(end + 1);
    return 0;
}

static int parse_at(const char *text, const char **pp, weir_type *out, char *err,
                    size_t errsize, int depth);

/* A nested type's parts after its keyword at p: ROW<name type, ...> (or
 * ROW(...)), ARRAY<type>, MAP<key, value>; *pp the text after them. */
static int parse_nested(const char *text, const char *p, weir_type_id id, const char **pp,
                        weir_type *out, char *err, size_t errsize, int depth)
{
    p = weir__skip_ws(p);
    char close = *p == '<' ? '>' : *p == '(' && id == WEIR_TYPE_ROW ? ')' : 0;
    if (!close)
        return type_error(err, errsize, "expected '<' after %s in type '%s'",
                          id == WEIR_TYPE_ROW ? "ROW" : id == WEIR_TYPE_ARRAY ? "ARRAY" : "MAP",
                          text);
    p = weir__skip_ws(p + 1);
    enum { MAXF = 1024 };
    weir_type *types = calloc(MAXF, sizeof *types);
    char **names = calloc(MAXF, sizeof *names);
    int n = 0, r = 0;
    if (!types || !names) {
        r = type_error(err, errsize, "out of memory");
        goto done;
    }
    for (;;) {
        if (id == WEIR_TYPE_ROW) {
            /* a field's name: `quoted` or bare */
            char name[256];
            size_t k = 0;
            if (*p == '`') {
                for (p++; *p && !(*p == '`' && p[1] != '`'); p++) {
                    if (*p == '`')
                        p++;
                    if (k + 1 < sizeof name)
                        name[k++] = *p;
                }
                if (*p != '`') {
                    r = type_error(err, errsize, "unterminated `name` in type '%s'", text);
                    goto done;
                }
                p++;
            } else {
                while (*p && (isalnum((unsigned char)*p) || *p == '_' || *p == '$' ||
                              (unsigned char)*p >= 0x80))
                    if (k + 1 < sizeof name)
                        name[k++] = *p++;
                    else
                        p++;
            }
            name[k] = 0;
            if (!k) {
                r = type_error(err, errsize, "expected a field name in type '%s'", text);
                goto done;
            }
            if (n == MAXF) {
                r = type_error(err, errsize, "a ROW of more than %d fields: '%s'", MAXF, text);
                goto done;
            }
            for (int i = 0; i < n; i++)
                if (strcmp(names[i], name) == 0) {
                    r = type_error(err, errsize, "field '%s' is declared twice in type '%s'",
                                   name, text);
                    goto done;
                }
            if (!(names[n] = strdup(name))) {
                r = type_error(err, errsize, "out of memory");
                goto done;
            }
        }
        if ((r = parse_at(text, &p, &types[n], err, errsize, depth + 1)))
            goto done;
        n++;
        if (id == WEIR_TYPE_ROW && *p == '\'') {
            /* a field's description: 'text' (Flink's), not kept */
            for (p++; *p && !(*p == '\'' && p[1] != '\''); p++)
                if (*p == '\'')
                    p++;
            if (*p)
                p = weir__skip_ws(p + 1);
        }
        if (*p == ',' && (id == WEIR_TYPE_ROW || (id == WEIR_TYPE_MAP && n == 1))) {
            p = weir__skip_ws(p + 1);
            continue;
        }
        if (*p == close && (id == WEIR_TYPE_ROW || n == (id == WEIR_TYPE_MAP ? 2 : 1)))
            break;
        r = type_error(err, errsize, "expected %s in type '%s'",
                       id == WEIR_TYPE_MAP && n == 1 ? "',' and the value type"
                       : close == '>'                ? "'>' or ','"
                                                     : "')' or ','",
                       text);
        goto done;
    }
    const char *why = NULL;
    weir_type t = weir__nested_make(id, id == WEIR_TYPE_ROW ? (uint32_t)n : 0,
                                    (const char *const *)names, types, false, &why);
    if (t.id == WEIR_TYPE_NULL) {
        r = type_error(err, errsize, "%s: '%s'", why, text);
        goto done;
    }
    *out = t;
    *pp = weir__skip_ws(p + 1);
done:
    if (names)
        for (int i = 0; i < n + 1 && i < MAXF; i++)
            free(names[i]);
    free(names);
    free(types);
    return r;
}

int weir_type_parse(const char *text, weir_type *out, char *err, size_t errsize)
{
    if (!text || !out)
        return type_error(err, errsize, "a type text is required");
    const char *p = text;
    weir_type t;
    int r = parse_at(text, &p, &t, err, errsize, 0);
    if (r)
        return r;
    if (*p)
        return type_error(err, errsize, "unexpected '%s' in type '%s'", p, text);
    *out = t;
    return 0;
}

static int parse_at(const char *text, const char **pp, weir_type *out, char *err,
                    size_t errsize, int depth)
{
    static const struct { const char *kw; weir_type_id id; bool has_len; } names[] = {
        {"BOOLEAN", WEIR_TYPE_BOOLEAN, false}, {"INTEGER", WEIR_TYPE_INT, false},
        {"INT", WEIR_TYPE_INT, false},         {"BIGINT", WEIR_TYPE_BIGINT, false},
        {"TINYINT", WEIR_TYPE_TINYINT, false}, {"SMALLINT", WEIR_TYPE_SMALLINT, false},
        {"FLOAT", WEIR_TYPE_FLOAT, false},     {"REAL", WEIR_TYPE_FLOAT, false},
        {"DOUBLE", WEIR_TYPE_DOUBLE, false},   {"VARCHAR", WEIR_TYPE_VARCHAR, true},
        {"CHAR", WEIR_TYPE_CHAR, true},        {"STRING", WEIR_TYPE_VARCHAR, false},
        {"TIMESTAMP_LTZ", WEIR_TYPE_TIMESTAMP_LTZ, true},
        {"TIMESTAMP", WEIR_TYPE_TIMESTAMP, true},
        {"DATE", WEIR_TYPE_DATE, false},       {"TIME", WEIR_TYPE_TIME, true},
        {"DECIMAL", WEIR_TYPE_DECIMAL, true},  {"DEC", WEIR_TYPE_DECIMAL, true},
        {"NUMERIC", WEIR_TYPE_DECIMAL, true},
        {"VARBINARY", WEIR_TYPE_VARBINARY, true}, {"BINARY", WEIR_TYPE_BINARY, true},
        {"BYTES", WEIR_TYPE_VARBINARY, false},
    };
    const char *p = weir__skip_ws(*pp);
    weir_type t = {0};
    const char *q = NULL;
    size_t k;
    if (depth > 32)
        return type_error(err, errsize, "a type nested deeper than 32 levels: '%s'", text);
    static const struct { const char *kw; weir_type_id id; } nested[] = {
        {"ROW", WEIR_TYPE_ROW}, {"ARRAY", WEIR_TYPE_ARRAY}, {"MAP", WEIR_TYPE_MAP}};
    for (k = 0; k < 3; k++)
        if ((q = weir__match_word(p, nested[k].kw)))
            break;
    if (q) {
        int r = parse_nested(text, q, nested[k].id, &p, &t, err, errsize, depth);
        if (r)
            return r;
        goto suffix;
    }
    for (k = 0; k < sizeof names / sizeof names[0]; k++)
        if ((q = weir__match_word(p, names[k].kw)))
            break;
    if (!q)
        return type_error(err, errsize, "unknown type '%s'", text);
    t.id = names[k].id;
    if (t.id == WEIR_TYPE_DOUBLE) {
        const char *r = weir__skip_ws(q);
        const char *s = weir__match_word(r, "PRECISION");
        if (s)
            q = s;
    }
    p = weir__skip_ws(q);
    if (*p == '(') {
        int r = parse_type_length(p, names[k].kw, names[k].has_len, &t, text, &p, err, errsize);
        if (r)
            return r;
    } else if (t.id == WEIR_TYPE_CHAR || t.id == WEIR_TYPE_BINARY) {
        t.capacity = 1; /* SQL: CHAR is CHAR(1), BINARY BINARY(1) */
    } else if (t.id == WEIR_TYPE_VARCHAR || t.id == WEIR_TYPE_VARBINARY) {
        /* VARCHAR and VARBINARY without a length are STRING and BYTES: Flink's
         * type system (FlinkTypeSystem.getDefaultPrecision) gives them
         * Integer.MAX_VALUE, its STRING; here the session's capacity */
        t.capacity = 0;
    } else if (weir__type_is_time(t.id)) {
        t = weir__type_time(t.id, 6, false); /* Flink: TIMESTAMP is TIMESTAMP(6) */
    } else if (t.id == WEIR_TYPE_DECIMAL) {
        t = weir__type_decimal(10, 0, false); /* Flink: DECIMAL is DECIMAL(10, 0) */
    }
    if (t.id == WEIR_TYPE_TIMESTAMP || t.id == WEIR_TYPE_TIME) {
        /* TIMESTAMP(p) WITHOUT TIME ZONE; TIMESTAMP(p) WITH LOCAL TIME ZONE */
        const char *w = weir__match_word(p, "WITHOUT");
        const char *l = weir__match_word(p, "WITH");
        const char *x = w ? w : l;
        if (x) {
            const char *y = weir__skip_ws(x);
            if (l && t.id == WEIR_TYPE_TIMESTAMP) {
                const char *loc = weir__match_word(y, "LOCAL");
                if (!loc)
                    return type_error(err, errsize, "expected WITH LOCAL TIME ZONE: '%s'",
                                      text);
                y = weir__skip_ws(loc);
                t.id = WEIR_TYPE_TIMESTAMP_LTZ;
            } else if (l) {
                return type_error(err, errsize, "a TIME has no time zone: '%s'", text);
            }
            const char *tm = weir__match_word(y, "TIME");
            const char *zn = tm ? weir__match_word(weir__skip_ws(tm), "ZONE") : NULL;
            if (!zn)
                return type_error(err, errsize, "expected TIME ZONE in type '%s'", text);
            p = weir__skip_ws(zn);
        }
    }
suffix:;
    const char *nn = weir__match_word(p, "NOT");
    if (nn) {
        const char *nl = weir__match_word(weir__skip_ws(nn), "NULL");
        if (!nl)
            return type_error(err, errsize, "expected NULL after NOT in type '%s'", text);
        t.not_null = true;
        p = weir__skip_ws(nl);
    } else if ((nn = weir__match_word(p, "NULL"))) {
        p = weir__skip_ws(nn);
    }
    *out = t;
    *pp = p;
    return 0;
}

int weir_type_format(weir_type t, char *buf, size_t size)
{
    const char *nn = t.not_null ? " NOT NULL" : "";
    switch (t.id) {
    case WEIR_TYPE_NULL: return snprintf(buf, size, "NULL");
    case WEIR_TYPE_BOOLEAN: return snprintf(buf, size, "BOOLEAN%s", nn);
    case WEIR_TYPE_INT: return snprintf(buf, size, "INT%s", nn);
    case WEIR_TYPE_BIGINT: return snprintf(buf, size, "BIGINT%s", nn);
    case WEIR_TYPE_DOUBLE: return snprintf(buf, size, "DOUBLE%s", nn);
    case WEIR_TYPE_TINYINT: return snprintf(buf, size, "TINYINT%s", nn);
    case WEIR_TYPE_SMALLINT: return snprintf(buf, size, "SMALLINT%s", nn);
    case WEIR_TYPE_FLOAT: return snprintf(buf, size, "FLOAT%s", nn);
    case WEIR_TYPE_VARCHAR: return snprintf(buf, size, "VARCHAR(%" PRIu32 ")%s", t.capacity, nn);
    case WEIR_TYPE_CHAR: return snprintf(buf, size, "CHAR(%" PRIu32 ")%s", t.capacity, nn);
    case WEIR_TYPE_TIMESTAMP:
        return snprintf(buf, size, "TIMESTAMP(%d)%s", weir_type_precision(t), nn);
    case WEIR_TYPE_TIMESTAMP_LTZ:
        return snprintf(buf, size, "TIMESTAMP_LTZ(%d)%s", weir_type_precision(t), nn);
    case WEIR_TYPE_DATE: return snprintf(buf, size, "DATE%s", nn);
    case WEIR_TYPE_TIME: return snprintf(buf, size, "TIME(%d)%s", weir_type_precision(t), nn);
    case WEIR_TYPE_INTERVAL: return snprintf(buf, size, "INTERVAL%s", nn);
    case WEIR_TYPE_INTERVAL_YM: return snprintf(buf, size, "INTERVAL YEAR TO MONTH%s", nn);
    case WEIR_TYPE_DECIMAL:
        return snprintf(buf, size, "DECIMAL(%d, %d)%s", weir_type_precision(t), t.scale, nn);
    case WEIR_TYPE_VARBINARY:
        return snprintf(buf, size, "VARBINARY(%" PRIu32 ")%s", t.capacity, nn);
    case WEIR_TYPE_BINARY: return snprintf(buf, size, "BINARY(%" PRIu32 ")%s", t.capacity, nn);
    case WEIR_TYPE_ROW:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP: return weir__nested_format_type(t, buf, size);
    }
    return snprintf(buf, size, "?");
}
