/* table_join.c — the join engine: one keyed two-input operator on the
 * runtime's keyed state, timers and checkpoints, for the regular join
 * (Flink's StreamingJoinOperator) and the event-time interval join (Flink's
 * RowTimeIntervalJoin under KeyedCoProcessOperatorWithWatermarkDelay).
 * SEMANTICS.md 10 holds the rules.
 *
 * Planning (weir_table_join_tree): the ON condition's conjuncts are sorted
 * into equalities between a column of each side (the join key: both
 * inputs keyed by it, so that a key's rows of both sides meet in one
 * subtask), bounds between the two rowtimes (an interval join, when both
 * inputs are insert-only and the bounds close the interval on both ends),
 * and the rest (a filter checked on each key-matching pair). A key pair of
 * two integer types is compared as BIGINT, two strings at the larger
 * capacity; other pairs must have the same type. A row whose key holds a
 * NULL meets no partner (SQL's = is never true for NULL), but is kept and,
 * on an outer side, padded.
 *
 * Regular join state, per side and key, a map state (Flink's
 * JoinRecordStateViews / OuterJoinRecordStateViews):
 *   - a side with a unique key: unique key bytes -> {count, associations,
 *     row} (one row a unique key; JoinKeyContainsUniqueKey when the join
 *     key holds it: at most one row a join key);
 *   - else: row bytes -> {count, associations} (each distinct row with its
 *     multiplicity).
 * `associations` (outer sides only) is how many partner rows the row has,
 * each copy of a partner counted: a row of an outer side is padded while it
 * is 0. The changelog is the one of StreamingJoinOperator's pseudo-code;
 * where an outer side is involved only +I and -D go out (SEMANTICS.md 10;
 * Flink's code sends a retraction's own kind, -U, for an inner input
 * against an outer other side: SEMANTICS.md wins), and a partner's first
 * match and last loss go -D padded / +I joined and -D joined / +I padded,
 * pair by pair.
 *
 * Interval join state, per side and key: a map (rowtime, row bytes) ->
 * {count, emitted} (Flink's cache of rows by time, each with whether it met
 * a partner), and one value state with the time of each side's clean-up
 * timer. A row joins the other side's cached rows within its bounds,
 * cleaning the other side's expired rows on the way, and is cached while
 * the other side's watermark can still bring it a partner; a timer at its
 * time plus its side's relative size plus half the interval removes it
 * (padded once if it never met a partner on an outer side). The output
 * watermark is the input's held back by max(left relative size, right
 * relative size).
 *
 * A processing-time interval join (Flink's ProcTimeIntervalJoin: bounds
 * between two PROCTIME() attributes) is the same on the job clock: a row's
 * time is the clock when it arrives, the clock stands for the watermark
 * (rows expire by it), the clean-up timers are processing-time timers, the
 * output's records carry no timestamp and the watermark is not held back.
 * On the virtual clock the output is the same on every run.
 *
 * Nothing is allocated per row: the operator's buffers (the output row,
 * a state key, the scratch) are made in open().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"
#include "table_join.h"
#include "weir/error.h"
#include "weir/expr_ast.h"
#include "weir/operator.h"
#include "weir/operator_builtin.h"
#include "weir/state.h"

static void join_impl_free(void *p)
{
    join_impl *j = p;
    if (!j)
        return;
    weir_expr_destroy(j->filter);
    weir_schema_destroy(j->pair);
    free(j->own_name);
    free(j);
}

/* ---- keys ------------------------------------------------------------------------------ */

static void join_key_extract(const void *elem, void *key, void *arg)
{
    const join_keyer *k = arg;
    const join_impl *j = k->j;
    const join_side *sd = &j->side[k->side];
    const unsigned char *row = elem;
    unsigned char *out = key;
    memset(out, 0, j->key_size);
    for (int i = 0; i < j->nkeys; i++) {
        const join_key_part *p = &j->part[i];
        int c = sd->keys[i];
        const weir__col *col = &sd->s->cols[c];
        bool null = weir__row_null(sd->s, row, c);
        if (p->flag)
            *out++ = null;
        if (!null) {
            if (p->as_bigint) {
                weir__val v = {0};
                weir__read_value(row + col->offset, col->type, &v);
                memcpy(out, &v.i, 8);
            } else {
                memcpy(out, row + col->offset, col->size);
            }
        }
        out += p->width;
    }
}

static bool key_has_null(const join_side *sd, const unsigned char *row)
{
    for (int i = 0; i < sd->nkeys; i++)
        if (weir__row_null(sd->s, row, sd->keys[i]))
            return true;
    return false;
}

/* ---- the operator ------------------------------------------------------------------------ */

typedef struct rec_val {
    int64_t count;
    int64_t assoc; /* regular join: partners; interval join: copies that met one */
} rec_val;

typedef struct join_state {
    int map[2];
    int timers;         /* interval join: int64[2], each side's clean-up timer */
    unsigned char *out; /* the output row */
    unsigned char *mkey; /* a state key being made */
    unsigned char *scratch;
} join_state;

static void join_close(weir_ctx *ctx)
{
    join_state *st = weir_ctx_state(ctx);
    if (!st)
        return;
    free(st->out);
    free(st->mkey);
    free(st->scratch);
    free(st);
}

static int join_open(weir_ctx *ctx)
{
    const join_impl *j = weir_ctx_impl(ctx);
    join_state *st = calloc(1, sizeof *st);
    if (!st)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, st);
    size_t mk = j->side[0].mkey_size > j->side[1].mkey_size ? j->side[0].mkey_size
                                                            : j->side[1].mkey_size;
    st->out = calloc(1, j->raw ? 8 : j->out->row_size);
    st->mkey = calloc(1, mk + 8);
    st->scratch = calloc(1, (j->filter ? j->filter->scratch : 0) + 8);
    if (!st->out || !st->mkey || !st->scratch)
        return WEIR_ENOMEM;
    int r = 0;
    for (int s = 0; r == 0 && s < 2; s++) {
        r = weir_state_declare_map(ctx, j->side[s].mkey_size, j->side[s].val_size, &st->map[s]);
        /* Flink's StateConfigUtil.createTtlConfig: a row's entry expires
         * when not written for the TTL, in processing time (a STATE_TTL
         * hint's for its side) */
        int64_t ttl = j->side_ttl_ms[s] > 0 ? j->side_ttl_ms[s] : j->ttl_ms;
        if (r == 0 && ttl > 0)
            r = weir_state_set_ttl(ctx, st->map[s], &(weir_state_ttl){
                                       .ttl_ms = ttl, .time = WEIR_TTL_PROCESSING_TIME,
                                       .update = WEIR_TTL_ON_CREATE_AND_WRITE});
    }
    if (r == 0 && j->interval)
        r = weir_state_declare(ctx, WEIR_STATE_VALUE, 2 * sizeof(int64_t), &st->timers);
    return r;
}

void weir__join_layout(join_impl *j)
{
    for (int s = 0; s < 2; s++) {
        join_side *sd = &j->side[s];
        sd->copy_len = 0;
        if (!sd->s || sd->s->ncols == 0 || !j->out || sd->first + sd->s->ncols > j->out->ncols)
            continue;
        const weir__col *in = sd->s->cols, *out = j->out->cols + sd->first;
        int n = sd->s->ncols;
        bool same = true;
        for (int c = 0; same && c < n; c++)
            same = out[c].size == in[c].size &&
                   out[c].offset - out[0].offset == in[c].offset - in[0].offset;
        if (!same)
            continue;
        sd->copy_src = in[0].offset;
        sd->copy_dst = out[0].offset;
        sd->copy_len = in[n - 1].offset + in[n - 1].size - in[0].offset;
    }
}

