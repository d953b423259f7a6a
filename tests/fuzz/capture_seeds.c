/* capture_seeds.c — writes the seed captures of the capture fuzz target
 * (tests/fuzz/corpus/capture/): small runs of the diagnostic channel, so
 * that mutations start from captures weir really writes, of every level
 * and both formats, with windows, late elements, idleness, a rebalance and
 * a failed run in them.
 *
 *     build/release/tests/fuzz-capture-seeds tests/fuzz/corpus/capture
 *
 * Each run is on the virtual clock with one worker, so the files are the
 * same every time; each is a few KB (libFuzzer mutates small inputs
 * fastest). Rerun it when the capture format changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weir.h>

typedef struct seed {
    const char *name;
    weir_diag_level level;
    bool fail; /* an operator fails the run at its 6th record */
} seed;

static void sum_values(void *acc, const void *elem, void *arg)
{
    (void)arg;
    ((weir_gen_event *)acc)->value += ((const weir_gen_event *)elem)->value;
}

static int fail_at_6(const void *in, void *arg)
{
    (void)in;
    int *n = arg;
    return ++*n == 6 ? WEIR_EINVAL : 1;
}

/* generator (2 partitions, one idle for a while) -> timestamps with
 * idleness -> key_by -> tumbling window with lateness, late side output ->
 * sinks; and a rebalance into a filter. 0 or the run's error. */
static int run(const seed *s, const char *dir)
{
    char jsonl[1024], msgpack[1024];
    snprintf(jsonl, sizeof jsonl, "%s/%s.jsonl", dir, s->name);
    snprintf(msgpack, sizeof msgpack, "%s/%s.msgpack", dir, s->name);
    weir_job_config cfg = {.workers = 1, .parallelism = 2, .clock = WEIR_CLOCK_VIRTUAL,
                           .watermark_interval_ms = 20,
                           .diag = {.level = s->level, .throughput_interval_ms = 100,
                                    .jsonl_path = jsonl, .msgpack_path = msgpack}};
    weir_job *job;
    if (weir_job_create(&cfg, &job) != 0)
        return WEIR_ENOMEM;
    weir_generator_config g = {.partitions = 2, .keys = 3, .rate = 50, .pace = WEIR_GEN_PACED,
                               .count = s->level == WEIR_DIAG_VERBOSE ? 3 : 6,
                               .disorder_ms = 30, .late_fraction = 0.4, .late_ms = 50,
                               .idle = {{.partition = 1, .from_ms = 40, .to_ms = 160}},
                               .nidle = 1, .seed = 5};
    weir_stream *src = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {
        .strategy = weir_watermarks_with_idleness(weir_watermarks_bounded(30), 50)};
    weir_stream *t = weir_stream_assign_timestamps(src, &ts);
    weir_window_spec w = {.assigner = weir_window_tumbling(100, 0), .allowed_lateness_ms = 40,
                          .late_tag = 1, .reduce = sum_values};
    weir_stream *win = weir_stream_window(weir_stream_key_by(t, weir_generator_key()), &w);
    weir_sink_discard(win);
    weir_sink_discard(weir_stream_side_output(win, 1));
    /* one worker: the two filter subtasks never run at once */
    int seen = s->fail ? 0 : -1000000;
    weir_sink_discard(weir_stream_filter(weir_stream_rebalance(t), fail_at_6, &seen));
    int r = weir_job_run(job);
    if (r != 0 && !s->fail)
        fprintf(stderr, "%s: %s\n", s->name, weir_job_error(job));
    weir_job_destroy(job);
    return r;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz-capture-seeds DIR\n");
        return 2;
    }
    static const seed seeds[] = {
        {"standard", WEIR_DIAG_STANDARD, false},
        {"summary", WEIR_DIAG_SUMMARY, false},
        {"verbose", WEIR_DIAG_VERBOSE, false},
        {"failed", WEIR_DIAG_STANDARD, true},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        int r = run(&seeds[i], argv[1]);
        if ((r != 0) != seeds[i].fail) {
            fprintf(stderr, "fuzz-capture-seeds: %s: the run %s\n", seeds[i].name,
                    r ? "failed" : "did not fail");
            return 1;
        }
    }
    return 0;
}
