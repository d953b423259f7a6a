/* table_rank.c — ranking and sorting a stream (SEMANTICS.md 10): Flink's
 * Deduplicate (RowTimeDeduplicateFunction, RowTimeDeduplicateKeepFirstRow
 * Function), Rank (AppendOnlyTopNFunction), WindowRank (WindowRankProcessor),
 * TemporalSort (RowTimeSortOperator), SortLimit and Limit (AppendOnlyFirstN
 * Function, RetractableTopNFunction, UpdatableTopNFunction): keyed
 * operators on the runtime's keyed state and event-time
 * timers, so that checkpoints, restores and rescaling carry them.
 *
 * Per partition key:
 *   Deduplicate, keep last    a value: the kept row's time and bytes;
 *   Deduplicate, keep first   a value: the earliest row waiting for the
 *                             watermark (a timer at its time), and a value
 *                             saying the key's row went out;
 *   Rank                      a list: the rows of the top ranks in order
 *                             (equal sort keys in arrival order), which may
 *                             hold more than rank_end rows when sort keys
 *                             tie, as Flink's TopNBuffer does;
 *   Rank, RetractStrategy     a list: every row of the key in that order;
 *   Rank, UpdateFastStrategy  a list: the rows of the top rank_end ranks
 *                             in that order, one per row key;
 *   WindowRank                a list per window (namespace window_end) and
 *                             a timer at window_end - 1;
 *   TemporalSort              a list per time and a timer at it (one key);
 *   Limit                     a count (one key).
 * A Rank row costs a copy of its key's list (the top ranks), which is what
 * Flink's in-memory TopNBuffer walks too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "table_internal.h"
#include "weir/error.h"
#include "weir/operator.h"
#include "weir/state.h"
#include "weir/time.h"

typedef enum rank_kind {
    RK_DEDUP_LAST,
    RK_DEDUP_FIRST,
    RK_TOPN,
    RK_TOPN_RETRACT,
    RK_TOPN_UPDATE,
    RK_WINDOW,
    RK_SORT,
    RK_LIMIT
} rank_kind;

typedef struct rank_impl {
    rank_kind kind;
    weir__key *key;
    const weir_schema *in, *out;
    int norder;
    int ocol[WEIR__LIST_MAX];
    bool desc[WEIR__LIST_MAX];
    bool nulls_first[WEIR__LIST_MAX];
    /* An order key whose values compare as the signed integer their bytes
     * hold (an integer, a DATE or TIME, a TIMESTAMP(p <= 3), a DECIMAL(p <=
     * 18): its size, 8, 4, 2 or 1), read without the value path; 0: not. */
    uint8_t oint[WEIR__LIST_MAX];
    int64_t start, end;
    bool with_rn;
    bool same_layout;
    int wend_col;      /* WindowRank: the window_end column */
    int wdedup;        /* WindowDeduplicate: 1 keeps the last row, 2 the first; 0 a rank */
    int nrkey;         /* UpdateFastStrategy: the input's unique key (its row key) */
    int rkey[WEIR__LIST_MAX];
    size_t entry_size; /* a kept row: int64 time + the row, 8-aligned */
    const char *name;
} rank_impl;

static void rank_impl_free(void *p)
{
    rank_impl *r = p;
    if (r)
        free(r->key);
    free(r);
}

typedef struct rank_state {
    int id, id2;
    unsigned char *buf; /* rows copied out of a list */
    size_t buf_cap;
    uint32_t *idx, *tmp; /* a sort's order */
    size_t idx_cap;
    unsigned char *out;  /* the row being emitted */
    unsigned char *entry;
} rank_state;

static void rank_close(weir_ctx *ctx)
{
    rank_state *st = weir_ctx_state(ctx);
    if (!st)
        return;
    free(st->buf);
    free(st->idx);
    free(st->tmp);
    free(st->out);
    free(st->entry);
    free(st);
}

static int rank_open(weir_ctx *ctx)
{
    const rank_impl *r = weir_ctx_impl(ctx);
    rank_state *st = calloc(1, sizeof *st);
    if (!st)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, st);
    st->out = calloc(1, r->out->row_size);
    st->entry = calloc(1, r->entry_size);
    if (!st->out || !st->entry)
        return WEIR_ENOMEM;
    size_t rs = r->in->row_size;
    int e;
    switch (r->kind) {
    case RK_DEDUP_LAST: e = weir_state_declare(ctx, WEIR_STATE_VALUE, r->entry_size, &st->id); break;
    case RK_DEDUP_FIRST:
        e = weir_state_declare(ctx, WEIR_STATE_VALUE, r->entry_size, &st->id);
        if (e == 0)
            e = weir_state_declare(ctx, WEIR_STATE_VALUE, 8, &st->id2);
        /* a row reads its key's mark first, the kept row only when absent */
        return e ? e : weir_state_prefetch(ctx, st->id2);
    case RK_LIMIT: e = weir_state_declare(ctx, WEIR_STATE_VALUE, 8, &st->id); break;
    default: e = weir_state_declare(ctx, WEIR_STATE_LIST, rs, &st->id); break;
    }
    /* every row reads its key's kept row, count or ranked list */
    return e ? e : weir_state_prefetch(ctx, st->id);
}

static int grow(weir_ctx *ctx, const rank_impl *r, rank_state *st, size_t rows)
{
    size_t need = (rows ? rows : 1) * r->in->row_size;
    if (need > st->buf_cap) {
        size_t c = st->buf_cap ? st->buf_cap : 4096;
        while (c < need)
            c *= 2;
        unsigned char *n = realloc(st->buf, c);
        if (!n)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", r->name);
        st->buf = n;
        st->buf_cap = c;
    }
    if (rows > st->idx_cap) {
        size_t c = st->idx_cap ? st->idx_cap : 256;
        while (c < rows)
            c *= 2;
        uint32_t *a = realloc(st->idx, c * sizeof *a);
        if (a)
            st->idx = a;
        uint32_t *b = a ? realloc(st->tmp, c * sizeof *b) : NULL;
        if (b)
            st->tmp = b;
        if (!a || !b)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", r->name);
        st->idx_cap = c;
    }
    return 0;
}

/* The order of two rows by the sort keys: < 0, 0, > 0. */
/* The signed integer of `size` bytes at p. */
static int64_t int_at(const unsigned char *p, unsigned size)
{
    switch (size) {
    case 8: {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    case 4: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case 2: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    default: return (int8_t)p[0];
    }
}

/* The size of the integer a column's values compare as (rank_impl.oint). */
static uint8_t int_order(weir_type t)
{
    switch (t.id) {
    case WEIR_TYPE_TINYINT: return 1;
    case WEIR_TYPE_SMALLINT: return 2;
    case WEIR_TYPE_INT:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME: return 4;
    case WEIR_TYPE_BIGINT: return 8;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: return weir_type_precision(t) <= 3 ? 8 : 0;
    case WEIR_TYPE_DECIMAL: return weir_type_precision(t) <= 18 ? 8 : 0;
    default: return 0;
    }
}

static int cmp_rows(const rank_impl *r, const unsigned char *a, const unsigned char *b)
{
    for (int k = 0; k < r->norder; k++) {
        int c = r->ocol[k];
        bool na = weir__row_null(r->in, a, c), nb = weir__row_null(r->in, b, c);
        if (na || nb) {
            if (na && nb)
                continue;
            int v = na ? -1 : 1;
            return r->nulls_first[k] ? v : -v;
        }
        if (r->oint[k]) {
            uint32_t off = r->in->cols[c].offset;
            int64_t x = int_at(a + off, r->oint[k]), y = int_at(b + off, r->oint[k]);
            if (x != y)
                return (x < y) != r->desc[k] ? -1 : 1;
            continue;
        }
        weir__val va, vb;
        weir__load_value(r->in, a, c, &va);
        weir__load_value(r->in, b, c, &vb);
        int v = weir__val_compare(r->in->cols[c].type, &va, &vb);
        if (v)
            return r->desc[k] ? -v : v;
    }
    return 0;
}

/* A stable merge sort of st->idx[0..n) by the rows in st->buf. */
static void sort_rows(const rank_impl *r, rank_state *st, size_t n)
{
    size_t rs = r->in->row_size;
    for (size_t i = 0; i < n; i++)
        st->idx[i] = (uint32_t)i;
    uint32_t *src = st->idx, *dst = st->tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = cmp_rows(r, st->buf + (size_t)src[j] * rs,
                                    st->buf + (size_t)src[i] * rs) < 0
                               ? src[j++]
                               : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != st->idx)
        memcpy(st->idx, src, n * sizeof *src);
}

