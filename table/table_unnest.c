/* table_unnest.c — UNNEST (Flink's Correlate over its $UNNEST_ROWS$1 table
 * function): each row of the input joined with the rows of a collection it
 * holds, `FROM t CROSS JOIN UNNEST(t.arr) AS u(x)`.
 *
 * The output is the input's columns, then the collection's: an ARRAY's
 * element (a ROW element's fields, each a column), a MAP's key and value,
 * and with ORDINALITY the element's 1-based position (INT NOT NULL), as
 * Calcite's UNNEST types them (EXPR$0, KEY and VALUE, ORDINALITY, unless
 * renamed). An empty or NULL collection gives no row (CROSS JOIN), or the
 * input row once with NULLs (LEFT JOIN ... ON TRUE). Each output row keeps
 * its input's kind and timestamp, so the changelog mode and the rowtime
 * pass through; a unique key does not.
 *
 * Per subtask the operator owns one output row and the expression's
 * scratch, made in open(): an input row's columns are copied into it once,
 * then each element's columns are written over the last ones' and the row
 * emitted — nothing allocated per row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"
#include "weir/error.h"
#include "weir/operator.h"

typedef struct unnest_impl {
    weir_expr *coll;
    const weir_schema *in, *out;
    weir_schema *cols;         /* the collection's columns alone (a scope's) */
    const weir__nested *d;     /* the collection's type */
    const weir__nested *row;   /* an ARRAY's ROW element: its fields are columns; else NULL */
    int first;                 /* the first of the collection's columns */
    int ncols;                 /* how many (ORDINALITY's among them) */
    bool ordinality, left;
    bool virtual_clock;
    const char *name;
} unnest_impl;

static void unnest_impl_free(void *p)
{
    unnest_impl *u = p;
    if (u) {
        weir_expr_destroy(u->coll);
        weir_schema_destroy(u->cols);
    }
    free(u);
}

static int unnest_open(weir_ctx *ctx)
{
    const unnest_impl *u = weir_ctx_impl(ctx);
    unsigned char *st = calloc(1, u->out->row_size + u->coll->scratch + 8);
    if (!st)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, st);
    return 0;
}

static void unnest_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static int too_long(weir_ctx *ctx, const unnest_impl *u, int c, const weir__val *v)
{
    return weir_ctx_fail(ctx, WEIR_ERANGE, "%s: column %s: a string of %u bytes is longer than "
                         "its capacity %u", u->name, u->out->cols[c].name, v->len,
                         u->out->cols[c].type.capacity);
}

/* Element i's columns (all NULL when `none`) into the row. */
static int put_element(weir_ctx *ctx, const unnest_impl *u, unsigned char *row,
                       const unsigned char *slot, uint32_t i, bool none)
{
    int c = u->first;
    weir__val v;
    if (u->d->id == WEIR_TYPE_MAP) {
        for (int part = 0; part < 2; part++, c++) {
            v = (weir__val){.null = true};
            if (!none)
                weir__nested_element(u->d, slot, part, i, &v);
            if (weir__store_value(u->out, row, c, &v))
                return too_long(ctx, u, c, &v);
        }
    } else if (u->row) {
        weir__val e = {.null = true};
        if (!none)
            weir__nested_element(u->d, slot, 0, i, &e);
        for (uint32_t f = 0; f < u->row->n; f++, c++) {
            v = (weir__val){.null = true};
            if (!e.null)
                weir__nested_element(u->row, (const unsigned char *)e.s, 0, f, &v);
            if (weir__store_value(u->out, row, c, &v))
                return too_long(ctx, u, c, &v);
        }
    } else {
        v = (weir__val){.null = true};
        if (!none)
            weir__nested_element(u->d, slot, 0, i, &v);
        if (weir__store_value(u->out, row, c, &v))
            return too_long(ctx, u, c, &v);
        c++;
    }
    if (u->ordinality) {
        v = (weir__val){.null = none, .i = none ? 0 : (int64_t)i + 1};
        weir__store_value(u->out, row, c, &v);
    }
    return 0;
}