/* Side s's columns of the output row: row's, or NULLs (row NULL). */
static void put_side(const join_impl *j, unsigned char *out, int s, const unsigned char *row)
{
    const join_side *sd = &j->side[s];
    if (sd->copy_len) {
        if (!row) {
            memset(out + sd->copy_dst, 0, sd->copy_len);
            for (int c = 0; c < sd->s->ncols; c++)
                weir__row_set_null_bit(out, sd->first + c, true);
        } else {
            memcpy(out + sd->copy_dst, row + sd->copy_src, sd->copy_len);
            for (int c = 0; c < sd->s->ncols; c++)
                weir__row_set_null_bit(out, sd->first + c, weir__row_null(sd->s, row, c));
        }
        return;
    }
    for (int c = 0; c < sd->s->ncols; c++) {
        int oc = sd->first + c;
        const weir__col *col = &j->out->cols[oc];
        if (!row) {
            memset(out + col->offset, 0, col->size);
            weir__row_set_null_bit(out, oc, true);
        } else {
            memcpy(out + col->offset, row + sd->s->cols[c].offset, col->size);
            weir__row_set_null_bit(out, oc, weir__row_null(sd->s, row, c));
        }
    }
}

int weir__join_pair_passes(weir_ctx *ctx, const join_impl *j, unsigned char *out,
                           unsigned char *scratch)
{
    if (!j->filter)
        return 1;
    weir__val v;
    const char *why = NULL;
    int64_t now = j->filter->clock_slot >= 0 ? weir__table_now(ctx, j->virtual_clock) : 0;
    int r = weir__expr_eval_now(j->filter, out, scratch, now, &v, &why);
    if (r)
        return weir_ctx_fail(ctx, r, "%s: %s in '%s'", j->name, why, j->filter->text);
    return !v.null && v.i;
}

/* The filter on the pair in the output row: 1 pass, 0 not, < 0 failed. */
static int pair_passes(weir_ctx *ctx, const join_impl *j, join_state *st)
{
    return weir__join_pair_passes(ctx, j, st->out, st->scratch);
}

void weir__join_key_extract(const void *elem, void *key, void *arg)
{
    join_key_extract(elem, key, arg);
}

bool weir__join_key_has_null(const join_side *sd, const unsigned char *row)
{
    return key_has_null(sd, row);
}

void weir__join_put_side(const join_impl *j, unsigned char *out, int s, const unsigned char *row)
{
    put_side(j, out, s, row);
}

static int emit_out(weir_ctx *ctx, join_state *st, weir_row_kind kind, int64_t ts)
{
    const join_impl *j = weir_ctx_impl(ctx);
    if (j->proctime)
        ts = WEIR_NO_TIMESTAMP;
    st->out[0] = (unsigned char)kind;
    return weir_emit(ctx, st->out, ts);
}

/* The row of side s padded: out holds input row `row` of side s. */
static int emit_padded(weir_ctx *ctx, const join_impl *j, join_state *st, int s,
                       const unsigned char *row, weir_row_kind kind, int64_t ts)
{
    put_side(j, st->out, s, row);
    put_side(j, st->out, 1 - s, NULL);
    return emit_out(ctx, st, kind, ts);
}

/* The state's map key of a row of side s into st->mkey (kind erased). */
static const unsigned char *map_key_of(const join_impl *j, join_state *st, int s,
                                       const unsigned char *row)
{
    const join_side *sd = &j->side[s];
    if (sd->has_ukey) {
        weir__key_extract(row, st->mkey, (void *)&sd->ukey);
    } else {
        memcpy(st->mkey, row, sd->s->row_size);
        st->mkey[0] = WEIR_ROW_INSERT;
    }
    return st->mkey;
}

/* The row an entry of side s's map holds. */
static const unsigned char *entry_row(const join_side *sd, const void *mkey, const void *val)
{
    return sd->has_ukey ? (const unsigned char *)val + sizeof(rec_val) : mkey;
}

/* ---- regular join ------------------------------------------------------------------------ */

static int regular_record(weir_ctx *ctx, const join_impl *j, join_state *st, int s,
                          const unsigned char *row, int64_t ts)
{
    const join_side *in = &j->side[s], *other = &j->side[1 - s];
    weir_row_kind kind = weir_row_get_kind(row);
    bool acc = kind == WEIR_ROW_INSERT || kind == WEIR_ROW_UPDATE_AFTER;
    bool outer_involved = in->outer || other->outer;
    int r;
    /* state.retract(record) comes first (Flink's order) */
    if (!acc) {
        const unsigned char *mk = map_key_of(j, st, s, row);
        rec_val *v = weir_state_map_get(ctx, st->map[s], 0, mk, false);
        if (v) {
            if (v->count <= 1)
                weir_state_map_remove(ctx, st->map[s], 0, mk);
            else
                v->count--;
        }
    }
    int64_t matched = 0;
    put_side(j, st->out, s, row);
    if (!key_has_null(in, row)) {
        weir_state_map_iter it;
        weir_state_map_begin(ctx, st->map[1 - s], 0, &it);
        const void *mkey;
        void *val;
        while (weir_state_map_next(&it, &mkey, &val)) {
            rec_val *ov = val;
            const unsigned char *orow = entry_row(other, mkey, val);
            put_side(j, st->out, 1 - s, orow);
            if ((r = pair_passes(ctx, j, st)) < 0)
                return r;
            if (!r)
                continue;
            for (int64_t c = 0; c < ov->count; c++) {
                if (acc) {
                    if (other->outer && ov->assoc == 0) {
                        /* -D[null+other], then the pair */
                        if ((r = emit_padded(ctx, j, st, 1 - s, orow, WEIR_ROW_DELETE, ts)))
                            return r;
                        put_side(j, st->out, s, row);
                        put_side(j, st->out, 1 - s, orow);
                    }
                    if ((r = emit_out(ctx, st, outer_involved ? WEIR_ROW_INSERT : kind, ts)))
                        return r;
                } else {
                    if ((r = emit_out(ctx, st, outer_involved ? WEIR_ROW_DELETE : kind, ts)))
                        return r;
                    if (other->outer && ov->assoc == 1) {
                        if ((r = emit_padded(ctx, j, st, 1 - s, orow, WEIR_ROW_INSERT, ts)))
                            return r;
                        put_side(j, st->out, s, row);
                        put_side(j, st->out, 1 - s, orow);
                    }
                }
            }
            matched += ov->count;
            if (other->outer)
                ov->assoc += acc ? 1 : -1;
        }
    }
    if (matched == 0 && in->outer) {
        if ((r = emit_padded(ctx, j, st, s, row, acc ? WEIR_ROW_INSERT : WEIR_ROW_DELETE, ts)))
            return r;
    }
    if (acc) {
        const unsigned char *mk = map_key_of(j, st, s, row);
        rec_val *v = weir_state_map_get(ctx, st->map[s], 0, mk, true);
        if (!v)
            return weir_ctx_state_error(ctx);
        if (in->has_ukey) {
            v->count = 1; /* a unique key's row replaces the one before */
            memcpy((unsigned char *)v + sizeof *v, row, in->s->row_size);
            ((unsigned char *)v)[sizeof *v] = WEIR_ROW_INSERT;
        } else {
            v->count++;
        }
        v->assoc = matched;
    }
    return 0;
}

/* ---- interval join ----------------------------------------------------------------------- */

static int64_t row_time(const join_side *sd, const unsigned char *row, bool *null)
{
    *null = weir__row_null(sd->s, row, sd->rowtime);
    int64_t t = 0;
    if (!*null)
        memcpy(&t, row + sd->s->cols[sd->rowtime].offset, 8);
    return t;
}

/* The output's record timestamp: the left rowtime, or the right one when
 * the left is padded. */
static int64_t out_time(const join_impl *j, const join_state *st)
{
    if (j->proctime)
        return WEIR_NO_TIMESTAMP;
    int c = j->side[0].first + j->side[0].rowtime;
    if (weir__row_null(j->out, st->out, c))
        c = j->side[1].first + j->side[1].rowtime;
    int64_t t;
    memcpy(&t, st->out + j->out->cols[c].offset, 8);
    return t;
}

/* The watermark as Flink's operator time, and the time at or below which
 * rows of a side of relative size `size` can meet no partner any more. */
static int64_t expiration(int64_t wm, int64_t size)
{
    if (wm == WEIR_TS_MIN)
        return WEIR_TS_MIN;
    return wm - size - 1;
}

/* The time of side s's clean-up timer for a row of time `time`. */
static int64_t cleanup_at(const join_impl *j, int s, int64_t time)
{
    return time + j->rel_size[s] + j->min_cleanup + 1;
}

static int register_timer(weir_ctx *ctx, const join_impl *j, int64_t at)
{
    return weir_timer_register(ctx, j->proctime ? WEIR_PROCESSING_TIME : WEIR_EVENT_TIME, 0, at);
}

