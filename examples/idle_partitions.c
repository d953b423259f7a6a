/* idle_partitions.c — an idle partition stalls the merged watermark, and
 * with_idleness() is the cure.
 *
 * Concept: an operator behind a shuffle (here a window behind a key_by)
 * merges the watermarks of all its input channels and takes their minimum
 * (SEMANTICS.md 3). If one source partition goes quiet, its timestamps
 * operator has nothing new to base a watermark on, so its watermark stays
 * where it was, and the minimum — the merged watermark — stalls with it,
 * however far the other partitions have got: no window fires. When the
 * partition speaks again, the merged watermark jumps and the windows held
 * back all fire at once. A strategy wrapped in with_idleness(T) marks its
 * output IDLE after T ms of processing time without events; the valve then
 * leaves that channel out of the minimum, and the merged watermark keeps
 * following the busy partitions.
 *
 * The job, run twice (without, then with idleness 300 ms): a generator with 3
 * partitions, 20 events/s each for 8 s, partition 2 silent for event time
 * [2000, 5000) -> timestamps bounded(200), chained -> key_by -> 1 s tumbling
 * windows counting events per key -> "tap", a process operator chained to
 * the window that records the window's watermark (the merged one, passed on)
 * and when each result arrives, with processing time -> discard. Paced on the
 * virtual clock at speed 1, processing ms equal event ms, and the runs are
 * the same every time.
 *
 * What to look for: the longest stall of the merged watermark (the longest
 * processing time between two of its advances). Without idleness it is about
 * the idle span, 3 s, then a jump of about 3 s of event time, and window
 * results come up to 3 s after their window ended; with idleness the stall
 * shrinks to the timeout plus a probe or two. The captures are
 * idle-without-idleness.jsonl and idle-with-idleness.jsonl: load both in
 * viewer/index.html to see the stall, and the IDLE status, on the timeline.
 *
 * Run: ./build/release/examples/idle_partitions
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <weir.h>

enum { P = 3, MAX_MARKS = 512 };

/* A window's result: events per key per second. */
typedef struct key_count {
    int64_t key, start, end, count;
} key_count;

/* What the tap saw in one run (the window and the tap have one subtask: one
 * thread writes this; main reads it after weir_job_run joined the workers). */
typedef struct recording {
    int64_t t[MAX_MARKS];
    int64_t wm[MAX_MARKS];
    int n;
    int idle_changes;    /* how often the merged input went idle or active */
    int64_t results;
    int64_t max_wait;    /* the longest time from a window's end to its result */
} recording;

static int tap_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)ts;
    recording *rec = weir_ctx_arg(ctx);
    const key_count *r = elem;
    /* processing ms = event ms - start_ms (0) at speed 1 */
    int64_t wait = weir_ctx_now(ctx) - r->end;
    if (wait > rec->max_wait)
        rec->max_wait = wait;
    rec->results++;
    return 0;
}

static int tap_watermark(weir_ctx *ctx, int64_t wm)
{
    recording *rec = weir_ctx_arg(ctx);
    if (rec->n < MAX_MARKS) {
        rec->t[rec->n] = weir_ctx_now(ctx);
        rec->wm[rec->n] = wm;
        rec->n++;
    }
    return 0; /* a sink */
}

static int tap_status(weir_ctx *ctx, bool idle)
{
    (void)idle;
    recording *rec = weir_ctx_arg(ctx);
    rec->idle_changes++;
    return 0;
}

static const weir_operator_vtable tap_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = tap_record,
    .on_watermark = tap_watermark,
    .on_status = tap_status,
};

static void count_add(void *acc, const void *elem, void *arg)
{
    (void)elem;
    (void)arg;
    ++*(int64_t *)acc;
}

static void count_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    key_count *r = out;
    memcpy(&r->key, w->key, sizeof r->key);
    r->start = w->start;
    r->end = w->end;
    r->count = *(const int64_t *)acc;
}


