/* test_kafka_scaleout.c — a weir pipeline on two cooperating processes over
 * Kafka (docs/SCALING.md), on librdkafka's mock cluster: each instance
 * reads its share of an input topic, writes its records keyed into a
 * repartition topic with its watermarks as in-band markers, and reads its
 * share of the repartition topic back (inband_watermarks) into a keyed
 * tumbling window. The two instances (here two jobs on two threads) must
 * give exactly the windows one instance gives reading the input alone.
 * Also: each writer of a partition is a channel of the source's valve
 * (a writer not heard from holds, an idle one does not, the valve's rules
 * throughout), and a marker that is not one fails the job. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

#include "support/kafka_testutil.h"
#include "support/weir_testutil.h"
#include "weir/kafka.h"
#include "weir/operator.h"
#include "weir/stream.h"
#include "weir/window.h"

typedef struct event {
    int64_t key;
    int64_t value;
} event;

typedef struct counts {
    int64_t key;
    int64_t start;
    int64_t n;
    int64_t sum;
} counts;

enum { KEYS = 13, PER_PARTITION = 400, IN_PARTITIONS = 4, RE_PARTITIONS = 3 };

/* The input: per partition p, event i has key (7 * i + p) % KEYS, value
 * i + 1000 p and an ascending Kafka timestamp 1 + 5 i + p. */
static void produce_input(weir_kafka_mock *m)
{
    rd_kafka_t *rk = tk_producer(m);
    for (int p = 0; p < IN_PARTITIONS; p++) {
        for (int i = 0; i < PER_PARTITION; i++) {
            char v[64];
            int len = snprintf(v, sizeof v, "k=%d v=%d", (7 * i + p) % KEYS, i + 1000 * p);
            cr_assert_eq(tk_produce(rk, "in", p, v, (size_t)len, 1 + 5 * i + p, NULL, NULL), 0);
        }
    }
    cr_assert_eq(rd_kafka_flush(rk, 10000), 0);
    rd_kafka_destroy(rk);
}

static int parse(const weir_kafka_message *m, void *out, int64_t *ts, char *why, size_t whysize,
                 void *arg)
{
    (void)ts;
    (void)arg;
    char v[64] = "";
    memcpy(v, m->value, m->value_len < 63 ? m->value_len : 63);
    long long k, x;
    if (sscanf(v, "k=%lld v=%lld", &k, &x) != 2) {
        snprintf(why, whysize, "not an event: \"%s\"", v);
        return WEIR_EFORMAT;
    }
    *(event *)out = (event){.key = k, .value = x};
    return WEIR_KAFKA_EMIT;
}

/* Into the repartition topic: keyed by the event's key. */
static int serialize(const void *elem, int64_t ts, weir_kafka_record *rec, char *why,
                     size_t whysize, void *arg)
{
    (void)ts;
    (void)why;
    (void)whysize;
    (void)arg;
    const event *e = elem;
    char key[32], value[64];
    snprintf(key, sizeof key, "%" PRId64, e->key);
    snprintf(value, sizeof value, "k=%" PRId64 " v=%" PRId64, e->key, e->value);
    tk_record_text(rec, key, value);
    return WEIR_KAFKA_EMIT;
}

static void by_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const event *)elem)->key, 8);
}

static void count_add(void *acc, const void *in, void *arg)
{
    (void)arg;
    counts *c = acc;
    c->n++;
    c->sum += ((const event *)in)->value;
}

static void count_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    counts *o = out;
    *o = *(const counts *)acc;
    memcpy(&o->key, w->key, 8);
    o->start = w->start;
}

/* source -> key_by -> tumbling 100 ms window of counts -> collect */
static weir_collect *windows(weir_stream *s)
{
    cr_assert_not_null(s);
    weir_job *job = weir_stream_job(s);
    s = weir_stream_key_by(s, &(weir_key_spec){.key_size = 8, .extract = by_key});
    weir_window_spec w = {.assigner = weir_window_tumbling(100, 0),
                          .aggregate = {.acc_size = sizeof(counts), .add = count_add,
                                        .result = count_result},
                          .out_size = sizeof(counts)};
    weir_collect *c = NULL;
    weir_stream *out = weir_stream_window(s, &w);
    cr_assert_not_null(out, "%s", weir_job_error(job));
    cr_assert_not_null(weir_sink_collect(out, &c));
    return c;
}

static weir_kafka_source_config source(weir_kafka_mock *m, const char *const *topic)
{
    return (weir_kafka_source_config){.bootstrap_servers = weir_kafka_mock_bootstrap(m),
                                      .topics = topic,
                                      .ntopics = 1,
                                      .bounded = true,
                                      .elem_size = sizeof(event),
                                      .deserialize = parse,
                                      .watermarks = weir_watermarks_bounded(0),
                                      .timeout_ms = 10000};
}

