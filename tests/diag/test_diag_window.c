/* test_diag_window.c — the window operator (weir/window.h) in the capture:
 * tumbling windows with allowed lateness and a late side output, sessions,
 * sliding windows whose slide is larger than their size, and sliding windows
 * that overlap (3 windows an element, and in a job of its own 100), on the
 * generator with late
 * elements. Every window event kind appears, each says what the operator did
 * (an on-time firing at or after the window's max, a late element past max +
 * lateness with every window it missed, merges of at least two sessions), the
 * counters add up by the window identity (filtered included), and the
 * capture passes `weir capture validate` (the real binary, as in
 * tests/tools/test_capture.c).
 */
#include <criterion/criterion.h>
#include <sys/wait.h>

#include "diag/test_diag_support.h"

enum { LATENESS = 30 };

static void count_add(void *acc, const void *elem, void *arg)
{
    (void)elem;
    (void)arg;
    ++*(int64_t *)acc;
}

static void count_merge(void *acc, const void *other, void *arg)
{
    (void)arg;
    *(int64_t *)acc += *(const int64_t *)other;
}

static void count_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)w;
    (void)arg;
    memcpy(out, acc, sizeof(int64_t));
}

static weir_stream *window(weir_stream *keyed, const char *name, weir_window_assigner a,
                           int64_t lateness, int late_tag)
{
    weir_window_spec w = {
        .name = name,
        .assigner = a,
        .allowed_lateness_ms = lateness,
        .late_tag = late_tag,
        .aggregate = {.acc_size = sizeof(int64_t), .add = count_add, .merge = count_merge,
                      .result = count_result},
        .out_size = sizeof(int64_t),
        .parallelism = 2,
    };
    return weir_stream_window(keyed, &w);
}

static void run(weir_diag_memory *mem, const char *jsonl)
{
    weir_job_config cfg = {.workers = 1, .clock = WEIR_CLOCK_VIRTUAL, .watermark_interval_ms = 10,
                           .diag = {.memory = mem, .jsonl_path = jsonl}};
    weir_job *job = tu_job(&cfg);
    weir_generator_config g = {.partitions = 3, .keys = 5, .rate = 200, .pace = WEIR_GEN_PACED,
                               .count = 400, .disorder_ms = 10, .late_fraction = 0.1,
                               .late_ms = 40, .seed = 7};
    weir_stream *s = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(10)};
    s = weir_stream_set_parallelism(weir_stream_assign_timestamps(s, &ts), 3);
    weir_stream *keyed = weir_stream_key_by(s, td_gen_keys());
    weir_stream *tumbling =
        window(keyed, "tumbling", weir_window_tumbling(100, 0), LATENESS, WEIR_WINDOW_LATE_TAG);
    cr_assert_not_null(weir_sink_discard(tumbling), "%s", weir_job_error(job));
    cr_assert_not_null(weir_sink_discard(weir_stream_side_output(tumbling, WEIR_WINDOW_LATE_TAG)),
                       "%s", weir_job_error(job));
    cr_assert_not_null(weir_sink_discard(window(keyed, "sessions", weir_window_session(8), 0, 0)),
                       "%s", weir_job_error(job));
    cr_assert_not_null(
        weir_sink_discard(window(keyed, "sliding", weir_window_sliding(20, 50, 0), 0, 0)), "%s",
        weir_job_error(job));
    cr_assert_not_null(
        weir_sink_discard(window(keyed, "overlapping", weir_window_sliding(60, 20, 0), 0, 0)),
        "%s", weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
}

static bool is(const weir_diag_event *ev, weir_diag_kind kind, const char *op)
{
    return ev->kind == kind && strcmp(ev->op, op) == 0;
}

Test(diag_window, the_window_operators_events_say_what_it_did, .timeout = 120)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    run(mem, NULL);
    int on_time = 0, late_fire = 0, late = 0, side = 0, merges = 0, cleanups = 0;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        json_decref(td_json(ev->json));
        if (ev->kind == WEIR_DIAG_KIND_JOB || ev->kind == WEIR_DIAG_KIND_SUMMARY)
            continue;
        if (is(ev, WEIR_DIAG_KIND_WINDOW_FIRE, "tumbling")) {
            cr_assert_eq(ev->window_end - ev->window_start, 100);
            if (ev->firing == 0) {
                cr_assert_geq(ev->watermark, ev->window_end - 1);
                on_time++;
            } else {
                late_fire++;
            }
        } else if (is(ev, WEIR_DIAG_KIND_LATE, "tumbling")) {
            cr_assert_geq(ev->watermark, ev->window_end - 1 + LATENESS);
            cr_assert(!ev->dropped, "a late element dropped despite the side output");
            late++;
        } else if (is(ev, WEIR_DIAG_KIND_LATE, "sessions") ||
                   is(ev, WEIR_DIAG_KIND_LATE, "sliding")) {
            cr_assert(ev->dropped);
        } else if (is(ev, WEIR_DIAG_KIND_MERGE, "sessions")) {
            cr_assert_geq(ev->count, 2);
            merges++;
        } else if (ev->kind == WEIR_DIAG_KIND_CLEANUP) {
            cleanups++;
        }
    }
    json_t *sum = td_summary(mem);
    td_assert_identities(sum);
    side = (int)td_total(sum, "tumbling", "late_side");
    cr_assert_gt(on_time, 0);
    cr_assert_gt(late_fire, 0, "no late firing within the allowed lateness");
    cr_assert_gt(late, 0);
    cr_assert_eq(late, side);
    cr_assert_eq(td_total(sum, "tumbling", "side_out"), side);
    cr_assert_gt(merges, 0);
    cr_assert_gt(cleanups, 0);
    /* slide 50 > size 20: elements between windows are filtered, not late */
    cr_assert_gt(td_total(sum, "sliding", "filtered"), 0);
    cr_assert_gt(td_total(sum, "sessions", "late_dropped") + td_total(sum, "sliding", "late_dropped"),
                 0);
    json_decref(sum);
    weir_diag_memory_destroy(mem);
}

