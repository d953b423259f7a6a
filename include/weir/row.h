/* weir/row.h — the data model of tables: column types, schemas and rows.
 *
 * A table's rows are ordinary fixed-size stream elements (DESIGN.md, data
 * model): a header, then the columns at offsets the schema computes.
 *
 *     byte 0          the row kind (weir_row_kind: +I, -U, +U, -D)
 *     bytes 1..       one null bit per column (bit c%8 of byte 1 + c/8)
 *     (8-aligned)     the columns, each at its natural alignment:
 *                     BOOLEAN / TINYINT 1 byte, SMALLINT 2, INT / FLOAT /
 *                     DATE / TIME 4, BIGINT / DOUBLE / TIMESTAMP(p <= 3) 8,
 *                     TIMESTAMP(p > 3) 12 (8-aligned),
 *                     VARCHAR(n) / CHAR(n) / STRING: a uint32 length and n bytes
 *
 * The row size is a multiple of 8. A NULL column's bytes are zero and a
 * string's bytes past its length are zero, so that two equal rows are equal
 * bytes (the group aggregate compares results that way).
 *
 * Strings have a capacity: VARCHAR(n) and CHAR(n) hold at most n bytes;
 * STRING is VARCHAR with the schema's default capacity
 * (WEIR_STRING_DEFAULT_CAPACITY unless weir_schema_builder_string_capacity
 * says otherwise). A longer value is an error that names the table, the
 * column and the length — it is never cut. CHAR(n) pads with spaces to n.
 * DATE is an int32 of days since 1970-01-01, TIME(p) an int32 of
 * milliseconds of the day (Flink's TIME keeps milliseconds whatever its
 * precision). TIMESTAMP(p) and TIMESTAMP_LTZ(p) are an int64 of
 * milliseconds since 1970-01-01 00:00 (a local date-time for TIMESTAMP,
 * an instant, UTC, for TIMESTAMP_LTZ), and for p > 3 an int32 of the
 * nanoseconds within that millisecond after it (Flink's TimestampData).
 *
 * A schema is immutable once built and may be read from any thread. It is
 * made with a builder: columns by name and type, optionally bound to the
 * fields of the user's own C struct (offsetof), a primary key (NOT ENFORCED,
 * as Flink: weir trusts it), a rowtime column with its watermark, and the
 * record timestamp as a metadata column. Bad schemas are refused when the
 * schema is built, with the name of what is wrong.
 */
#ifndef WEIR_ROW_H
#define WEIR_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/time_zone.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flink's RowKind, in the same order (its toByteValue). */
typedef enum weir_row_kind {
    WEIR_ROW_INSERT = 0,        /* +I */
    WEIR_ROW_UPDATE_BEFORE = 1, /* -U */
    WEIR_ROW_UPDATE_AFTER = 2,  /* +U */
    WEIR_ROW_DELETE = 3         /* -D */
} weir_row_kind;

/* "+I", "-U", "+U", "-D" ("?" for anything else). */
WEIR_EXPORT const char *weir_row_kind_name(weir_row_kind kind);

typedef enum weir_type_id {
    WEIR_TYPE_NULL = 0, /* the type of a bare NULL literal only */
    WEIR_TYPE_BOOLEAN,
    WEIR_TYPE_INT,      /* 32-bit */
    WEIR_TYPE_BIGINT,   /* 64-bit */
    WEIR_TYPE_DOUBLE,
    WEIR_TYPE_VARCHAR,  /* also STRING (capacity: the default) */
    WEIR_TYPE_CHAR,     /* padded with spaces to its capacity */
    WEIR_TYPE_TIMESTAMP,     /* TIMESTAMP(3): int64 ms */
    WEIR_TYPE_TIMESTAMP_LTZ, /* TIMESTAMP_LTZ(3): int64 ms, UTC */
    WEIR_TYPE_INTERVAL,      /* INTERVAL ... (expressions only): int64 ms */
    WEIR_TYPE_TINYINT,       /* 8-bit */
    WEIR_TYPE_SMALLINT,      /* 16-bit */
    WEIR_TYPE_FLOAT,         /* 32-bit IEEE 754 (also REAL) */
    WEIR_TYPE_DATE,          /* days since 1970-01-01 */
    WEIR_TYPE_TIME,          /* TIME(p): milliseconds of the day */
    WEIR_TYPE_INTERVAL_YM,   /* INTERVAL ... YEAR TO MONTH (expressions only): months */
    WEIR_TYPE_DECIMAL,       /* DECIMAL(p, s): the value times 10^s, an integer */
    WEIR_TYPE_VARBINARY,     /* VARBINARY(n), also BYTES (capacity: the default) */
    WEIR_TYPE_BINARY,        /* BINARY(n): padded with zero bytes to n */
    WEIR_TYPE_ROW,           /* ROW<name type, ...>: its fields inline */
    WEIR_TYPE_ARRAY,         /* ARRAY<type>: a count and `capacity` elements inline */
    WEIR_TYPE_MAP            /* MAP<key type, value type>: a count and `capacity` entries */
} weir_type_id;

