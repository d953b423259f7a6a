/* table_window.c — window aggregates of tables (Flink's window TVFs TUMBLE,
 * HOP, CUMULATE and SESSION followed by GROUP BY window_start, window_end, keys;
 * Flink's WindowAggregate node), planned onto the window operator of
 * weir/window.h.
 *
 * There is no window logic here: assignment, panes, session merging,
 * timers, firing at end - 1 and dropping late rows are the window
 * operator's, so a table window behaves exactly as a DataStream window on
 * the same rows (SEMANTICS.md 7 and 9; allowed lateness 0). What this file
 * adds is the table side of it:
 *   - the plan: the rowtime and insert-only checks, the window's columns
 *     (window_start, window_end, window_time) as names the select list may
 *     use, the output schema and its changelog mode [I];
 *   - the aggregate function handed to the window operator: a row's
 *     accumulator is the table aggregates' slots (table_agg.c), folded per
 *     row and merged per pane or session, and the result row is the key
 *     (from the window's key bytes), the window's bounds and the aggregate
 *     results.
 * The window operator's add function cannot fail, so it evaluates nothing:
 * every aggregate argument is a column of its input. An argument that is an
 * expression is computed by a Calc node planned in front (as Flink plans a
 * Calc before its window aggregate), where an evaluation error fails the
 * job with its message.
 *
 * An aggregate function from C (weir/function.h) can fail, though, in any
 * of its calls, and the window operator's functions have no way to say so.
 * When the select list has one, the node's operator is the window
 * operator's vtable wrapped: each callback that may call a function (a
 * record, a timer) runs with a status of the calling thread's stack in a
 * thread-local pointer, which a failing call fills in, and the wrapper
 * then fails the subtask with its message. One pointer store around each
 * callback, nothing when no function from C is there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "table_internal.h"
#include "weir/error.h"
#include "weir/operator.h"
#include "weir/window.h"

/* The window's columns, after the input's in the schema items compile
 * against (as Flink's window TVF appends them). */
enum { WIN_START = 0, WIN_END, WIN_TIME, WIN_NCOLS };
static const char *const win_names[WIN_NCOLS] = {"window_start", "window_end", "window_time"};

typedef struct win_item {
    int key;           /* the position of a key in the group key, or -1 */
    int win;           /* WIN_START.. for a window column, or -1 */
    int agg;           /* its aggregate in aggs, or -1 */
} win_item;

typedef struct win_impl {
    weir__key *key;
    const weir_schema *in;  /* the window operator's input rows */
    const weir_schema *out;
    int nitems;
    win_item *items;
    int naggs;
    weir__agg *aggs;
    int *arg_col;           /* per aggregate: its argument's column in `in`, -1 for COUNT(*) */
    int *filter_col;        /* per aggregate: its FILTER's BOOLEAN column in `in`, or -1 */
    bool may_fail;          /* an aggregate's call may fail (functions from C, LISTAGG) */
    uint32_t acc_size;
    weir_expr **exprs;      /* the compiled items (the aggregates' layout reads them) */
    /* Aggregate functions from C: per item the first of its arguments'
     * columns in fn_cols (-1: not a function), whether one has an init,
     * the node's name, and the window operator's vtable and its wrapper. */
    int *agg_item;          /* per aggregate: its item */
    int *fn_at;
    int *fn_cols;
    int nfn;
    bool fn_init;
    const char *name;
    const weir_operator_vtable *inner;
    weir_operator_vtable wrapped;
    bool proctime;          /* windows on the job clock */
} win_impl;

static void win_impl_free(void *p)
{
    win_impl *w = p;
    if (!w)
        return;
    for (int i = 0; i < w->nitems; i++)
        weir_expr_destroy(w->exprs ? w->exprs[i] : NULL);
    free(w->exprs);
    free(w->items);
    free(w->aggs);
    free(w->arg_col);
    free(w->filter_col);
    free(w->agg_item);
    free(w->fn_at);
    free(w->fn_cols);
    free(w->key);
    free(w);
}

/* ---- failures of functions from C --------------------------------------------------------- */

/* What a failing function left for the wrapper to report. */
typedef struct win_status {
    int err;
    char why[768];
} win_status;

/* The status of the window callback this thread is in, set by the wrapper
 * around it (NULL outside one). */
static _Thread_local win_status *current_status;

/* A function's call failed (code r, message why) for the item `text`: the
 * first failure of the callback is kept. */
static void win_failed(int r, const char *why, const char *text)
{
    win_status *st = current_status;
    if (!st || st->err)
        return;
    char echo[WEIR__EXPR_ECHO + 4];
    st->err = r;
    snprintf(st->why, sizeof st->why, "%s in '%s'", why, weir__expr_echo(text, echo));
}

/* After a wrapped callback (its result r): the subtask fails with the
 * function's message if one failed. */
