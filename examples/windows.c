/* windows.c — tumbling, sliding and session windows, with allowed lateness
 * and a late side output.
 *
 * Concept: a window operator (weir/window.h) groups each key's events into
 * windows [start, end) and fires a window when the watermark reaches its last
 * millisecond, end - 1. With allowed lateness L, a window is kept for L ms of
 * event time after that: an event that arrives late but within L joins it and
 * fires it again at once (a late firing, an updated result); after that the
 * window is cleaned up, and an event that no window takes any more is late:
 * it goes to the late side output (or, without one, is dropped and counted).
 *
 * The same clicks run through three windowings, each counting clicks per user
 * with allowed lateness 2 s and a late side output: tumbling 5 s; sliding 10 s
 * every 5 s; sessions with a 2 s gap. The watermark is made by a punctuated
 * strategy that proposes "timestamp - 1001" after every click (what
 * bounded(1000) does at a probe, here after each event so that every run is
 * the same whatever the threads do); the printout's first table shows it.
 *
 * What to look for: alice@3000 arrives after the watermark passed 4999, so
 * tumbling [0, 5000) has fired already: it takes the click and fires again
 * (late firing 1, count 4). bob@1200 arrives at watermark 7999, beyond
 * [0, 5000)'s 2 s of lateness: in tumbling windows it goes to the late side
 * output; in sliding windows [0, 10000) still takes it, so it is not late
 * there (an event that some windows take is not late); in sessions it would
 * open a session [1200, 3200) of its own (bob's first session was cleaned up
 * at watermark 5499), which is past its lateness too, so it is late again.
 * Alice's four early clicks merge into one session, [1000, 8000).
 *
 * Run: ./build/release/examples/windows
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <weir.h>

typedef struct click {
    char user[8];
} click;

/* A window's result: the user's clicks in it, and which firing it was. */
typedef struct result {
    char user[8];
    int64_t start, end, count, watermark;
    int32_t firing;
    int32_t late;
} result;

static void by_user(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, ((const click *)elem)->user, 8);
}

/* The watermark after each click: its timestamp - 1 s - 1 (the output gate
 * lets it through only if it is above the last one, so it never goes back). */
static int64_t after_each_click(const void *elem, int64_t ts, void *arg)
{
    (void)elem;
    (void)arg;
    return ts - 1000 - 1;
}

/* The count aggregate: the accumulator is an int64. */
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
    (void)arg;
    result *r = out;
    memset(r, 0, sizeof *r);
    memcpy(r->user, w->key, 8);
    r->start = w->start;
    r->end = w->end;
    r->count = *(const int64_t *)acc;
    r->watermark = w->watermark;
    r->firing = w->firing;
    r->late = w->late;
}

/* In arrival order. */
static const click clicks[] = {
    {"alice"}, {"bob"}, {"alice"}, {"alice"}, {"bob"}, {"alice"},
    {"alice"}, /* late, but within the allowed lateness */
    {"bob"},
    {"bob"},   /* late beyond the allowed lateness */
    {"alice"},
};
static const int64_t stamps[] = {1000, 1500, 2500, 4200, 5100, 6000, 3000, 9000, 1200, 12000};
enum { NCLICKS = sizeof stamps / sizeof stamps[0] };

static int run(const char *title, weir_window_assigner assigner)
{
    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 2}, &job) != 0)
        return 1;
    weir_stream *s = weir_source_array(job, clicks, NCLICKS, sizeof(click), stamps);
    s = weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_punctuated(after_each_click, NULL)});
    s = weir_stream_key_by(s, &(weir_key_spec){.key_size = 8, .extract = by_user});
    weir_stream *w = weir_stream_window(
        s, &(weir_window_spec){.name = "clicks",
                               .assigner = assigner,
                               .allowed_lateness_ms = 2000,
                               .late_tag = WEIR_WINDOW_LATE_TAG,
                               .aggregate = {.acc_size = sizeof(int64_t),
                                             .add = count_add,
                                             .merge = count_merge,
                                             .result = count_result},
                               .out_size = sizeof(result)});
    weir_collect *results, *late;
    weir_sink_collect(w, &results);
    weir_sink_collect(weir_stream_side_output(w, WEIR_WINDOW_LATE_TAG), &late);
    int r = weir_job_run(job);
    if (r != 0) {
        fprintf(stderr, "windows failed: %s\n", weir_job_error(job));
        weir_job_destroy(job);
        return 1;
    }
    /* One window subtask and one channel to each sink: the results arrive in
     * the order the window fired them. */
    printf("\n%s\n", title);
    for (size_t i = 0; i < weir_collect_count(results); i++) {
        const result *x = weir_collect_elem(results, i);
        char when[48], wmbuf[21];
        if (x->firing == 0)
            snprintf(when, sizeof when, "on time");
        else
            snprintf(when, sizeof when, "late firing %d", (int)x->firing);
        printf("  [%6" PRId64 ", %6" PRId64 ")  %-5.8s  count %" PRId64 "   %-13s at watermark %s\n",
               x->start, x->end, x->user, x->count, when, weir_ts_format(x->watermark, wmbuf));
    }
    for (size_t i = 0; i < weir_collect_count(late); i++) {
        const click *c = weir_collect_elem(late, i);
        printf("  late side output: %s@%" PRId64 "\n", c->user, weir_collect_timestamp(late, i));
    }
    weir_job_destroy(job);
    return 0;
}

int main(void)
{
    printf("clicks in arrival order, and the watermark after each:\n ");
    int64_t wm = WEIR_TS_MIN;
    for (int i = 0; i < NCLICKS; i++) {
        if (stamps[i] - 1001 > wm)
            wm = stamps[i] - 1001;
        printf(" %s@%" PRId64 "(wm %" PRId64 ")%s", clicks[i].user, stamps[i], wm,
               i % 4 == 3 ? "\n " : "");
    }
    printf("\nthen MAX at the end of input. Counting clicks per user, allowed lateness 2000 ms:\n");
    if (run("tumbling 5 s", weir_window_tumbling(5000, 0)) ||
        run("sliding 10 s every 5 s", weir_window_sliding(10000, 5000, 0)) ||
        run("sessions, gap 2 s", weir_window_session(2000)))
        return 1;
    printf("\nResults carry the window's last millisecond (end - 1) as their timestamp.\n"
           "A late firing updates an earlier result; the late side output holds the\n"
           "clicks no window would take any more.\n");
    return 0;
}
