/* watermarks.c — three watermark strategies on the same input, side by side.
 *
 * Concept: a watermark W says "no more events with timestamp <= W". The
 * timestamps operator (weir_stream_assign_timestamps) makes them, and the
 * strategy decides how:
 *   - bounded(300): at every periodic probe (every 200 ms of processing time)
 *     it proposes max timestamp seen - 300 - 1, so it tolerates events up to
 *     300 ms out of order;
 *   - ascending: bounded with bound 0, max - 1: right for in-order input, but
 *     on out-of-order input it runs ahead and leaves events behind it;
 *   - punctuated: no probes; a callback looks at each event and may propose a
 *     watermark at once (here every 5th event is a "marker" that proposes its
 *     own timestamp - 301).
 * The input is one generator partition, 20 events per second, up to 300 ms
 * out of order, paced on the virtual clock (event i reaches the pipeline at
 * processing time 50 * i ms), so every run prints the same thing. After the
 * timestamps operator a small process operator, chained to it, records each
 * watermark it sees with its processing time, and counts the events that
 * arrive with a timestamp at or below the watermark it has already seen.
 *
 * What to look for: bounded and ascending change only at probe times (200,
 * 400, ...), ascending 300 ms ahead of bounded; punctuated changes at marker
 * events (every 250 ms), between probes. "behind" counts show the cost:
 * ascending leaves many events behind its watermark (a window would call them
 * late), bounded(300) none. At the end every strategy sends MAX.
 *
 * Run: ./build/release/examples/watermarks
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <weir.h>

enum { MAX_MARKS = 256, NSTRATEGIES = 3 };

/* What the recorder saw in one run (the recorder has one subtask, so one
 * worker thread writes it; main reads it after weir_job_run joined them). */
typedef struct recording {
    int64_t t[MAX_MARKS];  /* processing time of each watermark */
    int64_t wm[MAX_MARKS]; /* the watermark */
    int n;
    int64_t events;
    int64_t behind;        /* events with timestamp <= the watermark seen before */
} recording;

static int record_event(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)elem;
    recording *rec = weir_ctx_arg(ctx);
    rec->events++;
    if (ts <= weir_ctx_watermark(ctx))
        rec->behind++;
    return 0;
}

static int record_watermark(weir_ctx *ctx, int64_t wm)
{
    recording *rec = weir_ctx_arg(ctx);
    if (rec->n < MAX_MARKS) {
        rec->t[rec->n] = weir_ctx_now(ctx);
        rec->wm[rec->n] = wm;
        rec->n++;
    }
    return 0; /* a sink: nothing to forward */
}

static const weir_operator_vtable recorder = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = record_event,
    .on_watermark = record_watermark,
};

/* Punctuated: every 5th event (seq 4, 9, ...) is a marker that promises no
 * event more than 300 ms older than itself will follow. */
static int64_t marker(const void *elem, int64_t ts, void *arg)
{
    (void)arg;
    const weir_gen_event *e = elem;
    return e->seq % 5 == 4 ? ts - 300 - 1 : WEIR_TS_MIN;
}

static int run(weir_watermark_strategy strategy, recording *rec)
{
    const weir_generator_config gen = {
        .partitions = 1,
        .rate = 20,
        .start_ms = 0,
        .pace = WEIR_GEN_PACED, /* event i at processing time 50 * i ms */
        .disorder_ms = 300,
        .count = 40,            /* two seconds of event time */
        .seed = 3,
    };
    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 1,
                                           .clock = WEIR_CLOCK_VIRTUAL,
                                           .watermark_interval_ms = 200,
                                           .diag.level = WEIR_DIAG_OFF},
                        &job) != 0)
        return 1;
    weir_stream *s = weir_source_generator(job, &gen);
    s = weir_stream_assign_timestamps(s, &(weir_timestamps_spec){.strategy = strategy});
    weir_stream_process(s, &(weir_process_spec){.name = "recorder", .vtable = &recorder,
                                                .arg = rec, .accounting = WEIR_ACCOUNTING_SINK});
    int r = weir_job_run(job);
    if (r != 0)
        fprintf(stderr, "watermarks failed: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    return r != 0;
}

/* The watermark of `rec` at time t, if one arrived exactly then. */
static const char *at(const recording *rec, int64_t t, char buf[21])
{
    const char *s = "";
    for (int i = 0; i < rec->n; i++)
        if (rec->t[i] == t)
            s = weir_ts_format(rec->wm[i], buf); /* the last one at t */
    return s;
}

int main(void)
{
    static recording rec[NSTRATEGIES];
    const char *names[NSTRATEGIES] = {"bounded(300)", "ascending", "punctuated"};
    if (run(weir_watermarks_bounded(300), &rec[0]) || run(weir_watermarks_ascending(), &rec[1]) ||
        run(weir_watermarks_punctuated(marker, NULL), &rec[2]))
        return 1;

    printf("watermarks seen after the timestamps operator (20 events/s, up to 300 ms\n"
           "out of order, probes every 200 ms of processing time)\n\n");
    printf("%8s  %14s  %14s  %14s\n", "proc ms", names[0], names[1], names[2]);
    /* One row per processing time at which any strategy's watermark moved,
     * in time order: a merge of the three recordings. */
    int64_t prev = INT64_MIN;
    for (;;) {
        int64_t next = INT64_MAX;
        for (int k = 0; k < NSTRATEGIES; k++)
            for (int i = 0; i < rec[k].n; i++)
                if (rec[k].t[i] > prev && rec[k].t[i] < next)
                    next = rec[k].t[i];
        if (next == INT64_MAX)
            break;
        char b[NSTRATEGIES][21];
        printf("%8" PRId64 "  %14s  %14s  %14s\n", next, at(&rec[0], next, b[0]),
               at(&rec[1], next, b[1]), at(&rec[2], next, b[2]));
        prev = next;
    }
    printf("\n");
    for (int k = 0; k < NSTRATEGIES; k++)
        printf("%-13s %2d watermarks, %2" PRId64 " of %" PRId64
               " events arrived at or behind the watermark\n",
               names[k], rec[k].n, rec[k].behind, rec[k].events);
    printf("\nBounded trails the largest timestamp by 301 ms and leaves nothing behind;\n"
           "ascending trails it by 1 ms, so out-of-order events fall behind it;\n"
           "punctuated moves at marker events, not at probes.\n");
    return 0;
}
