/* sink_kafka.c — the Kafka sink (weir/kafka.h, docs/KAFKA.md): each subtask
 * writes with its own librdkafka producer and checks every delivery.
 *
 * At-least-once: records are produced as they come; a snapshot flushes
 * (waits until the cluster acknowledged everything) before the checkpoint
 * can complete, and so does the end of input.
 *
 * Exactly-once: librdkafka cannot resume another producer's transaction,
 * so a transaction cannot stay open across a restart as in Flink's
 * KafkaSink. The records of a checkpoint interval are kept in memory
 * instead, go into the checkpoint with the snapshot (a write-ahead log,
 * as Flink's GenericWriteAheadSink), and are produced in one transaction
 * when the checkpoint completes (notify_complete). The last record of that
 * transaction is a commit marker in partition 0: key "weir-txn:<id>",
 * value the checkpoint's id, header weir-txn: committed atomically with the
 * records, so a restore knows whether a checkpoint's records are in Kafka
 * already (it reads partition 0 read_committed from the offset after this
 * transactional id's last marker it knew of, kept in the checkpoint) and
 * writes only those that are not. A transaction is open only while it is
 * being committed, so a killed job leaves a read_committed reader waiting
 * for at most that moment's transaction, which the restarted producer (the
 * same transactional id) aborts. (send_offsets_to_transaction would be the
 * natural place for the marker, but librdkafka's mock cluster drops
 * transactional offsets, and the tests run there.)
 *
 * In-band watermarks (cfg.watermarks): every watermark, idle/active change
 * and the end of input go to every partition as a marker record
 * (kafka_markers.h), which the source reads with inband_watermarks
 * (source_kafka.c). Written against the public headers.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/kafka.h"
#include "weir/operator.h"
#include "weir/stream.h"
#include "weir/time.h"
#include "kafka_config.h"
#include "kafka_markers.h"

#define KAFKA_SINK_TAG 0x4b534b31u /* "KSK1" */
#define POLL_EVERY 1024

typedef struct sink_arg {
    weir_kafka_sink_config cfg; /* strings below are the copies */
    char *bootstrap;
    char *topic;
    char **props; /* NULL-terminated pairs */
    char *prefix;
} sink_arg;

static void arg_free(void *p)
{
    sink_arg *a = p;
    if (!a)
        return;
    free(a->bootstrap);
    free(a->topic);
    weir__kafka_free_properties(a->props);
    free(a->prefix);
    free(a);
}

/* ---- the write-ahead log of exactly-once --------------------------------- */

/* One record in a log: this head, then the key and value bytes. */
typedef struct log_head {
    uint32_t key_len;   /* NO_BYTES: no key */
    uint32_t value_len; /* NO_BYTES: no value; a marker's text for a marker */
    int32_t partition;
    uint32_t marker;    /* 1: a watermark marker (value is the header's text) */
    int64_t timestamp;
} log_head;

#define NO_BYTES UINT32_MAX

typedef struct log_buf {
    unsigned char *p;
    size_t len, cap;
    int64_t checkpoint; /* a pending batch's checkpoint */
} log_buf;

static int log_put(log_buf *l, const void *data, size_t n)
{
    if (l->len + n > l->cap) {
        size_t cap = l->cap ? l->cap : 4096;
        while (cap < l->len + n)
            cap *= 2;
        unsigned char *p = realloc(l->p, cap);
        if (!p)
            return WEIR_ENOMEM;
        l->p = p;
        l->cap = cap;
    }
    if (n && data)
        memcpy(l->p + l->len, data, n);
    l->len += n;
    return 0;
}

/* ---- a subtask --------------------------------------------------------------- */

typedef struct kafka_sink {
    rd_kafka_t *rk;
    rd_kafka_topic_t *rkt;
    int32_t partitions;
    void *scratch;
    size_t scratch_size;
    char tid[300]; /* the transactional id (exactly-once) */
    int writer, writers;
    int since_poll;
    /* the first delivery that failed, from the delivery report callback
     * (which runs inside rd_kafka_poll / rd_kafka_flush on this thread) */
    rd_kafka_resp_err_t dr_err;
    int32_t dr_partition;
    char dr_why[256];
    /* exactly-once: the records since the last snapshot, and the batches
     * of checkpoints that have not completed yet (oldest first) */
    int64_t marker_floor; /* partition 0's offset after our last commit marker */
    log_buf current;
    log_buf *pending;
    int npending, cap;
} kafka_sink;

static int64_t timeout_of(const sink_arg *a)
{
    return a->cfg.timeout_ms > 0 ? a->cfg.timeout_ms : 30000;
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    kafka_sink *s = opaque;
    if (!m->err && m->_private == &s->marker_floor && m->offset + 1 > s->marker_floor)
        s->marker_floor = m->offset + 1;
    if (m->err && !s->dr_err) {
        s->dr_err = m->err;
        s->dr_partition = m->partition;
        snprintf(s->dr_why, sizeof s->dr_why, "%s", rd_kafka_err2str(m->err));
    }
}