static int win_wrapped_done(weir_ctx *ctx, const win_impl *w, const win_status *st,
                            win_status *saved, int r)
{
    current_status = saved;
    if (st->err)
        return weir_ctx_fail(ctx, st->err, "%s: %s", w->name, st->why);
    return r;
}

static int win_wrap_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    const win_impl *w = weir_ctx_arg(ctx);
    win_status st, *saved = current_status;
    st.err = 0;
    current_status = &st;
    return win_wrapped_done(ctx, w, &st, saved, w->inner->on_record(ctx, input, elem, ts));
}

static int win_wrap_timer(weir_ctx *ctx, const weir_timer *t)
{
    const win_impl *w = weir_ctx_arg(ctx);
    win_status st, *saved = current_status;
    st.err = 0;
    current_status = &st;
    return win_wrapped_done(ctx, w, &st, saved, w->inner->on_timer(ctx, t));
}

static int win_wrap_watermark(weir_ctx *ctx, int64_t wm)
{
    const win_impl *w = weir_ctx_arg(ctx);
    win_status st, *saved = current_status;
    st.err = 0;
    current_status = &st;
    return win_wrapped_done(ctx, w, &st, saved, w->inner->on_watermark(ctx, wm));
}

static int win_wrap_end(weir_ctx *ctx)
{
    const win_impl *w = weir_ctx_arg(ctx);
    win_status st, *saved = current_status;
    st.err = 0;
    current_status = &st;
    return win_wrapped_done(ctx, w, &st, saved, w->inner->on_end(ctx));
}

/* ---- the window operator's aggregate function ------------------------------------------- */

/* A function from C folds the row in: its arguments from their columns. */
static void win_add_function(const win_impl *w, const weir__agg *a, void *acc, const void *elem,
                             const char *text)
{
    weir__val args[WEIR_FUNCTION_MAX_ARGS];
    for (int k = 0; k < a->nargs; k++)
        weir__load_value(w->in, elem, a->cols[k], &args[k]);
    const char *why;
    int r = weir__agg_call(a, acc, args, 1, &why);
    if (r)
        win_failed(r, why, text);
}

static void win_create(void *acc, void *arg)
{
    const win_impl *w = arg;
    for (int i = 0; i < w->naggs; i++)
        weir__agg_init(&w->aggs[i], acc);
}

static void win_add(void *acc, const void *elem, void *arg)
{
    const win_impl *w = arg;
    for (int i = 0; i < w->naggs; i++) {
        if (w->filter_col[i] >= 0) {
            /* FILTER (WHERE c): c computed into a column; the row counts when TRUE */
            weir__val f;
            weir__load_value(w->in, elem, w->filter_col[i], &f);
            if (f.null || !f.i)
                continue;
        }
        if (w->aggs[i].kind == WEIR_AGG_FUNCTION) {
            win_add_function(w, &w->aggs[i], acc, elem, w->exprs[w->agg_item[i]]->text);
            continue;
        }
        if (w->aggs[i].kind == WEIR_AGG_COUNT_STAR) {
            /* the most common aggregate, without a call: its slot counts rows */
            int64_t n;
            unsigned char *slot = (unsigned char *)acc + w->aggs[i].slot;
            memcpy(&n, slot, 8);
            n++;
            memcpy(slot, &n, 8);
            continue;
        }
        weir__val v = {0};
        if (w->arg_col[i] >= 0)
            weir__load_value(w->in, elem, w->arg_col[i], &v);
        const char *why;
        int r = weir__agg_update(&w->aggs[i], acc, &v, 1, NULL, NULL, &why);
        if (r)
            win_failed(r, why, w->exprs[w->agg_item[i]]->text);
    }
}

static void win_merge(void *acc, const void *other, void *arg)
{
    const win_impl *w = arg;
    for (int i = 0; i < w->naggs; i++) {
        const char *why;
        int r = w->aggs[i].kind != WEIR_AGG_FUNCTION
                    ? weir__agg_merge(&w->aggs[i], acc, other, &why)
                    : weir__agg_call_merge(&w->aggs[i], acc, other, &why);
        if (r)
            win_failed(r, why, w->exprs[w->agg_item[i]]->text);
    }
}

/* A function's result into column i of the row (a string written into a
 * buffer of this call's: the result type's capacity may be any up to the
 * largest). */
static void win_function_result(const win_impl *w, const void *acc, int i, unsigned char *row)
{
    char buf[WEIR_STRING_MAX_CAPACITY + 1];
    const weir__agg *a = &w->aggs[w->items[i].agg];
    weir__val v;
    const char *why;
    int r = weir__agg_call_result(a, acc, &v, buf, &why);
    if (r) {
        win_failed(r, why, w->exprs[i]->text);
        v = (weir__val){.null = true};
    }
    (void)weir__store_value(w->out, row, i, &v);
}

/* Column `col` of the output from the key's bytes (weir__key_extract's
 * layout: per key column a null flag if it may be NULL, then the column's
 * row bytes, zero for NULL). */
