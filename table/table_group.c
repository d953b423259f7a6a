/* table_group.c — the group aggregate (Flink's GroupAggFunction) and the
 * changelog normalize (Flink's ChangelogNormalize), keyed operators on the
 * runtime's keyed state.
 *
 * Group aggregate, per key (SEMANTICS.md 9): the key's state is one value
 *     int64 row count | int64 has-previous | previous result row | accumulators
 * plus, for each list aggregate (table_agg.c), a list state of (value,
 * count) entries. An accumulate row (+I/+U) of a key with no state creates
 * it; a retract row (-U/-D) of a key with no state is ignored (as Flink's).
 * After folding the row in: a row count of 0 emits -D of the previous
 * result (if one was emitted) and clears the key's state; otherwise the new
 * result is compared with the previous one (rows are canonical bytes:
 * weir/row.h) and emitted as +I (first), or -U old / +U new, or not at all
 * when equal. The record timestamp of what is emitted is the input row's.
 *
 * The state value is copied into the subtask's buffer, worked on there and
 * written back, because a keyed state pointer is only valid until the next
 * state call and the list aggregates make several. A row costs its key's
 * lookups and these copies; a list aggregate also copies its list (one
 * entry per distinct value of the key): exact MIN/MAX under retraction has
 * that price, as in Flink. Nothing is allocated per row except when a list
 * outgrows the subtask's buffer (state growth).
 *
 * Normalize, per primary key: the last row. +I/+U: first → +I; equal to
 * the last → nothing; else -U last, +U row. -D (which may carry the key
 * only): -D of the last full row, state cleared; nothing if there is none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"
#include "weir/error.h"
#include "weir/operator.h"
#include "weir/state.h"

/* ---- keys --------------------------------------------------------------------------- */

/* A group key: for each key column its null flag (a nullable column only)
 * and its value bytes (a row's bytes are canonical, and a NULL column's are
 * zero, so equal values are equal bytes). */
void weir__key_extract(const void *elem, void *key, void *arg)
{
    const weir__key *k = arg;
    const unsigned char *row = elem;
    unsigned char *out = key;
    if (k->nkeys == 0) {
        out[0] = 0;
        return;
    }
    if (k->nkeys == 1 && k->size == 8) { /* one NOT NULL 8-byte column: the common key */
        memcpy(out, row + k->in->cols[k->keys[0]].offset, 8);
        return;
    }
    for (int i = 0; i < k->nkeys; i++) {
        const weir__col *c = &k->in->cols[k->keys[i]];
        if (k->flag[i])
            *out++ = weir__row_null(k->in, row, k->keys[i]);
        memcpy(out, row + c->offset, c->size);
        out += c->size;
    }
}

size_t weir__key_offset(const weir__key *k, int i)
{
    size_t off = 0;
    for (int j = 0; j < i; j++)
        off += k->flag[j] + k->in->cols[k->keys[j]].size;
    return off;
}

int weir__key_format(const void *key, char *buf, size_t size, void *arg)
{
    const weir__key *k = arg;
    const unsigned char *p = key;
    size_t n = 0;
    if (k->nkeys == 0)
        return snprintf(buf, size, "()");
    for (int i = 0; i < k->nkeys; i++) {
        const weir__col *c = &k->in->cols[k->keys[i]];
        bool null = k->flag[i] && *p++;
        /* Format the value through a one-column view of the bytes. */
        char v[96];
        if (null) {
            snprintf(v, sizeof v, "null");
        } else if (weir__type_is_string(c->type.id)) {
            uint32_t len;
            memcpy(&len, p, 4);
            snprintf(v, sizeof v, "%.*s", (int)(len < 90 ? len : 90), (const char *)p + 4);
        } else {
            weir__val x = {0};
            weir__read_value(p, c->type, &x);
            weir__format_val(c->type, &x, WEIR_ROW_STYLE_SQL, NULL, v, sizeof v);
        }
        weir__append(buf, size, &n, "%s%s", i ? "," : "", v);
        p += c->size;
    }
    return (int)n;
}

/* Resolves the key list against the input schema; NULL after an error. */
weir__key *weir__key_plan(weir_table_env *env, const weir_schema *in, const char *keys,
                           const char *what)
{
    weir__key *k = calloc(1, sizeof *k);
    if (!k)
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    k->in = in;
    weir__list l;
    int lr = keys ? weir__list_split(keys, &l) : 0;
    if (lr) {
        free(k);
        return weir__list_fail(env, what, lr, keys);
    }
    if (!keys)
        l.n = 0;
    k->size = 0;
    for (int i = 0; i < l.n; i++) {
        char name[256];
        int c = -1;
        if (weir__list_name(l.items[i], l.lens[i], name, sizeof name))
            c = weir_schema_column_index(in, name);
        if (c < 0) {
            free(k);
            return weir__table_fail(env, WEIR_EINVAL, "%s: group key '%.*s' is not a column of "
                                    "table %s", what, (int)l.lens[i], l.items[i], in->table);
        }
        k->flag[k->nkeys] = !in->cols[c].type.not_null;
        k->keys[k->nkeys++] = c;
        k->size += k->flag[k->nkeys - 1] + in->cols[c].size;
    }
    if (k->nkeys == 0)
        k->size = 1;
    if (k->size > WEIR_MAX_KEY_SIZE) {
        size_t size = k->size;
        free(k);
        return weir__table_fail(env, WEIR_EINVAL, "%s: the group key '%s' takes %zu bytes, more "
                                "than %d (shorter string capacities would fit)", what, keys,
                                size, WEIR_MAX_KEY_SIZE);
    }
    return k;
}

