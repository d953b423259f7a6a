/* scenario_latency.c — end-to-end latency at a fixed, moderate rate, and at
 * 50% and 90% of the peak of the same pipeline.
 *
 * The paced source emits records at --rate records/s (default 100 000), or
 * at a load row's fraction of its baseline's median (main.c), and stamps
 * records with their CLOCK_MONOTONIC emit time (every record at the --rate
 * pace, one in sample_every() at a load); the sink takes CLOCK_MONOTONIC
 * again for a stamped record and keeps the difference. The pipelines are
 * chain's and shuffle's shapes with a map that copies the element (so the
 * stamp survives) and the same filter; the job's buffer timeout is the
 * variable:
 *
 *   latency-chain-*     source -> map -> filter -> sink, chained: no channel,
 *                       so the buffer timeout should not matter (a control).
 *   latency-shuffle-*   key_by between every operator: three channel hops,
 *                       each waiting for its batch to fill or to time out.
 *   *-at-once           buffer_timeout_ms = WEIR_FLUSH_AT_ONCE (flush at the
 *                       end of every step), *-1ms, *-10ms: that timeout.
 *   latency-chain-load50, -load90 (and -at-once): the chain at 50% / 90% of
 *                       `chain`'s median at the same parallelism, the buffer
 *                       timeout at the engine's default or flushing at once.
 *   latency-window-load50, -load90 (and -at-once): window-tumbling's pipeline
 *                       fed by the paced event-time source (bench.h), at 50%
 *                       / 90% of `window-tumbling`'s median. A window
 *                       result's latency is from the earliest moment the
 *                       watermark could pass its end (the record due at end
 *                       + the 100 ms bound emitted) to the sink: the wait
 *                       for the next periodic watermark (200 ms) is part of
 *                       it, as it is in a user's pipeline. Results fired by
 *                       the end of input, before that moment, are left out.
 *
 * A scenario's `arg` is its buffer timeout (report.c prints it). The count
 * of records is verified (for windows: the counts add up to the records);
 * the checksum is not (values are times).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Samples kept per sink subtask; a run with more records than this computes
 * its percentiles over each subtask's first LANE_MAX records. */
#define LANE_MAX (4 << 20)

typedef struct lane {
    _Alignas(64) int64_t n;
    int64_t *samples;
} lane;

typedef struct latency_sink {
    bench_acc *acc;
    bench_wacc *wacc; /* window rows */
    lane *lanes;
    int64_t cap;
    weir_sink_fn count;
    _Atomic int64_t start_ns; /* window rows: the paced events' start */
} latency_sink;

static void keep(latency_sink *ls, int subtask, int64_t latency_ns)
{
    lane *l = &ls->lanes[subtask];
    if (l->n < ls->cap)
        l->samples[l->n++] = latency_ns;
}

static int sink_latency(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    latency_sink *ls = arg;
    int64_t stamp = ((const bench_elem *)elem)->value;
    if (bench_stamped(stamp))
        keep(ls, subtask, bench_now_ns() - stamp);
    return ls->count(elem, timestamp, subtask, ls->acc);
}

/* A window result (its timestamp is the window's max, end - 1). */
static int sink_window_latency(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    latency_sink *ls = arg;
    int64_t ready = atomic_load_explicit(&ls->start_ns, memory_order_relaxed) +
                    (timestamp + 1 + BENCH_EVENT_DISORDER_MS) * 1000000;
    int64_t now = bench_now_ns();
    if (now >= ready)
        keep(ls, subtask, now - ready);
    return ls->count(elem, timestamp, subtask, ls->wacc);
}

/* One record in this many is stamped: all up to a lane's worth, then the
 * power of two that keeps the samples within one lane. */
