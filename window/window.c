/* window.c — the window operator (weir/window.h): its configuration, checked
 * and resolved once; the operator vtable that hands every record and timer to
 * the engine the configuration chose (window_engines.h). What all engines
 * share, the window function applied when a window fires and the fate of an
 * element that no window took, is window_function.c's.
 *
 * Three engines keep the state (window_internal.h lists the files): a key's
 * panes for tumbling and sliding windows with time triggers, so that a
 * window sliding by a small step costs about what a tumbling one does;
 * per-window state for the global window and count triggers; and a list of
 * sessions per key for merging windows. All three are written against the
 * public operator and state API, like any user's operator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/operator_builtin.h"
#include "weir/state.h"
#include "weir/stream.h"
#include "weir/window.h"
#include "window_engines.h"
#include "window_internal.h"

#define MAX_ACC_SIZE 65536

/* ---- the vtable ----------------------------------------------------------- */

static const weir__window_config *conf(weir_ctx *ctx)
{
    return weir_ctx_impl(ctx);
}

static void free_op(weir__window_op *op)
{
    if (!op)
        return;
    free(op->acc);
    free(op->late_acc);
    free(op->entry);
    free(op->buf.p);
    free(op->cat.p);
    free(op->tmp.p);
    free(op);
}

static int open_op(weir_ctx *ctx);

/* close() is called only after an open() that succeeded: a failed one
 * frees what it made itself. */
static int win_open(weir_ctx *ctx)
{
    int r = open_op(ctx);
    if (r) {
        free_op(weir_ctx_state(ctx));
        weir_ctx_set_state(ctx, NULL);
    }
    return r;
}

static int open_op(weir_ctx *ctx)
{
    const weir__window_config *c = conf(ctx);
    if (weir_ctx_key_size(ctx) == 0)
        return weir_ctx_fail(ctx, WEIR_ENOKEY, "the window operator needs a keyed input "
                             "(weir_stream_key_by first)");
    if (weir_ctx_key_size(ctx) != c->key_size)
        return weir_ctx_fail(ctx, WEIR_ETYPE, "window: the input's key has %zu bytes, the "
                             "operator was made for %zu", weir_ctx_key_size(ctx), c->key_size);
    weir__window_op *op = calloc(1, sizeof *op);
    if (!op)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, op);
    op->c = c;
    op->st_win = op->st_elems = op->st_meta = op->st_sess = op->st_panes = op->st_before_min = -1;
    op->memo.lo = INT64_MAX; /* an empty range: nothing assigned yet */
    op->memo.hi = INT64_MIN;
    if (c->acc_size) {
        op->acc = malloc(c->acc_size);
        op->late_acc = malloc(c->acc_size);
        if (!op->acc || !op->late_acc)
            return WEIR_ENOMEM;
    }
    op->entry = calloc(1, c->entry_size);
    if (!op->entry)
        return WEIR_ENOMEM;
    /* State 0 is the engine's own: a window value (header and accumulator),
     * a key's pane list or a key's session list; then the elements of a
     * process function; then the panes' per-window firing counts, or the
     * windows engine's windows that begin before MIN and its pane list. */
    int r;
    if (c->engine == WEIR__ENGINE_CUSTOM) {
        /* a window's header and trigger state; its elements with their
         * timestamps; a key's sessions */
        r = weir_state_declare(ctx, WEIR_STATE_VALUE, c->entry_size, &op->st_win);
        if (r == 0)
            r = weir_state_declare(ctx, WEIR_STATE_LIST, c->elem_size, &op->st_elems);
        if (r == 0 && c->gap > 0) /* sessions, in either time */
            r = weir_state_declare(ctx, WEIR_STATE_LIST, WEIR__CUSTOM_SESSION_SIZE, &op->st_sess);
        return r;
    }
    if (c->engine == WEIR__ENGINE_WINDOWS)
        r = weir_state_declare(ctx, WEIR_STATE_VALUE, c->entry_size, &op->st_win);
    else if (c->engine == WEIR__ENGINE_PANES)
        r = weir_state_declare(ctx, WEIR_STATE_LIST, c->pane_size, &op->st_panes);
    else
        r = weir_state_declare(ctx, WEIR_STATE_LIST, c->entry_size, &op->st_sess);
    if (r == 0 && c->fn == WEIR__FN_PROCESS)
        r = weir_state_declare(ctx, WEIR_STATE_LIST, c->elem_size, &op->st_elems);
    if (r == 0 && c->engine == WEIR__ENGINE_PANES && c->lateness > 0)
        r = weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(int64_t), &op->st_meta);
    if (r == 0 && c->engine == WEIR__ENGINE_WINDOWS && !c->global)
        r = weir_state_declare(ctx, WEIR_STATE_VALUE, c->entry_size, &op->st_before_min);
    if (r == 0 && c->pane_elems)
        r = weir_state_declare(ctx, WEIR_STATE_LIST, c->pane_size, &op->st_panes);
    /* Every record reads its key's pane list or sessions (namespace 0):
     * fetched a few records ahead, a batch's misses overlap. */
    if (r == 0 && c->engine == WEIR__ENGINE_PANES)
        r = weir_state_prefetch(ctx, op->st_panes);
    else if (r == 0 && c->engine != WEIR__ENGINE_WINDOWS)
        r = weir_state_prefetch(ctx, op->st_sess);
    return r;
}