/* Removes side s's rows at or below `exp`, nexp of them, nkeep others
 * left: a map whose rows all expire is cleared at once (its entries are
 * not looked up again one by one). */
static void drop_expired(weir_ctx *ctx, join_state *st, int s, int64_t exp, int64_t nexp,
                         int64_t nkeep)
{
    if (nexp == 0)
        return;
    if (nkeep == 0) {
        weir_state_clear(ctx, st->map[s], 0);
        return;
    }
    weir_state_map_iter it;
    weir_state_map_begin(ctx, st->map[s], 0, &it);
    const void *mkey;
    while (weir_state_map_next(&it, &mkey, NULL)) {
        int64_t t;
        memcpy(&t, mkey, 8);
        if (t <= exp)
            weir_state_map_remove(ctx, st->map[s], 0, mkey);
    }
}

/* Removes side s's rows at or below `exp`, padding those of an outer side
 * that never met a partner; *any whether rows are left, *earliest the
 * earliest one's time. */
static int remove_expired(weir_ctx *ctx, const join_impl *j, join_state *st, int s, int64_t exp,
                          bool *any, int64_t *earliest)
{
    const join_side *sd = &j->side[s];
    int64_t nexp = 0, nkeep = 0;
    weir_state_map_iter it;
    weir_state_map_begin(ctx, st->map[s], 0, &it);
    const void *mkey;
    void *val;
    int r;
    while (weir_state_map_next(&it, &mkey, &val)) {
        int64_t t;
        memcpy(&t, mkey, 8);
        if (t > exp) {
            if (nkeep++ == 0 || t < *earliest)
                *earliest = t;
            continue;
        }
        nexp++;
        const rec_val *v = val;
        for (int64_t c = v->assoc; sd->outer && c < v->count; c++)
            if ((r = emit_padded(ctx, j, st, s, (const unsigned char *)mkey + 8, WEIR_ROW_INSERT,
                                 t)))
                return r;
    }
    *any = nkeep > 0;
    drop_expired(ctx, st, s, exp, nexp, nkeep);
    return 0;
}

/* Side s's size in the cache: a row's, or a user's element's. */
static size_t side_size(const join_impl *j, int s)
{
    return j->raw ? j->elem_size[s] : j->side[s].s->row_size;
}

/* The pair of `row` (side s, time t) and a cached row of the other side
 * (time ot), `copies` times: 1 if it met the condition, 0 if not, < 0 the
 * error. The output row holds row's side already (not raw). */
static int emit_pairs(weir_ctx *ctx, const join_impl *j, join_state *st, int s,
                      const unsigned char *row, int64_t t, const unsigned char *orow, int64_t ot,
                      int64_t copies)
{
    int r;
    if (j->raw) {
        const void *l = s == 0 ? row : orow, *rr = s == 0 ? orow : row;
        for (int64_t c = 0; c < copies; c++)
            if ((r = j->fn(ctx, l, rr, t > ot ? t : ot, j->arg)))
                return r < 0 ? r : WEIR_ECALLBACK;
        return 1;
    }
    put_side(j, st->out, 1 - s, orow);
    if ((r = pair_passes(ctx, j, st)) <= 0)
        return r;
    int64_t ts = out_time(j, st);
    for (int64_t c = 0; c < copies; c++)
        if ((r = emit_out(ctx, st, WEIR_ROW_INSERT, ts)))
            return r;
    return 1;
}

static int interval_record(weir_ctx *ctx, const join_impl *j, join_state *st, int s,
                           const unsigned char *row, int64_t ts)
{
    const join_side *in = &j->side[s], *other = &j->side[1 - s];
    int64_t wm = j->proctime ? weir_ctx_now(ctx) : weir_ctx_watermark(ctx);
    bool null = false;
    int64_t t = j->raw ? ts : j->proctime ? wm : row_time(in, row, &null);
    if (null)
        return 0; /* no time: it can meet nothing */
    if (j->raw && wm != WEIR_TS_MIN && t < wm) {
        /* Flink's IntervalJoinOperator drops an element behind the watermark */
        weir_ctx_report_late(ctx, row, t, WEIR_TS_MIN, WEIR_TS_MIN, 0, true);
        return 0;
    }
    /* the other side's rows this one can meet: s left: rt in [t - upper,
     * t - lower]; s right: lt in [t + lower, t + upper] */
    int64_t lo = s == 0 ? t - j->upper : t + j->lower;
    int64_t hi = s == 0 ? t - j->lower : t + j->upper;
    int64_t exp = expiration(wm, j->rel_size[1 - s]);
    int64_t emitted = 0;
    bool put = j->raw; /* whether the output row holds this row's side (put when it meets one) */
    if (exp < hi && (j->raw || !key_has_null(in, row))) {
        int r;
        int64_t nexp = 0, nkeep = 0;
        weir_state_map_iter it;
        weir_state_map_begin(ctx, st->map[1 - s], 0, &it);
        const void *mkey;
        void *val;
        while (weir_state_map_next(&it, &mkey, &val)) {
            int64_t ot;
            memcpy(&ot, mkey, 8);
            rec_val *ov = val;
            const unsigned char *orow = (const unsigned char *)mkey + 8;
            if (ot >= lo && ot <= hi) {
                if (!put) {
                    put_side(j, st->out, s, row);
                    put = true;
                }
                if ((r = emit_pairs(ctx, j, st, s, row, t, orow, ot, ov->count)) < 0)
                    return r;
                if (r) {
                    emitted = 1;
                    ov->assoc = ov->count;
                }
            }
            if (ot > exp) {
                nkeep++;
                continue;
            }
            /* a row no row of this side can meet any more: padded (an
             * outer side) in the loop, as Flink's, removed after it */
            nexp++;
            for (int64_t c = ov->assoc; other->outer && c < ov->count; c++)
                if ((r = emit_padded(ctx, j, st, 1 - s, orow, WEIR_ROW_INSERT, ot)))
                    return r;
            if (!j->raw && other->outer && ov->assoc < ov->count)
                put = false;
        }
        drop_expired(ctx, st, 1 - s, exp, nexp, nkeep);
    }
    if (wm == WEIR_TS_MIN || wm < hi) {
        /* the other side can still bring partners: cached */
        memcpy(st->mkey, &t, 8);
        memcpy(st->mkey + 8, row, side_size(j, s));
        if (!j->raw)
            st->mkey[8] = WEIR_ROW_INSERT;
        rec_val *v = weir_state_map_get(ctx, st->map[s], 0, st->mkey, true);
        if (!v)
            return weir_ctx_state_error(ctx);
        v->count++;
        v->assoc += emitted;
        /* a clean-up timer for the side unless one is set (Flink's
         * timerState): one lookup when it is, two when the key has none */
        int64_t *tm = weir_state_value(ctx, st->timers, 0, false);
        if (tm && tm[s] != WEIR_TS_MIN)
            return 0;
        if (!tm) {
            tm = weir_state_value(ctx, st->timers, 0, true);
            if (!tm)
                return weir_ctx_state_error(ctx);
            tm[0] = tm[1] = WEIR_TS_MIN;
        }
        tm[s] = cleanup_at(j, s, t);
        return register_timer(ctx, j, tm[s]);
    } else if (!emitted && in->outer) {
        return emit_padded(ctx, j, st, s, row, WEIR_ROW_INSERT, t);
    }
    return 0;
}

/* The join's state for the capture (join_state): each side's entries (a
 * row and its copies are one), and the watermark's hold-back. */
static void report_state(weir_ctx *ctx, const join_impl *j, const join_state *st)
{
    weir_ctx_report_join_state(ctx, (int64_t)weir_state_elements(ctx, st->map[0]),
                               (int64_t)weir_state_elements(ctx, st->map[1]),
                               j->raw ? 0 : j->delay);
}

