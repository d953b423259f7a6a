/* sql_kafka.c — the 'kafka' connector of SQL tables (Flink's
 * KafkaDynamicTableFactory), registered through weir/connector.h by
 * weir_kafka_register_connectors: a table over a topic's records, each
 * record's value one row in the 'json' format (weir_row_parse_json and
 * weir_row_write_json: the file connector's rules), read by weir's Kafka
 * source and written by its sink (weir/kafka.h).
 *
 *   'topic'                          the topic (required)
 *   'properties.bootstrap.servers'   the brokers (required)
 *   'properties.group.id'            the consumer group (group-offsets, commits)
 *   'properties.*'                   passed to librdkafka as they are
 *   'format' / 'value.format'        'json'
 *   'json.ignore-parse-errors'       a value that is not a row is skipped
 *   'scan.startup.mode'              'group-offsets' (Flink's default: the
 *                                    group's committed offsets, the earliest
 *                                    where none), 'earliest-offset',
 *                                    'latest-offset', 'timestamp'
 *   'scan.startup.timestamp-millis'  for 'timestamp'
 *   'scan.bounded.mode'              'unbounded' (default: runs until
 *                                    cancelled) or 'latest-offset' (each
 *                                    partition up to its end at the start)
 *   'scan.topic-partition-discovery.interval'   new partitions, unbounded
 *   'sink.delivery-guarantee'        'at-least-once' (default), 'exactly-once'
 *                                    (Kafka transactions, at checkpoints;
 *                                    needs 'sink.transactional-id-prefix')
 *   'sink.transactional-id-prefix'
 *
 * The sink takes inserts only (Flink's kafka sink). The table's WATERMARK
 * runs in the source, one generator per partition (Flink pushes it into
 * the scan the same way): a partition's late rows are judged by its own
 * watermark, and a quiet one goes idle after 'scan.watermark.idle-timeout'.
 *
 * 'upsert-kafka' (Flink's UpsertKafkaDynamicTableFactory): a table with a
 * PRIMARY KEY over a compacted topic. Each record's key is the primary
 * key's columns as a JSON object ('key.format' json), its value the whole
 * row ('value.format' json); a record without a value (a tombstone) deletes
 * its key. As a source it reads an upsert changelog (+U per value, -D per
 * tombstone, the key's columns only), which the SQL layer normalizes into a
 * retracting one (SEMANTICS.md 9); as a sink it takes every kind: +I and +U
 * write the row under its key, -D a tombstone, -U nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/connector.h"
#include "weir/error.h"
#include "weir/file_source.h"
#include "weir/kafka.h"
#include "weir/row.h"
#include "weir/table.h"

#define KAFKA_MAX_PROPERTIES 64

typedef struct kafka_table {
    char *topic;
    char *servers;
    char *group;
    /* 'properties.*' but the two above: key, value, ..., NULL */
    char *props[2 * KAFKA_MAX_PROPERTIES + 1];
    int nprops;
    weir_kafka_start start;
    int64_t start_ms;
    bool bounded;
    int64_t discovery_ms;
    bool ignore_errors;
    weir_kafka_guarantee guarantee;
    char *txn_prefix;
    const weir_schema *schema; /* the table's, for the callbacks */
    bool upsert;               /* 'upsert-kafka' */
    int key_cols[32];          /* upsert: the primary key's columns */
    int nkey;
} kafka_table;

static void kafka_free(void *state)
{
    kafka_table *t = state;
    if (!t)
        return;
    free(t->topic);
    free(t->servers);
    free(t->group);
    for (int i = 0; i < 2 * t->nprops; i++)
        free(t->props[i]);
    free(t->txn_prefix);
    free(t);
}

static int copy(char **out, const char *s)
{
    return s && !(*out = strdup(s)) ? WEIR_ENOMEM : 0;
}

