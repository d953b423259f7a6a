/* scenario_valve.c — what one watermark costs at a wide valve: one subtask
 * whose input has hundreds of channels (the consumer of a p x p shuffle).
 *
 *   valve-fanin-256   a 256-channel input
 *   valve-fanin-1024  a 1024-channel input
 *
 * The subtask is a harness (weir/harness.h): the real valve, combiner,
 * output gate and operator of a job's subtask, fed by direct calls instead
 * of channels, so the row measures the watermark path itself and not the
 * scheduler. Round w gives every channel in turn the watermark w, so the
 * valve's minimum moves once per round, when the last channel gets there;
 * the operator forwards, and the run checks that exactly one watermark per
 * round came out, the last one the number of rounds. Records/s here is
 * watermarks/s into the valve (records / channels rounds); bench/README.md
 * turns it into the cost of one watermark. One thread, no diagnostics (a
 * harness has none: at the standard level a job also asks the valve which
 * channel holds the minimum back, once per changed channel).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

typedef struct wm_seen {
    int64_t calls, last;
} wm_seen;

static int seen_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)elem;
    (void)ts;
    return weir_ctx_fail(ctx, WEIR_EINTERNAL, "the valve scenario feeds no records");
}

static const weir_operator_vtable seen_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = seen_record,
};

static void seen_watermark(int64_t wm, void *arg)
{
    wm_seen *seen = arg;
    seen->calls++;
    seen->last = wm;
}

static int run_fanin(const bench_scenario *sc, const bench_params *p, bench_result *out,
                     char *err, size_t errsize)
{
    (void)sc;
    const int channels = p->parallelism;
    const int64_t rounds = p->records / channels;
    if (rounds < 1) {
        snprintf(err, errsize, "%lld watermarks over %d channels: fewer than one each",
                 (long long)p->records, channels);
        return -1;
    }
    wm_seen seen = {0};
    weir_process_spec op = {.name = "valve", .vtable = &seen_vt};
    weir_harness_config cfg = {.op = &op,
                               .channels = {channels},
                               .in_size = {sizeof(bench_elem)},
                               .watermark_interval_ms = WEIR_DISABLED,
                               .output = {.on_watermark = seen_watermark, .arg = &seen}};
    weir_harness *h = NULL;
    if (weir_harness_create(&cfg, &h, err, errsize) < 0)
        return -1;
    bench_timer t;
    bench_timer_start(&t);
    int r = 0;
    for (int64_t w = 1; w <= rounds && r == 0; w++) {
        for (int c = 0; c < channels && r == 0; c++)
            r = weir_harness_watermark(h, 0, c, w);
    }
    bench_timer_stop(&t, out);
    out->workers = 1;
    if (r < 0)
        snprintf(err, errsize, "weir_harness_watermark: %s", weir_harness_last_error(h));
    else if (seen.last != rounds || seen.calls != rounds) {
        snprintf(err, errsize, "the valve let %lld watermarks through, the last %lld; expected "
                 "%lld, one a round", (long long)seen.calls, (long long)seen.last,
                 (long long)rounds);
        r = -1;
    }
    weir_harness_destroy(h);
    return r < 0 ? -1 : 0;
}

const bench_scenario bench_scenarios_valve[] = {
    {
        .name = "valve-fanin-256",
        .what = "watermarks round-robin into one subtask's 256-channel valve (a harness)",
        .parallelism = 256,
        .workers = 1,
        .records = 20000000,
        .quick_records = 4000000,
        .run = run_fanin,
    },
    {
        .name = "valve-fanin-1024",
        .what = "watermarks round-robin into one subtask's 1024-channel valve (a harness)",
        .parallelism = 1024,
        .workers = 1,
        .records = 20000000,
        .quick_records = 4000000,
        .run = run_fanin,
    },
};

const size_t bench_nscenarios_valve = sizeof bench_scenarios_valve / sizeof bench_scenarios_valve[0];