/* The late events of a sliding window of `size` every `slide`: each lists
 * every window of the element (all of them missed: the latest is past its
 * cleanup, the others end earlier), earliest first, or past 64 the earliest
 * and the latest; `missed` counts them all. Returns how many it saw. */
static int check_sliding_late(const weir_diag_memory *mem, const char *op, int64_t size,
                              int64_t slide)
{
    int n = 0;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        if (!is(ev, WEIR_DIAG_KIND_LATE, op))
            continue;
        n++;
        json_t *j = td_json(ev->json);
        json_t *ws = json_object_get(j, "windows");
        int64_t ts = ev->timestamp, want = size / slide; /* windows that hold ts */
        cr_assert_eq(td_int(j, "missed"), want, "%s", ev->json);
        cr_assert_eq(ev->count, want);
        size_t listed = want <= 64 ? (size_t)want : 2;
        cr_assert_eq(json_array_size(ws), listed, "%s", ev->json);
        /* the latest is the one the operator reported */
        json_t *last = json_array_get(ws, listed - 1);
        cr_assert_eq(td_ts_value(json_array_get(last, 0)), ev->window_start);
        cr_assert_eq(td_ts_value(json_array_get(last, 1)), ev->window_end);
        for (size_t k = 0; k < listed; k++) {
            json_t *w = json_array_get(ws, k);
            int64_t a = td_ts_value(json_array_get(w, 0)), b = td_ts_value(json_array_get(w, 1));
            cr_assert_eq(b - a, size);
            cr_assert(a <= ts && ts < b, "window [%lld, %lld) does not hold %lld: %s",
                      (long long)a, (long long)b, (long long)ts, ev->json);
            /* past its cleanup (lateness 0): end - 1 <= watermark */
            cr_assert_leq(b - 1, ev->watermark);
            int64_t back = listed == (size_t)want ? want - 1 - (int64_t)k
                                                  : (int64_t)(k == 0 ? want - 1 : 0);
            cr_assert_eq(a, ev->window_start - back * slide, "%s", ev->json);
        }
        /* and the one before the earliest would not hold ts */
        json_t *first = json_array_get(ws, 0);
        cr_assert_leq(td_ts_value(json_array_get(first, 1)) - slide, ts);
        json_decref(j);
    }
    return n;
}

/* Sliding windows of 100 ms every 1 ms (100 windows an element) and
 * elements 300 ms late: more windows than a late event lists one by one. */
static void run_many(weir_diag_memory *mem, const char *jsonl)
{
    weir_job_config cfg = {.workers = 1, .clock = WEIR_CLOCK_VIRTUAL, .watermark_interval_ms = 10,
                           .diag = {.memory = mem, .jsonl_path = jsonl}};
    weir_job *job = tu_job(&cfg);
    weir_generator_config g = {.partitions = 1, .keys = 3, .rate = 200, .pace = WEIR_GEN_PACED,
                               .count = 300, .late_fraction = 0.1, .late_ms = 300, .seed = 3};
    weir_stream *s = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(10)};
    s = weir_stream_assign_timestamps(s, &ts);
    weir_stream *keyed = weir_stream_key_by(s, td_gen_keys());
    cr_assert_not_null(
        weir_sink_discard(window(keyed, "many", weir_window_sliding(100, 1, 0), 0, 0)), "%s",
        weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
}

Test(diag_window, a_late_element_names_every_window_it_missed, .timeout = 120)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    run_many(mem, NULL);
    cr_assert_gt(check_sliding_late(mem, "many", 100, 1), 0, "no late element");
    weir_diag_memory_destroy(mem);
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    run(mem, NULL);
    cr_assert_gt(check_sliding_late(mem, "overlapping", 60, 20), 0, "no late element");
    /* tumbling and session windows: the one window */
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        if (is(ev, WEIR_DIAG_KIND_LATE, "tumbling") || is(ev, WEIR_DIAG_KIND_LATE, "sessions")) {
            json_t *j = td_json(ev->json);
            cr_assert_eq(td_int(j, "missed"), 1, "%s", ev->json);
            cr_assert_eq(json_array_size(json_object_get(j, "windows")), 1);
            json_decref(j);
        } else if (is(ev, WEIR_DIAG_KIND_LATE, "sliding")) {
            /* slide 50 > size 20: in a window, or late in none */
            json_t *j = td_json(ev->json);
            int64_t missed = td_int(j, "missed");
            cr_assert(missed == 0 || missed == 1, "%s", ev->json);
            cr_assert_eq((int64_t)json_array_size(json_object_get(j, "windows")), missed);
            json_decref(j);
        }
    }
    weir_diag_memory_destroy(mem);
}

