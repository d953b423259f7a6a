/* kafka_testutil.h — what the Kafka tests share: a one-broker mock cluster
 * that fails the test when it cannot start, a plain producer connected to
 * it, producing one record, and a serializer's key and value written as
 * text into the record's scratch buffer. */
#ifndef WEIR_TESTS_KAFKA_TESTUTIL_H
#define WEIR_TESTS_KAFKA_TESTUTIL_H

#include <criterion/criterion.h>
#include <librdkafka/rdkafka.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "weir/kafka.h"

static inline weir_kafka_mock *tk_mock(void)
{
    weir_kafka_mock *m = NULL;
    char why[256] = "";
    cr_assert_eq(weir_kafka_mock_create(1, &m, why, sizeof why), 0, "%s", why);
    return m;
}

/* A producer with librdkafka's defaults on the mock cluster m. */
static inline rd_kafka_t *tk_producer(weir_kafka_mock *m)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    cr_assert_eq(rd_kafka_conf_set(conf, "bootstrap.servers", weir_kafka_mock_bootstrap(m), err,
                                   sizeof err),
                 RD_KAFKA_CONF_OK, "%s", err);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    cr_assert_not_null(rk, "%s", err);
    return rk;
}

/* Produces one record (copied) to topic-partition: `value` of len bytes
 * (NULL: none), the Kafka timestamp ts (< 0: the producer's clock), and a
 * header `header`=`text` if header is not NULL. Through rd_kafka_produceva:
 * rd_kafka_producev's argument macros are GNU statement expressions, which
 * a pedantic clang build refuses. */
static inline rd_kafka_resp_err_t tk_produce(rd_kafka_t *rk, const char *topic, int32_t partition,
                                             const void *value, size_t len, int64_t ts,
                                             const char *header, const char *text)
{
    rd_kafka_vu_t vu[6];
    size_t n = 0;
    vu[n].vtype = RD_KAFKA_VTYPE_TOPIC;
    vu[n++].u.cstr = topic;
    vu[n].vtype = RD_KAFKA_VTYPE_PARTITION;
    vu[n++].u.i32 = partition;
    vu[n].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
    vu[n++].u.i = RD_KAFKA_MSG_F_COPY;
    if (value) {
        vu[n].vtype = RD_KAFKA_VTYPE_VALUE;
        vu[n].u.mem.ptr = (void *)(uintptr_t)value;
        vu[n++].u.mem.size = len;
    }
    if (ts >= 0) {
        vu[n].vtype = RD_KAFKA_VTYPE_TIMESTAMP;
        vu[n++].u.i64 = ts;
    }
    if (header) {
        vu[n].vtype = RD_KAFKA_VTYPE_HEADER;
        vu[n].u.header.name = header;
        vu[n].u.header.val = text;
        vu[n++].u.header.size = (ssize_t)strlen(text);
    }
    rd_kafka_error_t *e = rd_kafka_produceva(rk, vu, n);
    if (!e)
        return RD_KAFKA_RESP_ERR_NO_ERROR;
    rd_kafka_resp_err_t code = rd_kafka_error_code(e);
    rd_kafka_error_destroy(e);
    return code;
}

/* A consumer of topic-partition from its first offset. */
static inline rd_kafka_t *tk_consumer_at(weir_kafka_mock *m, const char *topic, int32_t partition)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    cr_assert_eq(rd_kafka_conf_set(conf, "bootstrap.servers", weir_kafka_mock_bootstrap(m), err,
                                   sizeof err),
                 RD_KAFKA_CONF_OK, "%s", err);
    cr_assert_eq(rd_kafka_conf_set(conf, "group.id", "tk-reader", err, sizeof err),
                 RD_KAFKA_CONF_OK, "%s", err);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    cr_assert_not_null(rk, "%s", err);
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, topic, partition)->offset = RD_KAFKA_OFFSET_BEGINNING;
    cr_assert_eq(rd_kafka_assign(rk, l), 0);
    rd_kafka_topic_partition_list_destroy(l);
    return rk;
}

/* The next record's key and value as text ("" for none), within 30 s. */
static inline void tk_consume(rd_kafka_t *rk, char *key, size_t ksize, char *value, size_t vsize)
{
    time_t deadline = time(NULL) + 30;
    for (;;) {
        cr_assert(time(NULL) < deadline, "no record within 30 s");
        rd_kafka_message_t *msg = rd_kafka_consumer_poll(rk, 100);
        if (!msg)
            continue;
        cr_assert_eq(msg->err, 0, "reading: %s", rd_kafka_message_errstr(msg));
        size_t kl = msg->key_len < ksize ? msg->key_len : ksize - 1;
        size_t vl = msg->len < vsize ? msg->len : vsize - 1;
        memcpy(key, msg->key ? msg->key : "", msg->key ? kl : 0);
        key[msg->key ? kl : 0] = '\0';
        memcpy(value, msg->payload ? msg->payload : "", msg->payload ? vl : 0);
        value[msg->payload ? vl : 0] = '\0';
        rd_kafka_message_destroy(msg);
        return;
    }
}

/* The record's key (NULL: none) and value, copied into its scratch. */
static inline void tk_record_text(weir_kafka_record *rec, const char *key, const char *value)
{
    char *b = rec->scratch;
    size_t kl = key ? strlen(key) : 0, vl = strlen(value);
    cr_assert_leq(kl + vl, rec->scratch_size);
    if (key)
        memcpy(b, key, kl);
    memcpy(b + kl, value, vl);
    rec->key = key ? b : NULL;
    rec->key_len = kl;
    rec->value = b + kl;
    rec->value_len = vl;
}
#endif