static void win_close(weir_ctx *ctx)
{
    free_op(weir_ctx_state(ctx));
}

static int win_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    weir__window_op *op = weir_ctx_state(ctx);
    const weir__window_config *c = op->c;
    if (c->event_time && ts == WEIR_NO_TIMESTAMP && !c->global)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "a record without a timestamp reached event-time "
                             "windows: assign timestamps first (weir_stream_assign_timestamps) "
                             "or use processing-time windows");
    switch (c->engine) {
    case WEIR__ENGINE_CUSTOM:
        return weir__custom_record(ctx, op, elem, ts);
    case WEIR__ENGINE_PANES:
        if (c->cumulative)
            return weir__cumulate_record(ctx, op, elem, ts);
        return weir__panes_record(ctx, op, elem, ts);
    case WEIR__ENGINE_SESSIONS:
        return weir__sessions_record(ctx, op, elem, ts);
    default:
        return weir__windows_record(ctx, op, elem, ts);
    }
}

static int win_timer(weir_ctx *ctx, const weir_timer *t)
{
    weir__window_op *op = weir_ctx_state(ctx);
    if (op->c->engine == WEIR__ENGINE_CUSTOM) /* a trigger's timers of either domain */
        return weir__custom_timer(ctx, op, t);
    /* Timers of the other domain are not the windows' (there are none). */
    if (t->domain != op->c->domain)
        return 0;
    switch (op->c->engine) {
    case WEIR__ENGINE_PANES:
        if (op->c->cumulative)
            return weir__cumulate_timer(ctx, op, t);
        return weir__panes_timer(ctx, op, t);
    case WEIR__ENGINE_SESSIONS:
        return weir__sessions_timer(ctx, op, t);
    default:
        return weir__windows_timer(ctx, op, t);
    }
}

/* The window's own state beyond its keyed state and timers: the count of
 * elements seen, which numbers their arrival (elem_seq). */
#define WIN_SAVED_TAG 0x77696e31u /* "win1" */

static int win_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    const weir__window_op *op = weir_ctx_state(ctx);
    return weir_snapshot_write_record(w, WIN_SAVED_TAG, &op->seq, sizeof op->seq);
}

/* After a change of parallelism: the largest count, so that arrival numbers
 * keep growing for every key the subtask took over. */