static int join_timer(weir_ctx *ctx, const weir_timer *timer)
{
    const join_impl *j = weir_ctx_impl(ctx);
    join_state *st = weir_ctx_state(ctx);
    int64_t wm = j->proctime ? weir_ctx_now(ctx) : weir_ctx_watermark(ctx);
    const int64_t *tm = weir_state_value(ctx, st->timers, 0, false);
    if (tm) {
        /* each side whose timer this is: its expired rows removed, the
         * timer re-armed for the earliest row left (a stale timer, one
         * set again since, does nothing) */
        int64_t at[2] = {tm[0], tm[1]};
        bool changed = false;
        for (int s = 0; s < 2; s++) {
            if (at[s] != timer->timestamp)
                continue;
            int64_t earliest = 0;
            bool any = false;
            int r = remove_expired(ctx, j, st, s, expiration(wm, j->rel_size[s]), &any,
                                   &earliest);
            if (r)
                return r;
            at[s] = WEIR_TS_MIN;
            if (any) {
                at[s] = cleanup_at(j, s, earliest);
                if ((r = register_timer(ctx, j, at[s])))
                    return r;
            }
            changed = true;
        }
        if (changed) {
            if (at[0] == WEIR_TS_MIN && at[1] == WEIR_TS_MIN) {
                weir_state_clear(ctx, st->timers, 0);
            } else {
                int64_t *w = weir_state_value(ctx, st->timers, 0, true);
                if (!w)
                    return weir_ctx_state_error(ctx);
                w[0] = at[0];
                w[1] = at[1];
            }
        }
    }
    report_state(ctx, j, st);
    return 0;
}

static int join_watermark(weir_ctx *ctx, int64_t wm)
{
    const join_impl *j = weir_ctx_impl(ctx);
    if (j->raw || wm == WEIR_TS_MAX || wm < WEIR_TS_MIN + j->delay)
        return weir_emit_watermark(ctx, wm);
    return weir_emit_watermark(ctx, wm - j->delay);
}

static int join_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    const join_impl *j = weir_ctx_impl(ctx);
    join_state *st = weir_ctx_state(ctx);
    int r = j->interval ? interval_record(ctx, j, st, input, elem, ts)
                        : regular_record(ctx, j, st, input, elem, ts);
    report_state(ctx, j, st);
    return r;
}

static const weir_operator_vtable regular_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = join_open,
    .on_record = join_record,
    .close = join_close,
};

static const weir_operator_vtable interval_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = join_open,
    .on_record = join_record,
    .on_watermark = join_watermark,
    .on_timer = join_timer,
    .close = join_close,
};

static const weir_operator_vtable *vtable_of(const join_impl *j)
{
    if (j->kind == WEIR_JOIN_SEMI || j->kind == WEIR_JOIN_ANTI)
        return &weir__semi_join_vtable;
    return j->temporal ? &weir__temporal_join_vtable
                       : j->interval ? &interval_vtable : &regular_vtable;
}

weir_stream *weir__join_connect(weir_table *t, weir_table *left, weir_table *right,
                               const join_impl *j, const weir_process_spec *spec,
                               const char *uid_kind)
{
    weir_key_spec ks[2];
    for (int s = 0; s < 2; s++)
        ks[s] = (weir_key_spec){.key_size = j->key_size, .extract = join_key_extract,
                                .arg = (void *)&j->keyer[s]};
    weir_stream *st = weir_stream_connect(weir_stream_key_by(left->stream, &ks[0]),
                                          weir_stream_key_by(right->stream, &ks[1]), spec);
    if (!st)
        return NULL;
    /* The uid in checkpoints: the node's name is too long for a state
     * file's name (a condition of any length), so a hash of it, which the
     * same plan gives again at a restore. */
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *c = t->name; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    char uid[64];
    snprintf(uid, sizeof uid, "%s-%016llx", uid_kind, (unsigned long long)h);
    return weir_stream_set_uid(st, uid);
}

/* ---- planning ---------------------------------------------------------------------------- */

typedef struct join_plan {
    weir_table_env *env;
    weir_table *in[2];
    weir_expr_scope sc[2]; /* each side's inputs and their qualifiers */
    weir_join_kind kind;
    weir_ast_arena **arena;
    const char *what;
    /* what the conjuncts gave */
    int nkeys;
    int keys[JOIN_MAX_KEYS][2];
    bool has_lower, has_upper;
    int64_t lower, upper;
    const weir_ast *bounds[8];
    int nbounds;
    const weir_ast *rest[WEIR__LIST_MAX];
    int nrest;
    int time_kind; /* the bounds' time attributes: 0 none yet, 1 rowtimes, 2 PROCTIME()s */
} join_plan;

int weir__join_name_sides(const weir_expr_scope sc[2], const weir_ast *a, int *side, int *col)
{
    int found = 0;
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < sc[s].ninputs; k++) {
            const char *q = sc[s].inputs[k].qualifier;
            if (a->qualifier && (!q || strcmp(a->qualifier, q) != 0))
                continue;
            int c = weir_schema_column_index(sc[s].inputs[k].columns, a->text);
            if (c >= 0) {
                *side = s;
                *col = sc[s].inputs[k].first + c;
                found++;
            }
        }
    }
    return found;
}

/* A column name of the condition: its side and column, or false (not a
 * plain column of exactly one side). */
static bool resolve(const join_plan *p, const weir_ast *a, int *side, int *col)
{
    *side = *col = -1;
    return a && a->kind == WEIR_AST_NAME && weir__join_name_sides(p->sc, a, side, col) == 1;
}

/* A side of a bound: a rowtime, plus or minus an interval. */
static bool time_term(join_plan *p, const weir_ast *a, int *side, int64_t *plus)
{
    *plus = 0;
    if (a && a->kind == WEIR_AST_BINARY && (a->op == WEIR_AST_ADD || a->op == WEIR_AST_SUB) &&
        a->b && a->b->kind == WEIR_AST_INTERVAL) {
        *plus = a->op == WEIR_AST_ADD ? a->b->value : -a->b->value;
        a = a->a;
    }
    int col;
    if (!resolve(p, a, side, &col))
        return false;
    /* a rowtime, or a processing-time attribute; both bounds' alike */
    int kind = p->in[*side]->rowtime == col ? 1 : p->in[*side]->proctime == col ? 2 : 0;
    if (!kind || (p->time_kind && p->time_kind != kind))
        return false;
    p->time_kind = kind;
    return true;
}

/* x op y between the rowtimes: left.ts - right.ts op' c, folded into the
 * bounds. False if it is not one. */
static bool bound(join_plan *p, const weir_ast *x, weir_ast_op op, const weir_ast *y)
{
    int sx, sy;
    int64_t cx, cy;
    if (!time_term(p, x, &sx, &cx) || !time_term(p, y, &sy, &cy) || sx == sy)
        return false;
    /* tx + cx op ty + cy  <=>  tx - ty op cy - cx */
    int64_t c = cy - cx;
    if (sx == 1) { /* rt - lt op c  <=>  lt - rt op' -c */
        c = -c;
        op = op == WEIR_AST_LT ? WEIR_AST_GT : op == WEIR_AST_GT ? WEIR_AST_LT
           : op == WEIR_AST_LE ? WEIR_AST_GE : op == WEIR_AST_GE ? WEIR_AST_LE : op;
    }
    switch (op) {
    case WEIR_AST_GE: goto lower;
    case WEIR_AST_GT: c = c + 1; goto lower;
    case WEIR_AST_LE: break;
    case WEIR_AST_LT: c = c - 1; break;
    case WEIR_AST_EQ:
        if (!p->has_lower || c > p->lower)
            p->lower = c;
        p->has_lower = true;
        break;
    default: return false;
    }
    if (!p->has_upper || c < p->upper)
        p->upper = c;
    p->has_upper = true;
    return true;
lower:
    if (!p->has_lower || c > p->lower)
        p->lower = c;
    p->has_lower = true;
    return true;
}

static void add_rest(join_plan *p, const weir_ast *a)
{
    if (p->nrest < WEIR__LIST_MAX)
        p->rest[p->nrest++] = a;
}

