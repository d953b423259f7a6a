/* test_diag_oom.c — memory running out while the diagnostic channel writes
 * a capture is an error of the run ("out of memory", WEIR_ENOMEM), never an
 * abort.
 *
 * The sinks build every event as msgpack and decode it again for the JSONL,
 * memory and callback sinks; a failed allocation there (the packer's buffer
 * that cannot grow, msgpack-c's zone) used to be taken for an event that
 * does not decode, a broken invariant, and abort the process. Here the test
 * binary puts its own allocator in front of the C library's
 * (support/alloc_fail.h) and makes exactly the N-th allocation after the
 * job is built fail, for every N until a run makes fewer than N: every run
 * must then return 0 or fail with a message that says "out of memory", and
 * a capture it claims (renamed into place) must be whole: valid, with the
 * run's error in its summary if it failed.
 *
 * Not built under the sanitizers (tests/CMakeLists.txt leaves every
 * test_*_oom.c out): ASan and TSan own malloc there. The runs are
 * small (one worker, the virtual clock, 80 records), so the loop stays
 * within seconds; it is bounded by MAX_N and the test's timeout.
 */
#include <criterion/criterion.h>

#include "diag/test_diag_support.h"
#include "support/alloc_fail.h"

#define MAX_N 20000

/* A small keyed window job (the window operator of test_diag_support.h,
 * which reports every window event kind) with a JSONL capture, an msgpack
 * one and the memory sink: every sink's path. 0 or the run's error code;
 * the message in why. */
static int run_once(const char *dir, long n, weir_diag_memory *mem, long *made, char *why,
                    size_t size)
{
    weir_job_config cfg = {.workers = 1,
                           .clock = WEIR_CLOCK_VIRTUAL,
                           .watermark_interval_ms = 10,
                           .diag = {.level = WEIR_DIAG_STANDARD,
                                    .throughput_interval_ms = 50,
                                    .jsonl_path = td_path(dir, "c.jsonl"),
                                    .msgpack_path = td_path(dir, "c.msgpack"),
                                    .memory = mem}};
    weir_job *job = tu_job(&cfg);
    weir_generator_config g = {.partitions = 1, .keys = 3, .rate = 1000,
                               .pace = WEIR_GEN_PACED, .count = 80, .disorder_ms = 10,
                               .late_fraction = 0.1, .late_ms = 40, .seed = 7};
    weir_stream *s = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(10)};
    s = weir_stream_assign_timestamps(s, &ts);
    weir_stream *win = td_window(weir_stream_key_by(s, td_gen_keys()), "window", 1);
    cr_assert_not_null(weir_sink_discard(win), "%s", weir_job_error(job));
    af_arm(n);
    int r = weir_job_run(job);
    *made = af_disarm();
    snprintf(why, size, "%s", weir_job_error(job));
    weir_job_destroy(job);
    return r;
}

Test(diag_oom, a_failed_allocation_is_an_error_never_an_abort, .timeout = 240)
{
    char *dir = td_tmpdir();
    long failed = 0;
    long n;
    for (n = 1; n <= MAX_N; n++) {
        weir_diag_memory *mem;
        cr_assert_eq(weir_diag_memory_create(&mem), 0);
        remove(td_path(dir, "c.jsonl"));
        char why[1024];
        long made;
        int r = run_once(dir, n, mem, &made, why, sizeof why);
        weir_diag_memory_destroy(mem);
        if (r != 0) {
            failed++;
            cr_assert(strstr(why, "out of memory") || r == WEIR_ENOMEM,
                      "allocation %ld failed: the run failed with %s: %s", n, weir_err_name(r),
                      why);
        }
        /* a capture renamed into place is whole: a failed run's has its
         * summary, with the error; one whose sink failed is removed */
        if (td_exists(td_path(dir, "c.jsonl")))
            td_assert_valid(dir, td_path(dir, "c.jsonl"));
        if (made < n)
            break; /* the run made fewer allocations: every one has failed once */
    }
    cr_assert_leq(n, MAX_N, "more than %d allocations in one small run", MAX_N);
    cr_assert_gt(failed, 10, "only %ld runs failed: the allocator is not interposed", failed);
    cr_log_info("%ld runs, %ld failed with out of memory", n, failed);
    td_rmdir(dir);
}