/* A column's type. capacity: strings' and binary strings' (0 for STRING
 * and BYTES means the default). A nested type (ROW, ARRAY, MAP) is
 * described once, process-wide, and its capacity is that description's
 * number (weir_type_parse makes one from text; equal descriptions get the
 * same number, so two such types are the same when their capacities are);
 * read it with weir_type_format and the weir_type_nested_* calls.
 * precision: DECIMAL's digits (1..38), or the digits of a second's fraction
 * of TIME, TIMESTAMP and TIMESTAMP_LTZ (0..9), where 0 is the type's
 * default (DECIMAL 10, TIME 0, TIMESTAMP and TIMESTAMP_LTZ 3: {.id =
 * WEIR_TYPE_TIMESTAMP} is TIMESTAMP(3), as it always was) and
 * WEIR_PRECISION_ZERO asks for 0 (TIMESTAMP(0)); weir_type_precision reads
 * it. scale: DECIMAL's digits after the point (0..precision). Nullable
 * unless not_null. */
typedef struct weir_type {
    weir_type_id id;
    uint32_t capacity;
    bool not_null;
    uint8_t precision;
    uint8_t scale;
} weir_type;

#define WEIR_PRECISION_ZERO 0xFF

/* A type's precision, its default resolved (0 for types without one). */
static inline int weir_type_precision(weir_type t)
{
    if (t.precision == WEIR_PRECISION_ZERO)
        return 0;
    if (t.precision)
        return t.precision;
    return t.id == WEIR_TYPE_TIMESTAMP || t.id == WEIR_TYPE_TIMESTAMP_LTZ ? 3
           : t.id == WEIR_TYPE_DECIMAL                                   ? 10
                                                                         : 0;
}

/* The default capacity of STRING and BYTES (weir_schema_builder_string_capacity). */
#define WEIR_STRING_DEFAULT_CAPACITY 64u
/* The default capacity of ARRAY and MAP: the most elements (entries) a
 * value holds (weir_schema_builder_collection_capacity). */
#define WEIR_COLLECTION_DEFAULT_CAPACITY 16u
#define WEIR_COLLECTION_MAX_CAPACITY 4096u
/* The largest string capacity and row size a schema accepts. */
#define WEIR_STRING_MAX_CAPACITY 65000u
#define WEIR_ROW_MAX_SIZE 65536u

/* Parses a type as SQL writes it: BOOLEAN, TINYINT, SMALLINT, INT / INTEGER,
 * BIGINT, FLOAT / REAL, DOUBLE [PRECISION], VARCHAR(n), CHAR(n), STRING,
 * DATE, TIME[(p)], TIMESTAMP[(p)] [WITHOUT TIME ZONE] (bare: Flink's
 * TIMESTAMP(6)), TIMESTAMP_LTZ[(p)] / TIMESTAMP[(p)] WITH LOCAL TIME ZONE,
 * ROW<name type, ...> (also ROW(name type, ...), a name bare or `quoted`),
 * ARRAY<type>, MAP<key type, value type>, nested in each other,
 * each optionally followed by NOT NULL (case-insensitive). STRING gets
 * capacity 0 (the schema's default), as do an ARRAY's and a MAP's element
 * counts (weir_schema_builder_collection_capacity). 0, or WEIR_EINVAL with
 * why in err. */
