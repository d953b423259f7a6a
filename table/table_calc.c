/* table_calc.c — the row-at-a-time table operators: streams into tables
 * (TableSource, with its WatermarkAssigner), tables into streams (the mode
 * checks, DropUpdateBefore for upsert output), and Flink's Calc: select
 * (projection) and where (filter).
 *
 * Each is an ordinary operator on weir_stream_process, chained with its
 * neighbours when the parallelism allows: a select after a where is two
 * plain calls. Per subtask an operator owns one output row and the
 * expressions' scratch, made in open(); a row costs the expression walks
 * and one emit, nothing allocated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_tree.h"
#include "table_internal.h"
#include "weir/error.h"
#include "weir/operator.h"

/* ---- TableSource: elements (rows or the user's structs) into rows ---------------- */

/* A bound struct field copied as it is into the row (a BOOLEAN, size 1, is
 * normalized to 0/1). */
typedef struct field_copy {
    uint32_t src, dst, size;
} field_copy;

typedef struct source_impl {
    weir_schema *in;  /* the user's schema (bound or not), copied */
    const weir_schema *out;
    unsigned mode;
    char mode_text[32];
    /* A bound schema without strings: its fields are copied by `copies`,
     * the record timestamp into column `meta` (or none: -1). */
    bool fixed;
    int ncopies, meta;
    field_copy *copies;
    /* The output row's columns leave no byte between them unwritten: only
     * its header needs clearing in a reused slot. */
    bool dense;
    /* Rows of the schema already (not bound), without a metadata column or
     * a rowtime of their own: checked where they are, they leave as they
     * came, a batch without a copy (weir_emit_batch). */
    bool forward;
} source_impl;

/* Whether a row of `s` is its header and its columns' bytes, no padding
 * between or after them. */
static bool row_dense(const weir_schema *s)
{
    uint64_t n = s->header_size;
    for (int c = 0; c < s->ncols; c++)
        n += s->cols[c].size;
    return n == s->row_size;
}

static void source_impl_free(void *p)
{
    source_impl *s = p;
    if (s) {
        weir_schema_destroy(s->in);
        free(s->copies);
    }
    free(s);
}

static void free_state(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static int too_long(weir_ctx *ctx, const source_impl *s, int c, size_t len)
{
    return weir_ctx_fail(ctx, WEIR_ERANGE, "table %s: column %s: a string of %zu bytes is "
                         "longer than its capacity %u", s->in->table, s->in->cols[c].name, len,
                         s->in->cols[c].type.capacity);
}

static int bad_kind(weir_ctx *ctx, const source_impl *s, weir_row_kind kind)
{
    return weir_ctx_fail(ctx, WEIR_EFORMAT, "table %s: a row of kind %s in a stream declared %s",
                         s->in->table, weir_row_kind_name(kind), s->mode_text);
}

static int null_rowtime(weir_ctx *ctx, const source_impl *s)
{
    return weir_ctx_fail(ctx, WEIR_EFORMAT, "table %s: the rowtime column %s is NULL",
                         s->in->table, s->in->cols[s->in->rowtime].name);
}

/* The row kind of a record's kind byte, or a failure for a byte that is
 * none. */
static int kind_of(weir_ctx *ctx, const source_impl *s, unsigned char byte, weir_row_kind *kind)
{
    if (byte > 3)
        return weir_ctx_fail(ctx, WEIR_EFORMAT, "table %s: row kind %u is not a row kind",
                             s->in->table, byte);
    *kind = (weir_row_kind)byte;
    return 0;
}

/* A bound struct of fixed-size fields only: the fields are copied as
 * planned into the output's next slot, built in place (no row of its own
 * copied again by the emit). The slot holds whatever was there before:
 * the header is cleared, and the whole row when the copies leave gaps
 * (source_impl.dense). */
static int fixed_record(weir_ctx *ctx, const source_impl *s, const unsigned char *e, int64_t ts)
{
    const weir_schema *in = s->in;
    weir_row_kind kind = WEIR_ROW_INSERT;
    if (in->kind_off >= 0) {
        int r = kind_of(ctx, s, e[in->kind_off], &kind);
        if (r)
            return r;
    }
    if (!(s->mode & WEIR_CHANGELOG_KIND(kind)))
        return bad_kind(ctx, s, kind);
    /* The rowtime from where it came from (a field is never NULL; the
     * metadata column is NULL without a record timestamp). */
    int64_t rowtime = ts;
    if (in->rowtime >= 0 && in->rowtime != s->meta)
        memcpy(&rowtime, e + in->cols[in->rowtime].bound_off, 8);
    else if (in->rowtime >= 0 && ts == WEIR_NO_TIMESTAMP)
        return null_rowtime(ctx, s);
    unsigned char *row = weir_emit_reserve(ctx);
    if (!row)
        return weir_ctx_error(ctx);
    if (s->dense && s->out->header_size == 8)
        memset(row, 0, 8);
    else
        memset(row, 0, s->dense ? s->out->header_size : s->out->row_size);
    weir_row_set_kind(row, kind);
    for (int i = 0; i < s->ncopies; i++) {
        const field_copy *f = &s->copies[i];
        if (f->size == 8)
            memcpy(row + f->dst, e + f->src, 8);
        else if (f->size == 4)
            memcpy(row + f->dst, e + f->src, 4);
        else
            row[f->dst] = e[f->src] != 0;
    }
    if (s->meta >= 0) {
        unsigned char *dst = row + s->out->cols[s->meta].offset;
        if (ts == WEIR_NO_TIMESTAMP) {
            memset(dst, 0, 8);
            weir__row_set_null_bit(row, s->meta, true);
        } else {
            memcpy(dst, &ts, 8);
        }
    }
    return weir_emit_commit(ctx, rowtime);
}

/* A bound struct with strings: each column into the row. The row was
 * zeroed: every column is non-NULL with zero bytes, and the fixed-size
 * fields are copied into place as they are (the row's layout is the C
 * types'); only strings and a missing record timestamp take the general
 * path. */
static int fill_from_struct(weir_ctx *ctx, const source_impl *s, const unsigned char *e, int64_t ts,
                            unsigned char *row, weir_row_kind *kind)
{
    const weir_schema *in = s->in;
    memset(row, 0, s->out->row_size);
    *kind = WEIR_ROW_INSERT;
    if (in->kind_off >= 0) {
        int r = kind_of(ctx, s, e[in->kind_off], kind);
        if (r)
            return r;
    }
    weir_row_set_kind(row, *kind);
    for (int c = 0; c < in->ncols; c++) {
        const weir__col *col = &in->cols[c];
        unsigned char *dst = row + s->out->cols[c].offset;
        weir__val v = {0};
        if (col->metadata) {
            if (ts != WEIR_NO_TIMESTAMP) {
                memcpy(dst, &ts, 8);
                continue;
            }
            v.null = true;
        } else {
            const unsigned char *f = e + col->bound_off;
            switch (col->type.id) {
            case WEIR_TYPE_BOOLEAN: *dst = f[0] != 0; continue;
            case WEIR_TYPE_VARCHAR:
            case WEIR_TYPE_CHAR: {
                const char *str = (const char *)f;
                const char *z = memchr(str, 0, col->bound_size);
                size_t len = z ? (size_t)(z - str) : col->bound_size;
                if (len > col->type.capacity)
                    return too_long(ctx, s, c, len);
                v.s = str;
                v.len = (uint32_t)len;
                break;
            }
            default:
                /* a field holds the column's own bytes (weir_schema_column_at) */
                memcpy(dst, f, s->out->cols[c].size);
                continue;
            }
        }
        weir__store_value(s->out, row, c, &v);
    }
    return 0;
}

/* Whether the row's strings (not its metadata column's) fit their
 * capacities: 0, or the failure naming the column. */
static int check_strings(weir_ctx *ctx, const source_impl *s, const unsigned char *row)
{
    const weir_schema *in = s->in;
    for (int c = 0; c < in->ncols; c++) {
        const weir__col *col = &in->cols[c];
        if (!col->metadata && weir__type_is_string(col->type.id)) {
            uint32_t len;
            memcpy(&len, row + col->offset, 4);
            if (len > col->type.capacity)
                return too_long(ctx, s, c, len);
        }
    }
    return 0;
}

/* A record that is already a row of the table's schema: copied, checked,
 * and its metadata column filled in. */
static int fill_from_row(weir_ctx *ctx, const source_impl *s, const unsigned char *e, int64_t ts,
                         unsigned char *row, weir_row_kind *kind)
{
    const weir_schema *in = s->in;
    memcpy(row, e, s->out->row_size);
    int r = kind_of(ctx, s, row[0], kind);
    if (r)
        return r;
    for (int c = 0; c < in->ncols; c++) {
        if (in->cols[c].metadata) {
            weir__val v = {.i = ts, .null = ts == WEIR_NO_TIMESTAMP};
            weir__store_value(s->out, row, c, &v);
        }
    }
    return check_strings(ctx, s, row);
}

static int source_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const source_impl *s = weir_ctx_impl(ctx);
    if (s->fixed)
        return fixed_record(ctx, s, elem, ts);
    const weir_schema *in = s->in;
    /* Built in the output's next slot, sent only if it is whole and right
     * (no row of its own copied again by the emit). */
    unsigned char *row = weir_emit_reserve(ctx);
    if (!row)
        return weir_ctx_error(ctx);
    weir_row_kind kind = WEIR_ROW_INSERT;
    int r = in->bound ? fill_from_struct(ctx, s, elem, ts, row, &kind)
                      : fill_from_row(ctx, s, elem, ts, row, &kind);
    if (r)
        return r;
    if (!(s->mode & WEIR_CHANGELOG_KIND(kind)))
        return bad_kind(ctx, s, kind);
    if (in->rowtime >= 0) {
        if (weir__row_null(s->out, row, in->rowtime))
            return null_rowtime(ctx, s);
        memcpy(&ts, row + s->out->cols[in->rowtime].offset, 8);
    }
    return weir_emit_commit(ctx, ts);
}