/* One conjunct of ON. */
static void conjunct(join_plan *p, const weir_ast *a)
{
    if (a->kind == WEIR_AST_BINARY && a->op == WEIR_AST_AND) {
        conjunct(p, a->a);
        conjunct(p, a->b);
        return;
    }
    if (a->kind == WEIR_AST_BINARY && a->op == WEIR_AST_EQ) {
        int s1, c1, s2, c2;
        if (resolve(p, a->a, &s1, &c1) && resolve(p, a->b, &s2, &c2) && s1 != s2) {
            bool times = (p->in[s1]->rowtime == c1 && p->in[s2]->rowtime == c2) ||
                         (p->in[s1]->proctime == c1 && p->in[s2]->proctime == c2);
            if (times && p->nbounds < 8) { /* a.ts = b.ts: bounds [0, 0] (or a key) */
                p->bounds[p->nbounds++] = a;
                return;
            }
            if (p->nkeys < JOIN_MAX_KEYS) {
                p->keys[p->nkeys][s1] = c1;
                p->keys[p->nkeys][s2] = c2;
                p->nkeys++;
                return;
            }
        }
    }
    if (p->nbounds < 8 &&
        ((a->kind == WEIR_AST_BINARY && a->op >= WEIR_AST_LT && a->op <= WEIR_AST_GE) ||
         (a->kind == WEIR_AST_CALL && a->form == WEIR_AST_FORM_BETWEEN && !a->negate &&
          a->value == 0 && a->nargs == 3))) {
        p->bounds[p->nbounds++] = a;
        return;
    }
    add_rest(p, a);
}

/* Whether the bounds found make an interval join: each folded in, or all
 * back into the rest. */
static void fold_bounds(join_plan *p, bool may_interval)
{
    join_plan saved = *p;
    bool ok = may_interval;
    for (int i = 0; ok && i < p->nbounds; i++) {
        const weir_ast *a = p->bounds[i];
        if (a->kind == WEIR_AST_CALL) /* x BETWEEN lo AND hi */
            ok = bound(p, a->args[0], WEIR_AST_GE, a->args[1]) &&
                 bound(p, a->args[0], WEIR_AST_LE, a->args[2]);
        else
            ok = bound(p, a->a, a->op, a->b);
    }
    if (ok && p->has_lower && p->has_upper)
        return;
    /* not an interval join: the bounds are filters (and a.ts = b.ts a key) */
    int nb = saved.nbounds;
    const weir_ast *b[8];
    memcpy(b, saved.bounds, sizeof b);
    p->has_lower = p->has_upper = false;
    p->time_kind = 0;
    p->nbounds = 0;
    for (int i = 0; i < nb; i++) {
        int s1, c1, s2, c2;
        const weir_ast *a = b[i];
        if (a->kind == WEIR_AST_BINARY && a->op == WEIR_AST_EQ && p->nkeys < JOIN_MAX_KEYS &&
            resolve(p, a->a, &s1, &c1) && resolve(p, a->b, &s2, &c2) && s1 != s2) {
            p->keys[p->nkeys][s1] = c1;
            p->keys[p->nkeys][s2] = c2;
            p->nkeys++;
        } else {
            add_rest(p, a);
        }
    }
}

static const char *const kind_names[] = {[WEIR_JOIN_INNER] = "InnerJoin",
                                         [WEIR_JOIN_LEFT] = "LeftOuterJoin",
                                         [WEIR_JOIN_RIGHT] = "RightOuterJoin",
                                         [WEIR_JOIN_FULL] = "FullOuterJoin",
                                         [WEIR_JOIN_SEMI] = "LeftSemiJoin",
                                         [WEIR_JOIN_ANTI] = "LeftAntiJoin"};

/* A join's output schema: the left's columns then the right's, a name
 * taken twice made unique with a number (a, a0, a1, ...), a side padded
 * with NULLs by an outer join made nullable; derived from the left's
 * schema, so the session's capacities stay. */
weir_schema *weir__join_output_schema(const weir_schema *l, const weir_schema *r,
                                      bool l_nullable, bool r_nullable, const char **why)
{
    int n = l->ncols + r->ncols;
    const char **names = calloc((size_t)n, sizeof *names);
    char (*made)[160] = calloc((size_t)n, sizeof *made);
    weir_type *types = calloc((size_t)n, sizeof *types);
    weir_schema *s = NULL;
    *why = "out of memory";
    if (names && made && types) {
        for (int c = 0; c < n; c++) {
            const weir_schema *in = c < l->ncols ? l : r;
            int ic = c < l->ncols ? c : c - l->ncols;
            types[c] = in->cols[ic].type;
            if (c < l->ncols ? l_nullable : r_nullable)
                types[c].not_null = false;
            snprintf(made[c], sizeof made[c], "%s", in->cols[ic].name);
            for (int k = 0;; k++) {
                bool taken = false;
                for (int d = 0; d < c && !taken; d++)
                    taken = strcmp(made[d], made[c]) == 0;
                if (!taken)
                    break;
                snprintf(made[c], sizeof made[c], "%s%d", in->cols[ic].name, k);
            }
            names[c] = made[c];
        }
        s = weir__schema_derive(l, n, names, types, why);
    }
    free(names);
    free(made);
    free(types);
    return s;
}

int weir__join_key_add(weir_table_env *env, const char *what, join_impl *j,
                       const weir_schema *ls, int lc, const weir_schema *rs, int rc)
{
    const weir__col *a = &ls->cols[lc];
    const weir__col *b = &rs->cols[rc];
    join_key_part *k = &j->part[j->nkeys];
    k->flag = !a->type.not_null || !b->type.not_null;
    k->type = a->type;
    bool ints_a = weir__type_is_integer(a->type.id), ints_b = weir__type_is_integer(b->type.id);
    if (ints_a && ints_b && a->type.id != b->type.id) {
        k->as_bigint = true;
        k->width = 8;
    } else if (weir__type_is_var(a->type.id) && a->type.id == b->type.id) {
        k->width = a->size > b->size ? a->size : b->size;
    } else if (a->type.id == b->type.id && a->size == b->size &&
               a->type.precision == b->type.precision && a->type.scale == b->type.scale) {
        k->width = a->size;
    } else {
        char ta[48], tb[48];
        weir_type_format(a->type, ta, sizeof ta);
        weir_type_format(b->type, tb, sizeof tb);
        weir__table_fail(env, WEIR_EINVAL, "%s: the join key %s = %s compares %s with "
                         "%s: CAST one side to the other's type", what, a->name, b->name,
                         ta, tb);
        return -1;
    }
    j->side[0].keys[j->nkeys] = lc;
    j->side[1].keys[j->nkeys] = rc;
    j->key_size += k->flag + k->width;
    j->nkeys++;
    j->side[0].nkeys = j->side[1].nkeys = j->nkeys;
    return 0;
}

int weir__join_key_fits(weir_table_env *env, const char *what, const join_impl *j)
{
    if (j->key_size > WEIR_MAX_KEY_SIZE) {
        weir__table_fail(env, WEIR_EINVAL, "%s: the join key takes %zu bytes, more than %d "
                         "(shorter string capacities would fit)", what, j->key_size,
                         WEIR_MAX_KEY_SIZE);
        return -1;
    }
    return 0;
}

/* The key parts: each pair's types, compared as what. 0, or -1 with env
 * failed. */
static int key_parts(join_plan *p, join_impl *j)
{
    j->key_size = 0;
    j->nkeys = j->side[0].nkeys = j->side[1].nkeys = 0;
    for (int i = 0; i < p->nkeys; i++)
        if (weir__join_key_add(p->env, p->what, j, p->in[0]->schema, p->keys[i][0],
                               p->in[1]->schema, p->keys[i][1]))
            return -1;
    return weir__join_key_fits(p->env, p->what, j);
}

/* Each side's state layout (JoinInputSideSpec). */
static void side_specs(join_plan *p, join_impl *j)
{
    for (int s = 0; s < 2; s++) {
        join_side *sd = &j->side[s];
        const weir_table *t = p->in[s];
        sd->s = t->schema;
        sd->first = s == 0 ? 0 : p->in[0]->schema->ncols;
        sd->outer = s == 0 ? (p->kind == WEIR_JOIN_LEFT || p->kind == WEIR_JOIN_FULL)
                           : (p->kind == WEIR_JOIN_RIGHT || p->kind == WEIR_JOIN_FULL);
        sd->rowtime = t->rowtime;
        if (!j->interval && t->nukey > 0 && t->nukey <= WEIR__LIST_MAX) {
            sd->has_ukey = true;
            sd->ukey.in = t->schema;
            sd->ukey.nkeys = t->nukey;
            sd->ukey.size = 0;
            sd->key_holds_ukey = true;
            for (int k = 0; k < t->nukey; k++) {
                int c = t->ukey[k];
                sd->ukey.keys[k] = c;
                sd->ukey.flag[k] = !t->schema->cols[c].type.not_null;
                sd->ukey.size += sd->ukey.flag[k] + t->schema->cols[c].size;
                bool in_key = false;
                for (int i = 0; i < sd->nkeys; i++)
                    in_key = in_key || sd->keys[i] == c;
                sd->key_holds_ukey = sd->key_holds_ukey && in_key;
            }
            if (sd->ukey.size == 8 && sd->ukey.nkeys == 1 && sd->ukey.flag[0])
                sd->ukey.size = 9; /* weir__key_extract's 8-byte fast path is for NOT NULL */
            sd->mkey_size = (uint32_t)sd->ukey.size;
            sd->val_size = (uint32_t)(sizeof(rec_val) + t->schema->row_size);
        } else {
            sd->mkey_size = (uint32_t)(t->schema->row_size + (j->interval ? 8 : 0));
            sd->val_size = sizeof(rec_val);
        }
    }
}

