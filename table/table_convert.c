/* table_convert.c — a table into the user's own elements: Flink's
 * toDataStream(table, Class) and toChangelogStream(table, Schema,
 * ChangelogMode) (weir_table_to_stream_as, weir_table_to_changelog_stream_as).
 *
 * The target is a schema: bound to a C struct, or a row layout of the
 * caller's. Everything is decided at plan time, when the conversion is
 * made: which column of the table feeds which column of the target (by
 * name), how its value is converted (Flink's implicit casts into a sink),
 * which copies need a NULL check (a nullable column into something that
 * cannot be NULL) or a length check (a string that may be longer than its
 * destination), and where the record timestamp comes from. The operator,
 * "TableToDataStream(target)", then walks that plan for each row, writing
 * the element in place in its output slot: nothing allocated, nothing
 * formatted unless the row fails the job. The runtime checks are Flink's
 * sink enforcers: its NOT NULL enforcer's message, and weir's string rule
 * (a value longer than its place fails, it is never cut).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_tree.h"
#include "table_internal.h"
#include "weir/error.h"
#include "weir/operator.h"

/* How one value is converted. */
enum conv_op {
    CV_BOOL,       /* 1 byte, 0/1 */
    CV_COPY,       /* the same type: its `size` bytes as they are */
    CV_CONVERT,    /* a number into a wider one (weir__convert) */
    CV_STRING,     /* bytes, CHAR and BINARY padded */
};

/* One column of the target: from the table's column at `src` (its index
 * `src_col`), into the element at `dst` (a struct field, or a row column,
 * its index `dst_col`). */
typedef struct conv_col {
    uint32_t src, dst;
    uint32_t limit;  /* strings: the bytes the destination holds; CV_COPY: the bytes */
    int src_col, dst_col;
    unsigned char op;
    bool check_null; /* the source may be NULL and the destination cannot hold it */
    bool null_ok;    /* the destination is a nullable column of a row */
    bool check_len;  /* the source may be longer than `limit` */
    bool pad;        /* a CHAR (BINARY) destination: spaces (zero bytes) up to `limit` */
    unsigned char pad_byte;
} conv_col;

typedef struct conv_impl {
    conv_col *cols;
    int ncols;
    bool bound;        /* structs out (else rows of the target's layout) */
    uint32_t out_size;
    int64_t kind_off;  /* bound: the row kind field, -1: none */
    bool drop_ub;      /* upsert output: -U dropped */
    int ts_col;        /* the table's column that is the record timestamp, -1: t's own */
    uint32_t ts_off;
    bool ts_nullable;
    const char *ts_name;
    const char *table; /* the table's node name (the env owns it) */
    const weir_schema *in, *out; /* the table's schema, the target's columns (nodes own them) */
    const weir_time_zone *zone;  /* the env's, for TIMESTAMP_LTZ into TIMESTAMP and back */
} conv_impl;

static void conv_impl_free(void *p)
{
    conv_impl *c = p;
    if (c)
        free(c->cols);
    free(c);
}

static int null_into(weir_ctx *ctx, const conv_impl *c, const char *column)
{
    return weir_ctx_fail(ctx, WEIR_EINVAL, "table %s: column '%s' is NOT NULL in %s, however, "
                         "a null value is being written into it", c->table, column,
                         c->out->table);
}

/* The string at `s` (a row's column: length, bytes) into its destination. */
static int put_string(weir_ctx *ctx, const conv_impl *c, const conv_col *k, const unsigned char *s,
                      unsigned char *out)
{
    uint32_t len;
    memcpy(&len, s, 4);
    if (k->check_len && len > k->limit)
        return weir_ctx_fail(ctx, WEIR_ERANGE, "table %s: column %s: a string of %u bytes is "
                             "longer than its capacity %u in %s", c->table,
                             c->out->cols[k->dst_col].name, len, k->limit, c->out->table);
    unsigned char *d = out + k->dst + (c->bound ? 0 : 4);
    memcpy(d, s + 4, len);
    if (k->pad && len < k->limit) {
        memset(d + len, k->pad_byte, k->limit - len);
        len = k->limit;
    }
    if (!c->bound)
        memcpy(out + k->dst, &len, 4);
    return 0;
}