/* A row of the schema checked where it is: its kind, and its strings'
 * lengths (source_impl.forward). */
static int check_row(weir_ctx *ctx, const source_impl *s, const unsigned char *e)
{
    weir_row_kind kind = WEIR_ROW_INSERT;
    int r = kind_of(ctx, s, e[0], &kind);
    if (r)
        return r;
    if (!(s->mode & WEIR_CHANGELOG_KIND(kind)))
        return bad_kind(ctx, s, kind);
    return check_strings(ctx, s, e);
}

/* A run of records (the source's input is never keyed): the fixed plan's
 * loop without a call into the runtime for each. */
static int source_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    const source_impl *s = weir_ctx_impl(ctx);
    if (s->forward) {
        for (uint32_t i = 0; i < b->count; i++) {
            int r = check_row(ctx, s, weir_batch_elem(b, i));
            if (r)
                return r;
        }
        return weir_emit_batch(ctx, input, b);
    }
    for (uint32_t i = 0; i < b->count; i++) {
        const void *e = weir_batch_elem(b, i);
        int64_t ts = weir_batch_ts(b, i);
        int r = s->fixed ? fixed_record(ctx, s, e, ts) : source_record(ctx, input, e, ts);
        if (r)
            return r;
    }
    return 0;
}

static const weir_operator_vtable source_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = source_record,
    .on_batch = source_batch,
};

/* ---- the watermark of a WATERMARK FOR col AS expr declaration -------------------- */

typedef struct wm_impl {
    weir_expr *expr;
    bool on_event;
} wm_impl;

/* One generator instance (a subtask's of the assigner, a partition's of a
 * source): the largest value of the expression over its rows. */
typedef struct wm_gen {
    const weir_expr *expr;
    bool on_event;
    int64_t max;
    /* The usual strategies, `ts` and `ts - INTERVAL '...'`, read without the
     * interpreter: the column's offset and null bit, and the interval's
     * milliseconds added (wrapping, as the evaluator's timestamp arithmetic
     * does); col -1: the expression is evaluated. */
    int col;
    uint32_t off;
    int64_t delta;
    unsigned char scratch[];
} wm_gen;

/* Whether the expression is a TIMESTAMP(p <= 3) column, alone or plus or
 * minus a day-time interval literal: its column, offset and delta. */
static bool wm_simple(const weir_expr *expr, int *col, uint32_t *off, int64_t *delta)
{
    const weir__enode *n = expr->root, *c = n;
    *delta = 0;
    if (n->op == OP_ADD || n->op == OP_SUB) {
        const weir__enode *lit = n->b;
        if (lit->op != OP_LIT || lit->lit.null || lit->type.id != WEIR_TYPE_INTERVAL)
            return false;
        *delta = n->op == OP_SUB ? (int64_t)(0 - (uint64_t)lit->lit.i) : lit->lit.i;
        c = n->a;
    }
    bool ts = c->type.id == WEIR_TYPE_TIMESTAMP || c->type.id == WEIR_TYPE_TIMESTAMP_LTZ;
    if (c->op != OP_COL || !ts || weir_type_precision(c->type) > 3 || c->type.id != n->type.id)
        return false;
    *col = c->col;
    *off = c->off;
    return true;
}

static int wm_gen_make(const weir_expr *expr, bool on_event, void **gen)
{
    wm_gen *g = calloc(1, sizeof *g + expr->scratch + 8);
    if (!g)
        return WEIR_ENOMEM;
    g->expr = expr;
    if (!wm_simple(expr, &g->col, &g->off, &g->delta))
        g->col = -1;
    g->on_event = on_event;
    g->max = WEIR_TS_MIN;
    *gen = g;
    return 0;
}

static int wm_create(void *arg, void **gen)
{
    const wm_impl *w = arg;
    return wm_gen_make(w->expr, w->on_event, gen);
}

/* A source's instance (weir_schema_watermark_strategy): the schema's own
 * compiled expression, over the rows the source emits. */
static int wm_source_create(void *arg, void **gen)
{
    const weir_schema *s = arg;
    return wm_gen_make(s->wm_compiled, s->wm_on_event, gen);
}

static void wm_event(void *gen, const void *elem, int64_t ts, weir_watermark_output *out)
{
    (void)ts;
    wm_gen *g = gen;
    weir__val v;
    const char *why;
    if (g->col >= 0) {
        const unsigned char *row = elem;
        v.null = weir__row_null(NULL, row, g->col);
        memcpy(&v.i, row + g->off, 8);
        v.i = (int64_t)((uint64_t)v.i + (uint64_t)g->delta);
    } else if (weir__expr_eval(g->expr, elem, g->scratch, &v, &why)) {
        /* The expression was typed as a time at plan time; a failing one
         * (it cannot divide) proposes nothing. */
        return;
    }
    if (!v.null && v.i > g->max) {
        g->max = v.i;
        if (g->on_event)
            weir_watermark_output_emit(out, g->max);
    }
}