/* Emits `row` (an input row) as `kind`, with its rank when the output has
 * a rank column. */
static int emit_row(weir_ctx *ctx, const rank_impl *r, rank_state *st, const unsigned char *row,
                    weir_row_kind kind, int64_t rank, int64_t ts)
{
    if (!r->with_rn) {
        memcpy(st->out, row, r->in->row_size);
    } else if (r->same_layout) {
        memset(st->out, 0, r->out->row_size);
        memcpy(st->out, row, r->in->row_size);
    } else {
        memset(st->out, 0, r->out->row_size);
        for (int c = 0; c < r->in->ncols; c++) {
            weir__val v;
            weir__load_value(r->in, row, c, &v);
            weir__store_value(r->out, st->out, c, &v);
        }
    }
    if (r->with_rn) {
        weir__val v = {.i = rank};
        weir__store_value(r->out, st->out, r->in->ncols, &v);
    }
    st->out[0] = (unsigned char)kind;
    return weir_emit(ctx, st->out, ts);
}

/* ---- Deduplicate ---------------------------------------------------------------------- */

/* The kept row: its time, its bytes, and a mark in the entry's last 8
 * bytes, set once a row is kept (a value this lookup made is all zeros):
 * one lookup a row. */
static int dedup_last(weir_ctx *ctx, const rank_impl *r, rank_state *st, const void *elem,
                      int64_t ts)
{
    unsigned char *v = weir_state_value(ctx, st->id, 0, true);
    if (!v)
        return weir_ctx_state_error(ctx);
    unsigned char *mark = v + r->entry_size - 8;
    if (mark[0]) {
        int64_t prev;
        memcpy(&prev, v, 8);
        if (ts < prev)
            return 0; /* an older row: the kept one stays */
        memcpy(st->entry, v + 8, r->in->row_size);
        memcpy(v, &ts, 8);
        memcpy(v + 8, elem, r->in->row_size);
        int e = emit_row(ctx, r, st, st->entry, WEIR_ROW_UPDATE_BEFORE, 0, ts);
        if (e)
            return e;
        return emit_row(ctx, r, st, elem, WEIR_ROW_UPDATE_AFTER, 0, ts);
    }
    memcpy(v, &ts, 8);
    memcpy(v + 8, elem, r->in->row_size);
    mark[0] = 1;
    return emit_row(ctx, r, st, elem, WEIR_ROW_INSERT, 0, ts);
}

static int dedup_first(weir_ctx *ctx, const rank_impl *r, rank_state *st, const void *elem,
                       int64_t ts)
{
    if (ts < weir_ctx_watermark(ctx)) {
        weir_ctx_count(ctx, WEIR_COUNTER_LATE_DROPPED, 1);
        return 0;
    }
    if (weir_state_value(ctx, st->id2, 0, false))
        return 0; /* the key's row went out already */
    unsigned char *v = weir_state_value(ctx, st->id, 0, false);
    if (v) {
        int64_t prev;
        memcpy(&prev, v, 8);
        if (ts >= prev)
            return 0;
        weir_timer_delete(ctx, WEIR_EVENT_TIME, 0, prev);
    }
    v = weir_state_value(ctx, st->id, 0, true);
    if (!v)
        return weir_ctx_state_error(ctx);
    memcpy(v, &ts, 8);
    memcpy(v + 8, elem, r->in->row_size);
    return weir_timer_register(ctx, WEIR_EVENT_TIME, 0, ts);
}

static int dedup_first_timer(weir_ctx *ctx, const rank_impl *r, rank_state *st, int64_t ts)
{
    unsigned char *v = weir_state_value(ctx, st->id, 0, false);
    if (!v)
        return 0;
    memcpy(st->entry, v, r->entry_size);
    weir_state_clear(ctx, st->id, 0);
    if (!weir_state_value(ctx, st->id2, 0, true))
        return weir_ctx_state_error(ctx);
    return emit_row(ctx, r, st, st->entry + 8, WEIR_ROW_INSERT, 0, ts);
}

/* ---- Rank (AppendOnlyTopNFunction) ------------------------------------------------------ */

static bool in_range(const rank_impl *r, int64_t rank)
{
    return rank >= r->start && rank <= r->end;
}

static int collect(weir_ctx *ctx, const rank_impl *r, rank_state *st, const unsigned char *row,
                   weir_row_kind kind, int64_t rank, int64_t ts)
{
    return in_range(r, rank) ? emit_row(ctx, r, st, row, kind, rank, ts) : 0;
}

static int topn_record(weir_ctx *ctx, const rank_impl *r, rank_state *st, const unsigned char *in,
                       int64_t ts)
{
    size_t rs = r->in->row_size, n;
    const unsigned char *l = weir_state_list_get(ctx, st->id, 0, &n);
    /* within the buffer's range: better than its worst row, or room left */
    if (n && cmp_rows(r, in, l + (n - 1) * rs) >= 0 && (int64_t)n >= r->end)
        return 0;
    if ((n + 1) * rs > st->buf_cap || n + 1 > st->idx_cap) {
        int e = grow(ctx, r, st, n + 1);
        if (e)
            return e;
        l = weir_state_list_get(ctx, st->id, 0, &n);
    }
    int e;
    /* after the rows of an equal or better sort key */
    size_t pos = n;
    while (pos > 0 && cmp_rows(r, in, l + (pos - 1) * rs) < 0)
        pos--;
    unsigned char *b = st->buf;
    if (pos)
        memcpy(b, l, pos * rs);
    memcpy(b + pos * rs, in, rs);
    if (n > pos)
        memcpy(b + (pos + 1) * rs, l + pos * rs, (n - pos) * rs);
    n++;
    if (r->with_rn || r->start > 1) {
        /* processElementWithRowNumber: walk the sort keys' groups */
        int64_t rank = 0;
        bool found = false;
        const unsigned char *cur = NULL;
        size_t g = 0;
        while (g < n && rank <= r->end) {
            size_t ge = g + 1;
            while (ge < n && cmp_rows(r, b + g * rs, b + ge * rs) == 0)
                ge++;
            if (!found && g <= pos && pos < ge) {
                rank += (int64_t)(ge - g);
                cur = b + pos * rs;
                found = true;
            } else if (found) {
                for (size_t i = g; i < ge && rank <= r->end; i++) {
                    if ((e = collect(ctx, r, st, b + i * rs, WEIR_ROW_UPDATE_BEFORE, rank, ts)) ||
                        (e = collect(ctx, r, st, cur, WEIR_ROW_UPDATE_AFTER, rank, ts)))
                        return e;
                    cur = b + i * rs;
                    rank++;
                }
            } else {
                rank += (int64_t)(ge - g);
            }
            g = ge;
        }
        if (rank <= r->end && (e = collect(ctx, r, st, cur, WEIR_ROW_INSERT, rank, ts)))
            return e;
        n = g; /* the groups not reached are out of the top */
    } else {
        /* processElementWithoutRowNumber */
        if ((int64_t)n > r->end) {
            n--;
            const unsigned char *last = b + n * rs;
            if (memcmp(last + 1, in + 1, rs - 1) == 0)
                return weir_state_list_set(ctx, st->id, 0, b, n) ? weir_ctx_error(ctx) : 0;
            if ((e = emit_row(ctx, r, st, last, WEIR_ROW_DELETE, 0, ts)))
                return e;
        }
        if ((e = emit_row(ctx, r, st, in, WEIR_ROW_INSERT, 0, ts)))
            return e;
    }
    return weir_state_list_set(ctx, st->id, 0, b, n) ? weir_ctx_error(ctx) : 0;
}