static int conv_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const conv_impl *c = weir_ctx_impl(ctx);
    const unsigned char *row = elem;
    weir_row_kind kind = weir_row_get_kind(row);
    if (c->drop_ub && kind == WEIR_ROW_UPDATE_BEFORE) {
        weir_ctx_count(ctx, WEIR_COUNTER_FILTERED, 1);
        return 0;
    }
    if (c->ts_col >= 0) {
        if (c->ts_nullable && weir__row_null(c->in, row, c->ts_col))
            return null_into(ctx, c, c->ts_name);
        memcpy(&ts, row + c->ts_off, 8);
    }
    unsigned char *out = weir_emit_reserve(ctx);
    if (!out)
        return weir_ctx_error(ctx);
    /* Zeroed first: a struct's padding and a string's bytes past its
     * length are zero, so that equal rows make equal elements. */
    memset(out, 0, c->out_size);
    if (!c->bound)
        out[0] = (unsigned char)kind;
    else if (c->kind_off >= 0)
        out[c->kind_off] = (unsigned char)kind;
    for (int i = 0; i < c->ncols; i++) {
        const conv_col *k = &c->cols[i];
        if ((k->check_null || k->null_ok) && weir__row_null(c->in, row, k->src_col)) {
            if (!k->null_ok)
                return null_into(ctx, c, c->out->cols[k->dst_col].name);
            weir__row_set_null_bit(out, k->dst_col, true);
            continue;
        }
        const unsigned char *s = row + k->src;
        unsigned char *d = out + k->dst;
        switch ((enum conv_op)k->op) {
        case CV_BOOL: *d = *s != 0; break;
        case CV_COPY: memcpy(d, s, k->limit); break;
        case CV_CONVERT: {
            weir__val x = {0}, y;
            weir_type from = c->in->cols[k->src_col].type, to = c->out->cols[k->dst_col].type;
            weir__read_value(s, from, &x);
            weir__convert(from, to, &x, &y, c->zone);
            weir__write_value(d, to, &y);
            break;
        }
        case CV_STRING: {
            int r = put_string(ctx, c, k, s, out);
            if (r)
                return r;
            break;
        }
        }
    }
    return weir_emit_commit(ctx, ts);
}

static const weir_operator_vtable conv_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = conv_record,
};

/* ---- the plan ------------------------------------------------------------------------ */

/* The conversion of a `from` value into a `to` column: Flink's implicit
 * casts into a sink (LogicalTypeCasts.supportsImplicitCast, nullability
 * aside: the sink checks it per row). false: none. */
static bool conv_op_for(weir_type from, weir_type to, unsigned char *op)
{
    weir_type_id f = from.id, t = to.id;
    if (f == WEIR_TYPE_NULL || !weir_type_casts_implicitly(from, to))
        return false;
    if ((weir__type_is_nested(f) || weir__type_is_nested(t)) && !weir__type_same(from, to))
        return false; /* a nested value of another layout: a CAST in a select first */
    if ((weir__type_is_string(f) && weir__type_is_string(t)) ||
        (weir__type_is_binary(f) && weir__type_is_binary(t)))
        *op = CV_STRING;
    else if (weir__type_same(from, to))
        *op = f == WEIR_TYPE_BOOLEAN ? CV_BOOL : CV_COPY;
    else
        *op = CV_CONVERT;
    return true;
}

static void *types_differ(weir_table *t, const weir_schema *target, int tc, int c,
                          const char *what)
{
    char in[48], out[48];
    weir_type_format(t->schema->cols[tc].type, in, sizeof in);
    weir_type_format(target->cols[c].type, out, sizeof out);
    return weir__table_fail(t->env, WEIR_ETYPE, "%s: column types of table %s and %s do not "
                            "match: column '%s' is %s in the table, %s in %s", what, t->name,
                            target->table, target->cols[c].name, in, out, target->table);
}

/* Plans target column c from the table's column of its name. 0, or -1 with
 * env failed. */
