/* test_job.c — a job's life: creation with its settings checked and its
 * defaults resolved, one run, the first error, and destruction with
 * everything the job owns.
 *
 * job.h states the lifetime as a pair (weir_job_create ... weir_job_destroy)
 * with exactly one weir_job_run between; a second run is WEIR_ESTATE. The job
 * owns its streams, sink results and every operator arg given with an
 * arg_free, which runs exactly once: at destroy, or at once when the builder
 * call that was given it fails. Error codes and their names come from one
 * list; every code has a message and a name, and unknown codes say so. Leaks
 * on any of these paths fail the AddressSanitizer run.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <string.h>

#include "support/weir_testutil.h"

/* ---- running -------------------------------------------------------------- */

Test(job, running_a_job_twice, .timeout = 60)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    static const uint64_t v[] = {1, 2, 3};
    weir_collect *c;
    weir_sink_collect(weir_source_array(job, v, 3, 8, NULL), &c);
    tu_run_ok(job);
    cr_assert_eq(weir_job_run(job), WEIR_ESTATE);
    /* The first run's results are untouched. */
    cr_assert_eq(weir_collect_count(c), 3u);
    weir_job_destroy(job);

    /* A refused job cannot be run again either. */
    job = tu_job(NULL);
    cr_assert_eq(weir_job_run(job), WEIR_EINVAL);
    cr_assert_eq(weir_job_run(job), WEIR_ESTATE);
    weir_job_destroy(job);
}

/* ---- settings -------------------------------------------------------------- */

/* weir_job_create has no job to keep a message in: it refuses, and
 * weir_job_config_check says which setting and why. */
static void expect_create_refused(const weir_job_config *cfg, const char *word)
{
    static char sentinel;
    weir_job *job = (weir_job *)(void *)&sentinel; /* not NULL: must be cleared */
    int r = weir_job_create(cfg, &job);
    cr_assert_eq(r, WEIR_EINVAL, "weir_job_create returned %d for %s", r, word);
    cr_assert_null(job, "*out must be NULL after a refused create");
    char text[512];
    cr_assert_eq(weir_job_config_check(cfg, text, sizeof text), WEIR_EINVAL);
    tu_assert_contains(text, word);
}

Test(job, job_create_settings_out_of_range)
{
    expect_create_refused(&(weir_job_config){.workers = -1}, "workers -1");
    expect_create_refused(&(weir_job_config){.workers = 100000}, "workers 100000");
    expect_create_refused(&(weir_job_config){.batch_capacity = 100000}, "batch_capacity 100000");
    expect_create_refused(&(weir_job_config){.batch_capacity = -1}, "batch_capacity -1");
    expect_create_refused(&(weir_job_config){.channel_batches = -2}, "channel_batches -2");
    expect_create_refused(&(weir_job_config){.parallelism = WEIR_MAX_PARALLELISM + 1},
                          "parallelism 1025");
    expect_create_refused(&(weir_job_config){.buffer_timeout_ms = -7}, "buffer_timeout_ms -7");
    expect_create_refused(&(weir_job_config){.watermark_interval_ms = -9},
                          "watermark_interval_ms -9");
    expect_create_refused(&(weir_job_config){.clock = (weir_clock_kind)5}, "clock 5");
    cr_assert_eq(weir_job_create(NULL, NULL), WEIR_EINVAL);
    char why[64] = "untouched";
    cr_assert_eq(weir_job_config_check(NULL, why, sizeof why), 0);
    cr_assert_str_empty(why);
}

Test(job, job_create_defaults_resolved)
{
    weir_job *job = tu_job(NULL);
    const weir_job_config *c = weir_job_get_config(job);
    cr_assert_gt(c->workers, 0);
    cr_assert_eq(c->parallelism, 1);
    cr_assert_eq(c->batch_capacity, 512);
    cr_assert_eq(c->channel_batches, 8);
    cr_assert_eq(c->buffer_timeout_ms, 5);
    cr_assert_eq(c->watermark_interval_ms, 200);
    cr_assert_str_empty(weir_job_error(job));
    cr_assert_eq(weir_job_error_code(job), 0);
    weir_job_destroy(job);
    weir_job_destroy(NULL);
    /* Special values survive resolution. */
    job = tu_job(&(weir_job_config){.buffer_timeout_ms = WEIR_FLUSH_AT_ONCE,
                                    .watermark_interval_ms = WEIR_DISABLED,
                                    .workers = 3,
                                    .batch_capacity = 1,
                                    .channel_batches = 1});
    c = weir_job_get_config(job);
    cr_assert_eq(c->buffer_timeout_ms, WEIR_FLUSH_AT_ONCE);
    cr_assert_eq(c->watermark_interval_ms, WEIR_DISABLED);
    cr_assert_eq(c->workers, 3);
    cr_assert_eq(c->batch_capacity, 1);
    cr_assert_eq(c->channel_batches, 1);
    weir_job_destroy(job);
}