static int win_restore_one(weir_ctx *ctx, const void *rec, void *arg)
{
    (void)arg;
    weir__window_op *op = weir_ctx_state(ctx);
    uint64_t seq;
    memcpy(&seq, rec, sizeof seq);
    if (seq > op->seq)
        op->seq = seq;
    return 0;
}

static int win_restore(weir_ctx *ctx, weir_snapshot_reader *r)
{
    return weir_restore_records(ctx, r, WIN_SAVED_TAG, sizeof(uint64_t), win_restore_one, NULL);
}

static const weir_operator_vtable window_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V2,
    .snapshot = win_snapshot,
    .restore = win_restore,
    .open = win_open,
    .on_record = win_record,
    .on_timer = win_timer,
    .close = win_close,
};

/* ---- configuration -------------------------------------------------------- */

static const char *assigner_name(weir_window_kind k)
{
    switch (k) {
    case WEIR_WINDOW_TUMBLING:
        return "tumbling";
    case WEIR_WINDOW_SLIDING:
        return "sliding";
    case WEIR_WINDOW_SESSION:
        return "session";
    case WEIR_WINDOW_GLOBAL:
        return "global";
    case WEIR_WINDOW_PROCESSING_TUMBLING:
        return "processing_tumbling";
    case WEIR_WINDOW_PROCESSING_SLIDING:
        return "processing_sliding";
    case WEIR_WINDOW_CUMULATIVE:
        return "cumulative";
    case WEIR_WINDOW_PROCESSING_SESSION:
        return "processing_session";
    case WEIR_WINDOW_PROCESSING_CUMULATIVE:
        return "processing_cumulative";
    }
    return "?";
}

static const char *trigger_name(weir_trigger_kind k)
{
    switch (k) {
    case WEIR_TRIGGER_EVENT_TIME:
        return "event";
    case WEIR_TRIGGER_PROCESSING_TIME:
        return "processing";
    case WEIR_TRIGGER_COUNT:
        return "count";
    case WEIR_TRIGGER_END_OF_INPUT:
        return "end_of_input";
    default:
        return "default";
    }
}

static const char *function_name(weir__window_fn f)
{
    return f == WEIR__FN_REDUCE ? "reduce" : f == WEIR__FN_AGGREGATE ? "aggregate" : "process";
}

#define BAD(...)                                                                                  \
    do {                                                                                          \
        snprintf(why, whysize, __VA_ARGS__);                                                      \
        return WEIR_EINVAL;                                                                       \
    } while (0)

