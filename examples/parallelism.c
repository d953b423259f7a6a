/* parallelism.c — three source subtasks, three independent watermarks.
 *
 * Concept: with parallelism 3, the generator runs as 3 subtasks (one
 * partition each), and a timestamps operator of parallelism 3 after it is
 * chained to it over forward edges: subtask i of the source feeds subtask i
 * of the timestamps operator by a plain call, no shuffle, no channel. So each
 * subtask makes its own watermark from its own partition's events, and
 * nothing merges them: there are three independent watermark lines. Only an
 * operator behind a shuffle (key_by, rebalance) sees all three through one
 * valve, and its watermark is their minimum. A process operator chained after
 * the timestamps operator taps each subtask's watermark with its processing
 * time; the run is paced on the virtual clock (processing ms = event ms), so
 * the table it prints is the same every time (each subtask's line depends on
 * its own partition only, not on how the 2 workers interleave the 3
 * subtasks). It also writes parallelism.jsonl.
 *
 * What to look for: at each probe (every 200 ms) the three subtasks'
 * watermarks differ — each is its own partition's largest timestamp so far
 * minus 801 ms, and the partitions' random disorder differs — and the last
 * column, the minimum, is what a key_by downstream would see: always held
 * back by whichever partition is slowest at that moment (marked *).
 *
 * Run: ./build/release/examples/parallelism
 */
#include <inttypes.h>
#include <stdio.h>

#include <weir.h>

enum { P = 3, MAX_MARKS = 64 };

/* One row per subtask; each subtask writes only its own row (from its own
 * worker thread), and main reads them after weir_job_run joined the workers. */
typedef struct tap {
    int64_t t[MAX_MARKS];
    int64_t wm[MAX_MARKS];
    int n;
} tap;

static int tap_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)ctx;
    (void)input;
    (void)elem;
    (void)ts;
    return 0;
}

static int tap_watermark(weir_ctx *ctx, int64_t wm)
{
    tap *taps = weir_ctx_arg(ctx);
    tap *mine = &taps[weir_ctx_subtask(ctx)];
    if (mine->n < MAX_MARKS) {
        mine->t[mine->n] = weir_ctx_now(ctx);
        mine->wm[mine->n] = wm;
        mine->n++;
    }
    return 0;
}

static const weir_operator_vtable tap_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = tap_record,
    .on_watermark = tap_watermark,
};

/* The watermark subtask `s` had at time t (the last one at or before t),
 * not counting the MAX it sends at the end. */
static int64_t wm_at(const tap *s, int64_t t)
{
    int64_t wm = WEIR_TS_MIN;
    for (int i = 0; i < s->n && s->t[i] <= t; i++)
        if (s->wm[i] != WEIR_TS_MAX)
            wm = s->wm[i];
    return wm;
}

int main(void)
{
    static tap taps[P];
    const weir_generator_config gen = {
        .name = "generator",
        .partitions = P,
        .rate = 10,
        .pace = WEIR_GEN_PACED,
        .disorder_ms = 800,
        .duration_ms = 2000,
        .seed = 5,
    };
    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 2,
                                           .parallelism = P, /* every operator: 3 subtasks */
                                           .clock = WEIR_CLOCK_VIRTUAL,
                                           .watermark_interval_ms = 200,
                                           .diag.jsonl_path = "parallelism.jsonl"},
                        &job) != 0)
        return 1;
    weir_stream *s = weir_source_generator(job, &gen);
    s = weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_bounded(800)});
    weir_stream_process(s, &(weir_process_spec){.name = "tap", .vtable = &tap_vtable,
                                                .arg = taps,
                                                .accounting = WEIR_ACCOUNTING_SINK});
    int r = weir_job_run(job);
    if (r != 0)
        fprintf(stderr, "parallelism failed: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    if (r != 0)
        return 1;

    printf("generator(p=3) -> timestamps bounded(800) -> tap, all chained: each subtask's\n"
           "watermark, at each 200 ms probe (processing time)\n\n");
    printf("%8s  %10s  %10s  %10s   %s\n", "proc ms", "subtask 0", "subtask 1", "subtask 2",
           "min (what a shuffle would see)");
    /* Rows at every time some subtask's watermark moved, before the final MAX. */
    int64_t prev = INT64_MIN;
    for (;;) {
        int64_t next = INT64_MAX;
        for (int k = 0; k < P; k++)
            for (int i = 0; i < taps[k].n; i++)
                if (taps[k].t[i] > prev && taps[k].t[i] < next && taps[k].wm[i] != WEIR_TS_MAX)
                    next = taps[k].t[i];
        if (next == INT64_MAX)
            break;
        int64_t w[P], min = WEIR_TS_MAX;
        for (int k = 0; k < P; k++) {
            w[k] = wm_at(&taps[k], next);
            if (w[k] < min)
                min = w[k];
        }
        printf("%8" PRId64, next);
        for (int k = 0; k < P; k++) {
            char b[21];
            printf("  %9s%s", weir_ts_format(w[k], b), w[k] == min ? "*" : " ");
        }
        char b[21];
        printf("  %s\n", weir_ts_format(min, b));
        prev = next;
    }
    printf("\n(The last row is the last periodic probe: at the end of input MAX passes\n"
           "the timestamps operator at once, and the final probe after it can only\n"
           "mark the output idle.) Each subtask then\n"
           "ended with MAX. The capture is parallelism.jsonl in the working\n"
           "directory: `weir capture summary parallelism.jsonl`, or load it in\n"
           "viewer/index.html to see the three timestamps subtasks as three lines.\n");
    return 0;
}
