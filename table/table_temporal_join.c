/* table_temporal_join.c — the event-time temporal join's operator (Flink's
 * TemporalRowTimeJoinOperator): `l JOIN v FOR SYSTEM_TIME AS OF l.ts ON
 * l.k = v.k`, v a versioned table (a primary key and a rowtime). The plan
 * (its rules and Flink's refusals) is made with the other joins' in
 * table_join.c (weir_table_temporal_join_tree); SEMANTICS.md 10 holds the
 * rules.
 *
 * State, per join key (the inputs keyed by it, as the other joins):
 *   - left:  a map, arrival number -> left row: the rows waiting for the
 *            watermark to reach their time;
 *   - right: a map, version time -> right row (+I/+U, or -D: no version
 *            from then on); a version of the same time replaces the one
 *            before; a -U, and a row whose time is NULL, are not versions;
 *   - meta:  the next arrival number and the one event-time timer the key
 *            has (at the smallest time that needs one).
 * When the timer fires (the watermark, the smaller of both inputs', reached
 * it), the left rows at or below the watermark go out in arrival order,
 * each with the version of largest time at or below its own (binary search
 * over the versions sorted by time); then the versions no left row can need
 * any more are removed: all but the last one at or below the watermark (a
 * -D too: a late version older than it must not become valid). The timer is set again for the earliest waiting left row, or
 * for the time at which the next version falls behind the watermark
 * (Flink's operator leaves those versions until a later left row's timer;
 * weir cleans them on time, with the same results).
 *
 * The output rows carry their left row's kind and time; the watermark
 * passes unchanged (no row is emitted behind it: a left row goes out when
 * the watermark reaches its time). The sort buffers grow with the largest
 * key's state and are kept (no allocation per row once grown).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_join.h"
#include "weir/error.h"
#include "weir/expr_ast.h"
#include "weir/operator_builtin.h"
#include "weir/state.h"

typedef struct tj_meta {
    int64_t next_seq;  /* the next left row's arrival number */
    int64_t timer;     /* the key's registered event-time timer */
    int64_t has_timer; /* 1: timer is set */
} tj_meta;

typedef struct tj_state {
    int left, right, meta; /* the states */
    unsigned char *out;    /* the output row */
    unsigned char *lrow;   /* a left row taken out of its state */
    unsigned char *scratch;
    /* the key's versions sorted (time, row) and the due left rows' numbers */
    unsigned char *ver;
    size_t ver_cap, ver_stride;
    int64_t *due;
    size_t due_cap;
} tj_state;

static void tj_close(weir_ctx *ctx)
{
    tj_state *st = weir_ctx_state(ctx);
    if (!st)
        return;
    free(st->out);
    free(st->lrow);
    free(st->scratch);
    free(st->ver);
    free(st->due);
    free(st);
}

static int tj_open(weir_ctx *ctx)
{
    const join_impl *j = weir_ctx_impl(ctx);
    tj_state *st = calloc(1, sizeof *st);
    if (!st)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, st);
    size_t rsize = j->side[1].s->row_size;
    st->ver_stride = (8 + rsize + 7) & ~(size_t)7;
    st->out = calloc(1, j->out->row_size);
    st->lrow = calloc(1, j->side[0].s->row_size);
    st->scratch = calloc(1, (j->filter ? j->filter->scratch : 0) + 8);
    if (!st->out || !st->lrow || !st->scratch)
        return WEIR_ENOMEM;
    int r = weir_state_declare_map(ctx, 8, j->side[0].s->row_size, &st->left);
    if (r == 0)
        r = weir_state_declare_map(ctx, 8, rsize, &st->right);
    if (r == 0)
        r = weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(tj_meta), &st->meta);
    return r;
}

/* A row's time on side s; false when it is NULL. */
static bool time_of(const join_impl *j, int s, const unsigned char *row, int64_t *t)
{
    const join_side *sd = &j->side[s];
    if (weir__row_null(sd->s, row, sd->rowtime))
        return false;
    memcpy(t, row + sd->s->cols[sd->rowtime].offset, 8);
    return true;
}

/* The key's timer at `at` unless one is set at or below it (Flink's
 * registerSmallestTimer): one timer a key. */
static int smallest_timer(weir_ctx *ctx, tj_state *st, int64_t at)
{
    tj_meta *m = weir_state_value(ctx, st->meta, 0, true);
    if (!m)
        return weir_ctx_state_error(ctx);
    if (m->has_timer && m->timer <= at)
        return 0;
    int64_t old = m->timer;
    bool had = m->has_timer != 0;
    m->timer = at;
    m->has_timer = 1;
    int r = 0;
    if (had)
        r = weir_timer_delete(ctx, WEIR_EVENT_TIME, 0, old);
    return r ? r : weir_timer_register(ctx, WEIR_EVENT_TIME, 0, at);
}

static int emit_row(weir_ctx *ctx, tj_state *st, weir_row_kind kind, int64_t ts)
{
    st->out[0] = (unsigned char)kind;
    return weir_emit(ctx, st->out, ts);
}