/* The assigner: size, slide, offset or gap, and the time domain. */
static int resolve_assigner(weir__window_config *c, const weir_window_assigner *a, char *why,
                            size_t whysize)
{
    long long size = a->size_ms, slide = a->slide_ms, offset = a->offset_ms, gap = a->gap_ms;
    switch (a->kind) {
    case WEIR_WINDOW_TUMBLING:
    case WEIR_WINDOW_PROCESSING_TUMBLING:
        if (size <= 0)
            BAD("%s windows: size %lld must be > 0", assigner_name(a->kind), size);
        if (offset <= -size || offset >= size)
            BAD("%s windows: offset %lld must satisfy |offset| < size (%lld)",
                assigner_name(a->kind), offset, size);
        if (slide || gap)
            BAD("%s windows take a size and an offset only (slide and gap must be 0)",
                assigner_name(a->kind));
        c->size = c->slide = size;
        c->offset = offset;
        break;
    case WEIR_WINDOW_SLIDING:
    case WEIR_WINDOW_PROCESSING_SLIDING:
        if (size <= 0)
            BAD("%s windows: size %lld must be > 0", assigner_name(a->kind), size);
        if (slide <= 0)
            BAD("%s windows: slide %lld must be > 0", assigner_name(a->kind), slide);
        if (offset <= -slide || offset >= slide)
            BAD("%s windows: offset %lld must satisfy |offset| < slide (%lld)",
                assigner_name(a->kind), offset, slide);
        if (gap)
            BAD("%s windows take no gap (it must be 0)", assigner_name(a->kind));
        if (size / slide + (size % slide != 0) > WEIR_WINDOW_MAX_PER_ELEMENT)
            BAD("%s windows: size %lld and slide %lld put each element in %lld windows, more "
                "than the %d allowed (WEIR_WINDOW_MAX_PER_ELEMENT)", assigner_name(a->kind),
                size, slide, size / slide + (size % slide != 0), WEIR_WINDOW_MAX_PER_ELEMENT);
        c->size = size;
        c->slide = slide;
        c->offset = offset;
        break;
    case WEIR_WINDOW_CUMULATIVE:
    case WEIR_WINDOW_PROCESSING_CUMULATIVE:
        /* The step is the slide: the windows' ends come every step. */
        if (size <= 0)
            BAD("cumulative windows: size %lld must be > 0", size);
        if (slide <= 0)
            BAD("cumulative windows: step %lld (slide_ms) must be > 0", slide);
        if (size % slide != 0)
            BAD("cumulative windows: size %lld must be a multiple of the step %lld", size, slide);
        if (offset <= -size || offset >= size)
            BAD("cumulative windows: offset %lld must satisfy |offset| < size (%lld)", offset,
                size);
        if (gap)
            BAD("cumulative windows take no gap (it must be 0)");
        if (size / slide > WEIR_WINDOW_MAX_PER_ELEMENT)
            BAD("cumulative windows: size %lld and step %lld make %lld windows a period, more "
                "than the %d allowed (WEIR_WINDOW_MAX_PER_ELEMENT)", size, slide, size / slide,
                WEIR_WINDOW_MAX_PER_ELEMENT);
        c->size = size;
        c->slide = slide;
        c->offset = offset;
        c->cumulative = true;
        break;
    case WEIR_WINDOW_SESSION:
    case WEIR_WINDOW_PROCESSING_SESSION:
        if (gap <= 0)
            BAD("session windows: gap %lld must be > 0", gap);
        if (size || slide || offset)
            BAD("session windows take a gap only (size, slide and offset must be 0)");
        c->gap = gap;
        break;
    case WEIR_WINDOW_GLOBAL:
        if (size || slide || offset || gap)
            BAD("the global window takes no size, slide, offset or gap (they must be 0)");
        c->global = true;
        break;
    default:
        BAD("unknown window assigner %d", (int)a->kind);
    }
    c->event_time = a->kind != WEIR_WINDOW_PROCESSING_TUMBLING &&
                    a->kind != WEIR_WINDOW_PROCESSING_SLIDING &&
                    a->kind != WEIR_WINDOW_PROCESSING_SESSION &&
                    a->kind != WEIR_WINDOW_PROCESSING_CUMULATIVE;
    c->domain = c->event_time ? WEIR_EVENT_TIME : WEIR_PROCESSING_TIME;
    return 0;
}

/* Allowed lateness and the late side output. */
static int resolve_lateness(weir__window_config *c, const weir_window_spec *spec, char *why,
                            size_t whysize)
{
    if (spec->allowed_lateness_ms < 0)
        BAD("allowed lateness %lld must be >= 0", (long long)spec->allowed_lateness_ms);
    if (!c->event_time && spec->allowed_lateness_ms != 0)
        BAD("allowed lateness applies to event-time windows only (processing-time windows "
            "are never late)");
    c->lateness = spec->allowed_lateness_ms;
    if (spec->late_tag < 0)
        BAD("late_tag %d must be 0 (drop late elements) or a side output tag >= 1",
            spec->late_tag);
    return 0;
}

