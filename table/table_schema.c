/* table_schema.c — schemas and their builder, row accessors and Flink's
 * Row.toString formatting (weir/row.h); the column types are table_types.c's.
 *
 * A schema computes its row layout once: the header (kind byte and null
 * bits, rounded up to 8) and each column at its natural alignment. Bound
 * schemas also remember where each column sits in the user's struct; the
 * conversion operator (table_calc.c) copies from there into a row.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decimal.h"
#include "expr_tree.h"
#include "table_internal.h"
#include "weir/error.h"

const char *weir_row_kind_name(weir_row_kind kind)
{
    switch (kind) {
    case WEIR_ROW_INSERT: return "+I";
    case WEIR_ROW_UPDATE_BEFORE: return "-U";
    case WEIR_ROW_UPDATE_AFTER: return "+U";
    case WEIR_ROW_DELETE: return "-D";
    }
    return "?";
}

/* ---- the builder ------------------------------------------------------------ */

typedef struct bcol {
    char *name;
    weir_type type;
    int64_t bound_off;
    size_t bound_size;
    bool metadata;
} bcol;

struct weir_schema_builder {
    char *table;
    bcol *cols;
    int ncols, cap;
    uint32_t string_capacity;
    uint32_t collection_capacity;
    bool bound;
    size_t struct_size;
    int64_t kind_off;
    char *pk;
    char *wm_col, *wm_expr; /* wm_col NULL with wm_expr: the rowtime is computed later */
    bool wm_options, wm_on_event, wm_in_source;
    char *proc_col;         /* the processing-time attribute */
    int64_t wm_idle_ms;
    int err;
    char msg[256];
};

static int bfail(weir_schema_builder *b, int err, const char *fmt, ...) WEIR_PRINTF(3, 4);
static int bfail(weir_schema_builder *b, int err, const char *fmt, ...)
{
    if (b->err)
        return b->err;
    int n = snprintf(b->msg, sizeof b->msg, "table %s: ", b->table);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->msg + n, sizeof b->msg - (size_t)n, fmt, ap);
    va_end(ap);
    b->err = err;
    return err;
}

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

weir_schema_builder *weir_schema_builder_create(const char *table_name)
{
    weir_schema_builder *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->table = dup(table_name && *table_name ? table_name : "table");
    if (!b->table) {
        free(b);
        return NULL;
    }
    b->string_capacity = WEIR_STRING_DEFAULT_CAPACITY;
    b->collection_capacity = WEIR_COLLECTION_DEFAULT_CAPACITY;
    b->kind_off = -1;
    return b;
}

void weir_schema_builder_destroy(weir_schema_builder *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->ncols; i++)
        free(b->cols[i].name);
    free(b->cols);
    free(b->table);
    free(b->pk);
    free(b->wm_col);
    free(b->proc_col);
    free(b->wm_expr);
    free(b);
}

int weir_schema_builder_string_capacity(weir_schema_builder *b, uint32_t capacity)
{
    if (!b)
        return WEIR_EINVAL;
    if (capacity == 0 || capacity > WEIR_STRING_MAX_CAPACITY)
        return bfail(b, WEIR_EINVAL, "string capacity %" PRIu32 " is not in 1..%u", capacity,
                     WEIR_STRING_MAX_CAPACITY);
    b->string_capacity = capacity;
    return 0;
}

int weir_schema_builder_collection_capacity(weir_schema_builder *b, uint32_t capacity)
{
    if (!b)
        return WEIR_EINVAL;
    if (capacity == 0 || capacity > WEIR_COLLECTION_MAX_CAPACITY)
        return bfail(b, WEIR_EINVAL, "collection capacity %" PRIu32 " is not in 1..%u", capacity,
                     WEIR_COLLECTION_MAX_CAPACITY);
    b->collection_capacity = capacity;
    return 0;
}

static int add_col(weir_schema_builder *b, const char *name, weir_type type, int64_t off,
                   size_t fsize, bool metadata)
{
    if (!b)
        return WEIR_EINVAL;
    if (b->err)
        return b->err;
    if (!name || !*name)
        return bfail(b, WEIR_EINVAL, "a column needs a name");
    if (!weir__type_is_column(type.id))
        return bfail(b, WEIR_EINVAL, "column '%s': not a column type", name);
    if (weir__type_is_var(type.id)) {
        if (type.capacity == 0 && (type.id == WEIR_TYPE_VARCHAR || type.id == WEIR_TYPE_VARBINARY))
            type.capacity = b->string_capacity; /* STRING, BYTES */
        if (type.capacity == 0)
            return bfail(b, WEIR_EINVAL, "column '%s': capacity 0", name);
        if (type.capacity > WEIR_STRING_MAX_CAPACITY)
            return bfail(b, WEIR_EINVAL, "column '%s': capacity %" PRIu32 " is above %u", name,
                         type.capacity, WEIR_STRING_MAX_CAPACITY);
    } else if (weir__type_is_nested(type.id)) {
        /* the defaults of the strings and collections inside it */
        const char *why = "not a nested type";
        if (!weir__nested_of(type))
            return bfail(b, WEIR_EINVAL, "column '%s': %s", name, why);
        if (off >= 0)
            return bfail(b, WEIR_EINVAL, "column '%s': a nested type is not read from a struct's "
                         "field", name);
        int r = weir__type_resolve(&type, b->string_capacity, b->collection_capacity, &why);
        if (r)
            return bfail(b, r, "column '%s': %s", name, why);
    } else {
        type.capacity = 0;
    }
    for (int i = 0; i < b->ncols; i++)
        if (strcmp(b->cols[i].name, name) == 0)
            return bfail(b, WEIR_EINVAL, "duplicate column '%s'", name);
    if (b->ncols == b->cap) {
        int nc = b->cap ? 2 * b->cap : 8;
        bcol *n = realloc(b->cols, (size_t)nc * sizeof *n);
        if (!n)
            return bfail(b, WEIR_ENOMEM, "out of memory");
        b->cols = n;
        b->cap = nc;
    }
    char *nm = dup(name);
    if (!nm)
        return bfail(b, WEIR_ENOMEM, "out of memory");
    b->cols[b->ncols++] = (bcol){nm, type, off, fsize, metadata};
    return 0;
}

int weir_schema_column(weir_schema_builder *b, const char *name, weir_type type)
{
    if (b && b->bound && !b->err)
        return bfail(b, WEIR_EINVAL, "column '%s': a bound schema's columns need their offset "
                     "(weir_schema_column_at)", name ? name : "?");
    return add_col(b, name, type, -1, 0, false);
}

int weir_schema_column_sql(weir_schema_builder *b, const char *name, const char *type)
{
    if (!b)
        return WEIR_EINVAL;
    weir_type t;
    char why[160];
    if (weir_type_parse(type, &t, why, sizeof why))
        return bfail(b, WEIR_EINVAL, "column '%s': %s", name ? name : "?", why);
    return weir_schema_column(b, name, t);
}

