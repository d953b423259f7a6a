/* table_window_join.c — the window join (Flink's WindowJoinOperator,
 * StreamExecWindowJoin; SEMANTICS.md 10): two inputs windowed alike (window
 * TVFs or window aggregates of the same TUMBLE, HOP or CUMULATE window over
 * the rowtime), joined ON an equality of their window_start columns, of
 * their window_end columns and of any further columns (the join key), for
 * the DataStream API too (weir_stream_window_join: Flink's
 * join().where().equalTo().window() and coGroup()).
 *
 * Planning: weir_table_join_tree (table_join.c) asks weir__window_join_match
 * whether a join is one, as Flink's WindowJoinUtil decides it: both inputs
 * carry window properties, ON equates both window starts and both window
 * ends (only one of the two is refused with Flink's message, and so are two
 * different windows); the other equalities are the join key (none: one
 * key, at parallelism 1, Flink's SINGLETON), the rest of ON a filter on
 * each pair of a window.
 *
 * State, per join key: each side's rows in a list state whose namespace is
 * the window's end, and an event-time timer at window_end - 1 in the same
 * namespace. A row whose window fired already (window_end - 1 at or below
 * the watermark) is late: dropped and counted (late_dropped). When the
 * timer fires the window's rows are joined as Flink's operators do (nested
 * loops, the left side's rows outer for INNER, LEFT and FULL, the right's
 * for RIGHT; rows without a partner padded on an outer side), each output
 * row stamped window_end - 1, and both lists are dropped. The watermark
 * passes unchanged (the timers fire before it goes on). A row whose key
 * holds a NULL meets no partner. Output: insert-only.
 *
 * SEMI and ANTI (WindowJoinOperator's SemiAntiJoinOperator; SQL's IN and
 * EXISTS subqueries correlated on the window columns): the condition is
 * checked on the pair's schema (j->pair), and when a window fires each of
 * its left rows goes out as it is, once, if a right row meets it (SEMI) or
 * none does (ANTI); the output is the left's columns, window and rowtime.
 *
 * Nothing is allocated per row: the output row and the scratch are made in
 * open(); the FULL join's marks of matched right rows grow with the largest
 * window seen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"
#include "table_join.h"
#include "weir/error.h"
#include "weir/operator.h"
#include "weir/operator_builtin.h"
#include "weir/state.h"
#include "weir/window.h"

/* The window join on the join engine's sides, keys and filter (table_join.h):
 * the window columns, the window and the user's functions around them. */
typedef struct wj_impl {
    join_impl j;           /* first: the key_spec's keyer points into it */
    int wstart[2], wend[2]; /* each side's window_start and window_end columns */
    /* weir_stream_window_join: the user's elements, windows assigned here */
    weir_window_assigner win;
    weir_window_join_fn fn;
    weir_window_cogroup_fn cogroup;
} wj_impl;

static void wj_impl_free(void *p)
{
    wj_impl *w = p;
    if (!w)
        return;
    weir_expr_destroy(w->j.filter);
    weir_schema_destroy(w->j.pair);
    free(w->j.own_name);
    free(w);
}

/* ---- the operator ------------------------------------------------------------------------ */

typedef struct wj_state {
    int list[2];
    unsigned char *out;     /* the output row */
    unsigned char *scratch;
    unsigned char *matched; /* FULL: which right rows met a partner */
    size_t matched_cap;
} wj_state;

static void wj_close(weir_ctx *ctx)
{
    wj_state *st = weir_ctx_state(ctx);
    if (!st)
        return;
    free(st->out);
    free(st->scratch);
    free(st->matched);
    free(st);
}

static size_t side_size(const join_impl *j, int s)
{
    return j->raw ? j->elem_size[s] : j->side[s].s->row_size;
}

