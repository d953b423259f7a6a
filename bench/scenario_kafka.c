/* scenario_kafka.c — reading Kafka: the window pipeline fed by the Kafka
 * source (weir/kafka.h) from librdkafka's in-process mock cluster, and a
 * plain librdkafka consumer reading the same records, which says what the
 * mock brokers and librdkafka cost by themselves.
 *
 *   kafka-consume   no weir: one librdkafka consumer, configured as the
 *                   source configures its own (assigned partitions, no
 *                   commits, partition EOF events), asks each partition's
 *                   first and end offsets, reads from the first to the end
 *                   with rd_kafka_consume_batch_queue and does the source's
 *                   per-record work (the 16-byte value copied out, the
 *                   timestamp taken), into a count and a checksum. Timed
 *                   from rd_kafka_new to rd_kafka_destroy, as the source's
 *                   open and close are inside weir_job_run.
 *   kafka-source    weir_source_kafka (bounded, earliest, bounded 100 ms
 *                   watermarks per partition, probes every 200 ms) -> key_by
 *                   -> tumbling 1 s window counting -> sink: window-tumbling
 *                   with the Kafka source in place of the event source and
 *                   its timestamps operator, checked against the same
 *                   reference results.
 *
 * The topic: 4 partitions holding the event-time input of the window rows
 * (work.c's gen_event for sequence numbers 0..N-1), record seq in partition
 * seq % 4, its value the 16-byte element, its Kafka timestamp the event
 * time plus KAFKA_TS_BASE (a Kafka timestamp is not negative, and
 * librdkafka's producer takes 0 for "now"). It is written once per record
 * count and process with librdkafka's producer, outside every timed
 * interval, and every run of both rows reads it all again.
 *
 * Why the source, and not a timestamps operator after it, makes the
 * watermarks: a subtask reading several partitions gets their records
 * interleaved a fetch's batches at a time, and nothing bounds how far one
 * partition may then be ahead of another in event time; one watermark over
 * the mix would make the other's records late once that passes the 100 ms
 * bound, while the valve's minimum over the partitions' own watermarks
 * (docs/KAFKA.md) keeps every record whatever the interleaving.
 *
 * The mock brokers keep at most about 5 MiB of record batches per partition
 * and drop the oldest beyond that (librdkafka's mock log limit). The
 * batches are zstd-compressed (about 7 bytes a record), so 4 partitions
 * hold about 2.9 M records; a topic that lost some fails the row with a
 * message before any timed run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

#include "bench.h"

#define KAFKA_PARTITIONS 4
#define KAFKA_TS_BASE 1000000
#define KAFKA_TUMBLE_MS 1000
#define KAFKA_BOUND_MS BENCH_EVENT_DISORDER_MS
#define KAFKA_PROBE_MS 200
#define KAFKA_TIMEOUT_MS 10000
#define KAFKA_TOPICS 8

/* ---- the cluster and its topics ----------------------------------------------
 *
 * One mock cluster per process, made by the first run that needs it, and
 * one topic per record count; only the harness thread touches them. */

typedef struct kafka_topic {
    int64_t records;
    char name[64];
    /* what a reader of the whole topic must see: the records, the sum of
     * key ^ value and the sum of the event timestamps */
    uint64_t sum, ts_sum;
} kafka_topic;

static weir_kafka_mock *cluster;
static kafka_topic topics[KAFKA_TOPICS];
static int ntopics;

static void cluster_destroy(void)
{
    weir_kafka_mock_destroy(cluster);
    cluster = NULL;
}

static int set(rd_kafka_conf_t *conf, const char *k, const char *v, char *err, size_t errsize)
{
    char why[256];
    if (rd_kafka_conf_set(conf, k, v, why, sizeof why) == RD_KAFKA_CONF_OK)
        return 0;
    snprintf(err, errsize, "librdkafka %s=%s: %s", k, v, why);
    return -1;
}

/* Counts the records the cluster refused (the producer's delivery reports). */
static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    if (m->err)
        ++*(int64_t *)opaque;
}

/* Writes records 0..t->records-1 to the new topic t->name and checks that
 * the cluster kept every one. */