Test(job, error_is_empty_until_something_fails, .timeout = 60)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    cr_assert_str_empty(weir_job_error(job));
    cr_assert_eq(weir_job_error_code(job), 0);
    static const uint64_t v[] = {1};
    weir_collect *c;
    weir_sink_collect(weir_source_array(job, v, 1, 8, NULL), &c);
    tu_run_ok(job);
    cr_assert_eq(weir_job_error_code(job), 0);
    weir_job_destroy(job);
}

/* A job that is built but never run, or whose build failed, is destroyed
 * without leaking its streams, nodes, key specs or sink results. */
static void extract8(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

static int ident(const void *in, void *out, void *arg)
{
    (void)arg;
    memcpy(out, in, 8);
    return 0;
}

Test(job, destroy_without_run)
{
    static const uint64_t v[] = {1, 2};
    weir_job *job = tu_job(NULL);
    weir_key_spec key = {.key_size = 8, .extract = extract8};
    weir_stream *s = weir_stream_map(weir_source_array(job, v, 2, 8, NULL), 8, ident, NULL);
    weir_collect *c;
    weir_sink_collect(weir_stream_key_by(s, &key), &c);
    weir_sink_discard(weir_stream_rebalance(s));
    cr_assert_eq(weir_collect_count(c), 0u);
    weir_job_destroy(job);

    job = tu_job(NULL);
    weir_stream_map(weir_source_array(job, v, 2, 8, NULL), 0, ident, NULL);
    cr_assert_eq(weir_job_run(job), WEIR_EINVAL);
    weir_job_destroy(job);
    weir_job_destroy(NULL);
}

/* ---- ownership of operator args ------------------------------------------- */

static _Atomic int frees;

static void count_free(void *p)
{
    free(p);
    atomic_fetch_add(&frees, 1);
}

static weir_process_spec owned_spec(size_t out_size)
{
    weir_process_spec spec = {
        .vtable = &tu_pass_vtable, .arg = malloc(32), .arg_free = count_free, .out_size = out_size};
    return spec;
}

Test(job, arg_free_once_at_destroy_after_a_run, .timeout = 60)
{
    static const uint64_t v[] = {1, 2, 3};
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_process_spec spec = owned_spec(8);
    weir_collect *c;
    weir_sink_collect(weir_stream_process(weir_source_array(job, v, 3, 8, NULL), &spec), &c);
    tu_run_ok(job);
    cr_assert_eq(atomic_load(&frees), 0, "the arg was freed while the job still owns it");
    cr_assert_eq(weir_collect_count(c), 3u);
    weir_job_destroy(job);
    cr_assert_eq(atomic_load(&frees), 1);
}

Test(job, arg_free_once_when_the_builder_fails)
{
    static const uint64_t v[] = {1};
    weir_job *job = tu_job(NULL);
    weir_stream *src = weir_source_array(job, v, 1, 8, NULL);
    weir_process_spec bad = owned_spec(WEIR_MAX_ELEM_SIZE + 1);
    cr_assert_null(weir_stream_process(src, &bad));
    /* Freed at once: the job never took it in. */
    cr_assert_eq(atomic_load(&frees), 1);
    /* Given a NULL stream, the spec's arg is still the job's to free. */
    weir_process_spec orphan = owned_spec(8);
    cr_assert_null(weir_stream_process(NULL, &orphan));
    cr_assert_eq(atomic_load(&frees), 2);
    weir_job_destroy(job);
    cr_assert_eq(atomic_load(&frees), 2, "an arg was freed twice");
}

Test(job, arg_free_for_a_refused_source)
{
    static const weir_source_vtable no_next = {.version = WEIR_SOURCE_VTABLE_V1};
    weir_job *job = tu_job(NULL);
    weir_source_spec spec = {
        .vtable = &no_next, .arg = malloc(8), .arg_free = count_free, .elem_size = 8};
    cr_assert_null(weir_job_add_source(job, &spec));
    cr_assert_eq(atomic_load(&frees), 1);
    weir_job_destroy(job);
    cr_assert_eq(atomic_load(&frees), 1);
}

/* ---- the error list ------------------------------------------------------- */

Test(job, every_error_code_has_a_message_and_a_name)
{
#define CHECK_CODE(name, value, msg)                                                              \
    cr_assert_eq(WEIR_##name, (value));                                                           \
    cr_assert_str_eq(weir_strerror(value), msg);                                                  \
    cr_assert_str_eq(weir_err_name(value), #name);
    WEIR_ERRNO_MAP(CHECK_CODE)
#undef CHECK_CODE
    cr_assert_str_eq(weir_strerror(0), "success");
    cr_assert_str_eq(weir_err_name(0), "OK");
    cr_assert_str_eq(weir_strerror(-1000), "unknown error");
    cr_assert_str_eq(weir_err_name(-1000), "UNKNOWN");
    cr_assert_str_eq(weir_err_name(5), "UNKNOWN");
}

Test(job, record_error_without_a_job_returns_the_code)
{
    cr_assert_eq(weir_job_record_error(NULL, WEIR_EIO, "ignored %d", 1), WEIR_EIO);
    cr_assert_eq(weir_job_run(NULL), WEIR_EINVAL);
    cr_assert_str_empty(weir_job_error(NULL));
}