/* Windows whose cleanup time is their end (allowed lateness 0) and one with
 * lateness, each engine that fires on a timer: tumbling and sliding (panes),
 * cumulative, sessions. */
static void run_folded(weir_diag_memory *mem, const char *jsonl, const char *msgpack)
{
    weir_job_config cfg = {.workers = 1, .clock = WEIR_CLOCK_VIRTUAL, .watermark_interval_ms = 10,
                           .diag = {.memory = mem, .jsonl_path = jsonl, .msgpack_path = msgpack}};
    weir_job *job = tu_job(&cfg);
    weir_generator_config g = {.partitions = 2, .keys = 5, .rate = 200, .pace = WEIR_GEN_PACED,
                               .count = 400, .disorder_ms = 10, .late_fraction = 0.05,
                               .late_ms = 40, .seed = 11};
    weir_stream *s = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(10)};
    weir_stream *keyed = weir_stream_key_by(weir_stream_assign_timestamps(s, &ts), td_gen_keys());
    struct {
        const char *name;
        weir_window_assigner a;
        int64_t lateness;
    } w[] = {
        {"tumbling", weir_window_tumbling(100, 0), 0},
        {"sliding", weir_window_sliding(60, 20, 0), 0},
        {"cumulative", weir_window_cumulative(60, 20, 0), 0},
        {"sessions", weir_window_session(8), 0},
        {"lateness", weir_window_tumbling(100, 0), LATENESS},
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        cr_assert_not_null(weir_sink_discard(window(keyed, w[i].name, w[i].a, w[i].lateness, 0)),
                           "%s", weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
}

Test(diag_window, a_window_cleaned_up_at_its_firing_says_so_in_the_firing, .timeout = 120)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    run_folded(mem, NULL, NULL);
    static const char *const folding[] = {"tumbling", "sliding", "cumulative", "sessions"};
    for (size_t k = 0; k < sizeof folding / sizeof folding[0]; k++) {
        int on_time = 0, carried = 0, cleanups = 0;
        for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
            const weir_diag_event *ev = weir_diag_memory_event(mem, i);
            if (is(ev, WEIR_DIAG_KIND_WINDOW_FIRE, folding[k])) {
                json_t *j = td_json(ev->json);
                cr_assert_eq(json_is_true(json_object_get(j, "cleanup")), ev->cleanup, "%s",
                             ev->json);
                cr_assert(ev->firing == 0 || !ev->cleanup, "%s", ev->json);
                on_time += ev->firing == 0;
                carried += ev->cleanup;
                json_decref(j);
            }
            cleanups += is(ev, WEIR_DIAG_KIND_CLEANUP, folding[k]);
        }
        /* allowed lateness 0: each window goes at its on-time firing, and
         * says so there, never in a cleanup event of its own */
        cr_assert_gt(on_time, 0, "%s", folding[k]);
        cr_assert_eq(carried, on_time, "%s: %d of %d firings carry their cleanup", folding[k],
                     carried, on_time);
        cr_assert_eq(cleanups, 0, "%s: %d cleanup events", folding[k], cleanups);
    }
    /* with allowed lateness the cleanup comes later, as its own event */
    int on_time = 0, cleanups = 0;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        if (is(ev, WEIR_DIAG_KIND_WINDOW_FIRE, "lateness")) {
            cr_assert(!ev->cleanup, "%s", ev->json);
            cr_assert_null(strstr(ev->json, "cleanup"), "%s", ev->json);
            on_time += ev->firing == 0;
        }
        cleanups += is(ev, WEIR_DIAG_KIND_CLEANUP, "lateness");
    }
    cr_assert_gt(on_time, 0);
    cr_assert_geq(cleanups, on_time);
    weir_diag_memory_destroy(mem);
    /* the capture, in both encodings, is valid version 3 */
    char *dir = td_tmpdir();
    run_folded(NULL, td_path(dir, "f.jsonl"), td_path(dir, "f.msgpack"));
    td_assert_valid(dir, td_path(dir, "f.jsonl"));
    td_assert_valid(dir, td_path(dir, "f.msgpack"));
    td_rmdir(dir);
}

Test(diag_window, a_window_capture_is_valid, .timeout = 120)
{
    char *dir = td_tmpdir();
    const char *path = td_path(dir, "w.jsonl");
    run(NULL, path);
    td_assert_valid(dir, path);
    path = td_path(dir, "many.jsonl");
    run_many(NULL, path);
    td_assert_valid(dir, path);
    td_rmdir(dir);
}
