/* weir/outfile.h — the one writer of every file weir finishes: the capture
 * files of the diagnostic channel (a job's config, `weir sql --capture`,
 * SET 'weir.capture.file'), `weir capture convert`'s output, the demo's
 * report, checkpoint files and the file sink's part files; and the folders
 * they go into (weir_outfile_make_folders, at the end).
 *
 * Why it is public: its callers sit on three sides of the build's walls.
 * The runtime writes captures and checkpoints; the file sink is an operator,
 * which sees public headers only; the command line (tools/) sees public
 * headers only and links libweir. One implementation inside libweir
 * (base/outfile.c), exported here, serves all three without a wall
 * opened; a copy compiled into each would be three writers again (and,
 * where the tools' objects meet libweir.a in the tests, duplicate symbols).
 * A program of the user's may use it too.
 *
 * What PATH is decides how it is written, and a file that is not regular is
 * never replaced, removed or truncated:
 *   - missing, or a regular file: the bytes go into a temporary file in the
 *     same folder, which weir_outfile_commit() renames over PATH, so that a
 *     reader sees the old file or the whole new one, never a part. The new
 *     file keeps the old one's permission bits (a new one gets 0666 less the
 *     umask).
 *   - a symbolic link, or a chain of them: written through. The file the
 *     last link names is the one written as above (its temporary file
 *     beside it) and the links stay; a link to a missing file makes it.
 *   - a FIFO or a character device (a pipe to a reader, a terminal,
 *     /dev/null): written in place with WEIR_OUTFILE_IN_PLACE, for a stream
 *     a reader takes as it comes (a capture piped into a viewer, a report to
 *     a terminal); renaming a file over it would replace the pipe or the
 *     device node (as root, /dev/null) with a regular file. Opening a FIFO
 *     waits for its reader, as a shell's `>` does. Without the flag, as for
 *     a file that must be read back whole (a checkpoint's, a sink's part),
 *     it is refused.
 *   - anything else (a folder, a socket, a block device): refused.
 * The checks and the rename are separate calls: something that replaces
 * PATH in between (a FIFO made there meanwhile) is found by a second look
 * just before the rename and refused, but not in the instant between that
 * look and the rename; WEIR_OUTFILE_NEW closes even that (the rename itself
 * refuses to replace anything).
 *
 * Errors are negative WEIR_E* codes with a message naming the file, for a
 * tool to print as it is:
 *     out/run.jsonl: is a folder, not a regular file: not written
 *     ckpt/chk-3/_metadata: is a FIFO, not a regular file: not written (this
 *         file is read back whole, so it goes into a regular file only)
 *     out/run.jsonl.partial: cannot create: Permission denied
 * WEIR_EINVAL for what PATH is (refused), WEIR_ENOENT for a missing folder
 * or temporary file, WEIR_ENOMEM, WEIR_EIO for the rest.
 *
 * Lifetime: weir_outfile_open() ... write to weir_outfile_stream() ...
 * then exactly one of weir_outfile_commit(), weir_outfile_close() or
 * weir_outfile_discard(), each of which frees the writer. Threads: a writer
 * is used by one thread at a time; different writers are independent (no
 * call here touches the umask or any other process-wide setting).
 */
#ifndef WEIR_OUTFILE_H
#define WEIR_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "weir/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_outfile weir_outfile;

/* A FIFO or a character device is written in place (else refused). */
#define WEIR_OUTFILE_IN_PLACE 1u
/* PATH must not exist at all (not even as a link): the file is new, and the
 * rename that publishes it never replaces anything that appeared since. */
#define WEIR_OUTFILE_NEW 2u
/* The temporary file is fsynced before it is renamed. The folder is the
 * caller's to fsync (once for several files). */
#define WEIR_OUTFILE_SYNC 4u