static int unnest_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const unnest_impl *u = weir_ctx_impl(ctx);
    unsigned char *row = weir_ctx_state(ctx), *scratch = row + u->out->row_size;
    const unsigned char *in = elem;
    int64_t now = u->coll->clock_slot >= 0 ? weir__table_now(ctx, u->virtual_clock) : 0;
    weir__val v;
    const char *why = NULL;
    int r = weir__expr_eval_now(u->coll, in, scratch, now, &v, &why);
    if (r)
        return weir_ctx_fail(ctx, r, "%s: %s in '%s'", u->name, why, u->coll->text);
    uint32_t count = v.null ? 0 : weir__nested_count_of(u->d, (const unsigned char *)v.s);
    if (count == 0 && !u->left)
        return 0;
    /* the input's columns, once: the same places in both rows but for the
     * null bits' bytes, which the output has more of */
    memset(row, 0, u->out->row_size);
    row[0] = in[0];
    for (int c = 0; c < u->in->ncols; c++) {
        weir__val x;
        weir__load_value(u->in, in, c, &x);
        if (weir__store_value(u->out, row, c, &x))
            return too_long(ctx, u, c, &x);
    }
    if (count == 0) {
        if ((r = put_element(ctx, u, row, NULL, 0, true)) != 0)
            return r;
        return weir_emit(ctx, row, ts);
    }
    for (uint32_t i = 0; i < count; i++) {
        if ((r = put_element(ctx, u, row, (const unsigned char *)v.s, i, false)) != 0 ||
            (r = weir_emit(ctx, row, ts)) != 0)
            return r;
    }
    return 0;
}

static const weir_operator_vtable unnest_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = unnest_open,
    .on_record = unnest_record,
    .close = unnest_close,
};