WEIR_EXPORT int weir_type_parse(const char *text, weir_type *out, char *err, size_t errsize);

/* Writes the type as SQL does ("VARCHAR(20) NOT NULL"); returns its length. */
WEIR_EXPORT int weir_type_format(weir_type type, char *buf, size_t size);
/* Whether a value of type `from` goes into a column of type `to` without a
 * CAST written, as Flink casts implicitly into a sink (LogicalTypeCasts):
 * the same type, an integer into a wider integer (TINYINT < SMALLINT < INT
 * < BIGINT), an integer into a FLOAT, any number into a DOUBLE, a string
 * into a string, TIMESTAMP and TIMESTAMP_LTZ into each other, the type of
 * a bare NULL into anything. Nullability aside. */
WEIR_EXPORT bool weir_type_casts_implicitly(weir_type from, weir_type to);
/* The type values of types a and b have in common, as Flink finds it
 * (LogicalTypeMerging.findCommonType): a NULL's type takes the other's;
 * numbers widen (a DOUBLE if either is, else a FLOAT if either is, else
 * the wider integer); strings of different types or lengths make a
 * VARCHAR of the longest; TIMESTAMP and TIMESTAMP_LTZ make a TIMESTAMP_LTZ;
 * other types must be the same. Nullable if either is. true and *out, or
 * false when there is none. */
WEIR_EXPORT bool weir_type_common(weir_type a, weir_type b, weir_type *out);

/* ---- schemas -------------------------------------------------------------- */

typedef struct weir_schema weir_schema;
typedef struct weir_schema_builder weir_schema_builder;

/* A builder for the schema of table `table_name` (copied). NULL on out of
 * memory. Every call below records the first problem in the builder and
 * returns its code; weir_schema_build reports it. Not MT safe. */
WEIR_EXPORT weir_schema_builder *weir_schema_builder_create(const char *table_name);

/* The capacity of STRING columns (> 0); before the columns that use it. */
WEIR_EXPORT int weir_schema_builder_string_capacity(weir_schema_builder *b, uint32_t capacity);

/* The capacity of ARRAY and MAP columns (and of those nested in a
 * column): the most elements (entries) a value holds, 1..
 * WEIR_COLLECTION_MAX_CAPACITY; before the columns that use it. A longer
 * value is an error naming the table and the column, never cut. */
WEIR_EXPORT int weir_schema_builder_collection_capacity(weir_schema_builder *b,
                                                        uint32_t capacity);

/* A column of `type` in weir's row layout (offset computed). */
WEIR_EXPORT int weir_schema_column(weir_schema_builder *b, const char *name, weir_type type);
/* The same, with the type as text ("VARCHAR(20) NOT NULL"). */
WEIR_EXPORT int weir_schema_column_sql(weir_schema_builder *b, const char *name,
                                       const char *type);

/* Binds the schema to the user's own C struct of `struct_size` bytes: the
 * stream's elements are those structs, and every column is read from the
 * field at its offset (weir_schema_column_at). A bound schema's columns are
 * all bound; weir_table_from_stream converts each element into a row. */
WEIR_EXPORT int weir_schema_bind_struct(weir_schema_builder *b, size_t struct_size);

/* A column read from the bound struct's field at `offset` (offsetof):
 * BOOLEAN a bool, TINYINT an int8_t, SMALLINT an int16_t, INT an int32_t,
 * BIGINT / TIMESTAMP(p <= 3) an int64_t, FLOAT a float, DOUBLE a double,
 * DATE / TIME an int32_t, TIMESTAMP(p > 3) a struct { int64_t ms; int32_t
 * nanos; }, VARCHAR(n) / CHAR(n) / STRING a char array of `field_size` bytes
 * holding a NUL-terminated (or full-length) string. A struct field is never
 * NULL. */