static const char *spec_name(const join_side *sd)
{
    return sd->has_ukey ? (sd->key_holds_ukey ? "JoinKeyContainsUniqueKey" : "HasUniqueKey")
                        : "NoUniqueKey";
}

weir_ast *weir__join_rest_tree(weir_ast_arena **arena, const weir_ast *const *rest, int nrest,
                               bool *oom)
{
    *oom = false;
    weir_ast *t = NULL;
    for (int i = 0; i < nrest; i++) {
        if (!t) {
            t = (weir_ast *)rest[i];
            continue;
        }
        weir_ast *n = weir_ast_new(arena, WEIR_AST_BINARY, NULL, t->start, rest[i]->end);
        if (!n) {
            *oom = true;
            return NULL;
        }
        n->op = WEIR_AST_AND;
        n->a = t;
        n->b = (weir_ast *)rest[i];
        n->depth = (t->depth > rest[i]->depth ? t->depth : rest[i]->depth) + 1;
        t = n;
    }
    return t;
}

/* The rest of ON as one tree (AND of the conjuncts), or NULL. */
static weir_ast *rest_tree(join_plan *p, bool *oom)
{
    return weir__join_rest_tree(p->arena, p->rest, p->nrest, oom);
}

/* The scope of the join's output: the left's inputs, then the right's. */
static void join_scope(const join_plan *p, const weir_schema *schema, weir_expr_scope *out)
{
    *out = (weir_expr_scope){.schema = schema, .zone = p->env->config.time_zone};
    int first = 0;
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < p->sc[s].ninputs; k++) {
            out->inputs[out->ninputs] = p->sc[s].inputs[k];
            out->inputs[out->ninputs].first += first;
            out->ninputs++;
        }
        first = p->in[0]->schema->ncols;
    }
}

/* A side's scope: the caller's, or the table's columns under qualifier q. */
static void side_scope(weir_expr_scope *out, const weir_expr_scope *given, const weir_table *t,
                       const char *q)
{
    if (given && given->ninputs > 0) {
        *out = *given;
        return;
    }
    *out = (weir_expr_scope){.schema = t->schema, .ninputs = 1};
    out->inputs[0].qualifier = q;
    out->inputs[0].columns = t->schema;
    out->inputs[0].first = 0;
}

/* A temporal join's own rules (Flink's LogicalCorrelateToJoinFromTemporalTable
 * and TemporalJoinRewriteWithUniqueKey rules, with their messages): AS OF
 * the left's rowtime, a right side with a rowtime of the same type and a
 * primary key held by the equalities. 0, or -1 with env failed. */
static int temporal_rules(const join_plan *p, const weir_schema *schema, const weir_ast *as_of,
                          size_t *err_at)
{
    const weir_table *l = p->in[0], *r = p->in[1];
    int side, col;
    if (!resolve(p, as_of, &side, &col) || side != 0 || col != l->rowtime) {
        if (err_at)
            *err_at = as_of->start;
        weir__table_fail(p->env, WEIR_EINVAL, "Temporal table join currently only supports "
                         "'FOR SYSTEM_TIME AS OF' left table's time attribute field");
        return -1;
    }
    if (r->rowtime < 0) {
        weir__table_fail(p->env, WEIR_EINVAL, "Event-Time Temporal Table Join requires both "
                         "primary key and row time attribute in versioned table, but no row "
                         "time attribute can be found.");
        return -1;
    }
    weir_type lt = l->schema->cols[l->rowtime].type, rt = r->schema->cols[r->rowtime].type;
    if (lt.id != rt.id) {
        char a[48], b[48];
        lt.not_null = rt.not_null = true; /* Flink's message shows no NOT NULL */
        weir_type_format(lt, a, sizeof a);
        weir_type_format(rt, b, sizeof b);
        weir__table_fail(p->env, WEIR_EINVAL, "Event-Time Temporal Table Join requires same "
                         "rowtime type in left table and versioned table, but the rowtime "
                         "types are %s *ROWTIME* and %s *ROWTIME*.", a, b);
        return -1;
    }
    if (r->nukey == 0) {
        weir__table_fail(p->env, WEIR_EINVAL, "Temporal Table Join requires primary key in "
                         "versioned table, but no primary key can be found.");
        return -1;
    }
    for (int k = 0; k < r->nukey; k++) {
        bool held = false;
        for (int i = 0; i < p->nkeys; i++)
            held = held || p->keys[i][1] == r->ukey[k];
        if (held)
            continue;
        char pk[512] = "", eq[512] = "";
        size_t n = 0;
        for (int u = 0; u < r->nukey && n < sizeof pk; u++)
            n += (size_t)snprintf(pk + n, sizeof pk - n, "%s%s", u ? "," : "",
                                  schema->cols[l->schema->ncols + r->ukey[u]].name);
        n = 0;
        for (int i = 0; i < p->nkeys && n < sizeof eq; i++)
            n += (size_t)snprintf(eq + n, sizeof eq - n, "%s%s=%s", i ? "," : "",
                                  l->schema->cols[p->keys[i][0]].name,
                                  r->schema->cols[p->keys[i][1]].name);
        weir__table_fail(p->env, WEIR_EINVAL, "Temporal table's primary key [%s] must be "
                         "included in the equivalence condition of temporal join, but current "
                         "temporal join condition is [%s].", pk, eq);
        return -1;
    }
    return 0;
}

/* A regular or interval join (as_of NULL), or an event-time temporal join
 * FOR SYSTEM_TIME AS OF as_of. */