static void wm_periodic(void *gen, weir_watermark_output *out)
{
    wm_gen *g = gen;
    if (g->max > WEIR_TS_MIN)
        weir_watermark_output_emit(out, g->max);
}

/* wm_periodic proposes the largest value seen, nothing else: a probe with
 * no row since the last one changes nothing, so the timestamps operator may
 * skip it (a paced or waiting source's virtual clock jumps to its next row). */
static const weir_watermark_generator_vtable wm_vtable = {
    .version = WEIR_WATERMARK_GENERATOR_V2,
    .create = wm_create,
    .on_event = wm_event,
    .on_periodic = wm_periodic,
    .destroy = free,
    .flags = WEIR_WATERMARK_PERIODIC_FROM_EVENTS,
};

static const weir_watermark_generator_vtable wm_source_vtable = {
    .version = WEIR_WATERMARK_GENERATOR_V2,
    .create = wm_source_create,
    .on_event = wm_event,
    .on_periodic = wm_periodic,
    .destroy = free,
    .flags = WEIR_WATERMARK_PERIODIC_FROM_EVENTS,
};

int weir_schema_watermark_strategy(const weir_schema *s, weir_watermark_strategy *out)
{
    if (!s || !out || !s->wm_in_source || !s->wm_compiled)
        return WEIR_EINVAL;
    *out = weir_watermarks_with_idleness(
        weir_watermarks_custom(&wm_source_vtable, (void *)(uintptr_t)s), s->wm_idle_ms);
    return 0;
}

static void wm_impl_free(void *p)
{
    wm_impl *w = p;
    if (w)
        weir_expr_destroy(w->expr);
    free(w);
}

/* Whether a source may not read `s` with `schema` in `mode` (the failure
 * is set on env). */
static bool source_refused(weir_table_env *env, weir_stream *s, const weir_schema *schema,
                                  unsigned mode, const char *what)
{
    if (!schema) {
        weir__table_fail(env, WEIR_EINVAL, "%s: a schema is required", what);
        return true;
    }
    if (mode != WEIR_CHANGELOG_INSERT_ONLY && mode != WEIR_CHANGELOG_UPSERT &&
        mode != WEIR_CHANGELOG_ALL) {
        weir__table_fail(env, WEIR_EINVAL, "%s: table %s: the mode must be insert-only, "
                         "upsert or all", what, schema->table);
        return true;
    }
    if (mode == WEIR_CHANGELOG_UPSERT && schema->npk == 0) {
        weir__table_fail(env, WEIR_EINVAL, "%s: table %s: an upsert changelog needs a "
                         "primary key", what, schema->table);
        return true;
    }
    if (weir_stream_elem_size(s) != weir_schema_elem_size(schema)) {
        weir__table_fail(env, WEIR_ETYPE, "%s: table %s: the stream's elements are %zu "
                         "bytes, the schema reads %zu", what, schema->table,
                         weir_stream_elem_size(s), weir_schema_elem_size(schema));
        return true;
    }
    return false;
}

/* The source's view of the user's schema: the copy keeps the layout, and
 * takes the user's binding (the struct's offsets, the kind field, the
 * metadata column) over; a bound struct of fixed-size fields gets its plan
 * of field copies (source_impl.fixed). 0 or WEIR_ENOMEM. */
static int source_plan(source_impl *impl, const weir_schema *schema, const weir_schema *out)
{
    weir_schema *in = impl->in;
    in->bound = schema->bound;
    in->struct_size = schema->struct_size;
    in->kind_off = schema->kind_off;
    in->rowtime = schema->rowtime;
    for (int c = 0; c < schema->ncols; c++) {
        in->cols[c].bound_off = schema->cols[c].bound_off;
        in->cols[c].bound_size = schema->cols[c].bound_size;
        in->cols[c].metadata = schema->cols[c].metadata;
    }
    impl->out = out;
    impl->meta = -1;
    impl->fixed = in->bound;
    impl->dense = row_dense(out);
    impl->forward = !in->bound && in->rowtime < 0 && in->row_size == out->row_size;
    for (int c = 0; c < in->ncols; c++)
        impl->forward &= !in->cols[c].metadata;
    if (in->bound && !(impl->copies = calloc((size_t)in->ncols + 1, sizeof *impl->copies)))
        return WEIR_ENOMEM;
    for (int c = 0; impl->fixed && c < in->ncols; c++) {
        const weir__col *col = &in->cols[c];
        if (col->metadata) {
            impl->meta = c;
        } else if (weir__type_is_string(col->type.id)) {
            impl->fixed = false;
        } else {
            uint32_t size = weir__type_size(col->type);
            impl->copies[impl->ncopies++] = (field_copy){(uint32_t)col->bound_off,
                                                         out->cols[c].offset, size};
        }
    }
    return 0;
}

/* The schema's WATERMARK clause after the source: a WatermarkAssigner
 * node running the compiled expression as a custom watermark strategy. */
static weir_table *add_watermark_assigner(weir_table_env *env, weir_table *t,
                                          const weir_schema *schema, const char *what)
{
    wm_impl *w = calloc(1, sizeof *w);
    char err[256];
    if (!w)
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    weir_table *wt = weir__table_node(env, t, "WatermarkAssigner(rowtime=[%s], watermark=[%s])",
                                      schema->cols[schema->rowtime].name, schema->watermark);
    if (!wt) {
        free(w);
        return NULL;
    }
    wt->impl = w;
    wt->impl_free = wm_impl_free;
    int r = weir_expr_compile(schema->watermark, t->schema, &w->expr, err, sizeof err);
    if (r)
        return weir__table_fail(env, r, "%s: table %s: watermark: %s", what, schema->table, err);
    wt->schema = weir__schema_copy(t->schema, schema->table);
    if (!wt->schema || weir__table_set_unique_key(wt, t->ukey, t->nukey))
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    wt->mode = t->mode;
    wt->rowtime = t->rowtime;
    wt->proctime = t->proctime;
    w->on_event = schema->wm_on_event;
    weir_timestamps_spec ts = {
        .extract = NULL, /* the TableSource set the rowtime as the timestamp */
        .strategy = weir_watermarks_custom(&wm_vtable, w),
    };
    /* `rowtime - INTERVAL 'd'` (d > 0), proposed periodically, is the
     * bounded strategy's max - (d - 1) - 1 over the records' timestamps,
     * which are the rowtime here: the timestamps operator then forwards
     * whole batches and takes their largest time in one loop, instead of a
     * generator call a row. */
    int wcol;
    uint32_t woff;
    int64_t delta;
    if (!w->on_event && wm_simple(w->expr, &wcol, &woff, &delta) && wcol == t->rowtime &&
        delta < 0 && delta > WEIR_TS_MIN) {
        ts.strategy.kind = WEIR_WATERMARKS_BOUNDED;
        ts.strategy.bound_ms = -delta - 1;
        ts.strategy.custom = NULL;
        ts.strategy.arg = NULL;
    }
    ts.strategy.idleness_ms = schema->wm_idle_ms ? schema->wm_idle_ms
                                                 : env->config.source_idle_timeout_ms;
    wt->stream = weir_stream_set_name(weir_stream_assign_timestamps(t->stream, &ts), wt->name);
    return wt->stream ? wt : NULL;
}

