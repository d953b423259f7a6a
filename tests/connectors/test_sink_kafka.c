/* test_sink_kafka.c — the Kafka sink (weir/kafka.h) on librdkafka's mock
 * cluster: at-least-once writes every record with its key, value and
 * timestamp; the partitioner's choice; a delivery the cluster refuses fails
 * the job with the broker's error; config refusals; and exactly-once across
 * SIGKILLs and restores: the job runs in a child process that kills itself
 * at a seeded record and is restarted from its checkpoints until it
 * completes, while the mock cluster lives on in the test's process, and a
 * read_committed consumer then sees every record exactly once.
 *
 * The child runs on one worker and kills itself inside the serializer, or
 * in the notify_complete of an operator before the sink (a checkpoint is
 * complete on disk, its transaction not yet written): so the kill never
 * falls inside a transaction's commit, where a broker would hide the
 * aborted records and the mock cluster shows them (docs/KAFKA.md, "The
 * mock cluster"). Everything else runs on at the kill: the coordinator's
 * thread writing a checkpoint, librdkafka's threads, records held for the
 * next transaction. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "support/kafka_testutil.h"
#include "support/weir_testutil.h"
#include "weir/checkpoint.h"
#include "weir/generator.h"
#include "weir/kafka.h"
#include "weir/operator.h"
#include "weir/stream.h"

typedef struct item {
    int64_t id;
    int64_t value;
} item;

/* key "k<id % 7>", value "id=<id> v=<value>" */
static int serialize(const void *elem, int64_t ts, weir_kafka_record *rec, char *why,
                     size_t whysize, void *arg)
{
    (void)ts;
    (void)why;
    (void)whysize;
    (void)arg;
    const item *it = elem;
    char key[32], value[64];
    snprintf(key, sizeof key, "k%" PRId64, it->id % 7);
    snprintf(value, sizeof value, "id=%" PRId64 " v=%" PRId64, it->id, it->value);
    tk_record_text(rec, key, value);
    return WEIR_KAFKA_EMIT;
}

/* What a read_committed consumer finds in a topic. */
typedef struct seen {
    int64_t *ids;
    int64_t *ts;
    int32_t *partition;
    char (*key)[16];
    size_t n, cap;
    size_t markers; /* watermark markers (no value) */
    size_t commits; /* an exactly-once sink's commit markers (header weir-txn) */
} seen;

static void seen_free(seen *s)
{
    free(s->ids);
    free(s->ts);
    free(s->partition);
    free(s->key);
}

/* Reads every partition of `topic` to its end (read_committed). */
static seen read_topic(weir_kafka_mock *m, const char *topic, int partitions)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", weir_kafka_mock_bootstrap(m), err, sizeof err);
    rd_kafka_conf_set(conf, "group.id", "reader", err, sizeof err);
    rd_kafka_conf_set(conf, "isolation.level", "read_committed", err, sizeof err);
    rd_kafka_conf_set(conf, "enable.partition.eof", "true", err, sizeof err);
    rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof err);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    cr_assert_not_null(rk, "%s", err);
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(partitions);
    for (int p = 0; p < partitions; p++)
        rd_kafka_topic_partition_list_add(l, topic, p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    cr_assert_eq(rd_kafka_assign(rk, l), 0);
    rd_kafka_topic_partition_list_destroy(l);
    seen s = {0};
    int eof = 0;
    time_t deadline = time(NULL) + 30;
    while (eof < partitions) {
        cr_assert(time(NULL) < deadline, "reading %s took over 30 s", topic);
        rd_kafka_message_t *msg = rd_kafka_consumer_poll(rk, 100);
        if (!msg)
            continue;
        if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            eof++;
        } else {
            cr_assert_eq(msg->err, 0, "reading: %s", rd_kafka_message_errstr(msg));
            rd_kafka_headers_t *h = NULL;
            const void *hv;
            size_t hl;
            bool commit_marker = rd_kafka_message_headers(msg, &h) == 0 &&
                                 rd_kafka_header_get_last(h, "weir-txn", &hv, &hl) == 0;
            if (commit_marker) {
                s.commits++;
            } else if (!msg->payload) {
                s.markers++;
            } else {
                if (s.n == s.cap) {
                    s.cap = s.cap ? 2 * s.cap : 256;
                    s.ids = realloc(s.ids, s.cap * sizeof *s.ids);
                    s.ts = realloc(s.ts, s.cap * sizeof *s.ts);
                    s.partition = realloc(s.partition, s.cap * sizeof *s.partition);
                    s.key = realloc(s.key, s.cap * sizeof *s.key);
                }
                char v[64] = "";
                memcpy(v, msg->payload, msg->len < 63 ? msg->len : 63);
                long long id = -1;
                cr_assert_eq(sscanf(v, "id=%lld", &id), 1, "a record \"%s\"", v);
                s.ids[s.n] = id;
                s.ts[s.n] = rd_kafka_message_timestamp(msg, NULL);
                s.partition[s.n] = msg->partition;
                memset(s.key[s.n], 0, sizeof s.key[s.n]);
                if (msg->key)
                    memcpy(s.key[s.n], msg->key, msg->key_len < 15 ? msg->key_len : 15);
                s.n++;
            }
        }
        rd_kafka_message_destroy(msg);
    }
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    return s;
}