static weir_table *join_tree(weir_table *left, const weir_expr_scope *lsc, weir_table *right,
                             const weir_expr_scope *rsc, weir_join_kind kind,
                             const weir_ast *as_of, const weir_ast *cond, const char *text,
                             weir_ast_arena **arena, size_t *err_at, weir_expr_scope *out_scope)
{
    const char *what = as_of ? "weir_table_temporal_join" : "weir_table_join";
    if (!left || !right)
        return NULL;
    weir_table_env *env = left->env;
    if (right->env != env)
        return weir__table_fail(env, WEIR_EINVAL, "%s: the two tables belong to different "
                                "environments", what);
    if (kind < WEIR_JOIN_INNER || kind > WEIR_JOIN_ANTI)
        return weir__table_fail(env, WEIR_EINVAL, "%s: unknown join kind %d", what, (int)kind);
    if (!cond)
        return weir__table_fail(env, WEIR_EINVAL, "%s: a join condition is required", what);
    if (as_of && kind != WEIR_JOIN_INNER && kind != WEIR_JOIN_LEFT)
        return weir__table_fail(env, WEIR_EINVAL, "%s: a temporal join is INNER or LEFT (as "
                                "Flink's)", what);
    /* An upsert input goes through a ChangelogNormalize first (Flink's
     * plan does the same before a join); a temporal join's versioned side
     * is read as it comes (its versions by time; a -U is dropped). */
    if (!(left = weir_table_normalize(left)) ||
        !(right = as_of ? right : weir_table_normalize(right)))
        return NULL;
    join_plan p = {.env = env, .in = {left, right}, .kind = kind, .arena = arena,
                   .what = what};
    side_scope(&p.sc[0], lsc, left, NULL);
    side_scope(&p.sc[1], rsc, right, NULL);
    if (p.sc[0].ninputs + p.sc[1].ninputs > 4)
        return weir__table_fail(env, WEIR_EINVAL, "%s: a join of more than 4 tables", what);
    conjunct(&p, cond);
    bool semi = kind == WEIR_JOIN_SEMI || kind == WEIR_JOIN_ANTI;
    bool may_interval = !as_of && !semi && left->mode == WEIR_CHANGELOG_INSERT_ONLY &&
                        right->mode == WEIR_CHANGELOG_INSERT_ONLY &&
                        ((left->rowtime >= 0 && right->rowtime >= 0) ||
                         (left->proctime >= 0 && right->proctime >= 0));
    fold_bounds(&p, may_interval);
    char cond_text[512];
    weir_ast_format(cond, cond_text, sizeof cond_text);
    /* the output's columns, and the rest of ON bound over them in the
     * scope of both inputs (an unknown column is said before a missing
     * equality, as Flink's validator does) */
    const char *why;
    weir_schema *schema = weir__join_output_schema(
        p.in[0]->schema, p.in[1]->schema, p.kind == WEIR_JOIN_RIGHT || p.kind == WEIR_JOIN_FULL,
        p.kind == WEIR_JOIN_LEFT || p.kind == WEIR_JOIN_FULL, &why);
    if (!schema)
        return weir__table_fail(env, WEIR_EINVAL, "%s: %s", what, why);
    weir_expr *filter = NULL;
    bool oom;
    weir_ast *rest = rest_tree(&p, &oom);
    if (oom) {
        weir_schema_destroy(schema);
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    }
    if (rest) {
        weir_expr_scope scope;
        join_scope(&p, schema, &scope);
        size_t at = 0;
        char msg[1024];
        int r = weir_expr_bind(rest, text, &scope, -1, NULL, &filter, &at, msg, sizeof msg);
        if (r == 0 && weir_expr_type(filter).id != WEIR_TYPE_BOOLEAN) {
            r = WEIR_EINVAL;
            snprintf(msg, sizeof msg, "%s: the join condition '%s' is not BOOLEAN", what,
                     cond_text);
        } else if (r && err_at) {
            *err_at = at;
        }
        if (r) {
            weir_expr_destroy(filter);
            weir_schema_destroy(schema);
            return weir__table_fail(env, r, "%s", msg);
        }
    }
    if (as_of && temporal_rules(&p, schema, as_of, err_at)) {
        weir_expr_destroy(filter);
        weir_schema_destroy(schema);
        return NULL;
    }
    if (p.nkeys == 0 && !semi) {
        weir_expr_destroy(filter);
        weir_schema_destroy(schema);
        return weir__table_fail(env, WEIR_EINVAL, "Invalid join condition: %s. At least one "
                                "equi-join predicate is required.", cond_text);
    }
    /* two inputs windowed alike, ON their window starts and ends: a window
     * join (table_window_join.c) */
    int wj = weir__window_join_match(env, left, right, p.nkeys, (const int (*)[2])p.keys,
                                     cond_text);
    if (wj) {
        if (wj > 0 && out_scope && semi) { /* the left's names, as the regular semi join's */
            *out_scope = p.sc[0];
            out_scope->schema = left->schema;
            out_scope->zone = env->config.time_zone;
        } else if (wj > 0 && out_scope) {
            join_scope(&p, schema, out_scope);
        }
        if (wj > 0)
            return weir__window_join(left, right, kind, p.nkeys, (const int (*)[2])p.keys,
                                     filter, schema, cond_text);
        weir_expr_destroy(filter);
        weir_schema_destroy(schema);
        return NULL;
    }
    bool interval = p.has_lower && p.has_upper;
    bool proctime = interval && p.time_kind == 2;
    weir_table *t;
    if (as_of)
        t = weir__table_node(env, left,
                             "TemporalJoin(joinType=[%s], where=[%s], leftTimeIndex=%d, "
                             "rightTimeIndex=%d)", kind_names[kind], cond_text, left->rowtime,
                             right->rowtime);
    else if (interval)
        t = weir__table_node(env, left,
                             "IntervalJoin(joinType=[%s], windowBounds=[isRowTime=%s, "
                             "leftLowerBound=%lld, leftUpperBound=%lld, leftTimeIndex=%d, "
                             "rightTimeIndex=%d], where=[%s])",
                             kind_names[kind], proctime ? "false" : "true", (long long)p.lower,
                             (long long)p.upper, proctime ? left->proctime : left->rowtime,
                             proctime ? right->proctime : right->rowtime, cond_text);
    else
        t = weir__table_node(env, left, "Join(joinType=[%s], where=[%s])", kind_names[kind],
                             semi && cond->kind == WEIR_AST_BOOLEAN ? "true" : cond_text);
    join_impl *j = t ? calloc(1, sizeof *j) : NULL;
    if (!j) {
        weir_expr_destroy(filter);
        weir_schema_destroy(schema);
        return t ? weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what) : NULL;
    }
    j->filter = filter;
    t->impl = j;
    t->impl_free = join_impl_free;
    if (semi) { /* the left's columns go out; the pair's are the condition's */
        j->pair = schema;
        schema = weir__schema_copy(left->schema, left->schema->table);
        if (!schema)
            return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    }
    t->schema = schema;
    t->more = malloc(sizeof *t->more);
    if (!t->more)
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    t->more[0] = right;
    t->nmore = 1;
    j->kind = kind;
    j->interval = interval;
    j->proctime = proctime;
    j->ttl_ms = interval || as_of ? 0 : env->config.state_ttl_ms; /* these clean by time */
    j->temporal = as_of != NULL;
    j->name = t->name;
    j->virtual_clock = weir_job_get_config(env->job)->clock == WEIR_CLOCK_VIRTUAL;
    j->out = semi ? j->pair : t->schema;
    if (key_parts(&p, j))
        return NULL;
    if (j->key_size == 0)
        j->key_size = 1; /* no equality: every row in one key (a zero byte) */
    side_specs(&p, j);
    weir__join_layout(j);
    if (as_of) {
        /* the left's kinds on each row (Flink's), its rowtime the output's */
        t->mode = left->mode;
        t->rowtime = left->rowtime;
    } else if (interval) {
        j->lower = p.lower;
        j->upper = p.upper;
        j->rel_size[0] = -p.lower;
        j->rel_size[1] = p.upper;
        j->min_cleanup = (j->rel_size[0] + j->rel_size[1]) / 2;
        j->delay = j->rel_size[0] > j->rel_size[1] ? j->rel_size[0] : j->rel_size[1];
        t->mode = WEIR_CHANGELOG_INSERT_ONLY;
        if (proctime) {
            /* on the job clock: no watermark held back; the left's
             * processing-time attribute stays one */
            j->delay = 0;
            t->rowtime = -1;
            t->proctime = left->proctime;
        } else {
            t->rowtime = j->side[0].rowtime;
            t->rowtime2 = j->side[1].first + j->side[1].rowtime;
        }
    } else if (semi) {
        t->mode = kind == WEIR_JOIN_SEMI && left->mode == WEIR_CHANGELOG_INSERT_ONLY &&
                          right->mode == WEIR_CHANGELOG_INSERT_ONLY
                      ? WEIR_CHANGELOG_INSERT_ONLY
                      : WEIR_CHANGELOG_RETRACT;
        t->rowtime = -1; /* the rowtime becomes a plain timestamp */
        if (left->nukey > 0 && weir__table_set_unique_key(t, left->ukey, left->nukey))
            return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    } else {
        t->mode = kind == WEIR_JOIN_INNER && left->mode == WEIR_CHANGELOG_INSERT_ONLY &&
                          right->mode == WEIR_CHANGELOG_INSERT_ONLY
                      ? WEIR_CHANGELOG_INSERT_ONLY
                      : WEIR_CHANGELOG_RETRACT;
        t->rowtime = -1; /* the rowtimes become plain timestamps */
    }
    if (out_scope && semi) {
        *out_scope = p.sc[0];
        out_scope->schema = t->schema;
        out_scope->zone = env->config.time_zone;
    } else if (out_scope) {
        join_scope(&p, t->schema, out_scope);
    }
    for (int s = 0; s < 2; s++)
        j->keyer[s] = (join_keyer){.j = j, .side = s};
    char extra[256];
    snprintf(extra, sizeof extra, "\"join_type\":\"%s\",\"left_input_spec\":\"%s\","
             "\"right_input_spec\":\"%s\"%s", kind_names[kind], spec_name(&j->side[0]),
             spec_name(&j->side[1]), interval ? ",\"watermark_delay_ms\":" : "");
    if (interval)
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "%lld",
                 (long long)j->delay);
    weir_process_spec spec = {
        .name = t->name,
        .kind = j->temporal ? "table_temporal_join" : semi ? "table_semi_join"
                : interval ? "table_interval_join" : "table_join",
        .vtable = vtable_of(j),
        .impl = j,
        .out_size = t->schema->row_size,
        .parallelism = env->config.parallelism,
        .accounting = WEIR_ACCOUNTING_ANY,
        .settings_json = weir__table_settings(t, extra),
    };
    t->stream = weir__join_connect(t, left, right, j, &spec,
                                   j->temporal ? "TemporalJoin" : interval ? "IntervalJoin"
                                                                           : "Join");
    return t->stream ? t : NULL;
}

