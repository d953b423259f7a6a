/* test_kafka_faults.c — the Kafka source (weir/kafka.h) against faults on
 * librdkafka's mock cluster: its only broker going down in the middle of a
 * read and coming back, errors injected into the consumers' Fetch requests
 * (those librdkafka retries itself, a request timeout, an authorization
 * failure) and into the ListOffsets queries the source makes when it
 * assigns its partitions (retriable ones, an authorization failure). A
 * fault the consumer rides out must lose and repeat nothing: the sink
 * counts the records, sums a checksum of each one's (partition, offset, value) and flags any it sees twice, against
 * what the producer's delivery reports say the cluster stored. A fault the
 * source gives up on must end the job with a message that names Kafka, the
 * partition and the error, and free everything (the ASan build checks). No
 * fault may make a run hang: every run and every wait has a deadline, at
 * which the test cancels the job and fails.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <librdkafka/rdkafka.h>

#include "support/kafka_testutil.h"
#include "support/weir_testutil.h"
#include "weir/kafka.h"
#include "weir/stream.h"

/* Kafka's error codes and API keys (the protocol's numbers), as the mock
 * cluster is told them. */
enum {
    ERR_UNKNOWN_TOPIC_OR_PART = 3,
    ERR_LEADER_NOT_AVAILABLE = 5,
    ERR_NOT_LEADER_OR_FOLLOWER = 6,
    ERR_REQUEST_TIMED_OUT = 7,
    ERR_TOPIC_AUTHORIZATION_FAILED = 29
};
enum { API_FETCH = 1, API_LIST_OFFSETS = 2 };

/* A generous bound on one run or one wait, never reached when things work
 * (a run takes a second or two in a release build): a fault that makes
 * the source hang fails the test here, with what the sink had seen, and
 * not at Criterion's timeout, which only backs it up. */
#define DEADLINE_MS (WEIR_TEST_SANITIZED ? 90000 : 20000)
#define PARTITIONS 3
#define MAX_PER_PARTITION 2048

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* One record's share of the checksum: a mix of all three, so that a record
 * read at the wrong offset or from the wrong partition changes the sum as
 * a lost or repeated one does. */
static uint64_t rec_sum(int32_t partition, int64_t offset, int64_t value)
{
    return tu_mix(tu_mix(tu_mix((uint64_t)partition) ^ (uint64_t)offset) ^ (uint64_t)value);
}

/* ---- the cluster and what it stored --------------------------------------- */

typedef struct produced {
    long count;
    uint64_t sum;
    int failed; /* delivery reports with an error */
} produced;

/* A record's delivery report: the partition and offset the cluster stored
 * it at. Runs inside rd_kafka_flush, on the test's thread. */
static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    produced *pr = opaque;
    char buf[32] = "";
    memcpy(buf, m->payload, m->len < sizeof buf - 1 ? m->len : sizeof buf - 1);
    long long v;
    if (m->err || sscanf(buf, "v=%lld", &v) != 1) {
        pr->failed++;
        return;
    }
    pr->count++;
    pr->sum += rec_sum(m->partition, m->offset, v);
}

/* A one-broker mock cluster with topic "t" of PARTITIONS partitions, `per`
 * records "v=<n>" in each (n unique across them), every one acknowledged.
 * Batches of at most 10 records: the mock answers a Fetch with one batch
 * per partition, so a read takes many fetches and a fault falls between
 * them. */
static weir_kafka_mock *cluster_with_records(int per, produced *pr)
{
    weir_kafka_mock *m = NULL;
    char err[512] = "";
    cr_assert_eq(weir_kafka_mock_create(1, &m, err, sizeof err), 0, "%s", err);
    cr_assert_eq(weir_kafka_mock_topic(m, "t", PARTITIONS), 0);
    *pr = (produced){0};
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    cr_assert_eq(rd_kafka_conf_set(conf, "bootstrap.servers", weir_kafka_mock_bootstrap(m), err,
                                   sizeof err),
                 RD_KAFKA_CONF_OK, "%s", err);
    cr_assert_eq(rd_kafka_conf_set(conf, "batch.num.messages", "10", err, sizeof err),
                 RD_KAFKA_CONF_OK, "%s", err);
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_opaque(conf, pr);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    cr_assert_not_null(rk, "%s", err);
    for (int p = 0; p < PARTITIONS; p++) {
        for (int i = 0; i < per; i++) {
            char v[32];
            int len = snprintf(v, sizeof v, "v=%d", p * per + i);
            rd_kafka_resp_err_t e = tk_produce(rk, "t", p, v, (size_t)len, -1, NULL, NULL);
            cr_assert_eq(e, 0, "produce: %s", rd_kafka_err2str(e));
        }
    }
    cr_assert_eq(rd_kafka_flush(rk, 10000), 0, "flush");
    rd_kafka_destroy(rk);
    cr_assert_eq(pr->failed, 0, "%d records not delivered", pr->failed);
    cr_assert_eq(pr->count, (long)PARTITIONS * per);
    return m;
}

