/* test_outfile.c — the one writer of weir's finished files (weir/outfile.h):
 * what each kind of PATH gets. A regular file or a missing one is replaced
 * whole through a temporary file (keeping the old permission bits); links
 * are written through and stay links; a FIFO (and, as root, a character
 * device the test makes with mknod) is written in place when the caller
 * allows it and refused otherwise; a folder is refused; WEIR_OUTFILE_NEW
 * replaces nothing; a fixed temporary name replaces a regular leftover and
 * refuses anything else; a FIFO made at PATH while it is written is not
 * replaced by the commit. weir_outfile_make_folders makes every missing
 * part of a folder's path and names the part that is not a folder. Every
 * FIFO, link and device is the test's own, in its temporary folder.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "support/fifo_reader.h"
#include "diag/test_diag_support.h"
#include "weir/error.h"
#include "weir/outfile.h"

/* Writes text to path with the config; returns the commit's result (the
 * message in err). */
static int write_text(const char *path, const weir_outfile_config *cfg, const char *text,
                      char *err, size_t errsize)
{
    weir_outfile *f = NULL;
    int r = weir_outfile_open(path, cfg, &f, err, errsize);
    if (r)
        return r;
    cr_assert_eq(fputs(text, weir_outfile_stream(f)) >= 0, true);
    return weir_outfile_commit(f, err, errsize);
}

/* How many names in dir contain `part`. */
static int names_with(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strstr(e->d_name, part) != NULL;
    closedir(d);
    return n;
}

/* Asserts the file holds exactly `want`. */
static void assert_holds(const char *path, const char *want)
{
    char *got = td_read(path, NULL);
    cr_assert_str_eq(got, want, "%s", path);
    free(got);
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0, "%s: %s", path, strerror(errno));
    return st.st_mode;
}

