/* test_cli_oom.c — the command line when memory runs out: `weir script`
 * and `weir capture convert`. Every failed allocation is exit status 1 with
 * "out of memory" on standard error, never 2 (for a script that is a
 * malformed one: issue 16's defect 12), never an abort; nothing is leaked;
 * and nothing half-written is claimed complete: what a script printed
 * before it stopped is the start of what it prints with memory, and
 * convert's OUT is either as it was (absent, or its old contents) or the
 * whole conversion, with no temporary file left beside it.
 *
 * SQLite's way: the test's allocator (support/alloc_fail.h) fails exactly
 * the N-th allocation of a run, for N = 1, 2, ... until a run makes fewer
 * than N allocations (it then completed: status 0 and the whole output).
 * The commands run in process (weir_script_main, weir_capture_main: the
 * command after `weir`, its fopen of the files included), with standard
 * output and standard error sent to files. The count of live blocks must
 * be the same after a run as before it: a run that leaks one block fails.
 *
 * Not built under the sanitizers (tests/CMakeLists.txt leaves every
 * test_*_oom.c out). Bounds: a golden script makes a few dozen
 * allocations, a conversion of the test's capture a few thousand; each run
 * takes a millisecond or less, so each test is a few seconds in Release
 * (a run needing more than MAX_N allocations fails the test instead), and
 * the timeout is 240 s.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <weir.h>

#include "capture.h"
#include "script.h"
#include "support/alloc_fail.h"

#define MAX_N 50000
#define SCENARIOS WEIR_SOURCE_DIR "/tests/scenarios"

/* ---- running a command ---------------------------------------------------- */

/* Standard output and error go to files for the whole test; stdout gets a
 * buffer of its own, so that stdio allocates nothing for it in a run. */
static char stdout_buf[1 << 16];
static char out_path[64], err_path[64];
static int saved_stderr = -1;

static void redirect(void)
{
    snprintf(out_path, sizeof out_path, "/tmp/weir_cli_oom_%d.out", (int)getpid());
    snprintf(err_path, sizeof err_path, "/tmp/weir_cli_oom_%d.err", (int)getpid());
    cr_assert_not_null(freopen(out_path, "w+", stdout), "%s: %s", out_path, strerror(errno));
    cr_assert_eq(setvbuf(stdout, stdout_buf, _IOFBF, sizeof stdout_buf), 0);
    int fd = open(err_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0, "%s: %s", err_path, strerror(errno));
    saved_stderr = dup(STDERR_FILENO);
    cr_assert_geq(dup2(fd, STDERR_FILENO), 0);
    close(fd);
}

/* Each test's .fini: also after a failed assertion. */
static void restore(void)
{
    if (saved_stderr >= 0) {
        dup2(saved_stderr, STDERR_FILENO);
        close(saved_stderr);
        saved_stderr = -1;
    }
    remove(out_path);
    remove(err_path);
}

/* The contents of the file at fd (from its start), NUL-terminated. */
static char *contents(int fd)
{
    off_t n = lseek(fd, 0, SEEK_END);
    cr_assert_geq(n, 0);
    char *b = malloc((size_t)n + 1);
    cr_assert_not_null(b);
    cr_assert_eq(pread(fd, b, (size_t)n, 0), n);
    b[n] = '\0';
    return b;
}

typedef struct run {
    int status;
    long made;   /* allocations the run made */
    long leaked; /* live blocks after it minus before */
    char *out, *err;
} run;

/* One command (argv[0] is its name, as main gives it) with the n-th
 * allocation failing (0: none, but counted). */
static run run_cmd(int (*cmd)(int, char **), int argc, char **argv, long n)
{
    fflush(stdout);
    cr_assert_eq(ftruncate(fileno(stdout), 0), 0);
    rewind(stdout);
    cr_assert_eq(ftruncate(STDERR_FILENO, 0), 0);
    cr_assert_eq(lseek(STDERR_FILENO, 0, SEEK_SET), 0);
    /* a fresh argv each run: the commands move their options out of it */
    char *args[8] = {NULL};
    cr_assert_lt(argc, 8);
    memcpy(args, argv, (size_t)argc * sizeof *argv);
    long live = af_live_blocks();
    af_arm(n ? n : LONG_MAX);
    int status = cmd(argc, args);
    long made = af_disarm();
    fflush(stdout);
    long leaked = af_live_blocks() - live;
    run r = {status, made, leaked, contents(fileno(stdout)), contents(STDERR_FILENO)};
    return r;
}

static void run_free(run *r)
{
    free(r->out);
    free(r->err);
}

/* What holds of every run with a failed allocation: exit 1, saying so, and
 * no leak. `what` names the case in messages. */
static void assert_failed_well(const run *r, const char *what, long n)
{
    cr_assert_eq(r->status, 1, "%s, allocation %ld failed: exit status %d: %s", what, n,
                 r->status, r->err);
    cr_assert(strstr(r->err, "out of memory"),
              "%s, allocation %ld failed: the message does not say so: %s", what, n, r->err);
}

