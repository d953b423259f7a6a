/* kafka_config.c — the Kafka connectors' shared configuration helpers
 * (kafka_config.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