static weir_table *make_source(weir_table_env *env, weir_stream *s, const weir_schema *schema,
                               unsigned mode, const char *what)
{
    if (!env || !s)
        return NULL;
    if (source_refused(env, s, schema, mode, what))
        return NULL;
    /* a watermark the source runs shows on the source, as Flink's plan
     * shows a pushed-down one in its TableSourceScan */
    weir_table *t = schema->wm_in_source
                        ? weir__table_node(env, NULL, "TableSource(%s, watermark=[%s])",
                                           schema->table, schema->watermark)
                        : weir__table_node(env, NULL, "TableSource(%s)", schema->table);
    if (!t)
        return NULL;
    source_impl *impl = calloc(1, sizeof *impl);
    t->impl = impl;
    t->impl_free = source_impl_free;
    if (impl)
        impl->in = weir__schema_copy(schema, schema->table);
    t->schema = impl ? weir__schema_copy(schema, schema->table) : NULL;
    if (!impl || !impl->in || !t->schema || source_plan(impl, schema, t->schema))
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    impl->mode = mode;
    weir_changelog_mode_format(mode, impl->mode_text, sizeof impl->mode_text);
    t->mode = mode;
    t->rowtime = schema->rowtime;
    if (weir__table_set_unique_key(t, schema->pk, schema->npk))
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    weir_process_spec spec = {
        .name = t->name,
        .kind = "table_source",
        .vtable = &source_vtable,
        .impl = impl,
        .out_size = t->schema->row_size,
        .parallelism = WEIR_PARALLELISM_INHERIT,
        .accounting = WEIR_ACCOUNTING_ONE_TO_ONE,
        .settings_json = weir__table_settings(t, NULL),
    };
    t->stream = weir_stream_process(s, &spec);
    if (t->stream && schema->watermark && !schema->wm_in_source)
        return add_watermark_assigner(env, t, schema, what);
    return t->stream ? t : NULL;
}

weir_table *weir_table_from_stream(weir_table_env *env, weir_stream *s, const weir_schema *schema)
{
    return make_source(env, s, schema, WEIR_CHANGELOG_INSERT_ONLY, "weir_table_from_stream");
}

weir_table *weir_table_from_changelog_stream(weir_table_env *env, weir_stream *s,
                                             const weir_schema *schema, unsigned mode)
{
    return make_source(env, s, schema, mode ? mode : WEIR_CHANGELOG_ALL,
                       "weir_table_from_changelog_stream");
}

/* ---- tables into streams ----------------------------------------------------------- */

void *weir__table_refuse_updates(weir_table *t, const char *what)
{
    char mode[32];
    weir_changelog_mode_format(t->mode, mode, sizeof mode);
    return weir__table_fail(t->env, WEIR_EINVAL, "%s: the table %s emits %s: an insert-only "
                            "stream doesn't support consuming update changes which is produced "
                            "by node %s", what, t->name, mode,
                            weir__table_update_producer(t)->name);
}

weir_stream *weir_table_to_stream(weir_table *t)
{
    if (!t)
        return NULL;
    if (t->mode != WEIR_CHANGELOG_INSERT_ONLY)
        return weir__table_refuse_updates(t, "weir_table_to_stream");
    return t->stream;
}

static int drop_ub_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    if (weir_row_get_kind(elem) == WEIR_ROW_UPDATE_BEFORE) {
        weir_ctx_count(ctx, WEIR_COUNTER_FILTERED, 1);
        return 0;
    }
    return weir_emit(ctx, elem, ts);
}

static const weir_operator_vtable drop_ub_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = drop_ub_record,
};

weir_stream *weir_table_to_changelog_stream(weir_table *t, unsigned mode)
{
    if (!t)
        return NULL;
    if (mode == 0)
        return t->stream;
    if (mode == WEIR_CHANGELOG_ALL) {
        weir_table *n = weir_table_normalize(t);
        return n ? n->stream : NULL;
    }
    if (mode == WEIR_CHANGELOG_INSERT_ONLY) {
        if (t->mode != WEIR_CHANGELOG_INSERT_ONLY)
            return weir__table_refuse_updates(t, "weir_table_to_changelog_stream(insert-only)");
        return t->stream;
    }
    if (mode != WEIR_CHANGELOG_UPSERT)
        return weir__table_fail(t->env, WEIR_EINVAL, "weir_table_to_changelog_stream: the mode "
                                "must be all, upsert or insert-only");
    if (t->mode == WEIR_CHANGELOG_INSERT_ONLY)
        return t->stream;
    if (t->nukey == 0)
        return weir__table_fail(t->env, WEIR_EINVAL, "weir_table_to_changelog_stream(upsert): "
                                "the table %s has no unique key (a primary key, or the keys of "
                                "a group aggregate)", t->name);
    weir_table *d = weir__table_node(t->env, t, "DropUpdateBefore");
    if (!d)
        return NULL;
    d->schema = weir__schema_copy(t->schema, t->schema->table);
    if (!d->schema)
        return weir__table_fail(t->env, WEIR_ENOMEM, "out of memory");
    d->mode = t->mode & ~WEIR_CHANGELOG_KIND(WEIR_ROW_UPDATE_BEFORE);
    weir_process_spec spec = {
        .name = d->name,
        .kind = "table_drop_update_before",
        .vtable = &drop_ub_vtable,
        .out_size = t->schema->row_size,
        .parallelism = WEIR_PARALLELISM_INHERIT,
        .accounting = WEIR_ACCOUNTING_ONE_TO_ONE,
        .settings_json = weir__table_settings(d, NULL),
    };
    d->stream = weir_stream_process(t->stream, &spec);
    return d->stream;
}

/* ---- Calc: select and where ------------------------------------------------------------ */

typedef struct calc_impl {
    weir_expr **items; /* select: one per output column; NULL for where */
    int nitems;
    weir_expr *pred;   /* where; with items, a filter before the projection (one Calc) */
    uint32_t pred_at;  /* with items: the predicate's region of the scratch */
    const weir_schema *out;
    /* Each item's own region of the scratch (a call that keeps state from
     * row to row, RAND's generator, keeps it there), and their sum. */
    uint32_t *scratch_at;
    uint32_t scratch;
    bool virtual_clock; /* the job's clock: what CURRENT_TIMESTAMP reads */
    const char *name;
    /* A computed rowtime (weir_table_computed_columns): this output
     * column's value is the row's timestamp; -1: the input's stays. */
    int ts_col;
    bool at_source; /* computed columns: at the source's parallelism */
    /* select: the output column whose value becomes the records' timestamp
     * (a second time attribute kept where the rowtime was dropped), -1: the
     * input's timestamps stay */
    int stamp;
    /* select: an item that is a bare input column of the same type (or a
     * ROW column's field) is copied as its value is stored, without the
     * interpreter; all_copied: every item is a bare column, so nothing
     * else in the output row needs clearing. The plan: the copies (input
     * column and offset, output column and offset, size), then the items
     * evaluated. */
    bool all_copied;
    struct calc_copy {
        uint32_t src, dst, size;
        int src_col, dst_col;
        /* a ROW column's field (`r.f`): its index (its null bit in the
         * ROW's value at `base`), -1 for a column; `var`: a string, whose
         * length says how many bytes to copy */
        int field;
        uint32_t base;
        bool var;
    } *copies;
    int ncopies, *evals, nevals;
    /* Per evaluated item (as evals): an integer expression of columns and
     * literals evaluated in place (n 0: by the interpreter). */
    weir__int_calc *int_calcs;
    /* A predicate that is integer comparisons of a column with a literal,
     * ANDed (`event_type = 2 AND category = 10`): compared in place,
     * without the interpreter (n 0: the interpreter decides). */
    weir__int_tests tests;
} calc_impl;