static int wj_open(weir_ctx *ctx)
{
    const join_impl *j = &((const wj_impl *)weir_ctx_impl(ctx))->j;
    wj_state *st = calloc(1, sizeof *st);
    if (!st)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, st);
    st->out = calloc(1, j->raw ? 8 : j->out->row_size);
    st->scratch = calloc(1, (j->filter ? j->filter->scratch : 0) + 8);
    if (!st->out || !st->scratch)
        return WEIR_ENOMEM;
    int r = 0;
    for (int s = 0; r == 0 && s < 2; s++)
        r = weir_state_declare(ctx, WEIR_STATE_LIST, side_size(j, s), &st->list[s]);
    return r;
}

static int emit_out(weir_ctx *ctx, wj_state *st, int64_t ts)
{
    st->out[0] = (unsigned char)WEIR_ROW_INSERT;
    return weir_emit(ctx, st->out, ts);
}

/* The window [start, end) of the window ending at `end` (raw mode). */
static int64_t raw_start(const wj_impl *w, int64_t end)
{
    if (w->win.kind == WEIR_WINDOW_CUMULATIVE) {
        /* the period's start: the largest offset + k * size below end */
        int64_t x = end - 1 - w->win.offset_ms, m = x % w->win.size_ms;
        if (m < 0)
            m += w->win.size_ms;
        return end - 1 - m;
    }
    return end - w->win.size_ms;
}

/* A record of side s into the window ending at `end`: false if that window
 * fired already. */
static int add_to_window(weir_ctx *ctx, wj_state *st, int s, const void *elem, int64_t end,
                         bool *taken)
{
    if (end - 1 <= weir_ctx_watermark(ctx))
        return 0;
    *taken = true;
    if (weir_state_list_add(ctx, st->list[s], end, elem))
        return weir_ctx_state_error(ctx);
    return weir_timer_register(ctx, WEIR_EVENT_TIME, end, end - 1);
}

static int64_t floor_mod(int64_t a, int64_t b)
{
    int64_t m = a % b;
    return m < 0 ? m + b : m;
}

/* The join's state for the capture (join_state): each side's rows waiting
 * for their windows; the watermark passes unchanged. */
static void report_state(weir_ctx *ctx, const wj_state *st)
{
    weir_ctx_report_join_state(ctx, (int64_t)weir_state_elements(ctx, st->list[0]),
                               (int64_t)weir_state_elements(ctx, st->list[1]), 0);
}

static int wj_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    const wj_impl *wj = weir_ctx_impl(ctx);
    const join_impl *j = &wj->j;
    wj_state *st = weir_ctx_state(ctx);
    bool taken = false;
    int r = 0;
    int64_t missed_start, missed_end, missed_every = 0;
    if (!j->raw) {
        weir__val v;
        weir__load_value(j->side[input].s, elem, wj->wstart[input], &v);
        missed_start = v.i;
        weir__load_value(j->side[input].s, elem, wj->wend[input], &v);
        missed_end = v.i;
        r = add_to_window(ctx, st, input, elem, v.i, &taken);
    } else {
        /* the element's windows, as the window operator assigns them */
        const weir_window_assigner *w = &wj->win;
        int64_t step = w->kind == WEIR_WINDOW_TUMBLING ? w->size_ms : w->slide_ms;
        int64_t last = ts - floor_mod(ts - w->offset_ms, step); /* the latest start */
        if (w->kind == WEIR_WINDOW_CUMULATIVE) {
            int64_t period = ts - floor_mod(ts - w->offset_ms, w->size_ms);
            for (int64_t end = last + step; r == 0 && end <= period + w->size_ms; end += step)
                r = add_to_window(ctx, st, input, elem, end, &taken);
            missed_start = period; /* its period's largest window */
            missed_end = period + w->size_ms;
        } else {
            for (int64_t start = last; r == 0 && start > ts - w->size_ms; start -= step)
                r = add_to_window(ctx, st, input, elem, start + w->size_ms, &taken);
            missed_start = last;
            missed_end = last + w->size_ms;
            missed_every = w->kind == WEIR_WINDOW_SLIDING ? step : 0;
        }
    }
    if (r)
        return r;
    report_state(ctx, st);
    if (taken)
        weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    else /* counted as late_dropped and reported with the window it missed */
        weir_ctx_report_late(ctx, elem, ts, missed_start, missed_end, missed_every, true);
    return 0;
}