/* ---- the group aggregate ------------------------------------------------------------- */

/* The head of a group's value state: the rows the group holds (inserts
 * less retractions), and whether a result was emitted (1: the last result
 * row follows, to retract it when the result changes). */
typedef struct group_head {
    int64_t count;
    int64_t has_prev;
} group_head;

typedef struct group_impl {
    weir__key *key;
    weir_expr **items;
    int nitems;
    int *item_key;        /* per output column: the input column of a key, or -1 */
    weir__agg *aggs;      /* per output column (kind NONE for keys) */
    /* per output column: its aggregate's FILTER as integer comparisons in
     * place (n 0: by the interpreter), and its argument's input column when
     * the argument is one (-1: evaluated) */
    weir__int_tests *filter_tests;
    int *arg_col;
    int nlists;
    uint32_t acc_size;
    /* Each item's own region of the scratch (a call that keeps state from
     * row to row in an aggregate's argument, RAND's generator, keeps it
     * there), and their sum. */
    uint32_t *scratch_at;
    uint32_t scratch;
    bool virtual_clock;   /* the job's clock: what CURRENT_TIMESTAMP reads */
    uint32_t fn_buf;      /* bytes for a function's string result (capacity + 1), 0: none */
    bool fn_init;         /* a function from C has an init */
    const weir_schema *in, *out;
    size_t value_size;    /* group_head + out row + accumulators */
    const char *name;
    int64_t ttl_ms;       /* 'table.exec.state.ttl' of a group's state (0: none) */
} group_impl;

static void group_impl_free(void *p)
{
    group_impl *g = p;
    if (!g)
        return;
    for (int i = 0; i < g->nitems; i++)
        weir_expr_destroy(g->items[i]);
    free(g->items);
    free(g->item_key);
    free(g->scratch_at);
    free(g->aggs);
    free(g->filter_tests);
    free(g->arg_col);
    free(g->key);
    free(g);
}

typedef struct group_state {
    int value_id;
    int list_ids[WEIR__LIST_MAX];
    unsigned char *value;   /* the working copy of a key's value */
    unsigned char *out;     /* the new result row */
    unsigned char *emit;    /* a row being emitted */
    unsigned char *scratch;
    unsigned char *list;    /* the working copy of a list */
    size_t list_cap;        /* bytes */
    char *fn_buf;           /* a function's string result */
} group_state;

static void group_close(weir_ctx *ctx)
{
    group_state *st = weir_ctx_state(ctx);
    if (!st)
        return;
    free(st->value);
    free(st->out);
    free(st->emit);
    free(st->scratch);
    free(st->list);
    free(st->fn_buf);
    free(st);
}

static int group_open(weir_ctx *ctx)
{
    const group_impl *g = weir_ctx_impl(ctx);
    group_state *st = calloc(1, sizeof *st);
    if (!st)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, st);
    st->value = calloc(1, g->value_size);
    st->out = calloc(1, g->out->row_size);
    st->emit = calloc(1, g->out->row_size);
    st->scratch = calloc(1, g->scratch + 8);
    st->fn_buf = g->fn_buf ? malloc(g->fn_buf) : NULL;
    if (!st->value || !st->out || !st->emit || !st->scratch || (g->fn_buf && !st->fn_buf))
        return WEIR_ENOMEM;
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, g->value_size, &st->value_id);
    /* every row reads its group's accumulators: fetched a few rows ahead */
    if (r == 0)
        r = weir_state_prefetch(ctx, st->value_id);
    /* Flink's GroupAggFunction: a group's accumulators expire when not
     * written for the TTL, in processing time (a list-backed aggregate's
     * list, which has no TTL of its own, is emptied when its group starts
     * again: group_record) */
    if (r == 0 && g->ttl_ms > 0)
        r = weir_state_set_ttl(ctx, st->value_id, &(weir_state_ttl){
                                   .ttl_ms = g->ttl_ms, .time = WEIR_TTL_PROCESSING_TIME,
                                   .update = WEIR_TTL_ON_CREATE_AND_WRITE});
    for (int i = 0; r == 0 && i < g->nitems; i++) {
        const weir__agg *a = &g->aggs[i];
        if (a->kind == WEIR_AGG_NONE || !a->list)
            continue;
        /* COUNT(DISTINCT x): a map from the value to its rows (Flink's
         * MapState of a distinct aggregate), one lookup a row */
        r = a->distinct ? weir_state_declare_map(ctx, a->vsize, sizeof(int64_t), &st->list_ids[i])
                        : weir_state_declare(ctx, WEIR_STATE_LIST, a->esize, &st->list_ids[i]);
    }
    return r;
}

