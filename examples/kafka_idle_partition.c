/* kafka_idle_partition.c — a Kafka partition that goes quiet holds every
 * window back; with_idleness() lets the others go on.
 *
 * Concept: the Kafka source runs the watermark strategy per partition, and
 * a subtask's watermark is the minimum over its partitions (docs/KAFKA.md,
 * "Watermarks per partition"). A partition that stops receiving records
 * keeps its watermark where its last record left it, so the minimum, and
 * every window behind it, stays there however far the other partitions
 * have got. with_idleness(T) marks a partition idle after T ms (processing
 * time) without records; an idle partition is left out of the minimum.
 *
 * The program, on an in-process mock cluster (weir_kafka_mock_*) unless
 * given --bootstrap:
 *   1. writes the topic with a weir job: an array source of 310 readings of
 *      4 sensors -> weir_sink_kafka (at-least-once, no checkpoints) with a
 *      partitioner that sends sensor s to partition s. Sensors 0-2 report
 *      every 100 ms of event time for 10 s; sensor 3 for the first second
 *      only, and then never again.
 *   2. reads it twice, unbounded, with bounded(200) watermarks per
 *      partition: without idleness, then with with_idleness(300):
 *      weir_source_kafka -> key_by sensor -> 1 s tumbling event-time windows
 *      counting readings -> a sink that keeps the results. An unbounded
 *      read never ends by itself: each run is cancelled (weir_job_cancel,
 *      from this thread while weir_job_run runs on a second one) 1 s after
 *      it has read the last record. A bounded read would not show the
 *      stall: a partition read to its end stops holding the watermark.
 *
 * What to look for: without idleness no window fires at all. Partition 3's
 * watermark stays at its last reading (900 ms) minus the bound, 699 ms,
 * below the end of even the first window, and so does the source's. The
 * capture (kafka-without-idleness.jsonl) says why: the source's watermark
 * events name the partition holding it back, "held_by" channel 3, partition
 * TOPIC-3. With idleness a partition is idle after 300 ms without records
 * and holds nothing back: the source's watermark goes to 9 699 ms, where
 * partitions 0-2 are, and the windows of seconds 0 to 8 fire, 28 of the 31
 * windows the input has; the last second waits for later records, as it
 * would on a live topic. (The topic is read in a few ms, so partitions 0-2
 * fall silent too and all four go idle at the same probe; a valve whose
 * channels are all idle passes on the highest of their watermarks,
 * SEMANTICS.md 3. On a live topic partitions 0-2 would stay active.) `weir
 * capture summary kafka-with-idleness.jsonl` names partition TOPIC-3 as the
 * cause of the stall before it went idle, and `weir capture summary
 * kafka-without-idleness.jsonl` as what held every watermark when the run
 * was cancelled. The program prints both runs side
 * by side and exits 1 unless they do exactly this, so that the test suite
 * catches a regression.
 *
 * Event time: the readings start at the current wall-clock second (Kafka
 * timestamps are milliseconds since 1970, and a broker may delete records
 * much older than its retention), and everything printed is relative to
 * it. On a real broker the topic may hold earlier runs' records: every
 * value carries this run's id, and the reader skips the others.
 *
 * Run: ./build/release/examples/kafka_idle_partition
 *      ./build/release/examples/kafka_idle_partition --bootstrap localhost:9092
 *          (the topic weir-idle-demo, or --topic NAME, must exist with 4
 *          partitions)
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weir.h>

enum {
    SENSORS = 4,        /* and partitions: sensor s writes to partition s */
    QUIET = 3,          /* the sensor that stops */
    STEP_MS = 100,      /* one reading per sensor every 100 ms of event time */
    BUSY_MS = 10000,    /* sensors 0-2: event time [0, 10 s) */
    QUIET_MS = 1000,    /* sensor 3: [0, 1 s), then nothing */
    WINDOW_MS = 1000,
    BOUND_MS = 200,
    IDLENESS_MS = 300,
    LINGER_MS = 1000,   /* how long a read goes on after its last record */
    READINGS = 3 * (BUSY_MS / STEP_MS) + QUIET_MS / STEP_MS,
    SECONDS = BUSY_MS / WINDOW_MS,
    MAX_RESULTS = 64
};

/* A reading: what the writing job sends, one Kafka record each. */
typedef struct reading {
    int32_t sensor;
    int32_t seq;   /* per sensor */
    int64_t run;   /* which run of this program wrote it */
} reading;

/* A window's result: readings per sensor and second. */
typedef struct sensor_count {
    int32_t sensor;
    int32_t pad;
    int64_t start, end, count;
} sensor_count;

