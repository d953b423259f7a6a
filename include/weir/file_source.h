/* weir/file_source.h — a source of rows read from files: JSON lines or CSV,
 * as Flink's filesystem connector reads them (weir's SQL uses it for
 * 'connector'='filesystem'; a C program may too, with weir/table.h).
 *
 * `path` is a file, or a folder whose files, and those of its folders
 * (Hive-style dt=2024-01-01/ ones, to any depth), are each one partition,
 * as Flink's filesystem source reads a path: the source has one subtask per
 * file, in path order, and reads it from the first line to the last. A
 * file or folder whose name starts with '.' or '_' is hidden, with all that
 * is under it (_SUCCESS, .part-0.inprogress, _temporary/); so is what is
 * neither a regular file nor a folder; a symbolic link loop is refused.
 * A UTF-8 byte order mark at the start of a file is skipped.
 *
 * JSON: one object per line, fields by column name; a missing field or
 * null is NULL; numbers for INT, BIGINT and DOUBLE, true/false for BOOLEAN,
 * strings for VARCHAR, CHAR, TIMESTAMP ('YYYY-MM-DD HH:MM:SS[.fff]') and
 * TIMESTAMP_LTZ (UTC, as Flink's json format writes it: 'YYYY-MM-DD
 * HH:MM:SS[.fff]Z', or with a 'T' for the space; also without the Z). A
 * number for a timestamp (epoch milliseconds) is refused, as Flink does.
 * Fields the schema does not name are ignored; blank lines are skipped.
 * CSV (RFC 4180, by libcsv): fields by position, one per column; a quoted
 * field may hold the delimiter, quotes ("") and line breaks; an empty
 * unquoted field is NULL ("" is an empty string); values as
 * weir_row_set_text reads them.
 *
 * A line that is not one of these (malformed JSON, a field of the wrong
 * type, a string longer than its column, the wrong number of CSV fields,
 * NULL in a NOT NULL column) fails the job with "FILE:LINE: what", unless
 * ignore_parse_errors: then it is skipped and counted as filtered in the
 * source's diagnostics.
 *
 * A line (without its line break), and a CSV row over several lines, is
 * at most 1 MiB: a longer one fails the job with "FILE:LINE: a line longer
 * than 1048576 bytes" as soon as that much of it was read, whatever
 * ignore_parse_errors says, so a subtask holds at most that and a 16 KiB
 * read-ahead (input that never ends a line stops there too). Running out of
 * memory fails the job; it is never taken for the end of a file.
 *
 * The path (or a file of the folder) may be a FIFO or a pipe: it is read
 * until its last writer closes it. Opening it does not wait for a writer,
 * and while there is nothing to read the subtask waits in short turns
 * (weir_source_wait_fd) that cancelling the job ends at once. Such input
 * cannot seek, so a job with checkpoints restores it only from its start.
 *
 * Provided by libweir-file (jansson, libcsv), not by libweir: link
 * `pkg-config --cflags --libs weir-file` (weir-file-static: the archives
 * libweir-file.a and libweir.a) or CMake's weir::weir-file
 * (weir::weir-file-static), from find_package(weir). weir.h includes this
 * header too; a program that calls none of its functions links libweir
 * alone.
 */
#ifndef WEIR_FILE_SOURCE_H
#define WEIR_FILE_SOURCE_H

#include <stdbool.h>

#include "weir/export.h"
#include "weir/job.h"
#include "weir/row.h"
#include "weir/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum weir_file_format {
    WEIR_FILE_JSON = 1,
    WEIR_FILE_CSV
} weir_file_format;