/* The job's failure for a delivery the cluster refused, if one did. */
static int check_delivery(weir_ctx *ctx, const sink_arg *a, kafka_sink *s)
{
    if (!s->dr_err)
        return 0;
    return weir_ctx_fail(ctx, WEIR_EIO, "kafka sink %s-%" PRId32 ": delivery failed: %s",
                         a->topic, s->dr_partition, s->dr_why);
}

static int set_conf(weir_ctx *ctx, rd_kafka_conf_t *conf, const char *k, const char *v)
{
    return weir__kafka_conf_set(ctx, conf, "kafka sink", k, v);
}

static bool has_prop(const sink_arg *a, const char *k)
{
    for (int i = 0; a->props[i]; i += 2) {
        if (strcmp(a->props[i], k) == 0)
            return true;
    }
    return false;
}

/* A producer; with tid (exactly-once) a transactional one, its
 * transactions initialised (which fences an older producer of that id and
 * aborts what it left open). */
static int make_producer(weir_ctx *ctx, const sink_arg *a, kafka_sink *s, const char *tid,
                         rd_kafka_t **out)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    int r = set_conf(ctx, conf, "bootstrap.servers", a->bootstrap);
    /* ordered, without duplicates from the producer's own retries: a
     * marker must follow the records before it in every partition */
    if (!r)
        r = set_conf(ctx, conf, "enable.idempotence", "true");
    if (!r && !has_prop(a, "partitioner"))
        r = set_conf(ctx, conf, "partitioner", "murmur2_random");
    if (!r && tid)
        r = set_conf(ctx, conf, "transactional.id", tid);
    for (int i = 0; !r && a->props[i]; i += 2)
        r = set_conf(ctx, conf, a->props[i], a->props[i + 1]);
    if (r) {
        rd_kafka_conf_destroy(conf);
        return r;
    }
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_opaque(conf, s);
    char err[512];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        return weir_ctx_fail(ctx, WEIR_EIO, "kafka sink: %s", err);
    }
    if (tid) {
        rd_kafka_error_t *e = rd_kafka_init_transactions(rk, (int)timeout_of(a));
        if (e) {
            r = weir_ctx_fail(ctx, WEIR_EIO, "kafka sink %s: transactions for %s: %s", a->topic,
                              tid, rd_kafka_error_string(e));
            rd_kafka_error_destroy(e);
            rd_kafka_destroy(rk);
            return r;
        }
    }
    *out = rk;
    return 0;
}

/* Partition 0's first (RD_KAFKA_OFFSET_BEGINNING) or end offset. */
static rd_kafka_resp_err_t partition0_offset(rd_kafka_t *rk, const sink_arg *a, int64_t which,
                                             int64_t *out)
{
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, a->topic, 0);
    int bad;
    rd_kafka_resp_err_t err =
        weir__kafka_list_offsets(rk, list, which, out, (int)timeout_of(a), &bad);
    rd_kafka_topic_partition_list_destroy(list);
    return err;
}

static int sink_open(weir_ctx *ctx)
{
    const sink_arg *a = weir_ctx_arg(ctx);
    bool exactly = a->cfg.guarantee == WEIR_KAFKA_EXACTLY_ONCE;
    if (exactly && !weir_ctx_checkpoints(ctx))
        return weir_ctx_fail(ctx, WEIR_EINVAL,
                             "kafka sink: exactly-once needs checkpoints (weir_job_config's "
                             "checkpoint settings; docs/CHECKPOINTS.md)");
    kafka_sink *s = calloc(1, sizeof *s);
    if (!s)
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "kafka sink: out of memory");
    weir_ctx_set_state(ctx, s);
    int instances = a->cfg.instances > 0 ? a->cfg.instances : 1;
    s->writer = a->cfg.instance * weir_ctx_parallelism(ctx) + weir_ctx_subtask(ctx);
    s->writers = instances * weir_ctx_parallelism(ctx);
    s->scratch_size = a->cfg.max_record_bytes ? a->cfg.max_record_bytes : (size_t)64 << 10;
    if (!(s->scratch = malloc(s->scratch_size)))
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "kafka sink: out of memory");
    if (exactly)
        snprintf(s->tid, sizeof s->tid, "%s-%d-%d", a->prefix, a->cfg.instance,
                 weir_ctx_subtask(ctx));
    int r = make_producer(ctx, a, s, exactly ? s->tid : NULL, &s->rk);
    if (r < 0)
        return r;
    if (!(s->rkt = rd_kafka_topic_new(s->rk, a->topic, NULL)))
        return weir_ctx_fail(ctx, WEIR_EIO, "kafka sink %s: %s", a->topic,
                             rd_kafka_err2str(rd_kafka_last_error()));
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t err = rd_kafka_metadata(s->rk, 0, s->rkt, &md, (int)timeout_of(a));
    if (err)
        return weir_ctx_fail(ctx, WEIR_EIO, "kafka sink %s: the topic's metadata from %s: %s",
                             a->topic, a->bootstrap, rd_kafka_err2str(err));
    if (md->topic_cnt == 1 && !md->topics[0].err)
        s->partitions = md->topics[0].partition_cnt;
    else
        err = md->topic_cnt == 1 ? md->topics[0].err : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC;
    rd_kafka_metadata_destroy(md);
    if (s->partitions < 1)
        return weir_ctx_fail(ctx, WEIR_EIO, "kafka sink: topic %s: %s", a->topic,
                             rd_kafka_err2str(err ? err : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC));
    if (exactly) {
        /* this producer's commit markers all come after today's end */
        err = partition0_offset(s->rk, a, RD_KAFKA_OFFSET_END, &s->marker_floor);
        if (err)
            return weir_ctx_fail(ctx, WEIR_EIO, "kafka sink %s-0: its offsets: %s", a->topic,
                                 rd_kafka_err2str(err));
    }
    return 0;
}

