/* job.c — a job's life: creation with defaults resolved and checked, the
 * first error, the run (plan, diagnostics, workers, clean-up on every path)
 * and destruction. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "job_state.h"
#include "checkpoint_hooks.h"
#include "subtask.h"
#include "util.h"
#include "weir/error.h"
#include "weir/job.h"

#define DEFAULT_BATCH_CAPACITY 512
#define DEFAULT_CHANNEL_BATCHES 8
#define DEFAULT_BUFFER_TIMEOUT_MS 5
#define DEFAULT_WATERMARK_INTERVAL_MS 200
#define DEFAULT_THROUGHPUT_INTERVAL_MS 100
#define DEFAULT_DIAG_RING 8192
#define MAX_WORKERS 256
#define DEFAULT_MAX_PARALLELISM 128
#define MAX_MAX_PARALLELISM 32768

int weir_job_config_check(const weir_job_config *config, char *why, size_t size)
{
    weir_job_config zero = {0};
    const weir_job_config *c = config ? config : &zero;
    if (why && size)
        why[0] = '\0';
#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            if (why && size)                                                     \
                snprintf(why, size, __VA_ARGS__);                                \
            return WEIR_EINVAL;                                                  \
        }                                                                        \
    } while (0)
    CHECK(c->workers >= 0 && c->workers <= MAX_WORKERS, "workers %d is not in 0..%d", c->workers,
          MAX_WORKERS);
    CHECK(c->parallelism >= 0 && c->parallelism <= WEIR_MAX_PARALLELISM,
          "parallelism %d is not in 0..%d", c->parallelism, WEIR_MAX_PARALLELISM);
    CHECK(c->batch_capacity >= 0 && c->batch_capacity <= 65536,
          "batch_capacity %d is not in 0..65536", c->batch_capacity);
    CHECK(c->channel_batches >= 0 && c->channel_batches <= 4096,
          "channel_batches %d is not in 0..4096", c->channel_batches);
    CHECK(c->buffer_timeout_ms >= 0 || c->buffer_timeout_ms == WEIR_FLUSH_AT_ONCE,
          "buffer_timeout_ms %lld is negative (use WEIR_FLUSH_AT_ONCE)",
          (long long)c->buffer_timeout_ms);
    CHECK(c->clock == WEIR_CLOCK_SYSTEM || c->clock == WEIR_CLOCK_VIRTUAL, "unknown clock %d",
          (int)c->clock);
    CHECK(c->watermark_interval_ms >= 0 || c->watermark_interval_ms == WEIR_DISABLED,
          "watermark_interval_ms %lld is negative (use WEIR_DISABLED)",
          (long long)c->watermark_interval_ms);
    CHECK(c->diag.level >= WEIR_DIAG_DEFAULT && c->diag.level <= WEIR_DIAG_VERBOSE,
          "unknown diagnostic level %d", (int)c->diag.level);
    CHECK(c->diag.ring_capacity >= 0 && c->diag.ring_capacity <= WEIR__DIAG_RING_MAX,
          "diag.ring_capacity %d is not in 0..%d", c->diag.ring_capacity, WEIR__DIAG_RING_MAX);
    CHECK(c->diag.throughput_interval_ms >= 0, "diag.throughput_interval_ms %lld is negative",
          (long long)c->diag.throughput_interval_ms);
    CHECK(c->max_parallelism >= 0 && c->max_parallelism <= MAX_MAX_PARALLELISM,
          "max_parallelism %d is not in 0..%d", c->max_parallelism, MAX_MAX_PARALLELISM);
    CHECK(c->max_parallelism == 0 || c->parallelism <= c->max_parallelism,
          "parallelism %d is above max_parallelism %d", c->parallelism, c->max_parallelism);
    if (c->http_addr) {
        char bad[160];
        CHECK(weir__diag_http_addr_check(c->http_addr, bad, sizeof bad) == 0, "http_addr: %s", bad);
    }
    const weir_checkpoint_config *k = &c->checkpoint;
    CHECK(k->interval_ms >= 0, "checkpoint.interval_ms %lld is negative",
          (long long)k->interval_ms);
    CHECK(k->interval_ms == 0 || (k->dir && *k->dir),
          "checkpoint.interval_ms is set and checkpoint.dir is not: checkpoints need a folder");
    CHECK((k->interval_ms == 0 && !k->dir) || c->clock == WEIR_CLOCK_SYSTEM,
          "checkpoints need the system clock: the virtual clock moves only when the whole job "
          "waits, and a checkpoint waits for its writer");
    CHECK(k->mode == WEIR_CHECKPOINT_EXACTLY_ONCE || k->mode == WEIR_CHECKPOINT_AT_LEAST_ONCE,
          "unknown checkpoint.mode %d", (int)k->mode);
    CHECK(k->timeout_ms >= 0, "checkpoint.timeout_ms %lld is negative", (long long)k->timeout_ms);
    CHECK(k->min_pause_ms >= 0, "checkpoint.min_pause_ms %lld is negative",
          (long long)k->min_pause_ms);
    CHECK(k->retain >= 0 && k->retain <= 1000, "checkpoint.retain %d is not in 0..1000",
          k->retain);
    CHECK(!k->restore_from || *k->restore_from, "checkpoint.restore_from is empty");
#undef CHECK
    return 0;
}

int weir_job_create(const weir_job_config *config, weir_job **out)
{
    if (!out)
        return WEIR_EINVAL;
    *out = NULL;
    weir_job_config c = {0};
    if (config)
        c = *config;
    if (weir_job_config_check(&c, NULL, 0))
        return WEIR_EINVAL;
    if (c.workers == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        c.workers = n > 0 ? (int)(n > MAX_WORKERS ? MAX_WORKERS : n) : 1;
    }
    if (c.parallelism == 0)
        c.parallelism = 1;
    if (c.batch_capacity == 0)
        c.batch_capacity = DEFAULT_BATCH_CAPACITY;
    if (c.channel_batches == 0)
        c.channel_batches = DEFAULT_CHANNEL_BATCHES;
    if (c.buffer_timeout_ms == 0)
        c.buffer_timeout_ms = DEFAULT_BUFFER_TIMEOUT_MS;
    if (c.watermark_interval_ms == 0)
        c.watermark_interval_ms = DEFAULT_WATERMARK_INTERVAL_MS;
    if (c.diag.level == WEIR_DIAG_DEFAULT)
        c.diag.level = WEIR_DIAG_STANDARD;
    if (c.diag.ring_capacity == 0)
        c.diag.ring_capacity = DEFAULT_DIAG_RING;
    if (c.diag.throughput_interval_ms == 0)
        c.diag.throughput_interval_ms = DEFAULT_THROUGHPUT_INTERVAL_MS;
    if (c.max_parallelism == 0) {
        /* Flink's default: 1.5 times the parallelism, rounded up to a power
         * of two, at least 128. */
        int m = DEFAULT_MAX_PARALLELISM;
        while (m < MAX_MAX_PARALLELISM && m < c.parallelism + c.parallelism / 2)
            m *= 2;
        c.max_parallelism = m;
    }
    if (c.checkpoint.retain == 0)
        c.checkpoint.retain = 3;

    weir_job *job = calloc(1, sizeof *job);
    if (!job)
        return WEIR_ENOMEM;
    job->jsonl_path = weir__strdup(c.diag.jsonl_path);
    job->msgpack_path = weir__strdup(c.diag.msgpack_path);
    job->chk_dir = weir__strdup(c.checkpoint.dir);
    job->chk_restore_from = weir__strdup(c.checkpoint.restore_from);
    job->http_addr = weir__strdup(c.http_addr);
    if ((c.diag.jsonl_path && !job->jsonl_path) || (c.diag.msgpack_path && !job->msgpack_path) ||
        (c.checkpoint.dir && !job->chk_dir) ||
        (c.checkpoint.restore_from && !job->chk_restore_from) || (c.http_addr && !job->http_addr)) {
        free(job->http_addr);
        free(job->jsonl_path);
        free(job->msgpack_path);
        free(job->chk_dir);
        free(job->chk_restore_from);
        free(job);
        return WEIR_ENOMEM;
    }
    c.diag.jsonl_path = job->jsonl_path;
    c.diag.msgpack_path = job->msgpack_path;
    c.checkpoint.dir = job->chk_dir;
    c.checkpoint.restore_from = job->chk_restore_from;
    c.http_addr = job->http_addr;
    job->max_parallelism = (uint32_t)c.max_parallelism;
    atomic_init(&job->wake_fd, -1);
    job->cfg = c;
    weir__errors_init(&job->errors);
    if (weir__checkpoint_hooks.create(job)) {
        weir_job_destroy(job);
        return WEIR_ENOMEM;
    }
    weir__clock_init(&job->clock, c.clock == WEIR_CLOCK_VIRTUAL);
    *out = job;
    return 0;
}