static void key_column(const win_impl *w, const unsigned char *key, int k, unsigned char *row,
                       int col)
{
    const unsigned char *p = key + weir__key_offset(w->key, k);
    const weir__col *c = &w->out->cols[col];
    bool null = w->key->flag[k] && *p++ != 0;
    weir__row_set_null_bit(row, col, null);
    memcpy(row + c->offset, p, c->size);
}

static void win_result(const void *acc, const weir_window_info *info, void *out, void *arg)
{
    const win_impl *w = arg;
    unsigned char *row = out;
    weir_row_init(w->out, row, WEIR_ROW_INSERT);
    for (int i = 0; i < w->nitems; i++) {
        const win_item *it = &w->items[i];
        weir__val v = {0};
        if (it->key >= 0) {
            key_column(w, info->key, it->key, row, i);
            continue;
        }
        if (it->win >= 0) {
            v.i = it->win == WIN_START ? info->start
                : it->win == WIN_END   ? info->end
                                       : info->max_timestamp;
        } else if (w->aggs[it->agg].kind == WEIR_AGG_FUNCTION) {
            win_function_result(w, acc, i, row);
            continue;
        } else {
            weir__agg_result(&w->aggs[it->agg], acc, &v);
        }
        /* Cannot fail: an aggregate's result has its argument's type and
         * capacity, so it fits the column made for it. */
        (void)weir__store_value(w->out, row, i, &v);
    }
}

/* ---- the plan ------------------------------------------------------------------------ */

static const char *what = "weir_table_window_aggregate";

static bool is_win_name(const char *s, size_t n)
{
    for (int k = 0; k < WIN_NCOLS; k++)
        if (strlen(win_names[k]) == n && strncasecmp(s, win_names[k], n) == 0)
            return true;
    return false;
}

/* |offset| < limit, else false after recording it. */
static bool offset_within(weir_table_env *env, const char *kind, int64_t offset, int64_t limit,
                          const char *limit_name)
{
    if (offset > -limit && offset < limit)
        return true;
    weir__table_fail(env, WEIR_EINVAL, "%s: %s: the offset %lld is not within the %s %lld", what,
                     kind, (long long)offset, limit_name, (long long)limit);
    return false;
}

/* The window as the window operator's assigner, and its part of the node's
 * name; false after recording what is wrong with it. */
static bool plan_window(weir_table_env *env, const weir_table_window *w,
                        weir_window_assigner *a, char *name, size_t size)
{
    char off[48] = "";
    if (w->offset_ms)
        snprintf(off, sizeof off, ", offset=%lld", (long long)w->offset_ms);
    if (w->proctime) {
        /* processing time: the window operator's processing-time
         * assigners, on the job clock */
        snprintf(off, sizeof off, ", time=proctime");
        if (w->offset_ms) {
            weir__table_fail(env, WEIR_EINVAL, "%s: a processing-time window takes no offset",
                             what);
            return false;
        }
    }
    switch (w->kind) {
    case WEIR_TABLE_TUMBLE:
        if (w->size_ms <= 0 || w->slide_ms || w->gap_ms || w->step_ms)
            break;
        if (!offset_within(env, "TUMBLE", w->offset_ms, w->size_ms, "size"))
            return false;
        *a = w->proctime ? weir_window_processing_tumbling(w->size_ms, 0)
                         : weir_window_tumbling(w->size_ms, w->offset_ms);
        snprintf(name, size, "TUMBLE(size=%lld%s)", (long long)w->size_ms, off);
        return true;
    case WEIR_TABLE_HOP:
        if (w->size_ms <= 0 || w->slide_ms <= 0 || w->gap_ms || w->step_ms)
            break;
        if (!offset_within(env, "HOP", w->offset_ms, w->slide_ms, "slide"))
            return false;
        *a = w->proctime ? weir_window_processing_sliding(w->size_ms, w->slide_ms, 0)
                         : weir_window_sliding(w->size_ms, w->slide_ms, w->offset_ms);
        snprintf(name, size, "HOP(slide=%lld, size=%lld%s)", (long long)w->slide_ms,
                 (long long)w->size_ms, off);
        return true;
    case WEIR_TABLE_CUMULATE:
        if (w->size_ms <= 0 || w->step_ms <= 0 || w->slide_ms || w->gap_ms)
            break;
        if (w->size_ms % w->step_ms) {
            weir__table_fail(env, WEIR_EINVAL, "%s: CUMULATE: the size %lld is not a multiple of "
                             "the step %lld", what, (long long)w->size_ms, (long long)w->step_ms);
            return false;
        }
        if (!offset_within(env, "CUMULATE", w->offset_ms, w->size_ms, "size"))
            return false;
        *a = weir_window_cumulative(w->size_ms, w->step_ms, w->offset_ms);
        if (w->proctime)
            a->kind = WEIR_WINDOW_PROCESSING_CUMULATIVE;
        snprintf(name, size, "CUMULATE(step=%lld, size=%lld%s)", (long long)w->step_ms,
                 (long long)w->size_ms, off);
        return true;
    case WEIR_TABLE_SESSION:
        if (w->gap_ms <= 0 || w->size_ms || w->slide_ms || w->offset_ms || w->step_ms)
            break;
        *a = weir_window_session(w->gap_ms);
        if (w->proctime)
            a->kind = WEIR_WINDOW_PROCESSING_SESSION;
        snprintf(name, size, "SESSION(gap=%lld%s)", (long long)w->gap_ms, off);
        return true;
    default:
        weir__table_fail(env, WEIR_EINVAL, "%s: unknown window kind %d", what, (int)w->kind);
        return false;
    }
    static const char *const need[] = {"", "TUMBLE takes size_ms > 0 (and offset_ms) only",
                                       "HOP takes slide_ms > 0 and size_ms > 0 (and offset_ms) "
                                       "only",
                                       "SESSION takes gap_ms > 0 only",
                                       "CUMULATE takes step_ms > 0 and size_ms > 0 (and "
                                       "offset_ms) only"};
    weir__table_fail(env, WEIR_EINVAL, "%s: %s (size_ms=%lld slide_ms=%lld step_ms=%lld "
                     "gap_ms=%lld offset_ms=%lld)", what, need[w->kind], (long long)w->size_ms,
                     (long long)w->slide_ms, (long long)w->step_ms, (long long)w->gap_ms,
                     (long long)w->offset_ms);
    return false;
}