/* ---- Rank over an updating input (RetractableTopNFunction) --------------------------------- */

/* Every row of the key in the order of its sort key (arrival order among
 * equal keys) is kept, since a retraction moves the row after the top into
 * it. A row in (+I/+U) or out (-U/-D, matched by its bytes; one never seen
 * is ignored) changes the ranks from its place on: with row numbers each
 * rank whose row changed sends -U old / +U new, a rank filled first +I, a
 * rank left empty -D; without, the row that leaves the top -D and the one
 * that enters it +I. */
static int topn_retract_record(weir_ctx *ctx, const rank_impl *r, rank_state *st,
                               const unsigned char *in, int64_t ts)
{
    size_t rs = r->in->row_size, n;
    weir_state_list_get(ctx, st->id, 0, &n);
    int e = grow(ctx, r, st, n + 1);
    if (e)
        return e;
    const unsigned char *l = weir_state_list_get(ctx, st->id, 0, &n);
    weir_row_kind kind = weir_row_get_kind(in);
    bool acc = kind == WEIR_ROW_INSERT || kind == WEIR_ROW_UPDATE_AFTER;
    unsigned char *b = st->buf;
    bool numbered = r->with_rn || r->start > 1;
    int64_t end = r->end;
    if (acc) {
        size_t pos = n;
        while (pos > 0 && cmp_rows(r, in, l + (pos - 1) * rs) < 0)
            pos--;
        if (pos)
            memcpy(b, l, pos * rs);
        memcpy(b + pos * rs, in, rs);
        if (n > pos)
            memcpy(b + (pos + 1) * rs, l + pos * rs, (n - pos) * rs);
        if ((int64_t)pos < end) {
            if (numbered) {
                for (size_t i = pos; i <= n && (int64_t)i < end; i++) {
                    if (i < n && (e = collect(ctx, r, st, b + (i + 1) * rs,
                                              WEIR_ROW_UPDATE_BEFORE, (int64_t)i + 1, ts)))
                        return e;
                    if ((e = collect(ctx, r, st, b + i * rs,
                                     i < n ? WEIR_ROW_UPDATE_AFTER : WEIR_ROW_INSERT,
                                     (int64_t)i + 1, ts)))
                        return e;
                }
            } else {
                if ((int64_t)n >= end &&
                    (e = emit_row(ctx, r, st, b + (size_t)end * rs, WEIR_ROW_DELETE, 0, ts)))
                    return e;
                if ((e = emit_row(ctx, r, st, b + pos * rs, WEIR_ROW_INSERT, 0, ts)))
                    return e;
            }
        }
        n++;
    } else {
        /* the row among those of its sort key, by its bytes */
        size_t j = 0;
        while (j < n && cmp_rows(r, l + j * rs, in) < 0)
            j++;
        while (j < n && cmp_rows(r, l + j * rs, in) == 0 &&
               memcmp(l + j * rs + 1, in + 1, rs - 1) != 0)
            j++;
        if (j == n || cmp_rows(r, l + j * rs, in) != 0)
            return 0; /* never seen (or its state expired): nothing to take back */
        memcpy(b, l, n * rs);
        if ((int64_t)j < end) {
            if (numbered) {
                for (size_t i = j; i < n && (int64_t)i < end; i++) {
                    bool next = i + 1 < n;
                    if ((e = collect(ctx, r, st, b + i * rs,
                                     next ? WEIR_ROW_UPDATE_BEFORE : WEIR_ROW_DELETE,
                                     (int64_t)i + 1, ts)))
                        return e;
                    if (next && (e = collect(ctx, r, st, b + (i + 1) * rs,
                                             WEIR_ROW_UPDATE_AFTER, (int64_t)i + 1, ts)))
                        return e;
                }
            } else {
                if ((e = emit_row(ctx, r, st, b + j * rs, WEIR_ROW_DELETE, 0, ts)))
                    return e;
                if ((int64_t)n > end &&
                    (e = emit_row(ctx, r, st, b + (size_t)end * rs, WEIR_ROW_INSERT, 0, ts)))
                    return e;
            }
        }
        if (n > j + 1)
            memmove(b + j * rs, b + (j + 1) * rs, (n - j - 1) * rs);
        n--;
    }
    return weir_state_list_set(ctx, st->id, 0, b, n) ? weir_ctx_error(ctx) : 0;
}

/* ---- Rank over an updating input (UpdatableTopNFunction) ----------------------------------- */

/* Whether rows a and b have the same row key (the input's unique key): a
 * row's bytes are canonical, equal values equal bytes. */
static bool same_row_key(const rank_impl *r, const unsigned char *a, const unsigned char *b)
{
    for (int k = 0; k < r->nrkey; k++) {
        int c = r->rkey[k];
        bool na = weir__row_null(r->in, a, c);
        if (na != weir__row_null(r->in, b, c))
            return false;
        const weir__col *col = &r->in->cols[c];
        if (!na && memcmp(a + col->offset, b + col->offset, col->size) != 0)
            return false;
    }
    return true;
}

/* Where `in` goes among the n rows at l (after those of an equal or better
 * sort key), skipping index `skip` (-1: none): its index in the list
 * without that row. */
static size_t place_of(const rank_impl *r, const unsigned char *l, size_t n, size_t rs,
                       const unsigned char *in, size_t skip)
{
    size_t pos = 0;
    for (size_t i = 0; i < n; i++)
        if (i != skip && cmp_rows(r, in, l + i * rs) >= 0)
            pos++;
    return pos;
}

/* The planner picks it (Flink's RankProcessStrategy.UpdateFastStrategy)
 * for an input without deletions whose unique key holds the partition key
 * and whose order keys only move up the order across a row's updates (a
 * count or a MAX descending, a MIN ascending). Only the top rank_end rows
 * are kept, one per row key. The input's -U are not read (Flink's planner
 * has its input send none); a +I or +U of a row key held is an update: -U
 * old / +U new at its rank when its sort key stayed, else its rank and the
 * ranks down to its old one shift (-U/+U each, the old row's -U first, as
 * Flink emits them); without row numbers -U old / +U new. A row key not
 * held enters as a new row if its sort key makes the top: the ranks below
 * shift, the last -D without row numbers. */