/* Whether a value of type `t` stored in `size` bytes is stored as column
 * `to` stores its values (the same bytes mean the same value). */
static bool stored_alike(weir_type t, uint32_t size, const weir__col *to)
{
    return t.id == to->type.id && size == to->size && t.capacity == to->type.capacity &&
           t.precision == to->type.precision && t.scale == to->type.scale;
}

static void calc_impl_free(void *p)
{
    calc_impl *c = p;
    if (!c)
        return;
    for (int i = 0; i < c->nitems; i++)
        weir_expr_destroy(c->items[i]);
    free(c->items);
    free(c->scratch_at);
    free(c->copies);
    free(c->evals);
    free(c->int_calcs);
    weir_expr_destroy(c->pred);
    free(c);
}

/* Per subtask: the output row, then the scratch. */
static int calc_open(weir_ctx *ctx)
{
    const calc_impl *c = weir_ctx_impl(ctx);
    size_t row = c->out ? c->out->row_size : 0;
    unsigned char *st = calloc(1, row + c->scratch + 8);
    if (!st)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, st);
    return 0;
}

/* A select's row, built in the output's next slot (no row of its own
 * copied again by the emit). The slot holds whatever was there before: the
 * header is cleared, and the whole row unless every item is a column
 * copied whole into a row without gaps (calc_impl.all_copied). */
static int select_record(weir_ctx *ctx, const calc_impl *c, unsigned char *scratch,
                         const unsigned char *in, int64_t ts)
{
    const char *why = NULL;
    weir__val v;
    int64_t now = 0;
    unsigned char *row = weir_emit_reserve(ctx);
    if (!row)
        return weir_ctx_error(ctx);
    if (c->all_copied && c->out->header_size == 8)
        memset(row, 0, 8);
    else
        memset(row, 0, c->all_copied ? c->out->header_size : c->out->row_size);
    row[0] = in[0];
    for (int k = 0; k < c->ncopies; k++) {
        const struct calc_copy *cp = &c->copies[k];
        if (cp->field >= 0) {
            /* the row was cleared: a NULL sets its bit, a string copies
             * its length and bytes */
            if (weir__row_null(NULL, in, cp->src_col) ||
                weir__bit(in + cp->base, (uint32_t)cp->field)) {
                weir__row_set_null_bit(row, cp->dst_col, true);
            } else if (cp->var) {
                uint32_t len;
                memcpy(&len, in + cp->src, 4);
                memcpy(row + cp->dst, in + cp->src, 4 + (len < cp->size - 4 ? len : cp->size - 4));
            } else {
                memcpy(row + cp->dst, in + cp->src, cp->size);
            }
        } else if (weir__row_null(NULL, in, cp->src_col)) {
            weir__row_set_null_bit(row, cp->dst_col, true);
            memset(row + cp->dst, 0, cp->size);
        } else if (cp->size == 8) {
            memcpy(row + cp->dst, in + cp->src, 8);
        } else {
            memcpy(row + cp->dst, in + cp->src, cp->size);
        }
    }
    bool timed = false;
    for (int k = 0; k < c->nevals; k++) {
        int i = c->evals[k];
        if (c->items[i]->clock_slot >= 0 && !timed) {
            now = weir__table_now(ctx, c->virtual_clock); /* once a row */
            timed = true;
        }
        int r = c->int_calcs[k].n
                    ? weir__int_calc_eval(&c->int_calcs[k], in, &v, &why)
                    : weir__expr_eval_now(c->items[i], in, scratch + c->scratch_at[i], now, &v,
                                          &why);
        if (r)
            return weir_ctx_fail(ctx, r, "%s: %s in '%s'", c->name, why, c->items[i]->text);
        if (weir__store_value(c->out, row, i, &v))
            return weir_ctx_fail(ctx, WEIR_ERANGE, "%s: column %s: a string of %u bytes is "
                                 "longer than its capacity %u", c->name, c->out->cols[i].name,
                                 v.len, c->out->cols[i].type.capacity);
    }
    if (c->ts_col >= 0) {
        if (weir__row_null(c->out, row, c->ts_col))
            return weir_ctx_fail(ctx, WEIR_EFORMAT, "%s: the rowtime column %s is NULL",
                                 c->name, c->out->cols[c->ts_col].name);
        memcpy(&ts, row + c->out->cols[c->ts_col].offset, 8);
    }
    if (c->stamp >= 0 && !weir__row_null(c->out, row, c->stamp))
        memcpy(&ts, row + c->out->cols[c->stamp].offset, 8);
    return weir_emit_commit(ctx, ts);
}

/* Whether the predicate keeps the row: 1, 0 (counted as filtered), or
 * the failure. */
static int keeps(weir_ctx *ctx, const calc_impl *c, unsigned char *scratch, const void *elem)
{
    if (c->tests.n) {
        if (weir__int_tests_hold(&c->tests, elem))
            return 1;
        weir_ctx_count(ctx, WEIR_COUNTER_FILTERED, 1);
        return 0;
    }
    const char *why = NULL;
    weir__val v;
    int64_t now = c->pred->clock_slot >= 0 ? weir__table_now(ctx, c->virtual_clock) : 0;
    int r = weir__expr_eval_now(c->pred, elem, scratch, now, &v, &why);
    if (r)
        return weir_ctx_fail(ctx, r, "%s: %s in '%s'", c->name, why, c->pred->text);
    if (v.null || !v.i) {
        weir_ctx_count(ctx, WEIR_COUNTER_FILTERED, 1);
        return 0;
    }
    return 1;
}

static int where_record(weir_ctx *ctx, const calc_impl *c, unsigned char *scratch,
                        const void *elem, int64_t ts)
{
    int r = keeps(ctx, c, scratch, elem);
    return r <= 0 ? r : weir_emit(ctx, elem, ts);
}

/* One row through the Calc: filtered, projected, or both (the row the
 * filter keeps projected without a copy of its own in between). */
static int calc_one(weir_ctx *ctx, const calc_impl *c, unsigned char *st, const void *elem,
                    int64_t ts)
{
    if (!c->items)
        return where_record(ctx, c, st, elem, ts);
    unsigned char *scratch = st + c->out->row_size;
    if (c->pred) {
        int r = keeps(ctx, c, scratch + c->pred_at, elem);
        if (r <= 0)
            return r;
    }
    return select_record(ctx, c, scratch, elem, ts);
}

static int calc_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    return calc_one(ctx, weir_ctx_impl(ctx), weir_ctx_state(ctx), elem, ts);
}

/* A run of records on an input that is not keyed: the same, without a
 * call into the runtime for each. */
static int calc_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    (void)input;
    const calc_impl *c = weir_ctx_impl(ctx);
    unsigned char *st = weir_ctx_state(ctx);
    for (uint32_t i = 0; i < b->count; i++) {
        const void *e = weir_batch_elem(b, i);
        int64_t ts = weir_batch_ts(b, i);
        int r = calc_one(ctx, c, st, e, ts);
        if (r)
            return r;
    }
    return 0;
}