/* Whether an aggregate function from C can run in windows of w's kind:
 * HOP and CUMULATE combine their panes' accumulators and SESSION merges
 * sessions, which a function without merge cannot (Flink's planner
 * refuses it likewise); false after recording it. */
static bool functions_fit_window(weir_table_env *env, const weir_table_window *w,
                                 const weir__function *f)
{
    if (w->kind == WEIR_TABLE_TUMBLE || f->agg.merge)
        return true;
    static const char *const why[] = {
        [WEIR_TABLE_HOP] = "HOP windows combine the accumulators of their panes",
        [WEIR_TABLE_CUMULATE] = "CUMULATE windows combine the accumulators of their steps",
        [WEIR_TABLE_SESSION] = "SESSION windows merge as rows join them"};
    weir__table_fail(env, WEIR_EINVAL, "%s: could not find an implementation method 'merge' "
                     "for function '%s': %s", what, f->name, why[w->kind]);
    return false;
}

/* The group keys without the window's own columns (SQL writes GROUP BY
 * window_start, window_end, user: grouping by the window is implied). */
static bool strip_window_keys(weir_table_env *env, const char *keys, char *buf, size_t size)
{
    buf[0] = 0;
    if (!keys)
        return true;
    weir__list l;
    int lr = weir__list_split(keys, &l);
    if (lr) {
        weir__list_fail(env, what, lr, keys);
        return false;
    }
    size_t n = 0;
    bool first = true;
    for (int i = 0; i < l.n; i++) {
        if (is_win_name(l.items[i], l.lens[i]))
            continue;
        weir__append(buf, size, &n, "%s%.*s", first ? "" : ", ", (int)l.lens[i], l.items[i]);
        first = false;
    }
    if (n >= size) {
        weir__table_fail(env, WEIR_EINVAL, "%s: key list too long", what);
        return false;
    }
    return true;
}

/* The schema the select items compile against: t's columns, then the
 * window's (TIMESTAMP(3) NOT NULL; window_time has the rowtime's type). */
static weir_schema *items_schema(weir_table_env *env, const weir_table *t, bool proctime)
{
    const weir_schema *in = t->schema;
    int n = in->ncols + WIN_NCOLS;
    if (n > WEIR__LIST_MAX) {
        weir__table_fail(env, WEIR_EINVAL, "%s: too many columns", what);
        return NULL;
    }
    const char *names[WEIR__LIST_MAX];
    weir_type types[WEIR__LIST_MAX];
    for (int c = 0; c < in->ncols; c++) {
        for (int k = 0; k < WIN_NCOLS; k++)
            if (strcasecmp(in->cols[c].name, win_names[k]) == 0) {
                weir__table_fail(env, WEIR_EINVAL, "%s: the table %s has a column named %s, "
                                 "which the window adds", what, t->name, in->cols[c].name);
                return NULL;
            }
        names[c] = in->cols[c].name;
        types[c] = in->cols[c].type;
    }
    weir_type ts = {.id = WEIR_TYPE_TIMESTAMP, .not_null = true};
    /* a processing-time window's window_time is a processing-time
     * attribute, TIMESTAMP_LTZ(3) */
    weir_type rt = {.id = WEIR_TYPE_TIMESTAMP_LTZ};
    if (!proctime)
        rt = in->cols[t->rowtime].type;
    rt.not_null = true;
    for (int k = 0; k < WIN_NCOLS; k++) {
        names[in->ncols + k] = win_names[k];
        types[in->ncols + k] = k == WIN_TIME ? rt : ts;
    }
    const char *why;
    weir_schema *s = weir__schema_derive(in, n, names, types, &why);
    if (!s)
        weir__table_fail(env, WEIR_EINVAL, "%s: %s", what, why);
    return s;
}

