/* generator.c — what the synthetic generator (weir/generator.h) emits.
 *
 * Concept: the generator is the source made for event-time experiments. Each
 * of its parallel partitions walks a fixed schedule of slots: slot i is due at
 * the nominal event time start + i * 1000 / rate. Every event's timestamp is
 * its nominal time pulled back by a random delay of at most disorder_ms (the
 * out-of-orderness a bounded watermark must tolerate), except that a
 * late_fraction of them are pulled back by more than disorder_ms + late_ms:
 * more than late_ms behind the earliest timestamp an on-time event of the
 * same slot can have. That is all the generator promises. How late a
 * watermark finds such an event depends on the stream around it (the
 * timestamps before it, when the watermark was last emitted, other
 * partitions): a bounded(disorder_ms) watermark typically has passed it, by
 * anything from a little to well over late_ms (windows.c shows it at work).
 * Keys follow a zipf law (key 0 is the most common).
 * The same seed gives the same events, whatever the pace or thread count.
 *
 * What to look for: per partition, seq counts up and nominal rises by 100 ms
 * (rate 10/s); "delay" is nominal - timestamp, at most 300 ms for normal
 * events (so timestamps are out of order), and above 300 + 500 = 800 ms for
 * the ones marked LATE. Run it twice: the output is identical.
 *
 * Run: ./build/release/examples/generator
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <weir.h>

enum { PARTITIONS = 3, PER_PARTITION = 8 };

/* Orders events by partition, then slot, for printing: records of different
 * partitions reach the single collect sink interleaved. */
static int by_partition_then_seq(const void *a, const void *b)
{
    const weir_gen_event *x = a, *y = b;
    if (x->partition != y->partition)
        return x->partition < y->partition ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

int main(void)
{
    const weir_generator_config gen = {
        .name = "generator",
        .partitions = PARTITIONS,
        .keys = 5,
        .skew = WEIR_GEN_ZIPF,
        .zipf_s = 1.0,
        .rate = 10,           /* 10 events per second of event time per partition */
        .start_ms = 10000,    /* slot 0 is due at event time 10 s */
        .disorder_ms = 300,   /* normal events are at most 300 ms out of order */
        .late_fraction = 0.2, /* one event in five is made late on purpose ... */
        .late_ms = 500,       /* ... by more than 300 + 500 ms */
        .count = PER_PARTITION,
        .seed = 7,
    };

    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 2}, &job) != 0)
        return 1;
    weir_collect *out;
    weir_sink_collect(weir_source_generator(job, &gen), &out);
    int r = weir_job_run(job);
    if (r != 0) {
        fprintf(stderr, "generator failed: %s\n", weir_job_error(job));
        weir_job_destroy(job);
        return 1;
    }

    size_t n = weir_collect_count(out);
    weir_gen_event *ev = malloc(n * sizeof *ev);
    if (!ev) {
        weir_job_destroy(job);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        ev[i] = *(const weir_gen_event *)weir_collect_elem(out, i);
    qsort(ev, n, sizeof *ev, by_partition_then_seq);

    printf("generator: %d partitions x %d events, rate 10/s, zipf keys 0..4,\n"
           "disorder 300 ms, 20%% made late (delayed by more than 300 + 500 ms), seed 7\n",
           PARTITIONS, PER_PARTITION);
    int last = -1;
    size_t late = 0;
    for (size_t i = 0; i < n; i++) {
        const weir_gen_event *e = &ev[i];
        if (e->partition != last) {
            printf("\npartition %d\n  seq  nominal  timestamp  delay  key  value\n", e->partition);
            last = e->partition;
        }
        int64_t nominal = weir_generator_nominal(&gen, e->seq);
        printf("  %3" PRId64 "  %7" PRId64 "  %9" PRId64 "  %5" PRId64 "  %3" PRId64 "  %5" PRId64
               "%s\n",
               e->seq, nominal, e->timestamp, nominal - e->timestamp, e->key, e->value,
               e->late ? "  LATE (delay > 800)" : "");
        late += e->late != 0;
    }
    printf("\n%zu events, %zu made late. A timestamp is nominal - delay: delays up to 300 ms\n"
           "reorder events within a partition (bounded(300) watermarks tolerate that);\n"
           "LATE ones are more than 500 ms behind nominal - 300, the earliest timestamp an\n"
           "on-time event of their slot can have. How far a watermark has passed them\n"
           "depends on the events before them, not on this delay alone.\n",
           n, late);
    free(ev);
    weir_job_destroy(job);
    return 0;
}
