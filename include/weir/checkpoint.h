/* weir/checkpoint.h — looking at checkpoints on disk: which checkpoint a
 * folder holds, whether every file of it verifies, and what it describes.
 *
 * A checkpoint folder `chk-N` (docs/CHECKPOINTS.md, "Files") holds one
 * checksummed file per piece of state and a `_metadata` file written last,
 * which lists them. A parent folder holds a job's `chk-N` folders; the one a
 * restore takes is its newest checkpoint that is complete and verifies.
 *
 * Errors name the file and what is wrong with it, so that a tool can print
 * them as they are:
 *     ckpt/chk-9/_metadata: missing: the checkpoint did not complete
 *     ckpt/chk-8/window-1: checksum mismatch: the file is corrupt
 *     ckpt/chk-7/source-0: cut short: the header says 120 bytes of payload,
 *         the file has 80
 *
 * Nothing here touches a running job or writes to the folders. Threads: a
 * weir_checkpoint is used by one thread at a time; different ones are
 * independent.
 */
#ifndef WEIR_CHECKPOINT_H
#define WEIR_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_checkpoint weir_checkpoint;

/* Called for a checkpoint that opening a parent folder skipped, with why
 * (naming the file). */
typedef void (*weir_checkpoint_skip_fn)(const char *why, void *arg);

/* The checkpoint folders at `path`, newest first: `path` itself when it is
 * one (named chk-N, or holding a `_metadata`), else the chk-N folders in it
 * (possibly none). *folders and its strings are allocated: free them with
 * weir_checkpoint_list_free. 0, or WEIR_ENOENT (no such folder), WEIR_EIO or
 * WEIR_ENOMEM with the message in `why`. */
WEIR_EXPORT int weir_checkpoint_list(const char *path, char ***folders, size_t *n, char *why,
                                     size_t whysize);
WEIR_EXPORT void weir_checkpoint_list_free(char **folders, size_t n);

/* Opens the checkpoint at `path`: a chk-N folder (that checkpoint), or a
 * parent folder (its newest checkpoint whose `_metadata` and every file it
 * lists verify; each newer one is passed to `skipped`, which may be NULL).
 * Returns 0 and sets *out, or WEIR_ENOENT (no such folder, or no chk-N
 * folder in it), WEIR_EFORMAT (the checkpoint, or every one of the parent's,
 * does not verify), WEIR_EIO or WEIR_ENOMEM, with the message in `why`. */
WEIR_EXPORT int weir_checkpoint_open(const char *path, weir_checkpoint_skip_fn skipped, void *arg,
                                     weir_checkpoint **out, char *why, size_t whysize);

/* The checkpoint's id (the N of chk-N) and its folder. */
WEIR_EXPORT int64_t weir_checkpoint_id(const weir_checkpoint *c);
WEIR_EXPORT const char *weir_checkpoint_folder(const weir_checkpoint *c);

/* The state files `_metadata` lists, in its order: the name of file i in the
 * folder and the bytes of its payload. i < weir_checkpoint_file_count. */
WEIR_EXPORT size_t weir_checkpoint_file_count(const weir_checkpoint *c);
WEIR_EXPORT const char *weir_checkpoint_file_name(const weir_checkpoint *c, size_t i);
WEIR_EXPORT uint64_t weir_checkpoint_file_bytes(const weir_checkpoint *c, size_t i);

/* What the job recorded about the checkpoint (its operators, their subtasks
 * and key groups), as one JSON text; NULL without memory. Owned by `c`. */
WEIR_EXPORT const char *weir_checkpoint_job_json(weir_checkpoint *c);

/* Frees it. NULL is allowed. */
WEIR_EXPORT void weir_checkpoint_close(weir_checkpoint *c);

/* Checks one chk-N folder file by file without stopping at the first
 * problem: calls `file` for `_metadata` and then for every file it lists,
 * with the file's name, its payload's bytes as listed (for `_metadata`, as
 * read; 0 if unreadable) and NULL if it verifies or why not. A `_metadata`
 * that does not verify ends the check (it is what lists the others).
 * Returns 0 if everything verifies, else the first problem's code (with its
 * message in `why`). */
typedef void (*weir_checkpoint_file_fn)(const char *name, uint64_t bytes, const char *problem,
                                        void *arg);
WEIR_EXPORT int weir_checkpoint_check(const char *folder, weir_checkpoint_file_fn file, void *arg,
                                      char *why, size_t whysize);

#ifdef __cplusplus
}
#endif

#endif