static int topn_update_record(weir_ctx *ctx, const rank_impl *r, rank_state *st,
                              const unsigned char *in, int64_t ts)
{
    weir_row_kind kind = weir_row_get_kind(in);
    if (kind == WEIR_ROW_UPDATE_BEFORE || kind == WEIR_ROW_DELETE) {
        weir_ctx_count(ctx, WEIR_COUNTER_FILTERED, 1);
        return 0;
    }
    size_t rs = r->in->row_size, n;
    weir_state_list_get(ctx, st->id, 0, &n);
    int e = grow(ctx, r, st, n + 1);
    if (e)
        return e;
    const unsigned char *l = weir_state_list_get(ctx, st->id, 0, &n);
    unsigned char *b = st->buf;
    bool numbered = r->with_rn || r->start > 1;
    int64_t end = r->end;
    size_t j = 0;
    while (j < n && !same_row_key(r, l + j * rs, in))
        j++;
    if (j < n) {
        /* an update of a row held: its old copy out of the list, the new in */
        const unsigned char *old = l + j * rs;
        memcpy(st->entry, old, rs);
        old = st->entry;
        int cmp = cmp_rows(r, in, old);
        size_t pos = cmp == 0 ? j : place_of(r, l, n, rs, in, j);
        for (size_t i = 0, k = 0; i < n; i++) {
            if (i == j)
                continue;
            if (k == pos)
                k++;
            memcpy(b + k * rs, l + i * rs, rs);
            k++;
        }
        memcpy(b + pos * rs, in, rs);
        if (!numbered) {
            if ((e = emit_row(ctx, r, st, old, WEIR_ROW_UPDATE_BEFORE, 0, ts)) ||
                (e = emit_row(ctx, r, st, in, WEIR_ROW_UPDATE_AFTER, 0, ts)))
                return e;
        } else if (pos == j) {
            int64_t rank = (int64_t)j + 1;
            if ((e = collect(ctx, r, st, old, WEIR_ROW_UPDATE_BEFORE, rank, ts)) ||
                (e = collect(ctx, r, st, in, WEIR_ROW_UPDATE_AFTER, rank, ts)))
                return e;
        } else if (pos < j) {
            /* up: ranks pos+1 .. j+1 each take the row above them; the old
             * row's -U goes before the first +U (a sink keyed by the row
             * key sees it leave before it comes back) */
            bool retracted = false;
            for (size_t i = pos; i < j && (int64_t)i < end; i++) {
                if ((e = collect(ctx, r, st, l + i * rs, WEIR_ROW_UPDATE_BEFORE, (int64_t)i + 1,
                                 ts)))
                    return e;
                if (!retracted) {
                    retracted = true;
                    if ((e = collect(ctx, r, st, old, WEIR_ROW_UPDATE_BEFORE, (int64_t)j + 1,
                                     ts)))
                        return e;
                }
                if ((e = collect(ctx, r, st, b + i * rs, WEIR_ROW_UPDATE_AFTER, (int64_t)i + 1,
                                 ts)))
                    return e;
            }
            if ((int64_t)j < end) {
                if (!retracted &&
                    (e = collect(ctx, r, st, old, WEIR_ROW_UPDATE_BEFORE, (int64_t)j + 1, ts)))
                    return e;
                if ((e = collect(ctx, r, st, b + j * rs, WEIR_ROW_UPDATE_AFTER, (int64_t)j + 1,
                                 ts)))
                    return e;
            }
        } else {
            /* down, against the order's monotonicity (an upstream state
             * lost to its TTL): Flink's lenient path, ranks j+1 .. pos+1
             * each take the row below them */
            if ((e = collect(ctx, r, st, old, WEIR_ROW_UPDATE_BEFORE, (int64_t)j + 1, ts)))
                return e;
            for (size_t i = j; i < pos; i++)
                if ((e = collect(ctx, r, st, b + i * rs, WEIR_ROW_UPDATE_BEFORE, (int64_t)i + 2,
                                 ts)) ||
                    (e = collect(ctx, r, st, b + i * rs, WEIR_ROW_UPDATE_AFTER, (int64_t)i + 1,
                                 ts)))
                    return e;
            if ((e = collect(ctx, r, st, in, WEIR_ROW_UPDATE_AFTER, (int64_t)pos + 1, ts)))
                return e;
        }
    } else {
        /* a new row: in the top when better than the last row held, or
         * while there is room (TopNBuffer.checkSortKeyInBufferRange) */
        if (n && cmp_rows(r, in, l + (n - 1) * rs) >= 0 && (int64_t)n >= end)
            return 0;
        size_t pos = place_of(r, l, n, rs, in, (size_t)-1);
        if (pos)
            memcpy(b, l, pos * rs);
        memcpy(b + pos * rs, in, rs);
        if (n > pos)
            memcpy(b + (pos + 1) * rs, l + pos * rs, (n - pos) * rs);
        if (numbered) {
            for (size_t i = pos; i <= n && (int64_t)i < end; i++) {
                if (i < n && (e = collect(ctx, r, st, l + i * rs, WEIR_ROW_UPDATE_BEFORE,
                                          (int64_t)i + 1, ts)))
                    return e;
                if ((e = collect(ctx, r, st, b + i * rs,
                                 i < n ? WEIR_ROW_UPDATE_AFTER : WEIR_ROW_INSERT, (int64_t)i + 1,
                                 ts)))
                    return e;
            }
        } else {
            if ((int64_t)n >= end &&
                (e = emit_row(ctx, r, st, b + (size_t)end * rs, WEIR_ROW_DELETE, 0, ts)))
                return e;
            if ((e = emit_row(ctx, r, st, in, WEIR_ROW_INSERT, 0, ts)))
                return e;
        }
        n++;
    }
    /* the top rank_end rows stay (a row below can only come back by an
     * update of its own, which brings its row) */
    if ((int64_t)n > end)
        n = (size_t)end;
    return weir_state_list_set(ctx, st->id, 0, b, n) ? weir_ctx_error(ctx) : 0;
}

/* ---- WindowRank, TemporalSort, Limit ------------------------------------------------------ */

static int window_record(weir_ctx *ctx, const rank_impl *r, rank_state *st, const void *elem)
{
    weir__val v;
    weir__load_value(r->in, elem, r->wend_col, &v);
    int64_t end = v.i;
    if (end - 1 <= weir_ctx_watermark(ctx)) {
        weir_ctx_count(ctx, WEIR_COUNTER_LATE_DROPPED, 1);
        return 0;
    }
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    if (weir_state_list_add(ctx, st->id, end, elem))
        return weir_ctx_error(ctx);
    return weir_timer_register(ctx, WEIR_EVENT_TIME, end, end - 1);
}

/* The rows of list namespace ns, sorted, into st->buf and st->idx; the
 * list cleared. Their count in *n. */
static int take_sorted(weir_ctx *ctx, const rank_impl *r, rank_state *st, int64_t ns, size_t *n)
{
    weir_state_list_get(ctx, st->id, ns, n);
    int e = grow(ctx, r, st, *n);
    if (e)
        return e;
    const void *l = weir_state_list_get(ctx, st->id, ns, n);
    if (*n)
        memcpy(st->buf, l, *n * r->in->row_size);
    weir_state_clear(ctx, st->id, ns);
    sort_rows(r, st, *n);
    return 0;
}