/* ---- producing ------------------------------------------------------------------ */

/* rd_kafka_produceva's error as a code. The array form rather than
 * rd_kafka_producev: that one's argument macros type-check with GNU
 * statement expressions, which the pedantic clang build refuses. */
static rd_kafka_resp_err_t produce_vu(rd_kafka_t *rk, const rd_kafka_vu_t *vus, size_t n)
{
    rd_kafka_error_t *e = rd_kafka_produceva(rk, vus, n);
    if (!e)
        return RD_KAFKA_RESP_ERR_NO_ERROR;
    rd_kafka_resp_err_t err = rd_kafka_error_code(e);
    rd_kafka_error_destroy(e);
    return err;
}

/* Hands one record (or marker) to the producer; waits for room while its
 * queue is full. */
static int produce(weir_ctx *ctx, const sink_arg *a, kafka_sink *s, const log_head *h,
                   const void *key, const void *value)
{
    int64_t deadline = weir_ctx_now(ctx) + timeout_of(a);
    for (;;) {
        rd_kafka_resp_err_t err;
        int64_t ts = h->timestamp >= 0 && h->timestamp != WEIR_TS_MAX ? h->timestamp : 0;
        if (h->marker) {
            const rd_kafka_vu_t vu[] = {
                {.vtype = RD_KAFKA_VTYPE_RKT, .u.rkt = s->rkt},
                {.vtype = RD_KAFKA_VTYPE_PARTITION, .u.i32 = h->partition},
                {.vtype = RD_KAFKA_VTYPE_HEADER,
                 .u.header = {WEIR__KAFKA_MARKER_HEADER, value, (ssize_t)h->value_len}},
                {.vtype = RD_KAFKA_VTYPE_TIMESTAMP, .u.i64 = ts}};
            err = produce_vu(s->rk, vu, sizeof vu / sizeof vu[0]);
        } else {
            void *k = h->key_len == NO_BYTES ? NULL : (void *)(uintptr_t)key;
            void *v = h->value_len == NO_BYTES ? NULL : (void *)(uintptr_t)value;
            size_t klen = k ? h->key_len : 0, vlen = v ? h->value_len : 0;
            const rd_kafka_vu_t vu[] = {
                {.vtype = RD_KAFKA_VTYPE_RKT, .u.rkt = s->rkt},
                {.vtype = RD_KAFKA_VTYPE_PARTITION, .u.i32 = h->partition},
                {.vtype = RD_KAFKA_VTYPE_KEY, .u.mem = {k, klen}},
                {.vtype = RD_KAFKA_VTYPE_VALUE, .u.mem = {v, vlen}},
                {.vtype = RD_KAFKA_VTYPE_TIMESTAMP, .u.i64 = ts},
                {.vtype = RD_KAFKA_VTYPE_MSGFLAGS, .u.i = RD_KAFKA_MSG_F_COPY}};
            err = produce_vu(s->rk, vu, sizeof vu / sizeof vu[0]);
        }
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
            if (++s->since_poll >= POLL_EVERY) {
                s->since_poll = 0;
                rd_kafka_poll(s->rk, 0);
            }
            return check_delivery(ctx, a, s);
        }
        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
            return weir_ctx_fail(ctx, WEIR_EIO, "kafka sink %s: producing: %s", a->topic,
                                 rd_kafka_err2str(err));
        /* the producer's queue is full: let deliveries make room */
        rd_kafka_poll(s->rk, 10);
        int r = check_delivery(ctx, a, s);
        if (r < 0)
            return r;
        if (weir_ctx_now(ctx) > deadline)
            return weir_ctx_fail(ctx, WEIR_EIO,
                                 "kafka sink %s: the producer's queue stayed full for %" PRId64
                                 " ms (is the cluster reachable at %s?)",
                                 a->topic, timeout_of(a), a->bootstrap);
    }
}