static int validate(weir_connector_context *c, void **state, bool upsert)
{
    kafka_table *t = calloc(1, sizeof *t);
    if (!t)
        return WEIR_ENOMEM;
    *state = t;
    t->upsert = upsert;
    t->schema = weir_connector_schema(c);
    const char *topic = weir_connector_option(c, "topic");
    const char *servers = weir_connector_option(c, "properties.bootstrap.servers");
    if (weir_connector_option(c, "topic-pattern"))
        return weir_connector_fail(c, "topic-pattern", "not supported: a topic pattern (name "
                                   "the topic: 'topic')");
    if (!topic || !topic[0])
        return weir_connector_fail(c, NULL, "a kafka table needs 'topic'");
    if (!servers || !servers[0])
        return weir_connector_fail(c, NULL, "a kafka table needs "
                                   "'properties.bootstrap.servers'");
    const char *format = t->upsert ? NULL : weir_connector_option(c, "format");
    const char *vformat = weir_connector_option(c, "value.format");
    if (!format && !vformat)
        return weir_connector_fail(c, NULL, t->upsert ? "an upsert-kafka table needs "
                                   "'key.format' and 'value.format' ('json')"
                                   : "a kafka table needs 'format' ('json')");
    if (format && vformat)
        return weir_connector_fail(c, "value.format", "give 'format' or 'value.format', not "
                                   "both");
    if (strcmp(format ? format : vformat, "json") != 0)
        return weir_connector_fail(c, format ? "format" : "value.format",
                                   "not supported: the format '%s' (weir's kafka tables are "
                                   "'json')", format ? format : vformat);
    if (t->upsert) {
        const char *kformat = weir_connector_option(c, "key.format");
        if (!kformat)
            return weir_connector_fail(c, NULL, "an upsert-kafka table needs 'key.format' and "
                                       "'value.format' ('json')");
        if (strcmp(kformat, "json") != 0)
            return weir_connector_fail(c, "key.format", "not supported: the format '%s' "
                                       "(weir's kafka tables are 'json')", kformat);
        const weir_schema *sc = weir_connector_schema(c);
        t->nkey = weir_schema_primary_key_count(sc);
        if (t->nkey == 0)
            return weir_connector_fail(c, NULL, "'upsert-kafka' tables require to define a "
                                       "PRIMARY KEY constraint. The PRIMARY KEY specifies "
                                       "which columns should be read from or write to the "
                                       "Kafka message key.");
        if (t->nkey > 32)
            return weir_connector_fail(c, NULL, "a key of more than 32 columns");
        for (int i = 0; i < t->nkey; i++)
            t->key_cols[i] = weir_schema_primary_key_column(sc, i);
        weir_connector_set_source_mode(c, WEIR_CHANGELOG_UPSERT);
        weir_connector_set_sink_kinds(c, WEIR_CHANGELOG_ALL);
    }
    if (copy(&t->topic, topic) || copy(&t->servers, servers) ||
        copy(&t->group, weir_connector_option(c, "properties.group.id")))
        return WEIR_ENOMEM;
    int n = weir_connector_option_count(c);
    for (int i = 0; i < n; i++) {
        const char *key = weir_connector_option_key(c, i);
        if (strncmp(key, "properties.", 11) != 0 ||
            strcmp(key, "properties.bootstrap.servers") == 0 ||
            strcmp(key, "properties.group.id") == 0)
            continue;
        if (t->nprops == KAFKA_MAX_PROPERTIES)
            return weir_connector_fail(c, key, "more than %d properties", KAFKA_MAX_PROPERTIES);
        if (copy(&t->props[2 * t->nprops], key + 11) ||
            copy(&t->props[2 * t->nprops + 1], weir_connector_option(c, key)))
            return WEIR_ENOMEM;
        t->nprops++;
    }
    int err = weir_connector_option_bool(c, upsert ? "value.json.ignore-parse-errors"
                                                   : "json.ignore-parse-errors",
                                         &t->ignore_errors);
    if (err)
        return err;
    static const char *const starts[] = {"group-offsets", "earliest-offset", "latest-offset",
                                         "timestamp", NULL};
    static const weir_kafka_start start_of[] = {WEIR_KAFKA_COMMITTED, WEIR_KAFKA_EARLIEST,
                                                WEIR_KAFKA_LATEST, WEIR_KAFKA_TIMESTAMP};
    /* upsert-kafka reads a compacted topic from its start (Flink's has no
     * startup option) */
    int start = upsert ? 1 : 0;
    if (!upsert &&
        (err = weir_connector_option_choice(c, "scan.startup.mode", starts, &start)))
        return err;
    t->start = start_of[start];
    /* 'group-offsets' without a group is refused when the table is read
     * (kafka_source): a table only written needs no group */
    t->start_ms = -1;
    if (!upsert && (err = weir_connector_option_int(c, "scan.startup.timestamp-millis", 0,
                                                    INT64_MAX, &t->start_ms)))
        return err;
    if ((t->start == WEIR_KAFKA_TIMESTAMP) != (t->start_ms >= 0))
        return weir_connector_fail(c, t->start == WEIR_KAFKA_TIMESTAMP ? "scan.startup.mode"
                                                                       : "scan.startup.timestamp-millis",
                                   "'scan.startup.mode' = 'timestamp' goes with "
                                   "'scan.startup.timestamp-millis'");
    static const char *const bounds[] = {"unbounded", "latest-offset", NULL};
    int bounded = 0;
    if ((err = weir_connector_option_choice(c, "scan.bounded.mode", bounds, &bounded)))
        return err;
    t->bounded = bounded == 1;
    if ((err = weir_connector_option_duration(c, "scan.topic-partition-discovery.interval",
                                              &t->discovery_ms)))
        return err;
    static const char *const guarantees[] = {"at-least-once", "exactly-once", "none", NULL};
    int g = 0;
    if ((err = weir_connector_option_choice(c, "sink.delivery-guarantee", guarantees, &g)))
        return err;
    /* 'none' writes as at-least-once does: weir's sink always flushes */
    t->guarantee = g == 1 ? WEIR_KAFKA_EXACTLY_ONCE : WEIR_KAFKA_AT_LEAST_ONCE;
    if (copy(&t->txn_prefix, weir_connector_option(c, "sink.transactional-id-prefix")))
        return WEIR_ENOMEM;
    if (t->guarantee == WEIR_KAFKA_EXACTLY_ONCE && !t->txn_prefix)
        return weir_connector_fail(c, "sink.delivery-guarantee", "'exactly-once' needs "
                                   "'sink.transactional-id-prefix' (unique to this sink in the "
                                   "cluster)");
    return 0;
}

