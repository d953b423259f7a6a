/* test_diag_modes.c — lossless and lossy transport under a slow sink.
 *
 * The job is the window job of test_diag_support.h at verbose level: virtual
 * clock, one worker, so every run makes the same events in the same order
 * (one worker, one FIFO ring; the clock does not move while a worker is busy,
 * also not while it waits for room in its ring). That is what makes the
 * comparisons exact: a lossless run behind a sink that sleeps on every event
 * must write exactly the events of a run behind a fast sink, byte for byte;
 * a lossy run with a one-slot ring must drop some, count every one, and keep
 * the others in order: what it wrote is a subsequence of the lossless
 * events, and written + dropped = the lossless count.
 */
#include <criterion/criterion.h>
#include <time.h>

#include "runtime/test_diag_support.h"

typedef struct seen {
    char **json;
    size_t n, cap;
    long sleep_ns;
} seen;

/* On the collector thread (and the job thread for job and summary). */
static void slow_callback(const weir_diag_event *ev, void *arg)
{
    seen *s = arg;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 4096;
        s->json = realloc(s->json, s->cap * sizeof *s->json);
        if (!s->json)
            abort();
    }
    s->json[s->n] = strdup(ev->json);
    if (!s->json[s->n])
        abort();
    s->n++;
    struct timespec d = {0, s->sleep_ns};
    nanosleep(&d, NULL);
}

static void seen_free(seen *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->json[i]);
    free(s->json);
}

/* Runs the window job at verbose level into `s`. Returns the summary. */
static json_t *run(seen *s, bool lossy, int ring_capacity)
{
    weir_job_config cfg = {.diag = {.level = WEIR_DIAG_VERBOSE,
                                    .callback = slow_callback,
                                    .callback_arg = s,
                                    .lossy = lossy,
                                    .ring_capacity = ring_capacity}};
    td_window_job w;
    td_window_job_make(&w, &cfg);
    tu_run_ok(w.job);
    weir_job_destroy(w.job);
    cr_assert_gt(s->n, 2);
    json_t *sum = td_json(s->json[s->n - 1]);
    cr_assert_str_eq(td_str(sum, "kind"), "summary");
    /* what the summary counts is what reached the sink */
    cr_assert_eq(td_int(sum, "events"), (int64_t)s->n - 1);
    td_assert_identities(sum);
    return sum;
}

Test(diag_modes, lossless_loses_nothing_under_a_slow_sink, .timeout = 300)
{
    seen fast = {0}, slow = {.sleep_ns = 20000};
    json_t *a = run(&fast, false, 0);
    json_t *b = run(&slow, false, 16);
    cr_assert_eq(td_int(b, "dropped_events"), 0);
    cr_assert_eq(slow.n, fast.n, "a slow sink got %zu events, a fast one %zu", slow.n, fast.n);
    for (size_t i = 0; i < fast.n; i++) {
        /* the job event records the ring capacity; everything else is equal */
        if (i == 0)
            continue;
        cr_assert_str_eq(slow.json[i], fast.json[i], "event %zu differs", i);
    }
    json_decref(a);
    json_decref(b);
    seen_free(&fast);
    seen_free(&slow);
}

Test(diag_modes, lossy_counts_what_it_drops, .timeout = 300)
{
    seen lossless = {0}, lossy = {.sleep_ns = 50000};
    json_t *a = run(&lossless, false, 0);
    json_t *b = run(&lossy, true, 1);
    int64_t dropped = td_int(b, "dropped_events");
    cr_assert(json_is_true(json_object_get(b, "lossy")));
    cr_assert_gt(dropped, 0, "a one-slot ring behind a slow sink dropped nothing");
    cr_assert_eq(td_int(b, "events") + dropped, td_int(a, "events"),
                 "written %lld + dropped %lld != the lossless run's %lld",
                 (long long)td_int(b, "events"), (long long)dropped,
                 (long long)td_int(a, "events"));
    /* the events it kept are the lossless run's, in order (job and summary
     * differ: they say lossy) */
    size_t k = 1;
    for (size_t i = 1; i + 1 < lossy.n; i++) {
        while (k + 1 < lossless.n && strcmp(lossless.json[k], lossy.json[i]) != 0)
            k++;
        cr_assert_lt(k + 1, lossless.n, "lossy event %zu is not in the lossless run, in order: %s",
                     i, lossy.json[i]);
        k++;
    }
    /* the counters are exact whatever was dropped */
    json_t *oa = json_object_get(a, "operators"), *ob = json_object_get(b, "operators");
    cr_assert(json_equal(oa, ob), "the summary counters differ between lossless and lossy");
    json_decref(a);
    json_decref(b);
    seen_free(&lossless);
    seen_free(&lossy);
}