/* ---- the job: source -> a counting, checksumming sink ---------------------- */

typedef struct rec {
    int64_t value;
    int32_t partition;
    int32_t pad;
    int64_t offset;
} rec;

static int deserialize(const weir_kafka_message *m, void *out, int64_t *ts, char *why,
                       size_t whysize, void *arg)
{
    (void)ts;
    (void)arg;
    char v[32] = "";
    memcpy(v, m->value, m->value_len < sizeof v - 1 ? m->value_len : sizeof v - 1);
    long long x;
    if (sscanf(v, "v=%lld", &x) != 1) {
        snprintf(why, whysize, "not a record: \"%s\"", v);
        return WEIR_EFORMAT;
    }
    *(rec *)out = (rec){.value = x, .partition = m->partition, .offset = m->offset};
    return WEIR_KAFKA_EMIT;
}

/* What the sink saw. Its subtasks run on worker threads and the test reads
 * on its own: atomics only. */
static atomic_long got;
static atomic_long got_of[PARTITIONS];
static atomic_ullong got_sum;
static atomic_long dups;
static atomic_uchar seen[PARTITIONS][MAX_PER_PARTITION];
/* Once `gate_at` records came, and at least one of every partition, every
 * sink subtask holds in its callback until the test opens the gate: a
 * fault the test makes then falls in the middle of the read, however fast
 * the machine. One record of every partition means that both subtasks are
 * past their first next(), whose offset queries an outage would block
 * until the broker is back (librdkafka 2.0.2's
 * rd_kafka_query_watermark_offsets does not keep to its timeout then):
 * the outage is to hit the reading, not the start. */
static atomic_long gate_at;
static atomic_int gate_open;

static void sink_reset(long gate)
{
    atomic_store(&got, 0);
    atomic_store(&got_sum, 0);
    for (int p = 0; p < PARTITIONS; p++)
        atomic_store(&got_of[p], 0);
    atomic_store(&dups, 0);
    for (int p = 0; p < PARTITIONS; p++) {
        for (int i = 0; i < MAX_PER_PARTITION; i++)
            atomic_store(&seen[p][i], 0);
    }
    atomic_store(&gate_at, gate);
    atomic_store(&gate_open, 0);
}

static bool at_gate(void)
{
    for (int p = 0; p < PARTITIONS; p++) {
        if (atomic_load(&got_of[p]) == 0)
            return false;
    }
    return atomic_load(&got) >= atomic_load(&gate_at);
}

static int count_sink(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    (void)subtask;
    (void)arg;
    const rec *r = elem;
    bool known = r->partition >= 0 && r->partition < PARTITIONS && r->offset >= 0 &&
                 r->offset < MAX_PER_PARTITION;
    tu_check(known, "a record from partition %" PRId32 " offset %" PRId64, r->partition,
             r->offset);
    if (known) {
        if (atomic_exchange(&seen[r->partition][r->offset], 1))
            atomic_fetch_add(&dups, 1);
        atomic_fetch_add(&got_of[r->partition], 1);
    }
    atomic_fetch_add(&got_sum, rec_sum(r->partition, r->offset, r->value));
    atomic_fetch_add(&got, 1);
    if (at_gate()) {
        int64_t until = now_ms() + DEADLINE_MS;
        while (!atomic_load(&gate_open) && now_ms() < until)
            sleep_ms(1);
        tu_check(atomic_load(&gate_open), "the gate stayed shut for %d ms", DEADLINE_MS);
    }
    return 0;
}

/* Consumer properties for quick recovery: reconnect 10-100 ms after the
 * broker is back, fetch again 10 ms after a failed fetch, wait at most
 * 10 ms on a partition with nothing new. */
static const char *const quick[] = {"reconnect.backoff.ms", "10", "reconnect.backoff.max.ms", "100",
                                    "fetch.error.backoff.ms", "10", "fetch.wait.max.ms", "10",
                                    NULL};

static weir_kafka_source_config source(weir_kafka_mock *m)
{
    static const char *const topic[] = {"t"};
    return (weir_kafka_source_config){.bootstrap_servers = weir_kafka_mock_bootstrap(m),
                                      .topics = topic,
                                      .ntopics = 1,
                                      .properties = quick,
                                      .bounded = true,
                                      .elem_size = sizeof(rec),
                                      .deserialize = deserialize,
                                      .timeout_ms = 5000};
}

