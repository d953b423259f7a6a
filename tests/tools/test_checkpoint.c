/* test_checkpoint.c — `weir checkpoint inspect` as a user runs it: the real
 * binary (WEIR_BINARY_DIR/tools/weir) on checkpoint folders written by the
 * runtime's store (checkpoint/checkpoint_store.h).
 *
 * A folder of good checkpoints lists each, newest first, with every file,
 * its size and "ok", the job's record as JSON, and the checkpoint a restore
 * would take (exit 0). A broken newest checkpoint (a corrupt state file, a
 * missing _metadata) is listed with what is wrong, file by file, and the
 * restore falls back to the older one. A FIFO in place of `_metadata` or of
 * a state file is named as not a regular file, never opened (which would
 * wait for a writer for ever). A folder where nothing verifies, a missing
 * folder, bad usage: exit 1 or 2 with the reason on stderr.
 */
#include <criterion/criterion.h>
#include <msgpack.h>
#include <sys/wait.h>

#include "checkpoint_store.h"
#include "weir/file_sink.h"
#include "weir/generator.h"
#include "weir/job.h"
#include "weir/window.h"
#include "diag/test_diag_support.h"

#define WEIR WEIR_BINARY_DIR "/tools/weir"

typedef struct cli {
    int status;
    char *out, *err;
} cli;

/* `weir checkpoint ARGS` in dir. */
static cli run(const char *dir, const char *args)
{
    cr_assert(td_exists(WEIR), "%s is missing: build the weir-cli target", WEIR);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' checkpoint %s >cli.out 2>cli.err </dev/null", dir,
             WEIR, args);
    int st = system(cmd);
    cr_assert(st != -1 && WIFEXITED(st), "weir checkpoint %s did not exit normally", args);
    return (cli){.status = WEXITSTATUS(st),
                 .out = td_read(td_path(dir, "cli.out"), NULL),
                 .err = td_read(td_path(dir, "cli.err"), NULL)};
}

/* The same, ended by timeout(1) after 20 s (exit 124) if it waits. */
static cli run_bounded(const char *dir, const char *args)
{
    cr_assert(td_exists(WEIR), "%s is missing: build the weir-cli target", WEIR);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && timeout 20 '%s' checkpoint %s >cli.out 2>cli.err </dev/null", dir, WEIR,
             args);
    int st = system(cmd);
    cr_assert(st != -1 && WIFEXITED(st), "weir checkpoint %s did not exit normally", args);
    cr_assert_neq(WEXITSTATUS(st), 124, "weir checkpoint %s was still waiting after 20 s", args);
    return (cli){.status = WEXITSTATUS(st),
                 .out = td_read(td_path(dir, "cli.out"), NULL),
                 .err = td_read(td_path(dir, "cli.err"), NULL)};
}

static void cli_free(cli *c)
{
    free(c->out);
    free(c->err);
}

/* Checkpoint `id` in dir/ckpt with one state file per subtask. */
static void write_checkpoint(const char *dir, int64_t id)
{
    weir__chk_writer w;
    cr_assert_eq(weir__chk_begin(&w, td_path(dir, "ckpt"), id), 0, "%s", w.err);
    cr_assert_eq(weir__chk_write(&w, "window-0", "panes of subtask 0", 18), 0, "%s", w.err);
    cr_assert_eq(weir__chk_write(&w, "window-1", "panes of subtask 1!", 19), 0, "%s", w.err);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 1);
    msgpack_pack_str_with_body(&pk, "operators", 9);
    msgpack_pack_int(&pk, 1);
    cr_assert_eq(weir__chk_commit(&w, sb.data, sb.size, 3), 0, "%s", w.err);
    msgpack_sbuffer_destroy(&sb);
    weir__chk_writer_free(&w);
}

static void assert_has(const char *text, const char *part)
{
    cr_assert(strstr(text, part), "\"%s\" is not in:\n%s", part, text);
}

