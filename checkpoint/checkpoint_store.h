/* checkpoint_store.h — checkpoints on disk (docs/CHECKPOINTS.md, "Files"):
 * a folder chk-N per checkpoint under a parent folder, one checksummed file
 * per piece of state, and a `_metadata` file written last, whose presence is
 * what makes a checkpoint complete.
 *
 * Every file starts with a 32-byte header: the magic "WEIRCHK\0", the format
 * version (u32, little-endian), the file's kind (u32: 1 state, 2 metadata),
 * the payload's length (u64) and its XXH3-64 (u64); the payload (msgpack)
 * follows. A file is written to NAME.tmp and renamed to NAME (by
 * weir/outfile.h's writer: through a link, never into or over a FIFO);
 * once every state file is written, each is fsynced (their writebacks
 * overlap: one journal commit for all rather than one each), the folder is
 * fsynced, `_metadata` written the same way and fsynced before its rename,
 * and then the checkpoint's folder and the parent are fsynced, so a
 * checkpoint that has its `_metadata` has every file it lists.
 *
 * `_metadata`'s payload is a map the store writes: "format", "id", "files"
 * (each file's name, length and checksum, as written) and "job" (the caller's
 * own msgpack object: the operators, their subtasks and key groups). Opening
 * a checkpoint verifies `_metadata` and every file it lists (only regular
 * files are read: a FIFO would hold open() for ever); a parent folder
 * opens its newest checkpoint that verifies, and reports each newer one it
 * skipped and why, naming the file.
 *
 * What goes into the state files, and what "job" holds, is the runtime's
 * (the snapshot side); this file knows bytes, names and checksums only.
 * Single-threaded: one writer or reader is used by one thread at a time.
 */
#ifndef WEIR_CHECKPOINT_CHECKPOINT_STORE_H
#define WEIR_CHECKPOINT_CHECKPOINT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WEIR__CHK_FORMAT 1
#define WEIR__CHK_HEADER 32
#define WEIR__CHK_METADATA "_metadata"
/* The largest file the store reads back (a payload is read whole). */
#define WEIR__CHK_MAX_FILE ((uint64_t)1 << 34)

typedef enum weir__chk_kind { WEIR__CHK_STATE = 1, WEIR__CHK_META = 2 } weir__chk_kind;

/* A file a checkpoint holds, as its metadata lists it. */
typedef struct weir__chk_file {
    char *name;
    uint64_t bytes;    /* payload length */
    uint64_t checksum; /* XXH3-64 of the payload */
} weir__chk_file;

/* ---- writing -------------------------------------------------------------- */

typedef struct weir__chk_writer {
    char *parent;
    char *dir; /* parent/chk-N */
    int64_t id;
    weir__chk_file *files;
    size_t nfiles, cap;
    char err[512]; /* the last failure, naming the file */
} weir__chk_writer;

/* Starts checkpoint `id` (>= 1): makes the parent folder if it is missing and
 * chk-ID in it. A chk-ID left by an attempt that did not complete is removed
 * first; a complete one is refused (ids only grow). 0 or a WEIR_E* code with
 * w->err set. */
int weir__chk_begin(weir__chk_writer *w, const char *parent, int64_t id);

/* Writes one state file NAME (a plain file name: no '/', not starting with
 * '.' or '_') with the payload. 0 or a WEIR_E* code with w->err set. */
int weir__chk_write(weir__chk_writer *w, const char *name, const void *payload, size_t len);

/* Completes the checkpoint: `_metadata` with the files written and the
 * caller's msgpack object `job` (job_len bytes, one whole object), then the
 * fsyncs; then keeps the newest `retain` (>= 1) complete checkpoints of the
 * parent and removes older ones, and incomplete ones older than this one.
 * 0 or a WEIR_E* code with w->err set (the checkpoint is then not complete;
 * weir__chk_abort removes it). */
int weir__chk_commit(weir__chk_writer *w, const void *job, size_t job_len, int retain);

/* Removes an unfinished checkpoint's folder. */
void weir__chk_abort(weir__chk_writer *w);

/* Frees the writer (not its folder). */
void weir__chk_writer_free(weir__chk_writer *w);

/* ---- reading -------------------------------------------------------------- */

typedef struct weir__chk {
    char *dir; /* the checkpoint's folder */
    int64_t id;
    weir__chk_file *files;
    size_t nfiles;
    void *job; /* the caller's msgpack object, as committed */
    size_t job_len;
} weir__chk;

/* Called for each checkpoint a parent folder's opening skipped: `why` names
 * the file and what is wrong with it. */
typedef void (*weir__chk_skip_fn)(const char *why, void *arg);

/* The checkpoint folders at `path`, newest first: `path` itself when it is
 * one (named chk-N, or holding a _metadata; *single true), else the chk-N
 * folders in it (none is not an error). *dirs and its strings are malloc'ed
 * (weir__chk_list_free). 0, or WEIR_ENOENT (no such folder), WEIR_EIO or
 * WEIR_ENOMEM with a message in err. */
int weir__chk_list(const char *path, char ***dirs, size_t *n, bool *single, char *err,
                   size_t errsize);
void weir__chk_list_free(char **dirs, size_t n);

/* Opens the checkpoint at `path`: a chk-N folder (that checkpoint), or a
 * parent folder (its newest checkpoint that verifies; each newer one is
 * reported to `skip`, which may be NULL). 0, or a WEIR_E* code with a message
 * in err (WEIR_ENOENT: no checkpoint there; WEIR_EFORMAT: the named
 * checkpoint does not verify). */
int weir__chk_open(const char *path, weir__chk_skip_fn skip, void *arg, weir__chk *out,
                   char *err, size_t errsize);

/* The payload of the opened checkpoint's state file NAME, read and verified
 * again (malloc'ed into *payload; free it). 0 or a WEIR_E* code with a
 * message naming the file. */
int weir__chk_read(const weir__chk *c, const char *name, void **payload, size_t *len, char *err,
                   size_t errsize);

void weir__chk_close(weir__chk *c);

/* Checks the folder file by file (weir_checkpoint_check, weir/checkpoint.h):
 * `file` is called for _metadata and each file it lists, with NULL or why
 * not; the first problem's code is returned, its message in err. */
typedef void (*weir__chk_check_fn)(const char *name, uint64_t bytes, const char *problem,
                                   void *arg);
int weir__chk_check(const char *dir, weir__chk_check_fn file, void *arg, char *err,
                    size_t errsize);

/* Reads and verifies one checkpoint file of the given kind (used by both of
 * the above and by inspection): 0, or WEIR_ENOENT / WEIR_EIO / WEIR_EFORMAT
 * with a message naming the file. */
int weir__chk_read_file(const char *path, weir__chk_kind kind, void **payload, size_t *len,
                        char *err, size_t errsize);

#endif
