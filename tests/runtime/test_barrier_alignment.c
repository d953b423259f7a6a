/* test_barrier_alignment.c — that a checkpoint is a consistent cut, checked
 * at every checkpoint of a run (docs/CHECKPOINTS.md, "Rules"): two source
 * subtasks write in their snapshot how many records they emitted before the
 * barrier; a sink with one input channel per source writes in its own how
 * many of each it had taken. Exactly-once alignment makes the two equal in
 * every checkpoint; at-least-once lets the sink be ahead, never behind. One
 * source stalls now and then so that the barriers reach the sink far apart.
 * Also with one worker and one-record channels (no deadlock), and the
 * statistics a job reports.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "diag/test_diag_support.h"
#include "weir/error.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/stream.h"

#define RECORDS 6000
#define MAX_ID 4096

typedef struct rec {
    int64_t source;
    int64_t seq;
} rec;

/* What each side wrote per checkpoint id: the sources' positions, the
 * sink's counts. -1: not written. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t emitted[MAX_ID][2], taken[MAX_ID][2];

static void reset(void)
{
    for (int i = 0; i < MAX_ID; i++)
        emitted[i][0] = emitted[i][1] = taken[i][0] = taken[i][1] = -1;
}

typedef struct src_state {
    int64_t next;
} src_state;

static int src_open(weir_ctx *ctx)
{
    src_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    return 0;
}

static int src_next(weir_ctx *ctx)
{
    src_state *s = weir_ctx_state(ctx);
    int me = weir_ctx_subtask(ctx);
    for (int k = 0; k < 8 && s->next < RECORDS; k++) {
        rec r = {.source = me, .seq = s->next++};
        int e = weir_emit(ctx, &r, s->next);
        if (e < 0)
            return e;
    }
    /* Source 1 stalls every 500 records: its barrier falls behind. */
    if (me == 1 && s->next % 500 == 0) {
        struct timespec t = {0, 10 * 1000000L};
        nanosleep(&t, NULL);
    }
    if (s->next >= RECORDS)
        return WEIR_SOURCE_END;
    weir_source_wait_until(ctx, weir_ctx_now(ctx)); /* yields: other subtasks run */
    return WEIR_SOURCE_WAIT;
}

static int src_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    src_state *s = weir_ctx_state(ctx);
    int64_t id = weir_snapshot_checkpoint_id(w);
    if (id > 0 && id < MAX_ID) {
        pthread_mutex_lock(&lock);
        emitted[id][weir_ctx_subtask(ctx)] = s->next;
        pthread_mutex_unlock(&lock);
    }
    return weir_snapshot_write(w, &s->next, sizeof s->next);
}

static int src_restore(weir_ctx *ctx, weir_snapshot_reader *r)
{
    (void)ctx;
    (void)r;
    return 0;
}

static void src_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_source_vtable src_vt = {.version = WEIR_SOURCE_VTABLE_V2,
                                          .open = src_open,
                                          .next = src_next,
                                          .close = src_close,
                                          .snapshot = src_snapshot,
                                          .restore = src_restore};

typedef struct sink_state {
    int64_t count[2];
    int64_t last_seq[2];
    int64_t notified;
    bool out_of_order;
} sink_state;

static int sink_open(weir_ctx *ctx)
{
    sink_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->last_seq[0] = s->last_seq[1] = -1;
    weir_ctx_set_state(ctx, s);
    return 0;
}

static int sink_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)ts;
    sink_state *s = weir_ctx_state(ctx);
    const rec *r = elem;
    if (r->seq != s->last_seq[r->source] + 1)
        s->out_of_order = true;
    s->last_seq[r->source] = r->seq;
    s->count[r->source]++;
    return 0;
}

static int sink_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    sink_state *s = weir_ctx_state(ctx);
    int64_t id = weir_snapshot_checkpoint_id(w);
    if (id > 0 && id < MAX_ID) {
        pthread_mutex_lock(&lock);
        taken[id][0] = s->count[0];
        taken[id][1] = s->count[1];
        pthread_mutex_unlock(&lock);
    }
    return weir_snapshot_write(w, s->count, sizeof s->count);
}