static int produce(kafka_topic *t, char *err, size_t errsize)
{
    const bench_work *w = bench_work_get();
    if (weir_kafka_mock_topic(cluster, t->name, KAFKA_PARTITIONS) < 0) {
        snprintf(err, errsize, "mock cluster: cannot create topic %s", t->name);
        return -1;
    }
    int64_t failed = 0;
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (set(conf, "bootstrap.servers", weir_kafka_mock_bootstrap(cluster), err, errsize) ||
        set(conf, "compression.codec", "zstd", err, errsize) ||
        set(conf, "linger.ms", "20", err, errsize) ||
        set(conf, "batch.size", "1000000", err, errsize) ||
        set(conf, "batch.num.messages", "1000000", err, errsize) ||
        set(conf, "queue.buffering.max.messages", "2000000", err, errsize)) {
        rd_kafka_conf_destroy(conf);
        return -1;
    }
    rd_kafka_conf_set_opaque(conf, &failed);
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    char why[512];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, why, sizeof why);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        snprintf(err, errsize, "librdkafka producer: %s", why);
        return -1;
    }
    int r = 0;
    t->sum = t->ts_sum = 0;
    for (int64_t s = 0; s < t->records && r == 0; s++) {
        bench_elem e;
        int64_t ts = w->gen_event(s, &e);
        t->sum += (uint64_t)(e.key ^ e.value);
        t->ts_sum += (uint64_t)ts;
        for (;;) {
            /* rd_kafka_produceva: producev's argument macros are GNU
             * statement expressions, which the clang build refuses */
            rd_kafka_vu_t vu[] = {
                {.vtype = RD_KAFKA_VTYPE_TOPIC, .u.cstr = t->name},
                {.vtype = RD_KAFKA_VTYPE_PARTITION, .u.i32 = (int32_t)(s % KAFKA_PARTITIONS)},
                {.vtype = RD_KAFKA_VTYPE_VALUE, .u.mem = {&e, sizeof e}},
                {.vtype = RD_KAFKA_VTYPE_TIMESTAMP, .u.i64 = ts + KAFKA_TS_BASE},
                {.vtype = RD_KAFKA_VTYPE_MSGFLAGS, .u.i = RD_KAFKA_MSG_F_COPY}};
            rd_kafka_error_t *pe = rd_kafka_produceva(rk, vu, sizeof vu / sizeof *vu);
            rd_kafka_resp_err_t x = pe ? rd_kafka_error_code(pe) : RD_KAFKA_RESP_ERR_NO_ERROR;
            if (pe)
                rd_kafka_error_destroy(pe);
            if (x == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
                rd_kafka_poll(rk, 10);
                continue;
            }
            if (x) {
                snprintf(err, errsize, "producing to %s: %s", t->name, rd_kafka_err2str(x));
                r = -1;
            }
            break;
        }
    }
    if (r == 0 && rd_kafka_flush(rk, 120000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        snprintf(err, errsize, "producing to %s: the flush timed out", t->name);
        r = -1;
    }
    if (r == 0 && failed > 0) {
        snprintf(err, errsize, "producing to %s: the cluster refused %" PRId64 " records", t->name,
                 failed);
        r = -1;
    }
    /* Did the mock keep every batch? Its log drops the oldest beyond
     * about 5 MiB a partition. */
    for (int32_t p = 0; r == 0 && p < KAFKA_PARTITIONS; p++) {
        int64_t lo = 0, hi = 0;
        int64_t want = t->records / KAFKA_PARTITIONS + (p < t->records % KAFKA_PARTITIONS);
        rd_kafka_resp_err_t x =
            rd_kafka_query_watermark_offsets(rk, t->name, p, &lo, &hi, KAFKA_TIMEOUT_MS);
        if (x) {
            snprintf(err, errsize, "%s-%" PRId32 ": its offsets: %s", t->name, p,
                     rd_kafka_err2str(x));
            r = -1;
        } else if (lo != 0 || hi != want) {
            snprintf(err, errsize,
                     "%s-%" PRId32 " holds offsets %" PRId64 "..%" PRId64 ", not 0..%" PRId64
                     ": the mock cluster keeps about 5 MiB a partition (about 2.9 M records in "
                     "all here); ask for fewer with --records",
                     t->name, p, lo, hi, want);
            r = -1;
        }
    }
    rd_kafka_destroy(rk);
    return r;
}

/* The topic holding `records` records, written on first use. */
static const kafka_topic *topic_for(int64_t records, char *err, size_t errsize)
{
    for (int i = 0; i < ntopics; i++) {
        if (topics[i].records == records)
            return &topics[i];
    }
    if (ntopics == KAFKA_TOPICS) {
        snprintf(err, errsize, "more than %d record counts in one invocation", KAFKA_TOPICS);
        return NULL;
    }
    if (!cluster) {
        char why[256] = "";
        if (weir_kafka_mock_create(1, &cluster, why, sizeof why) < 0) {
            snprintf(err, errsize, "mock cluster: %s", why);
            return NULL;
        }
        atexit(cluster_destroy);
    }
    kafka_topic *t = &topics[ntopics];
    *t = (kafka_topic){.records = records};
    snprintf(t->name, sizeof t->name, "bench-%" PRId64, records);
    if (produce(t, err, errsize) < 0)
        return NULL;
    ntopics++;
    return t;
}