static int tj_record_in(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    const join_impl *j = weir_ctx_impl(ctx);
    tj_state *st = weir_ctx_state(ctx);
    const unsigned char *row = elem;
    weir_row_kind kind = weir_row_get_kind(row);
    int64_t t;
    if (input == 0) {
        if (!time_of(j, 0, row, &t)) {
            /* no time: no version is valid for it */
            if (j->kind != WEIR_JOIN_LEFT)
                return 0;
            weir__join_put_side(j, st->out, 0, row);
            weir__join_put_side(j, st->out, 1, NULL);
            return emit_row(ctx, st, kind, ts);
        }
        tj_meta *m = weir_state_value(ctx, st->meta, 0, true);
        if (!m)
            return weir_ctx_state_error(ctx);
        int64_t seq = m->next_seq++;
        int r = weir_state_map_put(ctx, st->left, 0, &seq, row);
        return r ? r : smallest_timer(ctx, st, t);
    }
    if (kind == WEIR_ROW_UPDATE_BEFORE || !time_of(j, 1, row, &t) ||
        weir__join_key_has_null(&j->side[1], row))
        return 0; /* not a version (a NULL key meets nothing) */
    int r = weir_state_map_put(ctx, st->right, 0, &t, row);
    return r ? r : smallest_timer(ctx, st, t);
}

static int cmp_time(const void *a, const void *b)
{
    int64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return x < y ? -1 : x > y;
}

/* Room for n entries of `size` bytes in *buf (grown by doubling). */
static int reserve(weir_ctx *ctx, void **buf, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < n)
        c *= 2;
    void *p = realloc(*buf, c * size);
    if (!p)
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", weir_ctx_name(ctx));
    *buf = p;
    *cap = c;
    return 0;
}

/* The version valid at time t among the n sorted ones: its index, or -1. */
static long version_at(const tj_state *st, size_t n, int64_t t)
{
    long lo = 0, hi = (long)n - 1, found = -1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        int64_t vt;
        memcpy(&vt, st->ver + (size_t)mid * st->ver_stride, 8);
        if (vt <= t) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return found;
}

/* Left row lrow (time t) out, joined with its version or padded. */
static int emit_left(weir_ctx *ctx, const join_impl *j, tj_state *st, size_t nver, int64_t t)
{
    weir_row_kind kind = weir_row_get_kind(st->lrow);
    weir__join_put_side(j, st->out, 0, st->lrow);
    long v = weir__join_key_has_null(&j->side[0], st->lrow) ? -1 : version_at(st, nver, t);
    if (v >= 0) {
        const unsigned char *vrow = st->ver + (size_t)v * st->ver_stride + 8;
        weir_row_kind vk = weir_row_get_kind(vrow);
        if (vk == WEIR_ROW_INSERT || vk == WEIR_ROW_UPDATE_AFTER) {
            weir__join_put_side(j, st->out, 1, vrow);
            int r = weir__join_pair_passes(ctx, j, st->out, st->scratch);
            if (r < 0)
                return r;
            if (r)
                return emit_row(ctx, st, kind, t);
        }
    }
    if (j->kind != WEIR_JOIN_LEFT)
        return 0;
    weir__join_put_side(j, st->out, 1, NULL);
    return emit_row(ctx, st, kind, t);
}

