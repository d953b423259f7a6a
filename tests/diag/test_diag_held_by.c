/* test_diag_held_by.c — the valve's `held_by` names the channel that holds
 * the merged watermark back, in the experiment the diagnostic channel is
 * for: three partitions on the virtual clock, partition 2 going quiet for
 * good at 300 ms of event time, timestamps chained to each partition,
 * key_by, one sink subtask whose valve merges the three channels.
 *
 * Without idleness, partition 2's channel keeps the watermark it had when it
 * went quiet; channels 0 and 1 move on, and every watermark they bring to
 * the valve reports held_by = 2 while the sink's own watermark stays at
 * channel 2's, until partition 2 ends (MAX). With an idleness timeout,
 * partition 2's timestamps subtask goes idle, the valve leaves channel 2 out,
 * held_by names the others — from the status event that says channel 2 went
 * idle on — and the sink's watermark passes channel 2's.
 * Channel 2 is fed by timestamps subtask 2 (docs/CAPTURE.md's numbering),
 * which the test checks too.
 */
#include <criterion/criterion.h>

#include "diag/test_diag_support.h"

static void run(weir_diag_memory *mem, int64_t idleness_ms)
{
    weir_job_config cfg = {.workers = 1, .clock = WEIR_CLOCK_VIRTUAL, .watermark_interval_ms = 10,
                           .diag.memory = mem};
    weir_job *job = tu_job(&cfg);
    weir_generator_config g = {
        .partitions = 3,
        .keys = 20,
        .rate = 1000,
        .pace = WEIR_GEN_PACED,
        .count = 1000,
        .disorder_ms = 5,
        .seed = 11,
        .idle = {{.partition = 2, .from_ms = 300, .to_ms = WEIR_TS_MAX}},
        .nidle = 1,
    };
    weir_stream *s = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {
        .strategy = weir_watermarks_with_idleness(weir_watermarks_bounded(5), idleness_ms)};
    s = weir_stream_set_parallelism(weir_stream_assign_timestamps(s, &ts), 3);
    weir_stream *sink = weir_sink_discard(weir_stream_key_by(s, td_gen_keys()));
    cr_assert_not_null(weir_stream_set_parallelism(sink, 1), "%s", weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
}

static bool is(const weir_diag_event *ev, weir_diag_kind kind, const char *op)
{
    return ev->kind == kind && ev->op && strcmp(ev->op, op) == 0;
}

/* The last finite output watermark of timestamps subtask 2. */
static int64_t last_finite(const weir_diag_memory *mem, const char *op, int subtask)
{
    int64_t w = INT64_MIN;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        if (is(ev, WEIR_DIAG_KIND_WATERMARK, op) && ev->subtask == subtask && ev->input < 0 &&
            ev->watermark != INT64_MAX)
            w = ev->watermark;
    }
    return w;
}

Test(diag_held_by, the_quiet_partition_holds_the_valve, .timeout = 60)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    run(mem, 0);
    int64_t w2 = last_finite(mem, "timestamps", 2);
    cr_assert(w2 > 250 && w2 < 300, "partition 2's watermark stopped at %lld", (long long)w2);
    /* Walk the sink's valve in order. Phase 1: channel 2 at w2 and the others
     * above it; ends when channel 2 reaches MAX. */
    int64_t ch[3] = {INT64_MIN, INT64_MIN, INT64_MIN};
    int held_by_2 = 0, sink_wms = 0;
    bool ch2_max = false;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        if (!is(ev, WEIR_DIAG_KIND_WATERMARK, "sink"))
            continue;
        if (ev->input < 0) {
            /* the merged watermark is held at channel 2's */
            if (!ch2_max) {
                cr_assert_leq(ev->watermark, ch[2], "the sink's watermark %lld passed channel 2's %lld",
                              (long long)ev->watermark, (long long)ch[2]);
                sink_wms += ev->watermark == w2;
            }
            continue;
        }
        cr_assert_eq(ev->input, 0);
        cr_assert(ev->channel >= 0 && ev->channel < 3, "channel %d", ev->channel);
        ch[ev->channel] = ev->watermark;
        if (ev->channel == 2 && ev->watermark == INT64_MAX)
            ch2_max = true;
        if (ch2_max || ch[2] != w2 || ev->channel == 2)
            continue;
        /* channel 2 sits at w2 and the others are past it: it holds */
        if (ch[0] > w2 && ch[1] > w2) {
            cr_assert_eq(ev->held_by, 2, "held_by %d with channels at %lld %lld %lld", ev->held_by,
                         (long long)ch[0], (long long)ch[1], (long long)ch[2]);
            held_by_2++;
        }
    }
    cr_assert(ch2_max, "channel 2 never reached MAX");
    cr_assert_gt(held_by_2, 10, "only %d valve events while channel 2 held", held_by_2);
    cr_assert_gt(sink_wms, 0, "the sink's watermark never reached channel 2's");
    /* channel 2 is timestamps subtask 2: its last finite watermark at the
     * valve is the one that subtask emitted */
    int64_t last_ch2 = INT64_MIN;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        if (is(ev, WEIR_DIAG_KIND_WATERMARK, "sink") && ev->input == 0 && ev->channel == 2 &&
            ev->watermark != INT64_MAX)
            last_ch2 = ev->watermark;
    }
    cr_assert_eq(last_ch2, w2);
    weir_diag_memory_destroy(mem);
}

Test(diag_held_by, an_idle_partition_lets_the_others_through, .timeout = 60)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    run(mem, 50);
    int64_t w2 = last_finite(mem, "timestamps", 2);
    bool idle = false, passed = false;
    int after_idle = 0, went_idle = 0;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        if (is(ev, WEIR_DIAG_KIND_STATUS, "sink") && ev->input == 0 && ev->channel == 2) {
            idle = ev->idle;
            /* the status event itself names the channel that holds the
             * valve from now on: one of the others, not the idle one, and
             * not only at the next watermark */
            json_t *j = td_json(ev->json);
            json_t *h = json_object_get(j, "held_by");
            cr_assert(json_is_integer(h), "a valve status without held_by: %s", ev->json);
            cr_assert_eq(json_integer_value(h), ev->held_by);
            if (idle) {
                cr_assert(ev->held_by == 0 || ev->held_by == 1,
                          "held_by %d when channel 2 went idle", ev->held_by);
                went_idle++;
            }
            json_decref(j);
            continue;
        }
        if (!idle || !is(ev, WEIR_DIAG_KIND_WATERMARK, "sink"))
            continue;
        if (ev->input < 0) {
            passed |= ev->watermark != INT64_MAX && ev->watermark > w2;
        } else if (ev->channel != 2) {
            cr_assert(ev->held_by == 0 || ev->held_by == 1,
                      "held_by %d while channel 2 is idle", ev->held_by);
            after_idle++;
        }
    }
    cr_assert_gt(went_idle, 0);
    cr_assert_gt(after_idle, 10);
    cr_assert(passed, "the sink's watermark never passed the idle channel's %lld", (long long)w2);
    /* the timestamps subtask said idle at its output first */
    bool ts_idle = false;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        ts_idle |= is(ev, WEIR_DIAG_KIND_STATUS, "timestamps") && ev->subtask == 2 && ev->idle &&
                   ev->input < 0;
    }
    cr_assert(ts_idle);
    weir_diag_memory_destroy(mem);
}