static int emit_kind(weir_ctx *ctx, unsigned char *row, weir_row_kind kind, int64_t ts)
{
    row[0] = (unsigned char)kind;
    return weir_emit(ctx, row, ts);
}

/* A list-backed aggregate (MIN/MAX with retraction, DISTINCT) takes x in
 * or out: its list state is read into the scratch list, updated, and
 * written back. */
static int update_list_agg(weir_ctx *ctx, const group_impl *g, group_state *st, int i,
                           unsigned char *accs, const weir__val *x, int sign)
{
    const weir__agg *a = &g->aggs[i];
    size_t n;
    const void *l = weir_state_list_get(ctx, st->list_ids[i], 0, &n);
    if ((n + 1) * a->esize > st->list_cap) {
        size_t cap = st->list_cap ? 2 * st->list_cap : 1024;
        while (cap < (n + 1) * a->esize)
            cap *= 2;
        unsigned char *nl = realloc(st->list, cap);
        if (!nl)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", g->name);
        st->list = nl;
        st->list_cap = cap;
        l = weir_state_list_get(ctx, st->list_ids[i], 0, &n);
    }
    if (n)
        memcpy(st->list, l, n * a->esize);
    const char *why = NULL;
    int r = weir__agg_update(a, accs, x, sign, st->list, &n, &why);
    if (r)
        return weir_ctx_fail(ctx, r, "%s: %s in '%s'", g->name, why, g->items[i]->text);
    if (weir_state_list_set(ctx, st->list_ids[i], 0, st->list, n))
        return weir_ctx_error(ctx);
    return 0;
}

/* COUNT(DISTINCT x) takes x in or out: x's rows in the group's map state
 * (value -> rows), the distinct count in the accumulator's slot moving
 * when a value comes or goes. */
static int update_distinct(weir_ctx *ctx, const group_impl *g, group_state *st, int i,
                           unsigned char *accs, const weir__val *x, int sign)
{
    const weir__agg *a = &g->aggs[i];
    unsigned char key[WEIR_STRING_MAX_CAPACITY + 16];
    weir__agg_encode(a, x, key); /* zero-filled past the value: equal values, equal bytes */
    unsigned char *rows = weir_state_map_get(ctx, st->list_ids[i], 0, key, sign > 0);
    if (!rows)
        return sign > 0 ? weir_ctx_state_error(ctx) : 0; /* retracting a value never seen */
    int64_t n, distinct;
    memcpy(&n, rows, sizeof n);
    memcpy(&distinct, accs + a->slot, sizeof distinct);
    n += sign > 0 ? 1 : -1;
    if (n > 0) {
        memcpy(rows, &n, sizeof n);
        if (n == 1 && sign > 0)
            distinct++;
    } else {
        weir_state_map_remove(ctx, st->list_ids[i], 0, key);
        distinct--;
    }
    memcpy(accs + a->slot, &distinct, sizeof distinct);
    return 0;
}

/* A function from C takes the row in (sign 1: accumulate) or out (-1:
 * retract): its arguments evaluated, then the call. */
static int accumulate_function(weir_ctx *ctx, const group_impl *g, group_state *st, int i,
                               const unsigned char *row, unsigned char *accs, int sign)
{
    const weir__agg *a = &g->aggs[i];
    weir__val args[WEIR_FUNCTION_MAX_ARGS];
    const char *why = NULL;
    int r = 0;
    for (int k = 0; r == 0 && k < a->nargs; k++)
        r = weir__expr_eval_now(a->args[k], row, st->scratch + g->scratch_at[i],
                                a->args[k]->clock_slot >= 0
                                    ? weir__table_now(ctx, g->virtual_clock)
                                    : 0,
                                &args[k], &why);
    if (r == 0)
        r = weir__agg_call(a, accs, args, sign, &why);
    if (r)
        return weir_ctx_fail(ctx, r, "%s: %s in '%s'", g->name, why, g->items[i]->text);
    return 0;
}

