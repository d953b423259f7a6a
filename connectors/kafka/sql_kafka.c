/* sql_kafka.c — the 'kafka' connector of SQL tables (Flink's
 * KafkaDynamicTableFactory), registered through weir/connector.h by
 * weir_kafka_register_connectors: a table over a topic's records, each
 * record's value one row in the 'json' or 'csv' format (weir_row_parse_
 * json_columns / _csv_columns and weir_row_write_json_columns / _csv_
 * columns: the file connector's rules and readers), read by weir's Kafka
 * source and written by its sink (weir/kafka.h).
 *
 *   'topic'                          the topic, or topics 'a;b' (a sink: one)
 *   'topic-pattern'                  or topics by a POSIX extended regex
 *   'properties.bootstrap.servers'   the brokers (required)
 *   'properties.group.id'            the consumer group (group-offsets, commits)
 *   'properties.*'                   passed to librdkafka as they are
 *   'format' / 'value.format'        'json' or 'csv'
 *   'json.ignore-parse-errors'       a value that is not a row is skipped
 *   'csv.ignore-parse-errors'        (each 'value.'-prefixed after
 *   'csv.field-delimiter'            'value.format', as Flink's)
 *   'key.format', 'key.fields'       the record key's format and columns ('a;b');
 *                                    its options 'key.'-prefixed
 *   'value.fields-include'           'ALL' (default) or 'EXCEPT_KEY' (the key's
 *                                    columns read from the record's key)
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
 * Metadata columns (Flink's: 'topic', 'partition', 'offset', 'timestamp',
 * 'timestamp-type'; 'headers', a MAP, is refused: not filled yet): the SQL layer
 * checks them against kafka_read_metadata, the source fills them from the
 * record, and they are not in its value; a 'timestamp' column not VIRTUAL is
 * written as the record's timestamp.
 *
 * 'upsert-kafka' (Flink's UpsertKafkaDynamicTableFactory): a table with a
 * PRIMARY KEY over a compacted topic. Each record's key is the primary
 * key's columns ('key.format' json or csv, its options 'key.'-prefixed),
 * its value the whole row ('value.format'); a record without a value (a
 * tombstone) deletes
 * its key. As a source it reads an upsert changelog (+U per value, -D per
 * tombstone, the key's columns only), which the SQL layer normalizes into a
 * retracting one (SEMANTICS.md 9); as a sink it takes every kind: +I and +U
 * write the row under its key, -D a tombstone, -U nothing.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "weir/connector.h"
#include "weir/error.h"
#include "weir/file_source.h"
#include "weir/kafka.h"
#include "weir/row.h"
#include "weir/table.h"

#define KAFKA_MAX_PROPERTIES 64

/* A record's key or value format: Flink's 'json' or 'csv', with its
 * options. */
typedef struct kafka_format {
    bool csv;
    char delimiter; /* csv: 0 for ',' */
    bool ignore_errors;
} kafka_format;

#define KAFKA_MAX_TOPICS 64

typedef struct kafka_table {
    char *topic;               /* 'topic' as written (the sink's: one topic) */
    char *topics[KAFKA_MAX_TOPICS]; /* its topics ('a;b'), or none with a pattern */
    int ntopics;
    char *pattern;             /* 'topic-pattern' */
    char *servers;
    char *group;
    /* 'properties.*' but the two above: key, value, ..., NULL */
    char *props[2 * KAFKA_MAX_PROPERTIES + 1];
    int nprops;
    weir_kafka_start start;
    int64_t start_ms;
    bool bounded;
    int64_t discovery_ms;
    kafka_format key_format, value_format;
    weir_kafka_guarantee guarantee;
    char *txn_prefix;
    const weir_schema *schema; /* the table's, for the callbacks */
    bool upsert;               /* 'upsert-kafka' */
    int key_cols[32];          /* the key format's columns: upsert's primary key, or
                                  'key.fields' */
    int nkey;
    bool key_read;             /* some key column is not in the value (EXCEPT_KEY): the
                                  record's key is read too */
    int *value_cols;           /* the value format's columns: the physical ones
                                  (EXCEPT_KEY: but the key's) */
    int nvalue;
    struct kafka_meta *meta;   /* the metadata columns, which the source fills */
    int nmeta;
    int ts_col;                /* the sink's record timestamp ('timestamp', not VIRTUAL); -1 */
} kafka_table;