/* Whether row l of the left and rr of the right meet (the output row then
 * holds the pair): 1, 0, < 0 failed. */
static int meet(weir_ctx *ctx, const join_impl *j, wj_state *st, const unsigned char *l,
                const unsigned char *rr)
{
    if (weir__join_key_has_null(&j->side[0], l) || weir__join_key_has_null(&j->side[1], rr))
        return 0;
    weir__join_put_side(j, st->out, 0, l);
    weir__join_put_side(j, st->out, 1, rr);
    return weir__join_pair_passes(ctx, j, st->out, st->scratch);
}

static int emit_padded(weir_ctx *ctx, const join_impl *j, wj_state *st, int s,
                       const unsigned char *row, int64_t ts)
{
    weir__join_put_side(j, st->out, s, row);
    weir__join_put_side(j, st->out, 1 - s, NULL);
    return emit_out(ctx, st, ts);
}

/* A window's rows of both sides joined as Flink's WindowJoinOperator
 * subclasses do: the outer loop over the left rows (the right's for a
 * RIGHT join), a row of the outer side without a partner padded, and for
 * FULL then the right rows that met none. */
static int join_window(weir_ctx *ctx, const join_impl *j, wj_state *st,
                       const unsigned char *const rows[2], const size_t n[2], int64_t ts)
{
    int o = j->kind == WEIR_JOIN_RIGHT ? 1 : 0;
    size_t size[2] = {j->side[0].s->row_size, j->side[1].s->row_size};
    bool full = j->kind == WEIR_JOIN_FULL;
    if (full && n[1] > st->matched_cap) {
        unsigned char *m = realloc(st->matched, n[1]);
        if (!m)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "%s: out of memory", j->name);
        st->matched = m;
        st->matched_cap = n[1];
    }
    if (full && n[1])
        memset(st->matched, 0, n[1]);
    int r;
    for (size_t a = 0; a < n[o]; a++) {
        const unsigned char *ra = rows[o] + a * size[o];
        bool any = false;
        for (size_t b = 0; b < n[1 - o]; b++) {
            const unsigned char *rb = rows[1 - o] + b * size[1 - o];
            if ((r = meet(ctx, j, st, o == 0 ? ra : rb, o == 0 ? rb : ra)) < 0)
                return r;
            if (!r)
                continue;
            any = true;
            if (full)
                st->matched[b] = 1;
            if ((r = emit_out(ctx, st, ts)))
                return r;
        }
        if (!any && j->side[o].outer && (r = emit_padded(ctx, j, st, o, ra, ts)))
            return r;
    }
    for (size_t b = 0; full && b < n[1]; b++)
        if (!st->matched[b] && (r = emit_padded(ctx, j, st, 1, rows[1] + b * size[1], ts)))
            return r;
    return 0;
}

/* A window's left rows that meet a right row of it (SEMI) or none (ANTI),
 * as Flink's WindowJoinOperator.SemiAntiJoinOperator: each goes out as it
 * is, its first partner enough. */
static int semi_window(weir_ctx *ctx, const join_impl *j, wj_state *st,
                       const unsigned char *const rows[2], const size_t n[2], int64_t ts)
{
    bool anti = j->kind == WEIR_JOIN_ANTI;
    size_t size[2] = {j->side[0].s->row_size, j->side[1].s->row_size};
    int r;
    for (size_t a = 0; a < n[0]; a++) {
        const unsigned char *l = rows[0] + a * size[0];
        bool any = false;
        for (size_t b = 0; !any && b < n[1]; b++) {
            if ((r = meet(ctx, j, st, l, rows[1] + b * size[1])) < 0)
                return r;
            any = r > 0;
        }
        if (any != anti && (r = weir_emit(ctx, l, ts)))
            return r;
    }
    return 0;
}