static const char *const in_topic[] = {"in"};
static const char *const re_topic[] = {"rekey"};

typedef struct instance {
    weir_kafka_mock *m;
    int index, of;
    weir_job *job;
    weir_collect *out;
    int result;
    bool silent_writer; /* the repartition writer gets nothing to write */
} instance;

/* One instance of the two-stage pipeline, built. */
static void build_instance(instance *in)
{
    in->job = tu_job(&(weir_job_config){.parallelism = 1, .workers = 2,
                                        .watermark_interval_ms = 20,
                                        .diag = {.level = WEIR_DIAG_OFF}});
    weir_kafka_source_config a = source(in->m, in_topic);
    a.instance = in->index;
    a.instances = in->of;
    weir_stream *s = weir_source_kafka(in->job, &a);
    cr_assert_not_null(s, "%s", weir_job_error(in->job));
    weir_kafka_sink_config k = {.bootstrap_servers = weir_kafka_mock_bootstrap(in->m),
                                .topic = "rekey",
                                .serialize = serialize,
                                .watermarks = true,
                                .instance = in->index,
                                .instances = in->of,
                                .timeout_ms = 10000};
    cr_assert_not_null(weir_sink_kafka(s, &k), "%s", weir_job_error(in->job));
    weir_kafka_source_config b = source(in->m, re_topic);
    b.instance = in->index;
    b.instances = in->of;
    b.inband_watermarks = true;
    b.name = "rekeyed";
    weir_stream *r = weir_source_kafka(in->job, &b);
    cr_assert_not_null(r, "%s", weir_job_error(in->job));
    in->out = windows(r);
}

static void *run_instance(void *p)
{
    instance *in = p;
    in->result = weir_job_run(in->job);
    return NULL;
}

static int by_window(const void *x, const void *y)
{
    const counts *a = x, *b = y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->key > b->key) - (a->key < b->key);
}

/* The collected windows of one or more runs, sorted. */
static counts *gather(weir_collect **cs, int n, size_t *total)
{
    size_t t = 0;
    for (int i = 0; i < n; i++)
        t += weir_collect_count(cs[i]);
    counts *v = calloc(t ? t : 1, sizeof *v);
    size_t k = 0;
    for (int i = 0; i < n; i++)
        for (size_t j = 0; j < weir_collect_count(cs[i]); j++)
            memcpy(&v[k++], weir_collect_elem(cs[i], j), sizeof *v);
    qsort(v, t, sizeof *v, by_window);
    *total = t;
    return v;
}

Test(kafka_scaleout, two_instances_over_a_repartition_topic_give_one_instances_windows,
     .timeout = 120)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "in", IN_PARTITIONS), 0);
    cr_assert_eq(weir_kafka_mock_topic(m, "rekey", RE_PARTITIONS), 0);
    produce_input(m);

    /* one instance, reading the input alone */
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 2, .workers = 2,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    weir_kafka_source_config a = source(m, in_topic);
    weir_collect *ref = windows(weir_source_kafka(job, &a));
    tu_run_ok(job);
    size_t nref = 0;
    counts *want = gather(&ref, 1, &nref);
    weir_job_destroy(job);
    int64_t events = 0;
    for (size_t i = 0; i < nref; i++)
        events += want[i].n;
    cr_assert_eq(events, IN_PARTITIONS * PER_PARTITION, "the reference counts every event");

    /* two instances, each a process of its own in production */
    instance in[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        in[i] = (instance){.m = m, .index = i, .of = 2};
        build_instance(&in[i]);
    }
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, run_instance, &in[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(in[i].result, 0, "instance %d: %s", i, weir_job_error(in[i].job));
    weir_collect *outs[2] = {in[0].out, in[1].out};
    size_t ngot = 0;
    counts *got = gather(outs, 2, &ngot);
    cr_assert_eq(ngot, nref, "%zu windows, one instance made %zu", ngot, nref);
    for (size_t i = 0; i < nref; i++)
        cr_assert(got[i].key == want[i].key && got[i].start == want[i].start &&
                      got[i].n == want[i].n && got[i].sum == want[i].sum,
                  "window %zu: key %" PRId64 " at %" PRId64 ": %" PRId64 " events (sum %" PRId64
                  "), one instance: key %" PRId64 " at %" PRId64 ": %" PRId64 " (sum %" PRId64
                  ")",
                  i, got[i].key, got[i].start, got[i].n, got[i].sum, want[i].key, want[i].start,
                  want[i].n, want[i].sum);
    free(got);
    free(want);
    for (int i = 0; i < 2; i++)
        weir_job_destroy(in[i].job);
    weir_kafka_mock_destroy(m);
}

