/* row_read.c — a row read from text as Flink's 'json' and 'csv' formats
 * write it: a JSON object's fields by column name (weir_row_parse_json,
 * with jansson), one CSV record's fields by position (weir_row_parse_csv_
 * columns, with libcsv set up as the file source sets it up), and one
 * column from the text of a CSV field or a JSON string, for the file source
 * (source_file.c) and the Kafka connector. */
#include <csv.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "row_read.h"
#include "weir/error.h"
#include "weir/export.h"

/* ---- values ---------------------------------------------------------------------- */

static int set_bad(const weir__row_out *s, const char *fmt, ...) WEIR_PRINTF(2, 3);
static int set_bad(const weir__row_out *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, s->whysize, fmt, ap);
    va_end(ap);
    return WEIR_EFORMAT;
}

int weir__row_kind_parse(const char *t, size_t n, weir_row_kind *k)
{
    static const struct { const char *a, *b; weir_row_kind k; } kinds[] = {
        {"+I", "INSERT", WEIR_ROW_INSERT},
        {"-U", "UPDATE_BEFORE", WEIR_ROW_UPDATE_BEFORE},
        {"+U", "UPDATE_AFTER", WEIR_ROW_UPDATE_AFTER},
        {"-D", "DELETE", WEIR_ROW_DELETE},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if ((strlen(kinds[i].a) == n && memcmp(t, kinds[i].a, n) == 0) ||
            (strlen(kinds[i].b) == n && strncasecmp(t, kinds[i].b, n) == 0)) {
            *k = kinds[i].k;
            return 0;
        }
    return WEIR_EFORMAT;
}

/* A column from text (CSV, or a JSON string); NULL text is NULL. */
int weir__row_set_text(const weir__row_out *s, const weir_schema *sc, int col, const char *t, size_t n)
{
    const char *name = weir_schema_column_name(sc, col);
    weir_type ty = weir_schema_column_type(sc, col);
    if (!t) {
        if (ty.not_null)
            return set_bad(s, "NULL in the NOT NULL column '%s'", name);
        return weir_row_set_null(sc, s->row, col);
    }
    int r = weir_row_set_text(sc, s->row, col, t, n);
    if (r == WEIR_ERANGE)
        return ty.id == WEIR_TYPE_VARCHAR || ty.id == WEIR_TYPE_CHAR ||
                       ty.id == WEIR_TYPE_VARBINARY || ty.id == WEIR_TYPE_BINARY
                   ? set_bad(s, "a string longer than the column '%s' holds", name)
                   : set_bad(s, "a number out of the range of the column '%s'", name);
    if (r) {
        char type[64];
        weir_type_format(ty, type, sizeof type);
        return set_bad(s, "'%.*s' is not a %s (column '%s')", n > 40 ? 40 : (int)n, t, type,
                       name);
    }
    return 0;
}

/* ---- CSV ------------------------------------------------------------------------------ */

static int no_space(unsigned char c)
{
    (void)c;
    return 0; /* RFC 4180: spaces are part of a field */
}

int weir__csv_init(struct csv_parser *p, char delimiter)
{
    if (csv_init(p, CSV_STRICT | CSV_STRICT_FINI | CSV_EMPTY_IS_NULL))
        return WEIR_ENOMEM;
    csv_set_delim(p, (unsigned char)(delimiter ? delimiter : ','));
    csv_set_space_func(p, no_space);
    return 0;
}

/* One record's fields into their columns, as libcsv calls back. */
typedef struct csv_record {
    const weir_schema *schema;
    const int *cols;
    int n, field, records, err;
    weir__row_out out;
} csv_record;

static void record_field(void *text, size_t len, void *arg)
{
    csv_record *c = arg;
    if (c->err)
        return;
    if (c->records) {
        snprintf(c->out.why, c->out.whysize, "more than one CSV record");
        c->err = WEIR_EFORMAT;
    } else if (c->field == c->n) {
        snprintf(c->out.why, c->out.whysize, "more than the %d fields of the table", c->n);
        c->err = WEIR_EFORMAT;
    } else {
        c->err = weir__row_set_text(&c->out, c->schema, c->cols[c->field++], text, len);
    }
}

static void record_end(int term, void *arg)
{
    (void)term;
    csv_record *c = arg;
    if (!c->err && !c->records && c->field != c->n) {
        snprintf(c->out.why, c->out.whysize, "%d fields, the table has %d", c->field, c->n);
        c->err = WEIR_EFORMAT;
    }
    c->records++;
}

int weir_row_parse_csv_columns(const weir_schema *schema, const char *text, size_t len,
                               char delimiter, const int *cols, int n, void *row, char *why,
                               size_t whysize)
{
    for (int k = 0; k < n; k++)
        if (cols[k] < 0 || cols[k] >= weir_schema_ncolumns(schema)) {
            snprintf(why, whysize, "column %d is not a column of the table", cols[k]);
            return WEIR_EINVAL;
        }
    struct csv_parser p;
    if (weir__csv_init(&p, delimiter)) {
        snprintf(why, whysize, "out of memory");
        return WEIR_ENOMEM;
    }
    csv_record c = {.schema = schema, .cols = cols, .n = n,
                    .out = {.row = row, .why = why, .whysize = whysize}};
    bool ok = csv_parse(&p, text, len, record_field, record_end, &c) == len &&
              csv_fini(&p, record_field, record_end, &c) == 0;
    int e = ok ? 0 : csv_error(&p);
    csv_free(&p);
    if (!ok) {
        snprintf(why, whysize, "%s", e == CSV_ENOMEM ? "out of memory"
                 : e == CSV_EPARSE ? "malformed CSV (a quote inside an unquoted field, text "
                                     "after a closing quote, or a quoted field not closed)"
                                   : "malformed CSV");
        return e == CSV_ENOMEM ? WEIR_ENOMEM : WEIR_EFORMAT;
    }
    if (!c.err && !c.records) {
        snprintf(why, whysize, "no CSV record");
        return WEIR_EFORMAT;
    }
    return c.err;
}

/* ---- JSON ---------------------------------------------------------------------------- */

static int json_value(const weir__row_out *s, const weir_schema *sc, int col, json_t *v)
{
    const char *name = weir_schema_column_name(sc, col);
    weir_type ty = weir_schema_column_type(sc, col);
    if (!v || json_is_null(v))
        return weir__row_set_text(s, sc, col, NULL, 0);
    int r = -1;
    switch (ty.id) {
    case WEIR_TYPE_ROW:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP: {
        /* the nested value's JSON text, read by the table layer against
         * the column's type (its capacity checked: never cut) */
        if (ty.id == WEIR_TYPE_ARRAY ? !json_is_array(v) : !json_is_object(v))
            break;
        char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!text) {
            snprintf(s->why, s->whysize, "out of memory");
            return WEIR_ENOMEM;
        }
        char why[256];
        r = weir_row_set_json(sc, s->row, col, text, strlen(text), why, sizeof why);
        free(text);
        if (r == WEIR_ENOMEM) {
            snprintf(s->why, s->whysize, "out of memory");
            return r;
        }
        if (r)
            return set_bad(s, "column '%s': %s", name, why);
        return 0;
    }
    case WEIR_TYPE_BOOLEAN:
        if (json_is_boolean(v))
            r = weir_row_set_bool(sc, s->row, col, json_is_true(v));
        break;
    case WEIR_TYPE_TINYINT:
    case WEIR_TYPE_SMALLINT:
    case WEIR_TYPE_INT:
    case WEIR_TYPE_BIGINT:
        if (json_is_integer(v)) {
            r = weir_row_set_int(sc, s->row, col, json_integer_value(v));
            if (r == WEIR_ERANGE)
                return set_bad(s, "a number out of the range of the column '%s'", name);
        }
        break;
    case WEIR_TYPE_DECIMAL:
        if (json_is_integer(v) || json_is_real(v)) {
            /* the number's text: an integer's exactly; a real's as the
             * shortest text of the double jansson read it as (a number of
             * more than 15 significant digits loses some: write those as
             * strings) */
            char num[40];
            int k = 0;
            if (json_is_integer(v)) {
                k = snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
            } else {
                double d = json_real_value(v);
                for (int prec = 15; prec <= 17; prec++) {
                    k = snprintf(num, sizeof num, "%.*g", prec, d);
                    if (strtod(num, NULL) == d)
                        break;
                }
            }
            return weir__row_set_text(s, sc, col, num, (size_t)k);
        }
        if (json_is_string(v))
            return weir__row_set_text(s, sc, col, json_string_value(v), json_string_length(v));
        break;
    case WEIR_TYPE_FLOAT:
    case WEIR_TYPE_DOUBLE:
        if (json_is_number(v))
            r = weir_row_set_double(sc, s->row, col, json_number_value(v));
        break;
    default:
        if (json_is_string(v)) {
            const char *t = json_string_value(v);
            size_t n = json_string_length(v);
            /* Flink's json format reads (and writes) a TIMESTAMP_LTZ as UTC
             * with a 'Z': "2024-01-01 10:00:00.000Z", in its ISO-8601
             * standard "2024-01-01T10:00:00.000Z" (TimeFormats); weir reads
             * both, and the form without the Z it reads for TIMESTAMP. */
            if (ty.id == WEIR_TYPE_TIMESTAMP_LTZ && n > 19 && t[n - 1] == 'Z')
                n--;
            return weir__row_set_text(s, sc, col, t, n);
        }
        break;
    }
    if (r == 0)
        return 0;
    char type[64];
    weir_type_format(ty, type, sizeof type);
    static const char *const json_types[] = {"an object", "an array", "a string", "an integer",
                                             "a number", "true", "false", "null"};
    /* A number for a timestamp (epoch milliseconds) is refused, as Flink's
     * json format refuses it: it parses the number's text as a date. */
    bool ts = ty.id == WEIR_TYPE_TIMESTAMP || ty.id == WEIR_TYPE_TIMESTAMP_LTZ;
    snprintf(s->why, s->whysize, "field '%s' is %s, not a %s%s", name,
             json_types[json_typeof(v)], type,
             !ts ? "" : ty.id == WEIR_TYPE_TIMESTAMP
                            ? " (a string 'YYYY-MM-DD HH:MM:SS[.fff]', as Flink's json format "
                              "reads it)"
                            : " (a string 'YYYY-MM-DD HH:MM:SS[.fff]Z', as Flink's json format "
                              "reads it)");
    return WEIR_EFORMAT;
}

