/* consumer_kafka.c — consumer.c's pipeline with a Kafka topic in the middle,
 * built outside weir's tree against libweir-kafka (tests/consumer/check.sh:
 * pkg-config weir-kafka and weir-kafka-static, CMake's weir::weir-kafka and
 * weir::weir-kafka-static, tests/consumer/kafka/). On the in-process mock
 * cluster of weir/kafka.h: one job writes the six readings to a topic of one
 * partition (weir_sink_kafka, the reading's timestamp as the record's), a
 * second reads it back to its end (weir_source_kafka, bounded, the same
 * bounded out-of-orderness watermarks) into the same 10 s windows. Its
 * output is consumer.c's, expected.out. Built with -Wall -Wextra -Wpedantic
 * -Werror. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <weir.h>

typedef struct sample {
    char sensor[8];
    int64_t millicelsius;
} sample;

/* A reading as a record: "north 18000". */
static int serialize(const void *elem, int64_t timestamp, weir_kafka_record *rec, char *why,
                     size_t whysize, void *arg)
{
    const sample *s = elem;
    (void)timestamp;
    (void)arg;
    int n = snprintf(rec->scratch, rec->scratch_size, "%.8s %" PRId64, s->sensor, s->millicelsius);
    if (n < 0 || (size_t)n >= rec->scratch_size) {
        snprintf(why, whysize, "no room for the record");
        return WEIR_EINVAL;
    }
    rec->value = rec->scratch;
    rec->value_len = (size_t)n;
    rec->partition = 0;
    return WEIR_KAFKA_EMIT;
}

/* The record back into a reading, at its Kafka timestamp. */
static int deserialize(const weir_kafka_message *m, void *out, int64_t *timestamp, char *why,
                       size_t whysize, void *arg)
{
    sample *s = out;
    char text[64];
    long long mc;
    size_t n = m->value_len < sizeof text - 1 ? m->value_len : sizeof text - 1;
    (void)timestamp;
    (void)arg;
    memcpy(text, m->value ? (const char *)m->value : "", n);
    text[n] = '\0';
    memset(s, 0, sizeof *s);
    if (sscanf(text, "%7s %lld", s->sensor, &mc) != 2) {
        snprintf(why, whysize, "not a reading: \"%s\"", text);
        return WEIR_EFORMAT;
    }
    s->millicelsius = mc;
    return WEIR_KAFKA_EMIT;
}

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

static int write_topic(const char *bootstrap)
{
    static const sample in[] = {{"north", 18000}, {"south", 25500}, {"north", 21250},
                                {"south", 24000}, {"north", 19000}, {"south", 30125}};
    static const int64_t ts[] = {1000, 2000, 9000, 12000, 15000, 14000};
    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 1, .diag = {.level = WEIR_DIAG_OFF}}, &job) !=
        0)
        return 1;
    weir_stream *s = weir_source_array(job, in, 6, sizeof(sample), ts);
    weir_sink_kafka(s, &(weir_kafka_sink_config){.bootstrap_servers = bootstrap,
                                                 .topic = "readings",
                                                 .serialize = serialize});
    int r = weir_job_run(job);
    if (r)
        fprintf(stderr, "consumer_kafka: writing: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    return r != 0;
}

static int read_topic(const char *bootstrap)
{
    static const char *const topics[] = {"readings"};
    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 1, .diag = {.level = WEIR_DIAG_OFF}}, &job) !=
        0)
        return 1;
    weir_stream *s = weir_source_kafka(job, &(weir_kafka_source_config){
                                                .bootstrap_servers = bootstrap,
                                                .topics = topics,
                                                .ntopics = 1,
                                                .start = WEIR_KAFKA_EARLIEST,
                                                .bounded = true,
                                                .elem_size = sizeof(sample),
                                                .deserialize = deserialize,
                                                .watermarks = weir_watermarks_bounded(2000)});
    s = weir_stream_key_by(s, &(weir_key_spec){.key_size = 8, .extract = sensor_of});
    s = weir_stream_window(s, &(weir_window_spec){.assigner = weir_window_tumbling(10000, 0),
                                                  .reduce = hottest});
    weir_sink_print(s, print_sample, NULL, stdout);
    int r = weir_job_run(job);
    if (r)
        fprintf(stderr, "consumer_kafka: reading: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    return r != 0;
}

int main(void)
{
    weir_kafka_mock *mock;
    char why[256] = "";
    if (weir_kafka_mock_create(1, &mock, why, sizeof why) != 0) {
        fprintf(stderr, "consumer_kafka: the mock cluster: %s\n", why);
        return 1;
    }
    int r = weir_kafka_mock_topic(mock, "readings", 1) != 0;
    if (r)
        fprintf(stderr, "consumer_kafka: the topic could not be made\n");
    if (!r)
        r = write_topic(weir_kafka_mock_bootstrap(mock));
    if (!r)
        r = read_topic(weir_kafka_mock_bootstrap(mock));
    weir_kafka_mock_destroy(mock);
    fflush(stdout);
    printf("weir %s, headers %s (%d.%d.%d)\n", weir_version(), WEIR_VERSION_STRING,
           WEIR_VERSION_MAJOR, WEIR_VERSION_MINOR, WEIR_VERSION_PATCH);
    return r != 0 || strcmp(weir_version(), WEIR_VERSION_STRING) != 0;
}