weir_table *weir_table_unnest_expr(weir_table *in, weir_expr *collection,
                                   const char *const *names, int nnames, bool with_ordinality,
                                   bool left_outer)
{
    static const char *what = "weir_table_unnest_expr";
    if (!in) {
        weir_expr_destroy(collection);
        return NULL;
    }
    weir_table_env *env = in->env;
    if (!collection)
        return weir__table_fail(env, WEIR_EINVAL, "%s: a collection is required", what);
    weir_type ct = weir_expr_type(collection);
    const weir__nested *d = weir__nested_of(ct);
    if (!d || d->id == WEIR_TYPE_ROW) {
        char tn[64];
        weir_type_format(ct, tn, sizeof tn);
        weir_expr_destroy(collection);
        return weir__table_fail(env, WEIR_EINVAL, "UNNEST of %s: only an ARRAY or a MAP "
                                "unnests", tn);
    }
    /* the collection's columns: names and types */
    const weir__nested *row = NULL;
    const char *cnames[WEIR__LIST_MAX];
    weir_type ctypes[WEIR__LIST_MAX];
    int n = 0;
    if (d->id == WEIR_TYPE_MAP) {
        cnames[n] = "KEY";
        ctypes[n++] = d->types[0];
        cnames[n] = "VALUE";
        ctypes[n++] = d->types[1];
    } else if ((row = weir__nested_of(d->types[0])) && row->id == WEIR_TYPE_ROW) {
        for (uint32_t f = 0; f < row->n && n < WEIR__LIST_MAX - 1; f++) {
            cnames[n] = row->names[f];
            ctypes[n] = row->types[f];
            ctypes[n++].not_null = false; /* a NULL element's fields */
        }
    } else {
        row = NULL;
        cnames[n] = "EXPR$0";
        ctypes[n++] = d->types[0];
    }
    for (int k = 0; k < n; k++)
        if (d->id != WEIR_TYPE_MAP || k == 1)
            ctypes[k].not_null = false; /* an element, a value may be NULL */
    if (with_ordinality) {
        cnames[n] = "ORDINALITY";
        ctypes[n++] = (weir_type){.id = WEIR_TYPE_INT, .not_null = !left_outer};
    }
    if (left_outer)
        for (int k = 0; k < n; k++)
            ctypes[k].not_null = false;
    if (nnames > 0 && nnames != n) {
        /* Calcite's aliasListDegree */
        char list[512];
        size_t at = 0;
        list[0] = 0;
        for (int k = 0; k < n; k++)
            weir__append(list, sizeof list, &at, "%s'%s'", k ? ", " : "", cnames[k]);
        weir_expr_destroy(collection);
        return weir__table_fail(env, WEIR_EINVAL, "List of column aliases must have same degree "
                                "as table; table has %d columns (%s), whereas alias list has "
                                "%d columns", n, list, nnames);
    }
    for (int k = 0; k < nnames; k++)
        cnames[k] = names[k];
    int nin = in->schema->ncols;
    if (nin + n > WEIR__LIST_MAX) {
        weir_expr_destroy(collection);
        return weir__table_fail(env, WEIR_EINVAL, "%s: more than %d columns", what,
                                WEIR__LIST_MAX);
    }
    /* the node's name: Flink's Correlate of its $UNNEST_ROWS$1 function */
    char sel[1024];
    size_t len = 0;
    sel[0] = 0;
    for (int c = 0; c < nin + n; c++)
        weir__append(sel, sizeof sel, &len, "%s%s", c ? "," : "",
                     c < nin ? in->schema->cols[c].name : cnames[c - nin]);
    weir_table *t = weir__table_node(env, in, "Correlate(invocation=[$UNNEST_ROWS$1(%s)], "
                                     "select=[%s], joinType=[%s])", collection->text, sel,
                                     left_outer ? "LEFT" : "INNER");
    unnest_impl *u = t ? calloc(1, sizeof *u) : NULL;
    if (!u) {
        weir_expr_destroy(collection);
        return t ? weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what) : NULL;
    }
    u->coll = collection;
    t->impl = u;
    t->impl_free = unnest_impl_free;
    const char *all[WEIR__LIST_MAX];
    weir_type types[WEIR__LIST_MAX];
    for (int c = 0; c < nin; c++) {
        all[c] = in->schema->cols[c].name;
        types[c] = in->schema->cols[c].type;
    }
    for (int k = 0; k < n; k++) {
        all[nin + k] = cnames[k];
        types[nin + k] = ctypes[k];
    }
    const char *why;
    t->schema = weir__schema_derive(in->schema, nin + n, all, types, &why);
    if (t->schema)
        u->cols = weir__schema_derive(in->schema, n, all + nin, types + nin, &why);
    if (!t->schema || !u->cols)
        return weir__table_fail(env, WEIR_EINVAL, "%s: %s", what, why);
    u->in = in->schema;
    u->out = t->schema;
    u->d = d;
    u->row = row;
    u->first = nin;
    u->ncols = n;
    u->ordinality = with_ordinality;
    u->left = left_outer;
    u->virtual_clock = weir_job_get_config(env->job)->clock == WEIR_CLOCK_VIRTUAL;
    u->name = t->name;
    t->mode = in->mode;
    t->rowtime = in->rowtime;
    t->proctime = in->proctime;
    t->rowtime2 = in->rowtime2;
    weir_process_spec spec = {
        .name = t->name,
        .kind = "table_correlate",
        .vtable = &unnest_vtable,
        .impl = u,
        .out_size = t->schema->row_size,
        .parallelism = env->config.parallelism ? env->config.parallelism
                                               : WEIR_PARALLELISM_INHERIT,
        .accounting = WEIR_ACCOUNTING_ANY,
        .settings_json = weir__table_settings(t, NULL),
    };
    t->stream = weir_stream_process(in->stream, &spec);
    return t->stream ? t : NULL;
}

const weir_schema *weir_table_unnest_columns(const weir_table *t)
{
    return t && t->impl_free == unnest_impl_free ? ((const unnest_impl *)t->impl)->cols : NULL;
}
