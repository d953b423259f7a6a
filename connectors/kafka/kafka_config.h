/* kafka_config.h — what the Kafka source and sink share: the librdkafka
 * properties a user passes through (checked against the ones a connector
 * sets itself, copied, freed), setting one property with a message that
 * names it, which Kafka errors are worth asking again, and partitions'
 * first or end offsets. Private to operators/. */
#ifndef WEIR_CONNECTORS_KAFKA_KAFKA_CONFIG_H
#define WEIR_CONNECTORS_KAFKA_KAFKA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "weir/operator.h"

/* NULL if the NULL-terminated pairs `props` are whole and name none of
 * reserved[0..n-1]; else why not ("property acks is the sink's own ..."),
 * written into why. `owner` is "source" or "sink". */
const char *weir__kafka_check_properties(const char *const *props, const char *const *reserved,
                                         size_t n, const char *owner, char *why, size_t size);

/* A copy of the pairs (an empty list for NULL), NULL-terminated; NULL when
 * out of memory. */
char **weir__kafka_copy_properties(const char *const *props);
void weir__kafka_free_properties(char **props);

/* Sets k=v on conf; 0, or the context failed with WEIR_EINVAL naming `who`
 * ("kafka sink"), the property and librdkafka's reason. */
int weir__kafka_conf_set(weir_ctx *ctx, rd_kafka_conf_t *conf, const char *who, const char *k,
                         const char *v);

/* Kafka errors that a later request may not see (a leader moving, a broker
 * busy or away): librdkafka retries them for fetches, and the connectors
 * their own queries. */
bool weir__kafka_retriable(rd_kafka_resp_err_t e);

/* Every partition of `list`'s first (which = RD_KAFKA_OFFSET_BEGINNING) or
 * end (RD_KAFKA_OFFSET_END) offset into out[i], by ListOffsets (one request
 * per leader), retriable errors asked again until tmo ms have passed. The
 * error, with *bad the failing partition's index (-1: the request's). */
rd_kafka_resp_err_t weir__kafka_list_offsets(rd_kafka_t *rk,
                                             const rd_kafka_topic_partition_list_t *list,
                                             int64_t which, int64_t *out, int tmo, int *bad);
#endif