int weir_schema_bind_struct(weir_schema_builder *b, size_t struct_size)
{
    if (!b)
        return WEIR_EINVAL;
    if (b->ncols > 0)
        return bfail(b, WEIR_EINVAL, "bind the struct before adding columns");
    if (struct_size == 0 || struct_size > WEIR_ROW_MAX_SIZE)
        return bfail(b, WEIR_EINVAL, "struct size %zu is not in 1..%u", struct_size,
                     WEIR_ROW_MAX_SIZE);
    b->bound = true;
    b->struct_size = struct_size;
    return 0;
}

int weir_schema_column_at(weir_schema_builder *b, const char *name, weir_type type,
                          size_t offset, size_t field_size)
{
    if (!b)
        return WEIR_EINVAL;
    if (!b->bound)
        return bfail(b, WEIR_EINVAL, "column '%s': weir_schema_bind_struct first",
                     name ? name : "?");
    if (weir__type_is_binary(type.id))
        return bfail(b, WEIR_EINVAL, "column '%s': a binary string is not read from a struct's "
                     "field (a char array holds text)", name ? name : "?");
    if (weir__type_is_nested(type.id))
        return bfail(b, WEIR_EINVAL, "column '%s': a nested type is not read from a struct's "
                     "field", name ? name : "?");
    size_t need = weir__type_is_string(type.id)      ? 1
                  : type.id == WEIR_TYPE_BOOLEAN ? sizeof(bool)
                                                 : weir__type_size(type);
    /* a wide timestamp's field may be a struct {int64_t ms; int32_t nanos;}: 16 bytes */
    if (!weir__type_is_string(type.id) && field_size != need &&
        !(weir__type_wide_time(type) && field_size == 16))
        return bfail(b, WEIR_EINVAL, "column '%s': field size %zu, its type needs %zu",
                     name ? name : "?", field_size, need);
    if (field_size == 0 || offset + field_size > b->struct_size)
        return bfail(b, WEIR_EINVAL, "column '%s': field at %zu (%zu bytes) is outside the "
                     "%zu-byte struct", name ? name : "?", offset, field_size, b->struct_size);
    return add_col(b, name, type, (int64_t)offset, field_size, false);
}

int weir_schema_kind_at(weir_schema_builder *b, size_t offset)
{
    if (!b)
        return WEIR_EINVAL;
    if (!b->bound)
        return bfail(b, WEIR_EINVAL, "the row kind field needs a bound struct");
    if (offset >= b->struct_size)
        return bfail(b, WEIR_EINVAL, "the row kind field at %zu is outside the %zu-byte struct",
                     offset, b->struct_size);
    b->kind_off = (int64_t)offset;
    return 0;
}

/* One field of a struct description: its type read as SQL text (STRING on
 * a char array takes the array's size as its capacity), then the column or
 * the kind field. */
static int bind_field(weir_schema_builder *b, const weir_struct_field *f)
{
    const char *name = f->name ? f->name : "?";
    if (f->row_kind) {
        if (f->size != 1)
            return bfail(b, WEIR_EINVAL, "the row kind field '%s' is %zu bytes, not a uint8_t",
                         name, f->size);
        if (b->kind_off >= 0)
            return bfail(b, WEIR_EINVAL, "a second row kind field '%s'", name);
        return weir_schema_kind_at(b, f->offset);
    }
    if (!f->type)
        return bfail(b, WEIR_EINVAL, "column '%s': no type", name);
    weir_type t;
    char why[160];
    if (weir_type_parse(f->type, &t, why, sizeof why))
        return bfail(b, WEIR_EINVAL, "column '%s': %s", name, why);
    if (t.id == WEIR_TYPE_VARCHAR && t.capacity == 0) {
        if (f->size == 0 || f->size > WEIR_STRING_MAX_CAPACITY)
            return bfail(b, WEIR_EINVAL, "column '%s': a STRING field of %zu bytes (1..%u)", name,
                         f->size, WEIR_STRING_MAX_CAPACITY);
        t.capacity = (uint32_t)f->size;
    }
    return weir_schema_column_at(b, f->name, t, f->offset, f->size);
}

int weir_schema_bind_fields(weir_schema_builder *b, size_t struct_size,
                            const weir_struct_field *fields, size_t n)
{
    if (!b)
        return WEIR_EINVAL;
    if (!fields && n > 0)
        return bfail(b, WEIR_EINVAL, "no fields");
    int r = weir_schema_bind_struct(b, struct_size);
    for (size_t i = 0; r == 0 && i < n; i++)
        r = bind_field(b, &fields[i]);
    return r;
}

int weir_schema_from_struct(const char *table_name, size_t struct_size,
                            const weir_struct_field *fields, size_t n, weir_schema **out,
                            char *err, size_t errsize)
{
    weir_schema_builder *b = weir_schema_builder_create(table_name);
    if (!b) {
        if (out)
            *out = NULL;
        if (err && errsize)
            snprintf(err, errsize, "out of memory");
        return WEIR_ENOMEM;
    }
    weir_schema_bind_fields(b, struct_size, fields, n);
    return weir_schema_build(b, out, err, errsize);
}

int weir_schema_primary_key(weir_schema_builder *b, const char *columns)
{
    if (!b)
        return WEIR_EINVAL;
    if (!columns || !*columns)
        return bfail(b, WEIR_EINVAL, "an empty primary key");
    free(b->pk);
    b->pk = dup(columns);
    return b->pk ? 0 : bfail(b, WEIR_ENOMEM, "out of memory");
}

int weir_schema_watermark(weir_schema_builder *b, const char *column, const char *expression)
{
    if (!b)
        return WEIR_EINVAL;
    if (!expression)
        return bfail(b, WEIR_EINVAL, "a watermark needs an expression");
    free(b->wm_col);
    free(b->wm_expr);
    b->wm_col = column ? dup(column) : NULL;
    b->wm_expr = dup(expression);
    return (b->wm_col || !column) && b->wm_expr ? 0 : bfail(b, WEIR_ENOMEM, "out of memory");
}

int weir_schema_watermark_emit(weir_schema_builder *b, bool on_event, int64_t idle_timeout_ms)
{
    if (!b)
        return WEIR_EINVAL;
    if (idle_timeout_ms < 0)
        return bfail(b, WEIR_EINVAL, "the watermark idle timeout %lld must be >= 0",
                     (long long)idle_timeout_ms);
    b->wm_options = true;
    b->wm_on_event = on_event;
    b->wm_idle_ms = idle_timeout_ms;
    return 0;
}

