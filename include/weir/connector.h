/* weir/connector.h — connectors of SQL tables, registered by name: what
 * `CREATE TABLE t (...) WITH ('connector' = 'NAME', ...)` makes its source
 * and sink with (Flink's DynamicTableSourceFactory / DynamicTableSinkFactory,
 * found by their identifier). weir's own connectors go through this same
 * registry: datagen, print and blackhole come with libweir (registered by
 * the SQL layer itself); filesystem comes with libweir-file
 * (weir_file_register_connectors, weir/file_source.h) and kafka with
 * libweir-kafka, which a program links and registers only if it wants them.
 *
 * A factory's life with a table:
 *   CREATE TABLE   validate(): it reads its options (weir_connector_option)
 *                  and checks them against the table's schema, reporting
 *                  what is wrong at its place (weir_connector_fail); every
 *                  option no one read is refused as unknown. Its state (what
 *                  it parsed) stays with the table.
 *   a query reads the table     source(): the table's rows as a stream
 *   an INSERT writes the table  sink(): the stream of rows written
 *
 * Rows are the schema's rows (weir/row.h) unless the factory binds the
 * schema to a struct of its own (schema_begin and column: weir's generator
 * events). The SQL layer does the rest, the same for every connector: the
 * WATERMARK (a watermark operator after the source, unless the source runs
 * it itself: source_watermarked), the changelog mode
 * (weir_table_from_changelog_stream, an upsert table normalized), watermark
 * alignment, 'sink.parallelism', and which row kinds reach the sink.
 *
 * Threads: register before any SQL runs that uses the name (from one
 * thread, or several: the registry is locked); the callbacks run on the
 * thread running the SQL statements. */
#ifndef WEIR_CONNECTOR_H
#define WEIR_CONNECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/job.h"
#include "weir/row.h"
#include "weir/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The table a factory is making (valid during the callback only). */
typedef struct weir_connector_context weir_connector_context;

/* The table's name and its schema as declared (during validate: the schema
 * already built, columns, primary key and watermark included). */
WEIR_EXPORT const char *weir_connector_table(const weir_connector_context *c);
WEIR_EXPORT const weir_schema *weir_connector_schema(const weir_connector_context *c);
/* The value of WITH option `key`, or NULL when the table does not give it.
 * An option read here is known; one read by no one is refused. */
WEIR_EXPORT const char *weir_connector_option(weir_connector_context *c, const char *key);
/* The table's WITH options in their order: how many, and the i-th's key
 * (for a prefix such as Flink's 'properties.*': read each wanted one with
 * weir_connector_option). */
WEIR_EXPORT int weir_connector_option_count(const weir_connector_context *c);
WEIR_EXPORT const char *weir_connector_option_key(const weir_connector_context *c, int i);
/* Reports a problem: with option `key` ("option 'k'='v': what", at the
 * option's line and column) or, key NULL or not given, with the table (at
 * its name). Returns WEIR_EINVAL, which validate returns. */
WEIR_EXPORT int weir_connector_fail(weir_connector_context *c, const char *key,
                                    const char *fmt, ...) WEIR_PRINTF(3, 4);
/* `path` resolved against the folder relative paths are read from (`weir
 * sql FILE`: FILE's folder; a session's base_dir), into buf as snprintf
 * does. */
WEIR_EXPORT int weir_connector_path(const weir_connector_context *c, const char *path, char *buf,
                                    size_t size);
/* The columns of PARTITIONED BY (cols), in their order: how many, and the
 * i-th's index in the schema. */
WEIR_EXPORT int weir_connector_partition_key_count(const weir_connector_context *c);
WEIR_EXPORT int weir_connector_partition_key(const weir_connector_context *c, int i);
/* The table's metadata columns (`name TYPE METADATA [FROM 'key'] [VIRTUAL]`,
 * Flink's), in the schema's order: how many; the i-th's column index in the
 * schema, its key (FROM's, else the column's name) and whether it is
 * VIRTUAL (read only: an INSERT does not write it). Each was checked
 * against the factory's read_metadata before validate (its key known, its
 * type one the metadata's value goes into); a factory without
 * read_metadata never sees one. The source fills these columns itself;
 * they are not in the record's format. */
