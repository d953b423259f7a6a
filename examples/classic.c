/* classic.c — the classic event-time job: counts per name in 10 s windows.
 *
 * Concept: the pipeline every Flink tutorial starts with, in weir. Events are
 * (name, count, timestamp) records; a timestamp assigner reads each event's
 * own timestamp, with watermarks for 1 s of bounded out-of-orderness probed
 * every 100 ms of processing time; the stream is keyed by name; 10 s tumbling
 * event-time windows sum the counts; the results are printed. The events come
 * from the synthetic generator (one partition, 10 events per second from 1 s
 * to 40 s of event time, up to 800 ms out of order, names by a zipf law), mapped to
 * named records, paced on the virtual clock: 40 s of event time take a few
 * milliseconds, and the output is the same every run.
 *
 * What to look for: one line per (window, name), in the order the windows
 * fire: [0 s, 10 s) first, when the watermark passes 9999, i.e. once an event
 * stamped after 11 s has been seen. Each window's counts add up to about 100
 * (10 s at 10 events per second; an event near a window's edge may fall into
 * the next one back, by its disorder), the first to about 90, since events
 * start at 1 s. Nothing is late: the disorder stays within the 1 s bound.
 * alice, the most frequent name, has the largest share.
 *
 * Run: ./build/release/examples/classic
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <weir.h>

typedef struct name_event {
    char name[8];
    int64_t count;
    int64_t ts; /* event time, ms */
} name_event;

typedef struct name_total {
    char name[8];
    int64_t start, end, count;
} name_total;

static const char names[4][8] = {"alice", "bob", "carol", "dave"};

/* The generator's events, as named records that carry their own timestamp. */
static int to_name_event(const void *in, void *out, void *arg)
{
    (void)arg;
    const weir_gen_event *g = in;
    name_event *e = out;
    memset(e, 0, sizeof *e);
    memcpy(e->name, names[g->key], sizeof e->name);
    e->count = 1;
    e->ts = g->timestamp;
    return 0;
}

static int64_t event_time(const void *elem, int64_t current, void *arg)
{
    (void)current;
    (void)arg;
    return ((const name_event *)elem)->ts;
}

static void by_name(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, ((const name_event *)elem)->name, 8);
}

/* Sums the counts: the accumulator is a name_event (reduce keeps the input's
 * type), the finish step adds the window's bounds. */
static void sum_counts(void *acc, const void *elem, void *arg)
{
    (void)arg;
    ((name_event *)acc)->count += ((const name_event *)elem)->count;
}

static void with_window(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    const name_event *a = acc;
    name_total *t = out;
    memcpy(t->name, a->name, sizeof t->name);
    t->start = w->start;
    t->end = w->end;
    t->count = a->count;
}

static int format(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)ts;
    (void)arg;
    const name_total *t = elem;
    return snprintf(buf, size, "[%2" PRId64 " s, %2" PRId64 " s)  %-5.8s %3" PRId64,
                    t->start / 1000, t->end / 1000, t->name, t->count);
}

int main(void)
{
    const weir_generator_config gen = {
        .partitions = 1,
        .keys = 4,
        .skew = WEIR_GEN_ZIPF,
        .rate = 10,
        .start_ms = 1000, /* nominal times 1 s .. 40 s: with the disorder, none below 0 */
        .pace = WEIR_GEN_PACED,
        .disorder_ms = 800,
        .duration_ms = 39000,
        .seed = 2024,
    };
    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 2, .clock = WEIR_CLOCK_VIRTUAL}, &job) != 0)
        return 1;
    weir_stream *s = weir_source_generator(job, &gen);
    s = weir_stream_map(s, sizeof(name_event), to_name_event, NULL);
    weir_watermark_strategy bounded = weir_watermarks_bounded(1000);
    bounded.interval_ms = 100;
    s = weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.extract = event_time, .strategy = bounded});
    s = weir_stream_key_by(s, &(weir_key_spec){.key_size = 8, .extract = by_name});
    s = weir_stream_window(s, &(weir_window_spec){.name = "sum",
                                                  .assigner = weir_window_tumbling(10000, 0),
                                                  .reduce = sum_counts,
                                                  .reduce_finish = with_window,
                                                  .out_size = sizeof(name_total)});
    printf("counts per name, 10 s tumbling event-time windows:\n");
    weir_sink_print(s, format, NULL, stdout);
    int r = weir_job_run(job);
    if (r != 0)
        fprintf(stderr, "classic failed: %s\n", weir_job_error(job));
    else
        printf("(each window fired when the watermark, max timestamp - 1001, passed its end - 1)\n");
    weir_job_destroy(job);
    return r == 0 ? 0 : 1;
}
