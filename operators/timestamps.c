/* timestamps.c — the timestamps operator: assigns each record's event
 * timestamp and generates watermarks by a strategy (SEMANTICS.md 1 and 2).
 *
 * Per record: the timestamp is extracted, the record is forwarded, and only
 * then the generator sees it (so a punctuated watermark follows the record
 * that caused it). Periodic probes run on a processing-time timer: the first
 * one interval after open, each next one interval after the previous probe
 * ran. `with_idleness(T)` wraps the generator's probe: a probe that saw no
 * element since the previous one starts a countdown (or, with one running and
 * more than T elapsed, marks the output idle and skips the wrapped probe);
 * any element cancels the countdown. The wrapper marks idle once per quiet
 * spell: it stays "idle now" until the next element (Flink's
 * WatermarksWithIdleness.isIdleNow), so when something else made the output
 * active meanwhile (MAX through the gate) a later probe does not mark it
 * idle again. The wrapper never marks active itself: the next watermark
 * through the output gate brings ACTIVE along.
 *
 * Upstream watermarks are swallowed, except MAX (the end of input), which
 * passes at once; probes go on after it, and at END (on_end, Flink's
 * finish()) one last probe runs. After MAX the gate lets no watermark
 * through, so those probes can only mark the output idle (and only if the
 * wrapper has not marked it idle since the last element). Upstream
 * idle/active are swallowed too: this operator makes its own.
 *
 * Probes that cannot change anything are not run. Until an input arrives (a
 * record, or MAX, after which the gate may have to send ACTIVE and a later
 * probe IDLE again), a built-in generator's next probe proposes what the
 * last one did, which the gate drops; the idleness countdown only matters at
 * the first probe more than T after its start. So after a probe the timer is
 * set at the next probe that can change something (the countdown's start,
 * the idleness deadline) or at none, and the first input after it brings it
 * back to the next probe time of the unskipped schedule. The output is the
 * same as with every probe run; an idle operator does not wake every
 * interval, and a virtual clock moved far ahead (`weir script`'s `time`)
 * does not run billions of probes one by one. A custom generator's
 * on_periodic is the user's code: its probes all run, unless its vtable
 * says it decides only from what on_event saw
 * (WEIR_WATERMARK_PERIODIC_FROM_EVENTS, as SQL's WATERMARK FOR does); then
 * it is skipped like a built-in one. Written against weir/operator.h only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/operator_builtin.h"
#include "weir/stream.h"
#include "weir/time.h"
#include "builder.h"

#define NS_PROBE 0

/* ---- custom watermark generators' output (weir/time.h) -------------------- */

static void keep_error(weir_watermark_output *out, int r)
{
    if (r < 0 && out->err == 0)
        out->err = r;
}

void weir_watermark_output_emit(weir_watermark_output *out, int64_t watermark)
{
    keep_error(out, out->partition >= 0
                        ? weir_source_partition_watermark(out->ctx, out->partition, watermark)
                        : weir_emit_watermark(out->ctx, watermark));
}

void weir_watermark_output_mark_idle(weir_watermark_output *out)
{
    keep_error(out, out->partition >= 0
                        ? weir_source_partition_status(out->ctx, out->partition, true)
                        : weir_emit_idle(out->ctx));
}

void weir_watermark_output_mark_active(weir_watermark_output *out)
{
    keep_error(out, out->partition >= 0
                        ? weir_source_partition_status(out->ctx, out->partition, false)
                        : weir_emit_active(out->ctx));
}

typedef struct ts_arg {
    weir_timestamps_spec spec;
    char settings[200]; /* for the capture's job event */
} ts_arg;

typedef struct ts_state {
    int64_t max_ts;        /* bounded / ascending: largest timestamp seen */
    void *gen;             /* custom generator instance */
    int64_t interval;      /* ms; <= 0: no periodic probes */
    /* idleness */
    uint64_t elements;     /* elements seen */
    uint64_t last_elements;/* at the previous probe */
    bool countdown;
    int64_t countdown_start;
    bool idle_now;         /* marked idle since the last element */
    /* the probe schedule */
    int64_t last_probe;    /* when the previous probe ran (open, before any) */
    int64_t next_probe;    /* the registered probe timer, NO_PROBE if none */
    bool skipping;         /* next_probe is past the next probe time */
} ts_state;

#define NO_PROBE INT64_MIN

/* The probe `steps` intervals after `from`, or NO_PROBE if that falls past
 * the last representable millisecond: such a probe never comes (a wrapped,
 * negative time would be due at once, forever). */
