/* table_semi_join.c — the semi and anti joins' operator (Flink's
 * StreamingSemiAntiJoinOperator): SQL's `x IN (SELECT y ...)` and `EXISTS
 * (SELECT ... WHERE correlated equalities)` (SEMI), `NOT IN` and `NOT
 * EXISTS` (ANTI). The plan is made with the other joins' in table_join.c;
 * SEMANTICS.md 10 holds the rules.
 *
 * State, per join key (every row in one key when the condition holds no
 * equality, as Flink's NOT IN):
 *   - left:  a map, row bytes (kind erased) -> {count, partners}: each
 *            distinct left row with its multiplicity and how many right
 *            rows (each copy counted) it meets (Flink's
 *            OuterJoinRecordStateView);
 *   - right: a map, row bytes -> {count}.
 * A left row goes out with its own kind when it arrives with at least one
 * partner (SEMI) / none (ANTI), and stays in the state. A right row that
 * comes is each left row's partner that meets the condition: a left row
 * that had none goes out (SEMI: with the right row's kind, +I/+U; ANTI:
 * -D); a right row that goes (-U/-D) takes a partner away: a left row that
 * loses its last goes out (SEMI: with the right row's kind, -U/-D; ANTI:
 * +I). Each copy of a left row goes out. The condition is checked on the
 * pair (the left's columns, then the right's) in a buffer of the pair's
 * schema; nothing is allocated per row.
 */
#include <stdlib.h>
#include <string.h>

#include "table_join.h"
#include "weir/error.h"
#include "weir/state.h"

static bool accumulates(const unsigned char *row)
{
    weir_row_kind k = weir_row_get_kind(row);
    return k == WEIR_ROW_INSERT || k == WEIR_ROW_UPDATE_AFTER;
}

typedef struct sj_val {
    int64_t count;
    int64_t partners; /* left rows only */
} sj_val;

typedef struct sj_state {
    int map[2];
    unsigned char *pair;    /* the pair row the condition reads */
    unsigned char *row;     /* a left row going out */
    unsigned char *mkey;    /* a row with its kind erased */
    unsigned char *scratch;
} sj_state;

static void sj_close(weir_ctx *ctx)
{
    sj_state *st = weir_ctx_state(ctx);
    if (!st)
        return;
    free(st->pair);
    free(st->row);
    free(st->mkey);
    free(st->scratch);
    free(st);
}

static int sj_open(weir_ctx *ctx)
{
    const join_impl *j = weir_ctx_impl(ctx);
    sj_state *st = calloc(1, sizeof *st);
    if (!st)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, st);
    size_t l = j->side[0].s->row_size, r = j->side[1].s->row_size;
    st->pair = calloc(1, j->out->row_size);
    st->row = calloc(1, l);
    st->mkey = calloc(1, l > r ? l : r);
    st->scratch = calloc(1, (j->filter ? j->filter->scratch : 0) + 8);
    if (!st->pair || !st->row || !st->mkey || !st->scratch)
        return WEIR_ENOMEM;
    int e = weir_state_declare_map(ctx, l, sizeof(sj_val), &st->map[0]);
    return e ? e : weir_state_declare_map(ctx, r, sizeof(sj_val), &st->map[1]);
}

/* The map key of a row of side s: the row with its kind erased. */
static const unsigned char *key_of(const join_impl *j, sj_state *st, int s,
                                   const unsigned char *row)
{
    memcpy(st->mkey, row, j->side[s].s->row_size);
    st->mkey[0] = WEIR_ROW_INSERT;
    return st->mkey;
}

/* Adds (acc) or takes one copy of a row of side s; a new left row's
 * partners are `partners`. */
static int update(weir_ctx *ctx, const join_impl *j, sj_state *st, int s,
                  const unsigned char *row, bool acc, int64_t partners)
{
    const unsigned char *mk = key_of(j, st, s, row);
    sj_val *v = weir_state_map_get(ctx, st->map[s], 0, mk, acc);
    if (acc) {
        if (!v)
            return weir_ctx_state_error(ctx);
        v->count++;
        v->partners = partners;
    } else if (v) {
        if (v->count <= 1)
            weir_state_map_remove(ctx, st->map[s], 0, mk);
        else
            v->count--;
    }
    return 0;
}

static int emit_left(weir_ctx *ctx, const join_impl *j, sj_state *st, const unsigned char *row,
                     weir_row_kind kind, int64_t copies, int64_t ts)
{
    memcpy(st->row, row, j->side[0].s->row_size);
    st->row[0] = (unsigned char)kind;
    for (int64_t c = 0; c < copies; c++) {
        int r = weir_emit(ctx, st->row, ts);
        if (r)
            return r;
    }
    return 0;
}

static int left_record(weir_ctx *ctx, const join_impl *j, sj_state *st,
                       const unsigned char *row, int64_t ts)
{
    bool acc = accumulates(row);
    int64_t partners = 0;
    if (!weir__join_key_has_null(&j->side[0], row)) {
        weir__join_put_side(j, st->pair, 0, row);
        weir_state_map_iter it;
        weir_state_map_begin(ctx, st->map[1], 0, &it);
        const void *mkey;
        void *val;
        while (weir_state_map_next(&it, &mkey, &val)) {
            weir__join_put_side(j, st->pair, 1, mkey);
            int r = weir__join_pair_passes(ctx, j, st->pair, st->scratch);
            if (r < 0)
                return r;
            if (r)
                partners += ((const sj_val *)val)->count;
        }
    }
    if ((partners == 0) == (j->kind == WEIR_JOIN_ANTI)) {
        int r = weir_emit(ctx, row, ts);
        if (r)
            return r;
    }
    return update(ctx, j, st, 0, row, acc, partners);
}

static int right_record(weir_ctx *ctx, const join_impl *j, sj_state *st,
                        const unsigned char *row, int64_t ts)
{
    bool acc = accumulates(row);
    weir_row_kind kind = weir_row_get_kind(row);
    bool anti = j->kind == WEIR_JOIN_ANTI;
    int r = update(ctx, j, st, 1, row, acc, 0);
    if (r || weir__join_key_has_null(&j->side[1], row))
        return r;
    weir__join_put_side(j, st->pair, 1, row);
    weir_state_map_iter it;
    weir_state_map_begin(ctx, st->map[0], 0, &it);
    const void *mkey;
    void *val;
    while (weir_state_map_next(&it, &mkey, &val)) {
        sj_val *v = val;
        weir__join_put_side(j, st->pair, 0, mkey);
        if ((r = weir__join_pair_passes(ctx, j, st->pair, st->scratch)) < 0)
            return r;
        if (!r)
            continue;
        if (acc && v->partners == 0)
            r = emit_left(ctx, j, st, mkey, anti ? WEIR_ROW_DELETE : kind, v->count, ts);
        else if (!acc && v->partners == 1)
            r = emit_left(ctx, j, st, mkey, anti ? WEIR_ROW_INSERT : kind, v->count, ts);
        else
            r = 0;
        if (r)
            return r;
        v->partners += acc ? 1 : -1;
    }
    return 0;
}

static int sj_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    const join_impl *j = weir_ctx_impl(ctx);
    sj_state *st = weir_ctx_state(ctx);
    return input == 0 ? left_record(ctx, j, st, elem, ts) : right_record(ctx, j, st, elem, ts);
}

const weir_operator_vtable weir__semi_join_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = sj_open,
    .on_record = sj_record,
    .close = sj_close,
};