Test(checkpoint_cli, good_checkpoints_are_listed_newest_first)
{
    char *dir = td_tmpdir();
    write_checkpoint(dir, 1);
    write_checkpoint(dir, 2);
    cli c = run(dir, "inspect ckpt");
    cr_assert_eq(c.status, 0, "%s", c.err);
    cr_assert_str_eq(c.err, "");
    const char *two = strstr(c.out, "chk-2:"), *one = strstr(c.out, "chk-1:");
    cr_assert(two && one && two < one, "%s", c.out);
    assert_has(c.out, "  window-1                           19 bytes  ok\n");
    assert_has(c.out, "complete, every file verifies: checkpoint 2, 2 state files, 37 bytes");
    assert_has(c.out, "  job: {\"operators\":1}\n");
    assert_has(c.out, "a restore from ckpt takes checkpoint 2\n");
    cli_free(&c);
    /* a chk-N folder on its own */
    c = run(dir, "inspect ckpt/chk-1");
    cr_assert_eq(c.status, 0, "%s", c.err);
    assert_has(c.out, "a restore from ckpt/chk-1 takes checkpoint 1\n");
    cr_assert_null(strstr(c.out, "chk-2"));
    cli_free(&c);
    td_rmdir(dir);
}

Test(checkpoint_cli, a_broken_newest_checkpoint_is_shown_and_passed_over)
{
    char *dir = td_tmpdir();
    write_checkpoint(dir, 1);
    write_checkpoint(dir, 2);
    write_checkpoint(dir, 3);
    /* chk-3 never completed; a byte of chk-2's second file went bad */
    cr_assert_eq(unlink(td_path(dir, "ckpt/chk-3/_metadata")), 0);
    size_t n;
    char *bytes = td_read(td_path(dir, "ckpt/chk-2/window-1"), &n);
    bytes[n - 1] ^= 1;
    td_write(td_path(dir, "ckpt/chk-2/window-1"), bytes, n);
    free(bytes);
    cli c = run(dir, "inspect ckpt");
    cr_assert_eq(c.status, 0, "%s", c.err);
    assert_has(c.out, "ckpt/chk-3/_metadata: missing: the checkpoint did not complete\n");
    assert_has(c.out, "  window-0                           18 bytes  ok\n");
    assert_has(c.out, "ckpt/chk-2/window-1: checksum mismatch: the file is corrupt\n");
    assert_has(c.out, "a restore from ckpt takes checkpoint 1\n");
    cli_free(&c);
    td_rmdir(dir);
}

/* FIFOs the test makes in place of chk-3's _metadata and chk-2's window-0:
 * each listed as not a regular file, and the restore would take chk-1.
 * Bounded: timeout(1) ends a weir that would wait in open(). */
Test(checkpoint_cli, a_fifo_in_place_of_a_file_is_named_not_waited_on, .timeout = 60)
{
    char *dir = td_tmpdir();
    write_checkpoint(dir, 1);
    write_checkpoint(dir, 2);
    write_checkpoint(dir, 3);
    cr_assert_eq(unlink(td_path(dir, "ckpt/chk-3/_metadata")), 0);
    cr_assert_eq(mkfifo(td_path(dir, "ckpt/chk-3/_metadata"), 0600), 0);
    cr_assert_eq(unlink(td_path(dir, "ckpt/chk-2/window-0")), 0);
    cr_assert_eq(mkfifo(td_path(dir, "ckpt/chk-2/window-0"), 0600), 0);
    cli c = run_bounded(dir, "inspect ckpt");
    cr_assert_eq(c.status, 0, "%s", c.err);
    assert_has(c.out, "ckpt/chk-3/_metadata: is a FIFO, not a regular file\n");
    assert_has(c.out, "ckpt/chk-2/window-0: is a FIFO, not a regular file\n");
    assert_has(c.out, "a restore from ckpt takes checkpoint 1\n");
    cli_free(&c);
    /* the folder named on its own: nothing to restore, and why */
    c = run_bounded(dir, "inspect ckpt/chk-3");
    cr_assert_eq(c.status, 1, "%s", c.err);
    assert_has(c.err, "ckpt/chk-3/_metadata: is a FIFO, not a regular file");
    cli_free(&c);
    td_rmdir(dir);
}