static int64_t probe_time(const ts_state *s, int64_t from, int64_t steps)
{
    if (steps > (INT64_MAX - from) / s->interval)
        return NO_PROBE;
    return from + steps * s->interval;
}

/* Makes `t` (or NO_PROBE) the one registered probe. */
static int set_probe(weir_ctx *ctx, ts_state *s, int64_t t)
{
    if (t == s->next_probe)
        return 0;
    int r = 0;
    if (s->next_probe != NO_PROBE)
        r = weir_timer_delete(ctx, WEIR_PROCESSING_TIME, NS_PROBE, s->next_probe);
    s->next_probe = NO_PROBE;
    if (r == 0 && t != NO_PROBE) {
        r = weir_timer_register(ctx, WEIR_PROCESSING_TIME, NS_PROBE, t);
        if (r == 0)
            s->next_probe = t;
    }
    return r;
}

static int ts_open(weir_ctx *ctx)
{
    const ts_arg *a = weir_ctx_arg(ctx);
    ts_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->max_ts = WEIR_TS_MIN;
    s->next_probe = NO_PROBE;
    weir_ctx_set_state(ctx, s);
    const weir_watermark_strategy *st = &a->spec.strategy;
    int r = 0;
    bool created = false;
    if (st->kind == WEIR_WATERMARKS_CUSTOM && st->custom->create) {
        r = st->custom->create(st->arg, &s->gen);
        created = r == 0;
    }
    s->interval = st->interval_ms ? st->interval_ms : weir_ctx_watermark_interval(ctx);
    s->last_probe = weir_ctx_now(ctx);
    if (r == 0 && s->interval > 0)
        r = set_probe(ctx, s, probe_time(s, s->last_probe, 1));
    if (r < 0) {
        /* close() never runs for an operator whose open() failed, so what
         * open made is freed here (a generator only if create succeeded). */
        if (created && s->gen && st->custom->destroy)
            st->custom->destroy(s->gen);
        weir_ctx_set_state(ctx, NULL);
        free(s);
    }
    return r;
}

static void ts_close(weir_ctx *ctx)
{
    const ts_arg *a = weir_ctx_arg(ctx);
    ts_state *s = weir_ctx_state(ctx);
    if (!s)
        return;
    const weir_watermark_strategy *st = &a->spec.strategy;
    if (st->kind == WEIR_WATERMARKS_CUSTOM && st->custom->destroy && s->gen)
        st->custom->destroy(s->gen);
    free(s);
}

/* The wrapped generator's periodic proposal. */
static int wrapped_probe(weir_ctx *ctx, const ts_arg *a, ts_state *s)
{
    const weir_watermark_strategy *st = &a->spec.strategy;
    switch (st->kind) {
    case WEIR_WATERMARKS_BOUNDED:
    case WEIR_WATERMARKS_ASCENDING: {
        int64_t bound = st->kind == WEIR_WATERMARKS_BOUNDED ? st->bound_ms : 0;
        /* max - bound - 1, without wrapping below MIN (MIN itself never
         * leaves the gate) */
        if (s->max_ts == WEIR_TS_MIN || s->max_ts < WEIR_TS_MIN + bound + 1)
            return weir_emit_watermark(ctx, WEIR_TS_MIN);
        return weir_emit_watermark(ctx, s->max_ts - bound - 1);
    }
    case WEIR_WATERMARKS_CUSTOM:
        if (st->custom->on_periodic) {
            weir_watermark_output out = {.ctx = ctx, .partition = -1};
            st->custom->on_periodic(s->gen, &out);
            return out.err;
        }
        return 0;
    default:
        return 0; /* none and punctuated propose nothing periodically */
    }
}

/* One periodic probe, through the idleness wrapper if there is one. */
static int probe(weir_ctx *ctx, const ts_arg *a, ts_state *s)
{
    int64_t idleness = a->spec.strategy.idleness_ms;
    if (idleness <= 0)
        return wrapped_probe(ctx, a, s);
    if (s->elements != s->last_elements) {
        s->last_elements = s->elements;
        s->countdown = false;
        return wrapped_probe(ctx, a, s);
    }
    /* Time the source spent paused by watermark alignment does not count:
     * held back is not idle (Flink's paused activity clock). */
    int64_t now = weir_ctx_activity_now(ctx);
    if (!s->countdown) {
        s->countdown = true;
        s->countdown_start = now;
        return wrapped_probe(ctx, a, s);
    }
    if (now - s->countdown_start > idleness) {
        /* Once per quiet spell: an ACTIVE the gate sent since (before MAX)
         * does not make the wrapper mark idle again before an element. */
        if (s->idle_now)
            return 0;
        s->idle_now = true;
        return weir_emit_idle(ctx);
    }
    return wrapped_probe(ctx, a, s);
}