static int sink_notify(weir_ctx *ctx, int64_t id)
{
    sink_state *s = weir_ctx_state(ctx);
    cr_expect_gt(id, s->notified, "notify_complete(%lld) after %lld", (long long)id,
                 (long long)s->notified);
    s->notified = id;
    return 0;
}

static void sink_close(weir_ctx *ctx)
{
    sink_state *s = weir_ctx_state(ctx);
    cr_expect(!s->out_of_order, "a source's records arrived out of order");
    cr_expect_eq(s->count[0] + s->count[1], 2 * RECORDS, "the sink took %lld of %d records",
                 (long long)(s->count[0] + s->count[1]), 2 * RECORDS);
    cr_expect_gt(s->notified, 0, "no checkpoint completion reached the sink");
    free(s);
}

static const weir_operator_vtable sink_vt = {.version = WEIR_OPERATOR_VTABLE_V2,
                                             .open = sink_open,
                                             .on_record = sink_record,
                                             .close = sink_close,
                                             .snapshot = sink_snapshot,
                                             .notify_complete = sink_notify};

/* Runs the job; returns how many checkpoints had both sides written, and how
 * many of those had the sink ahead of a source (*ahead) or behind (*behind). */
static int64_t timeout_ms; /* the next run's checkpoint.timeout_ms */

static int run(weir_checkpoint_mode mode, int workers, int channel_batches, int batch_capacity,
               int *ahead, int *behind, weir_checkpoint_stats *stats)
{
    reset();
    char *tmp = td_tmpdir();
    weir_job_config cfg = {.workers = workers,
                           .parallelism = 2,
                           .channel_batches = channel_batches,
                           .batch_capacity = batch_capacity,
                           /* records leave at once: after a barrier, the
                            * next ones are in the channel right away */
                           .buffer_timeout_ms = WEIR_FLUSH_AT_ONCE,
                           .diag = {.level = WEIR_DIAG_OFF},
                           .checkpoint = {.interval_ms = 2,
                                          .dir = tmp,
                                          .mode = mode,
                                          .timeout_ms = timeout_ms,
                                          .retain = 2}};
    weir_job *job = NULL;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_source_spec ss = {.name = "numbers", .vtable = &src_vt, .elem_size = sizeof(rec)};
    weir_stream *s = weir_job_add_source(job, &ss);
    weir_process_spec ps = {.name = "check", .vtable = &sink_vt, .parallelism = 1};
    cr_assert_not_null(weir_stream_process(s, &ps));
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    cr_assert_eq(weir_job_checkpoint_stats(job, stats), 0);
    weir_job_destroy(job);
    td_rmdir(tmp);
    int both = 0;
    *ahead = *behind = 0;
    for (int id = 1; id < MAX_ID; id++) {
        if (emitted[id][0] < 0 || emitted[id][1] < 0 || taken[id][0] < 0)
            continue;
        both++;
        for (int k = 0; k < 2; k++) {
            if (taken[id][k] > emitted[id][k])
                (*ahead)++;
            if (taken[id][k] < emitted[id][k])
                (*behind)++;
        }
    }
    return both;
}

Test(barrier_alignment, exactly_once_is_a_consistent_cut, .timeout = 60)
{
    int ahead, behind;
    weir_checkpoint_stats st;
    int n = run(WEIR_CHECKPOINT_EXACTLY_ONCE, 2, 0, 64, &ahead, &behind, &st);
    cr_log_info("exactly-once: %d checkpoints, %lld completed, %lld aborted, longest "
                "alignment %.3f ms",
                n, (long long)st.completed, (long long)st.aborted, st.max_alignment_ms);
    cr_assert_gt(n, 3, "only %d checkpoints were taken", n);
    cr_assert_eq(ahead, 0, "the sink's snapshot held records from after the barrier (%d times)",
                 ahead);
    cr_assert_eq(behind, 0, "the sink's snapshot missed records from before the barrier");
    cr_assert_geq(st.completed, 1);
    cr_assert_gt(st.last_completed_id, 0);
    cr_assert_gt(st.last_bytes, 0);
}