Test(checkpoint_cli, nothing_to_restore_fails)
{
    char *dir = td_tmpdir();
    write_checkpoint(dir, 1);
    cr_assert_eq(truncate(td_path(dir, "ckpt/chk-1/window-0"), 7), 0);
    cli c = run(dir, "inspect ckpt");
    cr_assert_eq(c.status, 1);
    assert_has(c.out, "ckpt/chk-1/window-0: cut short: 7 bytes, less than the 32-byte header");
    assert_has(c.err, "weir checkpoint inspect: no checkpoint to restore: ckpt: none of its 1 "
                      "checkpoints is complete and verifies");
    cli_free(&c);
    c = run(dir, "inspect nowhere");
    cr_assert_eq(c.status, 1);
    assert_has(c.err, "weir checkpoint inspect: nowhere: no such folder");
    cli_free(&c);
    c = run(dir, "frobnicate ckpt");
    cr_assert_eq(c.status, 2);
    assert_has(c.err, "unknown command 'frobnicate'");
    cli_free(&c);
    c = run(dir, "--help");
    cr_assert_eq(c.status, 0);
    assert_has(c.out, "usage: weir checkpoint inspect PATH");
    cli_free(&c);
    td_rmdir(dir);
}

static void count_reduce(void *acc, const void *elem, void *arg)
{
    (void)arg;
    ((weir_gen_event *)acc)->value += ((const weir_gen_event *)elem)->value;
}

static int format_event(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)arg;
    const weir_gen_event *e = elem;
    return snprintf(buf, size, "%lld %lld %lld", (long long)e->key, (long long)ts,
                    (long long)e->value);
}

/* A job's own checkpoint: its operators, each subtask's file and size, the
 * key groups of a keyed one. A job with checkpoints always ends with its
 * final checkpoint, so even a short run leaves one. */
Test(checkpoint_cli, a_jobs_checkpoint_lists_operators)
{
    char *dir = td_tmpdir();
    char ckpt[4096], out[4096];
    snprintf(ckpt, sizeof ckpt, "%s/ckpt", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    char capture[4096];
    snprintf(capture, sizeof capture, "%s/run.jsonl", dir);
    weir_job_config cfg = {.workers = 2,
                           .parallelism = 2,
                           .diag = {.jsonl_path = capture},
                           .checkpoint = {.interval_ms = 5, .dir = ckpt}};
    weir_job *job = NULL;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_generator_config g = {.name = "events", .keys = 10, .rate = 1000, .count = 500, .seed = 3,
                               .pace = WEIR_GEN_PACED, .speed = 5};
    weir_stream *s = weir_source_generator(job, &g);
    s = weir_stream_key_by(s, weir_generator_key());
    weir_window_spec w = {.assigner = weir_window_tumbling(100, 0),
                          .reduce = count_reduce,
                          .out_size = sizeof(weir_gen_event)};
    s = weir_stream_set_uid(weir_stream_window(s, &w), "counts");
    weir_file_sink_config fc = {.dir = out, .format = format_event};
    cr_assert_not_null(weir_sink_file(s, &fc));
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    weir_job_destroy(job);
    cli c = run(dir, "inspect ckpt");
    cr_assert_eq(c.status, 0, "%s", c.err);
    assert_has(c.out, "the job's final checkpoint");
    assert_has(c.out, "max parallelism 128");
    assert_has(c.out, "operator events: source, parallelism 2\n");
    assert_has(c.out, "operator counts (window): keyed, parallelism 2\n");
    assert_has(c.out, "key groups 64-127\n");
    assert_has(c.out, "operator sink_file: not keyed, parallelism 2\n");
    assert_has(c.out, "subtask 1   sink_file-1");
    cli_free(&c);
    /* the capture's checkpoint events: valid, and summed up */
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' capture validate run.jsonl >v.out 2>&1 && '%s' capture summary "
             "run.jsonl >s.out 2>&1",
             dir, WEIR, WEIR);
    int st = system(cmd);
    char *v = td_read(td_path(dir, "v.out"), NULL);
    cr_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", v);
    free(v);
    char *sum = td_read(td_path(dir, "s.out"), NULL);
    assert_has(sum, "\ncheckpoints: ");
    assert_has(sum, "max alignment ms");
    assert_has(sum, "operator  subtask  snapshots  max alignment ms");
    free(sum);
    char *jl = td_read(capture, NULL);
    assert_has(jl, "\"kind\":\"checkpoint_end\",\"t\":");
    assert_has(jl, "\"status\":\"completed\"");
    free(jl);
    td_rmdir(dir);
}