WEIR_EXPORT int weir_connector_metadata_count(const weir_connector_context *c);
WEIR_EXPORT int weir_connector_metadata_column(const weir_connector_context *c, int i);
WEIR_EXPORT const char *weir_connector_metadata_key(const weir_connector_context *c, int i);
WEIR_EXPORT bool weir_connector_metadata_virtual(const weir_connector_context *c, int i);
/* The parallelism the table's operators get (SET 'parallelism.default'). */
WEIR_EXPORT int weir_connector_parallelism(const weir_connector_context *c);
/* During validate: how the source's rows come (WEIR_CHANGELOG_INSERT_ONLY,
 * the default; WEIR_CHANGELOG_ALL: each row carries its kind;
 * WEIR_CHANGELOG_UPSERT: needs the table's PRIMARY KEY, and is normalized
 * at the source) and which kinds the sink takes (default: the factory's
 * sink_kinds). */
WEIR_EXPORT void weir_connector_set_source_mode(weir_connector_context *c, unsigned mode);
WEIR_EXPORT void weir_connector_set_sink_kinds(weir_connector_context *c, unsigned kinds);

/* Typed options, each read with weir_connector_option and, when it does not
 * parse, refused with weir_connector_fail in the house's words ("not an
 * integer in 1..256"): 0 (an absent option leaves *v as it is) or
 * WEIR_EINVAL. A duration is Flink's ('200 ms', '2 s', '1 min', '5'). */
WEIR_EXPORT int weir_connector_option_bool(weir_connector_context *c, const char *key, bool *v);
WEIR_EXPORT int weir_connector_option_int(weir_connector_context *c, const char *key, int64_t lo,
                                          int64_t hi, int64_t *v);
WEIR_EXPORT int weir_connector_option_double(weir_connector_context *c, const char *key,
                                             double lo, double hi, double *v);
WEIR_EXPORT int weir_connector_option_duration(weir_connector_context *c, const char *key,
                                               int64_t *ms);
/* One of the NULL-terminated `words`: its index into *v; another word is
 * refused ("expected 'a', 'b' or 'c'"). */
WEIR_EXPORT int weir_connector_option_choice(weir_connector_context *c, const char *key,
                                             const char *const *words, int *v);

/* A metadata key a connector reads or writes, and its type as SQL writes
 * it, Flink's: {"timestamp", "TIMESTAMP_LTZ(3) NOT NULL"}. A type weir
 * cannot parse (Flink's MAP<STRING, BYTES>) lists the key, and a column
 * asking for it is refused as not supported. */
typedef struct weir_connector_metadata {
    const char *key;
    const char *type;
} weir_connector_metadata;

#define WEIR_CONNECTOR_V1 1u
/* V2 adds the members after source_watermarks. A factory of V1 (a struct
 * that ends at source_watermarks, compiled against an older header) still
 * registers and works: the registry reads a member of V2 only from a
 * factory whose version says it has one. */
#define WEIR_CONNECTOR_V2 2u
/* V3 adds lookup, after write_metadata (read only from a factory of V3). */
#define WEIR_CONNECTOR_V3 3u

struct weir_lookup_source;