Test(barrier_alignment, at_least_once_is_never_behind, .timeout = 60)
{
    int ahead, behind;
    weir_checkpoint_stats st;
    int n = run(WEIR_CHECKPOINT_AT_LEAST_ONCE, 2, 0, 64, &ahead, &behind, &st);
    cr_log_info("at-least-once: %d checkpoints, the sink ahead of a source in %d", n, ahead);
    cr_assert_gt(n, 3);
    cr_assert_eq(behind, 0);
    /* Not a promise of the mode, but what shows that the test above can
     * fail: without alignment the stalls put the sink ahead. */
    cr_expect_gt(ahead, 0, "at-least-once never ran ahead: the stalls did not skew barriers");
}

Test(barrier_alignment, one_worker_one_record_channels, .timeout = 60)
{
    int ahead, behind;
    weir_checkpoint_stats st;
    int n = run(WEIR_CHECKPOINT_EXACTLY_ONCE, 1, 1, 1, &ahead, &behind, &st);
    cr_assert_gt(n, 0);
    cr_assert_eq(ahead, 0);
    cr_assert_eq(behind, 0);
}

Test(barrier_alignment, config_refusals)
{
    char why[256];
    weir_job_config c = {.checkpoint = {.interval_ms = 10}};
    cr_assert_eq(weir_job_config_check(&c, why, sizeof why), WEIR_EINVAL);
    cr_assert(strstr(why, "checkpoint.dir"), "%s", why);
    c = (weir_job_config){.clock = WEIR_CLOCK_VIRTUAL,
                          .checkpoint = {.interval_ms = 10, .dir = "/tmp/x"}};
    cr_assert_eq(weir_job_config_check(&c, why, sizeof why), WEIR_EINVAL);
    cr_assert(strstr(why, "system clock"), "%s", why);
    c = (weir_job_config){.parallelism = 8, .max_parallelism = 4};
    cr_assert_eq(weir_job_config_check(&c, why, sizeof why), WEIR_EINVAL);
    cr_assert(strstr(why, "max_parallelism"), "%s", why);
}

/* A source without a snapshot hook cannot be checkpointed: the run says so
 * before anything starts. */
static int v1_next(weir_ctx *ctx)
{
    (void)ctx;
    return WEIR_SOURCE_END;
}

Test(barrier_alignment, source_without_position)
{
    static const weir_source_vtable v1 = {.version = WEIR_SOURCE_VTABLE_V1, .next = v1_next};
    char *tmp = td_tmpdir();
    weir_job_config cfg = {.checkpoint = {.interval_ms = 10, .dir = tmp},
                           .diag = {.level = WEIR_DIAG_OFF}};
    weir_job *job = NULL;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_source_spec ss = {.name = "old", .vtable = &v1, .elem_size = 8};
    weir_sink_discard(weir_job_add_source(job, &ss));
    cr_assert_eq(weir_job_run(job), WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "'old' has no snapshot hook"), "%s",
              weir_job_error(job));
    weir_job_destroy(job);
    td_rmdir(tmp);
}

/* A checkpoint that takes longer than checkpoint.timeout_ms is aborted and
 * reported; the job goes on, and later checkpoints still complete (the
 * stalls of source 1 hold many past 1 ms). */
Test(barrier_alignment, a_timed_out_checkpoint_is_aborted_and_the_job_goes_on, .timeout = 60)
{
    int ahead, behind;
    weir_checkpoint_stats st;
    timeout_ms = 1;
    run(WEIR_CHECKPOINT_EXACTLY_ONCE, 2, 0, 64, &ahead, &behind, &st);
    timeout_ms = 0;
    cr_log_info("timeout 1 ms: %lld completed, %lld aborted", (long long)st.completed,
                (long long)st.aborted);
    cr_assert_gt(st.aborted, 0, "no checkpoint took longer than 1 ms");
    cr_assert(strstr(st.last_problem, "aborted: not complete after 1 ms"), "%s",
              st.last_problem);
    cr_assert_gt(st.completed, 0);
    cr_assert_eq(ahead, 0);
    cr_assert_eq(behind, 0);
}