/* Starts source -> count_sink at parallelism 2: two consumers, the three
 * partitions shared 2 + 1, each subtask's sink chained to its source. */
static void start(tu_runner *rn, const weir_kafka_source_config *kc)
{
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 2, .workers = 2,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    weir_stream *s = weir_source_kafka(job, kc);
    cr_assert_not_null(weir_sink_callback(s, count_sink, NULL), "%s", weir_job_error(job));
    tu_runner_start(rn, job);
}

/* Waits for the run's end and returns weir_job_run's result; at the
 * deadline cancels the run and fails the test. The job is left to destroy. */
static int finish(tu_runner *rn)
{
    int64_t until = now_ms() + DEADLINE_MS;
    while (!atomic_load(&rn->done) && now_ms() < until)
        sleep_ms(5);
    bool hung = !atomic_load(&rn->done);
    if (hung) {
        atomic_store(&gate_open, 1);
        weir_job_cancel(rn->job);
    }
    pthread_join(rn->thread, NULL);
    cr_assert(!hung, "the run did not end within %d ms (%ld records came)", DEADLINE_MS,
              atomic_load(&got));
    return rn->result;
}

/* Waits until the sink holds at its gate; fails at the deadline or if the
 * run ended first. */
static void wait_for_gate(tu_runner *rn)
{
    int64_t until = now_ms() + DEADLINE_MS;
    while (!at_gate() && !atomic_load(&rn->done) && now_ms() < until)
        sleep_ms(1);
    cr_assert(at_gate(), "not at the gate within %d ms: %ld records (%ld, %ld, %ld a partition); "
              "the run %s", DEADLINE_MS, atomic_load(&got), atomic_load(&got_of[0]),
              atomic_load(&got_of[1]), atomic_load(&got_of[2]),
              atomic_load(&rn->done) ? "ended" : "goes on");
}

/* The run succeeded and the sink had every stored record exactly once. */
static void expect_every_record_once(tu_runner *rn, const produced *pr)
{
    int r = finish(rn);
    cr_assert_eq(r, 0, "the run failed: %d (%s): %s", r, weir_err_name(r),
                 weir_job_error(rn->job));
    tu_assert_no_async_failure();
    cr_assert_eq(atomic_load(&dups), 0, "%ld records came twice", atomic_load(&dups));
    cr_assert_eq(atomic_load(&got), pr->count, "%ld records, not %ld", atomic_load(&got),
                 pr->count);
    cr_assert_eq(atomic_load(&got_sum), pr->sum,
                 "the checksum of (partition, offset, value) is not that of what was stored");
}

/* The run failed with a message from the source's subtask that names one
 * of the topic's partitions ("kafka t-<p>: ") and holds `what`. */
static void expect_failure(tu_runner *rn, const char *what)
{
    int r = finish(rn);
    const char *msg = weir_job_error(rn->job);
    cr_assert_neq(r, 0, "the run succeeded (%ld records)", atomic_load(&got));
    tu_assert_contains(msg, "operator 'kafka' subtask ", what);
    /* "kafka t-1: ..." or, for a request of several, "kafka t-0, t-2: ..." */
    const char *names = strstr(msg, "kafka t-");
    bool named = false;
    for (int p = 0; names && p < PARTITIONS; p++) {
        char one[16], first[16];
        snprintf(one, sizeof one, "t-%d:", p);
        snprintf(first, sizeof first, "t-%d,", p);
        named |= strstr(names, one) != NULL || strstr(names, first) != NULL;
    }
    cr_assert(named, "message \"%s\" names no partition of t", msg);
}

/* ---- the broker down and back --------------------------------------------- */

/* The broker goes down while the two consumers are part of the way through
 * 6 000 records and comes back 500 ms later. queued.min.messages keeps
 * librdkafka from prefetching more than about 1 000 records a partition:
 * while the sink holds at its gate the consumers stop fetching with at
 * least half of a partition still on the broker, so the read can only
 * finish once they have reconnected. Meanwhile the sink drains what was
 * prefetched and the source sees the transport errors ("all brokers
 * down", refused connections) that it must wait out. */
