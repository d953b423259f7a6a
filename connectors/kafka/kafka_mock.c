/* kafka_mock.c — weir/kafka.h's mock cluster: librdkafka's in-process mock
 * brokers (rdkafka_mock.h), owned by a producer handle that does nothing
 * else, so that tests and examples can run Kafka jobs on a machine with no
 * broker. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "weir/error.h"
#include "weir/kafka.h"

struct weir_kafka_mock {
    rd_kafka_t *rk;
    rd_kafka_mock_cluster_t *cluster;
};

int weir_kafka_mock_create(int brokers, weir_kafka_mock **out, char *why, size_t whysize)
{
    if (!out || brokers < 1) {
        if (why)
            snprintf(why, whysize, "weir_kafka_mock_create: at least one broker");
        return WEIR_EINVAL;
    }
    *out = NULL;
    weir_kafka_mock *m = calloc(1, sizeof *m);
    if (!m)
        return WEIR_ENOMEM;
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    /* the handle only owns the cluster: it never connects anywhere */
    rd_kafka_conf_set(conf, "bootstrap.servers", "", err, sizeof err);
    rd_kafka_conf_set(conf, "log_level", "4", err, sizeof err); /* not its no-brokers notice */
    m->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!m->rk) {
        rd_kafka_conf_destroy(conf);
        free(m);
        if (why)
            snprintf(why, whysize, "mock cluster: %s", err);
        return WEIR_EIO;
    }
    m->cluster = rd_kafka_mock_cluster_new(m->rk, brokers);
    if (!m->cluster) {
        rd_kafka_destroy(m->rk);
        free(m);
        if (why)
            snprintf(why, whysize, "mock cluster: librdkafka could not start %d brokers", brokers);
        return WEIR_EIO;
    }
    *out = m;
    return 0;
}

void weir_kafka_mock_destroy(weir_kafka_mock *m)
{
    if (!m)
        return;
    rd_kafka_mock_cluster_destroy(m->cluster);
    rd_kafka_destroy(m->rk);
    free(m);
}

const char *weir_kafka_mock_bootstrap(const weir_kafka_mock *m)
{
    return m ? rd_kafka_mock_cluster_bootstraps(m->cluster) : NULL;
}

int weir_kafka_mock_topic(weir_kafka_mock *m, const char *topic, int partitions)
{
    if (!m || !topic || partitions < 1)
        return WEIR_EINVAL;
    return rd_kafka_mock_topic_create(m->cluster, topic, partitions, 1) ? WEIR_EIO : 0;
}

int weir_kafka_mock_broker_down(weir_kafka_mock *m, int id)
{
    return m && rd_kafka_mock_broker_set_down(m->cluster, id) == 0 ? 0 : WEIR_EINVAL;
}

int weir_kafka_mock_broker_up(weir_kafka_mock *m, int id)
{
    return m && rd_kafka_mock_broker_set_up(m->cluster, id) == 0 ? 0 : WEIR_EINVAL;
}

int weir_kafka_mock_request_errors(weir_kafka_mock *m, int api_key, int n, const int *errors)
{
    if (!m || api_key < 0 || api_key > INT16_MAX || n < 1 || !errors)
        return WEIR_EINVAL;
    rd_kafka_resp_err_t *e = malloc((size_t)n * sizeof *e);
    if (!e)
        return WEIR_ENOMEM;
    for (int i = 0; i < n; i++)
        e[i] = (rd_kafka_resp_err_t)errors[i];
    rd_kafka_mock_push_request_errors_array(m->cluster, (int16_t)api_key, (size_t)n, e);
    free(e);
    return 0;
}