typedef struct weir_outfile_config {
    unsigned flags; /* WEIR_OUTFILE_* */
    /* The temporary file is temp_prefix + the written file's name +
     * temp_suffix, in its folder. A NULL suffix makes a fresh name,
     * ".partial.XXXXXX" with six random characters, that can be nothing
     * already there. A fixed suffix names one file: a regular file left
     * there (by a run that was killed) is replaced, anything else refused,
     * and with WEIR_OUTFILE_NEW anything there is refused. NULL prefix: "". */
    const char *temp_prefix;
    const char *temp_suffix;
} weir_outfile_config;

/* Decides how PATH is written (above) and opens what is written: the
 * temporary file, made new, or PATH itself in place. `config` may be NULL
 * (no flags, a fresh temporary name). 0 and *out, or a WEIR_E* code with
 * *out NULL, nothing made or left open, and the message in errbuf (if not
 * NULL; cut to errsize). Both strings are copied. */
WEIR_EXPORT int weir_outfile_open(const char *path, const weir_outfile_config *config,
                                  weir_outfile **out, char *errbuf, size_t errsize);

/* The stream to write to; owned by the writer (never fclose it). */
WEIR_EXPORT FILE *weir_outfile_stream(weir_outfile *f);

/* The file written in the end: PATH, or the file its links name. */
WEIR_EXPORT const char *weir_outfile_path(const weir_outfile *f);

/* The temporary file; NULL when PATH is written in place. */
WEIR_EXPORT const char *weir_outfile_temp(const weir_outfile *f);

/* The name write errors belong under: the temporary file, or PATH. */
WEIR_EXPORT const char *weir_outfile_writing(const weir_outfile *f);

/* Flushes and closes the stream, fsyncs it (WEIR_OUTFILE_SYNC) and renames
 * the temporary file over the file to write; frees f. On failure the
 * temporary file is removed, the file to write is as it was, and the
 * message names the file. A file written in place has nothing to rename:
 * what was written stays. */
WEIR_EXPORT int weir_outfile_commit(weir_outfile *f, char *errbuf, size_t errsize);

/* Flushes, fsyncs (WEIR_OUTFILE_SYNC) and closes the temporary file without
 * renaming it, for weir_outfile_publish() later, perhaps in another run
 * (the file sink's parts wait for a checkpoint); frees f. On failure the
 * temporary file is removed. */
WEIR_EXPORT int weir_outfile_close(weir_outfile *f, char *errbuf, size_t errsize);

/* Closes without publishing: the temporary file is removed, the file to
 * write is as it was (in place: what was written stays); frees f. NULL is
 * a no-op. */
WEIR_EXPORT void weir_outfile_discard(weir_outfile *f);

/* Renames `temp`, a finished temporary file, to PATH under the rules above:
 * through PATH's links, never over a file that is not regular, and with
 * WEIR_OUTFILE_NEW (no links followed) never over anything. WEIR_ENOENT if
 * `temp` is missing (the caller knows whether a file already published is
 * fine). The commit's own last step. */
WEIR_EXPORT int weir_outfile_publish(const char *temp, const char *path, unsigned flags,
                                     char *errbuf, size_t errsize);

/* Makes the folder PATH and any missing parents, as `mkdir -p` does, for
 * files to be written into it (the file sink's folder, the parent of the
 * checkpoint folders, `weir demo --out`). A part that exists is used as it
 * is when it is a folder (or a link to one); new folders get 0777 less the
 * umask. 0 when PATH is a folder afterwards; else WEIR_EINVAL (a part is
 * not a folder), WEIR_ENOMEM or WEIR_EIO, with the folders made so far left
 * there and the message naming the part that could not be made:
 *     out/x/y: cannot create the folder out/x: it is a regular file
 *     out/x/y: cannot create the folder out: Permission denied */
WEIR_EXPORT int weir_outfile_make_folders(const char *path, char *errbuf, size_t errsize);

#ifdef __cplusplus
}
#endif
#endif