/* Exactly-once keeps it for the checkpoint; otherwise it goes now. */
static int write_record(weir_ctx *ctx, const sink_arg *a, kafka_sink *s, const log_head *h,
                        const void *key, const void *value)
{
    if (a->cfg.guarantee != WEIR_KAFKA_EXACTLY_ONCE)
        return produce(ctx, a, s, h, key, value);
    int r = log_put(&s->current, h, sizeof *h);
    if (!r && h->key_len != NO_BYTES)
        r = log_put(&s->current, key, h->key_len);
    if (!r && h->value_len != NO_BYTES)
        r = log_put(&s->current, value, h->value_len);
    return r ? weir_ctx_fail(ctx, WEIR_ENOMEM, "kafka sink: out of memory for the records of "
                             "a checkpoint interval") : 0;
}

/* Waits until the cluster acknowledged everything produced. */
static int flush(weir_ctx *ctx, const sink_arg *a, kafka_sink *s)
{
    rd_kafka_resp_err_t err = rd_kafka_flush(s->rk, (int)timeout_of(a));
    int r = check_delivery(ctx, a, s);
    if (r < 0)
        return r;
    if (err)
        return weir_ctx_fail(ctx, WEIR_EIO,
                             "kafka sink %s: %d records not acknowledged within %" PRId64
                             " ms: %s",
                             a->topic, rd_kafka_outq_len(s->rk), timeout_of(a),
                             rd_kafka_err2str(err));
    return 0;
}

static int sink_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const sink_arg *a = weir_ctx_arg(ctx);
    kafka_sink *s = weir_ctx_state(ctx);
    weir_kafka_record rec = {.partition = WEIR_KAFKA_ANY_PARTITION,
                             .timestamp = ts,
                             .scratch = s->scratch,
                             .scratch_size = s->scratch_size};
    char why[256] = "";
    int r = a->cfg.serialize(elem, ts, &rec, why, sizeof why, a->cfg.arg);
    if (r < 0)
        return weir_ctx_fail(ctx, r, "kafka sink %s: the serializer: %s", a->topic,
                             why[0] ? why : weir_strerror(r));
    if (r == WEIR_KAFKA_SKIP) {
        weir_ctx_count(ctx, WEIR_COUNTER_FILTERED, 1);
        return 0;
    }
    if (r != WEIR_KAFKA_EMIT)
        return weir_ctx_fail(ctx, WEIR_ECALLBACK,
                             "kafka sink %s: the serializer returned %d (WEIR_KAFKA_EMIT, "
                             "WEIR_KAFKA_SKIP or a negative WEIR_E* code expected)",
                             a->topic, r);
    if (rec.key_len >= NO_BYTES || rec.value_len >= NO_BYTES)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "kafka sink %s: a record of 4 GiB or more",
                             a->topic);
    int32_t p = rec.partition;
    if (p == WEIR_KAFKA_ANY_PARTITION && a->cfg.partitioner)
        p = a->cfg.partitioner(rec.key, rec.key_len, elem, s->partitions, a->cfg.partitioner_arg);
    if (p != WEIR_KAFKA_ANY_PARTITION && (p < 0 || p >= s->partitions))
        return weir_ctx_fail(ctx, WEIR_EINVAL,
                             "kafka sink %s: partition %" PRId32 " chosen, the topic has %" PRId32,
                             a->topic, p, s->partitions);
    log_head h = {.key_len = rec.key ? (uint32_t)rec.key_len : NO_BYTES,
                  .value_len = rec.value ? (uint32_t)rec.value_len : NO_BYTES,
                  .partition = p,
                  .timestamp = rec.timestamp};
    return write_record(ctx, a, s, &h, rec.key, rec.value);
}

/* A watermark marker to every partition. */
static int write_marker(weir_ctx *ctx, weir__kafka_mark kind, int64_t watermark)
{
    const sink_arg *a = weir_ctx_arg(ctx);
    kafka_sink *s = weir_ctx_state(ctx);
    char text[WEIR__KAFKA_MARKER_MAX];
    weir__kafka_marker m = {
        .writer = s->writer, .writers = s->writers, .kind = kind, .watermark = watermark};
    int n = weir__kafka_marker_format(&m, text, sizeof text);
    for (int32_t p = 0; p < s->partitions; p++) {
        log_head h = {.key_len = NO_BYTES, .value_len = (uint32_t)n, .partition = p, .marker = 1,
                      .timestamp = -1};
        int r = write_record(ctx, a, s, &h, NULL, text);
        if (r < 0)
            return r;
    }
    return 0;
}

