/* big-capture.c — writes the capture of about a million events that the
 * viewer's browser test viewer_million loads (tests/viewer/CMakeLists.txt
 * runs it as a fixture), with weir's public API only.
 *
 * A busy job on the virtual clock at the verbose level, so that per-record
 * events make up most of the million, as they do when someone turns verbose
 * on for a real job: a generator of 2 partitions (3 000 uniform keys k0000 ..
 * k2999, disorder 300 ms, 0.5% made late, partition 1 quiet for 10 s) ->
 * timestamps bounded(300) with idleness 1 s, chained -> key_by -> 1 s
 * tumbling windows with 300 ms allowed lateness and a late side output, p=2
 * -> a discarding sink, and the late elements to a sink of their own. The
 * same run is written as OUTDIR/big.jsonl and OUTDIR/big.msgpack. One
 * worker on the virtual clock: the same bytes every run.
 *
 * Usage: big-capture OUTDIR [SECONDS]   (SECONDS of event time, default 130:
 * about 1.07 million events, 97 MB of JSONL, 70 MB of msgpack)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weir.h>
#include <weir/window.h>

typedef struct counts {
    int64_t key, end, count;
} counts;



static void count_add(void *acc, const void *elem, void *arg)
{
    (void)elem;
    (void)arg;
    ((counts *)acc)->count++;
}

static void count_merge(void *acc, const void *other, void *arg)
{
    (void)arg;
    ((counts *)acc)->count += ((const counts *)other)->count;
}

static void count_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    counts *r = out;
    memcpy(&r->key, w->key, 8);
    r->end = w->end;
    r->count = ((const counts *)acc)->count;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: big-capture OUTDIR [SECONDS]\n");
        return 2;
    }
    int64_t seconds = argc == 3 ? strtoll(argv[2], NULL, 10) : 130;
    if (seconds <= 0) {
        fprintf(stderr, "big-capture: SECONDS must be a positive number\n");
        return 2;
    }
    char jsonl[4096], msgpack[4096];
    snprintf(jsonl, sizeof jsonl, "%s/big.jsonl", argv[1]);
    snprintf(msgpack, sizeof msgpack, "%s/big.msgpack", argv[1]);

    weir_job *job;
    int r = weir_job_create(&(weir_job_config){.workers = 1,
                                               .parallelism = 2,
                                               .clock = WEIR_CLOCK_VIRTUAL,
                                               .diag = {.level = WEIR_DIAG_VERBOSE,
                                                        .jsonl_path = jsonl,
                                                        .msgpack_path = msgpack}},
                            &job);
    if (r != 0) {
        fprintf(stderr, "big-capture: %s\n", weir_strerror(r));
        return 1;
    }
    weir_generator_config gen = {
        .name = "generator",
        .partitions = 2,
        .keys = 3000,
        .rate = 1000,
        .pace = WEIR_GEN_PACED,
        .disorder_ms = 300,
        .late_fraction = 0.005,
        .late_ms = 400,
        .idle = {{.partition = 1, .from_ms = 20000, .to_ms = 30000}},
        .nidle = 1,
        .duration_ms = seconds * 1000,
        .seed = 3,
    };
    weir_watermark_strategy wm = weir_watermarks_bounded(300);
    wm.idleness_ms = 1000;
    weir_stream *s = weir_source_generator(job, &gen);
    s = weir_stream_assign_timestamps(s, &(weir_timestamps_spec){.strategy = wm});
    s = weir_stream_key_by(s, weir_generator_key());
    weir_stream *w = weir_stream_window(
        s, &(weir_window_spec){.name = "window",
                               .assigner = weir_window_tumbling(1000, 0),
                               .allowed_lateness_ms = 300,
                               .late_tag = WEIR_WINDOW_LATE_TAG,
                               .aggregate = {.acc_size = sizeof(counts),
                                             .add = count_add,
                                             .merge = count_merge,
                                             .result = count_result},
                               .out_size = sizeof(counts)});
    weir_sink_discard(w);
    weir_stream_set_name(weir_sink_discard(weir_stream_side_output(w, WEIR_WINDOW_LATE_TAG)),
                         "late-sink");
    r = weir_job_run(job);
    if (r != 0)
        fprintf(stderr, "big-capture: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    if (r == 0)
        printf("%s and %s written\n", jsonl, msgpack);
    return r == 0 ? 0 : 1;
}