/* ---- writing ------------------------------------------------------------------ */

/* The record: key "sensor-S", value "run=R sensor=S seq=N", both in the
 * sink's scratch buffer; the partitioner picks the partition. */
static int serialize(const void *elem, int64_t timestamp, weir_kafka_record *rec, char *why,
                     size_t whysize, void *arg)
{
    (void)timestamp; /* the record's timestamp is already rec->timestamp */
    (void)arg;
    const reading *r = elem;
    char *buf = rec->scratch;
    int v = snprintf(buf, rec->scratch_size, "run=%" PRId64 " sensor=%d seq=%d", r->run,
                     (int)r->sensor, (int)r->seq);
    if (v < 0 || (size_t)v + 16 >= rec->scratch_size) {
        snprintf(why, whysize, "no room for the record");
        return WEIR_EINVAL;
    }
    int k = snprintf(buf + v + 1, rec->scratch_size - (size_t)v - 1, "sensor-%d", (int)r->sensor);
    rec->value = buf;
    rec->value_len = (size_t)v;
    rec->key = buf + v + 1;
    rec->key_len = (size_t)k;
    rec->partition = WEIR_KAFKA_ANY_PARTITION; /* the partitioner's */
    return WEIR_KAFKA_EMIT;
}

/* Sensor s to partition s: the silent sensor is a silent partition. */
static int32_t by_sensor(const void *key, size_t key_len, const void *elem, int32_t partitions,
                         void *arg)
{
    (void)key;
    (void)key_len;
    (void)arg;
    return ((const reading *)elem)->sensor % partitions;
}

static int write_topic(const char *bootstrap, const char *topic, int64_t run, int64_t t0)
{
    static reading in[READINGS];
    static int64_t ts[READINGS];
    int n = 0;
    /* in event-time order, as a live topic would get them */
    for (int t = 0; t < BUSY_MS; t += STEP_MS) {
        for (int s = 0; s < SENSORS; s++) {
            if (s == QUIET && t >= QUIET_MS)
                continue;
            in[n] = (reading){.sensor = s, .seq = t / STEP_MS, .run = run};
            ts[n++] = t0 + t;
        }
    }
    weir_job *job;
    if (weir_job_create(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}},
                        &job) != 0)
        return 1;
    weir_stream *s = weir_source_array(job, in, (size_t)n, sizeof in[0], ts);
    weir_sink_kafka(s, &(weir_kafka_sink_config){.name = "write",
                                                 .bootstrap_servers = bootstrap,
                                                 .topic = topic,
                                                 .serialize = serialize,
                                                 .partitioner = by_sensor,
                                                 .guarantee = WEIR_KAFKA_AT_LEAST_ONCE});
    int r = weir_job_run(job);
    if (r != 0)
        fprintf(stderr, "kafka_idle_partition: writing %s failed: %s\n", topic, weir_job_error(job));
    weir_job_destroy(job);
    return r != 0;
}

/* ---- reading ------------------------------------------------------------------ */

/* One reading run. The source and the sink have one subtask each: the
 * deserializer and the sink each run on one worker thread; `read` is also
 * read by main while the job runs, the results only after it returned. */
typedef struct read_run {
    int64_t run, t0;
    atomic_int read;  /* this run's records the source emitted */
    sensor_count results[MAX_RESULTS];
    int nresults;
    weir_job *job;
    int rc;
} read_run;

/* "run=R sensor=S seq=N" -> a reading at its Kafka timestamp; another
 * run's record is skipped. */
static int deserialize(const weir_kafka_message *m, void *out, int64_t *timestamp, char *why,
                       size_t whysize, void *arg)
{
    (void)timestamp;
    read_run *rr = arg;
    char text[64];
    size_t n = m->value_len < sizeof text - 1 ? m->value_len : sizeof text - 1;
    memcpy(text, m->value ? m->value : "", n);
    text[n] = '\0';
    long long run;
    int sensor, seq;
    if (sscanf(text, "run=%lld sensor=%d seq=%d", &run, &sensor, &seq) != 3) {
        snprintf(why, whysize, "not a reading: \"%s\"", text);
        return WEIR_EFORMAT;
    }
    if (run != rr->run)
        return WEIR_KAFKA_SKIP;
    *(reading *)out = (reading){.sensor = sensor, .seq = seq, .run = run};
    atomic_fetch_add(&rr->read, 1);
    return WEIR_KAFKA_EMIT;
}

static void sensor_of(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const reading *)elem)->sensor, sizeof(int32_t));
}

static void count_add(void *acc, const void *elem, void *arg)
{
    (void)elem;
    (void)arg;
    ++*(int64_t *)acc;
}