/* Every aggregate takes the row in (sign 1) or out (-1). */
static int accumulate(weir_ctx *ctx, const group_impl *g, group_state *st,
                      const unsigned char *row, unsigned char *accs, int sign)
{
    const char *why = NULL;
    for (int i = 0; i < g->nitems; i++) {
        const weir__agg *a = &g->aggs[i];
        if (a->kind == WEIR_AGG_NONE)
            continue;
        if (a->filter) {
            /* FILTER (WHERE c): the row counts for this aggregate when c is TRUE */
            if (g->filter_tests[i].n) {
                if (!weir__int_tests_hold(&g->filter_tests[i], row))
                    continue;
            } else {
                weir__val f;
                int64_t now =
                    a->filter->clock_slot >= 0 ? weir__table_now(ctx, g->virtual_clock) : 0;
                int r = weir__expr_eval_now(a->filter, row, st->scratch + g->scratch_at[i], now,
                                            &f, &why);
                if (r)
                    return weir_ctx_fail(ctx, r, "%s: %s in '%s'", g->name, why,
                                         g->items[i]->text);
                if (f.null || !f.i)
                    continue;
            }
        }
        if (a->kind == WEIR_AGG_FUNCTION) {
            int r = accumulate_function(ctx, g, st, i, row, accs, sign);
            if (r)
                return r;
            continue;
        }
        weir__val x = {0};
        if (g->arg_col[i] >= 0) {
            weir__load_value(g->in, row, g->arg_col[i], &x);
        } else if (a->arg) {
            int64_t now = a->arg->clock_slot >= 0 ? weir__table_now(ctx, g->virtual_clock) : 0;
            int r = weir__expr_eval_now(a->arg, row, st->scratch + g->scratch_at[i], now, &x,
                                        &why);
            if (r)
                return weir_ctx_fail(ctx, r, "%s: %s in '%s'", g->name, why, g->items[i]->text);
        }
        if (!a->list) {
            int r = weir__agg_update(a, accs, &x, sign, NULL, NULL, &why);
            if (r)
                return weir_ctx_fail(ctx, r, "%s: %s in '%s'", g->name, why, g->items[i]->text);
            continue;
        }
        if (x.null)
            continue;
        int r = a->distinct ? update_distinct(ctx, g, st, i, accs, &x, sign)
                            : update_list_agg(ctx, g, st, i, accs, &x, sign);
        if (r)
            return r;
    }
    return 0;
}

/* The group's last row retracted: its result is deleted (if one was
 * emitted) and its state cleared. */
static int retract_group(weir_ctx *ctx, const group_impl *g, group_state *st,
                         const unsigned char *prev, bool has_prev, int64_t ts)
{
    if (has_prev) {
        memcpy(st->emit, prev, g->out->row_size);
        int r = emit_kind(ctx, st->emit, WEIR_ROW_DELETE, ts);
        if (r)
            return r;
    }
    weir_state_clear(ctx, st->value_id, 0);
    for (int i = 0; i < g->nitems; i++)
        if (g->aggs[i].kind != WEIR_AGG_NONE && g->aggs[i].list)
            weir_state_clear(ctx, st->list_ids[i], 0);
    return 0;
}

/* The group's new result (in st->out) against the previous one: an INSERT
 * for the first, an UPDATE_BEFORE/UPDATE_AFTER pair when it changed,
 * nothing when it did not. */
static int emit_change(weir_ctx *ctx, const group_impl *g, group_state *st,
                       const unsigned char *prev, bool has_prev, int64_t ts)
{
    if (!has_prev) {
        memcpy(st->emit, st->out, g->out->row_size);
        return emit_kind(ctx, st->emit, WEIR_ROW_INSERT, ts);
    }
    if (memcmp(prev + 1, st->out + 1, g->out->row_size - 1) == 0)
        return 0;
    memcpy(st->emit, prev, g->out->row_size);
    int r = emit_kind(ctx, st->emit, WEIR_ROW_UPDATE_BEFORE, ts);
    if (r)
        return r;
    memcpy(st->emit, st->out, g->out->row_size);
    return emit_kind(ctx, st->emit, WEIR_ROW_UPDATE_AFTER, ts);
}

/* The group's new result row into st->out: its key columns from the row,
 * its aggregates' results from the accumulators. */
static int build_result(weir_ctx *ctx, const group_impl *g, group_state *st,
                        const unsigned char *row, const unsigned char *accs)
{
    memset(st->out, 0, g->out->row_size);
    for (int i = 0; i < g->nitems; i++) {
        weir__val x;
        if (g->item_key[i] >= 0) {
            int c = g->item_key[i];
            const weir__col *from = &g->in->cols[c], *to = &g->out->cols[i];
            if (from->type.id == to->type.id && from->size == to->size &&
                !weir__type_is_var(to->type.id)) {
                /* the column's bytes as they are (a NULL one's are zero) */
                weir__row_set_null_bit(st->out, i, weir__row_null(g->in, row, c));
                memcpy(st->out + to->offset, row + from->offset, to->size);
                continue;
            }
            weir__load_value(g->in, row, c, &x);
        } else if (g->aggs[i].kind == WEIR_AGG_FUNCTION) {
            const char *why;
            int r = weir__agg_call_result(&g->aggs[i], accs, &x, st->fn_buf, &why);
            if (r)
                return weir_ctx_fail(ctx, r, "%s: %s in '%s'", g->name, why, g->items[i]->text);
        } else {
            weir__agg_result(&g->aggs[i], accs, &x);
            if (g->out->cols[i].type.id == WEIR_TYPE_BIGINT) {
                /* a count, a sum: its eight bytes into the cleared row */
                if (x.null)
                    weir__row_set_null_bit(st->out, i, true);
                else
                    memcpy(st->out + g->out->cols[i].offset, &x.i, 8);
                continue;
            }
        }
        weir__store_value(g->out, st->out, i, &x);
    }
    return 0;
}

/* group_record for a group of plain accumulators (no list or map state, no
 * time to live): the key's value is looked up once, created for a row that
 * accumulates, and worked on where it is (no other state call comes
 * between); every state change is made before the rows go out. */