static const weir_operator_vtable calc_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = calc_open,
    .on_record = calc_record,
    .close = free_state,
    .on_batch = calc_batch,
};


static weir_table *plan_calc(weir_table *t, calc_impl *impl, const char *what)
{
    weir_table_env *env = t->input->env;
    if (impl->pred)
        weir__int_tests_plan(impl->pred, &impl->tests);
    weir_process_spec spec = {
        .name = t->name,
        .kind = !impl->items ? "table_where" : impl->pred ? "table_calc" : "table_select",
        .vtable = &calc_vtable,
        .impl = impl,
        .out_size = t->schema->row_size,
        /* the Calc of computed columns stays with its source (chained to
         * it, its partitions' watermarks assigned where they are read) */
        .parallelism = env->config.parallelism && !impl->at_source ? env->config.parallelism
                                                                   : WEIR_PARALLELISM_INHERIT,
        .accounting = WEIR_ACCOUNTING_ONE_TO_ONE,
        .settings_json = weir__table_settings(t, NULL),
    };
    (void)what;
    t->stream = weir_stream_process(t->input->stream, &spec);
    return t->stream ? t : NULL;
}

/* The shown text of select items (a node's name): each item's text, and
 * " AS `alias`" when the alias is not already in it. NULL when out of
 * memory; the caller frees it. */
char *weir__items_text(weir_expr *const *items, int n)
{
    size_t len = 0;
    for (int pass = 0; pass < 2; pass++) {
        char *buf = pass ? malloc(len + 1) : NULL;
        if (pass && !buf)
            return NULL;
        size_t k = 0, size = pass ? len + 1 : 0;
        for (int i = 0; i < n; i++) {
            weir__append(buf, size, &k, "%s%s", i ? ", " : "", items[i]->text);
            if (items[i]->alias && items[i]->alias_shown)
                weir__append_name(buf, size, &k, " AS ", items[i]->alias);
        }
        if (pass)
            return buf;
        len = k;
    }
    return NULL;
}

static weir_table *where_core(weir_table *in, weir_expr *pred, const char *what)
{
    weir_table_env *env = in->env;
    weir_table *t = weir__table_node(env, in, "Calc(where=[%s])", pred->text);
    calc_impl *impl = t ? calloc(1, sizeof *impl) : NULL;
    if (!impl) {
        weir_expr_destroy(pred);
        return t ? weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what) : NULL;
    }
    impl->pred = pred;
    impl->ts_col = -1;
    impl->stamp = -1;
    t->impl = impl;
    t->impl_free = calc_impl_free;
    weir_type ty = weir_expr_type(impl->pred);
    if (ty.id != WEIR_TYPE_BOOLEAN) {
        char tn[48];
        weir_type_format(ty, tn, sizeof tn);
        return weir__table_fail(env, WEIR_EINVAL, "%s: '%s' is %s, not BOOLEAN", what,
                                pred->text, tn);
    }
    impl->scratch = impl->pred->scratch;
    impl->virtual_clock = weir_job_get_config(env->job)->clock == WEIR_CLOCK_VIRTUAL;
    impl->name = t->name;
    t->schema = weir__schema_copy(in->schema, in->schema->table);
    if (!t->schema)
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    t->mode = in->mode;
    t->rowtime = in->rowtime;
    t->proctime = in->proctime;
    t->rowtime2 = in->rowtime2;
    t->windowed = in->windowed;
    t->window = in->window;
    t->wstart = in->wstart;
    t->wend = in->wend;
    if (weir__table_set_unique_key(t, in->ukey, in->nukey))
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    return plan_calc(t, impl, what);
}

weir_table *weir_table_where_expr(weir_table *in, weir_expr *predicate)
{
    if (!in) {
        weir_expr_destroy(predicate);
        return NULL;
    }
    if (!predicate)
        return weir__table_fail(in->env, WEIR_EINVAL, "weir_table_where_expr: a predicate is "
                                                      "required");
    return where_core(in, predicate, "weir_table_where_expr");
}

weir_table *weir_table_where(weir_table *in, const char *predicate)
{
    if (!in)
        return NULL;
    weir_table_env *env = in->env;
    if (!predicate)
        return weir__table_fail(env, WEIR_EINVAL, "weir_table_where: a predicate is required");
    weir_expr *pred;
    char err[300];
    int r = weir__expr_compile_in(predicate, in->schema, -1, env->config.time_zone, &pred, err,
                                  sizeof err);
    if (r)
        return weir__table_fail(env, r, "weir_table_where: %s", err);
    return where_core(in, pred, "weir_table_where");
}

/* A projection of the n items (taken over), shown as `shown`, of the rows
 * `pred` (taken over; NULL: every row) keeps. */
