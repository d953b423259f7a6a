/* weir/kafka.h — reading from Kafka (librdkafka), with watermarks per
 * partition (docs/KAFKA.md), and an in-process mock cluster to run against
 * when no broker is there (tests, examples).
 *
 * The source's subtasks share the topics' partitions by a fixed rule: the
 * partitions of all topics, in topic order then partition order, are dealt
 * round robin to the readers, reader r = instance * parallelism + subtask
 * of instances * parallelism (one process: instance 0 of 1). Each subtask
 * reads its partitions with its own consumer (assigned, not subscribed: no
 * consumer-group rebalancing; Flink's KafkaSource does the same).
 * Event time: the record's timestamp is the Kafka timestamp unless the
 * deserializer sets another; the watermark strategy runs per partition
 * inside the source, and a subtask's watermark is the valve's merge of its
 * partitions (weir/operator.h, "per-partition event time"): a silent
 * partition marked idle by with_idleness stops holding the windows behind
 * it. A subtask with no partition is idle at once.
 * With checkpoints every partition's next offset is in the source's
 * snapshot and a restore seeks there; with a group id the offsets are also
 * committed to Kafka when a checkpoint completes (for monitoring; a restore
 * reads its own). Without checkpoints, with a group id, they are committed
 * every commit_interval_ms.
 *
 * Provided by libweir-kafka (librdkafka), not by libweir: link
 * `pkg-config --cflags --libs weir-kafka` (weir-kafka-static: the archives
 * libweir-kafka.a and libweir.a) or CMake's weir::weir-kafka
 * (weir::weir-kafka-static), from find_package(weir). weir.h includes this
 * header too; a program that calls none of its functions links libweir
 * alone.
 */
#ifndef WEIR_KAFKA_H
#define WEIR_KAFKA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/stream.h"
#include "weir/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a partition found when the job starts begins, unless a restored
 * checkpoint places it. A partition discovered later (or one a restored
 * checkpoint does not know) begins at its first offset whatever this says,
 * as in Flink: nothing written to it before it was found is lost. */
typedef enum weir_kafka_start {
    WEIR_KAFKA_EARLIEST = 0,  /* the partition's first offset */
    WEIR_KAFKA_LATEST = 1,    /* its end when the job starts: only new records */
    WEIR_KAFKA_COMMITTED = 2, /* the group's committed offset (group_id
                                 required), the first offset where none */
    WEIR_KAFKA_TIMESTAMP = 3  /* the first record with a timestamp >= start_timestamp
                                 (the end where none is) */
} weir_kafka_start;

/* How a record's timestamp was set (Kafka's TimestampType). */
typedef enum weir_kafka_timestamp_type {
    WEIR_KAFKA_NO_TIMESTAMP_TYPE = 0, /* none: "NoTimestampType" */
    WEIR_KAFKA_CREATE_TIME = 1,       /* by the producer: "CreateTime" */
    WEIR_KAFKA_LOG_APPEND_TIME = 2    /* by the broker: "LogAppendTime" */
} weir_kafka_timestamp_type;

/* One Kafka record, as the deserializer sees it; valid during its call. */
typedef struct weir_kafka_message {
    const char *topic;
    int32_t partition;
    int64_t offset;
    const void *key; /* NULL for no key */
    size_t key_len;
    const void *value; /* NULL for a tombstone */
    size_t value_len;
    int64_t timestamp; /* the Kafka timestamp (ms), WEIR_NO_TIMESTAMP if none */
    const void *headers_; /* opaque: read with weir_kafka_header */
    weir_kafka_timestamp_type timestamp_type;
} weir_kafka_message;

/* Header `name`'s last value: 1 with *value and *len set, 0 when absent. */
WEIR_EXPORT int weir_kafka_header(const weir_kafka_message *m, const char *name,
                                  const void **value, size_t *len);

/* What a deserializer and a serializer return (besides a negative WEIR_E*
 * code, which fails the job): one convention for both directions. Any
 * other value fails the job too. */
enum {
    WEIR_KAFKA_SKIP = 0, /* nothing for this record: it is counted as filtered */
    WEIR_KAFKA_EMIT = 1  /* the element (deserializer) or the record (serializer) is ready */
};

/* Turns a record into an element of elem_size bytes at `out`. *timestamp
 * starts as the Kafka timestamp and may be changed. Returns WEIR_KAFKA_EMIT,
 * WEIR_KAFKA_SKIP, or a negative WEIR_E* code to fail the job, with a
 * reason in why (the source adds topic, partition and offset). Runs on the
 * subtask's worker thread. */
typedef int (*weir_kafka_deserialize_fn)(const weir_kafka_message *m, void *out,
                                         int64_t *timestamp, char *why, size_t whysize,
                                         void *arg);