static int group_record_in_place(weir_ctx *ctx, const group_impl *g, group_state *st,
                                 const unsigned char *row, bool acc, int64_t ts)
{
    unsigned char *v = weir_state_value(ctx, st->value_id, 0, acc);
    if (!v)
        return acc ? weir_ctx_state_error(ctx) : 0; /* retracting a group never seen */
    group_head head;
    unsigned char *prev = v + sizeof head;
    unsigned char *accs = prev + g->out->row_size;
    memcpy(&head, v, sizeof head);
    if (head.count == 0 && !head.has_prev) /* new: a kept group has rows */
        for (int i = 0; g->fn_init && i < g->nitems; i++)
            weir__agg_init(&g->aggs[i], accs);
    head.count += acc ? 1 : -1;
    int r = accumulate(ctx, g, st, row, accs, acc ? 1 : -1);
    if (r)
        return r;
    if (head.count <= 0) {
        bool had = head.has_prev;
        if (had)
            memcpy(st->emit, prev, g->out->row_size);
        weir_state_clear(ctx, st->value_id, 0);
        return had ? emit_kind(ctx, st->emit, WEIR_ROW_DELETE, ts) : 0;
    }
    if ((r = build_result(ctx, g, st, row, accs)))
        return r;
    bool had = head.has_prev;
    if (had && memcmp(prev + 1, st->out + 1, g->out->row_size - 1) == 0) {
        memcpy(v, &head, sizeof head);
        return 0; /* the same result: nothing out */
    }
    if (had)
        memcpy(st->emit, prev, g->out->row_size);
    memcpy(prev, st->out, g->out->row_size);
    head.has_prev = 1;
    memcpy(v, &head, sizeof head);
    if (!had)
        return emit_kind(ctx, st->out, WEIR_ROW_INSERT, ts);
    if ((r = emit_kind(ctx, st->emit, WEIR_ROW_UPDATE_BEFORE, ts)))
        return r;
    return emit_kind(ctx, st->out, WEIR_ROW_UPDATE_AFTER, ts);
}

/* A row of the group's changelog. The group's value state is a group_head,
 * the last result row and the accumulators, worked on in st->value and
 * written back at the end. */
static int group_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const group_impl *g = weir_ctx_impl(ctx);
    group_state *st = weir_ctx_state(ctx);
    const unsigned char *row = elem;
    weir_row_kind kind = weir_row_get_kind(row);
    bool acc = kind == WEIR_ROW_INSERT || kind == WEIR_ROW_UPDATE_AFTER;
    if (g->nlists == 0 && g->ttl_ms <= 0)
        return group_record_in_place(ctx, g, st, row, acc, ts);
    unsigned char *v = weir_state_value(ctx, st->value_id, 0, false);
    if (!v && !acc)
        return 0; /* retracting a group never seen: Flink ignores it */
    group_head head;
    unsigned char *prev = st->value + sizeof head;
    unsigned char *accs = prev + g->out->row_size;
    if (v) {
        memcpy(st->value, v, g->value_size);
    } else {
        memset(st->value, 0, g->value_size);
        for (int i = 0; g->fn_init && i < g->nitems; i++)
            weir__agg_init(&g->aggs[i], accs);
        /* a group whose accumulators expired: its lists go too */
        for (int i = 0; g->ttl_ms > 0 && i < g->nitems; i++)
            if (g->aggs[i].kind != WEIR_AGG_NONE && g->aggs[i].list)
                weir_state_clear(ctx, st->list_ids[i], 0);
    }
    memcpy(&head, st->value, sizeof head);
    head.count += acc ? 1 : -1;
    memcpy(st->value, &head, sizeof head);
    int r = accumulate(ctx, g, st, row, accs, acc ? 1 : -1);
    if (r)
        return r;
    if (head.count <= 0)
        return retract_group(ctx, g, st, prev, head.has_prev, ts);
    if ((r = build_result(ctx, g, st, row, accs)))
        return r;
    if ((r = emit_change(ctx, g, st, prev, head.has_prev, ts)))
        return r;
    memcpy(prev, st->out, g->out->row_size);
    head.has_prev = 1;
    memcpy(st->value, &head, sizeof head);
    v = weir_state_value(ctx, st->value_id, 0, true);
    if (!v)
        return weir_ctx_state_error(ctx);
    memcpy(v, st->value, g->value_size);
    return 0;
}

static const weir_operator_vtable group_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = group_open,
    .on_record = group_record,
    .close = group_close,
};

/* ---- ChangelogNormalize ---------------------------------------------------------------- */

typedef struct norm_impl {
    weir__key *key;
    const weir_schema *schema;
    const char *name;
} norm_impl;

static void norm_impl_free(void *p)
{
    norm_impl *n = p;
    if (n)
        free(n->key);
    free(n);
}

typedef struct norm_state {
    int id;
    unsigned char *row;
} norm_state;