static weir_table *select_core(weir_table *in, weir_expr *pred, weir_expr **items, int n,
                               const char *shown, const char *what, bool at_source)
{
    weir_table_env *env = in->env;
    weir_table *t = pred ? weir__table_node(env, in, "Calc(select=[%s], where=[%s])", shown,
                                            pred->text)
                         : weir__table_node(env, in, "Calc(select=[%s])", shown);
    calc_impl *impl = t ? calloc(1, sizeof *impl) : NULL;
    if (impl) {
        impl->items = malloc((size_t)n * sizeof *impl->items);
        impl->scratch_at = calloc((size_t)n, sizeof *impl->scratch_at);
    }
    if (!impl || !impl->items || !impl->scratch_at) {
        for (int i = 0; i < n; i++)
            weir_expr_destroy(items[i]);
        weir_expr_destroy(pred);
        if (impl) {
            free(impl->items);
            free(impl->scratch_at);
        }
        free(impl);
        return t ? weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what) : NULL;
    }
    memcpy(impl->items, items, (size_t)n * sizeof *items);
    impl->nitems = n;
    impl->pred = pred;
    impl->ts_col = -1;
    impl->stamp = -1;
    impl->at_source = at_source;
    t->impl = impl;
    t->impl_free = calc_impl_free;
    weir__item_names nm = {.n = 0};
    weir_type types[WEIR__LIST_MAX];
    for (int i = 0; i < n; i++) {
        if (!weir__item_name(env, what, &nm, impl->items[i]))
            return NULL;
        types[i] = weir_expr_type(impl->items[i]);
        impl->scratch_at[i] = impl->scratch;
        uint64_t end = (uint64_t)impl->scratch + ((impl->items[i]->scratch + 7u) & ~7u);
        if (end > UINT32_MAX / 2)
            return weir__table_fail(env, WEIR_EINVAL, "%s: the expressions need too much "
                                    "scratch memory", what);
        impl->scratch = (uint32_t)end;
    }
    if (pred) {
        weir_type ty = weir_expr_type(pred);
        if (ty.id != WEIR_TYPE_BOOLEAN) {
            char tn[48];
            weir_type_format(ty, tn, sizeof tn);
            return weir__table_fail(env, WEIR_EINVAL, "%s: '%s' is %s, not BOOLEAN", what,
                                    pred->text, tn);
        }
        impl->pred_at = impl->scratch;
        uint64_t end = (uint64_t)impl->scratch + ((pred->scratch + 7u) & ~7u);
        if (end > UINT32_MAX / 2)
            return weir__table_fail(env, WEIR_EINVAL, "%s: the expressions need too much "
                                    "scratch memory", what);
        impl->scratch = (uint32_t)end;
    }
    impl->virtual_clock = weir_job_get_config(env->job)->clock == WEIR_CLOCK_VIRTUAL;
    const char *why;
    t->schema = weir__schema_derive(in->schema, n, nm.names, types, &why);
    if (!t->schema)
        return weir__table_fail(env, WEIR_EINVAL, "%s: %s", what, why);
    impl->out = t->schema;
    impl->name = t->name;
    impl->all_copied = true;
    impl->copies = malloc((size_t)n * sizeof *impl->copies);
    impl->evals = malloc((size_t)n * sizeof *impl->evals);
    impl->int_calcs = malloc((size_t)n * sizeof *impl->int_calcs);
    if (!impl->copies || !impl->evals || !impl->int_calcs)
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    for (int i = 0; i < n; i++) {
        int c = impl->items[i]->column;
        const weir__col *from = c >= 0 ? &in->schema->cols[c] : NULL;
        const weir__col *to = &t->schema->cols[i];
        bool same = from && stored_alike(from->type, from->size, to) &&
                    impl->items[i]->clock_slot < 0;
        impl->all_copied &= same;
        if (same) {
            impl->copies[impl->ncopies++] = (struct calc_copy){
                .src = from->offset, .dst = to->offset, .size = to->size, .src_col = c,
                .dst_col = i, .field = -1};
            continue;
        }
        /* A ROW column's field of the output column's type (a view's
         * `SELECT r.f`): copied as its value is stored, without the
         * interpreter. */
        const weir__enode *f = impl->items[i]->root;
        bool field = f->op == OP_FIELD && f->a->op == OP_COL && impl->items[i]->clock_slot < 0 &&
                     stored_alike(f->type, weir__type_size(f->type), to) &&
                     (f->type.id == WEIR_TYPE_VARCHAR || !weir__type_is_var(f->type.id)) &&
                     !weir__type_is_nested(f->type.id);
        if (field) {
            const weir__col *rc = &in->schema->cols[f->a->col];
            impl->copies[impl->ncopies++] = (struct calc_copy){
                .src = rc->offset + f->off, .dst = to->offset, .size = to->size,
                .src_col = f->a->col, .dst_col = i, .field = f->col, .base = rc->offset,
                .var = f->type.id == WEIR_TYPE_VARCHAR};
            continue;
        }
        weir__int_calc_plan(impl->items[i], &impl->int_calcs[impl->nevals]);
        impl->evals[impl->nevals++] = i;
    }
    /* a slot's bytes between columns would stay what they were */
    impl->all_copied = impl->all_copied && row_dense(t->schema);
    t->mode = in->mode;
    /* The rowtime and a unique key survive a projection that keeps them as
     * bare columns: map[c] is the first item that is input column c. */
    int *map = malloc((size_t)in->schema->ncols * sizeof *map);
    if (!map)
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    for (int c = 0; c < in->schema->ncols; c++)
        map[c] = -1;
    for (int i = n - 1; i >= 0; i--)
        if (impl->items[i]->column >= 0)
            map[impl->items[i]->column] = i;
    impl->stamp = -1;
    if (in->rowtime >= 0)
        t->rowtime = map[in->rowtime];
    if (in->proctime >= 0)
        t->proctime = map[in->proctime];
    /* PROCTIME() in a select list makes a processing-time attribute where
     * the input has none (Flink: SELECT *, PROCTIME() AS p FROM t) */
    for (int i = 0; t->proctime < 0 && i < n; i++)
        if (weir__expr_is_proctime(impl->items[i]))
            t->proctime = i;
    if (in->windowed && map[in->wstart] >= 0 && map[in->wend] >= 0) {
        t->windowed = true;
        t->window = in->window;
        t->wstart = map[in->wstart];
        t->wend = map[in->wend];
    }
    if (in->rowtime2 >= 0) {
        /* an interval join's two time attributes: the second one kept alone
         * becomes the rowtime, and the records' timestamps are its values */
        if (t->rowtime >= 0)
            t->rowtime2 = map[in->rowtime2];
        else if ((t->rowtime = map[in->rowtime2]) >= 0)
            impl->stamp = t->rowtime;
    }
    bool keep = in->nukey > 0;
    for (int k = 0; k < in->nukey; k++)
        if (map[in->ukey[k]] < 0)
            keep = false;
    if (keep) {
        t->ukey = malloc((size_t)in->nukey * sizeof *t->ukey);
        if (!t->ukey) {
            free(map);
            return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
        }
        for (int k = 0; k < in->nukey; k++)
            t->ukey[k] = map[in->ukey[k]];
        t->nukey = in->nukey;
    }
    free(map);
    if (in->mono) {
        /* a bare column moves as its input column does; anything computed
         * is NOT monotonic (as Flink's getProjectMonotonicity without a
         * function's own monotonicity) */
        unsigned char mono[WEIR__LIST_MAX];
        for (int i = 0; i < n; i++)
            mono[i] = impl->items[i]->column >= 0 ? in->mono[impl->items[i]->column]
                                                  : WEIR__MONO_NOT;
        if (weir__table_set_monotonicity(t, mono))
            return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    }
    return plan_calc(t, impl, what);
}

weir_table *weir_table_select_exprs(weir_table *in, weir_expr **items, int n)
{
    static const char *what = "weir_table_select_exprs";
    bool ok = in && items && n > 0 && n <= WEIR__LIST_MAX;
    for (int i = 0; ok && i < n; i++)
        ok = items[i] != NULL;
    if (!ok) {
        for (int i = 0; items && i < n; i++)
            weir_expr_destroy(items[i]);
        return in ? weir__table_fail(in->env, WEIR_EINVAL, "%s: 1 to %d items are required",
                                     what, WEIR__LIST_MAX)
                  : NULL;
    }
    char *shown = weir__items_text(items, n);
    if (!shown) {
        for (int i = 0; i < n; i++)
            weir_expr_destroy(items[i]);
        return weir__table_fail(in->env, WEIR_ENOMEM, "%s: out of memory", what);
    }
    weir_table *t = select_core(in, NULL, items, n, shown, what, false);
    free(shown);
    return t;
}

weir_table *weir_table_calc_exprs(weir_table *in, weir_expr *predicate, weir_expr **items, int n)
{
    static const char *what = "weir_table_calc_exprs";
    if (!predicate)
        return weir_table_select_exprs(in, items, n);
    bool ok = in && items && n > 0 && n <= WEIR__LIST_MAX;
    for (int i = 0; ok && i < n; i++)
        ok = items[i] != NULL;
    char *shown = ok ? weir__items_text(items, n) : NULL;
    if (!shown) {
        for (int i = 0; items && i < n; i++)
            weir_expr_destroy(items[i]);
        weir_expr_destroy(predicate);
        if (!in)
            return NULL;
        return ok ? weir__table_fail(in->env, WEIR_ENOMEM, "%s: out of memory", what)
                  : weir__table_fail(in->env, WEIR_EINVAL, "%s: 1 to %d items are required",
                                     what, WEIR__LIST_MAX);
    }
    weir_table *t = select_core(in, predicate, items, n, shown, what, false);
    free(shown);
    return t;
}

weir_table *weir_table_select(weir_table *in, const char *items)
{
    static const char *what = "weir_table_select";
    if (!in)
        return NULL;
    weir_table_env *env = in->env;
    if (!items)
        return weir__table_fail(env, WEIR_EINVAL, "%s: items are required", what);
    weir_expr *exprs[WEIR__LIST_MAX];
    int n = weir__compile_list(env, what, items, in->schema, 0, exprs);
    if (n < 0)
        return NULL;
    return select_core(in, NULL, exprs, n, items, what, false);
}