/* ---- kafka-consume ------------------------------------------------------------ */

static int run_consume(const bench_scenario *sc, const bench_params *p, bench_result *out,
                       char *err, size_t errsize)
{
    (void)sc;
    const kafka_topic *t = topic_for(p->records, err, errsize);
    if (!t)
        return -1;
    rd_kafka_message_t *batch[512];
    int64_t next[KAFKA_PARTITIONS] = {0}, stop[KAFKA_PARTITIONS] = {0};
    uint64_t count = 0, sum = 0, ts_sum = 0;
    rd_kafka_t *rk = NULL;
    rd_kafka_queue_t *queue = NULL;
    char why[512] = "";
    int r = 0;

    bench_timer tm;
    bench_timer_start(&tm);
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (set(conf, "bootstrap.servers", weir_kafka_mock_bootstrap(cluster), why, sizeof why) ||
        set(conf, "group.id", "weir-bench", why, sizeof why) ||
        set(conf, "enable.auto.commit", "false", why, sizeof why) ||
        set(conf, "enable.auto.offset.store", "false", why, sizeof why) ||
        set(conf, "enable.partition.eof", "true", why, sizeof why)) {
        rd_kafka_conf_destroy(conf);
        r = -1;
    }
    if (r == 0 && !(rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, why, sizeof why))) {
        rd_kafka_conf_destroy(conf);
        r = -1;
    }
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(KAFKA_PARTITIONS);
    for (int32_t i = 0; r == 0 && i < KAFKA_PARTITIONS; i++) {
        rd_kafka_resp_err_t x = rd_kafka_query_watermark_offsets(rk, t->name, i, &next[i],
                                                                 &stop[i], KAFKA_TIMEOUT_MS);
        if (x) {
            snprintf(why, sizeof why, "%s-%" PRId32 ": its offsets: %s", t->name, i,
                     rd_kafka_err2str(x));
            r = -1;
        } else {
            rd_kafka_topic_partition_list_add(list, t->name, i)->offset = next[i];
        }
    }
    if (r == 0 && rd_kafka_assign(rk, list) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        snprintf(why, sizeof why, "rd_kafka_assign failed");
        r = -1;
    }
    rd_kafka_topic_partition_list_destroy(list);
    if (r == 0)
        queue = rd_kafka_queue_get_consumer(rk);
    int open = KAFKA_PARTITIONS;
    for (int32_t i = 0; i < KAFKA_PARTITIONS; i++)
        open -= r == 0 && next[i] >= stop[i];
    while (r == 0 && open > 0) {
        /* Blocks until records come: the consumer at its best, where the
         * source, which must not block its worker, waits on the job clock. */
        ssize_t got = rd_kafka_consume_batch_queue(queue, 100, batch, 512);
        if (got < 0) {
            snprintf(why, sizeof why, "reading: %s", rd_kafka_err2str(rd_kafka_last_error()));
            r = -1;
            break;
        }
        for (ssize_t k = 0; k < got; k++) {
            const rd_kafka_message_t *m = batch[k];
            int32_t i = m->partition;
            if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF || i < 0 || i >= KAFKA_PARTITIONS ||
                next[i] >= stop[i]) {
                /* EOF events, and nothing past the end the run started with */
            } else if (m->err) {
                snprintf(why, sizeof why, "%s-%" PRId32 ": %s", t->name, i,
                         rd_kafka_message_errstr(m));
                r = -1;
            } else if (m->offset >= next[i]) {
                /* the source's work for a record: the value copied out
                 * (its deserializer), the timestamp taken */
                bench_elem e;
                rd_kafka_timestamp_type_t type;
                if (m->len != sizeof e) {
                    snprintf(why, sizeof why, "%s-%" PRId32 " offset %" PRId64 ": %zu bytes",
                             t->name, i, m->offset, m->len);
                    r = -1;
                } else {
                    memcpy(&e, m->payload, sizeof e);
                    int64_t ts = rd_kafka_message_timestamp(m, &type) - KAFKA_TS_BASE;
                    count++;
                    sum += (uint64_t)(e.key ^ e.value);
                    ts_sum += (uint64_t)ts;
                    next[i] = m->offset + 1;
                    open -= next[i] >= stop[i];
                }
            }
            rd_kafka_message_destroy(batch[k]);
        }
    }
    if (queue)
        rd_kafka_queue_destroy(queue);
    if (rk) {
        rd_kafka_consumer_close(rk);
        rd_kafka_destroy(rk);
    }
    bench_timer_stop(&tm, out);
    out->workers = 0;
    if (r < 0) {
        snprintf(err, errsize, "kafka-consume: %s", why);
        return -1;
    }
    if (count != (uint64_t)t->records || sum != t->sum || ts_sum != t->ts_sum) {
        snprintf(err, errsize,
                 "kafka-consume read %" PRIu64 " records (checksums %016" PRIx64 " %016" PRIx64
                 "), expected %" PRId64 " (%016" PRIx64 " %016" PRIx64 ")",
                 count, sum, ts_sum, t->records, t->sum, t->ts_sum);
        return -1;
    }
    return 0;
}