static void assert_no_leak(const run *r, const char *what, long n)
{
    cr_assert_eq(r->leaked, 0, "%s, allocation %ld failed: %ld blocks leaked (status %d: %s)",
                 what, n, r->leaked, r->status, r->err);
}

/* ---- weir script ---------------------------------------------------------- */

/* Every N for one script; the number of runs that failed. */
static long script_every_failure(const char *path, long *runs)
{
    char *argv[] = {"script", (char *)path, NULL};
    run ref = run_cmd(weir_script_main, 2, argv, 0);
    cr_assert_eq(ref.status, 0, "%s does not run: %s", path, ref.err);
    cr_assert_eq(ref.leaked, 0, "%s: a run with memory leaks %ld blocks", path, ref.leaked);
    long failed = 0;
    long n;
    for (n = 1; n <= MAX_N; n++) {
        run r = run_cmd(weir_script_main, 2, argv, n);
        if (r.status != 0) {
            failed++;
            assert_failed_well(&r, path, n);
            cr_assert_eq(strncmp(r.out, ref.out, strlen(r.out)), 0,
                         "%s, allocation %ld failed: the output is not the start of the "
                         "output with memory:\n%s", path, n, r.out);
        } else {
            cr_assert_str_eq(r.out, ref.out, "%s, allocation %ld failed: the run succeeded with "
                             "other output", path, n);
        }
        assert_no_leak(&r, path, n);
        long made = r.made;
        run_free(&r);
        if (made < n)
            break; /* every allocation of a whole run has failed once */
    }
    cr_assert_leq(n, MAX_N, "%s: more than %d allocations", path, MAX_N);
    *runs += n;
    run_free(&ref);
    return failed;
}

Test(cli_oom, a_script_that_runs_out_of_memory_exits_1_and_leaks_nothing, .timeout = 240,
     .fini = restore)
{
    redirect();
    /* A first run of anything: what stdio and the C library set up once
     * (and keep) is not a leak of the runs after it. */
    char *argv[] = {"script", SCENARIOS "/window_tumbling.weir", NULL};
    run warm = run_cmd(weir_script_main, 2, argv, 0);
    run_free(&warm);

    /* every golden script that runs (one with a .out) */
    DIR *d = opendir(SCENARIOS);
    cr_assert_not_null(d);
    long scripts = 0, runs = 0, failed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".out") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%.*s.weir", SCENARIOS, (int)(len - 4), e->d_name);
        failed += script_every_failure(path, &runs);
        scripts++;
    }
    closedir(d);
    cr_assert_gt(scripts, 50, "only %ld golden scripts that run", scripts);
    cr_assert_gt(failed, scripts, "only %ld runs failed: the allocator is not interposed", failed);
    cr_log_info("%ld scripts, %ld runs, %ld failed with out of memory", scripts, runs, failed);
}

/* ---- weir capture convert ------------------------------------------------- */

static char *dir_path(const char *dir, const char *name)
{
    static char bufs[4][512];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

static char *read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
    char *b = contents(fd);
    if (len)
        *len = (size_t)lseek(fd, 0, SEEK_END);
    close(fd);
    return b;
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static void sum_values(void *acc, const void *elem, void *arg)
{
    (void)arg;
    ((weir_gen_event *)acc)->value += ((const weir_gen_event *)elem)->value;
}

/* The test's capture, in both formats: a keyed window job on the virtual
 * clock (generator, timestamps, tumbling windows with lateness and a late
 * side output), a few hundred events. */
static void write_capture(const char *jsonl, const char *msgpack)
{
    weir_job_config cfg = {.workers = 1, .parallelism = 2, .clock = WEIR_CLOCK_VIRTUAL,
                           .watermark_interval_ms = 20,
                           .diag = {.level = WEIR_DIAG_STANDARD, .jsonl_path = jsonl,
                                    .msgpack_path = msgpack}};
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_generator_config g = {.partitions = 2, .keys = 4, .rate = 100, .pace = WEIR_GEN_PACED,
                               .count = 16, .disorder_ms = 30, .late_fraction = 0.2,
                               .late_ms = 40, .seed = 3};
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(30)};
    weir_stream *s = weir_stream_assign_timestamps(weir_source_generator(job, &g), &ts);
    weir_window_spec w = {.assigner = weir_window_tumbling(100, 0), .allowed_lateness_ms = 30,
                          .late_tag = 1, .reduce = sum_values};
    weir_stream *win = weir_stream_window(weir_stream_key_by(s, weir_generator_key()), &w);
    weir_sink_discard(weir_stream_side_output(win, 1));
    cr_assert_not_null(weir_sink_discard(win), "%s", weir_job_error(job));
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    weir_job_destroy(job);
}

/* Asserts that dir holds nothing but the names given (NULL-terminated):
 * no temporary file was left beside OUT. */
static void assert_only(const char *dir, const char *what, long n, const char *const *names)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        bool known = false;
        for (int i = 0; names[i]; i++)
            known = known || strcmp(e->d_name, names[i]) == 0;
        cr_assert(known, "%s, allocation %ld failed: %s/%s was left behind", what, n, dir,
                  e->d_name);
    }
    closedir(d);
}