/* ---- computed columns ------------------------------------------------------------------- */

weir_table *weir_table_computed_columns(weir_table *in, weir_expr **items, int n,
                                        const weir_schema *declared)
{
    static const char *what = "weir_table_computed_columns";
    if (!in || !declared || n != declared->ncols) {
        for (int i = 0; items && i < n; i++)
            weir_expr_destroy(items[i]);
        return in ? weir__table_fail(in->env, WEIR_EINVAL, "%s: one item per column of the "
                                     "declared schema is required", what)
                  : NULL;
    }
    weir_table_env *env = in->env;
    char *shown = weir__items_text(items, n);
    if (!shown) {
        for (int i = 0; i < n; i++)
            weir_expr_destroy(items[i]);
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    }
    weir_table *t = select_core(in, NULL, items, n, shown, what, true);
    free(shown);
    if (!t)
        return NULL;
    for (int c = 0; c < n; c++)
        if (strcmp(t->schema->cols[c].name, declared->cols[c].name) != 0 ||
            !weir__type_same(t->schema->cols[c].type, declared->cols[c].type)) {
            char a[64], b[64];
            weir_type_format(t->schema->cols[c].type, a, sizeof a);
            weir_type_format(declared->cols[c].type, b, sizeof b);
            return weir__table_fail(env, WEIR_ETYPE, "%s: table %s: item %d is %s %s, the "
                                    "declared column %s %s", what, declared->table, c + 1,
                                    t->schema->cols[c].name, a, declared->cols[c].name, b);
        }
    calc_impl *impl = t->impl;
    t->proctime = declared->proctime;
    if (declared->rowtime < 0)
        return t;
    /* The declared rowtime's value is each row's timestamp (a computed
     * one is known only here), and the WATERMARK runs behind the Calc,
     * unless the source ran it or it is the stream's own. */
    impl->ts_col = declared->rowtime;
    t->rowtime = declared->rowtime;
    if (declared->wm_in_source || declared->source_watermark || !declared->watermark)
        return t;
    return add_watermark_assigner(env, t, declared, what);
}

/* ---- Union ALL ------------------------------------------------------------------------ */

weir_table *weir_table_union_all(weir_table *const *tables, int n)
{
    static const char *what = "weir_table_union_all";
    if (!tables || n < 1)
        return NULL;
    for (int i = 0; i < n; i++)
        if (!tables[i])
            return NULL;
    weir_table_env *env = tables[0]->env;
    if (n < 2 || n > WEIR__LIST_MAX)
        return weir__table_fail(env, WEIR_EINVAL, "%s: %d tables (2..%d)", what, n,
                                WEIR__LIST_MAX);
    const weir_schema *s0 = tables[0]->schema;
    const char *names[WEIR__LIST_MAX];
    weir_type types[WEIR__LIST_MAX];
    for (int c = 0; c < s0->ncols; c++) {
        names[c] = s0->cols[c].name;
        types[c] = s0->cols[c].type;
    }
    unsigned mode = 0;
    int rowtime = tables[0]->rowtime;
    size_t len = 0;
    char list[512];
    list[0] = 0;
    for (int c = 0; c < s0->ncols; c++)
        weir__append(list, sizeof list, &len, "%s%s", c ? ", " : "", s0->cols[c].name);
    weir_stream *streams[WEIR__LIST_MAX];
    for (int i = 0; i < n; i++) {
        const weir_table *x = tables[i];
        const weir_schema *s = x->schema;
        if (x->env != env)
            return weir__table_fail(env, WEIR_EINVAL, "%s: %s and %s are tables of different "
                                    "environments", what, tables[0]->name, x->name);
        if (s->ncols != s0->ncols)
            return weir__table_fail(env, WEIR_EINVAL, "%s: %s has %d columns, %s has %d", what,
                                    tables[0]->name, s0->ncols, x->name, s->ncols);
        for (int c = 0; c < s0->ncols; c++) {
            weir_type a = s0->cols[c].type, b = s->cols[c].type;
            if (a.id != b.id || a.capacity != b.capacity) {
                char ta[48], tb[48];
                weir_type_format(a, ta, sizeof ta);
                weir_type_format(b, tb, sizeof tb);
                return weir__table_fail(env, WEIR_EINVAL, "%s: column %d (%s) is %s in %s but %s "
                                        "in %s (CAST one of them)", what, c + 1, s0->cols[c].name,
                                        ta, tables[0]->name, tb, x->name);
            }
            types[c].not_null = types[c].not_null && b.not_null;
        }
        mode |= x->mode;
        if (x->rowtime != rowtime)
            rowtime = -1;
        streams[i] = x->stream;
    }
    weir_table *t = weir__table_node(env, tables[0], "Union(all=[true], union=[%s])", list);
    if (!t)
        return NULL;
    const char *why;
    if (!(t->schema = weir__schema_derive(s0, s0->ncols, names, types, &why)))
        return weir__table_fail(env, WEIR_EINVAL, "%s: %s", what, why);
    if (!(t->more = malloc((size_t)(n - 1) * sizeof *t->more)))
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    for (int i = 1; i < n; i++)
        t->more[t->nmore++] = tables[i];
    t->mode = mode;
    t->rowtime = rowtime;
    /* No operator: the consumer reads every input's channels through one
     * valve (weir_stream_union), so watermarks merge as at any shuffle. */
    t->stream = weir_stream_union(streams, n);
    return t->stream ? t : NULL;
}

int weir_table_second_rowtime(const weir_table *t)
{
    return t ? t->rowtime2 : -1;
}

weir_table *weir_table_with_rowtime(weir_table *in, const char *column)
{
    static const char *what = "weir_table_with_rowtime";
    if (!in)
        return NULL;
    weir_table_env *env = in->env;
    int col = column ? weir_schema_column_index(in->schema, column) : -1;
    if (col < 0)
        return weir__table_fail(env, WEIR_EINVAL, "%s: unknown column '%s'", what,
                                column ? column : "(null)");
    if (col == in->rowtime)
        return in;
    if (col != in->rowtime2) {
        char tn[48];
        weir_type_format(in->schema->cols[col].type, tn, sizeof tn);
        return weir__table_fail(env, WEIR_EINVAL, "The window function requires the timecol is "
                                "a time attribute type, but is %s.", tn);
    }
    int n = in->schema->ncols;
    weir_expr **items = calloc((size_t)n, sizeof *items);
    if (!items)
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    for (int c = 0; c < n; c++) {
        char text[300];
        size_t k = 0;
        weir__append_name(text, sizeof text, &k, "", in->schema->cols[c].name);
        char err[300];
        int r = weir__expr_compile_in(text, in->schema, -1, env->config.time_zone, &items[c], err,
                                      sizeof err);
        if (r) {
            for (int i = 0; i < c; i++)
                weir_expr_destroy(items[i]);
            free(items);
            return weir__table_fail(env, r, "%s: %s", what, err);
        }
    }
    int old = in->rowtime;
    weir_table *t = weir_table_select_exprs(in, items, n);
    free(items);
    if (!t)
        return NULL;
    calc_impl *impl = t->impl;
    impl->stamp = col;
    t->rowtime = col;
    t->rowtime2 = old;
    return t;
}