static int sink_watermark(weir_ctx *ctx, int64_t watermark)
{
    const sink_arg *a = weir_ctx_arg(ctx);
    /* MAX is the end's (on_end says it once, as E) */
    if (!a->cfg.watermarks || watermark == WEIR_TS_MAX)
        return 0;
    return write_marker(ctx, WEIR__KAFKA_MARK_WATERMARK, watermark);
}

static int sink_status(weir_ctx *ctx, bool idle)
{
    const sink_arg *a = weir_ctx_arg(ctx);
    return a->cfg.watermarks ? write_marker(ctx, idle ? WEIR__KAFKA_MARK_IDLE : WEIR__KAFKA_MARK_ACTIVE,
                                               weir_ctx_watermark(ctx)) : 0;
}

static int sink_end(weir_ctx *ctx)
{
    const sink_arg *a = weir_ctx_arg(ctx);
    kafka_sink *s = weir_ctx_state(ctx);
    int r = a->cfg.watermarks ? write_marker(ctx, WEIR__KAFKA_MARK_END, WEIR_TS_MAX) : 0;
    /* exactly-once: the job's final checkpoint takes the rest and commits it */
    if (r == 0 && a->cfg.guarantee != WEIR_KAFKA_EXACTLY_ONCE)
        r = flush(ctx, a, s);
    return r;
}

/* ---- transactions ------------------------------------------------------------ */

/* Fails the job with a transaction's error; aborts what it can. */
static int txn_fail(weir_ctx *ctx, const sink_arg *a, rd_kafka_t *rk, const char *tid,
                    const char *what, rd_kafka_error_t *e)
{
    int r = weir_ctx_fail(ctx, WEIR_EIO, "kafka sink %s: %s the transaction of %s: %s", a->topic,
                          what, tid, rd_kafka_error_string(e));
    if (rd_kafka_error_txn_requires_abort(e)) {
        rd_kafka_error_t *ae = rd_kafka_abort_transaction(rk, (int)timeout_of(a));
        if (ae)
            rd_kafka_error_destroy(ae);
    }
    rd_kafka_error_destroy(e);
    return r;
}

/* Writes the records of `logs` in one transaction of s->rk that also
 * records `checkpoint` as done for transactional id `for_tid`. */
static int commit_logs(weir_ctx *ctx, const sink_arg *a, kafka_sink *s, const log_buf *logs,
                       int nlogs, int64_t checkpoint, const char *for_tid)
{
    int tmo = (int)timeout_of(a);
    rd_kafka_error_t *e = rd_kafka_begin_transaction(s->rk);
    if (e)
        return txn_fail(ctx, a, s->rk, s->tid, "beginning", e);
    for (int i = 0; i < nlogs; i++) {
        const unsigned char *p = logs[i].p, *end = logs[i].p + logs[i].len;
        while (p < end) {
            log_head h;
            memcpy(&h, p, sizeof h);
            p += sizeof h;
            const unsigned char *key = p;
            if (h.key_len != NO_BYTES)
                p += h.key_len;
            const unsigned char *value = p;
            if (h.value_len != NO_BYTES)
                p += h.value_len;
            int r = produce(ctx, a, s, &h, key, value);
            if (r < 0) {
                rd_kafka_error_t *ae = rd_kafka_abort_transaction(s->rk, tmo);
                if (ae)
                    rd_kafka_error_destroy(ae);
                return r;
            }
        }
    }
    /* every record acknowledged before the marker, so that the marker's
     * presence means the batch is whole even where aborts are not honoured */
    int r = flush(ctx, a, s);
    char key[320], value[32];
    int kl = snprintf(key, sizeof key, WEIR__KAFKA_TXN_KEY_PREFIX "%s", for_tid);
    int vl = snprintf(value, sizeof value, "%" PRId64, checkpoint);
    const rd_kafka_vu_t vu[] = {
        {.vtype = RD_KAFKA_VTYPE_RKT, .u.rkt = s->rkt},
        {.vtype = RD_KAFKA_VTYPE_PARTITION, .u.i32 = 0},
        {.vtype = RD_KAFKA_VTYPE_KEY, .u.mem = {key, (size_t)kl}},
        {.vtype = RD_KAFKA_VTYPE_VALUE, .u.mem = {value, (size_t)vl}},
        {.vtype = RD_KAFKA_VTYPE_HEADER, .u.header = {WEIR__KAFKA_TXN_HEADER, value, vl}},
        {.vtype = RD_KAFKA_VTYPE_MSGFLAGS, .u.i = RD_KAFKA_MSG_F_COPY},
        {.vtype = RD_KAFKA_VTYPE_OPAQUE, .u.ptr = &s->marker_floor}};
    rd_kafka_resp_err_t err =
        r ? RD_KAFKA_RESP_ERR_NO_ERROR : produce_vu(s->rk, vu, sizeof vu / sizeof vu[0]);
    if (r || err) {
        rd_kafka_error_t *ae = rd_kafka_abort_transaction(s->rk, tmo);
        if (ae)
            rd_kafka_error_destroy(ae);
        return r ? r : weir_ctx_fail(ctx, WEIR_EIO, "kafka sink %s: the commit marker: %s",
                                     a->topic, rd_kafka_err2str(err));
    }
    /* commit_transaction flushes first; a retriable error may be retried */
    for (int tries = 0;; tries++) {
        e = rd_kafka_commit_transaction(s->rk, tmo);
        if (!e)
            break;
        if (!rd_kafka_error_is_retriable(e) || tries == 3)
            return txn_fail(ctx, a, s->rk, s->tid, "committing", e);
        rd_kafka_error_destroy(e);
    }
    rd_kafka_poll(s->rk, 0); /* the marker's delivery report: the floor */
    return check_delivery(ctx, a, s);
}