typedef struct convert_case {
    const char *what;
    const char *opt;      /* NULL or the option before IN */
    const char *opt_arg;  /* NULL or its argument */
    const char *in;       /* the input's name in the directory */
    const char *old;      /* NULL: OUT does not exist before; else its contents */
} convert_case;

/* Every N for one conversion; the number of runs that failed. */
static long convert_every_failure(const char *dir, const convert_case *c, long *runs)
{
    char in[512], out[512];
    snprintf(in, sizeof in, "%s", dir_path(dir, c->in));
    snprintf(out, sizeof out, "%s", dir_path(dir, "out"));
    char *argv[6] = {"capture", "convert"};
    int argc = 2;
    if (c->opt)
        argv[argc++] = (char *)c->opt;
    if (c->opt_arg)
        argv[argc++] = (char *)c->opt_arg;
    argv[argc++] = in;
    argv[argc++] = out;
    const char *const names[] = {"c.jsonl", "c.msgpack", "cut.msgpack", "out", NULL};

    remove(out);
    run ref = run_cmd(weir_capture_main, argc, argv, 0);
    cr_assert_eq(ref.status, 0, "%s does not convert: %s", c->what, ref.err);
    cr_assert_eq(ref.leaked, 0, "%s: a run with memory leaks %ld blocks", c->what, ref.leaked);
    size_t want_len;
    char *want = read_file(out, &want_len);
    long failed = 0;
    long n;
    for (n = 1; n <= MAX_N; n++) {
        remove(out);
        if (c->old)
            write_file(out, c->old, strlen(c->old));
        run r = run_cmd(weir_capture_main, argc, argv, n);
        struct stat st;
        bool exists = stat(out, &st) == 0;
        if (r.status != 0) {
            failed++;
            assert_failed_well(&r, c->what, n);
            cr_assert_null(strstr(r.out, "converted"), "%s, allocation %ld failed: it says %s",
                           c->what, n, r.out);
            /* OUT as it was */
            if (!c->old) {
                cr_assert(!exists, "%s, allocation %ld failed: OUT was written", c->what, n);
            } else {
                char *now = read_file(out, NULL);
                cr_assert_str_eq(now, c->old, "%s, allocation %ld failed: OUT was changed",
                                 c->what, n);
                free(now);
            }
        } else {
            size_t len;
            char *got = read_file(out, &len);
            cr_assert(len == want_len && memcmp(got, want, len) == 0,
                      "%s, allocation %ld failed: it converted, to other contents", c->what, n);
            free(got);
        }
        assert_only(dir, c->what, n, names);
        assert_no_leak(&r, c->what, n);
        long made = r.made;
        run_free(&r);
        if (made < n)
            break;
    }
    cr_assert_leq(n, MAX_N, "%s: more than %d allocations", c->what, MAX_N);
    *runs += n;
    free(want);
    run_free(&ref);
    remove(out);
    return failed;
}

Test(cli_oom, a_conversion_that_runs_out_of_memory_writes_nothing_and_leaks_nothing,
     .timeout = 240, .fini = restore)
{
    char dir[] = "/tmp/weir_cli_oom_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    write_capture(dir_path(dir, "c.jsonl"), dir_path(dir, "c.msgpack"));
    /* the same capture cut in the middle of an event, for --partial */
    size_t len;
    char *mp = read_file(dir_path(dir, "c.msgpack"), &len);
    write_file(dir_path(dir, "cut.msgpack"), mp, len - 7);
    free(mp);
    redirect();

    /* the JSONL the run wrote is, byte for byte, what convert writes */
    static const convert_case cases[] = {
        {"convert to a new OUT", NULL, NULL, "c.msgpack", NULL},
        {"convert over an existing OUT", NULL, NULL, "c.msgpack", "old contents\n"},
        {"convert --partial", "--partial", NULL, "cut.msgpack", "old contents\n"},
        {"convert --to chrome-trace", "--to", "chrome-trace", "c.jsonl", NULL},
    };
    long runs = 0, failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        failed += convert_every_failure(dir, &cases[i], &runs);
    size_t jl;
    char *jsonl = read_file(dir_path(dir, "c.jsonl"), &jl);
    char *argv[] = {"capture", "convert", dir_path(dir, "c.msgpack"), dir_path(dir, "out"), NULL};
    run r = run_cmd(weir_capture_main, 4, argv, 0);
    cr_assert_eq(r.status, 0);
    size_t ol;
    char *converted = read_file(dir_path(dir, "out"), &ol);
    cr_assert(ol == jl && memcmp(converted, jsonl, jl) == 0,
              "the conversion is not the JSONL the run wrote");
    free(converted);
    free(jsonl);
    run_free(&r);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_gt(failed, 100, "only %ld runs failed: the allocator is not interposed", failed);
    cr_log_info("%ld conversions, %ld failed with out of memory", runs, failed);
}