static void count_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    sensor_count *r = out;
    memcpy(&r->sensor, w->key, sizeof r->sensor);
    r->pad = 0;
    r->start = w->start;
    r->end = w->end;
    r->count = *(const int64_t *)acc;
}

static int keep(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    (void)timestamp;
    (void)subtask;
    read_run *rr = arg;
    if (rr->nresults < MAX_RESULTS)
        rr->results[rr->nresults++] = *(const sensor_count *)elem;
    return 0;
}

static void *run_job(void *arg)
{
    read_run *rr = arg;
    rr->rc = weir_job_run(rr->job);
    return NULL;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Reads the topic into the windows until LINGER_MS after the last
 * reading came, then cancels the job. 0, or 1 on a failure. */
static int read_topic(const char *bootstrap, const char *topic, int64_t idleness_ms,
                      const char *capture, read_run *rr)
{
    if (weir_job_create(&(weir_job_config){.parallelism = 1,
                                           .workers = 2,
                                           .clock = WEIR_CLOCK_SYSTEM,
                                           .watermark_interval_ms = 100,
                                           .diag.jsonl_path = capture},
                        &rr->job) != 0)
        return 1;
    weir_watermark_strategy wm = weir_watermarks_bounded(BOUND_MS);
    if (idleness_ms > 0)
        wm = weir_watermarks_with_idleness(wm, idleness_ms);
    const char *topics[] = {topic};
    weir_stream *s = weir_source_kafka(rr->job, &(weir_kafka_source_config){
                                                    .name = "kafka",
                                                    .bootstrap_servers = bootstrap,
                                                    .topics = topics,
                                                    .ntopics = 1,
                                                    .start = WEIR_KAFKA_EARLIEST,
                                                    .bounded = false,
                                                    /* the topic's partitions do not change */
                                                    .discovery_interval_ms = WEIR_DISABLED,
                                                    .elem_size = sizeof(reading),
                                                    .deserialize = deserialize,
                                                    .arg = rr,
                                                    .watermarks = wm});
    s = weir_stream_key_by(s, &(weir_key_spec){.key_size = sizeof(int32_t), .extract = sensor_of});
    s = weir_stream_window(s, &(weir_window_spec){.name = "window",
                                                  .assigner = weir_window_tumbling(WINDOW_MS, 0),
                                                  .aggregate = {.acc_size = sizeof(int64_t),
                                                                .add = count_add,
                                                                .result = count_result},
                                                  .out_size = sizeof(sensor_count)});
    weir_sink_callback(s, keep, rr);

    pthread_t thread;
    if (pthread_create(&thread, NULL, run_job, rr) != 0) {
        weir_job_destroy(rr->job);
        return 1;
    }
    /* Wait (at most 20 s) until every reading of this run was read, let the
     * job go on for LINGER_MS, then stop it. */
    int waited = 0;
    while (atomic_load(&rr->read) < READINGS && waited < 20000) {
        sleep_ms(10);
        waited += 10;
    }
    sleep_ms(LINGER_MS);
    weir_job_cancel(rr->job);
    pthread_join(thread, NULL);
    int failed = 0;
    if (rr->rc != WEIR_ECANCELED) {
        fprintf(stderr, "kafka_idle_partition: reading %s: %s\n", topic,
                rr->rc ? weir_job_error(rr->job) : "the job ended by itself");
        failed = 1;
    } else if (atomic_load(&rr->read) != READINGS) {
        fprintf(stderr, "kafka_idle_partition: read %d of the %d readings in 20 s\n",
                atomic_load(&rr->read), READINGS);
        failed = 1;
    }
    weir_job_destroy(rr->job);
    rr->job = NULL;
    return failed;
}

/* ---- the capture ------------------------------------------------------------------ */

/* What a run's capture says about the source (its events, "op":"kafka"):
 * the source's watermark at the end (the subtask's own watermark events,
 * without a channel), the partition that last held it back (held_by, on
 * a partition's watermark and status events) and how many partitions were
 * idle at the end. */
typedef struct source_view {
    int64_t final_wm;      /* WEIR_TS_MIN: none */
    int holder;            /* channel; -1: none */
    char partition[128];   /* the holder's name */
    int idle;              /* partitions idle at the end */
} source_view;

/* The integer after `"name":` in a JSON line, or fallback (also for null). */
static long long json_int(const char *line, const char *name, long long fallback)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", name);
    const char *p = strstr(line, pat);
    if (!p)
        return fallback;
    char *end;
    long long v = strtoll(p + strlen(pat), &end, 10);
    return end == p + strlen(pat) ? fallback : v;
}