/* Every id 0..n-1 exactly once (at_least: at least once). */
static void expect_each(const seen *s, int64_t n, bool at_least)
{
    unsigned char *count = calloc((size_t)n, 1);
    size_t dup = 0, stray = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->ids[i] < 0 || s->ids[i] >= n)
            stray++;
        else if (count[s->ids[i]]++)
            dup++;
    }
    size_t missing = 0;
    for (int64_t i = 0; i < n; i++)
        missing += count[i] == 0;
    free(count);
    if (at_least)
        cr_log_info("at-least-once: %zu records written again", dup);
    cr_assert((at_least || dup == 0) && missing == 0 && stray == 0,
              "%zu records: %zu duplicates, %zu missing, %zu unknown (of %" PRId64 ")", s->n, dup,
              missing, stray, n);
}

static item *items(int n)
{
    item *v = calloc((size_t)n, sizeof *v);
    for (int i = 0; i < n; i++)
        v[i] = (item){.id = i, .value = 3 * i};
    return v;
}

static int64_t *stamps(int n)
{
    int64_t *t = calloc((size_t)n, sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = 1000 + 10 * i;
    return t;
}

static weir_kafka_sink_config sink_config(weir_kafka_mock *m, const char *topic)
{
    return (weir_kafka_sink_config){.bootstrap_servers = weir_kafka_mock_bootstrap(m),
                                    .topic = topic,
                                    .serialize = serialize,
                                    .timeout_ms = 10000};
}

Test(sink_kafka, at_least_once_writes_every_record_with_key_and_timestamp, .timeout = 60)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "out", 3), 0);
    enum { N = 600 };
    item *v = items(N);
    int64_t *t = stamps(N);
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 2, .workers = 2,
                                              .diag = {.level = WEIR_DIAG_OFF}});
    weir_stream *s = weir_source_array(job, v, N, sizeof *v, t);
    weir_kafka_sink_config kc = sink_config(m, "out");
    cr_assert_not_null(weir_stream_set_parallelism(weir_sink_kafka(s, &kc), 2), "%s",
                       weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
    seen got = read_topic(m, "out", 3);
    expect_each(&got, N, false);
    cr_assert_eq(got.markers, 0, "no markers without watermarks on");
    int32_t part_of_key[7];
    for (int k = 0; k < 7; k++)
        part_of_key[k] = -1;
    for (size_t i = 0; i < got.n; i++) {
        cr_assert_eq(got.ts[i], 1000 + 10 * got.ids[i], "the record's timestamp");
        char want[16];
        snprintf(want, sizeof want, "k%" PRId64, got.ids[i] % 7);
        cr_assert_str_eq(got.key[i], want);
        int k = (int)(got.ids[i] % 7);
        if (part_of_key[k] < 0)
            part_of_key[k] = got.partition[i];
        cr_assert_eq(got.partition[i], part_of_key[k], "one key, one partition");
    }
    seen_free(&got);
    free(v);
    free(t);
    weir_kafka_mock_destroy(m);
}

static int32_t by_id(const void *key, size_t key_len, const void *elem, int32_t partitions,
                     void *arg)
{
    (void)key;
    (void)key_len;
    (void)arg;
    return (int32_t)(((const item *)elem)->id % partitions);
}

static int skip_odd(const void *elem, int64_t ts, weir_kafka_record *rec, char *why,
                    size_t whysize, void *arg)
{
    if (((const item *)elem)->id % 2)
        return WEIR_KAFKA_SKIP;
    return serialize(elem, ts, rec, why, whysize, arg);
}