/* The last checkpoint of transactional id tid whose records are committed
 * (-1: none): its newest commit marker in partition 0 at or after `floor`,
 * read_committed up to the partition's end. */
static int committed_checkpoint(weir_ctx *ctx, const sink_arg *a, const char *tid, int64_t floor,
                                int64_t *out)
{
    *out = -1;
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    int r = set_conf(ctx, conf, "bootstrap.servers", a->bootstrap);
    if (!r)
        r = set_conf(ctx, conf, "group.id", "weir-sink-restore");
    if (!r)
        r = set_conf(ctx, conf, "isolation.level", "read_committed");
    if (!r)
        r = set_conf(ctx, conf, "enable.auto.commit", "false");
    if (!r)
        r = set_conf(ctx, conf, "enable.partition.eof", "true");
    if (r) {
        rd_kafka_conf_destroy(conf);
        return r;
    }
    char err[512];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        return weir_ctx_fail(ctx, WEIR_EIO, "kafka sink: %s", err);
    }
    char key[320];
    int kl = snprintf(key, sizeof key, WEIR__KAFKA_TXN_KEY_PREFIX "%s", tid);
    int64_t lo = 0, hi = 0;
    rd_kafka_resp_err_t e = partition0_offset(rk, a, RD_KAFKA_OFFSET_BEGINNING, &lo);
    if (!e)
        e = partition0_offset(rk, a, RD_KAFKA_OFFSET_END, &hi);
    int64_t at = floor > lo ? floor : lo;
    if (!e && at < hi) {
        rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(list, a->topic, 0)->offset = at;
        e = rd_kafka_assign(rk, list);
        rd_kafka_topic_partition_list_destroy(list);
        int64_t deadline = weir_ctx_now(ctx) + timeout_of(a);
        /* to the end as it was: an open transaction of another writer
         * holds a read_committed reader back until it ends */
        while (!e && at < hi) {
            if (weir_ctx_now(ctx) > deadline) {
                e = RD_KAFKA_RESP_ERR__TIMED_OUT;
                break;
            }
            rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
            if (!m)
                continue;
            if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                if (m->offset > at)
                    at = m->offset;
            } else if (m->err) {
                if (m->err != RD_KAFKA_RESP_ERR__TRANSPORT)
                    e = m->err;
            } else {
                at = m->offset + 1;
                if (m->key_len == (size_t)kl && memcmp(m->key, key, (size_t)kl) == 0) {
                    char v[32] = "";
                    memcpy(v, m->payload, m->len < sizeof v - 1 ? m->len : sizeof v - 1);
                    long long id = strtoll(v, NULL, 10);
                    if (id > *out)
                        *out = id;
                }
            }
            rd_kafka_message_destroy(m);
        }
    }
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    if (e)
        return weir_ctx_fail(ctx, WEIR_EIO,
                             "kafka sink %s: restore: reading the commit markers of %s in "
                             "partition 0 from offset %" PRId64 " to %" PRId64 ": %s",
                             a->topic, tid, at, hi, rd_kafka_err2str(e));
    return 0;
}

