/* scenario_chain.c — the chained pipeline, the same pipeline with a shuffle
 * between every operator, and their plain-C baseline.
 *
 *   plain-chain  for s in 0..N-1: gen(s) -> map -> filter -> sink, one
 *                thread, no runtime: the cost of the work itself.
 *   chain        source -> map -> filter -> sink, all chained into one task
 *                (plain calls, no channel), parallelism p.
 *   rebalance    source -> map -> rebalance -> filter -> sink: two tasks,
 *                every record crosses one channel (round-robin over the
 *                filter's subtasks); parallelism p.
 *   shuffle      source -> key_by -> map -> key_by -> filter -> key_by ->
 *                sink: four tasks, every edge a hash partitioning, so every
 *                record crosses three channels; parallelism p.
 *
 * All three call the same gen, map, filter and sink functions through the
 * same pointers (work.c), and all three are checked against the same
 * expected count and checksum.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

enum { SHAPE_CHAIN = 0, SHAPE_SHUFFLE = 1, SHAPE_REBALANCE = 2 };

static int run_plain(const bench_scenario *sc, const bench_params *p, bench_result *out,
                     char *err, size_t errsize)
{
    (void)sc;
    const bench_work *w = bench_work_get();
    bench_acc *acc = bench_acc_create(1);
    if (!acc) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    bench_elem e, m;
    int r = 0;
    bench_timer t;
    bench_timer_start(&t);
    for (int64_t s = 0; s < p->records && r >= 0; s++) {
        w->gen(s, &e);
        r = w->map(&e, &m, NULL);
        if (r < 0)
            break;
        r = w->filter(&m, NULL);
        if (r > 0)
            r = w->sink(&m, s, 0, acc);
    }
    bench_timer_stop(&t, out);
    out->workers = 0;
    if (r < 0) {
        snprintf(err, errsize, "a work function failed: %s", weir_strerror(r));
        free(acc);
        return -1;
    }
    r = bench_verify(acc, 1, p->records, BENCH_SHAPE_MAP_FILTER, true, err, errsize);
    free(acc);
    return r;
}

static int run_pipeline(const bench_scenario *sc, const bench_params *p, bench_result *out,
                        char *err, size_t errsize)
{
    bench_pipeline pl = {.shuffle = sc->arg == SHAPE_SHUFFLE,
                         .rebalance = sc->arg == SHAPE_REBALANCE};
    return bench_run_pipeline(&pl, p, out, err, errsize);
}

const bench_scenario bench_scenarios_chain[] = {
    {
        .name = "plain-chain",
        .what = "baseline: gen -> map -> filter -> sink as a plain C loop, no runtime",
        .flags = BENCH_PLAIN,
        .parallelism = 1,
        .records = 100000000,
        .quick_records = 30000000,
        .run = run_plain,
    },
    {
        .name = "chain",
        .what = "source -> map -> filter -> sink, chained into one task",
        .baseline = "plain-chain",
        .records = 20000000,
        .quick_records = 8000000,
        .arg = SHAPE_CHAIN,
        .run = run_pipeline,
        .targets = {{BENCH_TARGET_RATIO, 0.25, 1, "chain >= 25% of plain-chain at p=1"}},
    },
    {
        .name = "rebalance",
        .what = "source -> map -> rebalance -> filter -> sink: 2 tasks, one channel hop",
        .baseline = "plain-chain",
        .records = 20000000,
        .quick_records = 8000000,
        .arg = SHAPE_REBALANCE,
        .run = run_pipeline,
        .targets = {{BENCH_TARGET_RATIO, 0.3, 1, "rebalance >= 30% of plain-chain at p=1"}},
    },
    {
        .name = "shuffle",
        .what = "source -> key_by -> map -> key_by -> filter -> key_by -> sink: 4 tasks",
        .baseline = "plain-chain",
        .records = 10000000,
        .quick_records = 4000000,
        .arg = SHAPE_SHUFFLE,
        .run = run_pipeline,
    },
};

const size_t bench_nscenarios_chain = sizeof bench_scenarios_chain / sizeof bench_scenarios_chain[0];