static int plan_col(weir_table *t, const weir_schema *target, int c, conv_impl *impl,
                    bool *used, const char *what)
{
    const weir__col *col = &target->cols[c];
    int tc = weir_schema_column_index(t->schema, col->name);
    if (tc < 0) {
        weir__table_fail(t->env, WEIR_EINVAL, "%s: table %s and %s do not match: column '%s' "
                         "of %s is not a column of the table", what, t->name, target->table,
                         col->name, target->table);
        return -1;
    }
    used[tc] = true;
    const weir__col *from = &t->schema->cols[tc];
    if (col->metadata) {
        /* Flink's "rowtime" sink metadata: the column is the record
         * timestamp (TIMESTAMP_LTZ(3) NOT NULL). */
        if (!weir__type_is_time(from->type.id)) {
            types_differ(t, target, tc, c, what);
            return -1;
        }
        impl->ts_col = tc;
        impl->ts_off = from->offset;
        impl->ts_nullable = !from->type.not_null;
        impl->ts_name = col->name;
        if (impl->bound)
            return 0; /* no field: the timestamp only */
    }
    conv_col *k = &impl->cols[impl->ncols];
    if (!conv_op_for(from->type, col->type, &k->op)) {
        types_differ(t, target, tc, c, what);
        return -1;
    }
    k->src = from->offset;
    k->src_col = tc;
    k->dst_col = c;
    bool nullable = !from->type.not_null;
    if (impl->bound) {
        k->dst = (uint32_t)col->bound_off;
        k->check_null = nullable; /* a struct field is never NULL */
        k->limit = col->type.capacity < col->bound_size ? col->type.capacity : col->bound_size;
    } else {
        k->dst = target->cols[c].offset;
        k->null_ok = nullable && !col->type.not_null;
        k->check_null = nullable && col->type.not_null;
        k->limit = col->type.capacity;
    }
    if (k->op == CV_COPY)
        k->limit = weir__type_size(col->type);
    k->check_len = k->op == CV_STRING && from->type.capacity > k->limit;
    k->pad = k->op == CV_STRING &&
             (col->type.id == WEIR_TYPE_CHAR || col->type.id == WEIR_TYPE_BINARY);
    k->pad_byte = col->type.id == WEIR_TYPE_CHAR ? ' ' : 0;
    impl->ncols++;
    return 0;
}

/* The names of the n columns `cols` of s, "a, b", into buf. */
static void column_names(const weir_schema *s, const int *cols, int n, char *buf, size_t size)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++)
        weir__append(buf, size, &k, "%s%s", i ? ", " : "", s->cols[cols[i]].name);
}

/* target's primary key (columns of t, by name) is t's unique key: the same
 * set of columns. 0, or -1 with env failed. */
static int check_upsert_key(weir_table *t, const weir_schema *target, const char *what)
{
    int key[WEIR__LIST_MAX];
    int n = target->npk;
    char want[256];
    column_names(target, target->pk, n, want, sizeof want);
    if (t->nukey == 0) {
        weir__table_fail(t->env, WEIR_EINVAL, "%s: the primary key (%s) of %s is not a unique "
                         "key of table %s, which has none (a primary key, or the keys of a "
                         "group aggregate)", what, want, target->table, t->name);
        return -1;
    }
    for (int i = 0; i < n && i < WEIR__LIST_MAX; i++)
        key[i] = weir_schema_column_index(t->schema, target->cols[target->pk[i]].name);
    bool same = n == t->nukey;
    for (int i = 0; same && i < t->nukey; i++) {
        bool found = false;
        for (int j = 0; j < n; j++)
            found = found || key[j] == t->ukey[i];
        same = found;
    }
    if (!same) {
        char have[256];
        column_names(t->schema, t->ukey, t->nukey, have, sizeof have);
        weir__table_fail(t->env, WEIR_EINVAL, "%s: the primary key (%s) of %s is not the unique "
                         "key (%s) of table %s: an upsert stream on other columns would keep a "
                         "changed key's old row", what, want, target->table, have, t->name);
        return -1;
    }
    return 0;
}

/* The plan of the whole target: every column matched, every column of t
 * used. 0, or -1 with env failed. */
static int plan_columns(weir_table *t, const weir_schema *target, conv_impl *impl,
                        const char *what)
{
    bool used[WEIR__LIST_MAX + 1] = {0};
    bool *u = t->schema->ncols > WEIR__LIST_MAX ? calloc((size_t)t->schema->ncols, 1) : used;
    if (!u) {
        weir__table_fail(t->env, WEIR_ENOMEM, "%s: out of memory", what);
        return -1;
    }
    int r = 0;
    for (int c = 0; r == 0 && c < target->ncols; c++)
        r = plan_col(t, target, c, impl, u, what);
    for (int c = 0; r == 0 && c < t->schema->ncols; c++)
        if (!u[c]) {
            weir__table_fail(t->env, WEIR_EINVAL, "%s: table %s and %s do not match: column "
                             "'%s' of the table is not a column of %s", what, t->name,
                             target->table, t->schema->cols[c].name, target->table);
            r = -1;
        }
    if (u != used)
        free(u);
    return r;
}