/* A Calc in front of the window that appends the aggregate arguments that
 * are expressions as columns `$arg<i>` (a function's: `$arg<i>_<k>`; the
 * others stay where they are). */
static weir_table *args_calc(weir_table *in, weir_expr **exprs, int n, int *arg_col,
                             int *filter_col, const int *fn_at, int *fn_cols)
{
    size_t cap = 256, len = 0;
    for (int i = 0; i < n; i++) {
        cap += exprs[i]->agg_arg ? strlen(exprs[i]->agg_arg->text) + 32 : 0;
        cap += exprs[i]->agg_filter ? strlen(exprs[i]->agg_filter->text) + 48 : 0;
        for (int k = 0; k < exprs[i]->nagg_args; k++)
            cap += strlen(exprs[i]->agg_args[k]->text) + 96;
    }
    for (int c = 0; c < in->schema->ncols; c++)
        cap += 2 * strlen(in->schema->cols[c].name) + 4;
    char *list = malloc(cap);
    if (!list)
        return weir__table_fail(in->env, WEIR_ENOMEM, "%s: out of memory", what);
    for (int c = 0; c < in->schema->ncols; c++)
        weir__append_name(list, cap, &len, c ? ", " : "", in->schema->cols[c].name);
    int next = in->schema->ncols;
    for (int i = 0; i < n; i++) {
        for (int k = 0; fn_at[i] >= 0 && k < exprs[i]->nagg_args; k++) {
            if (fn_cols[fn_at[i] + k] >= 0)
                continue;
            /* its text, converted as the binder converted it */
            const weir_expr *x = exprs[i]->agg_args[k];
            if (x->typed_apart && !weir__type_is_string(x->type.id)) {
                char t[48];
                weir_type tt = x->type;
                tt.not_null = false;
                weir_type_format(tt, t, sizeof t);
                weir__append(list, cap, &len, ", CAST(%s AS %s) AS `$arg%d_%d`", x->text, t, i,
                             k);
            } else {
                weir__append(list, cap, &len, ", %s AS `$arg%d_%d`", x->text, i, k);
            }
            fn_cols[fn_at[i] + k] = next++;
        }
        const weir_expr *f = exprs[i]->agg_filter;
        if (f && f->column < 0) {
            weir__append(list, cap, &len, ", %s AS `$filter%d`", f->text, i);
            filter_col[i] = next++;
        }
        const weir_expr *a = exprs[i]->agg_arg;
        if (exprs[i]->agg == WEIR_AGG_NONE || !a || a->column >= 0)
            continue;
        weir__append(list, cap, &len, ", %s AS `$arg%d`", a->text, i);
        arg_col[i] = next++;
    }
    weir_table *t = weir_table_select(in, list);
    free(list);
    return t;
}

/* A function's argument k (of item i's call, whose text is `text`): its
 * input column in fn_cols, or -1 for an expression (then *need_calc).
 * 0, or -1 with env failed. */
static int check_function_args(weir_table_env *env, const weir_table *in, const weir_expr *e,
                               const char *text, int *fn_cols, bool *need_calc)
{
    for (int k = 0; k < e->nagg_args; k++) {
        int c = e->agg_args[k]->column;
        if (c >= in->schema->ncols) {
            weir__table_fail(env, WEIR_EINVAL, "%s: '%s': an aggregate of a window column",
                             what, text);
            return -1;
        }
        fn_cols[k] = c;
        *need_calc = *need_calc || c < 0;
    }
    return 0;
}

/* The items (compiled against the input's and the window's columns)
 * checked, with arg_col[i] the input column of an aggregate's plain-column
 * argument (-1: none, or an expression: then *need_calc), and a function's
 * arguments' columns likewise in fn_cols from fn_at[i]. 0, or -1 with env
 * failed. */