int weir_schema_watermark_in_source(weir_schema_builder *b)
{
    if (!b)
        return WEIR_EINVAL;
    b->wm_in_source = true;
    return 0;
}

int weir_schema_proctime_attribute(weir_schema_builder *b, const char *column)
{
    if (!b)
        return WEIR_EINVAL;
    if (!column)
        return bfail(b, WEIR_EINVAL, "a processing-time attribute needs a column");
    free(b->proc_col);
    b->proc_col = dup(column);
    return b->proc_col ? 0 : bfail(b, WEIR_ENOMEM, "out of memory");
}

int weir_schema_rowtime_metadata(weir_schema_builder *b, const char *name)
{
    weir_type t = {.id = WEIR_TYPE_TIMESTAMP_LTZ};
    return add_col(b, name, t, -1, 0, true);
}

/* Lays out the columns: header, then each at its alignment. */
static int layout(weir_schema *s, const char **why)
{
    s->header_size = (uint32_t)((1 + (s->ncols + 7) / 8 + 7) & ~7);
    uint64_t off = s->header_size;
    for (int i = 0; i < s->ncols; i++) {
        uint32_t a = weir__type_align(s->cols[i].type);
        off = (off + a - 1) & ~(uint64_t)(a - 1);
        s->cols[i].offset = (uint32_t)off;
        s->cols[i].size = weir__type_size(s->cols[i].type);
        off += s->cols[i].size;
        if (off > WEIR_ROW_MAX_SIZE) {
            *why = "the row is larger than WEIR_ROW_MAX_SIZE";
            return WEIR_EINVAL;
        }
    }
    off = (off + 7) & ~(uint64_t)7;
    if (off > WEIR_ROW_MAX_SIZE) {
        *why = "the row is larger than WEIR_ROW_MAX_SIZE";
        return WEIR_EINVAL;
    }
    s->row_size = (uint32_t)off;
    return 0;
}

/* Splits "a, b" into column indexes. */
static int parse_pk(weir_schema_builder *b, weir_schema *s)
{
    const char *p = b->pk;
    s->pk = calloc((size_t)s->ncols + 1, sizeof *s->pk);
    if (!s->pk)
        return bfail(b, WEIR_ENOMEM, "out of memory");
    while (*p) {
        p = weir__skip_ws(p);
        /* A `quoted` name may hold spaces and commas (SQL's quoting). */
        bool quoted = *p == '`';
        const char *start = p + quoted, *e = start;
        while (*e && (quoted ? *e != '`' : *e != ',' && !isspace((unsigned char)*e)))
            e++;
        char name[128];
        size_t n = (size_t)(e - start);
        if (n == 0 || n >= sizeof name || (quoted && *e != '`'))
            return bfail(b, WEIR_EINVAL, "bad primary key '%s'", b->pk);
        memcpy(name, start, n);
        name[n] = 0;
        e += quoted;
        int c = weir_schema_column_index(s, name);
        if (c < 0)
            return bfail(b, WEIR_EINVAL, "primary key column '%s' is not a column", name);
        for (int i = 0; i < s->npk; i++)
            if (s->pk[i] == c)
                return bfail(b, WEIR_EINVAL, "primary key column '%s' given twice", name);
        if (s->npk == s->ncols)
            return bfail(b, WEIR_EINVAL, "bad primary key '%s'", b->pk);
        s->pk[s->npk++] = c;
        /* Flink: primary key columns are NOT NULL. */
        s->cols[c].type.not_null = true;
        p = weir__skip_ws(e);
        if (*p == ',')
            p++;
        else if (*p)
            return bfail(b, WEIR_EINVAL, "bad primary key '%s'", b->pk);
    }
    return 0;
}

/* The schema's WATERMARK FOR b->wm_col AS b->wm_expr: the rowtime column,
 * and SOURCE_WATERMARK() or an expression checked now, so that a bad one
 * fails at plan time with its text. 0, or b's error. */
static int build_watermark(weir_schema_builder *b, weir_schema *s)
{
    if (!b->wm_col) {
        /* the rowtime is computed after the source: the expression over
         * the source's rows runs in it */
        if (!b->wm_in_source)
            return bfail(b, WEIR_EINVAL, "a watermark without a rowtime column runs in the "
                         "source (weir_schema_watermark_in_source)");
        const char *e = weir__skip_ws(b->wm_expr);
        if (weir__match_word(e, "SOURCE_WATERMARK"))
            return bfail(b, WEIR_EINVAL, "SOURCE_WATERMARK() needs a rowtime column");
        goto expression;
    }
    int c = weir_schema_column_index(s, b->wm_col);
    if (c < 0)
        return bfail(b, WEIR_EINVAL, "watermark column '%s' is not a column", b->wm_col);
    if (!weir__type_is_time(s->cols[c].type.id)) {
        char t[48];
        weir_type_format(s->cols[c].type, t, sizeof t);
        return bfail(b, WEIR_EINVAL, "watermark column '%s' is %s, not TIMESTAMP(3) or "
                     "TIMESTAMP_LTZ(3)", b->wm_col, t);
    }
    s->rowtime = c;
    const char *e = weir__skip_ws(b->wm_expr);
    const char *q = weir__match_word(e, "SOURCE_WATERMARK");
    if (q && *weir__skip_ws(q) == '(' && *weir__skip_ws(weir__skip_ws(q) + 1) == ')' &&
        !*weir__skip_ws(weir__skip_ws(weir__skip_ws(q) + 1) + 1)) {
        s->source_watermark = true;
        if (b->wm_in_source)
            return bfail(b, WEIR_EINVAL, "SOURCE_WATERMARK() is the stream's own watermark: "
                         "there is no expression for the source to run");
        if (b->wm_options)
            return bfail(b, WEIR_EINVAL, "SOURCE_WATERMARK() keeps the stream's own watermarks: "
                         "their emission and idleness are its strategy's, not the table's");
        return 0;
    }
expression:
    s->wm_on_event = b->wm_on_event;
    s->wm_idle_ms = b->wm_idle_ms;
    s->watermark = dup(b->wm_expr);
    if (!s->watermark)
        return bfail(b, WEIR_ENOMEM, "out of memory");
    weir_expr *x = NULL;
    char ew[200];
    int r = weir_expr_compile(s->watermark, s, &x, ew, sizeof ew);
    if (r)
        return bfail(b, r, "watermark for '%s': %s", b->wm_col ? b->wm_col : "(computed)", ew);
    weir_type t = weir_expr_type(x);
    if (!weir__type_is_time(t.id)) {
        weir_expr_destroy(x);
        return bfail(b, WEIR_EINVAL, "watermark for '%s': '%s' is not a time",
                     b->wm_col ? b->wm_col : "(computed)", s->watermark);
    }
    if (b->wm_in_source && s->bound) {
        weir_expr_destroy(x);
        return bfail(b, WEIR_EINVAL, "a watermark run in the source reads rows of the "
                     "schema, not a bound struct");
    }
    /* kept for the source's generators (immutable, shared by them all) */
    s->wm_in_source = b->wm_in_source;
    if (s->wm_in_source)
        s->wm_compiled = x;
    else
        weir_expr_destroy(x);
    return 0;
}