typedef struct weir_file_source_config {
    const char *name; /* the operator's name; NULL: "file_source". Copied. */
    const char *path; /* a file or a folder (above). Copied. */
    weir_file_format format;
    bool ignore_parse_errors;
    char csv_field_delimiter; /* 0: ',' */
    /* A changelog file: the JSON field (or, in CSV, an extra first field)
     * holding each row's kind: +I, -U, +U, -D (or INSERT, UPDATE_BEFORE,
     * UPDATE_AFTER, DELETE). NULL: every row is +I. Copied. */
    const char *kind_field;
    /* > 0: rows paced by their rowtime, `speed` times real time (a row
     * whose rowtime is t comes (t - the first row's) / speed ms after the
     * first; the job's clock, so a virtual clock jumps there). Needs a
     * schema with a rowtime. 0: as fast as they are read. */
    double speed;
    /* A partitioned table's files (Flink's PARTITIONED BY; the file sink's
     * buckets): npartition_columns (at most 64) indexes into the schema,
     * each once (copied), the columns whose values come from the file's
     * path rather than its lines. A folder of the path named K=V (split at
     * its last '=' that has something after it), K and V unescaped as
     * Flink's PartitionPathUtils escapes them ("%3A" is ':'), whose K is a
     * partition column's name gives that column V, read as its type as a
     * CSV field is (a TIMESTAMP also as Java writes it, '2024-01-01T10:00'
     * without zero seconds); the deepest such folder wins; V equal to
     * partition_default_name (NULL: "__DEFAULT_PARTITION__"), or no folder
     * naming the column, is NULL. A value that is not of the column's type
     * fails the job at the file's open ("PATH: the folder 'K=V': ..."). The
     * lines hold the other columns: JSON ignores a field named as a
     * partition column; CSV has one field per other column, in order. */
    const int *partition_columns;
    int npartition_columns;
    const char *partition_default_name;
} weir_file_source_config;

/* A source of rows of `schema` (borrowed: it must outlive the job's run;
 * not bound to a struct) from `config->path`. The files are listed here: a
 * path that does not exist or cannot be read, or a folder with no file, is
 * an error now (NULL, the job's error set). */
WEIR_EXPORT weir_stream *weir_source_file(weir_job *job, const weir_schema *schema,
                                          const weir_file_source_config *config);

/* One JSON object (text, len bytes: a line without its end, a Kafka
 * record's value) into `row` of `schema` as Flink's json format reads it:
 * fields by column name, a missing field or null NULL, a field of the wrong
 * type an error; the kind from the string field `kind_field` (NULL: +I).
 * 0, 1 (only space: no row), WEIR_EFORMAT with why ("field 'amount' is a
 * string, not a BIGINT"), or WEIR_ENOMEM. */
WEIR_EXPORT int weir_row_parse_json(const weir_schema *schema, const char *text, size_t len,
                                    const char *kind_field, void *row, char *why,
                                    size_t whysize);

/* As weir_row_parse_json, into the columns cols[0..n) of `row` only, by
 * their names (a Kafka record's value without the table's metadata or key
 * columns, or its key: Flink's 'key.fields'): the row is not made anew (its
 * other columns and its kind stay as they are: weir_row_init it first) and
 * there is no kind field. WEIR_EINVAL for a column out of range. */
WEIR_EXPORT int weir_row_parse_json_columns(const weir_schema *schema, const char *text,
                                            size_t len, const int *cols, int n, void *row,
                                            char *why, size_t whysize);

/* One CSV record (Flink's 'csv' format: RFC 4180 by libcsv, as the file
 * source reads a line; a line end after it allowed), its fields by position
 * into the columns cols[0..n) of `row` only, as weir_row_parse_json_columns
 * (the row is not made anew): exactly n fields, each as weir_row_set_text
 * reads it, an empty unquoted field NULL. `delimiter` 0: ','. 0,
 * WEIR_EFORMAT with why ("3 fields, the table has 2", "'x' is not a BIGINT
 * (column 'amount')"), WEIR_EINVAL for a column out of range, or
 * WEIR_ENOMEM. */
WEIR_EXPORT int weir_row_parse_csv_columns(const weir_schema *schema, const char *text,
                                           size_t len, char delimiter, const int *cols, int n,
                                           void *row, char *why, size_t whysize);

/* Registers the 'filesystem' connector of SQL tables (weir/connector.h)
 * with the sources above: a program that runs SQL over files calls it once
 * before (the `weir` command does). 0, or WEIR_ENOMEM. */
WEIR_EXPORT int weir_file_register_connectors(void);

#ifdef __cplusplus
}
#endif
#endif
