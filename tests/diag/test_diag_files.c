/* test_diag_files.c — where a job's capture files go (weir/diag.h's
 * jsonl_path and msgpack_path, written by weir/outfile.h's writer): a link
 * is written through and stays a link; a FIFO is written in place (its
 * reader gets the whole capture, the FIFO stays a FIFO, no NAME.partial is
 * made); a character device the test makes (as root, with mknod) is written
 * in place and stays a device; a folder, or a FIFO where NAME.partial would
 * go, is refused when the run starts, naming it, without waiting on it.
 * Every FIFO, link and device is the test's own, in its temporary folder.
 */
#include <criterion/criterion.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "diag/test_diag_support.h"
#include "support/fifo_reader.h"

/* The window job of test_diag_support.h with these capture files; returns
 * weir_job_run's result, the job's error in err. */
static int run_capturing(const char *jsonl, const char *msgpack, char *err, size_t errsize)
{
    weir_job_config cfg = {.diag = {.jsonl_path = jsonl, .msgpack_path = msgpack,
                                    .level = WEIR_DIAG_STANDARD}};
    td_window_job w;
    td_window_job_make(&w, &cfg);
    int r = weir_job_run(w.job);
    snprintf(err, errsize, "%s", weir_job_error(w.job));
    weir_job_destroy(w.job);
    return r;
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0, "%s: %s", path, strerror(errno));
    return st.st_mode;
}

/* The last line of a JSONL text is the summary. */
static void assert_whole_capture(const char *text)
{
    size_t n = strlen(text);
    cr_assert(n > 0 && text[n - 1] == '\n', "the capture does not end with a line");
    const char *last = text + n - 1;
    while (last > text && last[-1] != '\n')
        last--;
    cr_assert(strstr(last, "\"kind\":\"summary\""), "the last event is not the summary: %s", last);
}

Test(diag_files, a_link_is_written_through_and_stays, .timeout = 60)
{
    char *dir = td_tmpdir();
    char err[1024];
    cr_assert_eq(symlink("target.jsonl", td_path(dir, "run.jsonl")), 0);
    td_write(td_path(dir, "target.jsonl"), "old\n", 4);
    /* a link to a file not there yet: the file is made */
    cr_assert_eq(symlink("made.msgpack", td_path(dir, "run.msgpack")), 0);
    char jl[256], mp[256];
    snprintf(jl, sizeof jl, "%s/run.jsonl", dir);
    snprintf(mp, sizeof mp, "%s/run.msgpack", dir);
    cr_assert_eq(run_capturing(jl, mp, err, sizeof err), 0, "%s", err);
    cr_assert(S_ISLNK(mode_of(jl)), "run.jsonl (a link) was replaced by a file");
    cr_assert(S_ISLNK(mode_of(mp)), "run.msgpack (a link) was replaced by a file");
    char *text = td_read(td_path(dir, "target.jsonl"), NULL);
    assert_whole_capture(text);
    free(text);
    td_assert_valid(dir, td_path(dir, "made.msgpack"));
    cr_assert(!td_exists(td_path(dir, "target.jsonl.partial")));
    cr_assert(!td_exists(td_path(dir, "made.msgpack.partial")));
    td_rmdir(dir);
}

Test(diag_files, a_fifo_is_written_in_place, .timeout = 60)
{
    char *dir = td_tmpdir();
    char err[1024], jl[256];
    snprintf(jl, sizeof jl, "%s/live.jsonl", dir);
    cr_assert_eq(mkfifo(jl, 0600), 0);
    fifo_reader r;
    fifo_reader_start(&r, jl);
    int e = run_capturing(jl, NULL, err, sizeof err);
    char *got = fifo_reader_join(&r, NULL);
    cr_assert_eq(e, 0, "%s", err);
    assert_whole_capture(got);
    free(got);
    cr_assert(S_ISFIFO(mode_of(jl)), "the FIFO was replaced by a file");
    cr_assert(!td_exists(td_path(dir, "live.jsonl.partial")));
    td_rmdir(dir);
}

/* As root, a device of the test's own (the null device's numbers). */
Test(diag_files, a_character_device_is_written_in_place, .timeout = 60)
{
    if (geteuid() != 0) {
        cr_log_warn("not root: no device of the test's own to write to; skipped");
        return;
    }
    char *dir = td_tmpdir();
    char err[1024], dev[256];
    snprintf(dev, sizeof dev, "%s/null", dir);
    cr_assert_eq(mknod(dev, S_IFCHR | 0666, makedev(1, 3)), 0, "mknod: %s", strerror(errno));
    cr_assert_eq(run_capturing(NULL, dev, err, sizeof err), 0, "%s", err);
    cr_assert(S_ISCHR(mode_of(dev)), "the device was replaced by a file");
    cr_assert(!td_exists(td_path(dir, "null.partial")));
    td_rmdir(dir);
}

Test(diag_files, a_folder_or_a_fifo_as_the_partial_file_is_refused, .timeout = 60)
{
    char *dir = td_tmpdir();
    char err[1024], want[1024], jl[256];
    cr_assert_eq(run_capturing(dir, NULL, err, sizeof err), WEIR_EIO);
    snprintf(want, sizeof want, "diagnostics: %s: is a folder, not a regular file: not written",
             dir);
    cr_assert(strstr(err, want), "%s", err);
    /* NAME.partial, where the capture is written first, is a FIFO: refused
     * at once (opening it would wait for a reader), and left as it is */
    snprintf(jl, sizeof jl, "%s/run.jsonl", dir);
    cr_assert_eq(mkfifo(td_path(dir, "run.jsonl.partial"), 0600), 0);
    cr_assert_eq(run_capturing(jl, NULL, err, sizeof err), WEIR_EIO);
    snprintf(want, sizeof want,
             "diagnostics: %s.partial: is a FIFO, not a regular file: not replaced (%s is "
             "written there first)",
             jl, jl);
    cr_assert(strstr(err, want), "%s", err);
    cr_assert(S_ISFIFO(mode_of(td_path(dir, "run.jsonl.partial"))));
    cr_assert(!td_exists(jl));
    td_rmdir(dir);
}