int weir_schema_build(weir_schema_builder *b, weir_schema **out, char *err, size_t errsize)
{
    if (!b || !out) {
        if (err && errsize)
            snprintf(err, errsize, "a builder and an output are required");
        weir_schema_builder_destroy(b);
        return WEIR_EINVAL;
    }
    *out = NULL;
    weir_schema *s = NULL;
    if (b->err)
        goto fail;
    if (b->ncols == 0) {
        bfail(b, WEIR_EINVAL, "no columns");
        goto fail;
    }
    s = calloc(1, sizeof *s);
    if (!s || !(s->cols = calloc((size_t)b->ncols, sizeof *s->cols))) {
        bfail(b, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    s->table = b->table;
    b->table = NULL;
    s->ncols = b->ncols;
    s->rowtime = -1;
    s->proctime = -1;
    s->kind_off = b->kind_off;
    s->bound = b->bound;
    s->struct_size = b->struct_size;
    s->string_capacity = b->string_capacity;
    s->collection_capacity = b->collection_capacity;
    for (int i = 0; i < b->ncols; i++) {
        s->cols[i].name = b->cols[i].name;
        b->cols[i].name = NULL;
        s->cols[i].type = b->cols[i].type;
        s->cols[i].bound_off = b->cols[i].bound_off;
        s->cols[i].bound_size = (uint32_t)b->cols[i].bound_size;
        s->cols[i].metadata = b->cols[i].metadata;
    }
    /* Restore the table name for messages. */
    b->table = dup(s->table);
    if (!b->table) {
        b->err = WEIR_ENOMEM;
        snprintf(b->msg, sizeof b->msg, "out of memory");
        goto fail;
    }
    const char *why = NULL;
    if (layout(s, &why)) {
        bfail(b, WEIR_EINVAL, "%s", why);
        goto fail;
    }
    if (b->pk && parse_pk(b, s))
        goto fail;
    if (b->wm_options && !b->wm_expr) {
        bfail(b, WEIR_EINVAL, "watermark emission options without a watermark");
        goto fail;
    }
    if (b->wm_in_source && !b->wm_expr) {
        bfail(b, WEIR_EINVAL, "a watermark in the source without a watermark");
        goto fail;
    }
    if (b->wm_expr && build_watermark(b, s))
        goto fail;
    if (b->proc_col) {
        int c = weir_schema_column_index(s, b->proc_col);
        if (c < 0 || s->cols[c].type.id != WEIR_TYPE_TIMESTAMP_LTZ ||
            weir_type_precision(s->cols[c].type) != 3) {
            bfail(b, WEIR_EINVAL, "the processing-time attribute '%s' is not a TIMESTAMP_LTZ(3) "
                  "column", b->proc_col);
            goto fail;
        }
        if (c == s->rowtime) {
            bfail(b, WEIR_EINVAL, "A watermark can not be defined for a processing-time "
                  "attribute.");
            goto fail;
        }
        s->proctime = c;
    }
    weir_schema_builder_destroy(b);
    *out = s;
    return 0;
fail:;
    int r = b->err ? b->err : WEIR_EINVAL;
    if (err && errsize)
        snprintf(err, errsize, "%s", b->msg);
    weir_schema_destroy(s);
    weir_schema_builder_destroy(b);
    return r;
}

void weir_schema_destroy(weir_schema *s)
{
    if (!s)
        return;
    if (s->cols)
        for (int i = 0; i < s->ncols; i++)
            free(s->cols[i].name);
    free(s->cols);
    free(s->pk);
    free(s->watermark);
    weir_expr_destroy(s->wm_compiled);
    free(s->table);
    free(s);
}

weir_schema *weir__schema_make(const char *table, int ncols, const char *const *names,
                               const weir_type *types, const char **why)
{
    weir_schema *s = calloc(1, sizeof *s);
    *why = "out of memory";
    if (!s)
        return NULL;
    s->table = dup(table);
    s->cols = calloc((size_t)(ncols > 0 ? ncols : 1), sizeof *s->cols);
    s->pk = calloc((size_t)ncols + 1, sizeof *s->pk);
    s->rowtime = -1;
    s->proctime = -1;
    s->kind_off = -1;
    s->string_capacity = WEIR_STRING_DEFAULT_CAPACITY;
    s->collection_capacity = WEIR_COLLECTION_DEFAULT_CAPACITY;
    if (!s->table || !s->cols || !s->pk) {
        weir_schema_destroy(s);
        return NULL;
    }
    s->ncols = ncols;
    for (int i = 0; i < ncols; i++) {
        s->cols[i].name = dup(names[i]);
        s->cols[i].type = types[i];
        s->cols[i].bound_off = -1;
        if (!s->cols[i].name) {
            weir_schema_destroy(s);
            return NULL;
        }
    }
    if (layout(s, why)) {
        weir_schema_destroy(s);
        return NULL;
    }
    *why = NULL;
    return s;
}

weir_schema *weir__schema_derive(const weir_schema *in, int ncols, const char *const *names,
                                 const weir_type *types, const char **why)
{
    weir_schema *s = weir__schema_make(in->table, ncols, names, types, why);
    if (s) {
        s->string_capacity = in->string_capacity;
        s->collection_capacity = in->collection_capacity;
    }
    return s;
}

weir_schema *weir__schema_copy(const weir_schema *src, const char *table)
{
    const char **names = calloc((size_t)src->ncols + 1, sizeof *names);
    weir_type *types = calloc((size_t)src->ncols + 1, sizeof *types);
    weir_schema *s = NULL;
    if (names && types) {
        for (int i = 0; i < src->ncols; i++) {
            names[i] = src->cols[i].name;
            types[i] = src->cols[i].type;
        }
        const char *why;
        s = weir__schema_make(table, src->ncols, names, types, &why);
        if (s) {
            s->string_capacity = src->string_capacity;
            s->collection_capacity = src->collection_capacity;
        }
    }
    free(names);
    free(types);
    return s;
}

/* ---- reading a schema --------------------------------------------------------- */

const char *weir_schema_name(const weir_schema *s) { return s->table; }
int weir_schema_ncolumns(const weir_schema *s) { return s->ncols; }
size_t weir_schema_row_size(const weir_schema *s) { return s->row_size; }
int weir_schema_rowtime(const weir_schema *s) { return s->rowtime; }
int weir_schema_proctime(const weir_schema *s) { return s->proctime; }
int weir_schema_primary_key_count(const weir_schema *s) { return s->npk; }

size_t weir_schema_elem_size(const weir_schema *s)
{
    return s->bound ? s->struct_size : s->row_size;
}

int weir_schema_primary_key_column(const weir_schema *s, int i)
{
    return i >= 0 && i < s->npk ? s->pk[i] : -1;
}

const char *weir_schema_column_name(const weir_schema *s, int col)
{
    return col >= 0 && col < s->ncols ? s->cols[col].name : NULL;
}

weir_type weir_schema_column_type(const weir_schema *s, int col)
{
    weir_type none = {0};
    return col >= 0 && col < s->ncols ? s->cols[col].type : none;
}

int weir_schema_column_index(const weir_schema *s, const char *name)
{
    if (!s || !name)
        return -1;
    for (int i = 0; i < s->ncols; i++)
        if (strcmp(s->cols[i].name, name) == 0)
            return i;
    return -1;
}

int weir_schema_format(const weir_schema *s, char *buf, size_t size)
{
    size_t n = 0;
    weir__append(buf, size, &n, "(");
    for (int i = 0; i < s->ncols; i++) {
        char t[48];
        weir_type_format(s->cols[i].type, t, sizeof t);
        weir__append(buf, size, &n, "%s%s %s", i ? ", " : "", s->cols[i].name, t);
    }
    weir__append(buf, size, &n, ")");
    return (int)n;
}

/* ---- rows ----------------------------------------------------------------------- */

void weir_row_init(const weir_schema *s, void *row, weir_row_kind kind)
{
    memset(row, 0, s->row_size);
    weir_row_set_kind(row, kind);
}

bool weir_row_is_null(const weir_schema *s, const void *row, int col)
{
    if (col < 0 || col >= s->ncols)
        return true;
    return weir__row_null(s, row, col);
}

void weir__load_value(const weir_schema *s, const unsigned char *row, int c, weir__val *v)
{
    const weir__col *col = &s->cols[c];
    v->null = weir__row_null(s, row, c);
    weir__read_value(row + col->offset, col->type, v);
}

int weir__store_value(const weir_schema *s, unsigned char *row, int c, const weir__val *v)
{
    const weir__col *col = &s->cols[c];
    unsigned char *p = row + col->offset;
    if (v->null) {
        memset(p, 0, col->size);
        weir__row_set_null_bit(row, c, true);
        return 0;
    }
    weir__row_set_null_bit(row, c, false);
    const char *why;
    return weir__slot_store(p, col->type, v, &why);
}

static int check_col(const weir_schema *s, int col, bool (*ok)(weir_type_id))
{
    if (col < 0 || col >= s->ncols || !ok(s->cols[col].type.id))
        return WEIR_EINVAL;
    return 0;
}

static bool is_intlike(weir_type_id id)
{
    return weir__type_is_integer(id) || weir__type_is_datetime(id);
}
static bool is_double(weir_type_id id) { return weir__type_is_approx(id); }
static bool is_bool(weir_type_id id) { return id == WEIR_TYPE_BOOLEAN; }
static bool is_any(weir_type_id id) { (void)id; return true; }

int64_t weir_row_get_int(const weir_schema *s, const void *row, int col)
{
    if (check_col(s, col, is_intlike) || weir__row_null(s, row, col))
        return 0;
    weir__val v = {0};
    weir__load_value(s, row, col, &v);
    return v.i;
}

double weir_row_get_double(const weir_schema *s, const void *row, int col)
{
    if (check_col(s, col, is_double) || weir__row_null(s, row, col))
        return 0;
    weir__val v = {0};
    weir__load_value(s, row, col, &v);
    return v.d;
}

bool weir_row_get_bool(const weir_schema *s, const void *row, int col)
{
    if (check_col(s, col, is_bool) || weir__row_null(s, row, col))
        return false;
    weir__val v = {0};
    weir__load_value(s, row, col, &v);
    return v.i != 0;
}

const char *weir_row_get_string(const weir_schema *s, const void *row, int col, uint32_t *len)
{
    if (check_col(s, col, weir__type_is_var)) {
        if (len)
            *len = 0;
        return NULL;
    }
    weir__val v = {0};
    weir__load_value(s, row, col, &v);
    if (len)
        *len = v.null ? 0 : v.len;
    return v.null ? NULL : v.s;
}

int weir_row_set_null(const weir_schema *s, void *row, int col)
{
    if (check_col(s, col, is_any) || s->cols[col].type.not_null)
        return WEIR_EINVAL;
    weir__val v = {.null = true};
    return weir__store_value(s, row, col, &v);
}

int weir_row_set_int(const weir_schema *s, void *row, int col, int64_t x)
{
    if (check_col(s, col, is_intlike))
        return WEIR_EINVAL;
    weir_type_id id = s->cols[col].type.id;
    if (!weir__int_fits(id, x) || (id == WEIR_TYPE_DATE && !weir__int_fits(WEIR_TYPE_INT, x)) ||
        (id == WEIR_TYPE_TIME && (x < 0 || x >= 86400000)))
        return WEIR_ERANGE;
    weir__val v = {.i = x};
    return weir__store_value(s, row, col, &v);
}

static bool is_decimal(weir_type_id id) { return id == WEIR_TYPE_DECIMAL; }

int64_t weir_row_get_decimal(const weir_schema *s, const void *row, int col, int64_t *hi)
{
    weir__val v = {0};
    if (!check_col(s, col, is_decimal) && !weir__row_null(s, row, col))
        weir__load_value(s, row, col, &v);
    if (hi)
        *hi = v.hi;
    return v.i;
}

int weir_row_set_decimal(const weir_schema *s, void *row, int col, int64_t lo, int64_t hi)
{
    if (check_col(s, col, is_decimal))
        return WEIR_EINVAL;
    weir__val v = {.i = lo, .hi = hi};
    if (!weir__dec_fits(weir__dec_get(&v), weir_type_precision(s->cols[col].type)))
        return WEIR_ERANGE;
    return weir__store_value(s, row, col, &v);
}

int32_t weir_row_get_nanos(const weir_schema *s, const void *row, int col)
{
    if (check_col(s, col, weir__type_is_time) || weir__row_null(s, row, col))
        return 0;
    weir__val v = {0};
    weir__load_value(s, row, col, &v);
    return v.nanos;
}

int weir_row_set_timestamp(const weir_schema *s, void *row, int col, int64_t ms,
                           int32_t nanos)
{
    if (check_col(s, col, weir__type_is_time))
        return WEIR_EINVAL;
    if (nanos < 0 || nanos > 999999 ||
        (nanos && weir_type_precision(s->cols[col].type) <= 3))
        return WEIR_ERANGE;
    weir__val v = {.i = ms, .nanos = nanos};
    return weir__store_value(s, row, col, &v);
}

int weir_row_set_double(const weir_schema *s, void *row, int col, double x)
{
    if (check_col(s, col, is_double))
        return WEIR_EINVAL;
    weir__val v = {.d = x};
    return weir__store_value(s, row, col, &v);
}

int weir_row_set_bool(const weir_schema *s, void *row, int col, bool x)
{
    if (check_col(s, col, is_bool))
        return WEIR_EINVAL;
    weir__val v = {.i = x};
    return weir__store_value(s, row, col, &v);
}

int weir_row_set_string(const weir_schema *s, void *row, int col, const char *str, size_t len)
{
    if (check_col(s, col, weir__type_is_var) || (!str && len))
        return WEIR_EINVAL;
    if (len > s->cols[col].type.capacity)
        return WEIR_ERANGE;
    weir__val v = {.s = str ? str : "", .len = (uint32_t)len};
    return weir__store_value(s, row, col, &v);
}

/* ---- Row.toString ------------------------------------------------------------- */

/* ---- base64 ---------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int weir__base64_encode(const unsigned char *in, size_t n, char *out, size_t size)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        const char q[4] = {b64[v >> 18], b64[v >> 12 & 63], i + 1 < n ? b64[v >> 6 & 63] : '=',
                     i + 2 < n ? b64[v & 63] : '='};
        for (int j = 0; j < 4; j++, k++)
            if (k < size)
                out[k] = q[j];
    }
    return (int)k;
}

int weir__base64_decode(const char *in, size_t n, unsigned char *out, size_t size)
{
    uint32_t acc = 0;
    int bits = 0;
    size_t k = 0, pad = 0;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        const char *p = c ? strchr(b64, c) : NULL;
        if (c == '=') {
            pad++;
            continue;
        }
        if (!p || pad)
            return -1; /* not base64 (or text after the padding) */
        acc = acc << 6 | (uint32_t)(p - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (k >= size)
                return -2;
            out[k++] = (unsigned char)(acc >> bits);
        }
    }
    if ((n - pad) % 4 == 1 || pad > 2)
        return -1;
    return (int)k;
}