/* Writes one raw record with header weir-wm = text to rekey partition 0. */
static void write_marker(weir_kafka_mock *m, const char *text)
{
    rd_kafka_t *rk = tk_producer(m);
    cr_assert_eq(tk_produce(rk, "rekey", 0, NULL, 0, -1, "weir-wm", text), 0);
    cr_assert_eq(rd_kafka_flush(rk, 10000), 0);
    rd_kafka_destroy(rk);
}

Test(kafka_scaleout, a_malformed_marker_fails_the_job_with_its_offset, .timeout = 60)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "rekey", 1), 0);
    write_marker(m, "0 1 W 100");
    write_marker(m, "3 2 W 100"); /* writer 3 of 2 */
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
    weir_kafka_source_config b = source(m, re_topic);
    b.inband_watermarks = true;
    windows(weir_source_kafka(job, &b));
    cr_assert_neq(weir_job_run(job), 0);
    cr_assert(strstr(weir_job_error(job), "kafka rekey-0 offset 1: not a weir watermark marker"),
              "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_kafka_mock_destroy(m);
}

/* What an operator behind the source sees of event time. */
static int64_t seen_wm[16];
static int nseen_wm;

static int ignore_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)ctx;
    (void)input;
    (void)elem;
    (void)ts;
    return 0;
}

static int note_watermark(weir_ctx *ctx, int64_t wm)
{
    (void)ctx;
    if (nseen_wm < 16)
        seen_wm[nseen_wm++] = wm;
    return 0;
}

static const weir_operator_vtable watch_vtable = {.version = WEIR_OPERATOR_VTABLE_V1,
                                                  .on_record = ignore_record,
                                                  .on_watermark = note_watermark};

/* Writes `markers` to rekey partition 0, reads it back bounded and checks
 * the watermarks the operator behind the source sees. */
static void expect_watermarks(const char *const *markers, int nmarkers, const int64_t *want,
                              int nwant)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "rekey", 1), 0);
    for (int i = 0; i < nmarkers; i++)
        write_marker(m, markers[i]);
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
    weir_kafka_source_config b = source(m, re_topic);
    b.inband_watermarks = true;
    weir_stream *s = weir_source_kafka(job, &b);
    weir_process_spec spec = {.name = "watch", .vtable = &watch_vtable};
    cr_assert_not_null(weir_stream_process(s, &spec), "%s", weir_job_error(job));
    nseen_wm = 0;
    tu_run_ok(job);
    cr_assert_eq(nseen_wm, nwant, "%d watermarks, not %d", nseen_wm, nwant);
    for (int i = 0; i < nwant; i++)
        cr_assert_eq(seen_wm[i], want[i], "watermark %d: %" PRId64 ", not %" PRId64, i,
                     seen_wm[i], want[i]);
    weir_job_destroy(job);
    weir_kafka_mock_destroy(m);
}

/* writer 0 at 500 (writer 1 not heard yet: nothing), writer 1 at 200:
 * 200; writer 1 idle: 500; writer 0 at 900: 900; both end: the partition
 * is done, the source ends (MAX) */
Test(kafka_scaleout, markers_merge_per_partition_min_over_writers, .timeout = 60)
{
    const char *const markers[] = {"0 2 W 500", "1 2 W 200", "1 2 I 200", "0 2 W 900",
                                   "0 2 E 9223372036854775807",
                                   "1 2 E 9223372036854775807"};
    const int64_t want[] = {200, 500, 900, WEIR_TS_MAX};
    expect_watermarks(markers, 6, want, 4);
}

/* Each writer is a channel of the valve (SEMANTICS.md 3): when every
 * writer is idle the highest watermark goes out (500); a writer active
 * again below it (300) stays out of the minimum until it catches up, so
 * writer 0 at 700 moves the partition on. */
Test(kafka_scaleout, writers_follow_the_valve_rules, .timeout = 60)
{
    const char *const markers[] = {"0 2 W 500", "1 2 W 200", "0 2 I 500", "1 2 I 200",
                                   "1 2 A 200", "1 2 W 300", "0 2 A 500", "0 2 W 700",
                                   "0 2 E 9223372036854775807",
                                   "1 2 E 9223372036854775807"};
    const int64_t want[] = {200, 500, 700, WEIR_TS_MAX};
    expect_watermarks(markers, 10, want, 4);
}
