/* scenario_channel.c — one channel hop: the raw speed of weir's SPSC
 * channel between two workers.
 *
 *   channel   source (p=1) -> rebalance -> sink (p=1), 2 workers: the source
 *             task and the sink task run on different threads, and every
 *             16-byte element is copied into a batch, handed over through the
 *             channel's ring and read back. No map or filter: the source
 *             generates (work.c's gen), the sink counts (work.c's sink), and
 *             both the count and the checksum are verified.
 *
 * Elements/s here is records/s: one element per record.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

static int run_channel(const bench_scenario *sc, const bench_params *p, bench_result *out,
                       char *err, size_t errsize)
{
    (void)sc;
    const bench_work *w = bench_work_get();
    weir_job *job = bench_job_create(p, 0, NULL, err, errsize);
    if (!job)
        return -1;
    bench_acc *acc = bench_acc_create(1);
    if (!acc) {
        weir_job_destroy(job);
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    weir_stream *s = bench_source_counting(job, p->records);
    s = weir_stream_rebalance(s);
    weir_sink_callback(s, w->sink, acc);
    int r = bench_job_time(job, out, err, errsize);
    /* No filter here: every generated element must arrive. */
    if (r == 0)
        r = bench_verify(acc, 1, p->records, BENCH_SHAPE_NONE, true, err, errsize);
    weir_job_destroy(job);
    free(acc);
    return r;
}

const bench_scenario bench_scenarios_channel[] = {
    {
        .name = "channel",
        .what = "one SPSC hop: source(p=1) -> rebalance -> sink(p=1) on 2 workers",
        .parallelism = 1,
        .workers = 2,
        .records = 100000000,
        .quick_records = 30000000,
        .run = run_channel,
        .targets = {{BENCH_TARGET_RATE, 100e6, 0, "channel hop >= 100 M elements/s"}},
    },
};

const size_t bench_nscenarios_channel =
    sizeof bench_scenarios_channel / sizeof bench_scenarios_channel[0];