int weir_timestamp_parse(const char *text, size_t len, int64_t *ms)
{
    int32_t nanos;
    return weir__parse_timestamp(text, len, ms, &nanos, NULL);
}

int weir_row_set_json(const weir_schema *s, void *row, int col, const char *json, size_t len,
                      char *why, size_t whysize)
{
    if (whysize)
        why[0] = 0;
    if (!s || !row || col < 0 || col >= s->ncols || (!json && len)) {
        if (whysize)
            snprintf(why, whysize, "no such column");
        return WEIR_EINVAL;
    }
    const weir__col *c = &s->cols[col];
    bool null = false;
    int r = weir__json_to_slot(c->type, json ? json : "", len, (unsigned char *)row + c->offset,
                               &null, why, whysize);
    if (r)
        return r;
    weir__row_set_null_bit(row, col, null);
    return 0;
}

int weir_row_set_text(const weir_schema *s, void *row, int col, const char *text, size_t len)
{
    if (col < 0 || col >= s->ncols || (!text && len))
        return WEIR_EINVAL;
    weir_type_id id = s->cols[col].type.id;
    if (weir__type_is_nested(id))
        return weir_row_set_json(s, row, col, text, len, NULL, 0);
    if (weir__type_is_string(id))
        return weir_row_set_string(s, row, col, text, len);
    if (weir__type_is_binary(id)) {
        /* base64, as Flink's json and csv formats write binary strings */
        uint32_t cap = s->cols[col].type.capacity;
        unsigned char buf[WEIR_STRING_MAX_CAPACITY + 3];
        int n = weir__base64_decode(text, len, buf, (size_t)cap + 3);
        if (n < 0)
            return n == -2 ? WEIR_ERANGE : WEIR_EFORMAT;
        return weir_row_set_string(s, row, col, (const char *)buf, (size_t)n);
    }
    if (weir__type_is_time(id)) {
        int64_t ms;
        int32_t nanos;
        if (weir__parse_timestamp(text, len, &ms, &nanos, NULL))
            return WEIR_EFORMAT;
        weir__timestamp_truncate(&ms, &nanos, weir_type_precision(s->cols[col].type));
        return weir_row_set_timestamp(s, row, col, ms, nanos);
    }
    if (id == WEIR_TYPE_DECIMAL) {
        weir_type t = s->cols[col].type;
        weir__i128 x;
        int r = weir__dec_parse(text, len, weir_type_precision(t), t.scale, &x);
        if (r)
            return r > 0 ? WEIR_ERANGE : WEIR_EFORMAT;
        weir__val v = {0};
        weir__dec_set(&v, x);
        return weir__store_value(s, row, col, &v);
    }
    if (id == WEIR_TYPE_DATE) {
        int64_t days;
        return weir__parse_date(text, len, &days) ? WEIR_EFORMAT
                                                  : weir_row_set_int(s, row, col, days);
    }
    if (id == WEIR_TYPE_TIME) {
        int64_t ms;
        int digits;
        if (weir__parse_time(text, len, &ms, &digits))
            return WEIR_EFORMAT;
        weir_type t = s->cols[col].type;
        int32_t nanos = 0;
        weir__timestamp_truncate(&ms, &nanos, weir_type_precision(t));
        return weir_row_set_int(s, row, col, ms);
    }
    char tmp[64];
    if (len == 0 || len >= sizeof tmp)
        return WEIR_EFORMAT;
    memcpy(tmp, text, len);
    tmp[len] = '\0';
    weir__val v;
    int r = weir__parse_literal(id, tmp, &v);
    if (r)
        return r;
    if (id == WEIR_TYPE_BOOLEAN)
        return weir_row_set_bool(s, row, col, v.i != 0);
    if (weir__type_is_approx(id))
        return weir_row_set_double(s, row, col, v.d);
    return weir_row_set_int(s, row, col, v.i);
}