static int check_items(weir_table_env *env, const weir_table *in, weir_expr **exprs, int n,
                       int *arg_col, int *filter_col, const int *fn_at, int *fn_cols,
                       bool *need_calc)
{
    *need_calc = false;
    for (int i = 0; i < n; i++) {
        const weir_expr *e = exprs[i];
        char text[WEIR__EXPR_ECHO + 4];
        weir__expr_echo(e->text, text);
        arg_col[i] = filter_col[i] = -1;
        if (e->agg == WEIR_AGG_NONE)
            continue;
        if (e->agg_filter) {
            if (e->agg_filter->column >= in->schema->ncols) {
                weir__table_fail(env, WEIR_EINVAL, "%s: '%s': a FILTER of a window column",
                                 what, text);
                return -1;
            }
            if (e->agg_filter->column >= 0)
                filter_col[i] = e->agg_filter->column;
            else
                *need_calc = true;
        }
        if (e->agg == WEIR_AGG_FUNCTION) {
            if (check_function_args(env, in, e, text, fn_cols + fn_at[i], need_calc))
                return -1;
            continue;
        }
        if (!e->agg_arg)
            continue;
        if (e->agg_arg->column >= in->schema->ncols) {
            weir__table_fail(env, WEIR_EINVAL, "%s: '%s': an aggregate of a window column",
                             what, text);
            return -1;
        }
        if (e->agg_arg->column >= 0)
            arg_col[i] = e->agg_arg->column;
        else
            *need_calc = true;
    }
    return 0;
}

/* What each item is (a group key, a window column or an aggregate), the
 * accumulator's layout, and t's schema, rowtime and unique key. 0, or -1
 * with env failed. */
static int describe_output(weir_table_env *env, const weir_table *in, win_impl *impl,
                           weir_table *t)
{
    weir__item_names nm = {.n = 0};
    weir_type types[WEIR__LIST_MAX];
    const weir_expr *agg_items[WEIR__LIST_MAX];
    int nwin[WIN_NCOLS] = {0}, out_time = -1, nkeys_out = 0;
    int out_keys[WEIR__LIST_MAX];
    for (int i = 0; i < impl->nitems; i++) {
        const weir_expr *e = impl->exprs[i];
        win_item *it = &impl->items[i];
        it->key = it->win = it->agg = -1;
        if (e->agg != WEIR_AGG_NONE) {
            impl->arg_col[impl->naggs] = impl->arg_col[i];
            impl->filter_col[impl->naggs] = impl->filter_col[i];
            impl->agg_item[impl->naggs] = i;
            agg_items[impl->naggs] = e;
            it->agg = impl->naggs++;
        } else if (e->column >= in->schema->ncols) {
            it->win = e->column - in->schema->ncols;
            nwin[it->win]++;
            if (it->win == WIN_TIME)
                out_time = i;
        } else {
            for (int k = 0; k < impl->key->nkeys; k++)
                if (e->column >= 0 && e->column == impl->key->keys[k])
                    it->key = k;
            if (it->key < 0) {
                weir__table_fail(env, WEIR_EINVAL, "%s: '%s' is neither a group key, a window "
                                 "column nor an aggregate", what, e->text);
                return -1;
            }
            out_keys[nkeys_out++] = i;
        }
        if (!weir__item_name(env, what, &nm, e))
            return -1;
        types[i] = e->type;
    }
    impl->acc_size = weir__agg_layout(impl->aggs, impl->naggs, agg_items, false, true);
    for (int j = 0; j < impl->naggs; j++)
        impl->may_fail = impl->may_fail || impl->aggs[j].kind == WEIR_AGG_FUNCTION ||
                         impl->aggs[j].kind == WEIR_AGG_LISTAGG || impl->aggs[j].set_max;
    for (int j = 0; j < impl->naggs; j++)
        if (impl->aggs[j].fn) {
            impl->aggs[j].cols = impl->fn_cols + impl->fn_at[impl->agg_item[j]];
            impl->fn_init = impl->fn_init || impl->aggs[j].fn->agg.init;
        }
    const char *why;
    if (!(t->schema = weir__schema_derive(in->schema, impl->nitems, nm.names, types, &why))) {
        weir__table_fail(env, WEIR_EINVAL, "%s: %s", what, why);
        return -1;
    }
    impl->out = t->schema;
    t->mode = WEIR_CHANGELOG_INSERT_ONLY;
    if (impl->proctime)
        t->proctime = out_time;
    else
        t->rowtime = out_time;
    /* Every key and both bounds selected: one row per (key, window). */
    if (nwin[WIN_START] && nwin[WIN_END] && nkeys_out == impl->key->nkeys &&
        nkeys_out + 2 <= WEIR__LIST_MAX) {
        for (int i = 0; i < impl->nitems; i++)
            if (impl->items[i].win == WIN_START || impl->items[i].win == WIN_END)
                out_keys[nkeys_out++] = i;
        if (weir__table_set_unique_key(t, out_keys, nkeys_out)) {
            weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
            return -1;
        }
    }
    return 0;
}

/* t's stream: the window operator with t's name and settings, on src
 * keyed by the group keys. 0, or -1 with env failed. */
