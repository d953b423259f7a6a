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
 * any element cancels the countdown. The wrapper never marks active itself:
 * the next watermark through the output gate brings ACTIVE along.
 *
 * Upstream watermarks are swallowed, except MAX, which is the end of input:
 * one final probe, then MAX. Upstream idle/active are swallowed too: this
 * operator makes its own. Written against weir/operator.h only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/stream.h"
#include "weir/time.h"

#define NS_PROBE 0

struct weir_watermark_output {
    weir_ctx *ctx;
    int err;
};

void weir_watermark_output_emit(weir_watermark_output *out, int64_t watermark)
{
    int r = weir_emit_watermark(out->ctx, watermark);
    if (r < 0 && out->err == 0)
        out->err = r;
}

void weir_watermark_output_mark_idle(weir_watermark_output *out)
{
    int r = weir_emit_idle(out->ctx);
    if (r < 0 && out->err == 0)
        out->err = r;
}

void weir_watermark_output_mark_active(weir_watermark_output *out)
{
    int r = weir_emit_active(out->ctx);
    if (r < 0 && out->err == 0)
        out->err = r;
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
    bool final_done;
} ts_state;

/* Registers the next periodic probe, one interval from now. A probe that
 * would fall past the last representable millisecond never comes, so none
 * is registered: a wrapped, negative time would be due at once, forever. */
static int schedule_probe(weir_ctx *ctx, const ts_state *s)
{
    int64_t now = weir_ctx_now(ctx);
    if (now > INT64_MAX - s->interval)
        return 0;
    return weir_timer_register(ctx, WEIR_PROCESSING_TIME, NS_PROBE, now + s->interval);
}

static int ts_open(weir_ctx *ctx)
{
    const ts_arg *a = weir_ctx_arg(ctx);
    ts_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->max_ts = WEIR_TS_MIN;
    weir_ctx_set_state(ctx, s);
    const weir_watermark_strategy *st = &a->spec.strategy;
    int r = 0;
    bool created = false;
    if (st->kind == WEIR_WATERMARKS_CUSTOM && st->custom->create) {
        r = st->custom->create(st->arg, &s->gen);
        created = r == 0;
    }
    s->interval = st->interval_ms ? st->interval_ms : weir_ctx_watermark_interval(ctx);
    if (r == 0 && s->interval > 0)
        r = schedule_probe(ctx, s);
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
            weir_watermark_output out = {.ctx = ctx};
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
    int64_t now = weir_ctx_now(ctx);
    if (!s->countdown) {
        s->countdown = true;
        s->countdown_start = now;
        return wrapped_probe(ctx, a, s);
    }
    if (now - s->countdown_start > idleness)
        return weir_emit_idle(ctx);
    return wrapped_probe(ctx, a, s);
}

/* One record: its timestamp, forwarded, then seen by the generator. */
static inline int ts_one(weir_ctx *ctx, const ts_arg *a, ts_state *s, const void *elem, int64_t ts)
{
    int64_t t = a->spec.extract ? a->spec.extract(elem, ts, a->spec.arg) : ts;
    int r = weir_emit(ctx, elem, t);
    if (r < 0)
        return r;
    s->elements++;
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
            weir_watermark_output out = {.ctx = ctx};
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
        if (r < 0)
            return r;
        s->max_ts = weir_batch_max_ts(b, s->max_ts);
        s->elements += b->count;
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
    if (timer->domain != WEIR_PROCESSING_TIME || timer->ns != NS_PROBE || s->final_done)
        return 0;
    int r = probe(ctx, a, s);
    if (r < 0)
        return r;
    return schedule_probe(ctx, s);
}

static int ts_watermark(weir_ctx *ctx, int64_t wm)
{
    if (wm != WEIR_TS_MAX)
        return 0;
    const ts_arg *a = weir_ctx_arg(ctx);
    ts_state *s = weir_ctx_state(ctx);
    if (s->final_done)
        return 0;
    s->final_done = true;
    int r = probe(ctx, a, s);
    if (r < 0)
        return r;
    return weir_emit_watermark(ctx, WEIR_TS_MAX);
}

static int ts_status(weir_ctx *ctx, bool idle)
{
    (void)ctx;
    (void)idle;
    return 0;
}

static const weir_operator_vtable ts_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = ts_open,
    .on_record = ts_record,
    .on_watermark = ts_watermark,
    .on_status = ts_status,
    .on_timer = ts_timer,
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
             (!st->custom || st->custom->version != WEIR_WATERMARK_GENERATOR_V1))
        snprintf(why, sizeof why, "a custom strategy needs a generator vtable of version %u",
                 WEIR_WATERMARK_GENERATOR_V1);
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