int weir__parse_literal(weir_type_id to, const char *text, weir__val *out)
{
    if (isspace((unsigned char)text[0]))
        return WEIR_EFORMAT;
    if (to == WEIR_TYPE_BOOLEAN) {
        if (strcasecmp(text, "true") != 0 && strcasecmp(text, "false") != 0)
            return WEIR_EFORMAT;
        out->i = text[0] == 't' || text[0] == 'T';
        return 0;
    }
    char *end;
    errno = 0;
    if (to == WEIR_TYPE_DOUBLE) {
        out->d = strtod(text, &end);
        return *end ? WEIR_EFORMAT : 0;
    }
    if (to == WEIR_TYPE_FLOAT) {
        /* straight to the nearest float, as Java's Float.parseFloat (not
         * through a double, which would round twice) */
        out->d = strtof(text, &end);
        return *end ? WEIR_EFORMAT : 0;
    }
    if (!weir__type_is_integer(to))
        return WEIR_EFORMAT;
    long long v = strtoll(text, &end, 10);
    if (*end || end == text)
        return WEIR_EFORMAT;
    if (errno == ERANGE || !weir__int_fits(to, v))
        return WEIR_ERANGE;
    out->i = v;
    return 0;
}

int weir_timestamp_format(int64_t ms, char *buf, size_t size)
{
    return weir__format_timestamp(ms, 0, 3, buf, size);
}