static int kafka_validate(weir_connector_context *c, void **state)
{
    return validate(c, state, false);
}

static int upsert_validate(weir_connector_context *c, void **state)
{
    return validate(c, state, true);
}

/* A record's value as a row; its timestamp the rowtime's, if the table has
 * one (the Kafka timestamp otherwise). */
static int kafka_deserialize(const weir_kafka_message *m, void *out, int64_t *timestamp,
                             char *why, size_t whysize, void *arg)
{
    const kafka_table *t = arg;
    if (!m->value && !t->upsert)
        return WEIR_KAFKA_SKIP; /* a tombstone: no row (Flink's json format: null) */
    if (!m->value) {
        /* upsert: a tombstone deletes its key (the key's columns only) */
        if (!m->key)
            return WEIR_KAFKA_SKIP;
        int r = weir_row_parse_json(t->schema, m->key, m->key_len, NULL, out, why, whysize);
        if (r == 1 || (r == WEIR_EFORMAT && t->ignore_errors))
            return WEIR_KAFKA_SKIP;
        if (r)
            return r;
        weir_row_set_kind(out, WEIR_ROW_DELETE);
        return WEIR_KAFKA_EMIT;
    }
    int r = weir_row_parse_json(t->schema, m->value, m->value_len, NULL, out, why, whysize);
    if (r == 1 || (r == WEIR_EFORMAT && t->ignore_errors))
        return WEIR_KAFKA_SKIP;
    if (r)
        return r;
    if (t->upsert)
        weir_row_set_kind(out, WEIR_ROW_UPDATE_AFTER);
    int rt = weir_schema_rowtime(t->schema);
    if (rt >= 0 && !weir_row_is_null(t->schema, out, rt))
        *timestamp = weir_row_get_int(t->schema, out, rt);
    return WEIR_KAFKA_EMIT;
}

/* The table's WATERMARK runs in the source, per partition (Flink's
 * watermark push-down into the Kafka scan): `wm` is the table's strategy,
 * or none. */
static weir_stream *source_with(void *state, const weir_schema *schema, weir_job *job,
                                const char *name, weir_watermark_strategy wm)
{
    kafka_table *t = state;
    if (t->start == WEIR_KAFKA_COMMITTED && !t->group) {
        weir_job_record_error(job, WEIR_EINVAL, "'group-offsets' (the default "
                              "'scan.startup.mode') needs 'properties.group.id'; or give "
                              "'scan.startup.mode' = 'earliest-offset'");
        return NULL;
    }
    const char *topics[] = {t->topic};
    weir_kafka_source_config kc = {
        .name = name,
        .bootstrap_servers = t->servers,
        .topics = topics,
        .ntopics = 1,
        .properties = t->nprops ? (const char *const *)t->props : NULL,
        .group_id = t->group,
        .start = t->start,
        .start_timestamp = t->start_ms,
        .bounded = t->bounded,
        .discovery_interval_ms = t->discovery_ms,
        .elem_size = weir_schema_row_size(schema),
        .deserialize = kafka_deserialize,
        .arg = t,
        .watermarks = wm,
    };
    return weir_source_kafka(job, &kc);
}

