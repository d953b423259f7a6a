/* pipeline.c — the smallest useful weir program: an array source, a map, a
 * filter, a key_by into parallel counters, printed. It is the example of the
 * README.
 *
 * Run: ./build/release/examples/pipeline
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <weir.h>

typedef struct reading {
    char sensor[8];
    int64_t celsius;
} reading;

/* Keep readings of at least 20 degrees. */
static int warm(const void *in, void *arg)
{
    (void)arg;
    return ((const reading *)in)->celsius >= 20;
}

/* To Fahrenheit, in place of Celsius. */
static int to_fahrenheit(const void *in, void *out, void *arg)
{
    (void)arg;
    reading r = *(const reading *)in;
    r.celsius = r.celsius * 9 / 5 + 32;
    *(reading *)out = r;
    return 0;
}

static void by_sensor(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, ((const reading *)elem)->sensor, sizeof ((reading *)0)->sensor);
}

static int format(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)arg;
    const reading *r = elem;
    return snprintf(buf, size, "t=%" PRId64 " %s %" PRId64 "F", ts, r->sensor, r->celsius);
}

int main(void)
{
    static const reading readings[] = {
        {"north", 18}, {"south", 25}, {"north", 21}, {"east", 30}, {"south", 19}, {"east", 22},
    };
    static const int64_t times[] = {1000, 1100, 1200, 1300, 1400, 1500};

    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 2}, &job) != 0)
        return 1;
    weir_stream *s = weir_source_array(job, readings, 6, sizeof(reading), times);
    s = weir_stream_filter(s, warm, NULL);
    s = weir_stream_map(s, sizeof(reading), to_fahrenheit, NULL);
    s = weir_stream_key_by(s, &(weir_key_spec){.key_size = 8, .extract = by_sensor});
    s = weir_stream_set_parallelism(weir_sink_print(s, format, NULL, stdout), 2);

    int r = weir_job_run(job);
    if (r != 0)
        fprintf(stderr, "pipeline failed: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    return r == 0 ? 0 : 1;
}