int weir_job_record_error(weir_job *job, int err, const char *fmt, ...)
{
    if (!job)
        return err;
    va_list ap;
    va_start(ap, fmt);
    weir__errors_setv(&job->errors, err, fmt, ap);
    va_end(ap);
    return err;
}

int weir_job_run(weir_job *job)
{
    if (!job)
        return WEIR_EINVAL;
    if (job->ran)
        return WEIR_ESTATE;
    job->ran = true;
    /* A builder call already failed: report it, start nothing. */
    if (job->errors.code)
        return job->errors.code;
    const weir__chk_hooks *chk = &weir__checkpoint_hooks;
    int r = chk->restore_open(job);
    if (r)
        return r;
    r = weir__plan_build(job, &job->plan);
    if (r == 0)
        r = chk->restore_match(job);
    if (r)
        return r;
    weir__clock_init(&job->clock, job->cfg.clock == WEIR_CLOCK_VIRTUAL);
    /* Processing time goes on from where the restored checkpoint was taken:
     * its processing-time timers keep their distance to now. */
    if (job->restored.id)
        weir__clock_start_at(&job->clock, job->restored.time_ms);
    /* The workers are made first and started last: the diagnostic channel
     * gives each its ring, and the coordinator may wake subtasks, which
     * needs their workers. The job, not the scheduler, owns both. */
    r = weir__diag_start(job);
    if (r == 0)
        r = weir__sched_prepare(job);
    if (r == 0)
        r = weir__diag_attach_workers(job);
    if (r == 0) {
        r = chk->start(job);
        if (r == 0)
            r = weir__sched_run(job);
        chk->stop(job);
    }
    /* Whatever happened, every operator that was opened is closed: on a
     * normal end each subtask closed itself; after a failure the workers are
     * gone and this thread does it. */
    for (int s = 0; s < job->plan->nsubs; s++)
        weir__subtask_close(job->plan->subs[s]);
    weir__diag_stop(job);
    return r ? r : job->errors.code;
}

int weir_job_cancel(weir_job *job)
{
    if (!job)
        return WEIR_EINVAL;
    weir__sched_cancel(job);
    return 0;
}

void weir_job_destroy(weir_job *job)
{
    if (!job)
        return;
    if (job->workers) {
        for (int i = 0; i < job->nworkers; i++)
            free(job->workers[i].owned);
        free(job->workers);
    }
    weir__plan_free(job->plan);
    weir__graph_free(&job->graph);
    free(job->jsonl_path);
    free(job->http_addr);
    free(job->msgpack_path);
    free(job->chk_dir);
    free(job->chk_restore_from);
    weir__checkpoint_hooks.destroy(job);
    weir__errors_destroy(&job->errors);
    if (atomic_load(&job->wake_fd) >= 0)
        close(atomic_load(&job->wake_fd));
    free(job);
}

const char *weir_job_error(const weir_job *job)
{
    return job ? job->errors.msg : "";
}

int weir_job_error_code(const weir_job *job)
{
    return job ? job->errors.code : WEIR_EINVAL;
}

const weir_job_config *weir_job_get_config(const weir_job *job)
{
    return &job->cfg;
}

int weir_job_http_port(const weir_job *job)
{
    return job ? atomic_load(&job->http_port) : 0;
}