WEIR_EXPORT int weir_schema_column_at(weir_schema_builder *b, const char *name, weir_type type,
                                      size_t offset, size_t field_size);

/* For a bound struct that is a changelog element: the offset of its uint8_t
 * row kind field (weir_row_kind values). */
WEIR_EXPORT int weir_schema_kind_at(weir_schema_builder *b, size_t offset);

/* ---- a struct described once ---------------------------------------------
 * A C program describes its struct once, as an array of fields, and gets a
 * bound schema from it: the same description reads the structs into a
 * table (weir_table_from_stream) and writes a table's rows into them
 * (weir_table_to_stream_as), as Flink derives both from a POJO's class.
 *
 *     typedef struct click { int64_t user; char page[16]; int64_t ts; } click;
 *     static const weir_struct_field click_fields[] = {
 *         WEIR_STRUCT_FIELD(click, user, "BIGINT"),
 *         WEIR_STRUCT_FIELD(click, page, "STRING"),        (VARCHAR(16): the array)
 *         WEIR_STRUCT_FIELD(click, ts, "TIMESTAMP(3)"),
 *     };
 *     weir_schema *s;
 *     weir_schema_from_struct("clicks", sizeof(click), click_fields, 3, &s, err, sizeof err);
 *
 * Each field is a column named as the member, of the SQL type given
 * (weir_type_parse's text), read from and written to the member as
 * weir_schema_column_at says; STRING on a char array means VARCHAR of the
 * array's size (a string that fills it has no NUL). WEIR_STRUCT_KIND marks
 * the uint8_t member that holds a changelog element's row kind
 * (weir_schema_kind_at) instead of a column. The description is read during
 * the call only. */
typedef struct weir_struct_field {
    const char *name;   /* the column's name */
    const char *type;   /* its SQL type ("BIGINT NOT NULL", "VARCHAR(8)"); NULL for the kind */
    size_t offset;      /* offsetof(struct, member) */
    size_t size;        /* sizeof the member */
    bool row_kind;      /* the member is the row kind, not a column */
} weir_struct_field;

