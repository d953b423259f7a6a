/* test_event_time_e2e.c — event time end to end, on real worker threads:
 * parallel sources, a chained timestamps operator, a key_by shuffle, and a
 * keyed operator of parallelism 2 that logs every watermark it sees.
 *
 * The first suite is SEMANTICS.md 1-3 and 8 at work across a shuffle. Four
 * source subtasks emit one record every 10 ms of processing time (event
 * time = the time it is emitted at) and pace themselves with
 * weir_source_wait_until; three go on for 100 records, the fourth falls
 * silent after 20 (its last timestamp 190, so its last watermark is
 * 190 - B - 1) and ends only when the other three have finished. Each
 * downstream subtask merges the four channels in its valve. Without
 * idleness the quiet subtask's channel holds every downstream valve at its
 * last watermark until its own MAX: the keyed operator never sees a
 * watermark above it before MAX. With with_idleness the quiet subtask is
 * declared idle and the downstream watermark passes it and follows the
 * other three, ending at their last periodic probe before MAX: a source's
 * end sends MAX through the chained timestamps operator at once, and the
 * final probe at END comes after it (its proposal is below MAX: dropped).
 * Either way no record ever arrives at or below the current watermark (the
 * sources are in order per subtask).
 *
 * A variant where the silent subtask never emits anything holds the
 * downstream watermark at MIN: the first and only watermark is MAX.
 *
 * The second suite has sources that make their own event time
 * (weir_emit_watermark / weir_emit_idle / weir_emit_active in next()), two
 * subtasks with a script each, and no timestamps operator: the operator
 * behind the rebalance must see exactly what SEMANTICS 3 derives from the
 * two channels, step by step at the virtual times the scripts ran.
 *
 * Everything runs on the virtual clock (deterministic, and no real time is
 * spent waiting) with 1 and 2 workers.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/weir_testutil.h"

/* ---- suite 1: a silent source subtask ------------------------------------------ */

#define SOURCES 4
#define SILENT 3   /* the subtask that falls silent */
#define KEYED_P 2
#define RECORDS 100 /* per emitting subtask */
#define STEP_MS 10
#define BOUND 5
#define INTERVAL 50
#define IDLENESS 100
#define KEYS 16
#define MAX_LOG 512

typedef struct event {
    uint64_t key;
    int64_t ts;
    int64_t source;
} event;

typedef struct wm_seen {
    int64_t wm;
    int64_t now;
} wm_seen;

/* Shared by every subtask of the job. The sources count finished emitters
 * atomically; each keyed subtask writes only its own slot of the logs (the
 * test reads them after weir_job_run joined the workers). */
typedef struct run {
    _Atomic int finished;
    int64_t quiet_after; /* records the silent subtask emits before it falls silent */
    wm_seen wms[KEYED_P][MAX_LOG];
    int nwms[KEYED_P];
    int statuses[KEYED_P];
    int64_t records[KEYED_P];
    int64_t late[KEYED_P];
    int64_t max_ts[KEYED_P];
} run;

typedef struct src_state {
    int64_t k;
} src_state;

static int src_open(weir_ctx *ctx)
{
    src_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    return 0;
}

/* Emitters: record k at processing time k * STEP_MS, stamped with that
 * time; the last one ends the subtask at once. The silent subtask does the
 * same for its first quiet_after records, then waits in steps of STEP_MS
 * until the others are done. */
static int src_next(weir_ctx *ctx)
{
    run *r = weir_ctx_arg(ctx);
    src_state *s = weir_ctx_state(ctx);
    int64_t now = weir_ctx_now(ctx);
    if (weir_ctx_subtask(ctx) == SILENT && s->k >= r->quiet_after) {
        /* It ends one step after it saw the others done, so that its MAX
         * cannot overtake their last watermarks at the same virtual time. */
        if (s->k == INT64_MAX)
            return WEIR_SOURCE_END;
        if (atomic_load(&r->finished) == SOURCES - 1)
            s->k = INT64_MAX;
        weir_source_wait_until(ctx, now + STEP_MS);
        return WEIR_SOURCE_WAIT;
    }
    tu_check(now >= s->k * STEP_MS, "source ran at %lld, before %lld", (long long)now,
             (long long)(s->k * STEP_MS));
    event e = {.key = (uint64_t)(s->k * SOURCES + weir_ctx_subtask(ctx)) % KEYS,
               .ts = s->k * STEP_MS,
               .source = weir_ctx_subtask(ctx)};
    int rc = weir_emit(ctx, &e, e.ts);
    if (rc < 0)
        return rc;
    if (++s->k == RECORDS && weir_ctx_subtask(ctx) != SILENT) {
        atomic_fetch_add(&r->finished, 1);
        return WEIR_SOURCE_END;
    }
    weir_source_wait_until(ctx, s->k * STEP_MS);
    return WEIR_SOURCE_WAIT;
}