/* A JSON object's fields into the row: every column of the schema (but
 * those where skip[c]), the row made anew with the kind field's kind (cols
 * NULL), or only the columns cols[0..n) of a row as it is. */
static int parse_json(const weir_schema *schema, const char *text, size_t len,
                      const char *kind_field, const bool *skip, const int *cols, int n,
                      void *row, char *why, size_t whysize)
{
    const weir__row_out o = {.row = row, .why = why, .whysize = whysize};
    const weir__row_out *s = &o;
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
        i++;
    if (i == len)
        return 1;
    json_error_t je;
    errno = 0;
    json_t *obj = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    /* jansson does not always tell a failed allocation from bad JSON (a
     * string it cannot copy is "string expected", its lexer's buffer no
     * error text at all), but malloc said ENOMEM: nothing else in a parse
     * sets it. */
    if (!obj && errno == ENOMEM) {
        snprintf(why, whysize, "out of memory");
        return WEIR_ENOMEM; /* not a malformed line: never skipped */
    }
    if (!obj) {
        snprintf(why, whysize, "not JSON: %s (column %d)", je.text, je.column);
        return WEIR_EFORMAT;
    }
    int r = 0;
    if (!json_is_object(obj)) {
        snprintf(why, whysize, "not a JSON object");
        r = WEIR_EFORMAT;
    }
    weir_row_kind kind = WEIR_ROW_INSERT;
    if (r == 0 && kind_field) {
        json_t *k = json_object_get(obj, kind_field);
        if (!json_is_string(k) ||
            weir__row_kind_parse(json_string_value(k), json_string_length(k), &kind)) {
            snprintf(why, whysize, "field '%s' is not a row kind (+I, -U, +U, -D)", kind_field);
            r = WEIR_EFORMAT;
        }
    }
    if (r == 0 && !cols)
        weir_row_init(schema, row, kind);
    int ncols = cols ? n : weir_schema_ncolumns(schema);
    for (int k = 0; r == 0 && k < ncols; k++) {
        int c = cols ? cols[k] : k;
        if (!skip || !skip[c])
            r = json_value(s, schema, c, json_object_get(obj, weir_schema_column_name(schema, c)));
    }
    json_decref(obj);
    return r;
}

int weir_row_parse_json(const weir_schema *schema, const char *text, size_t len,
                        const char *kind_field, void *row, char *why, size_t whysize)
{
    return parse_json(schema, text, len, kind_field, NULL, NULL, 0, row, why, whysize);
}

int weir__row_parse_json_skip(const weir_schema *schema, const char *text, size_t len,
                              const char *kind_field, const bool *skip, void *row, char *why,
                              size_t whysize)
{
    return parse_json(schema, text, len, kind_field, skip, NULL, 0, row, why, whysize);
}

int weir_row_parse_json_columns(const weir_schema *schema, const char *text, size_t len,
                                const int *cols, int n, void *row, char *why, size_t whysize)
{
    for (int k = 0; k < n; k++)
        if (cols[k] < 0 || cols[k] >= weir_schema_ncolumns(schema)) {
            snprintf(why, whysize, "column %d is not a column of the table", cols[k]);
            return WEIR_EINVAL;
        }
    return parse_json(schema, text, len, NULL, NULL, cols, n, row, why, whysize);
}