/* ---- kafka-source --------------------------------------------------------------- */

/* The record's value is the element; its event time is the Kafka
 * timestamp less the base. */
static int deserialize(const weir_kafka_message *m, void *out, int64_t *timestamp, char *why,
                       size_t whysize, void *arg)
{
    (void)arg;
    if (m->value_len != sizeof(bench_elem)) {
        snprintf(why, whysize, "%zu bytes, not an element", m->value_len);
        return WEIR_EFORMAT;
    }
    memcpy(out, m->value, sizeof(bench_elem));
    *timestamp -= KAFKA_TS_BASE;
    return WEIR_KAFKA_EMIT;
}

static int run_source(const bench_scenario *sc, const bench_params *p, bench_result *out,
                      char *err, size_t errsize)
{
    (void)sc;
    const bench_work *w = bench_work_get();
    const kafka_topic *t = topic_for(p->records, err, errsize);
    if (!t)
        return -1;
    weir_job *job = bench_job_create(p, 0, NULL, err, errsize);
    if (!job)
        return -1;
    bench_wacc *acc = bench_wacc_create(p->parallelism);
    if (!acc) {
        weir_job_destroy(job);
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    const char *names[] = {t->name};
    weir_watermark_strategy wm = weir_watermarks_bounded(KAFKA_BOUND_MS);
    wm.interval_ms = KAFKA_PROBE_MS;
    weir_stream *s = weir_source_kafka(job, &(weir_kafka_source_config){
                                                .bootstrap_servers = weir_kafka_mock_bootstrap(cluster),
                                                .topics = names,
                                                .ntopics = 1,
                                                .start = WEIR_KAFKA_EARLIEST,
                                                .bounded = true,
                                                .elem_size = sizeof(bench_elem),
                                                .deserialize = deserialize,
                                                .watermarks = wm,
                                                .timeout_ms = KAFKA_TIMEOUT_MS});
    /* window-tumbling's window stage (bench_window_stages without its
     * timestamps operator: the source made the watermarks) */
    weir_window_spec spec = {
        .assigner = weir_window_tumbling(KAFKA_TUMBLE_MS, 0),
        .aggregate = {.acc_size = sizeof(int64_t),
                      .add = w->count_add,
                      .merge = w->count_merge,
                      .result = w->count_result},
        .out_size = sizeof(bench_elem),
    };
    /* Builder calls pass NULL along after an error; weir_job_run reports it. */
    s = weir_stream_window(weir_stream_key_by(s, bench_key_spec()), &spec);
    weir_sink_callback(s, w->sink_window, acc);
    int r = bench_job_time(job, out, err, errsize);
    if (r == 0)
        r = bench_verify_windows(acc, p->parallelism, p->records, BENCH_WINDOW_TUMBLING, err,
                                 errsize);
    weir_job_destroy(job);
    free(acc);
    return r;
}

const bench_scenario bench_scenarios_kafka[] = {
    {
        .name = "kafka-consume",
        .what = "baseline: a plain librdkafka consumer reads the kafka-source topic (4 partitions "
                "on the mock cluster), no weir",
        .flags = BENCH_PLAIN,
        .parallelism = 1,
        .records = 1000000,
        .quick_records = 500000,
        .run = run_consume,
    },
    {
        .name = "kafka-source",
        .what = "Kafka source (mock cluster, 4 partitions, bounded 100 ms per partition) -> "
                "key_by -> tumbling 1 s count -> sink",
        .baseline = "window-tumbling",
        .records = 1000000,
        .quick_records = 500000,
        .run = run_source,
    },
};

const size_t bench_nscenarios_kafka = sizeof bench_scenarios_kafka / sizeof bench_scenarios_kafka[0];