static int sink_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    const sink_arg *a = weir_ctx_arg(ctx);
    kafka_sink *s = weir_ctx_state(ctx);
    if (a->cfg.guarantee != WEIR_KAFKA_EXACTLY_ONCE)
        return flush(ctx, a, s); /* nothing to keep: all of it is in Kafka */
    if (s->npending == s->cap) {
        int cap = s->cap ? 2 * s->cap : 4;
        log_buf *p = realloc(s->pending, (size_t)cap * sizeof *p);
        if (!p)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "kafka sink: out of memory");
        s->pending = p;
        s->cap = cap;
    }
    s->current.checkpoint = weir_snapshot_checkpoint_id(w);
    s->pending[s->npending++] = s->current;
    s->current = (log_buf){0};
    /* [tag][tid length][batches][marker floor][tid] then per batch
     * [checkpoint][bytes][records] */
    uint32_t head[3] = {KAFKA_SINK_TAG, (uint32_t)strlen(s->tid), (uint32_t)s->npending};
    int r = weir_snapshot_write(w, head, sizeof head);
    if (!r)
        r = weir_snapshot_write(w, &s->marker_floor, sizeof s->marker_floor);
    if (!r)
        r = weir_snapshot_write(w, s->tid, head[1]);
    for (int i = 0; !r && i < s->npending; i++) {
        int64_t bh[2] = {s->pending[i].checkpoint, (int64_t)s->pending[i].len};
        r = weir_snapshot_write(w, bh, sizeof bh);
        if (!r)
            r = weir_snapshot_write(w, s->pending[i].p, s->pending[i].len);
    }
    return r;
}

static int sink_notify(weir_ctx *ctx, int64_t checkpoint_id)
{
    const sink_arg *a = weir_ctx_arg(ctx);
    kafka_sink *s = weir_ctx_state(ctx);
    if (a->cfg.guarantee != WEIR_KAFKA_EXACTLY_ONCE)
        return 0;
    int n = 0;
    while (n < s->npending && s->pending[n].checkpoint <= checkpoint_id)
        n++;
    if (n == 0)
        return 0;
    int r = commit_logs(ctx, a, s, s->pending, n, s->pending[n - 1].checkpoint, s->tid);
    if (r < 0)
        return r;
    for (int i = 0; i < n; i++)
        free(s->pending[i].p);
    memmove(s->pending, s->pending + n, (size_t)(s->npending - n) * sizeof *s->pending);
    s->npending -= n;
    return 0;
}

/* One old subtask's state: the batches of its checkpoints that its
 * transactions had not committed are written now (and marked as its). */
static int restore_piece(weir_ctx *ctx, const sink_arg *a, kafka_sink *s, const unsigned char *b,
                         size_t len)
{
    uint32_t head[3];
    if (len < sizeof head)
        goto bad;
    memcpy(head, b, sizeof head);
    int64_t floor;
    if (head[0] != KAFKA_SINK_TAG || head[1] == 0 || head[1] >= sizeof s->tid ||
        len < sizeof head + sizeof floor + head[1])
        goto bad;
    memcpy(&floor, b + sizeof head, sizeof floor);
    char tid[sizeof s->tid];
    memcpy(tid, b + sizeof head + sizeof floor, head[1]);
    tid[head[1]] = '\0';
    size_t at = sizeof head + sizeof floor + head[1];
    if (floor > s->marker_floor)
        s->marker_floor = floor;
    log_buf *logs = calloc(head[2] ? head[2] : 1, sizeof *logs);
    if (!logs)
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "kafka sink: out of memory");
    int n = 0;
    for (uint32_t i = 0; i < head[2]; i++) {
        int64_t bh[2];
        if (len - at < sizeof bh)
            break;
        memcpy(bh, b + at, sizeof bh);
        at += sizeof bh;
        if (bh[1] < 0 || (uint64_t)bh[1] > len - at)
            break;
        logs[n++] = (log_buf){.p = (unsigned char *)(uintptr_t)(b + at), .len = (size_t)bh[1],
                              .checkpoint = bh[0]};
        at += (size_t)bh[1];
    }
    if (n != (int)head[2] || at != len) {
        free(logs);
        goto bad;
    }
    int r = 0;
    if (strcmp(tid, s->tid) != 0) {
        /* another subtask's (a change of parallelism): fence its producer,
         * aborting a transaction it may have left open */
        rd_kafka_t *old = NULL;
        r = make_producer(ctx, a, s, tid, &old);
        if (old)
            rd_kafka_destroy(old);
    }
    int64_t done = -1;
    if (!r)
        r = committed_checkpoint(ctx, a, tid, floor, &done);
    int from = 0;
    while (from < n && logs[from].checkpoint <= done)
        from++;
    if (!r && from < n)
        r = commit_logs(ctx, a, s, logs + from, n - from, logs[n - 1].checkpoint, tid);
    free(logs);
    return r;
bad:
    return weir_ctx_fail(ctx, WEIR_EFORMAT,
                         "kafka sink: restore: the checkpoint's state is not a Kafka sink's");
}

static int sink_restore(weir_ctx *ctx, weir_snapshot_reader *rd)
{
    const sink_arg *a = weir_ctx_arg(ctx);
    kafka_sink *s = weir_ctx_state(ctx);
    const void *data;
    size_t len;
    int got;
    while ((got = weir_snapshot_next(rd, &data, &len)) == 1) {
        if (len == 0)
            continue; /* at-least-once keeps nothing */
        if (a->cfg.guarantee != WEIR_KAFKA_EXACTLY_ONCE)
            return weir_ctx_fail(ctx, WEIR_EINVAL,
                                 "kafka sink %s: restore: the checkpoint holds an exactly-once "
                                 "sink's records not yet in Kafka; restore it with "
                                 "WEIR_KAFKA_EXACTLY_ONCE (at-least-once would drop them)",
                                 a->topic);
        int r = restore_piece(ctx, a, s, data, len);
        if (r < 0)
            return r;
    }
    return got;
}