static weir_stream *kafka_source(void *state, const weir_schema *schema, weir_job *job,
                                 const char *name)
{
    return source_with(state, schema, job, name, weir_watermarks_none());
}

static weir_stream *kafka_source_watermarked(void *state, const weir_schema *schema,
                                             weir_job *job, const char *name,
                                             const weir_watermark_strategy *watermarks)
{
    return source_with(state, schema, job, name, *watermarks);
}

static int kafka_serialize(const void *elem, int64_t timestamp, weir_kafka_record *rec,
                           char *why, size_t whysize, void *arg)
{
    (void)timestamp;
    const kafka_table *t = arg;
    char *b = rec->scratch;
    size_t room = rec->scratch_size;
    rec->key = NULL;
    rec->key_len = 0;
    if (t->upsert) {
        weir_row_kind kind = weir_row_get_kind(elem);
        if (kind == WEIR_ROW_UPDATE_BEFORE)
            return WEIR_KAFKA_SKIP; /* the +U after it writes the key */
        int k = weir_row_write_json_columns(t->schema, elem, t->key_cols, t->nkey, b, room);
        if (k < 0 || (size_t)k >= room) {
            snprintf(why, whysize, "a key of %d bytes as JSON, more than a record holds (%zu)",
                     k, room);
            return WEIR_ERANGE;
        }
        rec->key = b;
        rec->key_len = (size_t)k;
        b += k;
        room -= (size_t)k;
        if (kind == WEIR_ROW_DELETE) {
            rec->value = NULL; /* a tombstone */
            rec->value_len = 0;
            return WEIR_KAFKA_EMIT;
        }
    }
    int n = weir_row_write_json(t->schema, elem, b, room);
    if (n < 0 || (size_t)n >= room) {
        snprintf(why, whysize, "a row of %d bytes as JSON, more than a record holds (%zu)", n,
                 rec->scratch_size);
        return WEIR_ERANGE;
    }
    rec->value = b;
    rec->value_len = (size_t)n;
    return WEIR_KAFKA_EMIT;
}

static weir_stream *kafka_sink(void *state, const weir_schema *schema, weir_stream *rows,
                               const char *name, int parallelism)
{
    (void)schema;
    (void)parallelism;
    kafka_table *t = state;
    weir_kafka_sink_config kc = {
        .name = name,
        .bootstrap_servers = t->servers,
        .topic = t->topic,
        .properties = t->nprops ? (const char *const *)t->props : NULL,
        .serialize = kafka_serialize,
        .arg = t,
        .guarantee = t->guarantee,
        .transactional_id_prefix = t->txn_prefix,
    };
    return weir_sink_kafka(rows, &kc);
}

static const weir_connector_factory kafka_factory = {
    .version = WEIR_CONNECTOR_V2,
    .name = "kafka",
    .options = "'topic', 'properties.bootstrap.servers', 'properties.group.id', "
               "'properties.*', 'format', 'value.format', 'json.ignore-parse-errors', "
               "'scan.startup.mode', 'scan.startup.timestamp-millis', 'scan.bounded.mode', "
               "'scan.topic-partition-discovery.interval', 'sink.delivery-guarantee', "
               "'sink.transactional-id-prefix'",
    .validate = kafka_validate,
    .free_state = kafka_free,
    .source = kafka_source,
    .sink = kafka_sink,
    .source_watermarked = kafka_source_watermarked,
};

static const weir_connector_factory upsert_kafka_factory = {
    .version = WEIR_CONNECTOR_V2,
    .name = "upsert-kafka",
    .options = "'topic', 'properties.bootstrap.servers', 'properties.group.id', "
               "'properties.*', 'key.format', 'value.format', 'value.json.ignore-parse-errors', "
               "'scan.bounded.mode', 'scan.topic-partition-discovery.interval', "
               "'sink.delivery-guarantee', 'sink.transactional-id-prefix'",
    .validate = upsert_validate,
    .free_state = kafka_free,
    .source = kafka_source,
    .sink = kafka_sink,
    .source_watermarked = kafka_source_watermarked,
};

int weir_kafka_register_connectors(void)
{
    int r = weir_connector_register(&kafka_factory);
    return r ? r : weir_connector_register(&upsert_kafka_factory);
}
