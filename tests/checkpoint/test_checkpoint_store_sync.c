/* test_checkpoint_store_sync.c — when the checkpoint store fsyncs
 * (checkpoint/checkpoint_store.h, docs/CHECKPOINTS.md "Files").
 *
 * This binary puts its own fsync() in front of the C library's: each call
 * on a regular file in the checkpoint folder being written records the
 * file's name and what the folder held at that moment, then syncs as
 * before. What it checks:
 *   - every state file is written before the first is synced, so that
 *     their writebacks overlap and their block allocations go into one
 *     journal commit (a file synced before the next was written cost a
 *     commit each: the final checkpoint at a job's end waited for them in
 *     turn);
 *   - every state file is still synced, and before `_metadata` exists;
 *   - `_metadata` is synced too, and the checkpoint reads back.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint_store.h"
#include "weir/error.h"

#define NFILES 8

static char parent[256];
static char watch[PATH_MAX]; /* the chk-N folder being written, resolved */

typedef struct sync_seen {
    char name[64];     /* the file's name in the folder (".tmp" dropped) */
    int entries;       /* the folder's entries when it was synced */
    bool had_metadata; /* `_metadata` was in the folder already */
} sync_seen;

static sync_seen seen[64];
static int nseen;

static int folder_entries(const char *dir, bool *has_metadata)
{
    DIR *d = opendir(dir);
    int n = 0;
    *has_metadata = false;
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        if (strcmp(e->d_name, "_metadata") == 0)
            *has_metadata = true;
    }
    closedir(d);
    return n;
}

int fsync(int fd)
{
    static int (*real)(int);
    if (!real) {
        void *sym = dlsym(RTLD_NEXT, "fsync");
        memcpy(&real, &sym, sizeof real); /* POSIX: a function's address */
    }
    struct stat st;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n;
    size_t wl = strlen(watch);
    if (wl && nseen < 64 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        (n = readlink(link, path, sizeof path - 1)) > 0) {
        path[n] = '\0';
        if (strncmp(path, watch, wl) == 0 && path[wl] == '/') {
            sync_seen *s = &seen[nseen++];
            snprintf(s->name, sizeof s->name, "%s", path + wl + 1);
            size_t len = strlen(s->name);
            if (len > 4 && strcmp(s->name + len - 4, ".tmp") == 0)
                s->name[len - 4] = '\0';
            s->entries = folder_entries(watch, &s->had_metadata);
        }
    }
    return real(fd);
}

static void make_parent(void)
{
    snprintf(parent, sizeof parent, "%s/weir-chk-sync-test-%d",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", parent);
    cr_assert_eq(system(cmd), 0);
}

static void remove_parent(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", parent);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(checkpoint_store_sync, .init = make_parent, .fini = remove_parent);

Test(checkpoint_store_sync, every_state_file_is_written_before_the_first_is_synced)
{
    weir__chk_writer w;
    cr_assert_eq(weir__chk_begin(&w, parent, 1), 0, "%s", w.err);
    char dir[300];
    snprintf(dir, sizeof dir, "%s/chk-1", parent);
    cr_assert_not_null(realpath(dir, watch), "%s", dir);
    char names[NFILES][32], payload[NFILES][64];
    for (int i = 0; i < NFILES; i++) {
        snprintf(names[i], sizeof names[i], "op%d-%d", i / 2, i % 2);
        snprintf(payload[i], sizeof payload[i], "the state of operator %d subtask %d", i / 2,
                 i % 2);
        cr_assert_eq(weir__chk_write(&w, names[i], payload[i], strlen(payload[i])), 0, "%s",
                     w.err);
    }
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 0);
    cr_assert_eq(weir__chk_commit(&w, sb.data, sb.size, 3), 0, "%s", w.err);
    msgpack_sbuffer_destroy(&sb);
    weir__chk_writer_free(&w);
    watch[0] = '\0';

    cr_assert_gt(nseen, 0, "no file of the checkpoint was synced");
    /* the first sync found every state file in the folder, and no _metadata */
    cr_assert_eq(seen[0].entries, NFILES,
                 "the first sync (of %s) found %d entries in the folder, not the %d state "
                 "files: it came before the others were written",
                 seen[0].name, seen[0].entries, NFILES);
    for (int i = 0; i < NFILES; i++) {
        int at = -1;
        for (int k = 0; k < nseen && at < 0; k++)
            at = strcmp(seen[k].name, names[i]) == 0 ? k : -1;
        cr_assert_geq(at, 0, "the state file %s was never synced", names[i]);
        cr_assert_not(seen[at].had_metadata, "%s was synced after _metadata was written",
                      names[i]);
    }
    bool meta = false;
    for (int k = 0; k < nseen; k++)
        meta = meta || strcmp(seen[k].name, "_metadata") == 0;
    cr_assert(meta, "_metadata was never synced");

    weir__chk c;
    char err[512];
    cr_assert_eq(weir__chk_open(parent, NULL, NULL, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.nfiles, NFILES);
    for (int i = 0; i < NFILES; i++) {
        void *p;
        size_t n;
        cr_assert_eq(weir__chk_read(&c, names[i], &p, &n, err, sizeof err), 0, "%s", err);
        cr_assert_eq(n, strlen(payload[i]));
        cr_assert_arr_eq(p, payload[i], n);
        free(p);
    }
    weir__chk_close(&c);
}