static int sort_record(weir_ctx *ctx, rank_state *st, const void *elem, int64_t ts)
{
    if (ts <= weir_ctx_watermark(ctx)) {
        weir_ctx_count(ctx, WEIR_COUNTER_LATE_DROPPED, 1);
        return 0;
    }
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    if (weir_state_list_add(ctx, st->id, ts, elem))
        return weir_ctx_error(ctx);
    return weir_timer_register(ctx, WEIR_EVENT_TIME, 0, ts);
}

static int limit_record(weir_ctx *ctx, const rank_impl *r, rank_state *st, const void *elem,
                        int64_t ts)
{
    int64_t *count = weir_state_value(ctx, st->id, 0, true);
    if (!count)
        return weir_ctx_state_error(ctx);
    if (*count >= r->end)
        return 0;
    int64_t rank = ++*count;
    return in_range(r, rank) ? emit_row(ctx, r, st, elem, WEIR_ROW_INSERT, 0, ts) : 0;
}

static int rank_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const rank_impl *r = weir_ctx_impl(ctx);
    rank_state *st = weir_ctx_state(ctx);
    switch (r->kind) {
    case RK_DEDUP_LAST: return dedup_last(ctx, r, st, elem, ts);
    case RK_DEDUP_FIRST: return dedup_first(ctx, r, st, elem, ts);
    case RK_TOPN: return topn_record(ctx, r, st, elem, ts);
    case RK_TOPN_RETRACT: return topn_retract_record(ctx, r, st, elem, ts);
    case RK_TOPN_UPDATE: return topn_update_record(ctx, r, st, elem, ts);
    case RK_WINDOW: return window_record(ctx, r, st, elem);
    case RK_SORT: return sort_record(ctx, st, elem, ts);
    case RK_LIMIT: return limit_record(ctx, r, st, elem, ts);
    }
    return 0;
}

static int rank_timer(weir_ctx *ctx, const weir_timer *timer)
{
    const rank_impl *r = weir_ctx_impl(ctx);
    rank_state *st = weir_ctx_state(ctx);
    int64_t ts = timer->timestamp;
    size_t n, rs = r->in->row_size;
    int e;
    switch (r->kind) {
    case RK_DEDUP_FIRST: return dedup_first_timer(ctx, r, st, ts);
    case RK_WINDOW:
        if ((e = take_sorted(ctx, r, st, timer->ns, &n)))
            return e;
        if (r->wdedup == 1 && n) {
            /* the last row: the latest time, the latest arrival among equal ones */
            size_t best = 0;
            for (size_t i = 1; i < n; i++)
                if (cmp_rows(r, st->buf + i * rs, st->buf + best * rs) <= 0)
                    best = i;
            return emit_row(ctx, r, st, st->buf + best * rs, WEIR_ROW_INSERT, 1, ts);
        }
        for (size_t i = 0; i < n && (int64_t)i < r->end; i++)
            if ((e = collect(ctx, r, st, st->buf + (size_t)st->idx[i] * rs, WEIR_ROW_INSERT,
                             (int64_t)i + 1, ts)))
                return e;
        return 0;
    case RK_SORT:
        if ((e = take_sorted(ctx, r, st, ts, &n)))
            return e;
        for (size_t i = 0; i < n; i++)
            if ((e = emit_row(ctx, r, st, st->buf + (size_t)st->idx[i] * rs, WEIR_ROW_INSERT, 0,
                              ts)))
                return e;
        return 0;
    default: return 0;
    }
}

static const weir_operator_vtable rank_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = rank_open,
    .on_record = rank_record,
    .on_timer = rank_timer,
    .close = rank_close,
};

/* ---- the plan ------------------------------------------------------------------------ */

/* "col [ASC|DESC] [NULLS FIRST|LAST], ..." into r's order keys, and its
 * text as Flink shows it ("amount DESC, ts ASC") into shown. -1 with env
 * failed. */
static int parse_order(weir_table_env *env, rank_impl *r, const char *list, const char *what,
                       char *shown, size_t size)
{
    size_t len = 0;
    shown[0] = 0;
    if (!list || !*weir__skip_ws(list))
        return 0;
    weir__list l;
    int lr = weir__list_split(list, &l);
    if (lr) {
        weir__list_fail(env, what, lr, list);
        return -1;
    }
    for (int i = 0; i < l.n; i++) {
        /* the name: `quoted` or up to the first space */
        const char *s = l.items[i], *e = s + l.lens[i];
        const char *ne = s;
        if (*s == '`') {
            for (ne = s + 1; ne < e; ne++)
                if (*ne == '`') {
                    if (ne + 1 < e && ne[1] == '`')
                        ne++;
                    else
                        break;
                }
            if (ne < e)
                ne++;
        } else {
            while (ne < e && *ne != ' ' && *ne != '\t' && *ne != '\n')
                ne++;
        }
        char name[256];
        int c = -1;
        if (weir__list_name(s, (size_t)(ne - s), name, sizeof name))
            c = weir_schema_column_index(r->in, name);
        if (c < 0) {
            weir__table_fail(env, WEIR_EINVAL, "%s: order key '%.*s' is not a column of table "
                             "%s", what, (int)(ne - s), s, r->in->table);
            return -1;
        }
        bool desc = false;
        int nulls = 0;
        char rest[64];
        size_t rl = (size_t)(e - ne) < sizeof rest - 1 ? (size_t)(e - ne) : sizeof rest - 1;
        memcpy(rest, ne, rl);
        rest[rl] = 0;
        const char *p = weir__skip_ws(rest), *q;
        if ((q = weir__match_word(p, "DESC"))) {
            desc = true;
            p = weir__skip_ws(q);
        } else if ((q = weir__match_word(p, "ASC"))) {
            p = weir__skip_ws(q);
        }
        if ((q = weir__match_word(p, "NULLS"))) {
            p = weir__skip_ws(q);
            if ((q = weir__match_word(p, "FIRST")))
                nulls = 1;
            else if ((q = weir__match_word(p, "LAST")))
                nulls = 2;
            if (q)
                p = weir__skip_ws(q);
            else
                p = "?";
        }
        if (*p) {
            weir__table_fail(env, WEIR_EINVAL, "%s: bad order key '%.*s' (col [ASC|DESC] "
                             "[NULLS FIRST|LAST])", what, (int)l.lens[i], l.items[i]);
            return -1;
        }
        r->ocol[r->norder] = c;
        r->oint[r->norder] = int_order(r->in->cols[c].type);
        r->desc[r->norder] = desc;
        r->nulls_first[r->norder] = nulls ? nulls == 1 : !desc;
        r->norder++;
        weir__append(shown, size, &len, "%s%s %s", i ? ", " : "", name, desc ? "DESC" : "ASC");
    }
    return 0;
}

static void cols_text(const weir_schema *s, const weir__key *k, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < k->nkeys; i++)
        weir__append(buf, size, &len, "%s%s", i ? ", " : "", s->cols[k->keys[i]].name);
}

/* A ranking node of kind `kind` over in: its impl, schema and operator.
 * `name_fmt` is its name, made by the caller from the parts given. */
