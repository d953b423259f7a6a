/* scenario_eventtime.c — what event time and the diagnostic channel cost:
 * chain's pipeline with one thing added, against chain itself measured in
 * the same invocation.
 *
 *   watermarks     source -> assign_timestamps (bounded out-of-orderness
 *                  100 ms, the records' own timestamps, the job's default
 *                  200 ms probe interval) -> map -> filter -> sink, chained.
 *                  Target: within 5% of chain (no watermarks).
 *   diag-standard  chain with the diagnostic channel at its default level,
 *                  standard, into a callback sink that counts events (so
 *                  the cost is the channel's, not a file's). Target: within
 *                  5% of chain (diagnostics off). A run where no event
 *                  reached the callback fails: then nothing was measured.
 *
 * Timestamps are the sequence numbers (ms), so the watermark advances by
 * about (records/s x 0.2 s) ms at every probe.
 */
#include "bench.h"

enum { ADD_WATERMARKS = 0, ADD_DIAG_STANDARD = 1 };

static int run_added(const bench_scenario *sc, const bench_params *p, bench_result *out,
                     char *err, size_t errsize)
{
    bench_pipeline pl = {0};
    if (sc->arg == ADD_WATERMARKS) {
        pl.timestamps = true;
        pl.strategy = weir_watermarks_bounded(100);
    } else {
        pl.diag = WEIR_DIAG_STANDARD;
    }
    return bench_run_pipeline(&pl, p, out, err, errsize);
}

const bench_scenario bench_scenarios_eventtime[] = {
    {
        .name = "watermarks",
        .what = "chain with assign_timestamps (bounded 100 ms) after the source",
        .baseline = "chain",
        .records = 20000000,
        .quick_records = 8000000,
        .arg = ADD_WATERMARKS,
        .run = run_added,
        .targets = {{BENCH_TARGET_RATIO, 0.95, 0, "watermarks within 5% of none (chain)"}},
    },
    {
        .name = "diag-standard",
        .what = "chain with the diagnostic channel at standard, into a counting callback",
        .baseline = "chain",
        .records = 20000000,
        .quick_records = 8000000,
        .arg = ADD_DIAG_STANDARD,
        .run = run_added,
        .targets = {{BENCH_TARGET_RATIO, 0.95, 0, "diag standard within 5% of off (chain)"}},
    },
};

const size_t bench_nscenarios_eventtime =
    sizeof bench_scenarios_eventtime / sizeof bench_scenarios_eventtime[0];