static int run(int64_t idleness_ms, const char *capture, recording *rec)
{
    weir_generator_config gen = {
        .name = "generator",
        .partitions = P,
        .keys = 10,
        .rate = 20,
        .pace = WEIR_GEN_PACED,
        .disorder_ms = 200,
        .duration_ms = 8000,
        .idle = {{.partition = 2, .from_ms = 2000, .to_ms = 5000}},
        .nidle = 1,
        .seed = 1,
    };
    weir_job *job;
    /* One worker: on the virtual clock that makes the run, and its capture,
     * the same every time (job.h). With more, subtasks on different threads
     * may interleave differently at one virtual instant, and the merged
     * watermark may take slightly different steps. */
    if (weir_job_create(&(weir_job_config){.workers = 1,
                                           .parallelism = P,
                                           .clock = WEIR_CLOCK_VIRTUAL,
                                           .watermark_interval_ms = 100,
                                           .diag.jsonl_path = capture},
                        &job) != 0)
        return 1;
    weir_stream *s = weir_source_generator(job, &gen);
    weir_watermark_strategy strategy = weir_watermarks_bounded(200);
    if (idleness_ms > 0)
        strategy = weir_watermarks_with_idleness(strategy, idleness_ms);
    s = weir_stream_assign_timestamps(s, &(weir_timestamps_spec){.strategy = strategy});
    s = weir_stream_key_by(s, weir_generator_key());
    s = weir_stream_window(s, &(weir_window_spec){.name = "window",
                                                  .assigner = weir_window_tumbling(1000, 0),
                                                  .aggregate = {.acc_size = sizeof(int64_t),
                                                                .add = count_add,
                                                                .result = count_result},
                                                  .out_size = sizeof(key_count),
                                                  .parallelism = 1});
    weir_stream_process(s, &(weir_process_spec){.name = "tap", .vtable = &tap_vtable, .arg = rec,
                                                .parallelism = 1,
                                                .accounting = WEIR_ACCOUNTING_SINK});
    int r = weir_job_run(job);
    if (r != 0)
        fprintf(stderr, "idle_partitions failed: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    return r != 0;
}

/* The longest processing time between two consecutive advances of the
 * merged watermark, from its first advance to the last one before MAX. */
typedef struct stall {
    int64_t ms, from, to, wm_before, wm_after;
} stall;

static stall longest_stall(const recording *rec)
{
    stall best = {0};
    for (int i = 1; i < rec->n && rec->wm[i] != WEIR_TS_MAX; i++) {
        int64_t gap = rec->t[i] - rec->t[i - 1];
        if (gap > best.ms)
            best = (stall){gap, rec->t[i - 1], rec->t[i], rec->wm[i - 1], rec->wm[i]};
    }
    return best;
}

int main(void)
{
    static recording without, with;
    if (run(0, "idle-without-idleness.jsonl", &without) ||
        run(300, "idle-with-idleness.jsonl", &with))
        return 1;
    stall a = longest_stall(&without), b = longest_stall(&with);

    printf("generator(p=3, partition 2 silent for event time [2000, 5000)) -> bounded(200)\n"
           "-> key_by -> 1 s tumbling window: the merged watermark's longest stall\n"
           "(processing time)\n\n");
    printf("%-28s %-24s %s\n", "", "without idleness", "with_idleness(300)");
    char x[64], y[64];
    snprintf(x, sizeof x, "%" PRId64 " ms", a.ms);
    snprintf(y, sizeof y, "%" PRId64 " ms", b.ms);
    printf("%-28s %-24s %s\n", "longest stall", x, y);
    snprintf(x, sizeof x, "t %" PRId64 "..%" PRId64, a.from, a.to);
    snprintf(y, sizeof y, "t %" PRId64 "..%" PRId64, b.from, b.to);
    printf("%-28s %-24s %s\n", "  from .. to", x, y);
    snprintf(x, sizeof x, "%" PRId64 " -> %" PRId64, a.wm_before, a.wm_after);
    snprintf(y, sizeof y, "%" PRId64 " -> %" PRId64, b.wm_before, b.wm_after);
    printf("%-28s %-24s %s\n", "  watermark then", x, y);
    snprintf(x, sizeof x, "%d", without.n);
    snprintf(y, sizeof y, "%d", with.n);
    printf("%-28s %-24s %s\n", "merged watermark advances", x, y);
    snprintf(x, sizeof x, "%" PRId64 " ms", without.max_wait);
    snprintf(y, sizeof y, "%" PRId64 " ms", with.max_wait);
    printf("%-28s %-24s %s\n", "longest wait for a result", x, y);
    snprintf(x, sizeof x, "%" PRId64, without.results);
    snprintf(y, sizeof y, "%" PRId64, with.results);
    printf("%-28s %-24s %s\n", "window results", x, y);
    snprintf(x, sizeof x, "%d", without.idle_changes);
    snprintf(y, sizeof y, "%d", with.idle_changes);
    printf("%-28s %-24s %s\n", "merged idle/active changes", x, y);
    printf("\n(\"wait\": processing time from a window's end to its result.)\n"
           "Without idleness the silent partition holds the minimum back until it speaks\n"
           "again, and the watermark jumps. With idleness its timestamps subtask goes IDLE\n"
           "after 300 ms without events, the valve drops it from the minimum, and the\n"
           "watermark follows the two busy partitions. (The merged input itself never goes\n"
           "idle: two of its three channels stay active.)\n"
           "Captures: idle-without-idleness.jsonl, idle-with-idleness.jsonl (working\n"
           "directory); `weir capture summary FILE` names the channel that held it back.\n");
    return 0;
}