/* The trigger (DEFAULT and END_OF_INPUT resolved to what runs them). */
static int resolve_trigger(weir__window_config *c, const weir_window_trigger *t, char *why,
                           size_t whysize)
{
    c->purging = t->purging;
    if (t->custom) {
        const weir_trigger_vtable *v = t->custom;
        if (t->kind != WEIR_TRIGGER_DEFAULT || t->count != 0)
            BAD("a custom trigger takes kind DEFAULT and count 0 (it decides itself)");
        if (v->version != WEIR_TRIGGER_VTABLE_V1)
            BAD("custom trigger: version %u is not %u", v->version, WEIR_TRIGGER_VTABLE_V1);
        if (!v->on_element)
            BAD("custom trigger: on_element is required");
        if (v->state_size > 4096)
            BAD("custom trigger: state_size %zu is not in 0..4096", v->state_size);
        if (c->gap > 0 && !v->on_merge)
            BAD("custom trigger: session windows merge, so the trigger needs on_merge");
        if (c->cumulative)
            BAD("cumulative windows take their time's trigger only (no custom trigger)");
        c->trigger = c->event_time ? WEIR_TRIGGER_EVENT_TIME : WEIR_TRIGGER_PROCESSING_TIME;
        c->tv = v;
        return 0;
    }
    switch (t->kind) {
    case WEIR_TRIGGER_DEFAULT:
        c->trigger = c->event_time ? WEIR_TRIGGER_EVENT_TIME : WEIR_TRIGGER_PROCESSING_TIME;
        break;
    case WEIR_TRIGGER_EVENT_TIME:
        if (!c->event_time)
            BAD("the event-time trigger needs event-time windows (processing-time windows take "
                "the processing-time or count trigger)");
        c->trigger = WEIR_TRIGGER_EVENT_TIME;
        break;
    case WEIR_TRIGGER_PROCESSING_TIME:
        if (c->event_time)
            BAD("the processing-time trigger needs processing-time windows");
        c->trigger = WEIR_TRIGGER_PROCESSING_TIME;
        break;
    case WEIR_TRIGGER_END_OF_INPUT:
        if (!c->global)
            BAD("the end-of-input trigger is for the global window (time windows fire and are "
                "cleaned up long before the end)");
        /* The event-time trigger on the global window: its max is MAX. */
        c->trigger = WEIR_TRIGGER_EVENT_TIME;
        break;
    case WEIR_TRIGGER_COUNT:
        if (t->count <= 0)
            BAD("the count trigger needs a count > 0 (got %lld)", (long long)t->count);
        c->trigger = WEIR_TRIGGER_COUNT;
        c->count = t->count;
        break;
    default:
        BAD("unknown trigger %d", (int)t->kind);
    }
    if (t->kind != WEIR_TRIGGER_COUNT && t->count != 0)
        BAD("a count (%lld) is only for the count trigger", (long long)t->count);
    /* Cumulative windows of a period share their panes and fire in a chain
     * (window_panes.c): a count per window or a purge of one window alone
     * does not fit that, and Flink's CUMULATE has neither. */
    if (c->cumulative && (c->trigger == WEIR_TRIGGER_COUNT || c->purging))
        BAD("cumulative windows take their time's trigger only (not purging, no count)");
    return 0;
}

/* The evictor; with one, the built-in trigger runs as a table in the
 * custom engine (window_custom.c). */
static int resolve_evictor(weir__window_config *c, const weir_window_evictor *e, char *why,
                           size_t whysize)
{
    switch (e->kind) {
    case WEIR_EVICTOR_NONE:
        if (e->count || e->time_ms || e->threshold != 0 || e->delta || e->after)
            BAD("evictor settings without an evictor kind");
        return 0;
    case WEIR_EVICTOR_COUNT:
        if (e->count <= 0)
            BAD("the count evictor needs a count > 0 (got %lld)", (long long)e->count);
        break;
    case WEIR_EVICTOR_TIME:
        if (e->time_ms < 0)
            BAD("the time evictor needs time_ms >= 0 (got %lld)", (long long)e->time_ms);
        break;
    case WEIR_EVICTOR_DELTA:
        if (!e->delta)
            BAD("the delta evictor needs a delta function");
        break;
    default:
        BAD("unknown evictor %d", (int)e->kind);
    }
    if (c->cumulative)
        BAD("cumulative windows take no evictor");
    if (!c->tv)
        c->tv = weir__builtin_trigger(c->trigger);
    return 0;
}