/* The metadata a kafka table reads and writes (Flink's KafkaDynamicSource
 * and KafkaDynamicSink, in their order). 'headers' is Flink's MAP<STRING,
 * BYTES>, which the source does not fill yet: the SQL layer refuses a
 * column of it as not supported. 'leader-epoch' is not there (librdkafka 2.0 does not
 * tell it). */
static const weir_connector_metadata kafka_read_metadata[] = {
    {"topic", "STRING NOT NULL"},
    {"partition", "INT NOT NULL"},
    {"headers", "MAP<STRING, BYTES> NOT NULL"},
    {"offset", "BIGINT NOT NULL"},
    {"timestamp", "TIMESTAMP_LTZ(3) NOT NULL"},
    {"timestamp-type", "STRING NOT NULL"},
    {NULL, NULL},
};

static const weir_connector_metadata kafka_write_metadata[] = {
    {"headers", "MAP<STRING, BYTES>"},
    {"timestamp", "TIMESTAMP_LTZ(3)"},
    {NULL, NULL},
};

typedef enum kafka_meta_key {
    META_TOPIC,
    META_PARTITION,
    META_OFFSET,
    META_TIMESTAMP,
    META_TIMESTAMP_TYPE
} kafka_meta_key;

static const char *const meta_keys[] = {"topic", "partition", "offset", "timestamp",
                                        "timestamp-type"};

typedef struct kafka_meta {
    int col;
    kafka_meta_key key;
} kafka_meta;

static void kafka_free(void *state)
{
    kafka_table *t = state;
    if (!t)
        return;
    free(t->topic);
    for (int i = 0; i < t->ntopics; i++)
        free(t->topics[i]);
    free(t->pattern);
    free(t->servers);
    free(t->group);
    for (int i = 0; i < 2 * t->nprops; i++)
        free(t->props[i]);
    free(t->txn_prefix);
    free(t->value_cols);
    free(t->meta);
    free(t);
}

static int copy(char **out, const char *s)
{
    return s && !(*out = strdup(s)) ? WEIR_ENOMEM : 0;
}

/* The table's metadata columns (checked by the SQL layer against
 * kafka_read_metadata) and the physical ones the value format holds. */
static int table_columns(weir_connector_context *c, kafka_table *t)
{
    int ncols = weir_schema_ncolumns(t->schema);
    int nmeta = weir_connector_metadata_count(c);
    t->ts_col = -1;
    t->meta = calloc((size_t)(nmeta ? nmeta : 1), sizeof *t->meta);
    t->value_cols = calloc((size_t)ncols, sizeof *t->value_cols);
    if (!t->meta || !t->value_cols)
        return WEIR_ENOMEM;
    for (int i = 0; i < nmeta; i++) {
        const char *key = weir_connector_metadata_key(c, i);
        int k = 0;
        while (k < 5 && strcmp(meta_keys[k], key) != 0)
            k++;
        if (k == 5) /* a key of kafka_read_metadata the SQL layer let through */
            return weir_connector_fail(c, NULL, "the metadata key '%s' is not read", key);
        t->meta[t->nmeta++] = (kafka_meta){weir_connector_metadata_column(c, i),
                                           (kafka_meta_key)k};
        if (k == META_TIMESTAMP && !weir_connector_metadata_virtual(c, i))
            t->ts_col = weir_connector_metadata_column(c, i);
    }
    return 0;
}

static int read_format(weir_connector_context *c, const char *key, const char *prefix,
                       kafka_format *f);

static bool is_metadata(const kafka_table *t, int col)
{
    for (int i = 0; i < t->nmeta; i++)
        if (t->meta[i].col == col)
            return true;
    return false;
}

static bool is_key(const kafka_table *t, int col)
{
    for (int i = 0; i < t->nkey; i++)
        if (t->key_cols[i] == col)
            return true;
    return false;
}

/* 'key.fields' = 'a;b': physical columns, the record key's (Flink's
 * KafkaConnectorOptionsUtil.createKeyFormatProjection). */
