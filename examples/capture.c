/* capture.c — writing a job's diagnostic capture to a JSONL file.
 *
 * Concept: every operator subtask of a weir job reports into one diagnostic
 * channel — the topology, every watermark advance (at each output, and at each
 * valve per input channel with the channel holding the minimum back),
 * idle/active changes, throughput, late elements, window firings, and a final
 * summary whose counters add up. Nothing in the pipeline is written to be
 * observed: setting weir_job_config.diag.jsonl_path is all it takes, and
 * diag.msgpack_path writes the same events in msgpack too (smaller, faster
 * to write; the viewer reads both). Here a generator with 2 partitions, whose
 * event time is epoch milliseconds as real data's is, feeds a bounded(500)
 * timestamps operator chained to it, a key_by into 2 subtasks of a keyed
 * running count (keyed value state), and a discarding sink; it runs on the
 * virtual clock, so the capture is the same every run.
 *
 * What to look for: the paths of capture.jsonl and capture.msgpack (in the
 * working directory), how many events of each kind they hold (read back with
 * weir/capture.h), and the commands to look at them: `weir capture summary`
 * prints a readable report, and viewer/index.html (opened from disk in a
 * browser) draws either as a timeline.
 *
 * Run: ./build/release/examples/capture
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <weir.h>

#define CAPTURE "capture.jsonl"
#define CAPTURE_MSGPACK "capture.msgpack"

typedef struct key_count {
    int64_t key;
    int64_t count;
} key_count;

static int count_open(weir_ctx *ctx)
{
    int id;
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(int64_t), &id);
    if (r == 0)
        weir_ctx_set_state(ctx, (void *)(intptr_t)id);
    return r;
}

/* The current key is the record's key: the value state is per key. */
static int count_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    int id = (int)(intptr_t)weir_ctx_state(ctx);
    int64_t *n = weir_state_value(ctx, id, 0, true);
    if (!n)
        return weir_ctx_state_error(ctx);
    ++*n;
    key_count out = {((const weir_gen_event *)elem)->key, *n};
    return weir_emit(ctx, &out, ts);
}

static const weir_operator_vtable count_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = count_open,
    .on_record = count_record,
};



/* The value of "kind" in one JSONL event, into buf. */
static const char *kind_of(const char *json, char *buf, size_t size)
{
    const char *p = strstr(json, "\"kind\":\"");
    if (!p)
        return "?";
    p += 8;
    size_t n = strcspn(p, "\"");
    if (n >= size)
        n = size - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

int main(void)
{
    const weir_generator_config gen = {
        .name = "generator",
        .partitions = 2,
        .keys = 8,
        .rate = 200,
        .start_ms = 1700000000000, /* 2023-11-14 22:13:20 UTC, in epoch ms */
        .pace = WEIR_GEN_PACED,
        .disorder_ms = 400,
        .duration_ms = 3000,
        .seed = 11,
    };
    weir_job *job;
    /* Parallelism 2 by default: the timestamps operator runs as 2 subtasks,
     * each chained to its generator partition. One worker: on the virtual
     * clock that makes the run, and its capture, the same every time
     * (job.h); with more, subtasks on different threads may interleave
     * differently at one virtual instant, and the count's merged watermark
     * may take slightly different steps. */
    if (weir_job_create(&(weir_job_config){.workers = 1,
                                           .parallelism = 2,
                                           .clock = WEIR_CLOCK_VIRTUAL,
                                           .diag = {.jsonl_path = CAPTURE,
                                                    .msgpack_path = CAPTURE_MSGPACK}},
                        &job) != 0)
        return 1;
    weir_stream *s = weir_source_generator(job, &gen);
    s = weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_bounded(500)});
    s = weir_stream_key_by(s, weir_generator_key());
    s = weir_stream_process(s, &(weir_process_spec){.name = "count", .vtable = &count_vtable,
                                                    .out_size = sizeof(key_count),
                                                    .accounting = WEIR_ACCOUNTING_ONE_TO_ONE});
    weir_sink_discard(s);
    int r = weir_job_run(job);
    if (r != 0)
        fprintf(stderr, "capture failed: %s\n", weir_job_error(job));
    weir_job_destroy(job); /* the capture file is complete once the run returned */
    if (r != 0)
        return 1;

    /* Read the capture back and count its events by kind. */
    char errbuf[512];
    weir_capture_reader *rd;
    if (weir_capture_reader_open(CAPTURE, &rd, errbuf, sizeof errbuf) != 0) {
        fprintf(stderr, "%s\n", errbuf);
        return 1;
    }
    enum { MAXKINDS = 16 };
    char kinds[MAXKINDS][24];
    long counts[MAXKINDS];
    int nkinds = 0;
    long total = 0;
    const char *json;
    while ((r = weir_capture_reader_next(rd, &json, NULL)) == WEIR_CAPTURE_EVENT) {
        char k[24];
        kind_of(json, k, sizeof k);
        int i = 0;
        while (i < nkinds && strcmp(kinds[i], k) != 0)
            i++;
        if (i == nkinds && nkinds < MAXKINDS) {
            snprintf(kinds[nkinds], sizeof kinds[nkinds], "%s", k);
            counts[nkinds++] = 0;
        }
        if (i < nkinds)
            counts[i]++;
        total++;
    }
    if (r < 0) {
        fprintf(stderr, "%s\n", weir_capture_reader_error(rd));
        weir_capture_reader_close(rd);
        return 1;
    }
    weir_capture_reader_close(rd);

    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    printf("generator -> timestamps bounded(500) -> key_by -> count -> discard, all p=2\n"
           "ran 3 s of event time on the virtual clock; the diagnostic channel wrote\n\n"
           "  %s/%s\n"
           "  %s/%s (the same events in msgpack)\n\n%ld events:\n",
           cwd, CAPTURE, cwd, CAPTURE_MSGPACK, total);
    for (int i = 0; i < nkinds; i++)
        printf("  %-12s %6ld\n", kinds[i], counts[i]);
    printf("\nTo look at it:\n"
           "  weir capture summary %s     a readable report (from this build: ../tools/weir)\n"
           "  weir capture validate %s    checks that it is whole and consistent\n"
           "  open viewer/index.html in a browser (from disk, no server) and load either file\n"
           "  to see every subtask's watermark as a timeline\n",
           CAPTURE, CAPTURE);
    return 0;
}