Test(kafka_faults, the_broker_down_and_back_mid_read_loses_and_repeats_nothing, .timeout = 300)
{
    produced pr;
    weir_kafka_mock *m = cluster_with_records(2000, &pr);
    static const char *const props[] = {
        "reconnect.backoff.ms", "10", "reconnect.backoff.max.ms", "100", "fetch.error.backoff.ms",
        "10", "fetch.wait.max.ms", "10", "queued.min.messages", "1000",
        /* the refused connections are expected: not on stderr */
        "log_level", "2", NULL};
    weir_kafka_source_config kc = source(m);
    kc.properties = props;
    sink_reset(300);
    tu_runner rn;
    start(&rn, &kc);

    wait_for_gate(&rn);
    cr_assert_eq(weir_kafka_mock_broker_down(m, 1), 0);
    atomic_store(&gate_open, 1);
    sleep_ms(500);
    long before_up = atomic_load(&got);
    cr_assert_eq(weir_kafka_mock_broker_up(m, 1), 0);

    expect_every_record_once(&rn, &pr);
    cr_assert_lt(before_up, pr.count,
                 "the outage came mid-read: %ld of %ld records before the broker was back",
                 before_up, pr.count);
    weir_job_destroy(rn.job);
    weir_kafka_mock_destroy(m);
}

/* ---- errors on Fetch ------------------------------------------------------- */

/* A read of `per` records a partition while the next n requests of Kafka
 * API `api` are answered with errors[]: every record once (failure NULL),
 * or the job fails with `failure` in its message, naming a partition. */
static void read_with_errors(int per, int api, const int *errors, int n, const char *failure)
{
    produced pr;
    weir_kafka_mock *m = cluster_with_records(per, &pr);
    cr_assert_eq(weir_kafka_mock_request_errors(m, api, n, errors), 0);
    sink_reset(LONG_MAX);
    weir_kafka_source_config kc = source(m);
    tu_runner rn;
    start(&rn, &kc);
    if (failure)
        expect_failure(&rn, failure);
    else
        expect_every_record_once(&rn, &pr);
    weir_job_destroy(rn.job);
    weir_kafka_mock_destroy(m);
}

/* Errors librdkafka's fetcher handles itself: it refreshes the metadata,
 * finds the same leader and fetches again from where it was. The injected
 * errors answer the consumers' first fetches (nothing else fetches from
 * this cluster, and the read takes dozens), and nothing reaches the
 * source. */
Test(kafka_faults, fetch_errors_librdkafka_retries_lose_and_repeat_nothing, .timeout = 300)
{
    const int errors[] = {ERR_NOT_LEADER_OR_FOLLOWER, ERR_UNKNOWN_TOPIC_OR_PART,
                          ERR_NOT_LEADER_OR_FOLLOWER, ERR_LEADER_NOT_AVAILABLE,
                          ERR_UNKNOWN_TOPIC_OR_PART,  ERR_NOT_LEADER_OR_FOLLOWER};
    read_with_errors(300, API_FETCH, errors, 6, NULL);
}

/* A partition error that librdkafka hands to the application and then
 * fetches again after its backoff: the source rides it out (retriable, in
 * source_kafka.c) and the read loses and repeats nothing. */
Test(kafka_faults, a_request_timeout_on_fetch_is_ridden_out, .timeout = 300)
{
    const int errors[] = {ERR_REQUEST_TIMED_OUT, ERR_REQUEST_TIMED_OUT};
    read_with_errors(300, API_FETCH, errors, 2, NULL);
}

/* No retry cures an authorization failure: librdkafka reports it once per
 * partition, before any record of it, so the partition cannot have been
 * read to its end and the run must fail, not end short or wait for ever. */
Test(kafka_faults, an_authorization_failure_on_fetch_fails_the_job_naming_the_partition,
     .timeout = 300)
{
    const int errors[] = {ERR_TOPIC_AUTHORIZATION_FAILED};
    read_with_errors(100, API_FETCH, errors, 1,
                     "Fetch from broker 1 failed: Broker: Topic authorization failed");
}

/* ---- errors on ListOffsets, when the source assigns its partitions -------- */

/* The first next() asks its partitions' first and then end offsets (one
 * ListOffsets request per leader each, rd_kafka_offsets_for_times with
 * the earliest and latest markers) and asks again after a retriable error
 * until timeout_ms. (rd_kafka_query_watermark_offsets, two requests a
 * partition, can report one answer's error as the other's success in
 * librdkafka 2.0.2: a partition then read as empty.) */
Test(kafka_faults, retriable_list_offsets_errors_at_the_start_are_retried, .timeout = 300)
{
    const int errors[] = {ERR_REQUEST_TIMED_OUT, ERR_LEADER_NOT_AVAILABLE, ERR_REQUEST_TIMED_OUT};
    read_with_errors(100, API_LIST_OFFSETS, errors, 3, NULL);
}

/* No retry cures it: the job fails at the start, naming the partition. */
Test(kafka_faults, an_authorization_failure_on_list_offsets_fails_the_job, .timeout = 300)
{
    const int errors[] = {ERR_TOPIC_AUTHORIZATION_FAILED};
    read_with_errors(100, API_LIST_OFFSETS, errors, 1,
                     " offsets: Broker: Topic authorization failed");
}
