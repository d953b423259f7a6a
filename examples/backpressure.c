/* backpressure.c — a slow sink makes the whole pipeline wait, and the
 * capture shows where.
 *
 * Concept: weir's channels are bounded (weir_job_config.channel_batches
 * batches of batch_capacity records each). When a consumer is slower than
 * its producer, the channel between them fills up and the producer blocks
 * until there is room: backpressure. Nothing is dropped and memory stays
 * bounded; the producer simply runs at the consumer's pace. The diagnostic
 * channel reports it per throughput interval as `backpressure` events: how
 * many ms of the interval a subtask spent blocked on a full output channel,
 * and how full its fullest output channel was.
 *
 * The job: a generator with 2 partitions, as fast as it can (WEIR_GEN_FAST)
 * -> timestamps bounded(100), chained -> key_by -> a callback sink that
 * takes about 1 ms per record (it sleeps: think of a slow database). The
 * channels are small (2 batches of 16 records) so they fill quickly. It runs
 * on the system clock, because waiting is what this example is about: on
 * the virtual clock a blocked producer takes no time at all. So it takes
 * about as long as the sink needs for its 1 200 records, a little over a
 * second, and its numbers vary a little from run to run.
 *
 * What to look for: the timestamps subtasks (which own the task's output
 * channel) are blocked for nearly all of every interval, and the records
 * flow at the sink's pace, somewhat under 1 000 per second (a 1 ms sleep
 * takes a little longer), although the generator could make millions. The capture is backpressure.jsonl: in viewer/index.html the
 * backpressure panel under the timeline is nearly full for the whole run.
 *
 * Run: ./build/release/examples/backpressure
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <weir.h>

#define CAPTURE "backpressure.jsonl"

enum { PARTITIONS = 2, PER_PARTITION = 600 };


/* The slow consumer: about 1 ms per record. */
static int slow_sink(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    (void)elem;
    (void)timestamp;
    (void)subtask;
    (void)arg;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
    return 0;
}

int main(void)
{
    weir_diag_memory *mem;
    if (weir_diag_memory_create(&mem) != 0)
        return 1;
    weir_job *job;
    /* Three workers, one per task (two source tasks, one sink task): each
     * producer has its own thread, so while its channel is full it really
     * waits instead of giving its thread to the sink. */
    if (weir_job_create(&(weir_job_config){.workers = 3,
                                           .parallelism = PARTITIONS,
                                           .clock = WEIR_CLOCK_SYSTEM,
                                           .batch_capacity = 16,
                                           .channel_batches = 2,
                                           .diag = {.jsonl_path = CAPTURE, .memory = mem}},
                        &job) != 0) {
        weir_diag_memory_destroy(mem);
        return 1;
    }
    weir_stream *s = weir_source_generator(job, &(weir_generator_config){
                                                    .name = "generator",
                                                    .partitions = PARTITIONS,
                                                    .keys = 10,
                                                    .rate = 1000,
                                                    .pace = WEIR_GEN_FAST,
                                                    .disorder_ms = 100,
                                                    .count = PER_PARTITION,
                                                    .seed = 5,
                                                });
    s = weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_bounded(100)});
    s = weir_stream_key_by(s, weir_generator_key());
    /* One sink subtask: every record waits for the one slow consumer. */
    weir_stream_set_parallelism(weir_stream_set_name(weir_sink_callback(s, slow_sink, NULL), "slow-sink"),
                                1);
    int r = weir_job_run(job);
    if (r != 0) {
        fprintf(stderr, "backpressure failed: %s\n", weir_job_error(job));
        weir_job_destroy(job);
        weir_diag_memory_destroy(mem);
        return 1;
    }
    weir_job_destroy(job); /* the capture file is complete once the run returned */

    /* Add up what the capture says: per operator, the time its subtasks
     * spent blocked on a full output, and the run's length. */
    int64_t end_t = 0, blocked_ts = 0, samples_ts = 0, interval_ts = 0, records_out = 0;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *e = weir_diag_memory_event(mem, i);
        if (e->t > end_t)
            end_t = e->t;
        if (!e->op || strcmp(e->op, "timestamps") != 0)
            continue;
        if (e->kind == WEIR_DIAG_KIND_BACKPRESSURE) {
            blocked_ts += e->blocked_ms;
            samples_ts++;
        } else if (e->kind == WEIR_DIAG_KIND_THROUGHPUT) {
            records_out += e->records_out;
            interval_ts++;
        }
    }
    weir_diag_memory_destroy(mem);

    printf("generator (fast, p=2) -> timestamps -> key_by -> slow-sink (~1 ms per record, p=1)\n"
           "channels of 2 batches x 16 records, system clock\n\n");
    printf("the run took %" PRId64 " ms for %" PRId64 " records: about %" PRId64
           " records/s, the sink's pace\n",
           end_t, records_out, end_t > 0 ? records_out * 1000 / end_t : 0);
    printf("timestamps (2 subtasks, each the end of its task): blocked %" PRId64
           " ms of their 2 x %" PRId64 " ms,\nreported in %" PRId64 " of %" PRId64
           " throughput intervals\n",
           blocked_ts, end_t, samples_ts, interval_ts);
    printf("\nThe capture is %s: open viewer/index.html in a browser and load it;\n"
           "the backpressure panel under the timeline shows the blocked share per interval.\n",
           CAPTURE);
    return 0;
}
