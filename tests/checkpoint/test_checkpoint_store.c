/* test_checkpoint_store.c — checkpoint folders on disk
 * (checkpoint/checkpoint_store.h, docs/CHECKPOINTS.md "Files").
 *
 * What restore relies on: a committed checkpoint reads back byte for byte;
 * only the newest `retain` complete checkpoints stay; and every way a
 * checkpoint can be broken on disk — a flipped byte in a state file or in
 * `_metadata`, a truncated file, a deleted `_metadata` (a checkpoint that
 * did not complete), a deleted state file, a file of another format version
 * — is refused with a message naming the file, and opening the parent folder
 * falls back to the next older checkpoint, reporting the one it skipped.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint_store.h"
#include "weir/error.h"

static char parent[256];

static void make_parent(void)
{
    snprintf(parent, sizeof parent, "%s/weir-chk-test-%d", getenv("TMPDIR") ? getenv("TMPDIR")
                                                                               : "/tmp",
             (int)getpid());
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

/* The caller's part of _metadata: {"checkpoint": id}. */
static void job_object(int64_t id, msgpack_sbuffer *sb)
{
    msgpack_sbuffer_init(sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 1);
    msgpack_pack_str_with_body(&pk, "checkpoint", 10);
    msgpack_pack_int64(&pk, id);
}

/* Checkpoint `id` with two state files whose payloads name the id. */
static void write_checkpoint(int64_t id, int retain)
{
    weir__chk_writer w;
    cr_assert_eq(weir__chk_begin(&w, parent, id), 0, "%s", w.err);
    char a[64], b[64];
    snprintf(a, sizeof a, "window state of checkpoint %lld", (long long)id);
    snprintf(b, sizeof b, "source position %lld", (long long)id * 1000);
    cr_assert_eq(weir__chk_write(&w, "window-0", a, strlen(a)), 0, "%s", w.err);
    cr_assert_eq(weir__chk_write(&w, "source-0", b, strlen(b)), 0, "%s", w.err);
    msgpack_sbuffer sb;
    job_object(id, &sb);
    cr_assert_eq(weir__chk_commit(&w, sb.data, sb.size, retain), 0, "%s", w.err);
    msgpack_sbuffer_destroy(&sb);
    weir__chk_writer_free(&w);
}

static bool exists(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", parent, rel);
    struct stat st;
    return stat(path, &st) == 0;
}

/* Overwrites one byte of parent/rel at `off` (from the end if negative). */
static void flip_byte(const char *rel, long off)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", parent, rel);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fseek(f, off, off < 0 ? SEEK_END : SEEK_SET), 0);
    int c = fgetc(f);
    cr_assert_eq(fseek(f, -1, SEEK_CUR), 0);
    fputc(c ^ 0x40, f);
    fclose(f);
}

static void truncate_file(const char *rel, off_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", parent, rel);
    cr_assert_eq(truncate(path, size), 0, "%s", path);
}

static void remove_file(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", parent, rel);
    cr_assert_eq(unlink(path), 0, "%s", path);
}

/* The reasons given for the checkpoints skipped, one a line. */
typedef struct skips {
    int n;
    char all[2048];
} skips;

static void on_skip(const char *why, void *arg)
{
    skips *s = arg;
    s->n++;
    size_t used = strlen(s->all);
    snprintf(s->all + used, sizeof s->all - used, "%s\n", why);
}

/* Opens the parent and expects checkpoint `id`, with `skipped` newer ones
 * skipped, one of them for a reason containing `why`. */