static int read_capture(const char *path, source_view *v)
{
    *v = (source_view){.final_wm = WEIR_TS_MIN, .holder = -1};
    weir_capture_reader *r;
    char err[256];
    if (weir_capture_reader_open(path, &r, err, sizeof err) != 0) {
        fprintf(stderr, "kafka_idle_partition: %s\n", err);
        return 1;
    }
    char names[SENSORS][128] = {{0}};
    bool idle[SENSORS] = {false};
    const char *line;
    while (weir_capture_reader_next(r, &line, NULL) == WEIR_CAPTURE_EVENT) {
        if (!strstr(line, "\"op\":\"kafka\""))
            continue;
        bool wm = strstr(line, "\"kind\":\"watermark\"") != NULL;
        bool status = strstr(line, "\"kind\":\"status\"") != NULL;
        long long ch = json_int(line, "channel", -1);
        if (ch < 0) { /* the subtask's own watermark */
            if (wm)
                v->final_wm = json_int(line, "watermark", WEIR_TS_MIN);
            continue;
        }
        if (ch >= SENSORS || (!wm && !status))
            continue;
        const char *p = strstr(line, "\"partition\":\"");
        if (p && !names[ch][0]) {
            p += strlen("\"partition\":\"");
            snprintf(names[ch], sizeof names[ch], "%.*s", (int)strcspn(p, "\""), p);
        }
        if (status)
            idle[ch] = strstr(line, "\"idle\":true") != NULL;
        long long by = json_int(line, "held_by", -1);
        if (by >= 0 && by < SENSORS)
            v->holder = (int)by;
    }
    weir_capture_reader_close(r);
    for (int c = 0; c < SENSORS; c++)
        v->idle += idle[c];
    if (v->holder >= 0)
        snprintf(v->partition, sizeof v->partition, "%s", names[v->holder]);
    return 0;
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kafka_idle_partition [--bootstrap HOST:PORT] [--topic NAME]\n"
            "\n"
            "Writes 310 sensor readings to a topic of 4 partitions, partition 3 silent after\n"
            "the first second of event time, and reads them twice into 1 s tumbling windows:\n"
            "without idleness (no window fires: partition 3 holds the watermark) and with\n"
            "with_idleness(300) (the windows of seconds 0-8 fire).\n"
            "\n"
            "  --bootstrap HOST:PORT  a real cluster instead of the in-process mock one\n"
            "  --topic NAME           with --bootstrap: the topic, which must exist with\n"
            "                         4 partitions (default weir-idle-demo); readings of\n"
            "                         earlier runs in it are skipped\n");
}

/* Which windows of a sensor fired, as "0-8" or "-". */
static void fired(const read_run *rr, int sensor, char *buf, size_t size)
{
    bool sec[SECONDS] = {false};
    for (int i = 0; i < rr->nresults; i++) {
        int64_t k = (rr->results[i].start - rr->t0) / WINDOW_MS;
        if (rr->results[i].sensor == sensor && k >= 0 && k < SECONDS)
            sec[k] = true;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < SECONDS; k++) {
        if (!sec[k] || (k > 0 && sec[k - 1]))
            continue;
        int e = k;
        while (e + 1 < SECONDS && sec[e + 1])
            e++;
        int n = e > k ? snprintf(buf + used, size - used, "%s%d-%d", used ? "," : "", k, e)
                      : snprintf(buf + used, size - used, "%s%d", used ? "," : "", k);
        if (n > 0 && (size_t)n < size - used)
            used += (size_t)n;
    }
    if (!used)
        snprintf(buf, size, "-");
}