static int tj_timer_in(weir_ctx *ctx, const weir_timer *timer)
{
    const join_impl *j = weir_ctx_impl(ctx);
    tj_state *st = weir_ctx_state(ctx);
    tj_meta *m = weir_state_value(ctx, st->meta, 0, false);
    if (!m || !m->has_timer || m->timer != timer->timestamp)
        return 0; /* a timer replaced by an earlier one */
    m->has_timer = 0;
    int64_t wm = weir_ctx_watermark(ctx);
    size_t rsize = j->side[1].s->row_size;
    int r;
    /* the versions, sorted by time */
    size_t nver = 0;
    weir_state_map_iter it;
    const void *mkey;
    void *val;
    weir_state_map_begin(ctx, st->right, 0, &it);
    while (weir_state_map_next(&it, &mkey, &val)) {
        if ((r = reserve(ctx, (void **)&st->ver, &st->ver_cap, nver + 1, st->ver_stride)))
            return r;
        unsigned char *e = st->ver + nver++ * st->ver_stride;
        memcpy(e, mkey, 8);
        memcpy(e + 8, val, rsize);
    }
    if (nver > 1)
        qsort(st->ver, nver, st->ver_stride, cmp_time);
    /* the left rows due (time at or below the watermark), in arrival order */
    size_t ndue = 0, nleft = 0;
    int64_t next_left = WEIR_TS_MAX;
    weir_state_map_begin(ctx, st->left, 0, &it);
    while (weir_state_map_next(&it, &mkey, &val)) {
        int64_t t = 0;
        time_of(j, 0, val, &t);
        nleft++;
        if (t > wm) {
            if (t < next_left)
                next_left = t;
            continue;
        }
        if ((r = reserve(ctx, (void **)&st->due, &st->due_cap, ndue + 1, sizeof(int64_t))))
            return r;
        memcpy(&st->due[ndue++], mkey, 8);
    }
    if (ndue > 1)
        qsort(st->due, ndue, sizeof(int64_t), cmp_time);
    for (size_t i = 0; i < ndue; i++) {
        const unsigned char *row = weir_state_map_get(ctx, st->left, 0, &st->due[i], false);
        if (!row)
            continue;
        memcpy(st->lrow, row, j->side[0].s->row_size);
        weir_state_map_remove(ctx, st->left, 0, &st->due[i]);
        int64_t t = 0;
        time_of(j, 0, st->lrow, &t);
        if ((r = emit_left(ctx, j, st, nver, t)))
            return r;
    }
    /* the versions no left row can need: those before the last one at or
     * below the watermark (which stays, a deletion too: a late version
     * older than it must not become valid) */
    size_t keep = 0;
    while (keep < nver) {
        int64_t vt;
        memcpy(&vt, st->ver + keep * st->ver_stride, 8);
        if (vt > wm)
            break;
        keep++;
    }
    if (keep > 0)
        keep--;
    for (size_t i = 0; i < keep; i++)
        weir_state_map_remove(ctx, st->right, 0, st->ver + i * st->ver_stride);
    /* the next timer: the earliest waiting left row, or when the oldest
     * version kept falls behind the next one */
    int64_t next = next_left;
    if (nver - keep >= 2) {
        int64_t vt;
        memcpy(&vt, st->ver + (keep + 1) * st->ver_stride, 8);
        if (vt < next)
            next = vt;
    }
    m = weir_state_value(ctx, st->meta, 0, true);
    if (!m)
        return weir_ctx_state_error(ctx);
    if (nleft == ndue)
        m->next_seq = 0; /* nothing waits: the numbers start again */
    if (next == WEIR_TS_MAX) {
        if (m->next_seq == 0)
            weir_state_clear(ctx, st->meta, 0);
        return 0;
    }
    m->timer = next;
    m->has_timer = 1;
    return weir_timer_register(ctx, WEIR_EVENT_TIME, 0, next);
}

/* The join's state for the capture (join_state): the left rows waiting for
 * the watermark, the versions kept; the watermark passes on. */
static void report_state(weir_ctx *ctx, const tj_state *st)
{
    weir_ctx_report_join_state(ctx, (int64_t)weir_state_elements(ctx, st->left),
                               (int64_t)weir_state_elements(ctx, st->right), 0);
}

static int tj_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    int r = tj_record_in(ctx, input, elem, ts);
    report_state(ctx, weir_ctx_state(ctx));
    return r;
}

static int tj_timer(weir_ctx *ctx, const weir_timer *timer)
{
    int r = tj_timer_in(ctx, timer);
    report_state(ctx, weir_ctx_state(ctx));
    return r;
}

const weir_operator_vtable weir__temporal_join_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = tj_open,
    .on_record = tj_record,
    .on_timer = tj_timer,
    .close = tj_close,
};

/* ---- the table API with the condition as text ---------------------------------------- */

weir_table *weir_table_temporal_join_as(weir_table *left, const char *left_name,
                                        weir_table *right, const char *right_name,
                                        weir_join_kind kind, const char *as_of,
                                        const char *condition)
{
    static const char *what = "weir_table_temporal_join";
    if (!left || !right)
        return NULL;
    weir_table_env *env = left->env;
    if (!as_of || !condition)
        return weir__table_fail(env, WEIR_EINVAL, "%s: the time (FOR SYSTEM_TIME AS OF) and a "
                                "join condition are required", what);
    weir_ast_arena *arena = NULL;
    weir_ast *at = NULL, *cond = NULL;
    size_t end = 0, err = 0;
    char msg[256];
    int r = weir_ast_parse(&arena, as_of, 0, &at, &end, &err, msg, sizeof msg);
    if (r == 0 && as_of[end] != 0) {
        r = WEIR_EINVAL;
        snprintf(msg, sizeof msg, "unexpected '%s' after the time", as_of + end);
    }
    if (r == 0)
        r = weir_ast_parse(&arena, condition, 0, &cond, &end, &err, msg, sizeof msg);
    if (r == 0 && condition[end] != 0) {
        r = WEIR_EINVAL;
        snprintf(msg, sizeof msg, "unexpected '%s' after the condition", condition + end);
    }
    weir_table *t = NULL;
    if (r) {
        weir__table_fail(env, r, "%s: %s", what, msg);
    } else {
        weir_expr_scope sc[2];
        const char *names[2] = {left_name, right_name};
        weir_table *in[2] = {left, right};
        for (int s = 0; s < 2; s++) {
            sc[s] = (weir_expr_scope){.schema = in[s]->schema, .ninputs = 1};
            sc[s].inputs[0].qualifier = names[s] ? names[s] : in[s]->schema->table;
            sc[s].inputs[0].columns = in[s]->schema;
        }
        t = weir_table_temporal_join_tree(left, &sc[0], right, &sc[1], kind, at, cond,
                                          condition, &arena, NULL, NULL);
    }
    weir_ast_arena_free(&arena);
    return t;
}