Test(sink_kafka, partitioner_chooses_and_serializer_skips, .timeout = 60)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "out", 4), 0);
    enum { N = 200 };
    item *v = items(N);
    int64_t *t = stamps(N);
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
    weir_stream *s = weir_source_array(job, v, N, sizeof *v, t);
    weir_kafka_sink_config kc = sink_config(m, "out");
    kc.partitioner = by_id;
    kc.serialize = skip_odd;
    cr_assert_not_null(weir_sink_kafka(s, &kc));
    tu_run_ok(job);
    weir_job_destroy(job);
    seen got = read_topic(m, "out", 4);
    cr_assert_eq(got.n, N / 2);
    for (size_t i = 0; i < got.n; i++) {
        cr_assert_eq(got.ids[i] % 2, 0, "odd ids are skipped");
        cr_assert_eq(got.partition[i], got.ids[i] % 4, "the partitioner's partition");
    }
    seen_free(&got);
    free(v);
    free(t);
    weir_kafka_mock_destroy(m);
}

/* The serializer and the deserializer share one convention: a value that
 * is neither WEIR_KAFKA_EMIT, WEIR_KAFKA_SKIP nor an error code fails the
 * job with what it returned (it is never taken for either). */
static int returns_two(const void *elem, int64_t ts, weir_kafka_record *rec, char *why,
                       size_t whysize, void *arg)
{
    serialize(elem, ts, rec, why, whysize, arg);
    return 2;
}

Test(sink_kafka, a_serializer_result_out_of_the_convention_fails_the_job, .timeout = 60)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "out", 1), 0);
    enum { N = 10 };
    item *v = items(N);
    int64_t *t = stamps(N);
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
    weir_kafka_sink_config kc = sink_config(m, "out");
    kc.serialize = returns_two;
    cr_assert_not_null(weir_sink_kafka(weir_source_array(job, v, N, sizeof *v, t), &kc));
    cr_assert_neq(weir_job_run(job), 0, "the job must fail");
    const char *e = weir_job_error(job);
    cr_assert(strstr(e, "the serializer returned 2"), "%s", e);
    weir_job_destroy(job);
    seen got = read_topic(m, "out", 1);
    cr_assert_eq(got.n, 0, "nothing is written");
    seen_free(&got);
    free(v);
    free(t);
    weir_kafka_mock_destroy(m);
}

Test(sink_kafka, a_refused_delivery_fails_the_job, .timeout = 60)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "out", 1), 0);
    /* every produce request refused: the topic is not ours to write */
    int errs[64];
    for (int i = 0; i < 64; i++)
        errs[i] = RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED;
    cr_assert_eq(weir_kafka_mock_request_errors(m, 0, 64, errs), 0);
    enum { N = 50 };
    item *v = items(N);
    int64_t *t = stamps(N);
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
    weir_kafka_sink_config kc = sink_config(m, "out");
    cr_assert_not_null(weir_sink_kafka(weir_source_array(job, v, N, sizeof *v, t), &kc));
    cr_assert_neq(weir_job_run(job), 0, "the job must fail");
    const char *e = weir_job_error(job);
    cr_assert(strstr(e, "kafka sink out-0") && strstr(e, "delivery failed") &&
                  strstr(e, "uthoriz"),
              "the broker's error, with topic and partition: %s", e);
    weir_job_destroy(job);
    free(v);
    free(t);
    weir_kafka_mock_destroy(m);
}