/* A double as Java's Double.toString writes it (Flink's Row.toString and
 * CAST to a string do): the fewest significant digits that read back to
 * the same double; from 10^-3 up to (not including) 10^7 as a decimal with
 * at least one digit after the point (10.0, 0.001, 1234567.5), else in
 * computerized scientific notation with at least one digit after the point
 * (1.0E7, 1.25E-4); NaN, Infinity, -Infinity; 0.0 and -0.0. With `single`,
 * x is a FLOAT's value and the digits are the fewest that read back to the
 * same float (Java's Float.toString: 0.1f is 0.1, not 0.10000000149011612). */
static int format_java(double x, bool single, char *buf, size_t size)
{
    if (x != x)
        return snprintf(buf, size, "NaN");
    if (x == 1.0 / 0.0)
        return snprintf(buf, size, "Infinity");
    if (x == -1.0 / 0.0)
        return snprintf(buf, size, "-Infinity");
    if (x == 0)
        return snprintf(buf, size, "%s", signbit(x) ? "-0.0" : "0.0");
    /* The shortest digits: d.ddde[+-]x, one digit more until they read
     * back. Java (since JDK 19, its specification) writes at least two
     * digits and, when one would do, the two closest to x: Float.MIN_VALUE
     * is 1.4E-45, not 1.0E-45. */
    char tmp[48];
    for (int prec = 0; prec <= 16; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec, x);
        if (single ? strtof(tmp, NULL) == (float)x : strtod(tmp, NULL) == x) {
            char two[48];
            snprintf(two, sizeof two, "%.1e", x);
            if (prec == 0 && (single ? strtof(two, NULL) == (float)x : strtod(two, NULL) == x))
                memcpy(tmp, two, sizeof tmp);
            break;
        }
    }
    char dg[24];
    int nd = 0;
    const char *p = tmp + (tmp[0] == '-');
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            dg[nd++] = *p;
    while (nd > 1 && dg[nd - 1] == '0')
        nd--;
    dg[nd] = 0;
    int e10 = atoi(p + 1);
    const char *sign = x < 0 ? "-" : "";
    /* Java decides by the value's magnitude, which the shortest digits
     * share: 10^-3 <= |x| < 10^7 is -3 <= e10 <= 6. */
    if (e10 >= -3 && e10 < 7) {
        char out[48];
        size_t n;
        if (e10 < 0) {
            /* 0.00ddd */
            n = (size_t)snprintf(out, sizeof out, "0.");
            for (int z = -1; z > e10; z--)
                out[n++] = '0';
            snprintf(out + n, sizeof out - n, "%s", dg);
        } else if (e10 + 1 >= nd) {
            /* ddd00.0 */
            n = (size_t)snprintf(out, sizeof out, "%s", dg);
            for (int z = nd; z < e10 + 1; z++)
                out[n++] = '0';
            snprintf(out + n, sizeof out - n, ".0");
        } else {
            snprintf(out, sizeof out, "%.*s.%s", e10 + 1, dg, dg + e10 + 1);
        }
        return snprintf(buf, size, "%s%s", sign, out);
    }
    return snprintf(buf, size, "%s%c.%sE%d", sign, dg[0], nd > 1 ? dg + 1 : "0", e10);
}

int weir__format_double(double x, char *buf, size_t size)
{
    return format_java(x, false, buf, size);
}

int weir__format_float(double x, char *buf, size_t size)
{
    return format_java(x, true, buf, size);
}

int weir__format_value(const weir_schema *s, const unsigned char *row, int c, char *buf,
                       size_t size)
{
    return weir__format_value_style(s, row, c, WEIR_ROW_STYLE_SQL, buf, size);
}

int weir__format_val(weir_type t, const weir__val *v, weir_row_style style,
                     const weir_time_zone *zone, char *buf, size_t size)
{
    if (v->null)
        return snprintf(buf, size, "null");
    bool print = style == WEIR_ROW_STYLE_PRINT_CONNECTOR;
    switch (t.id) {
    case WEIR_TYPE_ROW:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP: return weir__nested_format_val(t, v, style, zone, buf, size);
    case WEIR_TYPE_BOOLEAN:
        /* BooleanToStringCastRule inside a nested CAST: TRUE, FALSE */
        return snprintf(buf, size, "%s",
                        style == WEIR__ROW_STYLE_CAST ? (v->i ? "TRUE" : "FALSE")
                                                      : (v->i ? "true" : "false"));
    case WEIR_TYPE_DOUBLE: return weir__format_double(v->d, buf, size);
    case WEIR_TYPE_FLOAT: return weir__format_float(v->d, buf, size);
    case WEIR_TYPE_VARCHAR:
    case WEIR_TYPE_CHAR: return snprintf(buf, size, "%.*s", (int)v->len, v->s);
    case WEIR_TYPE_VARBINARY:
    case WEIR_TYPE_BINARY: {
        /* the SQL client: x'0a0b' (BinaryToStringCastRule when printing);
         * the print connector: Row.toString's Arrays.toString, [10, 11],
         * Java's signed bytes */
        size_t n = 0;
        weir__append(buf, size, &n, print ? "[" : "x'");
        for (uint32_t k = 0; k < v->len; k++)
            weir__append(buf, size, &n, print ? (k ? ", %d" : "%d") : "%02x",
                         print ? (int)(signed char)v->s[k] : (unsigned char)v->s[k]);
        weir__append(buf, size, &n, print ? "]" : "'");
        return (int)n;
    }
    case WEIR_TYPE_DATE: return weir__format_date(v->i, buf, size);
    case WEIR_TYPE_DECIMAL:
        /* DecimalData.toString (plain, s digits); the print connector's
         * BigDecimal.toString (1E-8 below 10^-6) */
        return weir__dec_format(weir__dec_get(v), t.scale, print, buf, size);
    case WEIR_TYPE_TIME:
        return print ? weir__format_java_time(v->i, buf, size)
                     : weir__format_time(v->i, weir_type_precision(t), buf, size);
    case WEIR_TYPE_TIMESTAMP:
        return print ? weir__format_java_timestamp(v->i, v->nanos, false, buf, size)
                     : weir__format_timestamp(v->i, v->nanos, weir_type_precision(t), buf, size);
    case WEIR_TYPE_TIMESTAMP_LTZ:
        /* an instant: the print connector's Instant.toString is UTC; the
         * SQL client shows it in the session's zone */
        if (print)
            return weir__format_java_timestamp(v->i, v->nanos, true, buf, size);
        return weir__format_timestamp(v->i + weir_time_zone_offset(zone, v->i), v->nanos,
                                      weir_type_precision(t), buf, size);
    default: return snprintf(buf, size, "%" PRId64, v->i);
    }
}

