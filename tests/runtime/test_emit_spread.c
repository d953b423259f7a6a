/* test_emit_spread.c — the emit into a partitioned output of two or more
 * channels (key_by, rebalance: a "spread" output, context.c): each record
 * goes straight into its channel's open batch, picked by the key's group or
 * round-robin, without the general path. Whatever the emit call —
 * weir_emit, weir_emit_reserve/commit (in place for rebalance),
 * weir_emit_batch — and whatever ends a batch — full, a watermark, the
 * buffer timeout, the end — every record arrives once, on the subtask its
 * partitioning names, in its producer's order, before every watermark at or
 * above its timestamp; and no record took the general path.
 *
 * The pipeline: a source (p=1) emitting N values, a watermark after every
 * 5th, in calls of 7 records -> key_by or rebalance into 3 subtasks of a
 * pass-through (weir_emit_batch or weir_emit) -> the same partitioning into
 * 2 subtasks of a sink that checks each record's subtask, that the values
 * from each producer subtask rise, and watermarks. Batches of 3 records.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "job_state.h"
#include "key_group.h"
#include "support/emit_paths.h"
#include "support/weir_testutil.h"

enum { N = 6000, P_PASS = 3, P_SINK = 2 };

static void key_is_value(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

static const weir_key_spec key_spec = {.key_size = 8, .extract = key_is_value};

/* Per sink subtask: the last value seen from each value's producer (a
 * value v left pass subtask v % P_PASS under rebalance's round-robin of one
 * source; under key_by the owner of its key), the count, the watermark. */
typedef struct sink_sub {
    uint64_t last[P_PASS];
    bool seen[P_PASS];
    int64_t count;
    int64_t watermark;
} sink_sub;

typedef struct sink_state {
    bool keyed;
    sink_sub sub[P_SINK];
    bool failed;
} sink_state;

static uint32_t owner(uint64_t v, uint32_t p)
{
    return weir__key_subtask(weir__hash_bytes(&v, 8), 128, p);
}

static int sink_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    sink_state *s = weir_ctx_arg(ctx);
    int me = weir_ctx_subtask(ctx);
    sink_sub *m = &s->sub[me];
    uint64_t v;
    memcpy(&v, elem, sizeof v);
    /* The pass subtask v came through: round-robin from one source, or its
     * key's owner. */
    uint32_t via = s->keyed ? owner(v, P_PASS) : (uint32_t)(v % P_PASS);
    bool bad = ts != (int64_t)v || ts <= m->watermark || v >= N ||
               (s->keyed && owner(v, P_SINK) != (uint32_t)me) ||
               (m->seen[via] && v <= m->last[via]);
    if (bad && !s->failed) {
        s->failed = true;
        tu_fail_async("sink %d: record %llu (ts %lld) via pass %u after %llu, watermark %lld", me,
                      (unsigned long long)v, (long long)ts, via,
                      (unsigned long long)m->last[via], (long long)m->watermark);
    }
    m->last[via] = v;
    m->seen[via] = true;
    m->count++;
    return 0;
}

static int sink_watermark(weir_ctx *ctx, int64_t wm)
{
    sink_state *s = weir_ctx_arg(ctx);
    s->sub[weir_ctx_subtask(ctx)].watermark = wm;
    return 0;
}

static const weir_operator_vtable sink_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = sink_record,
    .on_watermark = sink_watermark,
};

/* The records every subtask of the operator named `name` sent through the
 * general emit path, summed. */
static uint64_t general_records(const weir_job *job, const char *name)
{
    for (int n = 0; n < job->graph.nnodes; n++) {
        const weir_ctx *ctx = job->plan->node_ctx[n] ? job->plan->node_ctx[n][0] : NULL;
        if (ctx && ctx->node->name && strcmp(ctx->node->name, name) == 0) {
            uint64_t sum = 0;
            for (int i = 0; i < ctx->parallelism; i++)
                sum += job->plan->node_ctx[n][i]->out.main.general_records;
            return sum;
        }
    }
    cr_assert_fail("no operator %s", name);
    return 0;
}

static weir_stream *partition(weir_stream *s, bool keyed)
{
    return keyed ? weir_stream_key_by(s, &key_spec) : weir_stream_rebalance(s);
}

static void run(bool keyed, emit_way way, const weir_operator_vtable *pass_vt,
                int64_t buffer_timeout_ms, int workers)
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
    s = weir_stream_process(partition(s, keyed),
                            &(weir_process_spec){.name = "pass", .vtable = pass_vt,
                                                 .out_size = sizeof(uint64_t),
                                                 .accounting = WEIR_ACCOUNTING_ONE_TO_ONE});
    weir_stream_set_parallelism(s, P_PASS);
    sink_state sink = {.keyed = keyed};
    for (int i = 0; i < P_SINK; i++)
        sink.sub[i].watermark = WEIR_TS_MIN;
    weir_stream *k = weir_stream_process(
        partition(s, keyed), &(weir_process_spec){.name = "sink", .vtable = &sink_vt,
                                                  .arg = &sink,
                                                  .accounting = WEIR_ACCOUNTING_SINK});
    cr_assert_not_null(k);
    weir_stream_set_parallelism(k, P_SINK);
    tu_run_ok(job);
    tu_assert_no_async_failure();
    int64_t total = 0;
    for (int i = 0; i < P_SINK; i++) {
        total += sink.sub[i].count;
        cr_assert_eq(sink.sub[i].watermark, WEIR_TS_MAX, "sink %d ended at watermark %lld", i,
                     (long long)sink.sub[i].watermark);
        if (!keyed)
            cr_assert_eq(sink.sub[i].count, N / P_SINK, "sink %d took %lld records", i,
                         (long long)sink.sub[i].count);
    }
    cr_assert_eq(total, N, "the sinks took %lld of %d records", (long long)total, N);
    cr_assert_eq(general_records(job, "src"), 0, "the source's records took the general path");
    cr_assert_eq(general_records(job, "pass"), 0, "the pass's records took the general path");
    weir_job_destroy(job);
}

Test(emit_spread, key_by_emit_then_batches_one_worker)
{
    run(true, WAY_EMIT, &pass_batch_vt, 0, 1);
}

Test(emit_spread, key_by_reserve_commit_then_records_two_workers)
{
    run(true, WAY_RESERVE, &tu_pass_vtable, 0, 2);
}

Test(emit_spread, rebalance_emit_flush_at_once_two_workers)
{
    run(false, WAY_EMIT, &pass_batch_vt, WEIR_FLUSH_AT_ONCE, 2);
}

Test(emit_spread, rebalance_reserve_commit_long_buffer_timeout_one_worker)
{
    run(false, WAY_RESERVE, &pass_batch_vt, 10000, 1);
}

Test(emit_spread, rebalance_reserve_commit_then_records_two_workers)
{
    run(false, WAY_RESERVE, &tu_pass_vtable, 0, 2);
}