/* The window_start of a window's rows (the first row's). */
static int64_t window_start_of(const wj_impl *w, const unsigned char *const rows[2],
                               const size_t n[2])
{
    int s = n[0] ? 0 : 1;
    weir__val v;
    weir__load_value(w->j.side[s].s, rows[s], w->wstart[s], &v);
    return v.i;
}

/* The user's function over a window's elements (weir_stream_window_join). */
static int raw_window(weir_ctx *ctx, const wj_impl *w, const unsigned char *const rows[2],
                      const size_t n[2], int64_t end)
{
    const join_impl *j = &w->j;
    int64_t start = raw_start(w, end);
    int r = 0;
    if (w->cogroup) {
        r = w->cogroup(ctx, rows[0], n[0], rows[1], n[1], start, end, j->arg);
    } else {
        for (size_t a = 0; r == 0 && a < n[0]; a++)
            for (size_t b = 0; r == 0 && b < n[1]; b++)
                r = w->fn(ctx, rows[0] + a * j->elem_size[0], rows[1] + b * j->elem_size[1],
                          start, end, j->arg);
    }
    return r < 0 ? r : r ? WEIR_ECALLBACK : 0;
}

static int wj_timer(weir_ctx *ctx, const weir_timer *timer)
{
    const wj_impl *w = weir_ctx_impl(ctx);
    const join_impl *j = &w->j;
    wj_state *st = weir_ctx_state(ctx);
    int64_t end = timer->ns;
    const unsigned char *rows[2];
    size_t n[2];
    for (int s = 0; s < 2; s++)
        rows[s] = weir_state_list_get(ctx, st->list[s], end, &n[s]);
    weir_ctx_report_window_fire(ctx, j->raw ? raw_start(w, end) : window_start_of(w, rows, n),
                                end, 1, (int64_t)(n[0] + n[1]));
    bool semi = j->kind == WEIR_JOIN_SEMI || j->kind == WEIR_JOIN_ANTI;
    int r = j->raw   ? raw_window(ctx, w, rows, n, end)
            : semi ? semi_window(ctx, j, st, rows, n, timer->timestamp)
                   : join_window(ctx, j, st, rows, n, timer->timestamp);
    for (int s = 0; s < 2; s++)
        weir_state_clear(ctx, st->list[s], end);
    report_state(ctx, st);
    return r;
}

static const weir_operator_vtable wj_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = wj_open,
    .on_record = wj_record,
    .on_timer = wj_timer,
    .close = wj_close,
};

/* ---- planning ---------------------------------------------------------------------------- */