weir_table *weir_table_join_tree(weir_table *left, const weir_expr_scope *lsc, weir_table *right,
                                 const weir_expr_scope *rsc, weir_join_kind kind,
                                 const weir_ast *cond, const char *text, weir_ast_arena **arena,
                                 size_t *err_at, weir_expr_scope *out_scope)
{
    return join_tree(left, lsc, right, rsc, kind, NULL, cond, text, arena, err_at, out_scope);
}

weir_table *weir_table_temporal_join_tree(weir_table *left, const weir_expr_scope *lsc,
                                          weir_table *right, const weir_expr_scope *rsc,
                                          weir_join_kind kind, const weir_ast *as_of,
                                          const weir_ast *cond, const char *text,
                                          weir_ast_arena **arena, size_t *err_at,
                                          weir_expr_scope *out_scope)
{
    if (left && right && !as_of)
        return weir__table_fail(left->env, WEIR_EINVAL, "weir_table_temporal_join: the time "
                                "(FOR SYSTEM_TIME AS OF) is required");
    return join_tree(left, lsc, right, rsc, kind, as_of, cond, text, arena, err_at, out_scope);
}

int weir__table_join_operator(const weir_table *t, weir_process_spec *spec, weir_key_spec keys[2])
{
    if (!t || (t->impl_free != join_impl_free))
        return WEIR_EINVAL;
    const join_impl *j = t->impl;
    *spec = (weir_process_spec){
        .name = t->name,
        .kind = j->temporal ? "table_temporal_join" : j->interval ? "table_interval_join"
                                                                 : "table_join",
        .vtable = vtable_of(j),
        .impl = (void *)j,
        .out_size = t->schema->row_size,
        .parallelism = 1,
        .accounting = WEIR_ACCOUNTING_ANY,
    };
    for (int s = 0; s < 2; s++)
        keys[s] = (weir_key_spec){.key_size = j->key_size, .extract = join_key_extract,
                                  .arg = (void *)&j->keyer[s]};
    return 0;
}

int weir_table_join_state_ttl(weir_table *t, int64_t left_ms, int64_t right_ms)
{
    if (!t)
        return WEIR_EINVAL;
    const join_impl *c = t->impl_free == join_impl_free ? t->impl : NULL;
    if (!c || c->interval || c->temporal || c->raw || c->kind == WEIR_JOIN_SEMI ||
        c->kind == WEIR_JOIN_ANTI) {
        weir__table_fail(t->env, WEIR_EINVAL, "weir_table_join_state_ttl: '%s' is not a regular "
                         "join (a state TTL is a regular join's)", t->name);
        return WEIR_EINVAL;
    }
    if (left_ms < 0 || right_ms < 0) {
        weir__table_fail(t->env, WEIR_EINVAL, "weir_table_join_state_ttl: a negative time to "
                         "live");
        return WEIR_EINVAL;
    }
    join_impl *j = t->impl;
    if (left_ms)
        j->side_ttl_ms[0] = left_ms;
    if (right_ms)
        j->side_ttl_ms[1] = right_ms;
    return 0;
}

weir_table *weir_table_join_as(weir_table *left, const char *left_name, weir_table *right,
                               const char *right_name, weir_join_kind kind, const char *condition)
{
    if (!left || !right)
        return NULL;
    weir_table_env *env = left->env;
    if (!condition)
        return weir__table_fail(env, WEIR_EINVAL, "weir_table_join: a join condition is "
                                "required");
    weir_ast_arena *arena = NULL;
    weir_ast *ast;
    size_t end = 0, at = 0;
    char msg[256];
    int r = weir_ast_parse(&arena, condition, 0, &ast, &end, &at, msg, sizeof msg);
    if (r == 0 && condition[end] != 0) {
        r = WEIR_EINVAL;
        snprintf(msg, sizeof msg, "unexpected '%s' after the condition", condition + end);
    }
    weir_table *t = NULL;
    if (r)
        weir__table_fail(env, r, "weir_table_join: %s", msg);
    else {
        weir_expr_scope sc[2];
        side_scope(&sc[0], NULL, left, left_name);
        side_scope(&sc[1], NULL, right, right_name);
        t = weir_table_join_tree(left, &sc[0], right, &sc[1], kind, ast, condition, &arena,
                                 NULL, NULL);
    }
    weir_ast_arena_free(&arena);
    return t;
}

weir_table *weir_table_join(weir_table *left, weir_table *right, weir_join_kind kind,
                            const char *condition)
{
    if (!left || !right)
        return NULL;
    return weir_table_join_as(left, left->schema->table, right, right->schema->table, kind,
                              condition);
}

/* ---- the DataStream interval join ------------------------------------------------------ */

weir_stream *weir_stream_interval_join(weir_stream *left, weir_stream *right,
                                       const weir_interval_join_spec *spec)
{
    if (!left || !right)
        return NULL;
    weir_job *job = weir_stream_job(left);
    static const char *what = "weir_stream_interval_join";
    if (!spec || !spec->fn || spec->out_size == 0) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: a spec with a join function and an "
                              "output size is required", what);
        return NULL;
    }
    size_t ks = weir_stream_key_size(left);
    if (ks == 0 || weir_stream_key_size(right) != ks) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: both streams must be keyed "
                              "(weir_stream_key_by) with keys of the same size", what);
        return NULL;
    }
    /* right.ts in [left.ts + lower, left.ts + upper], exclusive bounds 1 ms
     * tighter: left.ts - right.ts in [-upper, -lower] */
    int64_t lower = spec->lower_ms + (spec->lower_exclusive ? 1 : 0);
    int64_t upper = spec->upper_ms - (spec->upper_exclusive ? 1 : 0);
    if (lower > upper) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: the lower bound %lld is above the upper "
                              "bound %lld", what, (long long)lower, (long long)upper);
        return NULL;
    }
    join_impl *j = calloc(1, sizeof *j);
    char name[160];
    snprintf(name, sizeof name, "%s", spec->name ? spec->name : "IntervalJoin");
    if (!j || !(j->own_name = strdup(name))) {
        free(j);
        weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", what);
        return NULL;
    }
    j->raw = true;
    j->interval = true;
    j->kind = WEIR_JOIN_INNER;
    j->fn = spec->fn;
    j->arg = spec->arg;
    j->name = j->own_name;
    j->lower = -upper;
    j->upper = -lower;
    j->rel_size[0] = -j->lower;
    j->rel_size[1] = j->upper;
    j->min_cleanup = (j->rel_size[0] + j->rel_size[1]) / 2;
    for (int s = 0; s < 2; s++) {
        j->elem_size[s] = weir_stream_elem_size(s ? right : left);
        j->side[s].mkey_size = (uint32_t)(8 + j->elem_size[s]);
        j->side[s].val_size = sizeof(rec_val);
    }
    char settings[160];
    snprintf(settings, sizeof settings, "\"lower_ms\":%lld,\"upper_ms\":%lld",
             (long long)lower, (long long)upper);
    weir_process_spec ps = {
        .name = j->name,
        .kind = "interval_join",
        .vtable = &interval_vtable,
        .impl = j,
        .impl_free = join_impl_free,
        .out_size = spec->out_size,
        .parallelism = spec->parallelism,
        .accounting = WEIR_ACCOUNTING_ANY,
        .settings_json = settings,
    };
    return weir_stream_connect(left, right, &ps);
}