/* Whether every periodic probe must run: a custom generator's on_periodic
 * may read the clock or count its calls, unless its V2 vtable says it
 * decides only from the elements it saw. */
static bool probes_all_run(const weir_watermark_strategy *st)
{
    return st->kind == WEIR_WATERMARKS_CUSTOM &&
           !(st->custom->version >= WEIR_WATERMARK_GENERATOR_V2 &&
             (st->custom->flags & WEIR_WATERMARK_PERIODIC_FROM_EVENTS));
}

/* After a probe at `now`, how many intervals on the next one that can
 * change anything comes if no input arrives meanwhile; 0 for none. A built-in
 * generator (or a custom one flagged WEIR_WATERMARK_PERIODIC_FROM_EVENTS)
 * proposes what it proposed at this probe (dropped by the gate, which that
 * proposal left at or above it), so only the idleness wrapper matters: a
 * countdown to start (the next probe), or its deadline (the first probe more
 * than T after its start), or idle already (no probe matters). */
static int64_t steps_to_next_change(const ts_arg *a, const ts_state *s, int64_t now)
{
    const weir_watermark_strategy *st = &a->spec.strategy;
    int64_t idleness = st->idleness_ms;
    if (idleness <= 0)
        return probes_all_run(st) ? 1 : 0;
    if (!s->countdown)
        return 1;
    int64_t elapsed = now - s->countdown_start;
    if (elapsed > idleness)
        return 0; /* idle: the wrapped probe (even a custom one) no longer runs */
    if (probes_all_run(st))
        return 1;
    return (idleness - elapsed) / s->interval + 1;
}

/* An input arrived (a record, or MAX): if probes were being skipped, the
 * next one of the schedule may see it, so it is due again. Inline: one test
 * on the record path. */
static int wake_slow(weir_ctx *ctx, ts_state *s)
{
    s->skipping = false;
    int64_t now = weir_ctx_now(ctx);
    /* the first probe time after now (a probe due at now already ran) */
    int64_t steps = (now - s->last_probe) / s->interval + 1;
    int64_t t = probe_time(s, s->last_probe, steps);
    if (t == NO_PROBE || (s->next_probe != NO_PROBE && s->next_probe <= t))
        return 0;
    return set_probe(ctx, s, t);
}

static inline int wake(weir_ctx *ctx, ts_state *s)
{
    return __builtin_expect(s->skipping, 0) ? wake_slow(ctx, s) : 0;
}

/* One record: its timestamp, forwarded, then seen by the generator. */
static inline int ts_one(weir_ctx *ctx, const ts_arg *a, ts_state *s, const void *elem, int64_t ts)
{
    int64_t t = a->spec.extract ? a->spec.extract(elem, ts, a->spec.arg) : ts;
    int r = weir_emit(ctx, elem, t);
    if (r == 0)
        r = wake(ctx, s);
    if (r < 0)
        return r;
    s->elements++;
    s->idle_now = false;
    const weir_watermark_strategy *st = &a->spec.strategy;
    switch (st->kind) {
    case WEIR_WATERMARKS_BOUNDED:
    case WEIR_WATERMARKS_ASCENDING:
        if (t > s->max_ts)
            s->max_ts = t;
        return 0;
    case WEIR_WATERMARKS_PUNCTUATED: {
        int64_t w = st->punctuated(elem, t, st->arg);
        return w == WEIR_TS_MIN ? 0 : weir_emit_watermark(ctx, w);
    }
    case WEIR_WATERMARKS_CUSTOM:
        if (st->custom->on_event) {
            weir_watermark_output out = {.ctx = ctx, .partition = -1};
            st->custom->on_event(s->gen, elem, t, &out);
            return out.err;
        }
        return 0;
    default:
        return 0;
    }
}

static int ts_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    return ts_one(ctx, weir_ctx_arg(ctx), weir_ctx_state(ctx), elem, ts);
}