static void src_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_source_vtable src_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1, .open = src_open, .next = src_next, .close = src_close};

static void event_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const event *)elem)->key, 8);
}

static int keyed_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    run *r = weir_ctx_arg(ctx);
    int i = weir_ctx_subtask(ctx);
    const event *e = elem;
    tu_check(e->source != SILENT || e->ts < r->quiet_after * STEP_MS,
             "a record from the silent subtask after it fell silent");
    tu_check(ts == e->ts, "record timestamp %lld, element says %lld", (long long)ts,
             (long long)e->ts);
    tu_check(weir_ctx_key(ctx) && memcmp(weir_ctx_key(ctx), &e->key, 8) == 0,
             "the current key is not the record's");
    r->records[i]++;
    if (ts <= weir_ctx_watermark(ctx))
        r->late[i]++;
    if (ts > r->max_ts[i])
        r->max_ts[i] = ts;
    return 0;
}

static int keyed_watermark(weir_ctx *ctx, int64_t wm)
{
    run *r = weir_ctx_arg(ctx);
    int i = weir_ctx_subtask(ctx);
    tu_check(weir_ctx_watermark(ctx) == wm, "on_watermark(%lld) but the current one is %lld",
             (long long)wm, (long long)weir_ctx_watermark(ctx));
    if (r->nwms[i] < MAX_LOG)
        r->wms[i][r->nwms[i]++] = (wm_seen){wm, weir_ctx_now(ctx)};
    return weir_emit_watermark(ctx, wm);
}

static int keyed_status(weir_ctx *ctx, bool idle)
{
    run *r = weir_ctx_arg(ctx);
    r->statuses[weir_ctx_subtask(ctx)]++;
    return idle ? weir_emit_idle(ctx) : weir_emit_active(ctx);
}

static const weir_operator_vtable keyed_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = keyed_record,
    .on_watermark = keyed_watermark,
    .on_status = keyed_status,
};

static void run_silent(run *r, int workers, int64_t idleness, int64_t quiet_after)
{
    memset(r, 0, sizeof *r);
    r->quiet_after = quiet_after;
    for (int i = 0; i < KEYED_P; i++)
        r->max_ts[i] = WEIR_TS_MIN;
    weir_job *job = tu_job(&(weir_job_config){.workers = workers,
                                              .clock = WEIR_CLOCK_VIRTUAL,
                                              .watermark_interval_ms = INTERVAL});
    weir_source_spec src = {.name = "events",
                            .vtable = &src_vtable,
                            .arg = r,
                            .elem_size = sizeof(event),
                            .parallelism = SOURCES};
    weir_timestamps_spec ts = {
        .strategy = weir_watermarks_with_idleness(weir_watermarks_bounded(BOUND), idleness)};
    weir_key_spec key = {.key_size = 8, .extract = event_key};
    weir_process_spec keyed = {.name = "watch", .vtable = &keyed_vtable, .arg = r,
                               .parallelism = KEYED_P};
    weir_stream *s = weir_job_add_source(job, &src);
    /* The timestamps operator takes its input's parallelism, as Flink's
     * assignTimestampsAndWatermarks does: one generator per partition,
     * chained to its source subtask, so a quiet partition is seen. */
    s = weir_stream_assign_timestamps(s, &ts);
    cr_assert_not_null(weir_stream_process(weir_stream_key_by(s, &key), &keyed),
                       "building: %s", weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);

    int64_t total = 0;
    for (int i = 0; i < KEYED_P; i++) {
        total += r->records[i];
        cr_assert_eq(r->late[i], 0, "subtask %d: %lld records at or below the watermark", i,
                     (long long)r->late[i]);
        cr_assert_gt(r->records[i], 0, "subtask %d got no record: the keys do not spread", i);
        cr_assert_eq(r->statuses[i], 0,
                     "subtask %d saw a status: its valve output is never idle (three channels "
                     "are active until they end)", i);
        cr_assert_gt(r->nwms[i], 0);
        cr_assert_eq(r->wms[i][r->nwms[i] - 1].wm, WEIR_TS_MAX, "subtask %d: the last watermark "
                     "is %lld, not MAX", i, (long long)r->wms[i][r->nwms[i] - 1].wm);
        for (int k = 1; k < r->nwms[i]; k++)
            cr_assert_gt(r->wms[i][k].wm, r->wms[i][k - 1].wm, "subtask %d: watermark %d "
                         "(%lld) is not above the one before (%lld)", i, k,
                         (long long)r->wms[i][k].wm, (long long)r->wms[i][k - 1].wm);
    }
    cr_assert_eq(total, (int64_t)(SOURCES - 1) * RECORDS + quiet_after,
                 "records lost or duplicated");
}

