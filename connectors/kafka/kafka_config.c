/* kafka_config.c — what the Kafka source and sink share (kafka_config.h):
 * properties, and asking the cluster for offsets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weir/error.h"
#include "kafka_config.h"

const char *weir__kafka_check_properties(const char *const *props, const char *const *reserved,
                                         size_t n, const char *owner, char *why, size_t size)
{
    for (int i = 0; props && props[i]; i += 2) {
        if (!props[i + 1]) {
            snprintf(why, size, "property %s has no value (pairs, then NULL)", props[i]);
            return why;
        }
        for (size_t k = 0; k < n; k++) {
            if (strcmp(props[i], reserved[k]) == 0) {
                snprintf(why, size, "property %s is the %s's own (see weir/kafka.h)", reserved[k],
                         owner);
                return why;
            }
        }
    }
    return NULL;
}

void weir__kafka_free_properties(char **props)
{
    for (int i = 0; props && props[i]; i++)
        free(props[i]);
    free(props);
}

char **weir__kafka_copy_properties(const char *const *props)
{
    int n = 0;
    while (props && props[n])
        n++;
    char **copy = calloc((size_t)n + 1, sizeof *copy);
    for (int i = 0; copy && i < n; i++) {
        if (!(copy[i] = strdup(props[i]))) {
            weir__kafka_free_properties(copy);
            return NULL;
        }
    }
    return copy;
}

int weir__kafka_conf_set(weir_ctx *ctx, rd_kafka_conf_t *conf, const char *who, const char *k,
                         const char *v)
{
    char err[256];
    if (rd_kafka_conf_set(conf, k, v, err, sizeof err) != RD_KAFKA_CONF_OK)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "%s property %s=%s: %s", who, k, v, err);
    return 0;
}

/* Kafka errors that a later request may not see (a leader moving, a
 * broker busy or away): librdkafka retries them for fetches, and so do
 * the source's own queries. */
bool weir__kafka_retriable(rd_kafka_resp_err_t e)
{
    switch (e) {
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__WAIT_COORD:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS:
    case RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR:
    case RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE:
        return true;
    default:
        return false;
    }
}

/* Every partition of `list`'s first (which = -2) or end (-1) offset into
 * out[i], by ListOffsets (one request per leader; rd_kafka_query_watermark_
 * offsets asks twice per partition, and librdkafka 2.0 can report one
 * answer's error as the other's success). Retriable errors are asked
 * again until `tmo` ms have passed. */
rd_kafka_resp_err_t weir__kafka_list_offsets(rd_kafka_t *rk,
                                             const rd_kafka_topic_partition_list_t *list,
                                             int64_t which, int64_t *out, int tmo, int *bad)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        rd_kafka_topic_partition_list_t *q = rd_kafka_topic_partition_list_copy(list);
        for (int i = 0; i < q->cnt; i++)
            q->elems[i].offset = which;
        rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(rk, q, tmo);
        *bad = -1;
        for (int i = 0; !err && i < q->cnt; i++) {
            if (q->elems[i].err) {
                err = q->elems[i].err;
                *bad = i;
            } else {
                out[i] = q->elems[i].offset;
            }
        }
        rd_kafka_topic_partition_list_destroy(q);
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t spent = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
        if (!err || !weir__kafka_retriable(err) || spent >= tmo)
            return err;
        struct timespec pause = {0, 100 * 1000000L};
        nanosleep(&pause, NULL);
    }
}