static int ts_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    const ts_arg *a = weir_ctx_arg(ctx);
    ts_state *s = weir_ctx_state(ctx);
    const weir_watermark_strategy *st = &a->spec.strategy;
    if (!a->spec.extract &&
        (st->kind == WEIR_WATERMARKS_BOUNDED || st->kind == WEIR_WATERMARKS_ASCENDING)) {
        /* The records keep their timestamps and the generator only keeps
         * the largest one, which nothing reads before the next probe (a
         * timer, never inside this call): the batch leaves as it came and
         * the maximum is taken over it afterwards, in one tight loop. */
        int r = weir_emit_batch(ctx, input, b);
        if (r == 0)
            r = wake(ctx, s);
        if (r < 0)
            return r;
        s->max_ts = weir_batch_max_ts(b, s->max_ts);
        s->elements += b->count;
        if (b->count)
            s->idle_now = false;
        return 0;
    }
    for (uint32_t i = 0; i < b->count; i++) {
        int r = ts_one(ctx, a, s, weir_batch_elem(b, i), weir_batch_ts(b, i));
        if (r < 0)
            return r;
    }
    return 0;
}

static int ts_timer(weir_ctx *ctx, const weir_timer *timer)
{
    const ts_arg *a = weir_ctx_arg(ctx);
    ts_state *s = weir_ctx_state(ctx);
    if (timer->domain != WEIR_PROCESSING_TIME || timer->ns != NS_PROBE ||
        timer->timestamp != s->next_probe)
        return 0;
    s->next_probe = NO_PROBE; /* popped */
    int64_t now = weir_ctx_now(ctx);
    s->last_probe = now;
    int r = probe(ctx, a, s);
    if (r < 0)
        return r;
    /* The countdown runs on the activity clock (probe): its deadline, in
     * probes from now, is counted on it too; while the source is paused
     * that clock stands still and the probe at the deadline finds it not
     * reached yet and counts again. */
    int64_t steps = steps_to_next_change(a, s, weir_ctx_activity_now(ctx));
    s->skipping = steps != 1;
    return set_probe(ctx, s, steps ? probe_time(s, now, steps) : NO_PROBE);
}

/* Only MAX gets through, at once; the probes go on (Flink's
 * processWatermark). */
static int ts_watermark(weir_ctx *ctx, int64_t wm)
{
    if (wm != WEIR_TS_MAX)
        return 0;
    int r = weir_emit_watermark(ctx, WEIR_TS_MAX);
    if (r == 0)
        r = wake(ctx, weir_ctx_state(ctx));
    return r;
}

/* END: one last probe (Flink's finish()); after MAX it can only mark the
 * output idle. */
static int ts_end(weir_ctx *ctx)
{
    return probe(ctx, weir_ctx_arg(ctx), weir_ctx_state(ctx));
}

static int ts_status(weir_ctx *ctx, bool idle)
{
    (void)ctx;
    (void)idle;
    return 0;
}

/* What the strategy has seen, for a checkpoint: the largest timestamp,
 * the idleness countdown and the probe schedule (the probe timer itself is
 * runtime state). A custom generator's instance is the user's: it starts
 * anew from create() at a restore. */
typedef struct ts_saved {
    int64_t max_ts;
    uint64_t elements, last_elements;
    int64_t countdown_start, last_probe, next_probe;
    uint8_t countdown, skipping, idle_now, pad[5];
} ts_saved;

#define TS_SAVED_TAG 0x74737431u /* "tst1" */

static int ts_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    const ts_state *s = weir_ctx_state(ctx);
    ts_saved v = {.max_ts = s->max_ts,
                  .elements = s->elements,
                  .last_elements = s->last_elements,
                  .countdown_start = s->countdown_start,
                  .last_probe = s->last_probe,
                  .next_probe = s->next_probe,
                  .countdown = s->countdown,
                  .skipping = s->skipping,
                  .idle_now = s->idle_now};
    return weir_snapshot_write_record(w, TS_SAVED_TAG, &v, sizeof v);
}

/* After a change of parallelism several old subtasks' states come: the
 * largest timestamp of all (the restored watermark is the least of theirs,
 * so this never moves event time backwards), the rest from the first. */
static int ts_restore_one(weir_ctx *ctx, const void *rec, void *arg)
{
    ts_state *s = weir_ctx_state(ctx);
    bool *first = arg;
    ts_saved v;
    memcpy(&v, rec, sizeof v);
    if (*first) {
        s->elements = v.elements;
        s->last_elements = v.last_elements;
        s->countdown = v.countdown;
        s->countdown_start = v.countdown_start;
        s->last_probe = v.last_probe;
        s->next_probe = v.next_probe;
        s->skipping = v.skipping;
        s->idle_now = v.idle_now;
        s->max_ts = v.max_ts;
        *first = false;
    } else if (v.max_ts > s->max_ts) {
        s->max_ts = v.max_ts;
    }
    return 0;
}

static int ts_restore(weir_ctx *ctx, weir_snapshot_reader *r)
{
    bool first = true;
    return weir_restore_records(ctx, r, TS_SAVED_TAG, sizeof(ts_saved), ts_restore_one, &first);
}