static int64_t sample_every(int64_t records)
{
    int64_t k = 1;
    while (records / k > LANE_MAX)
        k *= 2;
    return k;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v[0..n-1], in microseconds. */
static double percentile_us(const int64_t *v, int64_t n, double q)
{
    int64_t i = (int64_t)ceil(q * (double)n) - 1;
    if (i < 0)
        i = 0;
    if (i >= n)
        i = n - 1;
    return (double)v[i] / 1e3;
}

static void free_sink(latency_sink *ls, int n)
{
    if (ls->lanes) {
        for (int i = 0; i < n; i++)
            free(ls->lanes[i].samples);
    }
    free(ls->lanes);
    free(ls->acc);
    free(ls->wacc);
}

/* The sink's lanes, allocated and touched before the run so that no page
 * fault lands in a measured latency, and its accumulators. */
static bool make_sink(latency_sink *ls, int n, int64_t cap)
{
    const bench_work *w = bench_work_get();
    *ls = (latency_sink){.cap = cap, .count = w->sink};
    ls->acc = bench_acc_create(n);
    ls->wacc = bench_wacc_create(n);
    ls->lanes = aligned_alloc(_Alignof(lane), (size_t)n * sizeof(lane));
    if (!ls->acc || !ls->wacc || !ls->lanes)
        return false;
    memset(ls->lanes, 0, (size_t)n * sizeof(lane));
    for (int i = 0; i < n; i++) {
        ls->lanes[i].samples = malloc((size_t)(cap > 0 ? cap : 1) * sizeof(int64_t));
        if (!ls->lanes[i].samples)
            return false;
        memset(ls->lanes[i].samples, 0, (size_t)cap * sizeof(int64_t));
    }
    return true;
}

/* p50, p99 and max over every lane's samples into out. */
static int percentiles(const latency_sink *ls, int n, bench_result *out, char *err,
                       size_t errsize)
{
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        total += ls->lanes[i].n;
    if (total == 0) {
        snprintf(err, errsize, "no latency sample reached the sink");
        return -1;
    }
    int64_t *all = malloc((size_t)total * sizeof *all);
    if (!all) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        memcpy(all + k, ls->lanes[i].samples, (size_t)ls->lanes[i].n * sizeof *all);
        k += ls->lanes[i].n;
    }
    qsort(all, (size_t)total, sizeof *all, cmp_i64);
    out->has_latency = true;
    out->p50_us = percentile_us(all, total, 0.50);
    out->p99_us = percentile_us(all, total, 0.99);
    out->max_us = (double)all[total - 1] / 1e3;
    free(all);
    return 0;
}

enum { SHAPE_CHAIN, SHAPE_SHUFFLE, SHAPE_WINDOW };

/* window-tumbling's pipeline (scenario_window.c) behind the paced events. */
static void build_window(weir_job *job, const bench_params *p, latency_sink *ls)
{
    ls->count = bench_work_get()->sink_window;
    weir_stream *s = bench_source_paced_events(job, p->records, p->rate, &ls->start_ns);
    weir_sink_callback(bench_window_stages(s, BENCH_WINDOW_TUMBLING), sink_window_latency, ls);
}

static void build_chain(weir_job *job, const bench_params *p, latency_sink *ls, bool shuffle)
{
    const bench_work *w = bench_work_get();
    weir_stream *s = bench_source_paced(job, p->records, p->rate, sample_every(p->records));
    if (shuffle)
        s = weir_stream_key_by(s, bench_key_spec());
    s = weir_stream_map(s, sizeof(bench_elem), w->map_copy, NULL);
    if (shuffle)
        s = weir_stream_key_by(s, bench_key_spec());
    s = weir_stream_filter(s, w->filter, NULL);
    if (shuffle)
        s = weir_stream_key_by(s, bench_key_spec());
    weir_sink_callback(s, sink_latency, ls);
}

/* Every record counted once in a window result. */
static int verify_windows(const latency_sink *ls, int n, int64_t records, char *err,
                          size_t errsize)
{
    uint64_t results = 0, counts = 0;
    for (int i = 0; i < n; i++) {
        results += ls->wacc[i].results;
        counts += ls->wacc[i].counts;
    }
    if (counts == (uint64_t)records && results > 0)
        return 0;
    snprintf(err, errsize, "window results count %llu records in %llu windows, expected %lld",
             (unsigned long long)counts, (unsigned long long)results, (long long)records);
    return -1;
}

static int run_latency(const bench_scenario *sc, const bench_params *p, bench_result *out,
                       char *err, size_t errsize, int shape)
{
    const int n = p->parallelism;
    latency_sink ls;
    bool ok = make_sink(&ls, n, p->records < LANE_MAX ? p->records : LANE_MAX);
    weir_job *job = ok ? bench_job_create(p, sc->arg, NULL, err, errsize) : NULL;
    if (!job) {
        if (!ok)
            snprintf(err, errsize, "out of memory");
        free_sink(&ls, n);
        return -1;
    }
    if (shape == SHAPE_WINDOW)
        build_window(job, p, &ls);
    else
        build_chain(job, p, &ls, shape == SHAPE_SHUFFLE);
    int r = bench_job_time(job, out, err, errsize);
    if (r == 0)
        r = shape == SHAPE_WINDOW
                ? verify_windows(&ls, n, p->records, err, errsize)
                : bench_verify(ls.acc, n, p->records, BENCH_SHAPE_COPY_FILTER, false, err, errsize);
    weir_job_destroy(job);
    if (r == 0)
        r = percentiles(&ls, n, out, err, errsize);
    free_sink(&ls, n);
    return r;
}