static void expect_open(int64_t id, int skipped, const char *why)
{
    skips s = {0};
    weir__chk c;
    char err[512];
    cr_assert_eq(weir__chk_open(parent, on_skip, &s, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.id, id);
    cr_assert_eq(s.n, skipped, "skipped %d: %s", s.n, s.all);
    if (why)
        cr_assert(strstr(s.all, why), "the skip reasons \"%s\" lack \"%s\"", s.all, why);
    weir__chk_close(&c);
}

TestSuite(checkpoint_store, .init = make_parent, .fini = remove_parent);

Test(checkpoint_store, a_committed_checkpoint_reads_back)
{
    write_checkpoint(1, 3);
    weir__chk c;
    char err[512];
    cr_assert_eq(weir__chk_open(parent, NULL, NULL, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.id, 1);
    cr_assert_eq(c.nfiles, 2);
    void *p;
    size_t n;
    cr_assert_eq(weir__chk_read(&c, "window-0", &p, &n, err, sizeof err), 0, "%s", err);
    cr_assert_eq(n, strlen("window state of checkpoint 1"));
    cr_assert_arr_eq(p, "window state of checkpoint 1", n);
    free(p);
    cr_assert_eq(weir__chk_read(&c, "nothing", &p, &n, err, sizeof err), WEIR_ENOENT);
    /* the caller's object comes back as it was packed */
    msgpack_sbuffer sb;
    job_object(1, &sb);
    cr_assert_eq(c.job_len, sb.size);
    cr_assert_arr_eq(c.job, sb.data, sb.size);
    msgpack_sbuffer_destroy(&sb);
    weir__chk_close(&c);
    /* the folder itself opens the same checkpoint; no temporary file is left */
    char dir[300];
    snprintf(dir, sizeof dir, "%s/chk-1", parent);
    cr_assert_eq(weir__chk_open(dir, NULL, NULL, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.id, 1);
    weir__chk_close(&c);
    cr_assert_not(exists("chk-1/window-0.tmp"));
    cr_assert_not(exists("chk-1/_metadata.tmp"));
}

Test(checkpoint_store, only_the_newest_are_retained)
{
    for (int id = 1; id <= 5; id++)
        write_checkpoint(id, 3);
    cr_assert_not(exists("chk-1"));
    cr_assert_not(exists("chk-2"));
    cr_assert(exists("chk-3/_metadata") && exists("chk-4/_metadata") && exists("chk-5/_metadata"));
    expect_open(5, 0, NULL);
}

Test(checkpoint_store, an_abandoned_attempt_is_cleared_and_older_ones_removed)
{
    write_checkpoint(1, 3);
    weir__chk_writer w;
    cr_assert_eq(weir__chk_begin(&w, parent, 2), 0, "%s", w.err);
    cr_assert_eq(weir__chk_write(&w, "window-0", "partial", 7), 0, "%s", w.err);
    weir__chk_writer_free(&w); /* the process died here: no _metadata */
    expect_open(1, 1, "did not complete");
    /* the same id again starts clean, and a complete id is not rewritten */
    write_checkpoint(2, 3);
    expect_open(2, 0, NULL);
    cr_assert_eq(weir__chk_begin(&w, parent, 2), WEIR_ESTATE);
    cr_assert(strstr(w.err, "exists already"), "%s", w.err);
    weir__chk_writer_free(&w);
    /* an attempt that is aborted leaves nothing */
    cr_assert_eq(weir__chk_begin(&w, parent, 3), 0, "%s", w.err);
    weir__chk_abort(&w);
    weir__chk_writer_free(&w);
    cr_assert_not(exists("chk-3"));
}

/* Checkpoints 1 and 2, a byte of chk-2/rel flipped at off: checkpoint 1 opens,
 * chk-2 skipped for `why`. */
static void corrupt_newest(const char *rel, long off, const char *why)
{
    write_checkpoint(1, 3);
    write_checkpoint(2, 3);
    char path[64];
    snprintf(path, sizeof path, "chk-2/%s", rel);
    flip_byte(path, off);
    expect_open(1, 1, why);
}

Test(checkpoint_store, a_corrupt_state_file_falls_back_to_the_older)
{
    corrupt_newest("window-0", -3, "chk-2/window-0: checksum mismatch");
}

Test(checkpoint_store, a_corrupt_header_is_named)
{
    corrupt_newest("source-0", 0, "chk-2/source-0: not a weir checkpoint file"); /* magic */
    write_checkpoint(3, 3);
    flip_byte("chk-3/source-0", 8); /* the format version */
    expect_open(1, 2, "chk-3/source-0: checkpoint format version 65");
}

Test(checkpoint_store, a_corrupt_metadata_falls_back)
{
    corrupt_newest("_metadata", -1, "chk-2/_metadata: checksum mismatch");
}

Test(checkpoint_store, truncated_files_fall_back)
{
    write_checkpoint(1, 3);
    write_checkpoint(2, 3);
    write_checkpoint(3, 3);
    truncate_file("chk-3/window-0", 40); /* inside the payload */
    truncate_file("chk-2/_metadata", 10); /* inside the header */
    expect_open(1, 2, "chk-2/_metadata: cut short");
}

Test(checkpoint_store, deleted_files_fall_back)
{
    write_checkpoint(1, 3);
    write_checkpoint(2, 3);
    write_checkpoint(3, 3);
    remove_file("chk-3/_metadata");
    remove_file("chk-2/source-0");
    expect_open(1, 2, "chk-2/source-0: missing");
}

Test(checkpoint_store, nothing_that_verifies_is_an_error)
{
    weir__chk c;
    char err[512];
    cr_assert_eq(weir__chk_open(parent, NULL, NULL, &c, err, sizeof err), WEIR_ENOENT);
    cr_assert(strstr(err, "no such folder"), "%s", err);
    write_checkpoint(1, 3);
    flip_byte("chk-1/window-0", -1);
    cr_assert_eq(weir__chk_open(parent, NULL, NULL, &c, err, sizeof err), WEIR_EFORMAT);
    cr_assert(strstr(err, "none of its 1 checkpoints"), "%s", err);
    /* the broken checkpoint named directly says what is wrong with it */
    char dir[300];
    snprintf(dir, sizeof dir, "%s/chk-1", parent);
    cr_assert_eq(weir__chk_open(dir, NULL, NULL, &c, err, sizeof err), WEIR_EFORMAT);
    cr_assert(strstr(err, "chk-1/window-0: checksum mismatch"), "%s", err);
}

Test(checkpoint_store, bad_names_are_refused)
{
    weir__chk_writer w;
    cr_assert_eq(weir__chk_begin(&w, parent, 0), WEIR_EINVAL);
    weir__chk_writer_free(&w);
    cr_assert_eq(weir__chk_begin(&w, parent, 1), 0, "%s", w.err);
    cr_assert_eq(weir__chk_write(&w, "../escape", "x", 1), WEIR_EINVAL);
    cr_assert_eq(weir__chk_write(&w, "_metadata", "x", 1), WEIR_EINVAL);
    cr_assert_eq(weir__chk_write(&w, "a", "x", 1), 0, "%s", w.err);
    cr_assert_eq(weir__chk_write(&w, "a", "y", 1), WEIR_EINVAL);
    cr_assert(strstr(w.err, "written twice"), "%s", w.err);
    cr_assert_eq(weir__chk_commit(&w, "\x80", 1, 0), WEIR_EINVAL); /* retain 0 */
    weir__chk_abort(&w);
    weir__chk_writer_free(&w);
}

/* ---- links and FIFOs ----------------------------------------------------------- */

/* The parent folder is a symbolic link: checkpoints go into the folder it
 * names (retention included), and the link stays. */
Test(checkpoint_store, a_parent_that_is_a_link_is_written_through)
{
    char real[300];
    snprintf(real, sizeof real, "%s-real", parent);
    cr_assert_eq(mkdir(real, 0755), 0);
    cr_assert_eq(symlink(real, parent), 0);
    for (int id = 1; id <= 4; id++)
        write_checkpoint(id, 3);
    struct stat st;
    cr_assert_eq(lstat(parent, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the parent link was replaced");
    char path[400];
    snprintf(path, sizeof path, "%s/chk-4/_metadata", real);
    cr_assert_eq(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/chk-1", real);
    cr_assert_neq(stat(path, &st), 0, "chk-1 was retained");
    expect_open(4, 0, NULL);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", real);
    cr_assert_eq(system(cmd), 0);
}

/* A link at a state file's name is written through (the file it names gets
 * the checkpoint file, the link stays, and it verifies); a FIFO there is
 * refused by name, not opened (which would wait for a reader), and left. */
Test(checkpoint_store, its_files_are_written_through_links_never_into_a_fifo, .timeout = 30)
{
    char elsewhere[300], path[400];
    snprintf(elsewhere, sizeof elsewhere, "%s-elsewhere", parent);
    weir__chk_writer w;
    cr_assert_eq(weir__chk_begin(&w, parent, 1), 0, "%s", w.err);
    snprintf(path, sizeof path, "%s/chk-1/window-0", parent);
    cr_assert_eq(symlink(elsewhere, path), 0);
    cr_assert_eq(weir__chk_write(&w, "window-0", "state", 5), 0, "%s", w.err);
    snprintf(path, sizeof path, "%s/chk-1/source-0", parent);
    cr_assert_eq(mkfifo(path, 0600), 0);
    cr_assert_eq(weir__chk_write(&w, "source-0", "position", 8), WEIR_EINVAL);
    char want[600];
    snprintf(want, sizeof want, "%s: is a FIFO, not a regular file: not written", path);
    cr_assert(strstr(w.err, want), "%s", w.err);
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(weir__chk_write(&w, "source-0", "position", 8), 0, "%s", w.err);
    msgpack_sbuffer sb;
    job_object(1, &sb);
    cr_assert_eq(weir__chk_commit(&w, sb.data, sb.size, 3), 0, "%s", w.err);
    msgpack_sbuffer_destroy(&sb);
    weir__chk_writer_free(&w);
    snprintf(path, sizeof path, "%s/chk-1/window-0", parent);
    cr_assert_eq(lstat(path, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
    cr_assert_eq(stat(elsewhere, &st), 0);
    cr_assert_eq(st.st_size, WEIR__CHK_HEADER + 5);
    expect_open(1, 0, NULL);
    unlink(elsewhere);
}

/* A link in a checkpoint folder's place (an abandoned id begun again, an
 * old one retention removes) is removed, never followed: the folder it
 * names is not the job's to empty. */
Test(checkpoint_store, a_link_in_place_of_a_checkpoint_folder_is_not_followed)
{
    char outside[300], keep[400], link[400];
    snprintf(outside, sizeof outside, "%s-outside", parent);
    cr_assert_eq(mkdir(outside, 0755), 0);
    snprintf(keep, sizeof keep, "%s/keep", outside);
    FILE *f = fopen(keep, "w");
    cr_assert_not_null(f);
    fputs("mine\n", f);
    fclose(f);
    write_checkpoint(1, 3);
    snprintf(link, sizeof link, "%s/chk-2", parent);
    cr_assert_eq(symlink(outside, link), 0);
    write_checkpoint(2, 3); /* begins by clearing what is at chk-2 */
    struct stat st;
    cr_assert_eq(stat(keep, &st), 0, "the folder the link named was emptied");
    cr_assert_eq(lstat(link, &st), 0);
    cr_assert(S_ISDIR(st.st_mode));
    /* an old checkpoint that is a link: retention removes the link only */
    remove_parent();
    make_parent();
    cr_assert_eq(mkdir(parent, 0755), 0);
    snprintf(link, sizeof link, "%s/chk-1", parent);
    cr_assert_eq(symlink(outside, link), 0);
    for (int id = 2; id <= 5; id++)
        write_checkpoint(id, 3);
    cr_assert_neq(lstat(link, &st), 0, "chk-1 was retained");
    cr_assert_eq(stat(keep, &st), 0, "the folder the link named was emptied");
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", outside);
    cr_assert_eq(system(cmd), 0);
}

/* A FIFO in place of `_metadata` or of a state file: refused by name when
 * read (opening it would wait for a writer for ever), and a parent falls
 * back to the older checkpoint. */
Test(checkpoint_store, a_fifo_in_place_of_a_file_is_refused_not_waited_on, .timeout = 30)
{
    write_checkpoint(1, 5);
    write_checkpoint(2, 5);
    write_checkpoint(3, 5);
    char path[400];
    remove_file("chk-3/_metadata");
    snprintf(path, sizeof path, "%s/chk-3/_metadata", parent);
    cr_assert_eq(mkfifo(path, 0600), 0);
    remove_file("chk-2/window-0");
    snprintf(path, sizeof path, "%s/chk-2/window-0", parent);
    cr_assert_eq(mkfifo(path, 0600), 0);
    expect_open(1, 2, "chk-3/_metadata: is a FIFO, not a regular file");
    expect_open(1, 2, "chk-2/window-0: is a FIFO, not a regular file");
    weir__chk c;
    char err[512], dir[300];
    snprintf(dir, sizeof dir, "%s/chk-2", parent);
    cr_assert_eq(weir__chk_open(dir, NULL, NULL, &c, err, sizeof err), WEIR_EFORMAT);
    cr_assert(strstr(err, "chk-2/window-0: is a FIFO, not a regular file"), "%s", err);
}