static int add_window_operator(weir_table_env *env, weir_table *t, win_impl *impl,
                               const weir_table *src, weir_window_assigner assigner)
{
    weir_window_spec ws = {
        .name = t->name,
        .assigner = assigner,
        .aggregate = {.acc_size = impl->acc_size ? impl->acc_size : 8,
                      .create = impl->fn_init ? win_create : NULL, .add = win_add,
                      .merge = win_merge, .result = win_result},
        .out_size = t->schema->row_size,
        .arg = impl,
        .parallelism = impl->key->nkeys == 0 ? 1 : env->config.parallelism,
    };
    weir_process_spec ps;
    char err[256];
    int r = weir_window_operator(&ws, src->schema->row_size, impl->key->size, &ps, err,
                                 sizeof err);
    if (r) {
        weir__table_fail(env, r, "%s: %s", what, err);
        return -1;
    }
    ps.settings_json = weir__table_settings(t, ps.settings_json);
    if (impl->may_fail) {
        /* functions from C and LISTAGG may fail: the window operator's
         * callbacks that call them, wrapped (above) */
        impl->inner = ps.vtable;
        impl->wrapped = *ps.vtable;
        impl->wrapped.on_record = win_wrap_record;
        if (impl->inner->on_timer)
            impl->wrapped.on_timer = win_wrap_timer;
        if (impl->inner->on_watermark)
            impl->wrapped.on_watermark = win_wrap_watermark;
        if (impl->inner->on_end)
            impl->wrapped.on_end = win_wrap_end;
        ps.vtable = &impl->wrapped;
    }
    weir_key_spec ks = {.key_size = impl->key->size, .extract = weir__key_extract,
                        .arg = impl->key, .format = weir__key_format};
    weir_stream *keyed = weir_stream_key_by(src->stream, &ks);
    if (!ps.settings_json || !keyed) {
        if (ps.impl_free)
            ps.impl_free(ps.impl);
        if (!ps.settings_json)
            weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
        return -1;
    }
    t->stream = weir_stream_process(keyed, &ps);
    return t->stream ? 0 : -1;
}

/* Whether `in` cannot feed a window aggregate (the failure is set on env):
 * it must be insert-only and have a rowtime. */
static bool window_input_refused(weir_table_env *env, const weir_table *in, bool proctime)
{
    if (in->mode != WEIR_CHANGELOG_INSERT_ONLY) {
        char mode[32];
        weir_changelog_mode_format(in->mode, mode, sizeof mode);
        weir__table_fail(env, WEIR_EINVAL, "%s: the table %s emits %s: a window "
                         "aggregate doesn't support consuming update changes which is "
                         "produced by node %s", what, in->name, mode,
                         weir__table_update_producer(in)->name);
        return true;
    }
    if (proctime && in->proctime < 0) {
        weir__table_fail(env, WEIR_EINVAL, "%s: the table %s has no processing-time attribute "
                         "(a PROCTIME() column, kept as a bare column)", what, in->name);
        return true;
    }
    if (!proctime && in->rowtime < 0) {
        weir__table_fail(env, WEIR_EINVAL, "%s: the table %s has no rowtime attribute "
                         "(a column with a watermark, kept as a bare column)", what, in->name);
        return true;
    }
    return false;
}

/* The window aggregate of the n items (taken over), compiled against
 * items_schema(in). */
