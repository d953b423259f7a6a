/* kafka_testutil.h — what the Kafka tests share: a one-broker mock cluster
 * that fails the test when it cannot start, a plain producer connected to
 * it, and a serializer's key and value written as text into the record's
 * scratch buffer. */
#ifndef WEIR_TESTS_KAFKA_TESTUTIL_H
#define WEIR_TESTS_KAFKA_TESTUTIL_H

#include <criterion/criterion.h>
#include <librdkafka/rdkafka.h>
#include <string.h>

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
