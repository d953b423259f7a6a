/* scenario_eventtime.c — what event time costs: chain's and shuffle's
 * pipelines with a timestamp assigner added right after the source, against
 * the same pipeline without one, measured in the same invocation.
 *
 *   watermarks-chain    source -> assign_timestamps -> map -> filter -> sink,
 *                       chained. Baseline: chain.
 *   watermarks-shuffle  source -> assign_timestamps -> key_by -> map ->
 *                       key_by -> filter -> key_by -> sink. Baseline:
 *                       shuffle.
 *
 * The assigner: bounded out-of-orderness 100 ms, the records' own
 * timestamps (no extractor), a probe every 200 ms of processing time.
 * Target: within 5% of none. The counting source's timestamps are the
 * sequence numbers (ms), ascending, so every probe moves the watermark by
 * about (records/s x 0.2 s) ms and nothing is ever late.
 */
#include "bench.h"

static int run_watermarks(const bench_scenario *sc, const bench_params *p, bench_result *out,
                          char *err, size_t errsize)
{
    bench_pipeline pl = {.shuffle = sc->arg != 0,
                         .timestamps = true,
                         .strategy = weir_watermarks_bounded(100)};
    pl.strategy.interval_ms = 200;
    return bench_run_pipeline(&pl, p, out, err, errsize);
}

const bench_scenario bench_scenarios_eventtime[] = {
    {
        .name = "watermarks-chain",
        .what = "chain with assign_timestamps (bounded 100 ms, 200 ms probes) after the source",
        .baseline = "chain",
        .records = 20000000,
        .quick_records = 8000000,
        .arg = 0,
        .run = run_watermarks,
        .targets = {{BENCH_TARGET_RATIO, 0.95, 0, "watermarks within 5% of none (chain)"}},
    },
    {
        .name = "watermarks-shuffle",
        .what = "shuffle with assign_timestamps (bounded 100 ms, 200 ms probes) after the source",
        .baseline = "shuffle",
        .records = 10000000,
        .quick_records = 4000000,
        .arg = 1,
        .run = run_watermarks,
        .targets = {{BENCH_TARGET_RATIO, 0.95, 0, "watermarks within 5% of none (shuffle)"}},
    },
};

const size_t bench_nscenarios_eventtime =
    sizeof bench_scenarios_eventtime / sizeof bench_scenarios_eventtime[0];