static int norm_open(weir_ctx *ctx)
{
    const norm_impl *n = weir_ctx_impl(ctx);
    norm_state *st = calloc(1, sizeof *st);
    if (!st)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, st);
    st->row = calloc(1, n->schema->row_size);
    if (!st->row)
        return WEIR_ENOMEM;
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, n->schema->row_size, &st->id);
    return r ? r : weir_state_prefetch(ctx, st->id); /* every row reads its key's last */
}

static void norm_close(weir_ctx *ctx)
{
    norm_state *st = weir_ctx_state(ctx);
    if (st)
        free(st->row);
    free(st);
}

static int norm_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const norm_impl *n = weir_ctx_impl(ctx);
    norm_state *st = weir_ctx_state(ctx);
    size_t size = n->schema->row_size;
    weir_row_kind kind = weir_row_get_kind(elem);
    unsigned char *last = weir_state_value(ctx, st->id, 0, false);
    if (kind == WEIR_ROW_DELETE || kind == WEIR_ROW_UPDATE_BEFORE) {
        if (!last)
            return 0;
        memcpy(st->row, last, size);
        weir_state_clear(ctx, st->id, 0);
        return emit_kind(ctx, st->row, WEIR_ROW_DELETE, ts);
    }
    if (last) {
        if (memcmp(last + 1, (const unsigned char *)elem + 1, size - 1) == 0)
            return 0;
        memcpy(st->row, last, size);
        memcpy(last, elem, size);
        int r = emit_kind(ctx, st->row, WEIR_ROW_UPDATE_BEFORE, ts);
        if (r)
            return r;
        memcpy(st->row, elem, size);
        return emit_kind(ctx, st->row, WEIR_ROW_UPDATE_AFTER, ts);
    }
    last = weir_state_value(ctx, st->id, 0, true);
    if (!last)
        return weir_ctx_state_error(ctx);
    memcpy(last, elem, size);
    memcpy(st->row, elem, size);
    return emit_kind(ctx, st->row, WEIR_ROW_INSERT, ts);
}

static const weir_operator_vtable norm_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = norm_open,
    .on_record = norm_record,
    .close = norm_close,
};

/* The column names of the unique key, for node names ("id, name"). */
static void key_names(const weir_schema *s, const int *cols, int n, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++)
        weir__append(buf, size, &len, "%s%s", i ? ", " : "", s->cols[cols[i]].name);
}

static int parallelism(const weir_table_env *env)
{
    return env->config.parallelism;
}

static weir_table *normalize(weir_table *in)
{
    weir_table_env *env = in->env;
    char names[256];
    key_names(in->schema, in->ukey, in->nukey, names, sizeof names);
    weir_table *t = weir__table_node(env, in, "ChangelogNormalize(key=[%s])", names);
    if (!t)
        return NULL;
    norm_impl *impl = calloc(1, sizeof *impl);
    t->impl = impl;
    t->impl_free = norm_impl_free;
    if (!impl || !(t->schema = weir__schema_copy(in->schema, in->schema->table)) ||
        weir__table_set_unique_key(t, in->ukey, in->nukey))
        return weir__table_fail(env, WEIR_ENOMEM, "out of memory");
    t->mode = WEIR_CHANGELOG_RETRACT;
    t->rowtime = in->rowtime;
    t->proctime = in->proctime;
    impl->schema = t->schema;
    impl->name = t->name;
    impl->key = weir__key_plan(env, in->schema, names, "ChangelogNormalize");
    if (!impl->key)
        return NULL;
    weir_key_spec ks = {.key_size = impl->key->size, .extract = weir__key_extract, .arg = impl->key,
                        .format = weir__key_format};
    weir_process_spec spec = {
        .name = t->name,
        .kind = "table_changelog_normalize",
        .vtable = &norm_vtable,
        .impl = impl,
        .out_size = t->schema->row_size,
        .parallelism = parallelism(env),
        .accounting = WEIR_ACCOUNTING_ANY,
        .settings_json = weir__table_settings(t, NULL),
    };
    t->stream = weir_stream_process(weir_stream_key_by(in->stream, &ks), &spec);
    return t->stream ? t : NULL;
}

/* `in` itself, or for an upsert table (updates without -U) its
 * ChangelogNormalize; `what` names the caller in the error. */
static weir_table *normalize_upsert(weir_table *in, const char *what)
{
    if (!(in->mode & ~WEIR_CHANGELOG_INSERT_ONLY) ||
        (in->mode & WEIR_CHANGELOG_KIND(WEIR_ROW_UPDATE_BEFORE)))
        return in;
    if (in->nukey == 0)
        return weir__table_fail(in->env, WEIR_EINVAL, "%s: the upsert table %s has no unique key "
                                "to normalize on", what, in->name);
    return normalize(in);
}

weir_table *weir_table_normalize(weir_table *t)
{
    return t ? normalize_upsert(t, "weir_table_normalize") : NULL;
}

/* What the items of a group aggregate are: their names and types, which
 * are the group keys (out_keys) and which aggregates (agg_at). */
typedef struct group_items {
    weir__item_names nm;
    weir_type types[WEIR__LIST_MAX];
    int out_keys[WEIR__LIST_MAX], nout_keys;
    const weir_expr *agg_items[WEIR__LIST_MAX];
    int agg_at[WEIR__LIST_MAX], naggs;
} group_items;