#define QUIET_AFTER 20
/* The quiet subtask's last watermark: its last timestamp - B - 1. */
#define QUIET_LAST_WM ((QUIET_AFTER - 1) * STEP_MS - BOUND - 1)

/* A subtask that never emitted anything holds the valves at MIN. */
static void never_emits_without_idleness(int workers)
{
    static run r;
    run_silent(&r, workers, 0, 0);
    for (int i = 0; i < KEYED_P; i++) {
        /* The silent channel holds every valve at MIN until its own MAX. */
        cr_assert_eq(r.nwms[i], 1, "subtask %d saw %d watermarks, first %lld at %lld; the silent "
                     "subtask should hold it at MIN until the end", i, r.nwms[i],
                     (long long)r.wms[i][0].wm, (long long)r.wms[i][0].now);
        cr_assert_eq(r.wms[i][0].wm, WEIR_TS_MAX);
        /* ... when the silent subtask ended, a step after the emitters */
        cr_assert_gt(r.wms[i][0].now, (RECORDS - 1) * STEP_MS);
    }
}

/* A subtask that fell silent holds every valve at its last watermark until
 * it ends: the downstream watermark reaches it and never goes above it
 * before MAX, although the other three run on for 800 ms. */
static void silent_without_idleness(int workers)
{
    static run r;
    run_silent(&r, workers, 0, QUIET_AFTER);
    for (int i = 0; i < KEYED_P; i++) {
        cr_assert_geq(r.nwms[i], 2);
        for (int k = 0; k < r.nwms[i] - 1; k++)
            cr_assert_leq(r.wms[i][k].wm, QUIET_LAST_WM, "subtask %d: watermark %lld at %lld "
                          "passed the quiet subtask's last one (%d) without idleness", i,
                          (long long)r.wms[i][k].wm, (long long)r.wms[i][k].now, QUIET_LAST_WM);
        cr_assert_eq(r.wms[i][r.nwms[i] - 2].wm, QUIET_LAST_WM, "subtask %d: the watermark "
                     "stopped at %lld, below the quiet subtask's last one (%d)", i,
                     (long long)r.wms[i][r.nwms[i] - 2].wm, QUIET_LAST_WM);
        cr_assert_eq(r.wms[i][r.nwms[i] - 1].wm, WEIR_TS_MAX);
        /* MAX comes when the quiet subtask ends, a step after the others. */
        cr_assert_gt(r.wms[i][r.nwms[i] - 1].now, (RECORDS - 1) * STEP_MS);
    }
}