Test(outfile, a_new_file_and_a_regular_one_are_replaced_whole)
{
    char *dir = td_tmpdir();
    char err[1024];
    const char *p = td_path(dir, "out.txt");
    cr_assert_eq(write_text(p, NULL, "one\n", err, sizeof err), 0, "%s", err);
    assert_holds(p, "one\n");
    cr_assert_eq(chmod(p, 0640), 0);
    /* while it is written, the old file is there as it was */
    weir_outfile *f = NULL;
    cr_assert_eq(weir_outfile_open(p, NULL, &f, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(weir_outfile_path(f), p);
    cr_assert_not_null(weir_outfile_temp(f));
    cr_assert(strstr(weir_outfile_temp(f), "out.txt.partial."), "%s", weir_outfile_temp(f));
    fputs("two\n", weir_outfile_stream(f));
    fflush(weir_outfile_stream(f));
    assert_holds(p, "one\n");
    cr_assert_eq(weir_outfile_commit(f, err, sizeof err), 0, "%s", err);
    assert_holds(p, "two\n");
    cr_assert_eq(mode_of(p) & 07777, 0640, "the permission bits were not kept");
    /* discarded: the file stays as it was, no temporary file is left */
    cr_assert_eq(weir_outfile_open(p, NULL, &f, err, sizeof err), 0, "%s", err);
    fputs("three\n", weir_outfile_stream(f));
    weir_outfile_discard(f);
    assert_holds(p, "two\n");
    cr_assert_eq(names_with(dir, "partial"), 0);
    td_rmdir(dir);
}

Test(outfile, links_are_written_through_and_stay)
{
    char *dir = td_tmpdir();
    char err[1024];
    char sub[256];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    cr_assert_eq(mkdir(sub, 0755), 0);
    td_write(td_path(sub, "target.txt"), "old\n", 4);
    /* a chain: link -> sub/hop (relative to its own folder) -> target.txt */
    cr_assert_eq(symlink("sub/hop", td_path(dir, "link")), 0);
    cr_assert_eq(symlink("target.txt", td_path(sub, "hop")), 0);
    cr_assert_eq(write_text(td_path(dir, "link"), NULL, "new\n", err, sizeof err), 0, "%s", err);
    cr_assert(S_ISLNK(mode_of(td_path(dir, "link"))), "the link was replaced");
    cr_assert(S_ISLNK(mode_of(td_path(sub, "hop"))), "the second link was replaced");
    cr_assert(S_ISREG(mode_of(td_path(sub, "target.txt"))));
    assert_holds(td_path(sub, "target.txt"), "new\n");
    /* a link to a missing file makes it, the temporary file beside it */
    cr_assert_eq(symlink("sub/made.txt", td_path(dir, "dangling")), 0);
    weir_outfile *f = NULL;
    cr_assert_eq(weir_outfile_open(td_path(dir, "dangling"), NULL, &f, err, sizeof err), 0, "%s",
                 err);
    cr_assert(strstr(weir_outfile_temp(f), "/sub/made.txt.partial."), "%s", weir_outfile_temp(f));
    fputs("made\n", weir_outfile_stream(f));
    cr_assert_eq(weir_outfile_commit(f, err, sizeof err), 0, "%s", err);
    cr_assert(S_ISLNK(mode_of(td_path(dir, "dangling"))));
    assert_holds(td_path(sub, "made.txt"), "made\n");
    /* a loop of links is an error, not a hang */
    cr_assert_eq(symlink("loop-b", td_path(dir, "loop-a")), 0);
    cr_assert_eq(symlink("loop-a", td_path(dir, "loop-b")), 0);
    cr_assert_eq(write_text(td_path(dir, "loop-a"), NULL, "x", err, sizeof err), WEIR_EIO);
    cr_assert(strstr(err, "loop-a: cannot write: Too many levels of symbolic links"), "%s", err);
    td_rmdir(dir);
}

Test(outfile, a_fifo_is_written_in_place_or_refused, .timeout = 30)
{
    char *dir = td_tmpdir();
    char err[1024];
    const char *p = td_path(dir, "pipe");
    cr_assert_eq(mkfifo(p, 0600), 0);
    /* refused without WEIR_OUTFILE_IN_PLACE: not opened (no hang), not replaced */
    cr_assert_eq(write_text(p, NULL, "x", err, sizeof err), WEIR_EINVAL);
    char want[1024];
    snprintf(want, sizeof want,
             "%s: is a FIFO, not a regular file: not written (this file is written whole and "
             "renamed into place, which would replace it)",
             p);
    cr_assert_str_eq(err, want);
    cr_assert(S_ISFIFO(mode_of(p)));
    /* in place, through a link too: the reader gets the bytes */
    cr_assert_eq(symlink("pipe", td_path(dir, "to-pipe")), 0);
    weir_outfile_config cfg = {.flags = WEIR_OUTFILE_IN_PLACE | WEIR_OUTFILE_SYNC,
                               .temp_suffix = ".partial"};
    fifo_reader r;
    fifo_reader_start(&r, p);
    cr_assert_eq(write_text(td_path(dir, "to-pipe"), &cfg, "through the pipe\n", err, sizeof err),
                 0, "%s", err);
    char *got = fifo_reader_join(&r, NULL);
    cr_assert_str_eq(got, "through the pipe\n");
    free(got);
    cr_assert(S_ISFIFO(mode_of(p)), "the FIFO was replaced");
    cr_assert(S_ISLNK(mode_of(td_path(dir, "to-pipe"))), "the link was replaced");
    cr_assert_eq(names_with(dir, "partial"), 0);
    td_rmdir(dir);
}

/* A character device, made here with mknod as root (the null device's
 * numbers): written in place, never replaced. */
Test(outfile, a_character_device_is_written_in_place_or_refused)
{
    if (geteuid() != 0) {
        cr_log_warn("not root: no device of the test's own to write to; skipped");
        return;
    }
    char *dir = td_tmpdir();
    char err[1024];
    const char *p = td_path(dir, "null");
    cr_assert_eq(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0, "mknod: %s", strerror(errno));
    weir_outfile_config cfg = {.flags = WEIR_OUTFILE_IN_PLACE};
    cr_assert_eq(write_text(p, &cfg, "gone\n", err, sizeof err), 0, "%s", err);
    cr_assert(S_ISCHR(mode_of(p)), "the device was replaced");
    cr_assert_eq(write_text(p, NULL, "gone\n", err, sizeof err), WEIR_EINVAL);
    cr_assert(strstr(err, "null: is a character device, not a regular file: not written"), "%s",
              err);
    cr_assert(S_ISCHR(mode_of(p)));
    td_rmdir(dir);
}

Test(outfile, a_folder_is_refused)
{
    char *dir = td_tmpdir();
    char err[1024];
    weir_outfile_config cfg = {.flags = WEIR_OUTFILE_IN_PLACE};
    cr_assert_eq(write_text(dir, &cfg, "x", err, sizeof err), WEIR_EINVAL);
    char want[1024];
    snprintf(want, sizeof want, "%s: is a folder, not a regular file: not written", dir);
    cr_assert_str_eq(err, want);
    td_rmdir(dir);
}

Test(outfile, new_files_replace_nothing)
{
    char *dir = td_tmpdir();
    char err[1024];
    weir_outfile_config cfg = {.flags = WEIR_OUTFILE_NEW, .temp_prefix = ".",
                               .temp_suffix = ".inprogress"};
    cr_assert_eq(write_text(td_path(dir, "part"), &cfg, "1\n", err, sizeof err), 0, "%s", err);
    assert_holds(td_path(dir, "part"), "1\n");
    /* anything at the name, a file or a link, is refused at the open */
    cr_assert_eq(write_text(td_path(dir, "part"), &cfg, "2\n", err, sizeof err), WEIR_EINVAL);
    cr_assert(strstr(err, "part: exists already (a regular file): not replaced"), "%s", err);
    cr_assert_eq(symlink("elsewhere", td_path(dir, "linked")), 0);
    cr_assert_eq(write_text(td_path(dir, "linked"), &cfg, "2\n", err, sizeof err), WEIR_EINVAL);
    cr_assert(strstr(err, "linked: exists already (a symbolic link): not replaced"), "%s", err);
    cr_assert(!td_exists(td_path(dir, "elsewhere")));
    /* and at the publish: one that appeared since the open stays */
    weir_outfile *f = NULL;
    cr_assert_eq(weir_outfile_open(td_path(dir, "late"), &cfg, &f, err, sizeof err), 0, "%s",
                 err);
    cr_assert_str_eq(weir_outfile_temp(f), td_path(dir, ".late.inprogress"));
    fputs("mine\n", weir_outfile_stream(f));
    cr_assert_eq(weir_outfile_close(f, err, sizeof err), 0, "%s", err);
    cr_assert_eq(mkfifo(td_path(dir, "late"), 0600), 0);
    cr_assert_eq(weir_outfile_publish(td_path(dir, ".late.inprogress"), td_path(dir, "late"),
                                      WEIR_OUTFILE_NEW, err, sizeof err),
                 WEIR_EINVAL);
    cr_assert(strstr(err, "late: exists already (a FIFO): not replaced"), "%s", err);
    cr_assert(S_ISFIFO(mode_of(td_path(dir, "late"))));
    cr_assert_eq(unlink(td_path(dir, "late")), 0);
    cr_assert_eq(weir_outfile_publish(td_path(dir, ".late.inprogress"), td_path(dir, "late"),
                                      WEIR_OUTFILE_NEW, err, sizeof err),
                 0, "%s", err);
    assert_holds(td_path(dir, "late"), "mine\n");
    /* a temporary file that is gone */
    cr_assert_eq(weir_outfile_publish(td_path(dir, ".late.inprogress"), td_path(dir, "again"),
                                      WEIR_OUTFILE_NEW, err, sizeof err),
                 WEIR_ENOENT);
    td_rmdir(dir);
}

Test(outfile, a_fixed_temporary_name_replaces_only_a_regular_leftover, .timeout = 30)
{
    char *dir = td_tmpdir();
    char err[1024];
    weir_outfile_config cfg = {.temp_suffix = ".partial"};
    /* what a killed run left: replaced */
    td_write(td_path(dir, "cap.jsonl.partial"), "cut short", 9);
    cr_assert_eq(write_text(td_path(dir, "cap.jsonl"), &cfg, "whole\n", err, sizeof err), 0,
                 "%s", err);
    assert_holds(td_path(dir, "cap.jsonl"), "whole\n");
    cr_assert(!td_exists(td_path(dir, "cap.jsonl.partial")));
    /* a FIFO or a link there: refused, left as it is */
    cr_assert_eq(mkfifo(td_path(dir, "cap.jsonl.partial"), 0600), 0);
    cr_assert_eq(write_text(td_path(dir, "cap.jsonl"), &cfg, "x", err, sizeof err), WEIR_EINVAL);
    cr_assert(strstr(err, "cap.jsonl.partial: is a FIFO, not a regular file: not replaced"),
              "%s", err);
    cr_assert(S_ISFIFO(mode_of(td_path(dir, "cap.jsonl.partial"))));
    cr_assert_eq(unlink(td_path(dir, "cap.jsonl.partial")), 0);
    td_write(td_path(dir, "precious"), "keep\n", 5);
    cr_assert_eq(symlink("precious", td_path(dir, "cap.jsonl.partial")), 0);
    cr_assert_eq(write_text(td_path(dir, "cap.jsonl"), &cfg, "x", err, sizeof err), WEIR_EINVAL);
    cr_assert(strstr(err, "is a symbolic link, not a regular file: not replaced"), "%s", err);
    assert_holds(td_path(dir, "precious"), "keep\n");
    assert_holds(td_path(dir, "cap.jsonl"), "whole\n");
    td_rmdir(dir);
}

/* PATH turned into a FIFO while it was written: the commit does not rename
 * over it, and removes what it wrote. */
Test(outfile, a_fifo_made_meanwhile_is_not_replaced)
{
    char *dir = td_tmpdir();
    char err[1024];
    const char *p = td_path(dir, "out");
    weir_outfile *f = NULL;
    cr_assert_eq(weir_outfile_open(p, NULL, &f, err, sizeof err), 0, "%s", err);
    fputs("text\n", weir_outfile_stream(f));
    cr_assert_eq(mkfifo(p, 0600), 0);
    cr_assert_eq(weir_outfile_commit(f, err, sizeof err), WEIR_EINVAL);
    cr_assert(strstr(err, "out: is a FIFO now, not a regular file: not replaced"), "%s", err);
    cr_assert(S_ISFIFO(mode_of(p)));
    cr_assert_eq(names_with(dir, "partial"), 0);
    td_rmdir(dir);
}

Test(outfile, a_missing_folder_is_named)
{
    char *dir = td_tmpdir();
    char err[1024], path[256];
    snprintf(path, sizeof path, "%s/no/such/out.txt", dir);
    weir_outfile_config cfg = {.temp_suffix = ".partial"};
    cr_assert_eq(write_text(path, &cfg, "x", err, sizeof err), WEIR_ENOENT);
    char want[1024];
    snprintf(want, sizeof want, "%s.partial: cannot create: No such file or directory", path);
    cr_assert_str_eq(err, want);
    td_rmdir(dir);
}

/* weir_outfile_make_folders: every missing part is made (doubled and
 * trailing slashes too), parts that are folders or links to folders are
 * used as they are, and a second call finds nothing to do. */
Test(outfile, make_folders_makes_every_missing_part)
{
    char *dir = td_tmpdir();
    char real[256], link[256], path[600], err[1024];
    snprintf(real, sizeof real, "%s/real", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    cr_assert_eq(mkdir(real, 0755), 0);
    cr_assert_eq(symlink("real", link), 0);
    snprintf(path, sizeof path, "%s//a/b/", link);
    cr_assert_eq(weir_outfile_make_folders(path, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/a/b", real);
    cr_assert(S_ISDIR(mode_of(path)));
    cr_assert(S_ISLNK(mode_of(link)));
    cr_assert_eq(weir_outfile_make_folders(path, err, sizeof err), 0, "%s", err);
    td_rmdir(dir);
}

/* A part that is not a folder stops it, named with what it is; the parts
 * before it stay made. */
Test(outfile, make_folders_names_a_part_that_is_not_a_folder, .timeout = 30)
{
    char *dir = td_tmpdir();
    char file[256], fifo[256], path[600], err[1024], want[2048];
    snprintf(file, sizeof file, "%s/made/plain", dir);
    snprintf(path, sizeof path, "%s/made", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fclose(f);
    snprintf(path, sizeof path, "%s/x/y", file);
    cr_assert_eq(weir_outfile_make_folders(path, err, sizeof err), WEIR_EINVAL);
    snprintf(want, sizeof want, "%s: cannot create the folder %s: it is a regular file", path,
             file);
    cr_assert_str_eq(err, want);
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(weir_outfile_make_folders(fifo, err, sizeof err), WEIR_EINVAL);
    snprintf(want, sizeof want, "%s: cannot create the folder %s: it is a FIFO", fifo, fifo);
    cr_assert_str_eq(err, want);
    cr_assert(S_ISFIFO(mode_of(fifo)));
    cr_assert_eq(weir_outfile_make_folders("", err, sizeof err), WEIR_EINVAL);
    td_rmdir(dir);
}