int weir__format_value_style(const weir_schema *s, const unsigned char *row, int c,
                             weir_row_style style, char *buf, size_t size)
{
    weir__val v = {0};
    weir__load_value(s, row, c, &v);
    return weir__format_val(s->cols[c].type, &v, style, NULL, buf, size);
}

int weir_row_format_column(const weir_schema *s, const void *row, int col,
                           const weir_time_zone *zone, char *buf, size_t size)
{
    if (!s || !row || col < 0 || col >= s->ncols)
        return -1;
    weir__val v = {0};
    weir__load_value(s, row, col, &v);
    return weir__format_val(s->cols[col].type, &v, WEIR_ROW_STYLE_SQL, zone, buf, size);
}

int weir_row_format(const weir_schema *s, const void *row, char *buf, size_t size)
{
    return weir_row_format_zoned(s, row, WEIR_ROW_STYLE_SQL, NULL, buf, size);
}

int weir_row_format_style(const weir_schema *s, const void *row, weir_row_style style, char *buf,
                          size_t size)
{
    return weir_row_format_zoned(s, row, style, NULL, buf, size);
}

int weir_row_format_zoned(const weir_schema *s, const void *row, weir_row_style style,
                          const weir_time_zone *zone, char *buf, size_t size)
{
    size_t n = 0;
    weir__append(buf, size, &n, "%s[", weir_row_kind_name(weir_row_get_kind(row)));
    for (int c = 0; c < s->ncols; c++) {
        char v[128];
        weir__val x = {0};
        weir__load_value(s, row, c, &x);
        int w = weir__format_val(s->cols[c].type, &x, style, zone, v, sizeof v);
        if (c)
            weir__append(buf, size, &n, ", ");
        if (w >= (int)sizeof v && weir__type_is_nested(s->cols[c].type.id)) {
            /* a long nested value, straight into the row's text */
            w = weir__format_val(s->cols[c].type, &x, style, zone, n < size ? buf + n : NULL,
                                 n < size ? size - n : 0);
            n += w > 0 ? (size_t)w : 0;
        } else if (w >= (int)sizeof v && weir__type_is_string(s->cols[c].type.id) && !x.null) {
            weir__append(buf, size, &n, "%.*s", (int)x.len, x.s);
        } else if (w >= (int)sizeof v && weir__type_is_binary(s->cols[c].type.id)) {
            /* a long binary string, byte by byte into the row's text */
            bool java = style == WEIR_ROW_STYLE_PRINT_CONNECTOR;
            weir__append(buf, size, &n, java ? "[" : "x'");
            for (uint32_t k = 0; k < x.len; k++)
                weir__append(buf, size, &n, java ? (k ? ", %d" : "%d") : "%02x",
                             java ? (int)(signed char)x.s[k] : (unsigned char)x.s[k]);
            weir__append(buf, size, &n, java ? "]" : "'");
        }
        else
            weir__append(buf, size, &n, "%s", v);
    }
    weir__append(buf, size, &n, "]");
    return (int)n;
}

/* ---- a ROW column's fields ------------------------------------------------------ */

/* The place of ROW column col in the row, *d its description; NULL if col
 * is not a ROW column or f not one of its fields. */
static unsigned char *field_place(const weir_schema *s, void *row, int col, int f,
                                  const weir__nested **d)
{
    if (!s || !row || col < 0 || col >= s->ncols || s->cols[col].type.id != WEIR_TYPE_ROW)
        return NULL;
    *d = weir__nested_of(s->cols[col].type);
    if (!*d || f < 0 || (uint32_t)f >= (*d)->n)
        return NULL;
    return (unsigned char *)row + s->cols[col].offset;
}

/* Field f of the ROW at slot is NULL or not; a NULL ROW becomes a ROW
 * whose fields are all NULL first. */
static void field_present(unsigned char *row, int col, unsigned char *slot,
                          const weir__nested *d, int f, bool null)
{
    if (weir__row_null(NULL, row, col)) {
        /* the ROW was NULL: its fields start NULL, its bytes zero */
        memset(slot, 0, d->size);
        memset(slot, 0xff, (d->n + 7) / 8);
        if (d->n % 8)
            slot[d->n / 8] = (unsigned char)((1u << (d->n % 8)) - 1);
        weir__row_set_null_bit(row, col, false);
    }
    if (null)
        slot[f / 8] |= (unsigned char)(1u << (f % 8));
    else
        slot[f / 8] &= (unsigned char)~(1u << (f % 8));
}

int weir_row_set_field_int(const weir_schema *s, void *row, int col, int field, int64_t x)
{
    const weir__nested *d;
    unsigned char *slot = field_place(s, row, col, field, &d);
    if (!slot)
        return WEIR_EINVAL;
    weir_type t = d->types[field];
    if (!(weir__type_is_integer(t.id) || t.id == WEIR_TYPE_DATE || t.id == WEIR_TYPE_TIME ||
          (weir__type_is_time(t.id) && !weir__type_wide_time(t))))
        return WEIR_EINVAL;
    if (weir__type_is_integer(t.id) && !weir__int_fits(t.id, x))
        return WEIR_ERANGE;
    field_present(row, col, slot, d, field, false);
    weir__val v = {.i = x};
    weir__write_value(slot + d->offs[field], t, &v);
    return 0;
}

int weir_row_set_field_string(const weir_schema *s, void *row, int col, int field,
                              const char *str, size_t len)
{
    const weir__nested *d;
    unsigned char *slot = field_place(s, row, col, field, &d);
    if (!slot)
        return WEIR_EINVAL;
    weir_type t = d->types[field];
    if (!weir__type_is_string(t.id) || (!str && len))
        return WEIR_EINVAL;
    if (len > t.capacity)
        return WEIR_ERANGE;
    field_present(row, col, slot, d, field, false);
    weir__val v = {.s = str ? str : "", .len = (uint32_t)len};
    const char *why;
    return weir__slot_store(slot + d->offs[field], t, &v, &why); /* its place written whole */
}

int weir_row_set_field_null(const weir_schema *s, void *row, int col, int field)
{
    const weir__nested *d;
    unsigned char *slot = field_place(s, row, col, field, &d);
    if (!slot)
        return WEIR_EINVAL;
    field_present(row, col, slot, d, field, true);
    memset(slot + d->offs[field], 0, weir__type_size(d->types[field]));
    return 0;
}