/* The function (exactly one of reduce, aggregate, process), its accumulator
 * and the output's element size. */
static int resolve_function(weir__window_config *c, const weir_window_spec *spec, char *why,
                            size_t whysize)
{
    const weir_window_assigner *a = &spec->assigner;
    size_t in_size = c->in_size;
    bool agg = spec->aggregate.add || spec->aggregate.result || spec->aggregate.merge ||
               spec->aggregate.create || spec->aggregate.acc_size;
    int nfn = (spec->reduce != NULL) + agg + (spec->process != NULL);
    if (nfn != 1)
        BAD("a window needs exactly one function: reduce, aggregate or process (%d given)", nfn);
    if (spec->reduce_finish && !spec->reduce)
        BAD("reduce_finish without reduce");
    /* (the custom engine folds a window's elements when it fires) */
    bool merges = c->tv ? false : a->kind == WEIR_WINDOW_SESSION ||
                  a->kind == WEIR_WINDOW_PROCESSING_SESSION ||
                  ((a->kind == WEIR_WINDOW_CUMULATIVE ||
                    a->kind == WEIR_WINDOW_PROCESSING_CUMULATIVE) && a->slide_ms < a->size_ms) ||
                  ((a->kind == WEIR_WINDOW_SLIDING || a->kind == WEIR_WINDOW_PROCESSING_SLIDING) &&
                   c->trigger != WEIR_TRIGGER_COUNT);
    if (spec->reduce) {
        c->fn = WEIR__FN_REDUCE;
        c->acc_size = in_size;
        if (spec->reduce_finish) {
            if (spec->out_size == 0 || spec->out_size > WEIR_MAX_ELEM_SIZE)
                BAD("reduce with a finish hook: out_size %zu must be in 1..%d", spec->out_size,
                    WEIR_MAX_ELEM_SIZE);
            c->out_size = spec->out_size;
        } else {
            if (spec->out_size != 0 && spec->out_size != in_size)
                BAD("reduce without a finish hook emits the accumulator: out_size must be 0 or "
                    "the input's size %zu (got %zu)", in_size, spec->out_size);
            c->out_size = in_size;
        }
    } else if (agg) {
        const weir_aggregate_fns *g = &spec->aggregate;
        c->fn = WEIR__FN_AGGREGATE;
        if (!g->add || !g->result)
            BAD("aggregate needs add and result");
        if (g->acc_size == 0 || g->acc_size > MAX_ACC_SIZE)
            BAD("aggregate: acc_size %zu must be in 1..%d", g->acc_size, MAX_ACC_SIZE);
        if (merges && !g->merge)
            BAD("aggregate on %s windows needs merge (%s)", assigner_name(a->kind),
                c->gap ? "sessions merge" : "panes are combined");
        c->acc_size = g->acc_size;
        if (spec->out_size == 0 || spec->out_size > WEIR_MAX_ELEM_SIZE)
            BAD("aggregate: out_size %zu must be in 1..%d", spec->out_size, WEIR_MAX_ELEM_SIZE);
        c->out_size = spec->out_size;
    } else {
        c->fn = WEIR__FN_PROCESS;
        if (spec->out_size == 0 || spec->out_size > WEIR_MAX_ELEM_SIZE)
            BAD("process: out_size %zu must be in 1..%d", spec->out_size, WEIR_MAX_ELEM_SIZE);
        c->out_size = spec->out_size;
    }
    return 0;
}

/* The engine that keeps the state, and the layout of its entries. Time
 * triggers on tumbling and sliding windows: a key's panes in one list (a
 * tumbling window is its one pane). Count triggers count per window, so they
 * keep state per window (as Flink does), and so does the global window. */