static void silent_with_idleness(int workers)
{
    static run r;
    run_silent(&r, workers, IDLENESS, QUIET_AFTER);
    /* The quiet subtask's last record is at 190. Its probes: 200 (saw
     * records: proposes 184), 250 quiet (countdown starts), 300, 350 (100,
     * not > 100), 400: idle. Until then its channel holds every valve at or
     * below its last watermark. */
    const int64_t idle_at = 400;
    /* The emitters' last record (990) ends them at once: MAX passes their
     * timestamps operators before the probe at 1000 would come. Their last
     * probe is at 950 and ran before the record of its own time (a step
     * fires the due timers first): it proposed 940 - B - 1. */
    const int64_t last_probe = (RECORDS - 1) * STEP_MS / INTERVAL * INTERVAL;
    const int64_t last_periodic = last_probe - STEP_MS - BOUND - 1;
    for (int i = 0; i < KEYED_P; i++) {
        cr_assert_geq(r.nwms[i], 10, "subtask %d saw only %d watermarks: it does not follow the "
                      "emitters", i, r.nwms[i]);
        bool passed = false;
        for (int k = 0; k < r.nwms[i] - 1; k++) {
            const wm_seen *w = &r.wms[i][k];
            if (w->now < idle_at) {
                cr_assert_leq(w->wm, QUIET_LAST_WM, "subtask %d: watermark %lld at %lld, above "
                              "the quiet subtask's before it went idle", i, (long long)w->wm,
                              (long long)w->now);
                continue;
            }
            passed |= w->wm > QUIET_LAST_WM;
            /* Never above what the emitters' records allow at that time,
             * never more than two probes and a step behind it. */
            cr_assert_leq(w->wm, w->now - BOUND - 1, "subtask %d: watermark %lld at %lld", i,
                          (long long)w->wm, (long long)w->now);
            cr_assert_geq(w->wm, w->now - 2 * INTERVAL - BOUND - 1 - STEP_MS,
                          "subtask %d: watermark %lld at %lld lags", i, (long long)w->wm,
                          (long long)w->now);
        }
        cr_assert(passed, "subtask %d: the watermark never passed the quiet subtask's last one "
                  "(%d) with idleness", i, QUIET_LAST_WM);
        /* The emitters' last periodic probes, then MAX: no final probe's
         * last timestamp - B - 1 (984) before it. */
        cr_assert_eq(r.wms[i][r.nwms[i] - 2].wm, last_periodic, "subtask %d: last watermark "
                     "before MAX is %lld, expected %lld", i,
                     (long long)r.wms[i][r.nwms[i] - 2].wm, (long long)last_periodic);
        cr_assert_eq(r.wms[i][r.nwms[i] - 1].wm, WEIR_TS_MAX);
        cr_assert_eq(r.max_ts[i] <= (RECORDS - 1) * STEP_MS, 1);
    }
}

Test(event_time_e2e, subtask_that_never_emits_holds_at_min_1_worker, .timeout = 120)
{
    never_emits_without_idleness(1);
}

Test(event_time_e2e, subtask_that_never_emits_holds_at_min_2_workers, .timeout = 120)
{
    never_emits_without_idleness(2);
}

Test(event_time_e2e, silent_subtask_holds_at_its_last_watermark_1_worker, .timeout = 120)
{
    silent_without_idleness(1);
}

Test(event_time_e2e, silent_subtask_holds_at_its_last_watermark_2_workers, .timeout = 120)
{
    silent_without_idleness(2);
}

Test(event_time_e2e, idleness_follows_the_others_1_worker, .timeout = 120)
{
    silent_with_idleness(1);
}

Test(event_time_e2e, idleness_follows_the_others_2_workers, .timeout = 120)
{
    silent_with_idleness(2);
}

/* ---- suite 2: sources that make their own event time ---------------------------- */

typedef enum act { A_REC, A_WM, A_IDLE, A_ACTIVE, A_END } act;

typedef struct step {
    int64_t at; /* processing time */
    act what;
    int64_t value;
} step;

/* Subtask 0 and 1's scripts. The derivation of what the operator behind
 * the rebalance sees (one valve over channels 0 and 1, SEMANTICS 3):
 *   10  ch0 rec 50 (passes at once); ch0 wm 100: min(100, MIN) -> nothing
 *   20  ch1 wm 50 -> wm 50
 *   30  ch1 idle: recompute {0: 100} -> wm 100
 *   40  ch0 wm 200 -> wm 200
 *   50  ch1 active at 50 < 200: unaligned; no ACTIVE (the output is active)
 *   55  ch1 wm 250 >= 200: aligned; min(200, 250) = 200 -> nothing
 *   60  ch0 wm 300: min(300, 250) -> wm 250
 *   65  ch0 idle: recompute {1: 250} -> nothing
 *   70  ch1 idle: none active: flush max 300 -> wm 300, then idle
 *   80  subtask 0 ends while its output is idle: its gate sends ACTIVE, then
 *       MAX. ch0 active: the output becomes active -> active; ch0 at 300
 *       >= 300: aligned, min 300 -> nothing. ch0 MAX: aligned {0: MAX}
 *       (ch1 is idle) -> wm MAX
 *   90  ch1 rec 10: a record after MAX still passes (SEMANTICS 5); its
 *       source's gate sends ACTIVE (active) and wm 400: the valve ignores
 *       neither, but 400 < MAX keeps ch1 unaligned -> nothing
 *  100  subtask 1 ends: MAX on ch1, not above MAX -> nothing */