static int run_chain(const bench_scenario *sc, const bench_params *p, bench_result *out,
                     char *err, size_t errsize)
{
    return run_latency(sc, p, out, err, errsize, SHAPE_CHAIN);
}

static int run_shuffle(const bench_scenario *sc, const bench_params *p, bench_result *out,
                       char *err, size_t errsize)
{
    return run_latency(sc, p, out, err, errsize, SHAPE_SHUFFLE);
}

static int run_window(const bench_scenario *sc, const bench_params *p, bench_result *out,
                      char *err, size_t errsize)
{
    return run_latency(sc, p, out, err, errsize, SHAPE_WINDOW);
}

/* At the default 100 000 records/s, 100 000 records is one second a run. */
#define LATENCY(NAME, WHAT, RUN, TIMEOUT)                                                        \
    {                                                                                            \
        .name = NAME, .what = WHAT, .flags = BENCH_LATENCY, .records = 100000,                   \
        .quick_records = 20000, .arg = TIMEOUT, .run = RUN,                                      \
    }

/* At a load of a baseline's peak: records follow from the pace (main.c). */
#define LOAD(NAME, WHAT, PEAK, RUN, LOAD_, TIMEOUT)                                              \
    {                                                                                            \
        .name = NAME, .what = WHAT, .baseline = PEAK, .flags = BENCH_LATENCY, .load = LOAD_,     \
        .arg = TIMEOUT, .run = RUN,                                                              \
    }

const bench_scenario bench_scenarios_latency[] = {
    LATENCY("latency-chain-at-once", "paced chain, buffer timeout: flush at once", run_chain,
            WEIR_FLUSH_AT_ONCE),
    LATENCY("latency-chain-1ms", "paced chain, buffer timeout 1 ms", run_chain, 1),
    LATENCY("latency-chain-10ms", "paced chain, buffer timeout 10 ms", run_chain, 10),
    LATENCY("latency-shuffle-at-once", "paced shuffle (3 hops), buffer timeout: flush at once",
            run_shuffle, WEIR_FLUSH_AT_ONCE),
    LATENCY("latency-shuffle-1ms", "paced shuffle (3 hops), buffer timeout 1 ms", run_shuffle, 1),
    LATENCY("latency-shuffle-10ms", "paced shuffle (3 hops), buffer timeout 10 ms", run_shuffle,
            10),
    LOAD("latency-chain-load50", "chain at 50% of chain's peak, default buffer timeout", "chain",
         run_chain, 0.5, 0),
    LOAD("latency-chain-load90", "chain at 90% of chain's peak, default buffer timeout", "chain",
         run_chain, 0.9, 0),
    LOAD("latency-chain-load50-at-once", "chain at 50% of chain's peak, flush at once", "chain",
         run_chain, 0.5, WEIR_FLUSH_AT_ONCE),
    LOAD("latency-chain-load90-at-once", "chain at 90% of chain's peak, flush at once", "chain",
         run_chain, 0.9, WEIR_FLUSH_AT_ONCE),
    LOAD("latency-window-load50", "window-tumbling at 50% of its peak, default buffer timeout",
         "window-tumbling", run_window, 0.5, 0),
    LOAD("latency-window-load90", "window-tumbling at 90% of its peak, default buffer timeout",
         "window-tumbling", run_window, 0.9, 0),
    LOAD("latency-window-load50-at-once", "window-tumbling at 50% of its peak, flush at once",
         "window-tumbling", run_window, 0.5, WEIR_FLUSH_AT_ONCE),
    LOAD("latency-window-load90-at-once", "window-tumbling at 90% of its peak, flush at once",
         "window-tumbling", run_window, 0.9, WEIR_FLUSH_AT_ONCE),
};

const size_t bench_nscenarios_latency =
    sizeof bench_scenarios_latency / sizeof bench_scenarios_latency[0];