#define WEIR_STRUCT_FIELD(T, member, sql_type)                                        \
    { #member, (sql_type), offsetof(T, member), sizeof(((T *)0)->member), false }
#define WEIR_STRUCT_KIND(T, member)                                                   \
    { #member, NULL, offsetof(T, member), sizeof(((T *)0)->member), true }

/* Binds the builder to a struct of `struct_size` bytes and adds a column for
 * each of the n fields (weir_schema_bind_struct, then weir_schema_column_at
 * or weir_schema_kind_at for each): on a new builder, before anything else;
 * a primary key, a watermark or the rowtime metadata column may follow. A
 * bad field is the builder's error, naming it ("column 'page': ..."). */
WEIR_EXPORT int weir_schema_bind_fields(weir_schema_builder *b, size_t struct_size,
                                        const weir_struct_field *fields, size_t n);

/* The schema of table `table_name` bound to the struct the n fields describe,
 * in one call (weir_schema_builder_create, weir_schema_bind_fields,
 * weir_schema_build): 0 and *out (free with weir_schema_destroy), or the
 * problem's code with the message in err ("table clicks: column 'page':
 * ..."). */
WEIR_EXPORT int weir_schema_from_struct(const char *table_name, size_t struct_size,
                                        const weir_struct_field *fields, size_t n,
                                        weir_schema **out, char *err, size_t errsize);

/* PRIMARY KEY (columns) NOT ENFORCED: a comma-separated list of columns,
 * each bare or `quoted` (then it may hold spaces or commas). */
WEIR_EXPORT int weir_schema_primary_key(weir_schema_builder *b, const char *columns);

/* WATERMARK FOR column AS expression: `column` becomes the rowtime (it must
 * be TIMESTAMP or TIMESTAMP_LTZ) and `expression` is either
 * "SOURCE_WATERMARK()" (the stream's own watermarks pass through) or an
 * expression of the row ("ts - INTERVAL '5' SECOND"), checked when the
 * table is made from a stream: the watermark is the largest value of it
 * seen so far (SEMANTICS.md 9). */
/* `column` NULL: the rowtime is a column computed after the source (a
 * computed column, weir_table_computed_columns, whose expression the
 * caller has put into `expression` in place of the column's name); the
 * expression over the source's rows then runs in the source
 * (weir_schema_watermark_in_source, required), as Flink pushes a computed
 * rowtime's watermark into a scan. */
WEIR_EXPORT int weir_schema_watermark(weir_schema_builder *b, const char *column,
                                      const char *expression);

/* How a watermark expression's watermark is emitted (Flink's table options
 * 'scan.watermark.emit.strategy' and 'scan.watermark.idle-timeout'):
 * on_event false: periodically, every watermark interval of the job (the
 * default, 'on-periodic'); true: after every row that raises it
 * ('on-event'). idle_timeout_ms > 0: the table's source marks itself idle
 * after that long (processing time) without rows, so that a quiet partition
 * holds no merged watermark back (SEMANTICS.md 2); 0: never. Only with an
 * expression: SOURCE_WATERMARK() keeps what the stream's own strategy does,
 * and asking for these with it (or with no watermark) is a build error. */
WEIR_EXPORT int weir_schema_watermark_emit(weir_schema_builder *b, bool on_event,
                                           int64_t idle_timeout_ms);

/* The watermark expression runs in the source that reads the table, once
 * per partition (Flink's watermark push-down into the scan): the source is
 * made with weir_schema_watermark_strategy's strategy (weir/table.h; a
 * Kafka source's `watermarks`) and a table made from its stream adds no
 * watermark operator after it, so that a partition's late rows are judged
 * by its own watermark, not by the largest row of every partition the
 * subtask reads. With a watermark expression (not SOURCE_WATERMARK(), the
 * stream's own) on a schema not bound to a struct; otherwise a build
 * error. */
WEIR_EXPORT int weir_schema_watermark_in_source(weir_schema_builder *b);

/* `column` (a TIMESTAMP_LTZ(3) column) is the table's processing-time
 * attribute (Flink's `proc AS PROCTIME()`, TIMESTAMP_LTZ(3) *PROCTIME*):
 * a time attribute processing-time windows can use, whose value is the job
 * clock when the row was read (weir_table_computed_columns computes it).
 * It cannot be the rowtime: "A watermark can not be defined for a
 * processing-time attribute." */
WEIR_EXPORT int weir_schema_proctime_attribute(weir_schema_builder *b, const char *column);

/* `name` TIMESTAMP_LTZ(3) METADATA FROM 'rowtime': a column (appended)
 * whose value is the record's timestamp, NULL for a record without one. */
WEIR_EXPORT int weir_schema_rowtime_metadata(weir_schema_builder *b, const char *name);

/* Checks and builds the schema, and frees the builder (in every case).
 * 0 and *out (free with weir_schema_destroy), or the first problem's code
 * with the message in err ("table orders: duplicate column 'id'"). */
WEIR_EXPORT int weir_schema_build(weir_schema_builder *b, weir_schema **out, char *err,
                                  size_t errsize);

/* Frees the builder without building (NULL allowed). */
WEIR_EXPORT void weir_schema_builder_destroy(weir_schema_builder *b);
WEIR_EXPORT void weir_schema_destroy(weir_schema *s);

/* Reading a schema (MT safe). */
WEIR_EXPORT const char *weir_schema_name(const weir_schema *s);
WEIR_EXPORT int weir_schema_ncolumns(const weir_schema *s);
WEIR_EXPORT const char *weir_schema_column_name(const weir_schema *s, int col);
WEIR_EXPORT weir_type weir_schema_column_type(const weir_schema *s, int col);
/* The column's index, or -1. Names are case-sensitive, as Flink's. */
WEIR_EXPORT int weir_schema_column_index(const weir_schema *s, const char *name);
/* The size of a row of this schema (the element size of a table's stream). */
WEIR_EXPORT size_t weir_schema_row_size(const weir_schema *s);
/* The element size of the stream the schema reads (the bound struct's size,
 * else the row size). */
WEIR_EXPORT size_t weir_schema_elem_size(const weir_schema *s);
/* The processing-time attribute (weir_schema_proctime_attribute; -1:
 * none). */
WEIR_EXPORT int weir_schema_proctime(const weir_schema *s);
/* The rowtime column (-1: none). */
WEIR_EXPORT int weir_schema_rowtime(const weir_schema *s);
/* Primary key columns: their count, and the i-th column index. */
WEIR_EXPORT int weir_schema_primary_key_count(const weir_schema *s);
WEIR_EXPORT int weir_schema_primary_key_column(const weir_schema *s, int i);
/* "(id BIGINT NOT NULL, name VARCHAR(20), ...)"; returns its length. */
WEIR_EXPORT int weir_schema_format(const weir_schema *s, char *buf, size_t size);

/* ---- rows ------------------------------------------------------------------
 * Accessors for rows of a schema (not of a bound struct). They check the
 * column's index but not its type beyond what is said; MT safe on different
 * rows. */

/* Zero-fills a row and sets its kind. */
WEIR_EXPORT void weir_row_init(const weir_schema *s, void *row, weir_row_kind kind);

static inline weir_row_kind weir_row_get_kind(const void *row)
{
    return (weir_row_kind)(*(const unsigned char *)row & 3u);
}

static inline void weir_row_set_kind(void *row, weir_row_kind kind)
{
    *(unsigned char *)row = (unsigned char)kind;
}

WEIR_EXPORT bool weir_row_is_null(const weir_schema *s, const void *row, int col);
/* TINYINT, SMALLINT, INT, BIGINT, DATE (days since 1970-01-01), TIME
 * (milliseconds of the day), TIMESTAMP, TIMESTAMP_LTZ (milliseconds since
 * the epoch) (0 if NULL). */
WEIR_EXPORT int64_t weir_row_get_int(const weir_schema *s, const void *row, int col);
/* A DECIMAL(p, s) column: its unscaled value (the value times 10^s) as a
 * 128-bit two's complement integer, its low 64 bits returned and its high
 * 64 in *hi (may be NULL; for p <= 18 the returned value is all of it and
 * *hi its sign) (0 if NULL). */
WEIR_EXPORT int64_t weir_row_get_decimal(const weir_schema *s, const void *row, int col,
                                         int64_t *hi);
/* A TIMESTAMP(p) or TIMESTAMP_LTZ(p) column: the nanoseconds within its
 * millisecond (0..999999; 0 for p <= 3, or NULL). */
WEIR_EXPORT int32_t weir_row_get_nanos(const weir_schema *s, const void *row, int col);
/* DOUBLE, FLOAT (its value, exactly) (0 if NULL). */
WEIR_EXPORT double weir_row_get_double(const weir_schema *s, const void *row, int col);
WEIR_EXPORT bool weir_row_get_bool(const weir_schema *s, const void *row, int col);
/* A string or binary string column: its bytes (not NUL-terminated) and
 * *len. weir_row_set_string sets either (a BINARY(n) padded with zero
 * bytes). */
WEIR_EXPORT const char *weir_row_get_string(const weir_schema *s, const void *row, int col,
                                            uint32_t *len);

/* Setters return 0, WEIR_EINVAL (no such column, or the wrong type, or
 * NULL into a NOT NULL column) or WEIR_ERANGE (a string longer than the
 * column's capacity, or an integer outside its type's range). A FLOAT
 * column takes weir_row_set_double's value rounded to the nearest float. */
WEIR_EXPORT int weir_row_set_null(const weir_schema *s, void *row, int col);
WEIR_EXPORT int weir_row_set_int(const weir_schema *s, void *row, int col, int64_t v);
WEIR_EXPORT int weir_row_set_double(const weir_schema *s, void *row, int col, double v);
WEIR_EXPORT int weir_row_set_bool(const weir_schema *s, void *row, int col, bool v);
WEIR_EXPORT int weir_row_set_string(const weir_schema *s, void *row, int col, const char *str,
                                    size_t len);
/* A DECIMAL(p, s): the unscaled value's low and high 64 bits (for p <= 18,
 * hi is lo's sign: 0 or -1); WEIR_ERANGE for more than p digits. */
WEIR_EXPORT int weir_row_set_decimal(const weir_schema *s, void *row, int col, int64_t lo,
                                     int64_t hi);
/* A TIMESTAMP(p) or TIMESTAMP_LTZ(p): milliseconds since the epoch and the
 * nanoseconds within the millisecond (0..999999; 0 unless p > 3:
 * WEIR_ERANGE). weir_row_set_int sets the milliseconds alone. */
WEIR_EXPORT int weir_row_set_timestamp(const weir_schema *s, void *row, int col, int64_t ms,
                                       int32_t nanos);

/* Writes the row as Flink's Row.toString() does: "+I[Alice, 12]" (NULL as
 * "null", BOOLEAN true/false, TIMESTAMP as 2024-01-01 00:00:10.000, DOUBLE
 * and FLOAT as Java's Double.toString and Float.toString: the shortest text
 * that reads back, ".0" when integral, 1.0E7 from 10^7). Returns the
 * length (like snprintf). */
WEIR_EXPORT int weir_row_format(const weir_schema *s, const void *row, char *buf, size_t size);

/* How a row's values are written: as Flink's SQL client shows results
 * (weir_row_format), or as Flink's print connector writes them (TIMESTAMP
 * as Java's LocalDateTime.toString, 2024-01-01T00:00:01.500, the seconds
 * and millis only when not zero; TIMESTAMP_LTZ as Instant.toString,
 * 2024-01-01T00:00:01.500Z). */
typedef enum weir_row_style {
    WEIR_ROW_STYLE_SQL = 0,
    WEIR_ROW_STYLE_PRINT_CONNECTOR
} weir_row_style;
WEIR_EXPORT int weir_row_format_style(const weir_schema *s, const void *row, weir_row_style style,
                                      char *buf, size_t size);
/* weir_row_format_style with the SQL style's TIMESTAMP_LTZ values shown in
 * `zone` (NULL: UTC), as Flink's SQL client shows them in the session's
 * 'table.local-time-zone' (the print connector's Instant.toString is UTC
 * whatever the zone). */
WEIR_EXPORT int weir_row_format_zoned(const weir_schema *s, const void *row,
                                      weir_row_style style, const weir_time_zone *zone,
                                      char *buf, size_t size);

/* Column col's value alone, as weir_row_format_zoned writes it in the SQL
 * style ("null" for NULL): a cell of a table of results. Into buf as
 * snprintf does (the length the whole text needs); -1 for a column out of
 * range. */
WEIR_EXPORT int weir_row_format_column(const weir_schema *s, const void *row, int col,
                                       const weir_time_zone *zone, char *buf, size_t size);

/* A row as Flink's 'json' format writes it — one object {"column": value,
 * ...}, NULL as null, TIMESTAMP as "2024-01-01 00:00:10.000", a DOUBLE's
 * shortest exact text (NaN and infinities as null) — or as its 'csv' format
 * does (RFC 4180, no header; NULL empty; a field quoted when it holds the
 * delimiter (0: ','), a quote or a line end). No line end. Into buf as
 * snprintf does: the length the whole text needs (buf NUL-terminated when
 * size > 0), or -1. */
WEIR_EXPORT int weir_row_write_json(const weir_schema *s, const void *row, char *buf,
                                    size_t size);
WEIR_EXPORT int weir_row_write_csv(const weir_schema *s, const void *row, char delimiter,
                                   char *buf, size_t size);
/* JSON, or CSV, of the n columns cols[] only, in that order (a record's
 * key: its primary key's columns; a Kafka record's value without its
 * metadata columns; a partitioned file's line: the columns that are not
 * partition columns); -1 for a column out of range. */
WEIR_EXPORT int weir_row_write_json_columns(const weir_schema *s, const void *row,
                                            const int *cols, int n, char *buf, size_t size);
WEIR_EXPORT int weir_row_write_csv_columns(const weir_schema *s, const void *row,
                                           const int *cols, int n, char delimiter, char *buf,
                                           size_t size);

/* Formats a TIMESTAMP(3) value: "2024-01-01 00:00:10.000" (UTC). */
WEIR_EXPORT int weir_timestamp_format(int64_t ms, char *buf, size_t size);
/* Parses a TIMESTAMP as SQL and Flink's JSON format write it: "YYYY-MM-DD",
 * "YYYY-MM-DD HH:MM:SS" or with a fraction (".f" to nine digits, kept to the
 * millisecond), a 'T' allowed for the space; UTC. 0 and *ms, or
 * WEIR_EFORMAT. */
WEIR_EXPORT int weir_timestamp_parse(const char *text, size_t len, int64_t *ms);

/* Sets column `col` from its text (a CSV field, a JSON string): the bytes
 * of a string column as they are; "true"/"false" (any case) for BOOLEAN; a
 * decimal integer for TINYINT, SMALLINT, INT and BIGINT; a number as strtod
 * reads it for DOUBLE (strtof: FLOAT); yyyy-MM-dd for DATE; HH:mm:ss[.f]
 * for TIME; weir_timestamp_parse's forms for TIMESTAMP (the fraction to
 * nine digits, cut to the column's precision); base64 (RFC 4648, padded)
 * for VARBINARY and BINARY; the JSON text of the value for ROW (an object,
 * its fields by name), ARRAY (an array) and MAP (an object) as
 * weir_row_set_json reads it. 0, WEIR_EFORMAT (not
 * a value of the type), WEIR_ERANGE (too long for the column's capacity, or
 * out of the integer type's range) or WEIR_EINVAL (no such column). */
WEIR_EXPORT int weir_row_set_text(const weir_schema *s, void *row, int col, const char *text,
                                  size_t len);
/* Sets column `col` from the JSON text of its value, as Flink's json format
 * reads a field: null for NULL; a ROW from an object (its fields by name,
 * a missing one NULL), an ARRAY from an array, a MAP from an object (its
 * keys read as the key type's text), nested as deep as the type; a scalar
 * as the json format reads it (a string for strings, dates, times and
 * base64 bytes; a number or a string for numbers). 0, or WEIR_EFORMAT /
 * WEIR_ERANGE (an array or map of more elements than its capacity, a
 * string longer than its) / WEIR_EINVAL with what is wrong, and where in
 * the value ("field b: ..."), in why (if whysize > 0). */
WEIR_EXPORT int weir_row_set_json(const weir_schema *s, void *row, int col, const char *json,
                                  size_t len, char *why, size_t whysize);

/* Field `field` of the ROW column `col` (which becomes not NULL): an
 * integer for a field of an integer type, DATE, TIME or TIMESTAMP(p <= 3)
 * / TIMESTAMP_LTZ(p <= 3) (ms), a string's bytes for a string field (a
 * CHAR padded), NULL. For a source that fills nested rows fast (the
 * nexmark connector). 0, WEIR_EINVAL (no such ROW column or field, or a
 * field of another type) or WEIR_ERANGE (a string longer than the field's
 * capacity, an integer out of its type's range: nothing written). */
WEIR_EXPORT int weir_row_set_field_int(const weir_schema *s, void *row, int col, int field,
                                       int64_t x);
WEIR_EXPORT int weir_row_set_field_string(const weir_schema *s, void *row, int col, int field,
                                          const char *str, size_t len);
WEIR_EXPORT int weir_row_set_field_null(const weir_schema *s, void *row, int col, int field);

/* A nested type's parts: a ROW's number of fields, an ARRAY's and a MAP's
 * capacity (0 for another type); field i's name (NULL out of range) and
 * the type of a ROW's field i, an ARRAY's element (i = 0), a MAP's key
 * (0) and value (1) (a type of id WEIR_TYPE_NULL out of range). MT safe. */
WEIR_EXPORT int weir_type_nested_count(weir_type t);
WEIR_EXPORT const char *weir_type_nested_name(weir_type t, int i);
WEIR_EXPORT weir_type weir_type_nested_type(weir_type t, int i);

#ifdef __cplusplus
}
#endif
#endif