static const step script0[] = {
    {10, A_REC, 50}, {10, A_WM, 100}, {40, A_WM, 200}, {60, A_WM, 300},
    {65, A_IDLE, 0}, {80, A_END, 0},
};
static const step script1[] = {
    {20, A_WM, 50},  {30, A_IDLE, 0}, {50, A_ACTIVE, 0}, {55, A_WM, 250}, {70, A_IDLE, 0},
    {90, A_REC, 10}, {90, A_ACTIVE, 0}, {90, A_WM, 400}, {100, A_END, 0},
};
static const char expected_log[] =
    "r50@10 w50@20 w100@30 w200@40 w250@60 w300@70 i@70 a@80 wMAX@80 r10@90";

typedef struct own_state {
    int pos;
} own_state;

static int own_open(weir_ctx *ctx)
{
    own_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    return 0;
}

static int own_next(weir_ctx *ctx)
{
    own_state *s = weir_ctx_state(ctx);
    const step *sc = weir_ctx_subtask(ctx) == 0 ? script0 : script1;
    int n = weir_ctx_subtask(ctx) == 0 ? (int)(sizeof script0 / sizeof script0[0])
                                       : (int)(sizeof script1 / sizeof script1[0]);
    int64_t now = weir_ctx_now(ctx);
    while (s->pos < n && sc[s->pos].at <= now) {
        const step *st = &sc[s->pos++];
        tu_check(st->at == now, "subtask %d: step at %lld ran at %lld", weir_ctx_subtask(ctx),
                 (long long)st->at, (long long)now);
        int r = 0;
        switch (st->what) {
        case A_REC:
            r = weir_emit(ctx, &st->value, st->value);
            break;
        case A_WM:
            r = weir_emit_watermark(ctx, st->value);
            break;
        case A_IDLE:
            r = weir_emit_idle(ctx);
            break;
        case A_ACTIVE:
            r = weir_emit_active(ctx);
            break;
        case A_END:
            return WEIR_SOURCE_END;
        }
        if (r < 0)
            return r;
    }
    tu_check(s->pos < n, "a script ran out without its end step");
    weir_source_wait_until(ctx, sc[s->pos].at);
    return WEIR_SOURCE_WAIT;
}

static const weir_source_vtable own_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1, .open = own_open, .next = own_next, .close = src_close};

/* The watching operator's log, in the harness_log words with a time on
 * records too ("r50@10"); only its one subtask writes it. */
typedef struct own_log {
    char text[1024];
    size_t len;
} own_log;

static void own_word(weir_ctx *ctx, char kind, int64_t value)
{
    own_log *l = weir_ctx_arg(ctx);
    char v[21], t[21], word[64];
    weir_ts_format(value, v);
    weir_ts_format(weir_ctx_now(ctx), t);
    if (kind == 'i' || kind == 'a')
        snprintf(word, sizeof word, "%c@%s", kind, t);
    else
        snprintf(word, sizeof word, "%c%s@%s", kind, v, t);
    size_t n = strlen(word);
    if (l->len + n + 2 >= sizeof l->text)
        return;
    if (l->len)
        l->text[l->len++] = ' ';
    memcpy(l->text + l->len, word, n + 1);
    l->len += n;
}

static int own_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)elem;
    own_word(ctx, 'r', ts);
    return 0;
}

static int own_watermark(weir_ctx *ctx, int64_t wm)
{
    own_word(ctx, 'w', wm);
    return 0;
}

static int own_status(weir_ctx *ctx, bool idle)
{
    own_word(ctx, idle ? 'i' : 'a', 0);
    return 0;
}

