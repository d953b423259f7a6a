/* kafka_markers.h — the records weir's Kafka sink writes for its readers
 * besides the user's, and their wire format, defined once for the sink that
 * writes them and the source that reads them (docs/SCALING.md, KAFKA.md).
 *
 * A watermark marker (the sink's `watermarks`, read by the source's
 * inband_watermarks): a record with no key and no value, header
 * WEIR__KAFKA_MARKER_HEADER holding "<writer> <writers> <kind> <watermark>",
 * decimal, single spaces: the writing subtask, how many subtasks write the
 * topic, the kind (W watermark, I idle, A active, E end of input) and the
 * watermark (the writer's current one for I and A, MAX for E).
 *
 * A commit marker (the exactly-once sink): the last record of a
 * checkpoint's transaction in partition 0, key "weir-txn:<transactional
 * id>", the checkpoint's id as value, header WEIR__KAFKA_TXN_HEADER. Readers
 * skip it. Private to operators/. */
#ifndef WEIR_CONNECTORS_KAFKA_KAFKA_MARKERS_H
#define WEIR_CONNECTORS_KAFKA_KAFKA_MARKERS_H

#include <stddef.h>
#include <stdint.h>

#define WEIR__KAFKA_MARKER_HEADER "weir-wm"
#define WEIR__KAFKA_TXN_HEADER "weir-txn"
#define WEIR__KAFKA_TXN_KEY_PREFIX "weir-txn:"
/* The most writers a marker may name (a larger count is not a marker). */
#define WEIR__KAFKA_MAX_WRITERS 65536
/* Room for any marker's text, with its NUL. */
#define WEIR__KAFKA_MARKER_MAX 96

typedef enum weir__kafka_mark {
    WEIR__KAFKA_MARK_WATERMARK = 'W',
    WEIR__KAFKA_MARK_IDLE = 'I',
    WEIR__KAFKA_MARK_ACTIVE = 'A',
    WEIR__KAFKA_MARK_END = 'E'
} weir__kafka_mark;

typedef struct weir__kafka_marker {
    int writer, writers;
    weir__kafka_mark kind;
    int64_t watermark;
} weir__kafka_marker;

/* The marker's text into buf (WEIR__KAFKA_MARKER_MAX bytes); its length. */
int weir__kafka_marker_format(const weir__kafka_marker *m, char *buf, size_t size);

/* Reads a marker's text (len bytes, not NUL-terminated): 0 and *m, or
 * WEIR_EFORMAT when it is not a well-formed marker (writer out of 0 ..
 * writers-1, writers out of 1 .. WEIR__KAFKA_MAX_WRITERS, an unknown kind,
 * anything more). */
int weir__kafka_marker_parse(const void *text, size_t len, weir__kafka_marker *m);

#endif