/* The items (compiled against the input, in g->items) sorted into group
 * keys and aggregates. 0, or -1 with env failed. */
static int sort_group_items(weir_table_env *env, group_impl *g, group_items *gi, const char *what)
{
    for (int i = 0; i < g->nitems; i++) {
        weir_expr *e = g->items[i];
        g->item_key[i] = -1;
        if (e->agg == WEIR_AGG_NONE) {
            bool grouped = false;
            for (int k = 0; k < g->key->nkeys; k++)
                grouped = grouped || (e->column >= 0 && e->column == g->key->keys[k]);
            if (!grouped) {
                char echo[WEIR__EXPR_ECHO + 4];
                weir__table_fail(env, WEIR_EINVAL, "%s: '%s' is neither a group key nor an "
                                 "aggregate", what, weir__expr_echo(e->text, echo));
                return -1;
            }
            g->item_key[i] = e->column;
            gi->out_keys[gi->nout_keys++] = i;
        } else {
            gi->agg_items[gi->naggs] = e;
            gi->agg_at[gi->naggs++] = i;
        }
        g->scratch_at[i] = g->scratch;
        uint64_t end = (uint64_t)g->scratch + ((e->scratch + 7u) & ~7u);
        if (end > UINT32_MAX / 2) {
            weir__table_fail(env, WEIR_EINVAL, "%s: the expressions need too much scratch "
                             "memory", what);
            return -1;
        }
        g->scratch = (uint32_t)end;
        if (!weir__item_name(env, what, &gi->nm, e))
            return -1;
        gi->types[i] = e->type;
    }
    return 0;
}

/* The accumulators' layout, and t's schema, changelog mode and unique key.
 * 0, or -1 with env failed. */
static int describe_group_output(weir_table_env *env, const weir_table *in, group_impl *g,
                                 group_items *gi, weir_table *t, const char *what)
{
    bool retract = in->mode != WEIR_CHANGELOG_INSERT_ONLY;
    weir__agg packed[WEIR__LIST_MAX];
    g->acc_size = weir__agg_layout(packed, gi->naggs, gi->agg_items, retract, false);
    for (int j = 0; j < gi->naggs; j++) {
        g->aggs[gi->agg_at[j]] = packed[j];
        g->nlists += packed[j].list;
        const weir__function *f = packed[j].fn;
        if (!f)
            continue;
        if (retract && !f->agg.retract) {
            /* Flink's planner refuses it too, naming the method it lacks */
            char mode[32];
            weir_changelog_mode_format(in->mode, mode, sizeof mode);
            weir__table_fail(env, WEIR_EINVAL, "%s: could not find an implementation method "
                             "'retract' for function '%s': its input %s emits %s (updates "
                             "produced by node %s), and an aggregate of them must retract",
                             what, f->name, in->name, mode,
                             weir__table_update_producer(in)->name);
            return -1;
        }
        g->fn_init = g->fn_init || f->agg.init;
        if (weir__type_is_var(packed[j].out_type.id) &&
            packed[j].out_type.capacity + 1 > g->fn_buf)
            g->fn_buf = packed[j].out_type.capacity + 1;
    }
    g->filter_tests = calloc((size_t)g->nitems, sizeof *g->filter_tests);
    g->arg_col = malloc((size_t)g->nitems * sizeof *g->arg_col);
    if (!g->filter_tests || !g->arg_col) {
        weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
        return -1;
    }
    for (int i = 0; i < g->nitems; i++) {
        const weir__agg *a = &g->aggs[i];
        if (a->kind != WEIR_AGG_NONE && a->filter)
            weir__int_tests_plan(a->filter, &g->filter_tests[i]);
        /* a bare column of its own type: read where the row holds it */
        g->arg_col[i] = a->kind != WEIR_AGG_NONE && a->kind != WEIR_AGG_FUNCTION && a->arg &&
                                a->arg->column >= 0 && a->arg->clock_slot < 0 &&
                                weir__type_same(a->arg->type,
                                                in->schema->cols[a->arg->column].type)
                            ? a->arg->column
                            : -1;
    }
    const char *why;
    t->schema = weir__schema_derive(in->schema, g->nitems, gi->nm.names, gi->types, &why);
    if (!t->schema) {
        weir__table_fail(env, WEIR_EINVAL, "%s: %s", what, why);
        return -1;
    }
    g->out = t->schema;
    g->value_size = sizeof(group_head) + t->schema->row_size + g->acc_size;
    t->mode = retract ? WEIR_CHANGELOG_RETRACT
                      : (WEIR_CHANGELOG_INSERT_ONLY | WEIR_CHANGELOG_KIND(WEIR_ROW_UPDATE_BEFORE) |
                         WEIR_CHANGELOG_KIND(WEIR_ROW_UPDATE_AFTER));
    /* The group keys are the output's unique key when every one is selected. */
    if (g->key->nkeys > 0 && gi->nout_keys == g->key->nkeys) {
        if (weir__table_set_unique_key(t, gi->out_keys, gi->nout_keys)) {
            weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
            return -1;
        }
    }
    if (!retract) {
        /* over inserts: a count or a largest value only grows, a smallest
         * only shrinks (FlinkRelMdModifiedMonotonicity.getMonotonicityOnAggCall;
         * a SUM would need its argument's sign, which weir does not track) */
        unsigned char mono[WEIR__LIST_MAX];
        for (int i = 0; i < g->nitems; i++) {
            weir_agg_kind a = g->items[i]->agg;
            mono[i] = a == WEIR_AGG_NONE ? WEIR__MONO_CONSTANT
                      : a == WEIR_AGG_COUNT || a == WEIR_AGG_COUNT_STAR || a == WEIR_AGG_MAX
                          ? WEIR__MONO_INCREASING
                      : a == WEIR_AGG_MIN ? WEIR__MONO_DECREASING
                                          : WEIR__MONO_NOT;
        }
        if (weir__table_set_monotonicity(t, mono)) {
            weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
            return -1;
        }
    }
    return 0;
}