static const weir_operator_vtable own_watch_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = own_record,
    .on_watermark = own_watermark,
    .on_status = own_status,
};

static void own_event_time(int workers, bool disable_chaining)
{
    static own_log log;
    memset(&log, 0, sizeof log);
    weir_job *job = tu_job(&(weir_job_config){.workers = workers,
                                              .clock = WEIR_CLOCK_VIRTUAL,
                                              .disable_chaining = disable_chaining});
    weir_source_spec src = {.name = "own", .vtable = &own_vtable, .elem_size = 8,
                            .parallelism = 2};
    weir_process_spec watch = {.name = "watch", .vtable = &own_watch_vtable, .arg = &log,
                               .parallelism = 1};
    cr_assert_not_null(weir_stream_process(weir_job_add_source(job, &src), &watch));
    tu_run_ok(job);
    weir_job_destroy(job);
    cr_assert_str_eq(log.text, expected_log, "the operator saw\n  %s\nexpected\n  %s", log.text,
                     expected_log);
}

Test(event_time_e2e, source_watermarks_and_statuses_1_worker, .timeout = 120)
{
    own_event_time(1, false);
}

Test(event_time_e2e, source_watermarks_and_statuses_2_workers, .timeout = 120)
{
    own_event_time(2, false);
}

Test(event_time_e2e, source_watermarks_and_statuses_unchained, .timeout = 120)
{
    own_event_time(2, true);
}

/* The same sources chained straight into the watching operator (equal
 * parallelism, forward): no valve in between, so each subtask sees its own
 * source's gate output as it is (SEMANTICS 5: chained operators pass
 * watermarks and statuses by direct call). Subtask 0: wm 100, 200, 300,
 * idle, then at the end ACTIVE and MAX. */
typedef struct chained_logs {
    own_log per[2];
} chained_logs;

static void chained_word(weir_ctx *ctx, char kind, int64_t value)
{
    chained_logs *c = weir_ctx_arg(ctx);
    own_log *l = &c->per[weir_ctx_subtask(ctx)];
    char v[21], t[21], word[64];
    weir_ts_format(value, v);
    weir_ts_format(weir_ctx_now(ctx), t);
    if (kind == 'i' || kind == 'a')
        snprintf(word, sizeof word, "%c@%s", kind, t);
    else
        snprintf(word, sizeof word, "%c%s@%s", kind, v, t);
    size_t n = strlen(word);
    if (l->len + n + 2 >= sizeof l->text)
        return;
    if (l->len)
        l->text[l->len++] = ' ';
    memcpy(l->text + l->len, word, n + 1);
    l->len += n;
}

static int chained_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)elem;
    chained_word(ctx, 'r', ts);
    return 0;
}

static int chained_watermark(weir_ctx *ctx, int64_t wm)
{
    chained_word(ctx, 'w', wm);
    return 0;
}

static int chained_status(weir_ctx *ctx, bool idle)
{
    chained_word(ctx, idle ? 'i' : 'a', 0);
    return 0;
}

static const weir_operator_vtable chained_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = chained_record,
    .on_watermark = chained_watermark,
    .on_status = chained_status,
};

Test(event_time_e2e, source_gate_output_through_a_chain, .timeout = 120)
{
    static chained_logs logs;
    memset(&logs, 0, sizeof logs);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .clock = WEIR_CLOCK_VIRTUAL});
    weir_source_spec src = {.vtable = &own_vtable, .elem_size = 8, .parallelism = 2};
    weir_process_spec watch = {.vtable = &chained_vtable, .arg = &logs, .parallelism = 2};
    cr_assert_not_null(weir_stream_process(weir_job_add_source(job, &src), &watch));
    tu_run_ok(job);
    weir_job_destroy(job);
    cr_assert_str_eq(logs.per[0].text,
                     "r50@10 w100@10 w200@40 w300@60 i@65 a@80 wMAX@80");
    /* subtask 1: wm 50; idle; active; 250; idle; the record; ACTIVE and 400
     * (the gate sends ACTIVE once: the explicit one); MAX at its end */
    cr_assert_str_eq(logs.per[1].text,
                     "w50@20 i@30 a@50 w250@55 i@70 r10@90 a@90 w400@90 wMAX@100");
}
