/* scenario_latency.c — end-to-end latency at a fixed, moderate rate.
 *
 * The paced source emits records at --rate records/s (default 100 000) and
 * stamps each with its CLOCK_MONOTONIC emit time; the sink takes
 * CLOCK_MONOTONIC again and keeps the difference. The pipelines are chain's
 * and shuffle's shapes with a map that copies the element (so the stamp
 * survives) and the same filter; the job's buffer timeout is the variable:
 *
 *   latency-chain-*     source -> map -> filter -> sink, chained: no channel,
 *                       so the buffer timeout should not matter (a control).
 *   latency-shuffle-*   key_by between every operator: three channel hops,
 *                       each waiting for its batch to fill or to time out.
 *   *-at-once           buffer_timeout_ms = WEIR_FLUSH_AT_ONCE (flush at the
 *                       end of every step), *-1ms, *-10ms: that timeout.
 *
 * A scenario's `arg` is its buffer timeout (report.c prints it). The count
 * of records is verified; the checksum is not (values are times).
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
    lane *lanes;
    int64_t cap;
    weir_sink_fn count;
} latency_sink;

static int sink_latency(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    latency_sink *ls = arg;
    int64_t now = bench_now_ns();
    lane *l = &ls->lanes[subtask];
    if (l->n < ls->cap)
        l->samples[l->n++] = now - ((const bench_elem *)elem)->value;
    return ls->count(elem, timestamp, subtask, ls->acc);
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
}

static int run_latency(const bench_scenario *sc, const bench_params *p, bench_result *out,
                       char *err, size_t errsize, bool shuffle)
{
    const bench_work *w = bench_work_get();
    const int n = p->parallelism;
    latency_sink ls = {.cap = p->records < LANE_MAX ? p->records : LANE_MAX, .count = w->sink};
    ls.acc = bench_acc_create(n);
    ls.lanes = aligned_alloc(_Alignof(lane), (size_t)n * sizeof(lane));
    bool ok = ls.acc && ls.lanes;
    if (ls.lanes) {
        memset(ls.lanes, 0, (size_t)n * sizeof(lane));
        /* Allocated and touched before the run, so no page fault lands in a
         * measured latency. */
        for (int i = 0; ok && i < n; i++) {
            ls.lanes[i].samples = malloc((size_t)(ls.cap > 0 ? ls.cap : 1) * sizeof(int64_t));
            ok = ls.lanes[i].samples != NULL;
            if (ok)
                memset(ls.lanes[i].samples, 0, (size_t)ls.cap * sizeof(int64_t));
        }
    }
    weir_job *job = ok ? bench_job_create(p, sc->arg, NULL, err, errsize) : NULL;
    if (!job) {
        if (!ok)
            snprintf(err, errsize, "out of memory");
        free_sink(&ls, n);
        return -1;
    }
    weir_stream *s = bench_source_paced(job, p->records, p->rate);
    if (shuffle)
        s = weir_stream_key_by(s, bench_key_spec());
    s = weir_stream_map(s, sizeof(bench_elem), w->map_copy, NULL);
    if (shuffle)
        s = weir_stream_key_by(s, bench_key_spec());
    s = weir_stream_filter(s, w->filter, NULL);
    if (shuffle)
        s = weir_stream_key_by(s, bench_key_spec());
    weir_sink_callback(s, sink_latency, &ls);
    int r = bench_job_time(job, out, err, errsize);
    if (r == 0)
        r = bench_verify(ls.acc, n, p->records, BENCH_SHAPE_COPY_FILTER, false, err, errsize);
    weir_job_destroy(job);
    if (r == 0) {
        int64_t total = 0;
        for (int i = 0; i < n; i++)
            total += ls.lanes[i].n;
        int64_t *all = malloc((size_t)(total > 0 ? total : 1) * sizeof *all);
        if (!all) {
            snprintf(err, errsize, "out of memory");
            r = -1;
        } else if (total == 0) {
            snprintf(err, errsize, "no record reached the sink");
            r = -1;
        } else {
            int64_t k = 0;
            for (int i = 0; i < n; i++) {
                memcpy(all + k, ls.lanes[i].samples, (size_t)ls.lanes[i].n * sizeof *all);
                k += ls.lanes[i].n;
            }
            qsort(all, (size_t)total, sizeof *all, cmp_i64);
            out->has_latency = true;
            out->p50_us = percentile_us(all, total, 0.50);
            out->p99_us = percentile_us(all, total, 0.99);
            out->max_us = (double)all[total - 1] / 1e3;
        }
        free(all);
    }
    free_sink(&ls, n);
    return r;
}

static int run_chain(const bench_scenario *sc, const bench_params *p, bench_result *out,
                     char *err, size_t errsize)
{
    return run_latency(sc, p, out, err, errsize, false);
}

static int run_shuffle(const bench_scenario *sc, const bench_params *p, bench_result *out,
                       char *err, size_t errsize)
{
    return run_latency(sc, p, out, err, errsize, true);
}

/* At the default 100 000 records/s, 100 000 records is one second a run. */
#define LATENCY(NAME, WHAT, RUN, TIMEOUT)                                                        \
    {                                                                                            \
        .name = NAME, .what = WHAT, .flags = BENCH_LATENCY, .records = 100000,                   \
        .quick_records = 20000, .arg = TIMEOUT, .run = RUN,                                      \
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
};

const size_t bench_nscenarios_latency =
    sizeof bench_scenarios_latency / sizeof bench_scenarios_latency[0];