static weir_table *rank_node(weir_table *in, rank_impl *r, const char *node_name,
                             const char *rank_column, unsigned mode, const char *what)
{
    weir_table_env *env = in->env;
    weir_table *t = weir__table_node(env, in, "%s", node_name);
    if (!t) {
        rank_impl_free(r);
        return NULL;
    }
    t->impl = r;
    t->impl_free = rank_impl_free;
    r->name = t->name;
    const weir_schema *is = in->schema;
    const char *why = NULL;
    if (rank_column) {
        if (weir_schema_column_index(is, rank_column) >= 0)
            return weir__table_fail(env, WEIR_EINVAL, "%s: duplicate column name '%s'", what,
                                    rank_column);
        if (is->ncols + 1 > WEIR__LIST_MAX)
            return weir__table_fail(env, WEIR_EINVAL, "%s: more than %d columns", what,
                                    WEIR__LIST_MAX);
        const char *names[WEIR__LIST_MAX];
        weir_type types[WEIR__LIST_MAX];
        for (int c = 0; c < is->ncols; c++) {
            names[c] = is->cols[c].name;
            types[c] = is->cols[c].type;
        }
        names[is->ncols] = rank_column;
        types[is->ncols] = (weir_type){.id = WEIR_TYPE_BIGINT, .not_null = true};
        t->schema = weir__schema_derive(is, is->ncols + 1, names, types, &why);
        r->with_rn = true;
    } else {
        t->schema = weir__schema_copy(is, is->table);
        why = "out of memory";
    }
    if (!t->schema)
        return weir__table_fail(env, WEIR_EINVAL, "%s: %s", what, why);
    r->out = t->schema;
    r->same_layout = t->schema->header_size == is->header_size;
    for (int c = 0; r->same_layout && c < is->ncols; c++)
        r->same_layout = t->schema->cols[c].offset == is->cols[c].offset;
    r->entry_size = ((8 + is->row_size + 7u) & ~(size_t)7u) + 8; /* + dedup_last's mark */
    t->mode = mode;
    t->rowtime = in->rowtime;
    if (r->kind == RK_DEDUP_LAST || r->kind == RK_DEDUP_FIRST ||
        (r->with_rn && r->kind != RK_LIMIT && r->kind != RK_SORT)) {
        int cols[WEIR__LIST_MAX + 1], n = 0;
        for (int k = 0; k < r->key->nkeys; k++)
            cols[n++] = r->key->keys[k];
        if (r->with_rn)
            cols[n++] = is->ncols;
        if (n && weir__table_set_unique_key(t, cols, n))
            return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    }
    weir_key_spec ks = {.key_size = r->key->size, .extract = weir__key_extract, .arg = r->key,
                        .format = weir__key_format};
    weir_process_spec spec = {
        .name = t->name,
        .kind = "table_rank",
        .vtable = &rank_vtable,
        .impl = r,
        .out_size = t->schema->row_size,
        .parallelism = r->key->nkeys == 0 ? 1 : env->config.parallelism,
        .accounting = WEIR_ACCOUNTING_ANY,
        .settings_json = weir__table_settings(t, NULL),
    };
    t->stream = weir_stream_process(weir_stream_key_by(in->stream, &ks), &spec);
    return t->stream ? t : NULL;
}

/* A new impl over in with its partition key; NULL with env failed. */
static rank_impl *rank_impl_new(weir_table *in, const char *partition, const char *what)
{
    rank_impl *r = calloc(1, sizeof *r);
    if (!r)
        return weir__table_fail(in->env, WEIR_ENOMEM, "%s: out of memory", what);
    r->in = in->schema;
    r->wend_col = -1;
    const char *part = partition && *weir__skip_ws(partition) ? partition : NULL;
    if (!(r->key = weir__key_plan(in->env, in->schema, part, what))) {
        free(r);
        return NULL;
    }
    return r;
}

/* Flink's RankProcessStrategy.analyzeRankProcessStrategies for an updating
 * input: the update strategy when the input deletes nothing, has a unique
 * key holding every partition column, and each order key moves only up
 * the order across a row's updates (INCREASING descending, DECREASING
 * ascending, or CONSTANT). */
static bool update_fast_applies(const weir_table *in, const rank_impl *r)
{
    if ((in->mode & WEIR_CHANGELOG_KIND(WEIR_ROW_DELETE)) || in->nukey == 0 ||
        in->nukey > WEIR__LIST_MAX || r->norder == 0)
        return false;
    for (int k = 0; k < r->key->nkeys; k++) {
        bool held = false;
        for (int u = 0; u < in->nukey && !held; u++)
            held = in->ukey[u] == r->key->keys[k];
        if (!held)
            return false;
    }
    for (int k = 0; k < r->norder; k++) {
        weir__mono m = weir__table_monotonicity(in, r->ocol[k]);
        if (!(m == WEIR__MONO_CONSTANT || (m == WEIR__MONO_INCREASING && r->desc[k]) ||
              (m == WEIR__MONO_DECREASING && !r->desc[k])))
            return false;
    }
    return true;
}