static void resolve_engine(weir__window_config *c)
{
    size_t in_size = c->in_size;
    if (c->tv) {
        c->engine = WEIR__ENGINE_CUSTOM;
        c->tstate_size = (c->tv->state_size + 7) & ~(size_t)7;
        c->acc_off = weir__custom_header_size;
        c->entry_size = weir__custom_header_size + c->tstate_size;
        c->elem_size = 8 + in_size; /* the timestamp, then the element */
        return;
    }
    if (c->gap > 0) /* event-time or processing-time sessions */
        c->engine = WEIR__ENGINE_SESSIONS;
    else if (!c->global && c->trigger != WEIR_TRIGGER_COUNT)
        c->engine = WEIR__ENGINE_PANES;
    else
        c->engine = WEIR__ENGINE_WINDOWS;
    if (c->size > 0)
        c->pane = weir__gcd(c->size, c->slide);
    c->acc_off = c->engine == WEIR__ENGINE_WINDOWS ? weir__windows_header_size
                 : c->engine == WEIR__ENGINE_PANES ? weir__panes_header_size
                                                    : weir__sessions_header_size;
    c->entry_size = (c->acc_off + c->acc_size + 7) & ~(size_t)7;
    /* A process function keeps each element once per pane: the panes engine
     * always; the windows engine on overlapping sliding windows (each
     * element is in several windows) through a pane list of its own, where
     * a purging trigger finds a window's contents by arrival number: then
     * each element carries it, and a window the number at its last purge
     * (after its header, where an accumulator would be). */
    c->pane_elems = c->engine == WEIR__ENGINE_WINDOWS && c->fn == WEIR__FN_PROCESS &&
                    !c->global && c->slide < c->size;
    c->elem_seq = c->pane_elems && c->purging;
    c->elem_size = in_size + (c->elem_seq ? sizeof(uint64_t) : 0);
    if (c->elem_seq)
        c->entry_size += sizeof(uint64_t);
    c->pane_size = c->engine == WEIR__ENGINE_PANES ? c->entry_size : weir__panes_header_size;
}

/* The settings of the capture's job event (docs/CAPTURE.md). */
static void write_settings(weir__window_config *c)
{
    const weir_window_assigner *a = &c->spec.assigner;
    const weir_window_trigger *t = &c->spec.trigger;
    snprintf(c->settings, sizeof c->settings,
             "\"assigner\":\"%s\",\"size_ms\":%lld,\"slide_ms\":%lld,\"offset_ms\":%lld,"
             "\"gap_ms\":%lld,\"lateness_ms\":%lld,\"trigger\":\"%s\",\"count\":%lld,"
             "\"purging\":%s,\"function\":\"%s\",\"late\":\"%s\",\"engine\":\"%s\"",
             assigner_name(a->kind), c->global ? 0 : (long long)c->size,
             a->kind == WEIR_WINDOW_SLIDING || a->kind == WEIR_WINDOW_PROCESSING_SLIDING ||
                     c->cumulative
                 ? (long long)c->slide
                 : 0,
             (long long)c->offset, (long long)c->gap, (long long)c->lateness,
             t->custom                          ? "custom"
             : t->kind == WEIR_TRIGGER_END_OF_INPUT ? "end_of_input"
                                                    : trigger_name(c->trigger),
             (long long)c->count, c->purging ? "true" : "false", function_name(c->fn),
             c->spec.late_tag > 0 ? "side" : "drop",
             c->engine == WEIR__ENGINE_PANES      ? "panes"
             : c->engine == WEIR__ENGINE_SESSIONS ? "sessions"
             : c->engine == WEIR__ENGINE_CUSTOM   ? "custom"
                                                  : "windows");
}