static int key_fields(weir_connector_context *c, kafka_table *t, const char *fields)
{
    for (const char *p = fields;;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t'))
            p++, len--;
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        int col = len < sizeof name ? weir_schema_column_index(t->schema, name) : -1;
        if (col < 0 || is_metadata(t, col)) {
            char cols[1024] = "";
            size_t at = 0;
            for (int k = 0; k < weir_schema_ncolumns(t->schema); k++)
                if (!is_metadata(t, k) && at < sizeof cols)
                    at += (size_t)snprintf(cols + at, sizeof cols - at, "%s%s", at ? ", " : "",
                                           weir_schema_column_name(t->schema, k));
            return weir_connector_fail(c, "key.fields", "Could not find the field '%s' in the "
                                       "table schema for usage in the key format. A key field "
                                       "must be a regular, physical column. The following "
                                       "columns can be selected in the 'key.fields' option: %s",
                                       name, cols);
        }
        if (is_key(t, col))
            return weir_connector_fail(c, "key.fields", "the field '%s' is listed twice", name);
        if (t->nkey == 32)
            return weir_connector_fail(c, "key.fields", "a key of more than 32 columns");
        t->key_cols[t->nkey++] = col;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

/* The key ('key.format', 'key.fields'; upsert-kafka: its PRIMARY KEY) and
 * the value's columns ('value.fields-include': ALL the physical columns, or
 * EXCEPT_KEY those not in the key). */
static int key_and_value(weir_connector_context *c, kafka_table *t)
{
    int err;
    const char *kformat = weir_connector_option(c, "key.format");
    if (weir_connector_option(c, "key.fields-prefix"))
        return weir_connector_fail(c, "key.fields-prefix", "not supported: a key fields prefix "
                                   "(the key's fields are named as their columns)");
    if (t->upsert) {
        if (!kformat)
            return weir_connector_fail(c, NULL, "an upsert-kafka table needs 'key.format' and "
                                       "'value.format' ('json' or 'csv')");
        const weir_schema *sc = t->schema;
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
    } else {
        const char *fields = weir_connector_option(c, "key.fields");
        if (fields && !kformat)
            return weir_connector_fail(c, "key.fields", "The option 'key.fields' can only be "
                                       "declared if a key format is defined using "
                                       "'key.format'.");
        if (kformat && (!fields || !fields[0]))
            return weir_connector_fail(c, "key.format", "A key format 'key.format' requires "
                                       "the declaration of one or more of key fields using "
                                       "'key.fields'.");
        if (fields && (err = key_fields(c, t, fields)))
            return err;
    }
    if (kformat && (err = read_format(c, "key.format", "key.", &t->key_format)))
        return err;
    bool except_key = false;
    const char *include = weir_connector_option(c, "value.fields-include");
    if (include && strcasecmp(include, "EXCEPT_KEY") == 0)
        except_key = true;
    else if (include && strcasecmp(include, "ALL") != 0)
        return weir_connector_fail(c, "value.fields-include", "expected 'ALL' or 'EXCEPT_KEY'");
    for (int col = 0; col < weir_schema_ncolumns(t->schema); col++) {
        if (is_metadata(t, col))
            continue;
        if (except_key && is_key(t, col))
            t->key_read = true;
        else
            t->value_cols[t->nvalue++] = col;
    }
    return 0;
}

/* The format option `key` names ('json' or 'csv') and its options, Flink's,
 * under `prefix` ("" after 'format', "value." after 'value.format', "key."
 * after 'key.format'): 'json.ignore-parse-errors', 'csv.ignore-parse-errors'
 * and 'csv.field-delimiter' (one character, or '\t'). */
static int read_format(weir_connector_context *c, const char *key, const char *prefix,
                       kafka_format *f)
{
    const char *v = weir_connector_option(c, key);
    if (strcmp(v, "json") != 0 && strcmp(v, "csv") != 0)
        return weir_connector_fail(c, key, "not supported: the format '%s' (weir's kafka "
                                   "tables are 'json' or 'csv')", v);
    f->csv = strcmp(v, "csv") == 0;
    char opt[64];
    snprintf(opt, sizeof opt, "%s%s.ignore-parse-errors", prefix, f->csv ? "csv" : "json");
    int err = weir_connector_option_bool(c, opt, &f->ignore_errors);
    if (err || !f->csv)
        return err;
    snprintf(opt, sizeof opt, "%scsv.field-delimiter", prefix);
    const char *d = weir_connector_option(c, opt);
    if (!d)
        return 0;
    if (strcmp(d, "\\t") == 0)
        f->delimiter = '\t';
    else if (strlen(d) == 1 && d[0] != '"' && d[0] != '\n' && d[0] != '\r')
        f->delimiter = d[0];
    else
        return weir_connector_fail(c, opt, "expected one character (or '\\t')");
    return 0;
}

/* A record's key or value in its format, into the columns cols[0..n) of
 * row (weir/file_source.h). */
static int parse_format(const kafka_table *t, const kafka_format *f, const void *text,
                        size_t len, const int *cols, int n, void *row, char *why,
                        size_t whysize)
{
    return f->csv ? weir_row_parse_csv_columns(t->schema, text, len, f->delimiter, cols, n, row,
                                               why, whysize)
                  : weir_row_parse_json_columns(t->schema, text, len, cols, n, row, why,
                                                whysize);
}

/* The columns cols[0..n) of row in the format, into buf as snprintf does. */
static int write_format(const kafka_table *t, const kafka_format *f, const void *row,
                        const int *cols, int n, char *buf, size_t size)
{
    return f->csv ? weir_row_write_csv_columns(t->schema, row, cols, n, f->delimiter, buf, size)
                  : weir_row_write_json_columns(t->schema, row, cols, n, buf, size);
}

/* 'topic' (one topic, or Flink's list 'a;b') or 'topic-pattern' (a POSIX
 * extended regular expression over whole names: weir/kafka.h). */
static int read_topics(weir_connector_context *c, kafka_table *t)
{
    const char *topic = weir_connector_option(c, "topic");
    const char *pattern = weir_connector_option(c, "topic-pattern");
    if (topic && pattern)
        return weir_connector_fail(c, "topic-pattern", "Option 'topic' and 'topic-pattern' "
                                   "shouldn't be set together.");
    if (!topic && !pattern)
        return weir_connector_fail(c, NULL, "Either 'topic' or 'topic-pattern' must be set.");
    if (pattern) {
        regex_t re;
        size_t n = strlen(pattern) + 5;
        char *whole = malloc(n);
        if (!whole)
            return WEIR_ENOMEM;
        snprintf(whole, n, "^(%s)$", pattern);
        int e = regcomp(&re, whole, REG_EXTENDED | REG_NOSUB);
        free(whole);
        if (e) {
            char msg[128];
            regerror(e, &re, msg, sizeof msg);
            return e == REG_ESPACE ? WEIR_ENOMEM
                                   : weir_connector_fail(c, "topic-pattern", "not a POSIX "
                                                         "extended regular expression: %s", msg);
        }
        regfree(&re);
        return copy(&t->pattern, pattern);
    }
    if (copy(&t->topic, topic))
        return WEIR_ENOMEM;
    for (const char *p = topic;;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t'))
            p++, len--;
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (!len || len > 249)
            return weir_connector_fail(c, "topic", "a topic name of %s", len ? "more than 249 "
                                       "bytes" : "no bytes ('a;b' lists topics)");
        if (t->ntopics == KAFKA_MAX_TOPICS)
            return weir_connector_fail(c, "topic", "more than %d topics", KAFKA_MAX_TOPICS);
        if (!(t->topics[t->ntopics] = strndup(p, len)))
            return WEIR_ENOMEM;
        t->ntopics++;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

static int validate(weir_connector_context *c, void **state, bool upsert)
{
    kafka_table *t = calloc(1, sizeof *t);
    if (!t)
        return WEIR_ENOMEM;
    *state = t;
    t->upsert = upsert;
    t->schema = weir_connector_schema(c);
    int err = table_columns(c, t);
    if (err)
        return err;
    const char *servers = weir_connector_option(c, "properties.bootstrap.servers");
    if ((err = read_topics(c, t)))
        return err;
    if (!servers || !servers[0])
        return weir_connector_fail(c, NULL, "a kafka table needs "
                                   "'properties.bootstrap.servers'");
    const char *format = t->upsert ? NULL : weir_connector_option(c, "format");
    const char *vformat = weir_connector_option(c, "value.format");
    if (!format && !vformat)
        return weir_connector_fail(c, NULL, t->upsert ? "an upsert-kafka table needs "
                                   "'key.format' and 'value.format' ('json' or 'csv')"
                                   : "a kafka table needs 'format' ('json' or 'csv')");
    if (format && vformat)
        return weir_connector_fail(c, "value.format", "give 'format' or 'value.format', not "
                                   "both");
    if ((err = read_format(c, format ? "format" : "value.format", format ? "" : "value.",
                           &t->value_format)))
        return err;
    if ((err = key_and_value(c, t)))
        return err;
    if (t->upsert) {
        weir_connector_set_source_mode(c, WEIR_CHANGELOG_UPSERT);
        weir_connector_set_sink_kinds(c, WEIR_CHANGELOG_ALL);
    }
    if (copy(&t->servers, servers) ||
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

static const char *const timestamp_types[] = {"NoTimestampType", "CreateTime",
                                               "LogAppendTime"};

/* A number of metadata into a column of INT, BIGINT or DOUBLE. */
static int set_number(const kafka_table *t, void *row, int col, int64_t v)
{
    return weir_schema_column_type(t->schema, col).id == WEIR_TYPE_DOUBLE
               ? weir_row_set_double(t->schema, row, col, (double)v)
               : weir_row_set_int(t->schema, row, col, v);
}

/* The record's metadata into its columns. */
static int set_metadata(const kafka_table *t, const weir_kafka_message *m, void *row, char *why,
                        size_t whysize)
{
    for (int i = 0; i < t->nmeta; i++) {
        int col = t->meta[i].col, r = 0;
        const char *text = NULL;
        switch (t->meta[i].key) {
        case META_TOPIC: text = m->topic; break;
        case META_TIMESTAMP_TYPE: text = timestamp_types[m->timestamp_type]; break;
        case META_PARTITION: r = set_number(t, row, col, m->partition); break;
        case META_OFFSET: r = set_number(t, row, col, m->offset); break;
        case META_TIMESTAMP:
            r = m->timestamp == WEIR_NO_TIMESTAMP ? weir_row_set_null(t->schema, row, col)
                                                   : weir_row_set_int(t->schema, row, col,
                                                                      m->timestamp);
            break;
        }
        if (text)
            r = weir_row_set_string(t->schema, row, col, text, strlen(text));
        if (r) {
            snprintf(why, whysize, "the metadata '%s' does not fit the column '%s'",
                     meta_keys[t->meta[i].key],
                     weir_schema_column_name(t->schema, col));
            return WEIR_EFORMAT;
        }
    }
    return 0;
}

/* A record's value as a row (its metadata columns from the record); its
 * timestamp the rowtime's, if the table has one (the Kafka timestamp
 * otherwise). */
static int kafka_deserialize(const weir_kafka_message *m, void *out, int64_t *timestamp,
                             char *why, size_t whysize, void *arg)
{
    const kafka_table *t = arg;
    if (!m->value && !t->upsert)
        return WEIR_KAFKA_SKIP; /* a tombstone: no row (Flink's json format: null) */
    weir_row_init(t->schema, out, WEIR_ROW_INSERT);
    int r;
    if (!m->value) {
        /* upsert: a tombstone deletes its key (the key's columns only) */
        if (!m->key)
            return WEIR_KAFKA_SKIP;
        r = parse_format(t, &t->key_format, m->key, m->key_len, t->key_cols, t->nkey, out, why,
                         whysize);
        if (r == WEIR_EFORMAT && t->key_format.ignore_errors)
            return WEIR_KAFKA_SKIP;
        weir_row_set_kind(out, WEIR_ROW_DELETE);
    } else {
        /* the key's columns the value does not hold (EXCEPT_KEY), NULL
         * without a key */
        r = 0;
        if (t->key_read && m->key) {
            r = parse_format(t, &t->key_format, m->key, m->key_len, t->key_cols, t->nkey, out,
                             why, whysize);
            if (r == WEIR_EFORMAT && t->key_format.ignore_errors)
                return WEIR_KAFKA_SKIP;
        } else if (t->key_read) {
            for (int i = 0; i < t->nkey; i++)
                weir_row_set_null(t->schema, out, t->key_cols[i]);
        }
        if (r == 0) {
            r = parse_format(t, &t->value_format, m->value, m->value_len, t->value_cols,
                             t->nvalue, out, why, whysize);
            if (r == WEIR_EFORMAT && t->value_format.ignore_errors)
                return WEIR_KAFKA_SKIP;
        }
        if (t->upsert)
            weir_row_set_kind(out, WEIR_ROW_UPDATE_AFTER);
    }
    if (r == 1)
        return WEIR_KAFKA_SKIP;
    if (r || (r = set_metadata(t, m, out, why, whysize)))
        return r;
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
    weir_kafka_source_config kc = {
        .name = name,
        .bootstrap_servers = t->servers,
        .topics = t->ntopics ? (const char *const *)t->topics : NULL,
        .ntopics = t->ntopics,
        .topic_pattern = t->pattern,
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
    weir_row_kind kind = weir_row_get_kind(elem);
    if (t->upsert && kind == WEIR_ROW_UPDATE_BEFORE)
        return WEIR_KAFKA_SKIP; /* the +U after it writes the key */
    if (t->nkey) {
        int k = write_format(t, &t->key_format, elem, t->key_cols, t->nkey, b, room);
        if (k < 0 || (size_t)k >= room) {
            snprintf(why, whysize, "a key of %d bytes, more than a record holds (%zu)", k, room);
            return WEIR_ERANGE;
        }
        rec->key = b;
        rec->key_len = (size_t)k;
        b += k;
        room -= (size_t)k;
        if (t->upsert && kind == WEIR_ROW_DELETE) {
            if (t->ts_col >= 0 && !weir_row_is_null(t->schema, elem, t->ts_col))
                rec->timestamp = weir_row_get_int(t->schema, elem, t->ts_col);
            rec->value = NULL; /* a tombstone */
            rec->value_len = 0;
            return WEIR_KAFKA_EMIT;
        }
    }
    if (t->ts_col >= 0 && !weir_row_is_null(t->schema, elem, t->ts_col))
        rec->timestamp = weir_row_get_int(t->schema, elem, t->ts_col);
    int n = write_format(t, &t->value_format, elem, t->value_cols, t->nvalue, b, room);
    if (n < 0 || (size_t)n >= room) {
        snprintf(why, whysize, "a row of %d bytes, more than a record holds (%zu)", n,
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
    if (t->pattern || t->ntopics > 1) {
        weir_job_record_error(weir_stream_job(rows), WEIR_EINVAL, "Flink Kafka sink currently "
                              "only supports single topic, but got %s: %s.",
                              t->pattern ? "'topic-pattern'" : "'topic'",
                              t->pattern ? t->pattern : t->topic);
        return NULL;
    }
    weir_kafka_sink_config kc = {
        .name = name,
        .bootstrap_servers = t->servers,
        .topic = t->topics[0],
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
    .options = "'topic', 'topic-pattern', 'properties.bootstrap.servers', 'properties.group.id', "
               "'properties.*', 'format', 'value.format', 'key.format', 'key.fields', "
               "'value.fields-include', 'json.ignore-parse-errors', "
               "'csv.ignore-parse-errors', 'csv.field-delimiter', 'value.json.ignore-parse-errors', "
               "'value.csv.ignore-parse-errors', 'value.csv.field-delimiter', "
               "'key.json.ignore-parse-errors', 'key.csv.ignore-parse-errors', "
               "'key.csv.field-delimiter', 'scan.startup.mode', 'scan.startup.timestamp-millis', 'scan.bounded.mode', "
               "'scan.topic-partition-discovery.interval', 'sink.delivery-guarantee', "
               "'sink.transactional-id-prefix'",
    .validate = kafka_validate,
    .free_state = kafka_free,
    .source = kafka_source,
    .sink = kafka_sink,
    .source_watermarked = kafka_source_watermarked,
    .read_metadata = kafka_read_metadata,
    .write_metadata = kafka_write_metadata,
};

static const weir_connector_factory upsert_kafka_factory = {
    .version = WEIR_CONNECTOR_V2,
    .name = "upsert-kafka",
    .options = "'topic', 'topic-pattern', 'properties.bootstrap.servers', 'properties.group.id', "
               "'properties.*', 'key.format', 'value.format', 'value.fields-include', "
               "'key.json.ignore-parse-errors', "
               "'key.csv.ignore-parse-errors', 'key.csv.field-delimiter', "
               "'value.json.ignore-parse-errors', 'value.csv.ignore-parse-errors', "
               "'value.csv.field-delimiter', "
               "'scan.bounded.mode', 'scan.topic-partition-discovery.interval', "
               "'sink.delivery-guarantee', 'sink.transactional-id-prefix'",
    .validate = upsert_validate,
    .free_state = kafka_free,
    .source = kafka_source,
    .sink = kafka_sink,
    .source_watermarked = kafka_source_watermarked,
    .read_metadata = kafka_read_metadata,
    .write_metadata = kafka_write_metadata,
};

int weir_kafka_register_connectors(void)
{
    int r = weir_connector_register(&kafka_factory);
    return r ? r : weir_connector_register(&upsert_kafka_factory);
}