weir_table *weir_table_rank(weir_table *in, const weir_table_rank_spec *spec)
{
    static const char *what = "weir_table_rank";
    if (!in)
        return NULL;
    weir_table_env *env = in->env;
    if (!spec || spec->rank_start < 1 || spec->rank_end < spec->rank_start)
        return weir__table_fail(env, WEIR_EINVAL, "%s: a spec with 1 <= rank_start <= rank_end "
                                "is required", what);
    /* an updating input: the update strategy where it applies, else the
     * retract strategy, after an upsert input's ChangelogNormalize */
    bool updating = in->mode != WEIR_CHANGELOG_INSERT_ONLY;
    rank_impl *r = rank_impl_new(in, spec->partition_by, what);
    if (!r)
        return NULL;
    char order[512], part[512], name[2048];
    if (parse_order(env, r, spec->order_by, what, order, sizeof order)) {
        rank_impl_free(r);
        return NULL;
    }
    bool update_fast = updating && update_fast_applies(in, r);
    if (updating && !update_fast) {
        rank_impl_free(r);
        if (!(in = weir_table_normalize(in)) || !(r = rank_impl_new(in, spec->partition_by, what)))
            return NULL;
        if (parse_order(env, r, spec->order_by, what, order, sizeof order)) {
            rank_impl_free(r);
            return NULL;
        }
    }
    if (r->norder == 0) {
        rank_impl_free(r);
        return weir__table_fail(env, WEIR_EINVAL, "%s: an order is required", what);
    }
    cols_text(in->schema, r->key, part, sizeof part);
    r->start = spec->rank_start;
    r->end = spec->rank_end;
    /* a window's partition: window_start and window_end among the keys */
    int ws = -1, we = -1;
    for (int k = 0; k < r->key->nkeys; k++) {
        const weir__col *c = &in->schema->cols[r->key->keys[k]];
        if (c->type.id != WEIR_TYPE_TIMESTAMP)
            continue;
        if (strcmp(c->name, "window_start") == 0)
            ws = r->key->keys[k];
        else if (strcmp(c->name, "window_end") == 0)
            we = r->key->keys[k];
    }
    bool time_order = r->norder == 1 && in->rowtime >= 0 && r->ocol[0] == in->rowtime;
    bool first_only = spec->rank_start == 1 && spec->rank_end == 1 && !spec->rank_column;
    unsigned mode;
    if (update_fast && !(ws >= 0 && we >= 0)) {
        r->kind = RK_TOPN_UPDATE;
        char keys[256];
        size_t kl = 0;
        keys[0] = 0;
        r->nrkey = in->nukey;
        for (int k = 0; k < in->nukey; k++) {
            r->rkey[k] = in->ukey[k];
            weir__append(keys, sizeof keys, &kl, "%s%d", k ? "," : "", in->ukey[k]);
        }
        snprintf(name, sizeof name, "Rank(strategy=[UpdateFastStrategy[%s]], rankType=["
                 "ROW_NUMBER], rankRange=[rankStart=%lld, rankEnd=%lld], partitionBy=[%s], "
                 "orderBy=[%s])", keys, (long long)r->start, (long long)r->end, part, order);
        mode = WEIR_CHANGELOG_RETRACT;
    } else if (updating && !(ws >= 0 && we >= 0)) {
        r->kind = RK_TOPN_RETRACT;
        snprintf(name, sizeof name, "Rank(strategy=[RetractStrategy], rankType=[ROW_NUMBER], "
                 "rankRange=[rankStart=%lld, rankEnd=%lld], partitionBy=[%s], orderBy=[%s])",
                 (long long)r->start, (long long)r->end, part, order);
        mode = WEIR_CHANGELOG_RETRACT;
    } else if (ws >= 0 && we >= 0) {
        if (updating) {
            rank_impl_free(r);
            weir__table_over_input_refused(in, what, "WindowRank", false);
            return NULL;
        }
        r->kind = RK_WINDOW;
        r->wend_col = we;
        weir_type_id ot = in->schema->cols[r->ocol[0]].type.id;
        if (first_only && r->norder == 1 &&
            (ot == WEIR_TYPE_TIMESTAMP || ot == WEIR_TYPE_TIMESTAMP_LTZ)) {
            r->wdedup = r->desc[0] ? 1 : 2;
            snprintf(name, sizeof name, "WindowDeduplicate(keep=[%s], partitionBy=[%s], "
                     "orderKey=[%s])", r->desc[0] ? "LastRow" : "FirstRow", part,
                     in->schema->cols[r->ocol[0]].name);
        } else {
            snprintf(name, sizeof name, "WindowRank(rankType=[ROW_NUMBER], rankRange=[rankStart="
                     "%lld, rankEnd=%lld], partitionBy=[%s], orderBy=[%s])", (long long)r->start,
                     (long long)r->end, part, order);
        }
        mode = WEIR_CHANGELOG_INSERT_ONLY;
    } else if (time_order && first_only) {
        bool last = r->desc[0];
        r->kind = last ? RK_DEDUP_LAST : RK_DEDUP_FIRST;
        snprintf(name, sizeof name, "Deduplicate(keep=[%s], key=[%s], order=[ROWTIME])",
                 last ? "LastRow" : "FirstRow", part);
        mode = last ? WEIR_CHANGELOG_INSERT_ONLY | WEIR_CHANGELOG_KIND(WEIR_ROW_UPDATE_BEFORE) |
                          WEIR_CHANGELOG_KIND(WEIR_ROW_UPDATE_AFTER)
                    : WEIR_CHANGELOG_INSERT_ONLY;
    } else {
        r->kind = RK_TOPN;
        snprintf(name, sizeof name, "Rank(strategy=[AppendFastStrategy], rankType=[ROW_NUMBER], "
                 "rankRange=[rankStart=%lld, rankEnd=%lld], partitionBy=[%s], orderBy=[%s])",
                 (long long)r->start, (long long)r->end, part, order);
        mode = WEIR_CHANGELOG_RETRACT;
    }
    return rank_node(in, r, name, r->kind == RK_DEDUP_LAST || r->kind == RK_DEDUP_FIRST ||
                                          r->wdedup
                                      ? NULL
                                      : spec->rank_column,
                     mode, what);
}

weir_table *weir_table_sort(weir_table *in, const char *order_by)
{
    static const char *what = "weir_table_sort";
    if (!in)
        return NULL;
    if (weir__table_over_input_refused(in, what, "TemporalSort", true))
        return NULL;
    rank_impl *r = rank_impl_new(in, NULL, what);
    if (!r)
        return NULL;
    char order[512], name[700];
    if (parse_order(in->env, r, order_by, what, order, sizeof order)) {
        rank_impl_free(r);
        return NULL;
    }
    r->kind = RK_SORT;
    snprintf(name, sizeof name, "TemporalSort(orderBy=[%s ASC%s%s])",
             in->schema->cols[in->rowtime].name, order[0] ? ", " : "", order);
    return rank_node(in, r, name, NULL, WEIR_CHANGELOG_INSERT_ONLY, what);
}

weir_table *weir_table_sort_limit(weir_table *in, const char *order_by, int64_t offset,
                                  int64_t fetch)
{
    static const char *what = "weir_table_sort_limit";
    if (!in)
        return NULL;
    if (offset < 0 || fetch < 0 || fetch > INT64_MAX - offset)
        return weir__table_fail(in->env, WEIR_EINVAL, "%s: a bad offset or fetch", what);
    if (weir__table_over_input_refused(in, what, "SortLimit", false))
        return NULL;
    rank_impl *r = rank_impl_new(in, NULL, what);
    if (!r)
        return NULL;
    char order[512], name[700];
    if (parse_order(in->env, r, order_by, what, order, sizeof order)) {
        rank_impl_free(r);
        return NULL;
    }
    if (r->norder == 0) {
        rank_impl_free(r);
        return weir__table_fail(in->env, WEIR_EINVAL, "%s: an order is required", what);
    }
    r->kind = fetch == 0 ? RK_LIMIT : RK_TOPN;
    r->start = offset + 1;
    r->end = offset + fetch;
    snprintf(name, sizeof name, "SortLimit(orderBy=[%s], offset=[%lld], fetch=[%lld])", order,
             (long long)offset, (long long)fetch);
    return rank_node(in, r, name, NULL, WEIR_CHANGELOG_RETRACT, what);
}

weir_table *weir_table_limit(weir_table *in, int64_t offset, int64_t fetch)
{
    static const char *what = "weir_table_limit";
    if (!in)
        return NULL;
    if (offset < 0 || fetch < 0 || fetch > INT64_MAX - offset)
        return weir__table_fail(in->env, WEIR_EINVAL, "%s: a bad offset or fetch", what);
    if (weir__table_over_input_refused(in, what, "Limit", false))
        return NULL;
    rank_impl *r = rank_impl_new(in, NULL, what);
    if (!r)
        return NULL;
    char name[128];
    r->kind = RK_LIMIT;
    r->start = offset + 1;
    r->end = offset + fetch;
    snprintf(name, sizeof name, "Limit(offset=[%lld], fetch=[%lld])", (long long)offset,
             (long long)fetch);
    return rank_node(in, r, name, NULL, WEIR_CHANGELOG_INSERT_ONLY, what);
}

/* ---- window TVF rows (Flink's WindowTableFunction) -------------------------------------- */

typedef struct tvf_impl {
    weir_table_window w;
    const weir_schema *in, *out;
    bool same_layout;
    int rowtime; /* the input's rowtime column */
} tvf_impl;

static void tvf_impl_free(void *p)
{
    free(p);
}

/* Flink's TimeWindow.getWindowStartWithOffset. */
static int64_t window_start(int64_t ts, int64_t offset, int64_t size)
{
    int64_t rem = (ts - offset) % size;
    if (rem < 0)
        rem += size;
    return ts - rem;
}