int main(int argc, char **argv)
{
    const char *bootstrap = NULL, *topic = "weir-idle-demo";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bootstrap") == 0 && i + 1 < argc)
            bootstrap = argv[++i];
        else if (strcmp(argv[i], "--topic") == 0 && i + 1 < argc)
            topic = argv[++i];
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    weir_kafka_mock *mock = NULL;
    if (!bootstrap) {
        char why[256] = "";
        if (weir_kafka_mock_create(1, &mock, why, sizeof why) != 0 ||
            weir_kafka_mock_topic(mock, topic, SENSORS) != 0) {
            fprintf(stderr, "kafka_idle_partition: mock cluster: %s\n", why);
            weir_kafka_mock_destroy(mock);
            return 1;
        }
        bootstrap = weir_kafka_mock_bootstrap(mock);
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    /* the readings start at the current second; the run id tells this
     * run's records from earlier ones' */
    int64_t t0 = (int64_t)now.tv_sec * 1000;
    int64_t run = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;

    static read_run without, with;
    without.run = with.run = run;
    without.t0 = with.t0 = t0;
    int failed = write_topic(bootstrap, topic, run, t0);
    if (!failed)
        failed = read_topic(bootstrap, topic, 0, "kafka-without-idleness.jsonl", &without);
    if (!failed)
        failed = read_topic(bootstrap, topic, IDLENESS_MS, "kafka-with-idleness.jsonl", &with);
    weir_kafka_mock_destroy(mock);
    source_view a, b;
    if (failed || read_capture("kafka-without-idleness.jsonl", &a) ||
        read_capture("kafka-with-idleness.jsonl", &b))
        return 1;

    printf("topic %s, 4 partitions: sensor s -> partition s; sensors 0-2 every %d ms of\n"
           "event time for %d s, sensor 3 for the first second only (%d readings)\n"
           "-> weir_source_kafka, bounded(%d) per partition -> key_by sensor\n"
           "-> %d s tumbling windows counting readings; each read cancelled %d ms after\n"
           "its last record; times are ms of event time from the first reading\n\n",
           topic, STEP_MS, BUSY_MS / 1000, READINGS, BOUND_MS, WINDOW_MS / 1000, LINGER_MS);
    printf("%-30s %-22s %s\n", "", "without idleness", "with_idleness(300)");
    char x[160], y[160];
    snprintf(x, sizeof x, "%d of 31", without.nresults);
    snprintf(y, sizeof y, "%d of 31", with.nresults);
    printf("%-30s %-22s %s\n", "windows fired", x, y);
    for (int s = 0; s < SENSORS; s++) {
        char label[64];
        snprintf(label, sizeof label, "  sensor-%d, seconds", s);
        fired(&without, s, x, sizeof x);
        fired(&with, s, y, sizeof y);
        printf("%-30s %-22s %s\n", label, x, y);
    }
    /* relative to the first reading; WEIR_TS_MIN: the capture has none */
    int64_t wa = a.final_wm == WEIR_TS_MIN ? -1 : a.final_wm - t0;
    int64_t wb = b.final_wm == WEIR_TS_MIN ? -1 : b.final_wm - t0;
    snprintf(x, sizeof x, "%" PRId64, wa);
    snprintf(y, sizeof y, "%" PRId64, wb);
    printf("%-30s %-22s %s\n", "source watermark at the end", x, y);
    printf("%-30s %-22s %s\n", "  last held back by", a.holder >= 0 ? a.partition : "-",
           b.holder >= 0 ? b.partition : "-");
    snprintf(x, sizeof x, "%d of 4", a.idle);
    snprintf(y, sizeof y, "%d of 4", b.idle);
    printf("%-30s %-22s %s\n", "partitions idle at the end", x, y);

    printf("\nWithout idleness partition %s keeps the source's watermark at its\n"
           "last reading (900) - %d - 1 = 699: not even the first window ends by then, so\n"
           "none fires, however far partitions 0-2 have got (their watermark: 9 699). With\n"
           "idleness a partition is idle after %d ms without records and no longer holds\n"
           "the watermark back: it goes to 9 699 and the windows of seconds 0-8 fire;\n"
           "second 9 waits for later records. (The whole topic is read in a few ms here, so\n"
           "partitions 0-2 fall silent as well and all four go idle at the same probe; with\n"
           "every partition idle the source passes on the highest of their watermarks, as\n"
           "Flink does. On a live topic partitions 0-2 would stay active and the watermark\n"
           "would follow them.)\n"
           "Captures: kafka-without-idleness.jsonl, kafka-with-idleness.jsonl (working\n"
           "directory): the source's watermark events say which partition holds it back\n"
           "(\"held_by\"); `weir capture summary kafka-without-idleness.jsonl` names it as\n"
           "what held every watermark when the run was cancelled, and `weir capture summary\n"
           "kafka-with-idleness.jsonl` as the cause of the stall until it went idle.\n",
           a.holder >= 0 ? a.partition : "3", BOUND_MS, IDLENESS_MS);

    /* The behaviour described above, or exit 1. */
    char want[160];
    snprintf(want, sizeof want, "%s-%d", topic, QUIET);
    if (without.nresults != 0 || with.nresults != 28 || wa != 699 || wb != 9699 || a.holder != QUIET || strcmp(a.partition, want) != 0) {
        fprintf(stderr,
                "kafka_idle_partition: unexpected: %d windows without idleness (0 expected) and "
                "%d with (28 expected); the watermark at %" PRId64 " and %" PRId64
                " (699 and 9699 expected); held back by \"%s\" (\"%s\" expected)\n",
                without.nresults, with.nresults, wa, wb, a.partition, want);
        return 1;
    }
    return 0;
}
