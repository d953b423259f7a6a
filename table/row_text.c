/* row_text.c — a row as the text formats of Flink's 'json' and 'csv'
 * formats write it (weir/row.h: weir_row_write_json, weir_row_write_csv):
 * one JSON object {"column": value, ...} or one RFC 4180 record, for the
 * file sink and the Kafka connector. Written here by hand, into the
 * caller's buffer as snprintf does, with no library: writing needs no
 * parser (reading JSON is jansson's, in the connectors that read it). */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"

/* The text being written: bytes past size are counted, not stored. */
typedef struct out {
    char *buf;
    size_t size, len;
    bool dq; /* inside a quoted CSV field: a quote written twice */
} out;

static void put(out *o, const char *s, size_t n)
{
    if (o->dq) {
        for (const char *q; n && (q = memchr(s, '"', n)); n -= (size_t)(q + 1 - s), s = q + 1) {
            o->dq = false;
            put(o, s, (size_t)(q + 1 - s));
            put(o, "\"", 1);
            o->dq = true;
        }
        // cppcheck-suppress redundantAssignment ; put() reads o->dq (the loop's last store too)
        o->dq = false;
        put(o, s, n);
        o->dq = true;
        return;
    }
    if (o->len < o->size) {
        size_t room = o->size - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

static void put_json_string(out *o, const char *s, size_t n)
{
    put(o, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put(o, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put(o, esc, 6);
        } else {
            put(o, (const char *)&s[i], 1);
        }
    }
    put(o, "\"", 1);
}

static void put_csv_string(out *o, const char *s, size_t n, char delimiter)
{
    /* quoted when empty too: an empty field is read as NULL */
    bool quote = n == 0 || memchr(s, delimiter, n) || memchr(s, '"', n) ||
                 memchr(s, '\n', n) || memchr(s, '\r', n);
    if (!quote) {
        put(o, s, n);
        return;
    }
    put(o, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            put(o, "\"", 1);
        put(o, &s[i], 1);
    }
    put(o, "\"", 1);
}

/* A value as Flink's json format writes it, nested values too: a ROW an
 * object of its fields, an ARRAY an array, a MAP an object (its keys as
 * their text). */
static void put_json_val(out *o, weir_type t, const weir__val *v)
{
    char b[96];
    int len;
    if (v->null) {
        put(o, "null", 4);
        return;
    }
    const weir__nested *d = weir__nested_of(t);
    if (d) {
        const unsigned char *slot = (const unsigned char *)v->s;
        uint32_t count = weir__nested_count_of(d, slot);
        put(o, d->id == WEIR_TYPE_ARRAY ? "[" : "{", 1);
        for (uint32_t i = 0; i < count; i++) {
            weir__val e;
            if (i)
                put(o, ",", 1);
            if (d->id == WEIR_TYPE_ROW) {
                put_json_string(o, d->names[i], strlen(d->names[i]));
                put(o, ":", 1);
            } else if (d->id == WEIR_TYPE_MAP) {
                /* a key is a JSON string: its text (a NULL key: "null") */
                weir__nested_element(d, slot, 0, i, &e);
                if (weir__type_is_string(d->types[0].id) && !e.null) {
                    put_json_string(o, e.s, e.len);
                } else {
                    len = weir__format_val(d->types[0], &e, WEIR_ROW_STYLE_SQL, NULL, b, sizeof b);
                    put_json_string(o, b, (size_t)len < sizeof b ? (size_t)len : sizeof b - 1);
                }
                put(o, ":", 1);
            }
            weir__nested_element(d, slot, d->id == WEIR_TYPE_MAP, i, &e);
            put_json_val(o, d->id == WEIR_TYPE_ROW ? d->types[i] : d->types[d->id == WEIR_TYPE_MAP],
                         &e);
        }
        put(o, d->id == WEIR_TYPE_ARRAY ? "]" : "}", 1);
        return;
    }
    switch (t.id) {
    case WEIR_TYPE_VARCHAR:
    case WEIR_TYPE_CHAR: put_json_string(o, v->s, v->len); return;
    case WEIR_TYPE_VARBINARY:
    case WEIR_TYPE_BINARY:
        put(o, "\"", 1);
        for (uint32_t k = 0; k < v->len; k += 48) {
            uint32_t part = v->len - k < 48 ? v->len - k : 48;
            len = weir__base64_encode((const unsigned char *)v->s + k, part, b, sizeof b);
            put(o, b, (size_t)len);
        }
        put(o, "\"", 1);
        return;
    case WEIR_TYPE_BOOLEAN: put(o, v->i ? "true" : "false", v->i ? 4 : 5); return;
    case WEIR_TYPE_FLOAT:
    case WEIR_TYPE_DOUBLE: {
        bool single = t.id == WEIR_TYPE_FLOAT;
        len = 0;
        for (int prec = single ? 6 : 15; prec <= (single ? 9 : 17); prec++) {
            len = snprintf(b, sizeof b, "%.*g", prec, v->d);
            if (single ? strtof(b, NULL) == (float)v->d : strtod(b, NULL) == v->d)
                break;
        }
        if (!isfinite(v->d))
            len = snprintf(b, sizeof b, "null");
        put(o, b, (size_t)len);
        return;
    }
    case WEIR_TYPE_DECIMAL: {
        len = weir__format_val(t, v, WEIR_ROW_STYLE_SQL, NULL, b, sizeof b);
        int sig = 0;
        bool lead = true;
        for (int k = 0; k < len; k++) {
            if (b[k] < '0' || b[k] > '9' || (lead && b[k] == '0'))
                continue;
            lead = false;
            sig++;
        }
        if (sig > 15)
            put_json_string(o, b, (size_t)len);
        else
            put(o, b, (size_t)len);
        return;
    }
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
        len = weir__format_val(t, v, WEIR_ROW_STYLE_SQL, NULL, b, sizeof b);
        put_json_string(o, b, (size_t)len);
        return;
    default:
        len = snprintf(b, sizeof b, "%" PRId64, v->i);
        put(o, b, (size_t)len);
        return;
    }
}

/* A row as JSON (Flink's json format: TIMESTAMP as "2024-01-01 00:00:10.000")
 * or as a CSV record (delimiter != 0): its columns cols[0..n) (NULL: every
 * column, n ignored). */
static int write_row(const weir_schema *sc, const void *row, const int *cols, int n,
                     char delimiter, char *buf, size_t size)
{
    out o = {.buf = buf, .size = size};
    bool csv = delimiter != 0;
    if (!cols)
        n = weir_schema_ncolumns(sc);
    if (!csv)
        put(&o, "{", 1);
    for (int i = 0; i < n; i++) {
        int c = cols ? cols[i] : i;
        if (i)
            put(&o, csv ? &delimiter : ",", 1);
        if (!csv) {
            const char *name = weir_schema_column_name(sc, c);
            put_json_string(&o, name, strlen(name));
            put(&o, ":", 1);
        }
        if (weir_row_is_null(sc, row, c)) {
            if (!csv)
                put(&o, "null", 4);
            continue;
        }
        char v[64];
        int len = 0;
        weir_type ty = weir_schema_column_type(sc, c);
        if (weir__type_is_nested(ty.id)) {
            /* JSON; in CSV the JSON text as a field */
            weir__val x = {0};
            weir__load_value(sc, row, c, &x);
            if (!csv) {
                put_json_val(&o, ty, &x);
                continue;
            }
            put(&o, "\"", 1);
            o.dq = true;
            put_json_val(&o, ty, &x);
            o.dq = false;
            put(&o, "\"", 1);
            continue;
        }
        switch (ty.id) {
        case WEIR_TYPE_BOOLEAN:
            len = snprintf(v, sizeof v, "%s", weir_row_get_bool(sc, row, c) ? "true" : "false");
            break;
        case WEIR_TYPE_TINYINT:
        case WEIR_TYPE_SMALLINT:
        case WEIR_TYPE_INT:
        case WEIR_TYPE_BIGINT:
        case WEIR_TYPE_INTERVAL:
            len = snprintf(v, sizeof v, "%" PRId64, weir_row_get_int(sc, row, c));
            break;
        case WEIR_TYPE_FLOAT:
        case WEIR_TYPE_DOUBLE: {
            /* the shortest text that reads back as the same double (float) */
            double d = weir_row_get_double(sc, row, c);
            bool single = ty.id == WEIR_TYPE_FLOAT;
            for (int prec = single ? 6 : 15; prec <= (single ? 9 : 17); prec++) {
                len = snprintf(v, sizeof v, "%.*g", prec, d);
                if (single ? strtof(v, NULL) == (float)d : strtod(v, NULL) == d)
                    break;
            }
            if (!isfinite(d) && !csv) /* JSON has no NaN or infinity */
                len = snprintf(v, sizeof v, "null");
            break;
        }
        case WEIR_TYPE_DECIMAL: {
            /* its plain digits (12.50, never 1E-8): a JSON number when a
             * double holds it exactly (15 significant digits), as the
             * readers of JSON (jansson, weir's own) read numbers, else a
             * JSON string, which Flink's json format reads too */
            weir__val x = {0};
            x.i = weir_row_get_decimal(sc, row, c, &x.hi);
            len = weir__format_val(ty, &x, WEIR_ROW_STYLE_SQL, NULL, v, sizeof v);
            int sig = 0;
            bool lead = true;
            for (int k = 0; k < len; k++) {
                if (v[k] < '0' || v[k] > '9' || (lead && v[k] == '0'))
                    continue;
                lead = false;
                sig++;
            }
            if (!csv && sig > 15) {
                put_json_string(&o, v, (size_t)len);
                continue;
            }
            break;
        }
        case WEIR_TYPE_TIMESTAMP:
        case WEIR_TYPE_TIMESTAMP_LTZ:
        case WEIR_TYPE_DATE:
        case WEIR_TYPE_TIME: {
            /* the SQL text (a TIMESTAMP_LTZ in UTC): 2024-01-05,
             * 10:00:00.5, 2024-01-05 10:00:00.000 with the type's digits */
            weir__val x = {0};
            x.i = weir_row_get_int(sc, row, c);
            x.nanos = weir_row_get_nanos(sc, row, c);
            len = weir__format_val(ty, &x, WEIR_ROW_STYLE_SQL, NULL, v, sizeof v);
            if (csv)
                put(&o, v, (size_t)len);
            else
                put_json_string(&o, v, (size_t)len);
            continue;
        }
        case WEIR_TYPE_VARBINARY:
        case WEIR_TYPE_BINARY: {
            /* base64 text, as Flink's json and csv formats write bytes */
            uint32_t bl = 0;
            const char *bv = weir_row_get_string(sc, row, c, &bl);
            /* quoted in JSON, and in CSV when empty (an empty field is
             * NULL); 48 bytes at a time, 64 characters */
            if (!csv || bl == 0)
                put(&o, "\"", 1);
            for (uint32_t k = 0; k < bl; k += 48) {
                uint32_t part = bl - k < 48 ? bl - k : 48;
                len = weir__base64_encode((const unsigned char *)bv + k, part, v, sizeof v);
                put(&o, v, (size_t)len);
            }
            if (!csv || bl == 0)
                put(&o, "\"", 1);
            continue;
        }
        case WEIR_TYPE_VARCHAR:
        case WEIR_TYPE_CHAR: {
            uint32_t sl = 0;
            const char *sv = weir_row_get_string(sc, row, c, &sl);
            if (csv)
                put_csv_string(&o, sv, sl, delimiter);
            else
                put_json_string(&o, sv, sl);
            continue;
        }
        default:
            break;
        }
        put(&o, v, (size_t)len);
    }
    if (!csv)
        put(&o, "}", 1);
    if (size)
        buf[o.len < size ? o.len : size - 1] = '\0';
    return o.len > (size_t)INT32_MAX ? -1 : (int)o.len;
}

int weir_row_write_json(const weir_schema *s, const void *row, char *buf, size_t size)
{
    return write_row(s, row, NULL, 0, 0, buf, size);
}

int weir_row_write_json_columns(const weir_schema *s, const void *row, const int *cols, int n,
                                char *buf, size_t size)
{
    for (int i = 0; i < n; i++)
        if (cols[i] < 0 || cols[i] >= weir_schema_ncolumns(s))
            return -1;
    return write_row(s, row, cols, n, 0, buf, size);
}

int weir_row_write_csv(const weir_schema *s, const void *row, char delimiter, char *buf,
                       size_t size)
{
    return write_row(s, row, NULL, 0, delimiter ? delimiter : ',', buf, size);
}

int weir_row_write_csv_columns(const weir_schema *s, const void *row, const int *cols, int n,
                               char delimiter, char *buf, size_t size)
{
    for (int i = 0; i < n; i++)
        if (cols[i] < 0 || cols[i] >= weir_schema_ncolumns(s))
            return -1;
    return write_row(s, row, cols, n, delimiter ? delimiter : ',', buf, size);
}