typedef struct weir_kafka_source_config {
    const char *name;               /* NULL: "kafka" */
    const char *bootstrap_servers;  /* required: host:port[,host:port...] */
    const char *const *topics;      /* ntopics names (1 to 64), or topic_pattern below */
    int ntopics;
    /* librdkafka consumer properties, passed through: NULL-terminated pairs
     * {"key", "value", ..., NULL}. Those the source sets itself (group.id,
     * bootstrap.servers, enable.auto.commit, enable.auto.offset.store,
     * enable.partition.eof) are refused. */
    const char *const *properties;
    const char *group_id; /* for WEIR_KAFKA_COMMITTED and committing offsets; NULL: none */
    weir_kafka_start start;
    int64_t start_timestamp; /* WEIR_KAFKA_TIMESTAMP: ms */
    /* Bounded: each partition stops at the end it had when the job started
     * and the source ends when every partition did (no discovery then, as
     * in Flink). Unbounded: it runs until cancelled. */
    bool bounded;
    /* Unbounded: look for new partitions (and topics that appeared) this
     * often, ms. 0: 30 000; WEIR_DISABLED: never. */
    int64_t discovery_interval_ms;
    /* Without checkpoints and with a group id: commit offsets this often,
     * ms. 0: 5 000. */
    int64_t commit_interval_ms;
    /* A record's value over this many bytes fails the job (a corrupt or
     * oversized record, with its topic, partition and offset). 0: 1 MiB. */
    size_t max_value_bytes;
    size_t elem_size;                  /* required: the elements' size */
    weir_kafka_deserialize_fn deserialize; /* required */
    void *arg;
    /* Per partition (weir_watermarks_none(): no watermarks, only MAX at the
     * end of a bounded read). Custom generators get one instance per
     * partition. */
    weir_watermark_strategy watermarks;
    /* Scale-out (docs/KAFKA.md): this process is instance `instance` of
     * `instances` cooperating processes that share the partitions. 0 and
     * 0: one process. */
    int instance;
    int instances;
    /* How long metadata and offset queries may take at open, ms. 0: 10 000. */
    int64_t timeout_ms;
    /* The topics are written by weir Kafka sinks with `watermarks` on (a
     * repartition topic, docs/SCALING.md): each writer of a partition is a
     * channel of the source's valve, fed by its markers (named
     * "topic-partition/wK" in the capture), so the partition's writers
     * merge by SEMANTICS.md 3 like any channels (one not heard from yet
     * holds at MIN); the strategy in `watermarks` is not used (nor its
     * idleness: the writers say when they are idle). Bounded: a partition ends when every
     * writer's end marker came (not at the offsets of the job's start).
     * Markers never reach the deserializer. */
    bool inband_watermarks;
    /* Instead of topics (NULL, ntopics 0): every topic whose whole name
     * matches this POSIX extended regular expression (regcomp, REG_EXTENDED;
     * Flink's 'topic-pattern' is a Java regex: '.', '*', '+', '?', '[a-z]',
     * '(a|b)', '{n}' and '^'/'$' read the same, Java's '\\d', '\\w', lazy
     * quantifiers and lookarounds are not POSIX and are refused or read
     * otherwise), found when the source opens and, unbounded, at every
     * discovery: a topic that appears later is read from its first record,
     * as a discovered partition. Kafka's own topics (a name starting with
     * "__") are left out, as a Java consumer's pattern leaves them. A
     * pattern regcomp refuses is the config's error. */
    const char *topic_pattern;
} weir_kafka_source_config;

/* The source; its parallelism is the job's default unless set on the
 * stream. The config and its strings are copied. NULL (recorded) for a bad
 * config. */
WEIR_EXPORT weir_stream *weir_source_kafka(weir_job *job, const weir_kafka_source_config *cfg);

/* ---- the sink ----------------------------------------------------------------
 * Writes a stream to a topic with its own librdkafka producer per subtask
 * (docs/KAFKA.md, "Writing a topic"). Every delivery is checked: a record
 * the cluster did not take fails the job with the broker's error, nothing
 * is dropped silently. */

/* What a record becomes in Kafka; the serializer fills it in. */
typedef struct weir_kafka_record {
    const void *key; /* NULL: no key */
    size_t key_len;
    const void *value; /* NULL: a tombstone */
    size_t value_len;
    /* WEIR_KAFKA_ANY_PARTITION: the partitioner's choice (by key) */
    int32_t partition;
    /* the Kafka timestamp, ms; starts as the record's (none: the producer's
     * clock) */
    int64_t timestamp;
    /* the subtask's own scratch buffer of scratch_size bytes (the config's
     * max_record_bytes): key and value may point into it, into the
     * element, or at memory that outlives the call */
    void *scratch;
    size_t scratch_size;
} weir_kafka_record;

#define WEIR_KAFKA_ANY_PARTITION (-1)

/* Turns an element into a record. Returns WEIR_KAFKA_EMIT (write `rec`),
 * WEIR_KAFKA_SKIP (nothing is written for it), or a negative WEIR_E* code
 * to fail the job with a reason in why: the deserializer's convention.
 * Runs on the subtask's worker thread. */
typedef int (*weir_kafka_serialize_fn)(const void *elem, int64_t timestamp, weir_kafka_record *rec,
                                       char *why, size_t whysize, void *arg);

/* Chooses the partition of a record that has none: 0..partitions-1. */
typedef int32_t (*weir_kafka_partition_fn)(const void *key, size_t key_len, const void *elem,
                                           int32_t partitions, void *arg);

