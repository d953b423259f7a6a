/* weir/file_sink.h — an exactly-once sink into part files (Flink's FileSink
 * contract; docs/CHECKPOINTS.md, "The file sink").
 *
 * Each sink subtask i writes lines into part files in `dir`:
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
} weir_file_sink_config;

/* The sink on s; the config's strings are copied. NULL (recorded) for a bad
 * config: no dir, neither a format nor a schema, a prefix that is not a
 * plain name. */
WEIR_EXPORT weir_stream *weir_sink_file(weir_stream *s, const weir_file_sink_config *config);

#ifdef __cplusplus
}
#endif
#endif
