/* consumer.c — a program outside weir's tree that uses an installed weir
 * (tests/consumer/check.sh builds it with pkg-config, with find_package(weir)
 * and as add_subdirectory(weir), and runs it). The hottest reading of each
 * sensor per 10 s of event time, with bounded out-of-orderness watermarks:
 * it reaches the headers' inline helpers (weir_watermarks_bounded,
 * weir_window_tumbling) and the library's functions. One worker on the
 * virtual clock, so its output is always the same (expected.out); then the
 * library's and the headers' versions, which must agree. Built with -Wall
 * -Wextra -Wpedantic -Werror. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <weir.h>

typedef struct sample {
    char sensor[8];
    int64_t millicelsius;
} sample;

static void sensor_of(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, ((const sample *)elem)->sensor, sizeof ((const sample *)elem)->sensor);
}

static void hottest(void *acc, const void *elem, void *arg)
{
    sample *a = acc;
    const sample *e = elem;
    (void)arg;
    if (e->millicelsius > a->millicelsius)
        a->millicelsius = e->millicelsius;
}

static int print_sample(const void *elem, int64_t ts, char *buf, size_t n, void *arg)
{
    const sample *s = elem;
    (void)arg;
    return snprintf(buf, n, "window max %" PRId64 ": %.8s %" PRId64 " mC", ts, s->sensor,
                    s->millicelsius);
}

int main(void)
{
    static const sample in[] = {{"north", 18000}, {"south", 25500}, {"north", 21250},
                                {"south", 24000}, {"north", 19000}, {"south", 30125}};
    static const int64_t ts[] = {1000, 2000, 9000, 12000, 15000, 14000};
    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL}, &job) != 0)
        return 1;
    weir_stream *s = weir_source_array(job, in, 6, sizeof(sample), ts);
    s = weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_bounded(2000)});
    s = weir_stream_key_by(s, &(weir_key_spec){.key_size = 8, .extract = sensor_of});
    s = weir_stream_window(s, &(weir_window_spec){.assigner = weir_window_tumbling(10000, 0),
                                                  .reduce = hottest});
    weir_sink_print(s, print_sample, NULL, stdout);
    int r = weir_job_run(job);
    if (r)
        fprintf(stderr, "consumer: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    fflush(stdout);
    printf("weir %s, headers %s (%d.%d.%d)\n", weir_version(), WEIR_VERSION_STRING,
           WEIR_VERSION_MAJOR, WEIR_VERSION_MINOR, WEIR_VERSION_PATCH);
    return r != 0 || strcmp(weir_version(), WEIR_VERSION_STRING) != 0;
}