Test(sink_kafka, refusals, .timeout = 60)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "out", 1), 0);
    item v[1] = {{0, 0}};
    int64_t t[1] = {1};
    /* builder refusals */
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
    weir_stream *s = weir_source_array(job, v, 1, sizeof *v, t);
    weir_kafka_sink_config kc = sink_config(m, "out");
    kc.guarantee = WEIR_KAFKA_EXACTLY_ONCE;
    cr_assert_null(weir_sink_kafka(s, &kc));
    cr_assert(strstr(weir_job_error(job), "transactional_id_prefix"), "%s", weir_job_error(job));
    weir_job_destroy(job);

    job = tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
    s = weir_source_array(job, v, 1, sizeof *v, t);
    kc = sink_config(m, "out");
    const char *props[] = {"transactional.id", "x", NULL};
    kc.properties = props;
    cr_assert_null(weir_sink_kafka(s, &kc));
    cr_assert(strstr(weir_job_error(job), "transactional.id is the sink's own"), "%s",
              weir_job_error(job));
    weir_job_destroy(job);

    /* exactly-once without checkpoints: refused when the job runs */
    job = tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
    s = weir_source_array(job, v, 1, sizeof *v, t);
    kc = sink_config(m, "out");
    kc.guarantee = WEIR_KAFKA_EXACTLY_ONCE;
    kc.transactional_id_prefix = "t";
    cr_assert_not_null(weir_sink_kafka(s, &kc));
    cr_assert_neq(weir_job_run(job), 0);
    cr_assert(strstr(weir_job_error(job), "exactly-once needs checkpoints"), "%s",
              weir_job_error(job));
    weir_job_destroy(job);

    /* a topic the cluster does not have: refused at open, with its name */
    job = tu_job(&(weir_job_config){.parallelism = 1, .diag = {.level = WEIR_DIAG_OFF}});
    s = weir_source_array(job, v, 1, sizeof *v, t);
    kc = sink_config(m, "nowhere");
    const char *no_auto[] = {"allow.auto.create.topics", "false", NULL};
    kc.properties = no_auto;
    kc.timeout_ms = 2000;
    cr_assert_not_null(weir_sink_kafka(s, &kc));
    int r = weir_job_run(job);
    if (r == 0) {
        /* the mock cluster creates topics it is asked about */
        cr_log_info("the mock cluster created the unknown topic itself");
    } else {
        cr_assert(strstr(weir_job_error(job), "nowhere"), "%s", weir_job_error(job));
    }
    weir_job_destroy(job);
    weir_kafka_mock_destroy(m);
}

/* ---- exactly-once across kills ------------------------------------------ */

#define CHILD_ENV "WEIR_KAFKA_SINK_CHILD"
enum { EO_EVENTS = 1500 }; /* per partition of the generator */

/* the child's: SIGKILL at this record, or (negative) at notify -kill_at;
 * 0: never */
static long kill_at;
static long serialized, notified;

/* Passes records on; its notify_complete may be the child's end. */
static int tripwire_notify(weir_ctx *ctx, int64_t id)
{
    (void)ctx;
    (void)id;
    if (kill_at < 0 && ++notified == -kill_at)
        raise(SIGKILL);
    return 0;
}

static const weir_operator_vtable tripwire_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V2,
    .on_record = tu_pass_record,
    .notify_complete = tripwire_notify,
};

static int serialize_event(const void *elem, int64_t ts, weir_kafka_record *rec, char *why,
                           size_t whysize, void *arg)
{
    (void)ts;
    (void)why;
    (void)whysize;
    (void)arg;
    const weir_gen_event *e = elem;
    if (kill_at > 0 && ++serialized == kill_at)
        raise(SIGKILL);
    char value[64];
    /* ids: partition * EO_EVENTS + seq */
    snprintf(value, sizeof value, "id=%" PRId64 " k=%" PRId64,
             (int64_t)e->partition * EO_EVENTS + e->seq, e->key);
    tk_record_text(rec, NULL, value);
    return WEIR_KAFKA_EMIT;
}

/* The child's job: a paced generator of 2 partitions -> the exactly-once
 * sink at parallelism sink_p, checkpoints every 40 ms into chk, restoring
 * the newest complete one there. */
