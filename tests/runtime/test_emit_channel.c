/* test_emit_channel.c — the inline emit into a one-channel output: the
 * emit cursor writes straight into the channel's open batch (context.c), so
 * the batch's count is stale until something turns the cursor off. Whatever
 * path the records take — weir_emit, weir_emit_reserve/commit,
 * weir_emit_batch — and whatever ends a batch — full, a watermark, the
 * buffer timeout, the end — every record arrives once, in order, before the
 * watermarks emitted after it, and the producer's out counter says how many
 * left.
 *
 * The pipeline: a source (p=1) emitting N values, a watermark after every
 * 5th, in calls of 7 records -> rebalance (one channel) -> a pass-through
 * (weir_emit_batch, or weir_emit) -> rebalance (one channel) -> a sink that
 * checks order and that no record comes after a watermark at or above its
 * timestamp. Batches of 3 records, so that every boundary (full mid-call,
 * a watermark right after a full batch, a partial batch at the end of a
 * step) happens many times.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "job_state.h"
#include "support/emit_paths.h"
#include "support/weir_testutil.h"

enum { N = 5000 };

typedef struct sink_state {
    uint64_t expected;
    int64_t watermark;
    bool failed;
} sink_state;

static int sink_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    sink_state *s = weir_ctx_arg(ctx);
    uint64_t v;
    memcpy(&v, elem, sizeof v);
    if (v != s->expected || ts != (int64_t)v || ts <= s->watermark) {
        if (!s->failed)
            tu_fail_async("record %llu (ts %lld) where %llu was due, after watermark %lld",
                          (unsigned long long)v, (long long)ts,
                          (unsigned long long)s->expected, (long long)s->watermark);
        s->failed = true;
    }
    s->expected = v + 1;
    return 0;
}

static int sink_watermark(weir_ctx *ctx, int64_t wm)
{
    sink_state *s = weir_ctx_arg(ctx);
    s->watermark = wm;
    return 0;
}

static const weir_operator_vtable sink_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = sink_record,
    .on_watermark = sink_watermark,
};

/* The out counter of the operator named `name`, subtask 0, after the run. */
static int64_t out_count(const weir_job *job, const char *name)
{
    for (int n = 0; n < job->graph.nnodes; n++) {
        const weir_ctx *ctx = job->plan->node_ctx[n] ? job->plan->node_ctx[n][0] : NULL;
        if (ctx && ctx->node->name && strcmp(ctx->node->name, name) == 0)
            return ctx->diag.counters[WEIR__CNT_OUT];
    }
    cr_assert_fail("no operator %s", name);
    return -1;
}

static void run(emit_way way, const weir_operator_vtable *pass_vt, int64_t buffer_timeout_ms,
                int workers)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = workers,
                                              .parallelism = 1,
                                              .batch_capacity = 3,
                                              .channel_batches = 2,
                                              .buffer_timeout_ms = buffer_timeout_ms,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    source_arg src = {.way = way, .count = N};
    weir_stream *s = weir_job_add_source(
        job, &(weir_source_spec){.name = "src", .vtable = &source_vt, .arg = &src,
                                 .elem_size = sizeof(uint64_t)});
    s = weir_stream_process(weir_stream_rebalance(s),
                            &(weir_process_spec){.name = "pass", .vtable = pass_vt,
                                                 .out_size = sizeof(uint64_t),
                                                 .accounting = WEIR_ACCOUNTING_ONE_TO_ONE});
    sink_state sink = {.watermark = WEIR_TS_MIN};
    cr_assert_not_null(weir_stream_process(
        weir_stream_rebalance(s),
        &(weir_process_spec){.name = "sink", .vtable = &sink_vt, .arg = &sink,
                             .accounting = WEIR_ACCOUNTING_SINK}));
    tu_run_ok(job);
    tu_assert_no_async_failure();
    cr_assert_eq(sink.expected, N, "the sink took %llu of %d records",
                 (unsigned long long)sink.expected, N);
    cr_assert_eq(sink.watermark, WEIR_TS_MAX);
    cr_assert_eq(out_count(job, "src"), N);
    cr_assert_eq(out_count(job, "pass"), N);
    weir_job_destroy(job);
}

Test(emit_channel, emit_then_batches_one_worker)
{
    run(WAY_EMIT, &pass_batch_vt, 0, 1);
}

Test(emit_channel, reserve_commit_then_records_two_workers)
{
    run(WAY_RESERVE, &tu_pass_vtable, 0, 2);
}

Test(emit_channel, emit_flush_at_once_two_workers)
{
    run(WAY_EMIT, &pass_batch_vt, WEIR_FLUSH_AT_ONCE, 2);
}

Test(emit_channel, reserve_commit_long_buffer_timeout_one_worker)
{
    run(WAY_RESERVE, &pass_batch_vt, 10000, 1);
}