/* A duration as Flink's TimeUtils.formatWithHighestUnit writes it. */
static void duration(int64_t ms, char *buf, size_t size)
{
    static const struct { int64_t ms; const char *unit; } units[] = {
        {86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (ms != 0 && ms % units[i].ms == 0) {
            snprintf(buf, size, "%lld %s", (long long)(ms / units[i].ms), units[i].unit);
            return;
        }
    snprintf(buf, size, "%lld ms", (long long)ms);
}

/* The window as Flink's WindowSpec shows it: with the window columns
 * (EXPLAIN's toSummaryString) when cols is not NULL, else alone
 * (toString, in messages). */
static void window_text(const weir_table *t, bool cols, char *buf, size_t size)
{
    const weir_table_window *w = &t->window;
    char a[32], b[32], off[48] = "", head[160] = "";
    if (w->offset_ms) {
        duration(w->offset_ms, a, sizeof a);
        snprintf(off, sizeof off, ", offset=[%s]", a);
    }
    if (cols)
        snprintf(head, sizeof head, "win_start=[%s], win_end=[%s], ",
                 t->schema->cols[t->wstart].name, t->schema->cols[t->wend].name);
    switch (w->kind) {
    case WEIR_TABLE_HOP:
        duration(w->size_ms, a, sizeof a);
        duration(w->slide_ms, b, sizeof b);
        snprintf(buf, size, "HOP(%ssize=[%s], slide=[%s]%s)", head, a, b, off);
        break;
    case WEIR_TABLE_CUMULATE:
        duration(w->size_ms, a, sizeof a);
        duration(w->step_ms, b, sizeof b);
        snprintf(buf, size, "CUMULATE(%smax_size=[%s], step=[%s]%s)", head, a, b, off);
        break;
    default:
        duration(w->size_ms, a, sizeof a);
        snprintf(buf, size, "TUMBLE(%ssize=[%s]%s)", head, a, off);
        break;
    }
}

static bool same_window(const weir_table_window *a, const weir_table_window *b)
{
    return a->kind == b->kind && a->size_ms == b->size_ms && a->slide_ms == b->slide_ms &&
           a->step_ms == b->step_ms && a->offset_ms == b->offset_ms;
}

int weir__window_join_match(weir_table_env *env, const weir_table *left, const weir_table *right,
                            int nkeys, const int (*keys)[2], const char *cond_text)
{
    if (!left->windowed || !right->windowed)
        return 0;
    bool starts = false, ends = false;
    for (int i = 0; i < nkeys; i++) {
        starts = starts || (keys[i][0] == left->wstart && keys[i][1] == right->wstart);
        ends = ends || (keys[i][0] == left->wend && keys[i][1] == right->wend);
    }
    if (starts && ends) {
        if (!same_window(&left->window, &right->window)) {
            char a[160], b[160];
            window_text(left, false, a, sizeof a);
            window_text(right, false, b, sizeof b);
            weir__table_fail(env, WEIR_EINVAL, "Currently, window join doesn't support "
                             "different window table function of left and right inputs. "
                             "The left window table function is %s. The right window table "
                             "function is %s.", a, b);
            return -1;
        }
        return 1;
    }
    if (starts || ends) {
        weir__table_fail(env, WEIR_EINVAL, "Currently, window join requires JOIN ON condition "
                         "must contain both window starts equality of input tables and window "
                         "ends equality of input tables. But the current JOIN ON condition is "
                         "%s.", cond_text);
        return -1;
    }
    return 0;
}

static const char *const kind_names[] = {[WEIR_JOIN_INNER] = "InnerJoin",
                                         [WEIR_JOIN_LEFT] = "LeftOuterJoin",
                                         [WEIR_JOIN_RIGHT] = "RightOuterJoin",
                                         [WEIR_JOIN_FULL] = "FullOuterJoin",
                                         [WEIR_JOIN_SEMI] = "LeftSemiJoin",
                                         [WEIR_JOIN_ANTI] = "LeftAntiJoin"};

/* The join key's parts: the pairs but the window columns'. 0, or -1 with
 * env failed. */
static int key_parts(weir_table_env *env, const weir_table *left, const weir_table *right,
                     int nkeys, const int (*keys)[2], join_impl *j)
{
    static const char *what = "weir_table_join";
    j->key_size = 0;
    j->nkeys = 0;
    for (int i = 0; i < nkeys; i++) {
        if ((keys[i][0] == left->wstart && keys[i][1] == right->wstart) ||
            (keys[i][0] == left->wend && keys[i][1] == right->wend))
            continue;
        if (j->nkeys == JOIN_MAX_KEYS)
            break;
        if (weir__join_key_add(env, what, j, left->schema, keys[i][0], right->schema,
                               keys[i][1]))
            return -1;
    }
    if (weir__join_key_fits(env, what, j))
        return -1;
    if (j->nkeys == 0)
        j->key_size = 1; /* no key but the window: one key (Flink's SINGLETON) */
    return 0;
}

weir_table *weir__window_join(weir_table *left, weir_table *right, weir_join_kind kind,
                              int nkeys, const int (*keys)[2], weir_expr *filter,
                              weir_schema *schema, const char *cond_text)
{
    weir_table_env *env = left->env;
    char lw[256], rw[256];
    window_text(left, true, lw, sizeof lw);
    window_text(right, true, rw, sizeof rw);
    weir_table *t = weir__table_node(env, left, "WindowJoin(leftWindow=[%s], rightWindow=[%s], "
                                     "joinType=[%s], where=[%s])", lw, rw, kind_names[kind],
                                     cond_text);
    wj_impl *w = t ? calloc(1, sizeof *w) : NULL;
    if (!w) {
        weir_expr_destroy(filter);
        weir_schema_destroy(schema);
        return t ? weir__table_fail(env, WEIR_ENOMEM, "weir_table_join: out of memory") : NULL;
    }
    join_impl *j = &w->j;
    j->filter = filter;
    bool semi = kind == WEIR_JOIN_SEMI || kind == WEIR_JOIN_ANTI;
    if (semi) { /* the left's columns go out; the pair's are the condition's */
        j->pair = schema;
        schema = weir__schema_copy(left->schema, left->schema->table);
    }
    t->schema = schema;
    t->impl = w;
    t->impl_free = wj_impl_free;
    t->more = schema ? malloc(sizeof *t->more) : NULL;
    if (!t->more)
        return weir__table_fail(env, WEIR_ENOMEM, "weir_table_join: out of memory");
    t->more[0] = right;
    t->nmore = 1;
    j->kind = kind;
    j->name = t->name;
    j->out = semi ? j->pair : t->schema;
    j->virtual_clock = weir_job_get_config(env->job)->clock == WEIR_CLOCK_VIRTUAL;
    if (key_parts(env, left, right, nkeys, keys, j))
        return NULL;
    const weir_table *in[2] = {left, right};
    for (int s = 0; s < 2; s++) {
        join_side *sd = &j->side[s];
        sd->s = in[s]->schema;
        sd->first = s == 0 ? 0 : left->schema->ncols;
        sd->outer = s == 0 ? (kind == WEIR_JOIN_LEFT || kind == WEIR_JOIN_FULL)
                           : (kind == WEIR_JOIN_RIGHT || kind == WEIR_JOIN_FULL);
        w->wstart[s] = in[s]->wstart;
        w->wend[s] = in[s]->wend;
        j->keyer[s] = (join_keyer){.j = j, .side = s};
    }
    weir__join_layout(j);
    /* Output: insert-only; the window and time attribute of a side that is
     * never padded kept (Flink keeps a window join's time attributes). */
    t->mode = WEIR_CHANGELOG_INSERT_ONLY;
    int keep = kind == WEIR_JOIN_RIGHT ? 1 : kind == WEIR_JOIN_FULL ? -1 : 0;
    if (keep >= 0) {
        const weir_table *k = in[keep];
        int first = j->side[keep].first;
        t->windowed = true;
        t->window = k->window;
        t->wstart = first + k->wstart;
        t->wend = first + k->wend;
        t->rowtime = k->rowtime >= 0 ? first + k->rowtime : -1;
        /* a semi or anti join's rows are the left's: its window and time */
        if (kind == WEIR_JOIN_INNER && t->rowtime >= 0 && right->rowtime >= 0)
            t->rowtime2 = left->schema->ncols + right->rowtime;
    }
    char extra[96];
    snprintf(extra, sizeof extra, "\"join_type\":\"%s\"", kind_names[kind]);
    weir_process_spec spec = {
        .name = t->name,
        .kind = "table_window_join",
        .vtable = &wj_vtable,
        .impl = w,
        .out_size = t->schema->row_size,
        .parallelism = j->nkeys ? env->config.parallelism : 1,
        .accounting = WEIR_ACCOUNTING_ANY,
        .settings_json = weir__table_settings(t, extra),
    };
    t->stream = weir__join_connect(t, left, right, j, &spec, "WindowJoin");
    return t->stream ? t : NULL;
}

int weir__window_join_operator(const weir_table *t, weir_process_spec *spec,
                               weir_key_spec keys[2])
{
    if (!t || t->impl_free != wj_impl_free)
        return WEIR_EINVAL;
    const wj_impl *w = t->impl;
    const join_impl *j = &w->j;
    *spec = (weir_process_spec){
        .name = t->name,
        .kind = "table_window_join",
        .vtable = &wj_vtable,
        .impl = (void *)w,
        .out_size = t->schema->row_size,
        .parallelism = 1,
        .accounting = WEIR_ACCOUNTING_ANY,
    };
    for (int s = 0; s < 2; s++)
        keys[s] = (weir_key_spec){.key_size = j->key_size, .extract = weir__join_key_extract,
                                  .arg = (void *)&j->keyer[s]};
    return 0;
}

/* ---- the DataStream window join ---------------------------------------------------------- */

weir_stream *weir_stream_window_join(weir_stream *left, weir_stream *right,
                                     const weir_window_join_spec *spec)
{
    if (!left || !right)
        return NULL;
    weir_job *job = weir_stream_job(left);
    static const char *what = "weir_stream_window_join";
    if (!spec || !spec->fn == !spec->cogroup || spec->out_size == 0) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: a spec with a join function or a "
                              "cogroup function (one of them) and an output size is required",
                              what);
        return NULL;
    }
    size_t ks = weir_stream_key_size(left);
    if (ks == 0 || weir_stream_key_size(right) != ks) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: both streams must be keyed "
                              "(weir_stream_key_by) with keys of the same size", what);
        return NULL;
    }
    const weir_window_assigner *w = &spec->window;
    bool ok;
    int64_t per_element;
    switch (w->kind) {
    case WEIR_WINDOW_TUMBLING:
        ok = w->size_ms > 0 && !w->slide_ms && !w->gap_ms && w->offset_ms > -w->size_ms &&
             w->offset_ms < w->size_ms;
        per_element = 1;
        break;
    case WEIR_WINDOW_SLIDING:
    case WEIR_WINDOW_CUMULATIVE:
        ok = w->size_ms > 0 && w->slide_ms > 0 && !w->gap_ms &&
             w->offset_ms > -(w->kind == WEIR_WINDOW_SLIDING ? w->slide_ms : w->size_ms) &&
             w->offset_ms < (w->kind == WEIR_WINDOW_SLIDING ? w->slide_ms : w->size_ms) &&
             (w->kind == WEIR_WINDOW_SLIDING || w->size_ms % w->slide_ms == 0);
        per_element = ok ? (w->size_ms + w->slide_ms - 1) / w->slide_ms : 0;
        break;
    default:
        weir_job_record_error(job, WEIR_EINVAL, "%s: the window must be an event-time "
                              "tumbling, sliding or cumulative one (a window join's windows "
                              "do not merge)", what);
        return NULL;
    }
    if (!ok || per_element > WEIR_WINDOW_MAX_PER_ELEMENT) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: a bad window (size %lld, slide %lld, "
                              "offset %lld)", what, (long long)w->size_ms,
                              (long long)w->slide_ms, (long long)w->offset_ms);
        return NULL;
    }
    wj_impl *wj = calloc(1, sizeof *wj);
    if (!wj || !(wj->j.own_name = strdup(spec->name ? spec->name : "WindowJoin"))) {
        free(wj);
        weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", what);
        return NULL;
    }
    join_impl *j = &wj->j;
    j->raw = true;
    j->kind = WEIR_JOIN_INNER;
    wj->win = *w;
    wj->fn = spec->fn;
    wj->cogroup = spec->cogroup;
    j->arg = spec->arg;
    j->name = j->own_name;
    for (int s = 0; s < 2; s++)
        j->elem_size[s] = weir_stream_elem_size(s ? right : left);
    char settings[160];
    snprintf(settings, sizeof settings, "\"size_ms\":%lld,\"slide_ms\":%lld,\"offset_ms\":%lld,"
             "\"cogroup\":%s", (long long)w->size_ms, (long long)w->slide_ms,
             (long long)w->offset_ms, spec->cogroup ? "true" : "false");
    weir_process_spec ps = {
        .name = j->name,
        .kind = "window_join",
        .vtable = &wj_vtable,
        .impl = wj,
        .impl_free = wj_impl_free,
        .out_size = spec->out_size,
        .parallelism = spec->parallelism,
        .accounting = WEIR_ACCOUNTING_ANY,
        .settings_json = settings,
    };
    return weir_stream_connect(left, right, &ps);
}