static bool mode_known(unsigned mode)
{
    return mode == WEIR_CHANGELOG_AS_PRODUCED || mode == WEIR_CHANGELOG_ALL ||
           mode == WEIR_CHANGELOG_UPSERT || mode == WEIR_CHANGELOG_INSERT_ONLY;
}

static weir_stream *convert(weir_table *t, const weir_schema *target, unsigned mode,
                            const char *what)
{
    if (!t)
        return NULL;
    weir_table_env *env = t->env;
    if (!target)
        return weir__table_fail(env, WEIR_EINVAL, "%s: a target schema is required", what);
    if (!mode_known(mode))
        return weir__table_fail(env, WEIR_EINVAL, "%s: the mode must be all, upsert, "
                                "insert-only or as produced (0)", what);
    bool updating = t->mode != WEIR_CHANGELOG_INSERT_ONLY;
    if (mode == WEIR_CHANGELOG_INSERT_ONLY && updating)
        return weir__table_refuse_updates(t, what);
    if (mode == WEIR_CHANGELOG_UPSERT && updating && t->nukey == 0 && target->npk == 0)
        return weir__table_fail(env, WEIR_EINVAL, "%s(upsert): the table %s has no unique key "
                                "(a primary key, or the keys of a group aggregate)", what,
                                t->name);
    conv_impl *impl = calloc(1, sizeof *impl);
    if (!impl || !(impl->cols = calloc((size_t)target->ncols + 1, sizeof *impl->cols))) {
        conv_impl_free(impl);
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    }
    impl->bound = target->bound;
    impl->kind_off = target->bound ? target->kind_off : -1;
    impl->out_size = (uint32_t)weir_schema_elem_size(target);
    impl->ts_col = -1;
    if (plan_columns(t, target, impl, what) ||
        (updating && target->npk > 0 && check_upsert_key(t, target, what))) {
        conv_impl_free(impl);
        return NULL;
    }
    weir_table *in = mode == WEIR_CHANGELOG_ALL ? weir_table_normalize(t) : t;
    if (!in) {
        conv_impl_free(impl);
        return NULL;
    }
    unsigned out_mode = mode == WEIR_CHANGELOG_UPSERT
                            ? in->mode & ~WEIR_CHANGELOG_KIND(WEIR_ROW_UPDATE_BEFORE)
                            : in->mode;
    impl->drop_ub = out_mode != in->mode;
    if (impl->bound && impl->kind_off < 0 && out_mode != WEIR_CHANGELOG_INSERT_ONLY) {
        char m[32];
        weir_changelog_mode_format(out_mode, m, sizeof m);
        conv_impl_free(impl);
        return weir__table_fail(env, WEIR_EINVAL, "%s: the stream of %s carries the kinds %s, "
                                "and the struct has no row kind field (WEIR_STRUCT_KIND, "
                                "weir_schema_kind_at)", what, target->table, m);
    }
    weir_table *n = weir__table_node(env, in, "TableToDataStream(%s)", target->table);
    if (!n) {
        conv_impl_free(impl);
        return NULL;
    }
    n->impl = impl;
    n->impl_free = conv_impl_free;
    n->schema = weir__schema_copy(target, target->table);
    if (!n->schema)
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    n->mode = out_mode;
    impl->in = in->schema;
    impl->zone = in->env->config.time_zone;
    impl->out = n->schema;
    impl->table = in->name;
    weir_process_spec spec = {
        .name = n->name,
        .kind = "table_to_stream",
        .vtable = &conv_vtable,
        .impl = impl,
        .out_size = impl->out_size,
        .parallelism = WEIR_PARALLELISM_INHERIT,
        .accounting = WEIR_ACCOUNTING_ONE_TO_ONE,
        .settings_json = weir__table_settings(n, NULL),
    };
    n->stream = weir_stream_process(in->stream, &spec);
    return n->stream;
}

weir_stream *weir_table_to_stream_as(weir_table *t, const weir_schema *target)
{
    return convert(t, target, WEIR_CHANGELOG_INSERT_ONLY, "weir_table_to_stream_as");
}

weir_stream *weir_table_to_changelog_stream_as(weir_table *t, const weir_schema *target,
                                               unsigned mode)
{
    return convert(t, target, mode, "weir_table_to_changelog_stream_as");
}