/* Checks the spec and fills the resolved configuration. */
static int resolve(weir__window_config *c, const weir_window_spec *spec, size_t in_size,
                   size_t key_size, char *why, size_t whysize)
{
    memset(c, 0, sizeof *c);
    c->spec = *spec;
    c->in_size = in_size;
    c->key_size = key_size;
    if (in_size == 0 || in_size > WEIR_MAX_ELEM_SIZE)
        BAD("the input's element size %zu is not in 1..%d", in_size, WEIR_MAX_ELEM_SIZE);
    int r = resolve_assigner(c, &spec->assigner, why, whysize);
    if (r == 0)
        r = resolve_lateness(c, spec, why, whysize);
    if (r == 0)
        r = resolve_trigger(c, &spec->trigger, why, whysize);
    if (r == 0)
        r = resolve_evictor(c, &spec->evictor, why, whysize);
    if (r == 0)
        r = resolve_function(c, spec, why, whysize);
    if (r)
        return r;
    if (spec->parallelism < 0 || spec->parallelism > WEIR_MAX_PARALLELISM)
        BAD("parallelism %d is not in 0..%d", spec->parallelism, WEIR_MAX_PARALLELISM);
    resolve_engine(c);
    c->side.tag = spec->late_tag;
    c->side.elem_size = in_size;
    write_settings(c);
    return 0;
}

int weir_window_operator(const weir_window_spec *spec, size_t in_size, size_t key_size,
                         weir_process_spec *out, char *errbuf, size_t errsize)
{
    char why[256] = "";
    int r = WEIR_EINVAL;
    weir__window_config *c = NULL;
    if (!spec || !out) {
        snprintf(why, sizeof why, "a spec and an output are required");
    } else if (key_size == 0) {
        snprintf(why, sizeof why, "windows need a keyed input (weir_stream_key_by first)");
        r = WEIR_ENOKEY;
    } else if (key_size > WEIR_MAX_KEY_SIZE) {
        snprintf(why, sizeof why, "key size %zu is not in 1..%d", key_size, WEIR_MAX_KEY_SIZE);
    } else {
        /* the configuration and a copy of the name, freed together */
        const char *name = spec->name ? spec->name : "window";
        size_t len = strlen(name) + 1;
        if (!(c = malloc(sizeof *c + len))) {
            snprintf(why, sizeof why, "out of memory");
            r = WEIR_ENOMEM;
        } else {
            r = resolve(c, spec, in_size, key_size, why, sizeof why);
            c->name = memcpy((char *)(c + 1), name, len);
            c->spec.name = c->name;
        }
    }
    if (r) {
        free(c);
        if (errbuf && errsize)
            snprintf(errbuf, errsize, "%s", why);
        return r;
    }
    memset(out, 0, sizeof *out);
    out->name = spec->name ? c->name : NULL; /* NULL: "window", "window-2", ... */
    out->kind = "window";
    out->vtable = &window_vtable;
    out->arg = spec->arg;
    out->impl = c;
    out->impl_free = free;
    out->out_size = c->out_size;
    out->side_outputs = spec->late_tag > 0 ? &c->side : NULL;
    out->nside = spec->late_tag > 0 ? 1 : 0;
    out->parallelism = spec->parallelism;
    out->accounting = WEIR_ACCOUNTING_WINDOW;
    out->settings_json = c->settings;
    return 0;
}

weir_stream *weir_stream_window(weir_stream *keyed, const weir_window_spec *spec)
{
    if (!keyed)
        return NULL;
    weir_job *job = weir_stream_job(keyed);
    size_t key_size = weir_stream_key_size(keyed);
    if (key_size == 0) {
        weir_job_record_error(job, WEIR_ENOKEY, "weir_stream_window: the input stream is not "
                              "keyed (windows need weir_stream_key_by first)");
        return NULL;
    }
    weir_process_spec ps;
    char why[256];
    int r = weir_window_operator(spec, weir_stream_elem_size(keyed), key_size, &ps, why,
                                 sizeof why);
    if (r) {
        weir_job_record_error(job, r, "weir_stream_window: %s", why);
        return NULL;
    }
    return weir_stream_process(keyed, &ps);
}
