/* test_diag_modes.c — lossless and lossy transport under a slow sink, and
 * a collector that parks when there is nothing to write.
 *
 * The job is the window job of test_diag_support.h at verbose level: virtual
 * clock, one worker, so every run makes the same events in the same order
 * (one worker, one FIFO ring; the clock does not move while a worker is busy,
 * also not while it waits for room in its ring). That is what makes the
 * comparisons exact: a lossless run behind a sink that sleeps on every event
 * must write exactly the events of a run behind a fast sink, byte for byte,
 * and its producer must have waited for room (the channel's own count: it
 * is not in the capture, which must not depend on how fast the sink was);
 * a lossy run with a one-slot ring must drop some, count every one, and keep
 * the others in order: what it wrote is a subsequence of the lossless
 * events, and written + dropped = the lossless count. With two workers the
 * interleaving varies, so a lossless run is checked against its own
 * counters instead: every record event and every throughput count is there.
 */
#include <criterion/criterion.h>
#include <time.h>

#include "diag.h"
#include "diag/test_diag_support.h"

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
static json_t *run_workers(seen *s, bool lossy, int ring_capacity, int workers)
{
    weir_job_config cfg = {.workers = workers,
                           .diag = {.level = WEIR_DIAG_VERBOSE,
                                    .callback = slow_callback,
                                    .callback_arg = s,
                                    .lossy = lossy,
                                    .ring_capacity = ring_capacity}};
    td_window_job w;
    td_window_job_make(&w, &cfg);
    tu_run_ok(w.job);
    td_destroy_job(w.job);
    cr_assert_gt(s->n, 2);
    json_t *sum = td_json(s->json[s->n - 1]);
    cr_assert_str_eq(td_str(sum, "kind"), "summary");
    /* what the summary counts is what reached the sink */
    cr_assert_eq(td_int(sum, "events"), (int64_t)s->n - 1);
    td_assert_identities(sum);
    return sum;
}

static json_t *run(seen *s, bool lossy, int ring_capacity)
{
    return run_workers(s, lossy, ring_capacity, 1);
}

Test(diag_modes, lossless_loses_nothing_under_a_slow_sink, .timeout = 300)
{
    seen fast = {0}, slow = {.sleep_ns = 20000};
    json_t *a = run(&fast, false, 0);
    json_t *b = run(&slow, false, 16);
    weir__diag_stats st = td_stats;
    cr_assert_eq(td_int(b, "dropped_events"), 0);
    cr_assert_eq(st.dropped, 0);
    cr_assert_gt(st.waited, 0, "a 16-event ring behind a slow sink never filled");
    cr_assert_eq(slow.n, fast.n, "a slow sink got %zu events, a fast one %zu", slow.n, fast.n);
    for (size_t i = 1; i < fast.n; i++) {
        /* the job event records the ring capacity; everything else is equal */
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

/* Per (op, subtask): the record events and the throughput sums of a run. */
static void assert_nothing_lost(const seen *s, const json_t *sum)
{
    json_t *ops = json_object_get(sum, "operators"), *o;
    size_t i;
    int64_t records = 0;
    json_array_foreach(ops, i, o)
    {
        const char *op = td_str(o, "op");
        int sub = (int)td_int(o, "subtask");
        int64_t rec = 0, in = 0, out = 0;
        for (size_t k = 1; k + 1 < s->n; k++) {
            json_t *ev = td_json(s->json[k]);
            if (strcmp(td_str(ev, "op"), op) == 0 && td_int(ev, "subtask") == sub) {
                const char *kind = td_str(ev, "kind");
                if (strcmp(kind, "record") == 0)
                    rec++;
                else if (strcmp(kind, "throughput") == 0) {
                    in += td_int(ev, "in");
                    out += td_int(ev, "out");
                }
            }
            json_decref(ev);
        }
        cr_assert_eq(rec, td_int(o, "in"), "%s/%d: %lld record events, in %lld", op, sub,
                     (long long)rec, (long long)td_int(o, "in"));
        cr_assert_eq(in, td_int(o, "in"), "%s/%d: throughput in", op, sub);
        cr_assert_eq(out, td_int(o, "out"), "%s/%d: throughput out", op, sub);
        records += rec;
    }
    cr_assert_gt(records, 0);
}

Test(diag_modes, lossless_with_two_workers_waits_and_loses_nothing, .timeout = 300)
{
    seen s = {.sleep_ns = 20000};
    json_t *sum = run_workers(&s, false, 8, 2);
    weir__diag_stats st = td_stats;
    cr_assert_eq(td_int(sum, "dropped_events"), 0);
    cr_assert_eq(st.dropped, 0);
    cr_assert_gt(st.waited, 0, "8-event rings behind a slow sink never made a producer wait");
    cr_assert_eq(st.ring_size, 8);
    assert_nothing_lost(&s, sum);
    json_decref(sum);
    seen_free(&s);
}

/* A source that emits one element, waits 400 ms of the system clock, and
 * emits another: the job is idle for most of its run. */
typedef struct napper {
    int emitted;
} napper;

static int nap_open(weir_ctx *ctx)
{
    napper *n = calloc(1, sizeof *n);
    if (!n)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, n);
    return 0;
}

static int nap_next(weir_ctx *ctx)
{
    napper *n = weir_ctx_state(ctx);
    uint64_t v = (uint64_t)n->emitted;
    int r = weir_emit(ctx, &v, n->emitted);
    if (r < 0)
        return r;
    if (++n->emitted == 2)
        return WEIR_SOURCE_END;
    weir_source_wait_until(ctx, weir_ctx_now(ctx) + 400);
    return WEIR_SOURCE_WAIT;
}

static void nap_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

Test(diag_modes, the_collector_parks_while_nothing_happens, .timeout = 60)
{
    /* 400 ms with nothing to do and nothing to report: a collector that
     * polled (every 1..16 ms) would wake some 30 times; one that parks polls
     * a few times after each burst of events and then sleeps until a
     * producer wakes it. (The bound holds however slow the machine: it
     * counts bursts, not time.) */
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_job_config cfg = {.workers = 2, .diag.memory = mem};
    weir_job *job = tu_job(&cfg);
    static const weir_source_vtable vt = {.version = WEIR_SOURCE_VTABLE_V1,
                                          .open = nap_open,
                                          .next = nap_next,
                                          .close = nap_close};
    weir_source_spec spec = {.name = "napper", .vtable = &vt, .elem_size = sizeof(uint64_t)};
    weir_stream *s = weir_job_add_source(job, &spec);
    cr_assert_not_null(weir_sink_discard(weir_stream_rebalance(s)), "%s", weir_job_error(job));
    tu_run_ok(job);
    td_destroy_job(job);
    weir__diag_stats st = td_stats;
    cr_log_info("collector: %lld short polls, %lld parks", (long long)st.empty_polls,
                (long long)st.parks);
    cr_assert_gt(st.parks, 0, "the collector never parked");
    cr_assert_leq(st.empty_polls, 16, "the collector polled %lld times in a mostly idle run",
                  (long long)st.empty_polls);
    cr_assert_eq(st.events, (int64_t)weir_diag_memory_count(mem));
    weir_diag_memory_destroy(mem);
}