static int child_job(const char *bootstrap, const char *chk, int sink_p, bool exactly)
{
    weir_job_config cfg = {.workers = 1, .parallelism = 2, .diag = {.level = WEIR_DIAG_OFF}};
    cfg.checkpoint.interval_ms = 40;
    cfg.checkpoint.dir = chk;
    weir_checkpoint *c = NULL;
    char err[512];
    if (weir_checkpoint_open(chk, NULL, NULL, &c, err, sizeof err) == 0) {
        cfg.checkpoint.restore_from = chk;
        weir_checkpoint_close(c);
    }
    weir_job *job = NULL;
    if (weir_job_create(&cfg, &job))
        return 2;
    weir_generator_config g = {.name = "events", .partitions = 2, .keys = 10, .rate = 1000,
                               .pace = WEIR_GEN_PACED, .speed = 1.0, .count = EO_EVENTS,
                               .seed = 5};
    weir_stream *s = weir_source_generator(job, &g);
    weir_process_spec trip = {.name = "tripwire", .vtable = &tripwire_vtable,
                              .out_size = sizeof(weir_gen_event)};
    s = weir_stream_set_uid(weir_stream_process(s, &trip), "tripwire");
    weir_kafka_sink_config kc = {.bootstrap_servers = bootstrap,
                                 .topic = "eo",
                                 .serialize = serialize_event,
                                 .guarantee = exactly ? WEIR_KAFKA_EXACTLY_ONCE
                                                      : WEIR_KAFKA_AT_LEAST_ONCE,
                                 .transactional_id_prefix = "eo-test",
                                 /* records wait in the producer: only the
                                  * snapshot's flush makes them safe */
                                 .properties = (const char *[]){"linger.ms", "100", NULL},
                                 .timeout_ms = 10000};
    s = weir_stream_set_uid(weir_stream_set_parallelism(weir_sink_kafka(s, &kc), sink_p), "out");
    int r = s ? weir_job_run(job) : -1;
    if (r)
        fprintf(stderr, "child: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    return r ? 3 : 0;
}

__attribute__((constructor)) static void maybe_child(void)
{
    const char *env = getenv(CHILD_ENV);
    if (!env)
        return;
    char bootstrap[256], chk[4096];
    int sink_p = 0, exactly = 0;
    if (sscanf(env, "%255s %4095s %d %ld %d", bootstrap, chk, &sink_p, &kill_at, &exactly) != 5)
        _exit(4);
    _exit(child_job(bootstrap, chk, sink_p, exactly != 0));
}

/* Runs the child's job, which kills itself at record `kill_record` of the
 * run, or (negative) at its notify -kill_record; 0: never. 0 completed, 1
 * killed, -1 failed. */
static int run_child(const char *bootstrap, const char *chk, int sink_p, long kill_record,
                     bool exactly)
{
    char env[4600];
    snprintf(env, sizeof env, "%s %s %d %ld %d", bootstrap, chk, sink_p, kill_record, exactly);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setenv(CHILD_ENV, env, 1);
        char *argv[] = {"kafka-sink-child", NULL};
        execv("/proc/self/exe", argv);
        _exit(5);
    }
    int st = 0;
    cr_assert(waitpid(pid, &st, 0) == pid);
    if (WIFSIGNALED(st))
        return 1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void kill_until_done(int seed, int p_first, int p_then, bool exactly)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "eo", 3), 0);
    char tmpl[] = "/tmp/weir-kafka-eo-XXXXXX";
    char *tmp = mkdtemp(tmpl);
    cr_assert_not_null(tmp);
    char chk[4096];
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    srand((unsigned)seed);
    int kills = 0, runs = 0, r;
    /* the first four runs die, at a record 300..1100 of their own (the
     * job makes 3000 in about 1.5 s, paced) or at their notify 2..9 (a
     * checkpoint every 40 ms), in turn; the fifth completes */
    do {
        long at = runs >= 4 ? 0 : runs % 2 ? -(2 + rand() % 8) : 300 + rand() % 800;
        r = run_child(weir_kafka_mock_bootstrap(m), chk, runs == 0 ? p_first : p_then, at,
                      exactly);
        cr_assert_neq(r, -1, "run %d failed (see its stderr)", runs);
        kills += r == 1;
        runs++;
    } while (r != 0 && runs < 12);
    cr_assert_eq(r, 0, "no run completed");
    cr_log_info("exactly-once: %d runs, %d killed", runs, kills);
    seen got = read_topic(m, "eo", 3);
    expect_each(&got, 2 * EO_EVENTS, !exactly);
    if (exactly)
        cr_assert_gt(got.commits, 0, "each transaction ends with its commit marker");
    seen_free(&got);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    cr_assert_eq(system(cmd), 0);
    weir_kafka_mock_destroy(m);
}

Test(sink_kafka, exactly_once_across_kills_and_restores, .timeout = 180)
{
    kill_until_done(7, 2, 2, true);
}

Test(sink_kafka, exactly_once_across_a_kill_and_a_rescale, .timeout = 180)
{
    kill_until_done(8, 2, 1, true);
}

/* At-least-once flushes in every snapshot: a restore loses nothing. */
Test(sink_kafka, at_least_once_across_kills_loses_nothing, .timeout = 180)
{
    kill_until_done(9, 2, 2, false);
}
