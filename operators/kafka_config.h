/* kafka_config.h — what the Kafka source and sink share of their
 * configuration: the librdkafka properties a user passes through (checked
 * against the ones a connector sets itself, copied, freed) and setting one
 * property with a message that names it. Private to operators/. */
#ifndef WEIR_OPERATORS_KAFKA_CONFIG_H
#define WEIR_OPERATORS_KAFKA_CONFIG_H

#include <stddef.h>

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
#endif