static void sink_close(weir_ctx *ctx)
{
    kafka_sink *s = weir_ctx_state(ctx);
    if (!s)
        return;
    if (s->rkt)
        rd_kafka_topic_destroy(s->rkt);
    if (s->rk) {
        /* a failed job's records in flight are given a moment, no more: a
         * restore writes them again (at-least-once) or from its log */
        rd_kafka_flush(s->rk, 1000);
        rd_kafka_destroy(s->rk);
    }
    for (int i = 0; i < s->npending; i++)
        free(s->pending[i].p);
    free(s->pending);
    free(s->current.p);
    free(s->scratch);
    free(s);
    weir_ctx_set_state(ctx, NULL);
}

static const weir_operator_vtable kafka_sink_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V2,
    .open = sink_open,
    .on_record = sink_record,
    .on_watermark = sink_watermark,
    .on_status = sink_status,
    .on_end = sink_end,
    .close = sink_close,
    .snapshot = sink_snapshot,
    .restore = sink_restore,
    .notify_complete = sink_notify,
};

/* ---- the builder --------------------------------------------------------------- */

static const char *const sink_reserved[] = {"bootstrap.servers", "transactional.id",
                                            "enable.idempotence", "acks"};

static const char *check_config(const weir_kafka_sink_config *c, char *why, size_t size)
{
    if (!c)
        return "a config is required";
    if (!c->bootstrap_servers || !*c->bootstrap_servers)
        return "bootstrap_servers is required";
    if (!c->topic || !*c->topic || strlen(c->topic) > 249)
        return "a topic name of 1 to 249 bytes is required";
    if (!c->serialize)
        return "a serialize function is required";
    if ((int)c->guarantee < 0 || c->guarantee > WEIR_KAFKA_EXACTLY_ONCE)
        return "guarantee is not a weir_kafka_guarantee";
    if (c->guarantee == WEIR_KAFKA_EXACTLY_ONCE &&
        (!c->transactional_id_prefix || !*c->transactional_id_prefix ||
         strlen(c->transactional_id_prefix) > 200))
        return "exactly-once needs a transactional_id_prefix of 1 to 200 bytes";
    if (c->instances < 0 || c->instance < 0 || (c->instances > 0 && c->instance >= c->instances) ||
        (c->instances == 0 && c->instance != 0))
        return "instance must be 0..instances-1";
    if (c->max_record_bytes > ((size_t)1 << 30))
        return "max_record_bytes is over 1 GiB";
    return weir__kafka_check_properties(c->properties, sink_reserved,
                                        sizeof sink_reserved / sizeof sink_reserved[0], "sink",
                                        why, size);
}

weir_stream *weir_sink_kafka(weir_stream *s, const weir_kafka_sink_config *cfg)
{
    static const char call[] = "weir_sink_kafka";
    if (!s)
        return NULL;
    weir_job *job = weir_stream_job(s);
    char buf[200];
    const char *why = check_config(cfg, buf, sizeof buf);
    if (why) {
        weir_job_record_error(job, WEIR_EINVAL, "%s: %s", call, why);
        return NULL;
    }
    sink_arg *a = calloc(1, sizeof *a);
    if (!a) {
        weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", call);
        return NULL;
    }
    a->cfg = *cfg;
    a->bootstrap = strdup(cfg->bootstrap_servers);
    a->topic = strdup(cfg->topic);
    a->props = weir__kafka_copy_properties(cfg->properties);
    a->prefix = cfg->transactional_id_prefix ? strdup(cfg->transactional_id_prefix) : NULL;
    if (!a->bootstrap || !a->topic || !a->props || (cfg->transactional_id_prefix && !a->prefix)) {
        arg_free(a);
        weir_job_record_error(job, WEIR_ENOMEM, "%s: out of memory", call);
        return NULL;
    }
    a->cfg.name = NULL;
    a->cfg.bootstrap_servers = a->bootstrap;
    a->cfg.topic = a->topic;
    a->cfg.properties = (const char *const *)a->props;
    a->cfg.transactional_id_prefix = a->prefix;
    weir_process_spec spec = {
        .name = cfg->name ? cfg->name : "kafka-sink",
        .kind = "kafka_sink",
        .vtable = &kafka_sink_vtable,
        .arg = a,
        .arg_free = arg_free,
    };
    return weir_stream_process(s, &spec);
}