static const weir_operator_vtable ts_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V2,
    .snapshot = ts_snapshot,
    .restore = ts_restore,
    .open = ts_open,
    .on_record = ts_record,
    .on_watermark = ts_watermark,
    .on_status = ts_status,
    .on_timer = ts_timer,
    .on_end = ts_end,
    .close = ts_close,
    .on_batch = ts_batch,
};

static const char *strategy_name(weir_watermark_kind k)
{
    switch (k) {
    case WEIR_WATERMARKS_BOUNDED:
        return "bounded";
    case WEIR_WATERMARKS_ASCENDING:
        return "ascending";
    case WEIR_WATERMARKS_PUNCTUATED:
        return "punctuated";
    case WEIR_WATERMARKS_CUSTOM:
        return "custom";
    default:
        return "none";
    }
}

int weir_timestamps_operator(const weir_timestamps_spec *spec, size_t elem_size,
                             weir_process_spec *out, char *errbuf, size_t errsize)
{
    char why[200] = "";
    const weir_watermark_strategy *st = spec ? &spec->strategy : NULL;
    if (!spec || !out)
        snprintf(why, sizeof why, "a spec and an output are required");
    else if (st->kind < WEIR_WATERMARKS_NONE || st->kind > WEIR_WATERMARKS_CUSTOM)
        snprintf(why, sizeof why, "unknown watermark strategy %d", (int)st->kind);
    else if (st->kind == WEIR_WATERMARKS_BOUNDED && st->bound_ms < 0)
        snprintf(why, sizeof why, "bounded out-of-orderness %lld is negative (must be >= 0)",
                 (long long)st->bound_ms);
    else if (st->kind == WEIR_WATERMARKS_PUNCTUATED && !st->punctuated)
        snprintf(why, sizeof why, "a punctuated strategy needs its callback");
    else if (st->kind == WEIR_WATERMARKS_CUSTOM &&
             (!st->custom || (st->custom->version != WEIR_WATERMARK_GENERATOR_V1 &&
                              st->custom->version != WEIR_WATERMARK_GENERATOR_V2)))
        snprintf(why, sizeof why, "a custom strategy needs a generator vtable of version %u "
                 "or %u", WEIR_WATERMARK_GENERATOR_V1, WEIR_WATERMARK_GENERATOR_V2);
    else if (st->idleness_ms < 0)
        snprintf(why, sizeof why, "idleness %lld is negative (must be > 0, or 0 for none)",
                 (long long)st->idleness_ms);
    else if (st->interval_ms < 0 && st->interval_ms != WEIR_DISABLED)
        snprintf(why, sizeof why, "watermark interval %lld is negative (WEIR_DISABLED turns "
                 "periodic probes off)", (long long)st->interval_ms);
    if (why[0]) {
        if (errbuf && errsize)
            snprintf(errbuf, errsize, "%s", why);
        return WEIR_EINVAL;
    }
    ts_arg *a = malloc(sizeof *a);
    if (!a) {
        if (errbuf && errsize)
            snprintf(errbuf, errsize, "out of memory");
        return WEIR_ENOMEM;
    }
    a->spec = *spec;
    memset(out, 0, sizeof *out);
    out->kind = "timestamps";
    out->vtable = &ts_vtable;
    out->arg = a;
    out->arg_free = free;
    out->accounting = WEIR_ACCOUNTING_ONE_TO_ONE;
    out->out_size = elem_size;
    out->parallelism = WEIR_PARALLELISM_INHERIT;
    snprintf(a->settings, sizeof a->settings, "\"strategy\":\"%s\",\"bound_ms\":%lld,\"interval_ms\":%lld,"
             "\"idleness_ms\":%lld",
             strategy_name(st->kind),
             (long long)(st->kind == WEIR_WATERMARKS_BOUNDED ? st->bound_ms : 0),
             (long long)st->interval_ms, (long long)st->idleness_ms);
    out->settings_json = a->settings;
    return 0;
}

weir_stream *weir_stream_assign_timestamps(weir_stream *s, const weir_timestamps_spec *spec)
{
    if (!s)
        return NULL;
    weir_process_spec ps;
    char why[200];
    int r = weir_timestamps_operator(spec, weir_stream_elem_size(s), &ps, why, sizeof why);
    if (r) {
        weir_job_record_error(weir_stream_job(s), r, "weir_stream_assign_timestamps: %s", why);
        return NULL;
    }
    return weir_stream_process(s, &ps);
}