typedef enum weir_kafka_guarantee {
    /* Every record is acknowledged by the cluster before a checkpoint
     * completes (the sink flushes in its snapshot) and before the job ends:
     * nothing is lost; a restore may write some records again. */
    WEIR_KAFKA_AT_LEAST_ONCE = 0,
    /* Kafka transactions, one transactional id per subtask: the records
     * between two checkpoints are kept in the checkpoint and written in one
     * transaction when it completes (notify_complete); a read_committed
     * consumer sees each exactly once, across kills and restores. Needs
     * checkpoints. */
    WEIR_KAFKA_EXACTLY_ONCE = 1
} weir_kafka_guarantee;

typedef struct weir_kafka_sink_config {
    const char *name;              /* NULL: "kafka-sink" */
    const char *bootstrap_servers; /* required */
    const char *topic;             /* required; must exist */
    /* librdkafka producer properties, passed through, as the source's.
     * bootstrap.servers, transactional.id, enable.idempotence and
     * acks are the sink's own and refused. */
    const char *const *properties;
    weir_kafka_serialize_fn serialize; /* required */
    void *arg;
    /* NULL: by key, murmur2 as Java's producer (records without a key are
     * spread); called with the element for WEIR_KAFKA_ANY_PARTITION. */
    weir_kafka_partition_fn partitioner;
    void *partitioner_arg;
    weir_kafka_guarantee guarantee;
    /* EXACTLY_ONCE: required. Subtask i of instance k uses the
     * transactional id PREFIX-k-i: unique to this sink in the cluster and
     * the same across restarts (a restarted job fences its predecessor's
     * producers and aborts what they left open). */
    const char *transactional_id_prefix;
    /* For a topic that a weir Kafka source downstream reads with
     * inband_watermarks (a repartition topic between processes,
     * docs/SCALING.md): every watermark, idle/active change and the end of
     * input is written to every partition as a marker record (headers
     * weir-wm, no value) that the source merges per partition. */
    bool watermarks;
    /* Scale-out: instance `instance` of `instances` processes (as the
     * source's); names the writers in the markers. 0 and 0: one process. */
    int instance;
    int instances;
    size_t max_record_bytes; /* the scratch buffer; 0: 64 KiB */
    /* How long the topic's metadata at open, a flush or a transaction's
     * commit may take, ms; longer fails the job. 0: 30 000. */
    int64_t timeout_ms;
} weir_kafka_sink_config;

/* The sink on s; the config and its strings are copied. NULL (recorded)
 * for a bad config. */
WEIR_EXPORT weir_stream *weir_sink_kafka(weir_stream *s, const weir_kafka_sink_config *cfg);

/* ---- SQL tables ---------------------------------------------------------------
 * Registers the 'kafka' connector of SQL tables (weir/connector.h; its
 * options are Flink's: docs/SQL.md): a program that runs SQL over Kafka
 * calls it once before (the `weir` command does). 0, or WEIR_ENOMEM. */
WEIR_EXPORT int weir_kafka_register_connectors(void);

/* ---- the mock cluster ------------------------------------------------------
 * librdkafka's in-process mock cluster (rdkafka_mock.h): real brokers over
 * real sockets on localhost, for tests and for examples that must run with
 * nothing else running. Not for production. */
typedef struct weir_kafka_mock weir_kafka_mock;

/* A cluster of `brokers` brokers (ids 1..brokers). 0 and *out, or a
 * negative WEIR_E* code with why. */
WEIR_EXPORT int weir_kafka_mock_create(int brokers, weir_kafka_mock **out, char *why,
                                       size_t whysize);
WEIR_EXPORT void weir_kafka_mock_destroy(weir_kafka_mock *m);
/* Its bootstrap servers, for weir_kafka_source_config.bootstrap_servers. */
WEIR_EXPORT const char *weir_kafka_mock_bootstrap(const weir_kafka_mock *m);
/* Creates `topic` with `partitions` partitions (replication 1). 0 or WEIR_EIO. */
WEIR_EXPORT int weir_kafka_mock_topic(weir_kafka_mock *m, const char *topic, int partitions);
/* Takes broker `id` down (its connections close, requests fail) or up. */
WEIR_EXPORT int weir_kafka_mock_broker_down(weir_kafka_mock *m, int id);
WEIR_EXPORT int weir_kafka_mock_broker_up(weir_kafka_mock *m, int id);
/* The cluster answers the next n requests of Kafka API `api_key` (the
 * protocol's numbers: 0 Produce, 1 Fetch, 2 ListOffsets, 3 Metadata, 8
 * OffsetCommit, 22 InitProducerId, 24 AddPartitionsToTxn, 26 EndTxn, ...)
 * with the Kafka error codes errors[0..n-1], in order, whichever broker
 * takes them (0 answers normally). For fault tests. 0 or WEIR_EINVAL. */
WEIR_EXPORT int weir_kafka_mock_request_errors(weir_kafka_mock *m, int api_key, int n,
                                               const int *errors);

#ifdef __cplusplus
}
#endif
#endif