static int tvf_emit(weir_ctx *ctx, const tvf_impl *f, const unsigned char *row, int64_t start,
                    int64_t end)
{
    unsigned char *out = weir_ctx_state(ctx);
    const weir_schema *in = f->in;
    if (f->same_layout) {
        memcpy(out, row, in->row_size);
        memset(out + in->row_size, 0, f->out->row_size - in->row_size);
    } else {
        memset(out, 0, f->out->row_size);
        for (int c = 0; c < in->ncols; c++) {
            weir__val v;
            weir__load_value(in, row, c, &v);
            weir__store_value(f->out, out, c, &v);
        }
    }
    weir__val v = {.i = start};
    weir__store_value(f->out, out, in->ncols, &v);
    v.i = end;
    weir__store_value(f->out, out, in->ncols + 1, &v);
    v.i = end - 1;
    weir__store_value(f->out, out, in->ncols + 2, &v);
    out[0] = (unsigned char)WEIR_ROW_INSERT;
    return weir_emit(ctx, out, end - 1);
}

static int tvf_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)ts;
    const tvf_impl *f = weir_ctx_impl(ctx);
    weir__val t;
    weir__load_value(f->in, elem, f->rowtime, &t);
    const weir_table_window *w = &f->w;
    int r = 0;
    switch (w->kind) {
    case WEIR_TABLE_TUMBLE: {
        int64_t s = window_start(t.i, w->offset_ms, w->size_ms);
        r = tvf_emit(ctx, f, elem, s, s + w->size_ms);
        break;
    }
    case WEIR_TABLE_HOP:
        for (int64_t s = window_start(t.i, w->offset_ms, w->slide_ms); r == 0 && s > t.i - w->size_ms;
             s -= w->slide_ms)
            r = tvf_emit(ctx, f, elem, s, s + w->size_ms);
        break;
    default: { /* CUMULATE */
        int64_t s = window_start(t.i, w->offset_ms, w->size_ms);
        for (int64_t e = window_start(t.i, w->offset_ms, w->step_ms) + w->step_ms;
             r == 0 && e <= s + w->size_ms; e += w->step_ms)
            r = tvf_emit(ctx, f, elem, s, e);
        break;
    }
    }
    return r;
}

static int tvf_open(weir_ctx *ctx)
{
    const tvf_impl *f = weir_ctx_impl(ctx);
    unsigned char *out = calloc(1, f->out->row_size);
    if (!out)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, out);
    return 0;
}

static void tvf_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_operator_vtable tvf_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = tvf_open,
    .on_record = tvf_record,
    .close = tvf_close,
};

weir_table *weir_table_window_tvf(weir_table *in, const weir_table_window *w)
{
    static const char *what = "weir_table_window_tvf";
    if (!in)
        return NULL;
    weir_table_env *env = in->env;
    if (weir__table_over_input_refused(in, what, "WindowTableFunction", true))
        return NULL;
    char wname[128];
    bool ok = w != NULL;
    if (ok) {
        char off[48] = "";
        if (w->offset_ms)
            snprintf(off, sizeof off, ", offset=%lld", (long long)w->offset_ms);
        switch (w->kind) {
        case WEIR_TABLE_TUMBLE:
            ok = w->size_ms > 0 && !w->slide_ms && !w->step_ms && !w->gap_ms &&
                 w->offset_ms > -w->size_ms && w->offset_ms < w->size_ms;
            snprintf(wname, sizeof wname, "TUMBLE(size=%lld%s)", (long long)w->size_ms, off);
            break;
        case WEIR_TABLE_HOP:
            ok = w->size_ms > 0 && w->slide_ms > 0 && !w->step_ms && !w->gap_ms &&
                 w->offset_ms > -w->slide_ms && w->offset_ms < w->slide_ms;
            snprintf(wname, sizeof wname, "HOP(slide=%lld, size=%lld%s)", (long long)w->slide_ms,
                     (long long)w->size_ms, off);
            break;
        case WEIR_TABLE_CUMULATE:
            ok = w->size_ms > 0 && w->step_ms > 0 && w->size_ms % w->step_ms == 0 &&
                 !w->slide_ms && !w->gap_ms && w->offset_ms > -w->size_ms &&
                 w->offset_ms < w->size_ms;
            snprintf(wname, sizeof wname, "CUMULATE(step=%lld, size=%lld%s)",
                     (long long)w->step_ms, (long long)w->size_ms, off);
            break;
        case WEIR_TABLE_SESSION:
            return weir__table_fail(env, WEIR_EINVAL, "%s: a SESSION window is read only by a "
                                    "window aggregate (GROUP BY window_start, window_end)", what);
        default: ok = false; break;
        }
    }
    if (!ok)
        return weir__table_fail(env, WEIR_EINVAL, "%s: a bad window", what);
    const weir_schema *is = in->schema;
    static const char *const wcols[] = {"window_start", "window_end", "window_time"};
    for (int k = 0; k < 3; k++)
        if (weir_schema_column_index(is, wcols[k]) >= 0)
            return weir__table_fail(env, WEIR_EINVAL, "%s: the table %s has a column named %s",
                                    what, in->name, wcols[k]);
    if (is->ncols + 3 > WEIR__LIST_MAX)
        return weir__table_fail(env, WEIR_EINVAL, "%s: more than %d columns", what,
                                WEIR__LIST_MAX);
    weir_table *t = weir__table_node(env, in, "WindowTableFunction(window=[%s])", wname);
    tvf_impl *f = t ? calloc(1, sizeof *f) : NULL;
    if (!f)
        return t ? weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what) : NULL;
    t->impl = f;
    t->impl_free = tvf_impl_free;
    f->w = *w;
    f->in = is;
    f->rowtime = in->rowtime;
    const char *names[WEIR__LIST_MAX];
    weir_type types[WEIR__LIST_MAX];
    for (int c = 0; c < is->ncols; c++) {
        names[c] = is->cols[c].name;
        types[c] = is->cols[c].type;
    }
    weir_type rt = is->cols[in->rowtime].type;
    names[is->ncols] = "window_start";
    names[is->ncols + 1] = "window_end";
    names[is->ncols + 2] = "window_time";
    types[is->ncols] = types[is->ncols + 1] =
        (weir_type){.id = WEIR_TYPE_TIMESTAMP, .not_null = true};
    types[is->ncols + 2] = (weir_type){.id = rt.id, .not_null = true};
    const char *why;
    if (!(t->schema = weir__schema_derive(is, is->ncols + 3, names, types, &why)))
        return weir__table_fail(env, WEIR_EINVAL, "%s: %s", what, why);
    f->out = t->schema;
    f->same_layout = t->schema->header_size == is->header_size;
    for (int c = 0; f->same_layout && c < is->ncols; c++)
        f->same_layout = t->schema->cols[c].offset == is->cols[c].offset;
    t->mode = WEIR_CHANGELOG_INSERT_ONLY;
    t->rowtime = is->ncols + 2;
    t->windowed = true;
    t->window = *w;
    t->wstart = is->ncols;
    t->wend = is->ncols + 1;
    weir_process_spec spec = {
        .name = t->name,
        .kind = "table_window_tvf",
        .vtable = &tvf_vtable,
        .impl = f,
        .out_size = t->schema->row_size,
        .parallelism = env->config.parallelism,
        .accounting = WEIR_ACCOUNTING_ANY,
        .settings_json = weir__table_settings(t, NULL),
    };
    t->stream = weir_stream_process(in->stream, &spec);
    return t->stream ? t : NULL;
}
