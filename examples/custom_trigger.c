/* custom_trigger.c — a window trigger written in C (Flink's Trigger): early
 * results every few elements, the final one when the window ends.
 *
 * Concept: a weir_trigger_vtable in weir_window_spec.trigger.custom decides
 * when a window fires, as Flink's Trigger does. The window operator calls
 * on_element for every element added to a window, on_event_time /
 * on_processing_time for the timers the trigger registered for that window
 * (weir_trigger_register), and clear when the window goes; each answers
 * CONTINUE, FIRE (the function runs on the contents, which stay), PURGE or
 * FIRE_AND_PURGE. The trigger keeps its own per-window state in tc->state
 * (state_size bytes, zeroed for a new window): here the elements since the
 * last early firing. A custom trigger's windows keep their elements, so
 * every firing sees the window's whole contents so far.
 *
 * The job counts clicks per user in 10 s tumbling event-time windows with a
 * trigger that fires early at every 3rd click of a window (FIRE: an
 * intermediate count, the contents kept) and once more when the watermark
 * reaches the window's end (an event-time timer at its max timestamp:
 * FIRE_AND_PURGE, the final count). The count function tells the two apart
 * by the watermark: below the window's max timestamp the firing is early.
 *
 * What to look for: alice's first window [0 s, 10 s) fires early at her 3rd
 * and 6th click (counts 3 and 6), then finally with 7 once the watermark
 * passes 10 s (her click at 10.5 s brings it); bob's first window has 2
 * clicks, never 3: only its final result; alice's second window fires early
 * at 3 and finally at 4, at the end of input.
 *
 * Run: ./build/release/examples/custom_trigger
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weir.h>

#define EARLY_EVERY 3

typedef struct click {
    int64_t user;
    int64_t page;
} click;

typedef struct window_count {
    int64_t user;
    int64_t start, end;
    int64_t clicks;
    int64_t early; /* 1: an early firing, 0: the final one */
} window_count;

/* ---- the trigger ---- */

typedef struct early_state {
    int64_t since_fire; /* elements since the last early firing */
} early_state;

static int early_on_element(weir_trigger_ctx *tc, const void *elem, int64_t timestamp)
{
    (void)elem;
    (void)timestamp;
    early_state *s = tc->state;
    /* the final firing: when the watermark reaches the window's end
     * (registering it again for each element keeps one timer) */
    int r = weir_trigger_register(tc, WEIR_EVENT_TIME, tc->max_timestamp);
    if (r)
        return r;
    if (++s->since_fire < EARLY_EVERY)
        return WEIR_TRIGGER_CONTINUE;
    s->since_fire = 0;
    return WEIR_TRIGGER_FIRE; /* early: the contents stay for the next firing */
}

static int early_on_event_time(weir_trigger_ctx *tc, int64_t time)
{
    /* the window's own end: the final result, then the contents go. (The
     * operator's cleanup timer reaches the trigger too, at max + allowed
     * lateness: the same time here, where lateness is 0.) */
    return time == tc->max_timestamp ? WEIR_TRIGGER_FIRE_AND_PURGE : WEIR_TRIGGER_CONTINUE;
}

static void early_clear(weir_trigger_ctx *tc)
{
    weir_trigger_delete(tc, WEIR_EVENT_TIME, tc->max_timestamp);
}

static const weir_trigger_vtable early_trigger = {
    .version = WEIR_TRIGGER_VTABLE_V1,
    .state_size = sizeof(early_state),
    .on_element = early_on_element,
    .on_event_time = early_on_event_time,
    .clear = early_clear,
};

/* ---- the window function: a count ---- */

typedef struct count_acc {
    int64_t user, n;
} count_acc;

static void count_add(void *acc, const void *elem, void *arg)
{
    (void)arg;
    count_acc *a = acc;
    a->user = ((const click *)elem)->user;
    a->n++;
}

static void count_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    const count_acc *a = acc;
    *(window_count *)out = (window_count){.user = a->user, .start = w->start, .end = w->end,
                                          .clicks = a->n,
                                          .early = w->watermark < w->max_timestamp};
}

static void user_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const click *)elem)->user, sizeof(int64_t));
}

static int64_t every_click(const void *elem, int64_t timestamp, void *arg)
{
    (void)elem;
    (void)arg;
    return timestamp;
}

static const char *const users[] = {"?", "alice", "bob"};

int main(void)
{
    /* alice: 7 clicks in [0, 10 s), 4 in [10 s, 20 s); bob: 2, then 1 */
    static const click clicks[] = {
        {1, 1}, {1, 2}, {2, 1}, {1, 3}, {1, 1}, {2, 2}, {1, 4}, {1, 2}, {1, 5},
        {1, 1}, {2, 3}, {1, 2}, {1, 3}, {1, 4},
    };
    static const int64_t ts[] = {500,   1500,  2000,  3000,  4200,  5000,  6100,
                                 7300,  9900,  10500, 12000, 13000, 14000, 18000};
    enum { N = sizeof clicks / sizeof clicks[0] };

    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 2}, &job) != 0)
        return 1;
    weir_stream *s = weir_source_array(job, clicks, N, sizeof(click), ts);
    /* a watermark after every click (they come in time order): windows end
     * as the clicks go by, not all at the end of input */
    s = weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_punctuated(every_click, NULL)});
    s = weir_stream_key_by(s, &(weir_key_spec){.key_size = 8, .extract = user_key});
    s = weir_stream_window(
        s, &(weir_window_spec){.name = "early-counts",
                               .assigner = weir_window_tumbling(10000, 0),
                               .trigger = {.custom = &early_trigger},
                               .aggregate = {.acc_size = sizeof(count_acc), .add = count_add,
                                             .result = count_result},
                               .out_size = sizeof(window_count), .parallelism = 1});
    weir_collect *out;
    weir_sink_collect(s, &out);
    if (weir_job_run(job) != 0) {
        fprintf(stderr, "custom_trigger failed: %s\n", weir_job_error(job));
        weir_job_destroy(job);
        return 1;
    }
    printf("clicks per user in 10 s windows: early every %d clicks, final at the window's end\n\n",
           EARLY_EVERY);
    printf("%-6s  %-14s  %6s  %s\n", "user", "window (s)", "clicks", "firing");
    for (size_t i = 0; i < weir_collect_count(out); i++) {
        const window_count *c = weir_collect_elem(out, i);
        char win[48];
        snprintf(win, sizeof win, "[%" PRId64 ", %" PRId64 ")", c->start / 1000, c->end / 1000);
        printf("%-6s  %-14s  %6" PRId64 "  %s\n", users[c->user], win, c->clicks,
               c->early ? "early" : "final");
    }
    /* the test suite runs this: the counts above, in that order */
    static const int64_t want[] = {3, 6, 7, 2, 3, 4, 1};
    int bad = weir_collect_count(out) != sizeof want / sizeof want[0];
    for (size_t i = 0; !bad && i < weir_collect_count(out); i++)
        bad = ((const window_count *)weir_collect_elem(out, i))->clicks != want[i];
    weir_job_destroy(job);
    return bad;
}