typedef struct weir_connector_factory {
    uint32_t version; /* WEIR_CONNECTOR_V2 (or V1: the members up to source_watermarks) */
    /* 'connector' = name: letters, digits, '-', '_', '.'; unique. */
    const char *name;
    /* The options it reads, as the unknown-option message lists them:
     * "'path', 'format', 'json.ignore-parse-errors'". */
    const char *options;
    /* Required. Reads and checks the options (above); *state (NULL at the
     * call; any pointer) goes to source/sink and to free_state. 0,
     * WEIR_EINVAL (after weir_connector_fail) or WEIR_ENOMEM. */
    int (*validate)(weir_connector_context *c, void **state);
    /* Optional. Frees a state when its table is dropped with its catalog. */
    void (*free_state)(void *state);
    /* Optional: the schema's first call (weir_schema_bind_struct) and each
     * column's (default weir_schema_column), for a factory whose rows are
     * structs of its own; called before validate, with the declared type. */
    int (*schema_begin)(weir_connector_context *c, weir_schema_builder *b);
    int (*column)(weir_connector_context *c, weir_schema_builder *b, const char *name,
                  weir_type type);
    /* A source (NULL: the connector cannot be read: "Connector 'x' can only
     * be used as a sink"): the table's rows, of `schema` (borrowed, it
     * outlives the job), as a new source of `job` named `name` (unique in
     * the job). NULL with the job's error set. */
    weir_stream *(*source)(void *state, const weir_schema *schema, weir_job *job,
                           const char *name);
    /* A sink (NULL: the connector cannot be written): writes `rows` (rows
     * of `schema`, of the kinds it takes), as an operator named `name` of
     * `parallelism` subtasks. Returns its stream, or NULL with the job's
     * error set. `schema` outlives the job. */
    weir_stream *(*sink)(void *state, const weir_schema *schema, weir_stream *rows,
                         const char *name, int parallelism);
    /* The row kinds its sink takes (WEIR_CHANGELOG_*; 0: insert-only). An
     * INSERT of a query that may make others is refused at plan time with
     * Flink's message. */
    unsigned sink_kinds;
    /* Its source emits watermarks of its own (per partition, as Kafka's), which
     * WATERMARK FOR col AS SOURCE_WATERMARK() takes; otherwise that is refused
     * with Flink's message. */
    bool source_watermarks;

    /* ---- WEIR_CONNECTOR_V2 -------------------------------------------------------- */

    /* Optional, beside source: a source that runs the table's WATERMARK
     * itself, once per partition, as Flink pushes the watermark into a
     * Kafka scan (SupportsWatermarkPushDown), so that a partition's late rows
     * are judged by its own watermark. A table with WATERMARK FOR col AS
     * expr is read with this instead of source(): `watermarks` (valid during
     * the call; its arg as long as `schema`) is the table's strategy,
     * weir_schema_watermark_strategy (weir/table.h) — the expression's
     * largest value, 'scan.watermark.emit.strategy', and
     * 'scan.watermark.idle-timeout' as the partition's idleness — and the
     * SQL layer adds no watermark operator after the source (EXPLAIN shows
     * TableSource(t, watermark=[...])). A table without a WATERMARK, or
     * with SOURCE_WATERMARK(), is read with source(). Its rows are rows of
     * the schema (a factory that binds a struct, schema_begin, cannot). */
    weir_stream *(*source_watermarked)(void *state, const weir_schema *schema, weir_job *job,
                                       const char *name,
                                       const weir_watermark_strategy *watermarks);
    /* The metadata its source reads and its sink writes (Flink's
     * SupportsReadingMetadata.listReadableMetadata and
     * SupportsWritingMetadata.listWritableMetadata), each an array ended by
     * a NULL key, in the order the refusals list them; NULL: none. A table
     * with metadata columns is refused at CREATE TABLE when its connector
     * reads none, or not its key, or a type its value does not go into
     * (weir_type_casts_implicitly: Flink takes any explicit cast), with
     * Flink's messages; an INSERT into a table with a column not VIRTUAL
     * whose key the sink does not write, likewise. */
    const weir_connector_metadata *read_metadata;
    const weir_connector_metadata *write_metadata;

    /* ---- WEIR_CONNECTOR_V3 -------------------------------------------------------- */

    /* Optional: the table can be the table of a lookup join (`JOIN t FOR
     * SYSTEM_TIME AS OF l.proc`, Flink's LookupTableSource with the FULL
     * cache; weir/table.h's weir_lookup_source), read whole. At plan time:
     * fills out's load, arg, arg_free and reload_ms (the SQL layer sets its
     * name and schema: `schema`, the table's physical columns); arg must
     * not need `state` (a job may outlive its catalog), so it is the
     * factory's own copy of what it reads, freed by arg_free. 0, or a
     * negative WEIR_E* code with the reason in err (a file that is not
     * there). A table whose connector has no lookup is refused as Flink
     * refuses it ("Processing-time temporal join is not supported yet."). */
    int (*lookup)(void *state, const weir_schema *schema, struct weir_lookup_source *out,
                  char *err, size_t errsize);
} weir_connector_factory;

/* Registers `f` (borrowed: it must outlive every use, e.g. a static). 0;
 * the same factory again: 0 (nothing changes); WEIR_EINVAL: no name, a bad
 * name, no validate, neither source nor sink, source_watermarked without
 * source, a version unknown, or the name taken by another factory;
 * WEIR_ENOMEM. */
WEIR_EXPORT int weir_connector_register(const weir_connector_factory *f);
/* The factory registered as `name`, or NULL. */
WEIR_EXPORT const weir_connector_factory *weir_connector_find(const char *name);
/* The registered names, sorted and separated by `sep` ("blackhole, datagen,
 * print"), into buf as snprintf does. */
WEIR_EXPORT int weir_connector_names(const char *sep, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
