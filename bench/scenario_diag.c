/* scenario_diag.c — what the diagnostic channel costs, at each level, for
 * chain, shuffle and window-tumbling.
 *
 *   diag-PIPE-off       the pipeline with a JSONL capture configured and the
 *                       level WEIR_DIAG_OFF: nothing is recorded (and no
 *                       file written). Baseline: PIPE itself (chain,
 *                       shuffle, window-tumbling), which configures no
 *                       capture at all, so its ratio is the noise.
 *   diag-PIPE-summary   WEIR_DIAG_SUMMARY: the job and summary events only.
 *                       Baseline: diag-PIPE-off. Target: within 2%.
 *   diag-PIPE-standard  WEIR_DIAG_STANDARD (the default level): watermarks,
 *                       throughput, window firings, ... Baseline:
 *                       diag-PIPE-off. Target: within 5%.
 *
 * The capture goes where a user would send it: a JSONL file
 * ($TMPDIR/weir-bench-PID.jsonl, counted and removed after each run; a
 * run whose capture is missing fails). The three levels of a pipeline are
 * adjacent in the table, so each round measures them one right after the
 * other.
 */
#include "bench.h"

enum { PIPE_CHAIN = 0, PIPE_SHUFFLE, PIPE_WINDOW };

#define DIAG_ARG(pipe, level) ((int64_t)(pipe) * 16 + (level))

static int run_diag(const bench_scenario *sc, const bench_params *p, bench_result *out, char *err,
                    size_t errsize)
{
    int pipe = (int)(sc->arg / 16);
    weir_diag_level level = (weir_diag_level)(sc->arg % 16);
    if (pipe == PIPE_WINDOW)
        return bench_run_window(BENCH_WINDOW_TUMBLING, level, p, out, err, errsize);
    bench_pipeline pl = {.shuffle = pipe == PIPE_SHUFFLE, .diag = level};
    return bench_run_pipeline(&pl, p, out, err, errsize);
}

#define DIAG_ROWS(PIPE, BASE, ENUM, RECORDS, QUICK)                                              \
    {                                                                                            \
        .name = "diag-" PIPE "-off",                                                             \
        .what = BASE " with a JSONL capture at level off",                                       \
        .baseline = BASE,                                                                        \
        .records = RECORDS,                                                                      \
        .quick_records = QUICK,                                                                  \
        .arg = DIAG_ARG(ENUM, WEIR_DIAG_OFF),                                                    \
        .flags = BENCH_NO_PLOT,                                                                  \
        .run = run_diag,                                                                         \
    },                                                                                           \
    {                                                                                            \
        .name = "diag-" PIPE "-summary",                                                         \
        .what = BASE " with a JSONL capture at level summary",                                   \
        .baseline = "diag-" PIPE "-off",                                                         \
        .records = RECORDS,                                                                      \
        .quick_records = QUICK,                                                                  \
        .arg = DIAG_ARG(ENUM, WEIR_DIAG_SUMMARY),                                                \
        .flags = BENCH_NO_PLOT,                                                                  \
        .run = run_diag,                                                                         \
        .targets = {{BENCH_TARGET_RATIO, 0.98, 0, "diag summary within 2% of off (" PIPE ")"}},  \
    },                                                                                           \
    {                                                                                            \
        .name = "diag-" PIPE "-standard",                                                        \
        .what = BASE " with a JSONL capture at level standard",                                  \
        .baseline = "diag-" PIPE "-off",                                                         \
        .records = RECORDS,                                                                      \
        .quick_records = QUICK,                                                                  \
        .arg = DIAG_ARG(ENUM, WEIR_DIAG_STANDARD),                                               \
        .flags = BENCH_NO_PLOT,                                                                  \
        .run = run_diag,                                                                         \
        .targets = {{BENCH_TARGET_RATIO, 0.95, 0, "diag standard within 5% of off (" PIPE ")"}}, \
    }

const bench_scenario bench_scenarios_diag[] = {
    DIAG_ROWS("chain", "chain", PIPE_CHAIN, 20000000, 8000000),
    DIAG_ROWS("shuffle", "shuffle", PIPE_SHUFFLE, 10000000, 4000000),
    DIAG_ROWS("window", "window-tumbling", PIPE_WINDOW, 20000000, 4000000),
};

const size_t bench_nscenarios_diag = sizeof bench_scenarios_diag / sizeof bench_scenarios_diag[0];
