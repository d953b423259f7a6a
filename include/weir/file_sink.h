/* weir/file_sink.h — an exactly-once sink into part files (Flink's FileSink
 * contract; docs/CHECKPOINTS.md, "The file sink").
 *
 * Each sink subtask i writes lines into part files in `dir` (or, with a
 * bucket function, in the folder under `dir` of each record's bucket):
 *     .PREFIX-RUN-i-N.inprogress   being written, then pending: closed at a
 *                                  checkpoint (or rolled by size), fsynced,
 *                                  waiting for that checkpoint to complete
 *     PREFIX-RUN-i-N               committed: complete, never touched again
 * RUN is the run's id, 16 random hex digits drawn when the sink is built,
 * so that no run (a restore, at any parallelism) can make a name an earlier
 * run made; N goes on from the numbers of the subtasks restored into i.
 * With checkpoints a part file rolls at every checkpoint and when it
 * reaches roll_bytes, and is committed (renamed to its final name, never
 * over any file) when the checkpoint that made it pending completes
 * (notify_complete); what a reader sees in committed files is then exactly
 * the output of the records before that checkpoint, once. A restore commits
 * the pending files of the restored checkpoint and deletes the other hidden
 * files of the runs and subtasks it restores (written after it); the job's
 * final checkpoint commits the rest. A run that stopped before any
 * checkpoint of its own completed is in no checkpoint: its hidden files
 * stay (readers skip names starting with '.'). Without checkpoints every
 * file is committed at the end of input. Since every run's names are its
 * own, two sinks may share a folder and a prefix. `dir` may be a symbolic
 * link to a folder; the parts are made new and committed through
 * weir/outfile.h's writer, which never writes into or over a file that is
 * there already.
 *
 * Buckets (Flink's BucketAssigner; the SQL connector's PARTITIONED BY
 * folders). A bucket function names each record's folder under `dir`,
 * written as a line is ("dt=2024-01-01/h=3"; "" is `dir` itself): parts
 * of different buckets are different files, each rolled at roll_bytes and
 * at every checkpoint, and committed as above, in their folders (made when
 * first written to; a restore finds a writer's hidden parts in every
 * folder under `dir` that is not hidden). A folder is at most
 * WEIR_FILE_SINK_BUCKET_MAX - 1 bytes, its parts separated by single '/',
 * none empty or starting with '.' or '_' (readers skip such names; ".."
 * would leave `dir`): a record whose folder is not such a one fails the
 * job, naming it. A subtask keeps WEIR_FILE_SINK_OPEN_BUCKETS buckets with
 * a part open, in a table made when it opens: a record of a bucket in it
 * allocates nothing. A record of one more bucket takes the place of the
 * bucket written least recently, whose part is parked (flushed and closed,
 * still in progress) and opened again, to append, when its bucket comes
 * back; parked parts roll at the checkpoint (or the end) with the rest. So
 * a subtask holds at most that many files open and writes one part a
 * bucket between checkpoints whatever the number of buckets; past the
 * table a record may cost a close, an open and the stream's buffer.
 *
 * Success files (Flink's 'success-file' partition commit policy): with
 * success_file, every batch of commits (a checkpoint's, or the end's)
 * makes or replaces an empty file of that name in each folder it committed
 * parts into, after they are renamed and the folder fsynced. A subtask
 * commits its own parts: a folder written by several subtasks gets the
 * file when the first of them commits, so a program that wants the file to
 * mean "every part of this folder up to the checkpoint" keys the sink's
 * input so that each bucket has one writer (the SQL connector does).
 *
 * Provided by libweir-file (jansson, libcsv), not by libweir: link
 * `pkg-config --cflags --libs weir-file` (weir-file-static: the archives
 * libweir-file.a and libweir.a) or CMake's weir::weir-file
 * (weir::weir-file-static), from find_package(weir). weir.h includes this
 * header too; a program that calls none of its functions links libweir
 * alone.
 */
#ifndef WEIR_FILE_SINK_H
#define WEIR_FILE_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/row.h"
#include "weir/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_file_sink_config {
    const char *dir;         /* required; made if missing */
    const char *prefix;      /* part files' names; NULL: "part" (letters, digits, "._-") */
    /* One line per record, without its newline (weir_sink_print's
     * formatter: returns the length like snprintf; a longer line than the
     * buffer is asked for again with a buffer that fits). */
    weir_format_fn format;
    void *format_arg;
    /* With no format: the stream's rows of this schema (a table's elements)
     * as one JSON object per line, {"column": value, ...}, or as CSV (RFC
     * 4180, no header) with csv set. Borrowed: must outlive the job. */
    const weir_schema *schema;
    bool csv;
    int64_t roll_bytes;      /* a part file rolls at this size; 0: 128 MiB */
    char csv_delimiter;      /* 0: ',' */
    /* With a schema: the columns written, in this order (NULL: all, in the
     * schema's order), ncolumns of them; copied. A partitioned table's
     * files hold the columns that are not partition columns. */
    const int *columns;
    int ncolumns;
    /* The record's bucket, its folder under dir (above), written into buf
     * as a format function writes a line: its length (>= size: too long,
     * the job fails), or < 0 to fail the job. NULL: every part in dir.
     * Called on the sink's workers, for every record. */
    weir_format_fn bucket;
    void *bucket_arg;
    /* The success file's name (above; Flink's default "_SUCCESS"): letters,
     * digits, '.', '_' or '-', not starting with '.'. NULL: none. Copied. */
    const char *success_file;
} weir_file_sink_config;

/* The buckets a sink subtask keeps with a part open, and the room for a
 * bucket's folder (the longest is one byte less). */
#define WEIR_FILE_SINK_OPEN_BUCKETS 128
#define WEIR_FILE_SINK_BUCKET_MAX 1024

/* The sink on s; the config's strings and columns are copied. NULL
 * (recorded) for a bad config: no dir, neither a format nor a schema, a
 * prefix or success file that is not a plain name, columns out of the
 * schema or with a format function, a quote or line break as the CSV
 * delimiter. */
WEIR_EXPORT weir_stream *weir_sink_file(weir_stream *s, const weir_file_sink_config *config);

#ifdef __cplusplus
}
#endif
#endif