static weir_table *window_core(weir_table *in, const weir_table_window *w, const char *keys,
                               weir_expr **exprs, int nexprs)
{
    weir_table_env *env = in->env;
    weir_window_assigner assigner;
    char wname[128];
    int *arg_col = NULL, *filter_col = NULL, *fn_at = NULL, *fn_cols = NULL;
    weir_table *t = NULL;
    bool need_calc;
    int nfn = 0, nfn_args = 0;
    /* the keys without the window's columns: never longer than the keys */
    size_t ksize = (keys ? strlen(keys) : 0) + 1;
    char *kbuf = malloc(ksize);
    if (!kbuf) {
        weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
        goto fail;
    }
    if (!plan_window(env, w, &assigner, wname, sizeof wname) ||
        !strip_window_keys(env, keys, kbuf, ksize))
        goto fail;
    if (!(arg_col = calloc((size_t)nexprs, sizeof *arg_col)) ||
        !(filter_col = calloc((size_t)nexprs, sizeof *filter_col)) ||
        !(fn_at = malloc((size_t)nexprs * sizeof *fn_at))) {
        weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
        goto fail;
    }
    for (int i = 0; i < nexprs; i++) {
        fn_at[i] = -1;
        if (exprs[i]->agg != WEIR_AGG_FUNCTION)
            continue;
        if (!functions_fit_window(env, w, exprs[i]->fn))
            goto fail;
        fn_at[i] = nfn_args;
        nfn_args += exprs[i]->nagg_args;
        nfn++;
    }
    if (!(fn_cols = calloc((size_t)nfn_args + 1, sizeof *fn_cols))) {
        weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
        goto fail;
    }
    if (check_items(env, in, exprs, nexprs, arg_col, filter_col, fn_at, fn_cols, &need_calc))
        goto fail;
    /* Expressions as arguments and filters: a Calc computes them (its
     * compile errors name a window column used in one). */
    weir_table *src =
        need_calc ? args_calc(in, exprs, nexprs, arg_col, filter_col, fn_at, fn_cols) : in;
    if (!src)
        goto fail;

    t = weir__table_node(env, src, "WindowAggregate(%s%s%s)", wname, kbuf[0] ? ", " : "", kbuf);
    if (!t)
        goto fail;
    win_impl *impl = calloc(1, sizeof *impl);
    t->impl = impl;
    t->impl_free = win_impl_free;
    if (!impl || !(impl->items = calloc((size_t)nexprs, sizeof *impl->items)) ||
        !(impl->aggs = calloc((size_t)nexprs, sizeof *impl->aggs)) ||
        !(impl->agg_item = calloc((size_t)nexprs, sizeof *impl->agg_item))) {
        weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
        goto fail;
    }
    /* From here the node owns the items (win_impl_free). */
    impl->exprs = exprs;
    impl->nitems = nexprs;
    exprs = NULL;
    impl->arg_col = arg_col;
    arg_col = NULL;
    impl->filter_col = filter_col;
    filter_col = NULL;
    impl->fn_at = fn_at;
    impl->fn_cols = fn_cols;
    fn_at = fn_cols = NULL;
    impl->nfn = nfn;
    impl->name = t->name;
    impl->in = src->schema;
    impl->proctime = w->proctime;
    if (!(impl->key = weir__key_plan(env, src->schema, kbuf, what)) ||
        describe_output(env, in, impl, t) || add_window_operator(env, t, impl, src, assigner))
        goto fail;
    /* window properties, for a window join after it: both bounds selected */
    t->wstart = t->wend = -1;
    for (int i = 0; i < impl->nitems; i++) {
        if (impl->items[i].win == WIN_START && t->wstart < 0)
            t->wstart = i;
        else if (impl->items[i].win == WIN_END && t->wend < 0)
            t->wend = i;
    }
    t->windowed = !w->proctime && w->kind != WEIR_TABLE_SESSION && t->wstart >= 0 && t->wend >= 0;
    t->window = *w;
    free(kbuf);
    return t;

fail:
    for (int i = 0; exprs && i < nexprs; i++)
        weir_expr_destroy(exprs[i]);
    free(exprs);
    free(arg_col);
    free(filter_col);
    free(fn_at);
    free(fn_cols);
    free(kbuf);
    return NULL;
}

weir_schema *weir_table_window_columns(const weir_table *t)
{
    if (!t)
        return NULL;
    bool proctime = t->rowtime < 0 && t->proctime >= 0;
    if (window_input_refused(t->env, t, proctime))
        return NULL;
    return items_schema(t->env, t, proctime);
}

weir_schema *weir_table_window_columns_for(const weir_table *t, const weir_table_window *w)
{
    if (!t || !w)
        return NULL;
    if (window_input_refused(t->env, t, w->proctime))
        return NULL;
    return items_schema(t->env, t, w->proctime);
}

weir_table *weir_table_window_aggregate_exprs(weir_table *in, const weir_table_window *w,
                                              const char *keys, weir_expr **items, int n)
{
    bool ok = in && w && items && n > 0 && n <= WEIR__LIST_MAX;
    for (int i = 0; ok && i < n; i++)
        ok = items[i] != NULL;
    weir_expr **exprs = ok ? malloc((size_t)n * sizeof *exprs) : NULL;
    if (!exprs || window_input_refused(in->env, in, w && w->proctime)) {
        for (int i = 0; items && i < n; i++)
            weir_expr_destroy(items[i]);
        if (in && !ok)
            weir__table_fail(in->env, WEIR_EINVAL, "%s: a window and 1 to %d items are required",
                             what, WEIR__LIST_MAX);
        else if (in && !exprs)
            weir__table_fail(in->env, WEIR_ENOMEM, "%s: out of memory", what);
        free(exprs);
        return NULL;
    }
    memcpy(exprs, items, (size_t)n * sizeof *exprs);
    return window_core(in, w, keys, exprs, n);
}

weir_table *weir_table_window_aggregate(weir_table *in, const weir_table_window *w,
                                        const char *keys, const char *items)
{
    if (!in)
        return NULL;
    weir_table_env *env = in->env;
    if (!w || !items)
        return weir__table_fail(env, WEIR_EINVAL, "%s: a window and items are required", what);
    if (window_input_refused(env, in, w->proctime))
        return NULL;
    /* The items, against t's columns and the window's. */
    weir_schema *ischema = items_schema(env, in, w->proctime);
    weir_expr *compiled[WEIR__LIST_MAX];
    int n = ischema ? weir__compile_list(env, what, items, ischema, 1, compiled) : -1;
    weir_schema_destroy(ischema);
    if (n < 0)
        return NULL;
    return weir_table_window_aggregate_exprs(in, w, keys, compiled, n);
}