/* The group aggregate of the n items (taken over). */
static weir_table *group_core(weir_table *in, const char *keys, weir_expr **items, int n,
                              const char *what)
{
    weir_table_env *env = in->env;
    /* Flink's short name, as diagnostics show it: GroupAggregate(keys). */
    weir_table *t = weir__table_node(env, in, "GroupAggregate(%s)", keys ? keys : "");
    group_impl *g = t ? calloc(1, sizeof *g) : NULL;
    if (g)
        g->items = malloc((size_t)n * sizeof *g->items);
    if (!g || !g->items) {
        for (int i = 0; i < n; i++)
            weir_expr_destroy(items[i]);
        free(g);
        return t ? weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what) : NULL;
    }
    memcpy(g->items, items, (size_t)n * sizeof *items);
    g->nitems = n;
    t->impl = g;
    t->impl_free = group_impl_free;
    if (!(g->item_key = calloc((size_t)n, sizeof *g->item_key)) ||
        !(g->scratch_at = calloc((size_t)n, sizeof *g->scratch_at)) ||
        !(g->aggs = calloc((size_t)n, sizeof *g->aggs)))
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    g->key = weir__key_plan(env, in->schema, keys, what);
    if (!g->key)
        return NULL;
    g->in = in->schema;
    g->name = t->name;
    g->ttl_ms = env->config.state_ttl_ms;
    g->virtual_clock = weir_job_get_config(env->job)->clock == WEIR_CLOCK_VIRTUAL;
    group_items *gi = calloc(1, sizeof *gi);
    if (!gi)
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    int r = sort_group_items(env, g, gi, what);
    if (r == 0)
        r = describe_group_output(env, in, g, gi, t, what);
    free(gi);
    if (r)
        return NULL;
    weir_key_spec ks = {.key_size = g->key->size, .extract = weir__key_extract, .arg = g->key,
                        .format = weir__key_format};
    weir_process_spec spec = {
        .name = t->name,
        .kind = "table_group_aggregate",
        .vtable = &group_vtable,
        .impl = g,
        .out_size = t->schema->row_size,
        .parallelism = g->key->nkeys == 0 ? 1 : parallelism(env),
        .accounting = WEIR_ACCOUNTING_ANY,
        .settings_json = weir__table_settings(t, NULL),
    };
    t->stream = weir_stream_process(weir_stream_key_by(in->stream, &ks), &spec);
    return t->stream ? t : NULL;
}

weir_table *weir_table_group_by_exprs(weir_table *in, const char *keys, weir_expr **items, int n)
{
    static const char *what = "weir_table_group_by_exprs";
    bool ok = in && items && n > 0 && n <= WEIR__LIST_MAX;
    for (int i = 0; ok && i < n; i++)
        ok = items[i] != NULL;
    /* An upsert input (updates without -U) is normalized first (the same
     * columns: the items read it as they read `in`). */
    weir_table *src = ok ? normalize_upsert(in, what) : NULL;
    if (!src) {
        for (int i = 0; items && i < n; i++)
            weir_expr_destroy(items[i]);
        if (in && !ok)
            weir__table_fail(in->env, WEIR_EINVAL, "%s: 1 to %d items are required", what,
                             WEIR__LIST_MAX);
        return NULL;
    }
    in = src;
    return group_core(in, keys, items, n, what);
}

weir_table *weir_table_group_by(weir_table *in, const char *keys, const char *items)
{
    static const char *what = "weir_table_group_by";
    if (!in)
        return NULL;
    weir_table_env *env = in->env;
    if (!items)
        return weir__table_fail(env, WEIR_EINVAL, "%s: items are required", what);
    /* An upsert input (updates without -U) is normalized first. */
    if (!(in = normalize_upsert(in, what)))
        return NULL;
    weir_expr *exprs[WEIR__LIST_MAX];
    int n = weir__compile_list(env, what, items, in->schema, 1, exprs);
    if (n < 0)
        return NULL;
    return group_core(in, keys, exprs, n, what);
}
