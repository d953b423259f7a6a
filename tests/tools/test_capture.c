/* test_capture.c — `weir capture` as a user runs it: the real binary
 * (WEIR_BINARY_DIR/tools/weir) on captures that real runs wrote.
 *
 * Good captures: convert gives back the run's JSONL byte for byte; validate
 * says "valid: N events"; summary reports what the events say (window
 * firings, the channel that held a watermark back, the producer feeding
 * it). Bad ones — a truncated msgpack file, a JSONL line that is not JSON, a
 * missing file, counters that do not add up, a watermark going back — make
 * every subcommand exit 1 with the first problem and its place on stderr,
 * print nothing on stdout, and leave no output file behind (an existing one
 * untouched). Usage errors exit 2.
 */
#include <criterion/criterion.h>
#include <msgpack.h>
#include <stdarg.h>
#include <sys/wait.h>

#include "diag/test_diag_support.h"

#define WEIR WEIR_BINARY_DIR "/tools/weir"

typedef struct cli {
    int status;
    char *out, *err;
} cli;

static void cli_free(cli *c)
{
    free(c->out);
    free(c->err);
}

/* format(printf, 3, 0): fmt is checked at run()'s and run_to()'s callers. */
static cli vrun(const char *dir, const char *stdout_to, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static cli vrun(const char *dir, const char *stdout_to, const char *fmt, va_list ap)
{
    cr_assert(td_exists(WEIR), "%s is missing: build the weir-cli target", WEIR);
    char args[2048], cmd[4096];
    vsnprintf(args, sizeof args, fmt, ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && rm -f cli.out && '%s' %s >%s 2>cli.err", dir, WEIR,
             args, stdout_to);
    int st = system(cmd);
    cr_assert(st != -1 && WIFEXITED(st), "weir %s did not exit normally", args);
    cli c = {.status = WEXITSTATUS(st)};
    c.out = td_exists(td_path(dir, "cli.out")) ? td_read(td_path(dir, "cli.out"), NULL)
                                               : strdup("");
    c.err = td_read(td_path(dir, "cli.err"), NULL);
    return c;
}

/* Runs `weir ARGS` (a shell word list) in dir; stdin from /dev/null unless
 * ARGS redirects it. */
static cli run(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static cli run(const char *dir, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli c = vrun(dir, "cli.out", fmt, ap);
    va_end(ap);
    return c;
}

/* The same with standard output going to `stdout_to` (a shell word). */
static cli run_to(const char *dir, const char *stdout_to, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static cli run_to(const char *dir, const char *stdout_to, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli c = vrun(dir, stdout_to, fmt, ap);
    va_end(ap);
    return c;
}

/* ---- captures ------------------------------------------------------------- */

/* The window job into DIR/NAME.jsonl and DIR/NAME.msgpack. */
static void window_capture(const char *dir, const char *name, weir_diag_level level)
{
    char jl[64], mp[64];
    snprintf(jl, sizeof jl, "%s.jsonl", name);
    snprintf(mp, sizeof mp, "%s.msgpack", name);
    weir_job_config cfg = {.diag = {.level = level,
                                    .jsonl_path = td_path(dir, jl),
                                    .msgpack_path = td_path(dir, mp)}};
    td_window_job w;
    td_window_job_make(&w, &cfg);
    tu_run_ok(w.job);
    weir_job_destroy(w.job);
}

/* The merge map of held_capture(): passes every element on, and fails the
 * job at its element *arg (0: never). */
static int pass_or_fail(const void *in, void *out, void *arg)
{
    long *left = arg;
    if (*left > 0 && --*left == 0)
        return WEIR_EINVAL;
    memcpy(out, in, sizeof(weir_gen_event));
    return 0;
}

/* Partition 2 of 3 goes quiet at 300 ms; the valve of "merge" is held by its
 * channel 2 (test_diag_held_by.c), and the valves of the sink behind it by
 * the channel from "merge". With fail_at > 0 "merge" fails the run at that
 * element, while its watermark is held: the run ends below MAX. */
static void held_capture_failing(const char *dir, long fail_at)
{
    weir_job_config cfg = {.workers = 1, .clock = WEIR_CLOCK_VIRTUAL, .watermark_interval_ms = 10,
                           .diag.jsonl_path = td_path(dir, "held.jsonl")};
    weir_job *job = tu_job(&cfg);
    weir_generator_config g = {.partitions = 3, .keys = 20, .rate = 1000,
                               .pace = WEIR_GEN_PACED, .count = 1000, .disorder_ms = 5,
                               .seed = 11,
                               .idle = {{.partition = 2, .from_ms = 300, .to_ms = WEIR_TS_MAX}},
                               .nidle = 1};
    weir_stream *s = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(5)};
    s = weir_stream_set_parallelism(weir_stream_assign_timestamps(s, &ts), 3);
    long left = fail_at;
    s = weir_stream_map(weir_stream_key_by(s, td_gen_keys()), sizeof(weir_gen_event),
                        pass_or_fail, &left);
    s = weir_stream_set_parallelism(weir_stream_set_name(s, "merge"), 1);
    weir_stream *sink = weir_sink_discard(weir_stream_rebalance(s));
    cr_assert_not_null(weir_stream_set_parallelism(sink, 2), "%s", weir_job_error(job));
    if (fail_at > 0)
        cr_assert_eq(weir_job_run(job), WEIR_EINVAL, "%s", weir_job_error(job));
    else
        tu_run_ok(job);
    weir_job_destroy(job);
}

static void held_capture(const char *dir)
{
    held_capture_failing(dir, 0);
}

/* The row of `op` (a whole line, without its newline) in the section that
 * starts with `section`. */
static void section_row(const char *report, const char *section, const char *op, char *line,
                        size_t size)
{
    const char *sec = strstr(report, section);
    cr_assert_not_null(sec, "no section %s in:\n%s", section, report);
    char pat[64];
    snprintf(pat, sizeof pat, "\n  %s ", op);
    const char *row = strstr(sec, pat);
    cr_assert_not_null(row, "no row %s in:\n%s", op, report);
    const char *eol = strchr(row + 1, '\n');
    snprintf(line, size, "%.*s", (int)(eol - row - 1), row + 1);
}

/* The line under the first watermarks row of `op`: its longest stall's
 * span and cause ("t FROM..TO: held by ..."), its continuation lines
 * joined. */
static void stall_note(const char *report, const char *op, char *line, size_t size)
{
    char row[512];
    section_row(report, "\nwatermarks", op, row, sizeof row);
    const char *at = strstr(strstr(report, "\nwatermarks"), row);
    const char *p = strchr(at, '\n') + 1;
    cr_assert_eq(strncmp(p, "    t ", 6), 0, "no stall under the row of %s:\n%s", op, report);
    size_t n = 0;
    line[0] = '\0';
    for (bool first = true; first || strncmp(p, "      ", 6) == 0; first = false) {
        const char *eol = strchr(p, '\n');
        const char *text = p + strspn(p, " ");
        n += (size_t)snprintf(line + n, size - n, "%s%.*s", first ? "" : " ", (int)(eol - text),
                              text);
        cr_assert_lt(n, size);
        p = eol + 1;
    }
}

/* The line of "held at the end" that starts with `who` ("merge subtask
 * 0:"), its wrapped continuation lines joined. */
static void held_line(const char *held, const char *who, char *line, size_t size)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\n    %s", who);
    const char *p = strstr(held, pat);
    cr_assert_not_null(p, "no %s in:\n%s", who, held);
    p += 5;
    size_t n = 0;
    for (bool first = true; first || strncmp(p, "        ", 8) == 0; first = false) {
        const char *eol = strchr(p, '\n');
        const char *text = p + strspn(p, " ");
        n += (size_t)snprintf(line + n, size - n, "%s%.*s", first ? "" : " ", (int)(eol - text),
                              text);
        cr_assert_lt(n, size);
        p = eol + 1;
    }
}

typedef struct lines {
    char **v;
    size_t n;
} lines;

static lines read_lines(const char *path)
{
    char *text = td_read(path, NULL);
    lines l = {0};
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        cr_assert_not_null(nl);
        l.v = realloc(l.v, (l.n + 1) * sizeof *l.v);
        l.v[l.n++] = strndup(p, (size_t)(nl - p));
        p = nl + 1;
    }
    free(text);
    return l;
}

static void write_lines(const char *path, const lines *l)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    for (size_t i = 0; i < l->n; i++)
        fprintf(f, "%s\n", l->v[i]);
    cr_assert_eq(fclose(f), 0);
}

static void free_lines(lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static void replace_line(lines *l, size_t i, json_t *ev)
{
    free(l->v[i]);
    l->v[i] = json_dumps(ev, JSON_COMPACT);
    cr_assert_not_null(l->v[i]);
}

/* Asserts a failed run: status 1, nothing on stdout, exactly `err` on
 * stderr (or starting with it, when prefix is set). */
static void assert_fails(cli c, const char *err, bool prefix)
{
    cr_assert_eq(c.status, 1, "exit status %d; stderr: %s", c.status, c.err);
    cr_assert_str_empty(c.out, "stdout: %s", c.out);
    if (prefix)
        cr_assert_eq(strncmp(c.err, err, strlen(err)), 0, "stderr \"%s\" does not start \"%s\"",
                     c.err, err);
    else
        cr_assert_str_eq(c.err, err);
    cli_free(&c);
}

/* validate and summary both refuse `file` with `err`. */
static void assert_refused(const char *dir, const char *file, const char *err, bool prefix)
{
    assert_fails(run(dir, "capture validate %s", file), err, prefix);
    assert_fails(run(dir, "capture summary %s", file), err, prefix);
}

/* ---- good captures -------------------------------------------------------- */

Test(capture, convert_gives_back_the_runs_jsonl_byte_for_byte, .timeout = 120)
{
    char *dir = td_tmpdir();
    window_capture(dir, "std", WEIR_DIAG_STANDARD);
    window_capture(dir, "verbose", WEIR_DIAG_VERBOSE);
    const char *names[] = {"std", "verbose"};
    for (int i = 0; i < 2; i++) {
        char in[64], out[64], jl[64];
        snprintf(in, sizeof in, "%s.msgpack", names[i]);
        snprintf(out, sizeof out, "%s.converted.jsonl", names[i]);
        snprintf(jl, sizeof jl, "%s.jsonl", names[i]);
        cli c = run(dir, "capture convert %s %s", in, out);
        cr_assert_eq(c.status, 0, "%s", c.err);
        lines l = read_lines(td_path(dir, jl));
        char want[128];
        snprintf(want, sizeof want, "converted %zu events to %s\n", l.n, out);
        cr_assert_str_eq(c.out, want);
        cr_assert_str_empty(c.err);
        cli_free(&c);
        size_t a, b;
        char *x = td_read(td_path(dir, jl), &a), *y = td_read(td_path(dir, out), &b);
        cr_assert_eq(a, b, "%s: %zu bytes converted, %zu written by the run", names[i], b, a);
        cr_assert_eq(memcmp(x, y, a), 0, "%s: the converted capture differs", names[i]);
        char partial[80];
        snprintf(partial, sizeof partial, "%s.partial", out);
        cr_assert(!td_exists(td_path(dir, partial)));
        free(x);
        free(y);
        free_lines(&l);
    }
    /* convert reads msgpack only */
    assert_fails(run(dir, "capture convert std.jsonl again.jsonl"),
                 "std.jsonl: is JSONL already (convert reads a msgpack capture)\n", false);
    cr_assert(!td_exists(td_path(dir, "again.jsonl")));
    cr_assert(!td_exists(td_path(dir, "again.jsonl.partial")));
    td_rmdir(dir);
}

Test(capture, validate_says_how_many_events_are_valid, .timeout = 120)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_VERBOSE);
    lines l = read_lines(td_path(dir, "c.jsonl"));
    char want[64];
    snprintf(want, sizeof want, "valid: %zu events\n", l.n);
    const char *files[] = {"c.jsonl", "c.msgpack", "- < c.msgpack"};
    for (int i = 0; i < 3; i++) {
        cli c = run(dir, "capture validate %s", files[i]);
        cr_assert_eq(c.status, 0, "%s: %s", files[i], c.err);
        cr_assert_str_eq(c.out, want);
        cr_assert_str_empty(c.err);
        cli_free(&c);
    }
    free_lines(&l);

    /* a lossy capture that dropped events is valid and says so */
    weir_job_config cfg = {.diag = {.level = WEIR_DIAG_VERBOSE, .lossy = true,
                                    .ring_capacity = 1, .jsonl_path = td_path(dir, "lossy.jsonl")}};
    td_window_job w;
    td_window_job_make(&w, &cfg);
    tu_run_ok(w.job);
    weir_job_destroy(w.job);
    l = read_lines(td_path(dir, "lossy.jsonl"));
    json_t *sum = td_json(l.v[l.n - 1]);
    int64_t dropped = td_int(sum, "dropped_events");
    json_decref(sum);
    cli c = run(dir, "capture validate lossy.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    if (dropped)
        snprintf(want, sizeof want, "valid: %zu events (and %lld dropped by the lossy channel)\n",
                 l.n, (long long)dropped);
    else
        snprintf(want, sizeof want, "valid: %zu events\n", l.n);
    cr_assert_str_eq(c.out, want);
    cli_free(&c);
    free_lines(&l);
    td_rmdir(dir);
}

Test(capture, a_kind_from_a_later_weir_is_skipped_and_counted, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_SUMMARY);
    lines l = read_lines(td_path(dir, "c.jsonl"));
    cr_assert_eq(l.n, 2);
    json_t *sum = td_json(l.v[1]);
    json_object_set_new(sum, "events", json_integer(2));
    lines m = {.v = malloc(3 * sizeof(char *)), .n = 3};
    m.v[0] = strdup(l.v[0]);
    m.v[1] = strdup("{\"kind\":\"rescale\",\"t\":5,\"op\":\"elsewhere\",\"subtask\":99}");
    m.v[2] = json_dumps(sum, JSON_COMPACT);
    write_lines(td_path(dir, "future.jsonl"), &m);
    cli c = run(dir, "capture validate future.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    cr_assert_str_eq(c.out, "valid: 3 events; 1 of kinds this weir does not know, skipped\n");
    cli_free(&c);
    c = run(dir, "capture summary future.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    tu_assert_contains(c.out, "level summary");
    cli_free(&c);
    /* a known kind at level summary is not something that level writes */
    free(m.v[1]);
    m.v[1] = strdup("{\"kind\":\"throughput\",\"t\":5,\"op\":\"window\",\"subtask\":0,"
                    "\"interval_ms\":5,\"in\":0,\"out\":0}");
    write_lines(td_path(dir, "level.jsonl"), &m);
    assert_refused(dir, "level.jsonl",
                   "level.jsonl:2: throughput event in a capture at level summary (only job and "
                   "summary events)\n",
                   false);
    json_decref(sum);
    free_lines(&m);
    free_lines(&l);
    td_rmdir(dir);
}

static int fail_late(const void *in, void *out, void *arg)
{
    (void)arg;
    const weir_gen_event *e = in;
    if (e->seq == 300)
        return WEIR_ERANGE;
    memcpy(out, in, sizeof *e);
    return 0;
}

Test(capture, a_failed_runs_capture_is_valid_and_says_it_failed, .timeout = 60)
{
    char *dir = td_tmpdir();
    weir_job_config cfg = {.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                           .diag.jsonl_path = td_path(dir, "failed.jsonl")};
    weir_job *job = tu_job(&cfg);
    weir_generator_config g = {.partitions = 2, .rate = 1000, .pace = WEIR_GEN_PACED,
                               .count = 1000, .seed = 5};
    weir_stream *s = weir_stream_map(weir_source_generator(job, &g), sizeof(weir_gen_event),
                                     fail_late, NULL);
    cr_assert_not_null(weir_sink_discard(weir_stream_rebalance(s)));
    cr_assert_lt(weir_job_run(job), 0);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", weir_job_error(job));
    weir_job_destroy(job);
    lines l = read_lines(td_path(dir, "failed.jsonl"));
    cli c = run(dir, "capture validate failed.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    char want[1024];
    snprintf(want, sizeof want,
             "valid: %zu events; the run failed (%s), so its counters were not checked\n", l.n,
             msg);
    cr_assert_str_eq(c.out, want);
    cli_free(&c);
    free_lines(&l);
    td_rmdir(dir);
}

/* The integers in the row of `op` in the report section that starts with
 * `section`: the row's blank-separated words that are whole integers, in
 * order, up to 8. */
static int report_row(const char *report, const char *section, const char *op, long long *v)
{
    const char *s = strstr(report, section);
    cr_assert_not_null(s, "no section \"%s\" in:\n%s", section, report);
    char pat[64];
    snprintf(pat, sizeof pat, "\n  %s ", op);
    const char *row = strstr(s, pat);
    cr_assert_not_null(row, "no row for %s in \"%s\"", op, section);
    row += strlen(pat);
    const char *eol = strchr(row, '\n');
    char line[1024];
    snprintf(line, sizeof line, "%.*s", eol ? (int)(eol - row) : (int)strlen(row), row);
    int n = 0;
    for (char *save = NULL, *w = strtok_r(line, " ", &save); w && n < 8;
         w = strtok_r(NULL, " ", &save)) {
        char *end;
        long long x = strtoll(w, &end, 10);
        if (end != w && *end == '\0')
            v[n++] = x;
    }
    return n;
}

Test(capture, summary_reports_what_the_events_say, .timeout = 120)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    lines l = read_lines(td_path(dir, "c.jsonl"));
    long long on_time = 0, late = 0, fired = 0, merges = 0, cleanups = 0;
    for (size_t i = 0; i < l.n; i++) {
        json_t *ev = td_json(l.v[i]);
        const char *kind = td_str(ev, "kind");
        if (strcmp(kind, "window_fire") == 0) {
            on_time += td_int(ev, "firing") == 0;
            late += td_int(ev, "firing") > 0;
            fired += td_int(ev, "count");
        }
        merges += strcmp(kind, "merge") == 0;
        cleanups += strcmp(kind, "cleanup") == 0;
        json_decref(ev);
    }
    json_t *sum = td_json(l.v[l.n - 1]);
    cli c = run(dir, "capture summary c.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    cr_assert_str_empty(c.err);
    char head[256];
    snprintf(head, sizeof head,
             "capture c.jsonl: JSONL, %zu events, level standard, clock virtual, 1 worker, "
             "lossless\nprocessing time: %lld ms\n",
             l.n, (long long)td_int(sum, "t"));
    cr_assert_eq(strncmp(c.out, head, strlen(head)), 0, "report starts:\n%.300s", c.out);
    long long v[8];
    cr_assert_eq(report_row(c.out, "\nwindows and late elements", "window", v), 7);
    cr_assert_eq(v[0], on_time);
    cr_assert_eq(v[1], late);
    cr_assert_eq(v[2], fired);
    cr_assert_eq(v[3], td_total(sum, "window", "late_dropped"));
    cr_assert_eq(v[4], td_total(sum, "window", "late_side"));
    cr_assert_eq(v[5], merges);
    cr_assert_eq(v[6], cleanups);
    /* the operators table: p, task; the records table: in, out */
    cr_assert_eq(report_row(c.out, "\noperators", "window", v), 2);
    cr_assert_eq(v[0], 2);
    cr_assert_geq(report_row(c.out, "\nrecords", "window", v), 2);
    cr_assert_eq(v[0], td_total(sum, "window", "in"));
    cr_assert_eq(v[1], td_total(sum, "window", "out"));
    tu_assert_contains(c.out, "\nwatermarks (each operator subtask's output",
                       "\nbackpressure (time blocked on a full output)\n", "\nidleness (time");
    /* the msgpack capture gives the same report */
    cli m = run(dir, "capture summary c.msgpack");
    cr_assert_eq(m.status, 0, "%s", m.err);
    const char *a = strchr(c.out, '\n'), *b = strchr(m.out, '\n');
    cr_assert_str_eq(b, a);
    cr_assert_eq(strncmp(m.out, "capture c.msgpack: msgpack, ", 28), 0);
    cli_free(&m);
    cli_free(&c);
    json_decref(sum);
    free_lines(&l);
    td_rmdir(dir);
}

Test(capture, summary_names_the_channel_that_held_the_watermark, .timeout = 60)
{
    char *dir = td_tmpdir();
    held_capture(dir);
    cli c = run(dir, "capture summary held.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    /* the longest stall of "merge" lasted until partition 2 ended, held by
     * the channel fed by timestamps subtask 2; the sink's, by the channel
     * from "merge", and behind it that same channel */
    char line[512];
    stall_note(c.out, "merge", line, sizeof line);
    tu_assert_contains(line, ", to MAX: held by input 0 channel 2 (\"timestamps\" subtask 2)");
    cr_assert_null(strstr(line, "<-"), "%s", line);
    stall_note(c.out, "sink", line, sizeof line);
    tu_assert_contains(line, ", to MAX: held by input 0 channel 0 (\"merge\" subtask 0) <- input 0 "
                             "channel 2 (\"timestamps\" subtask 2)");
    long long v[8];
    /* subtask, advances, the stall in ms ("MAX" and "n/a" are not numbers) */
    cr_assert_geq(report_row(c.out, "\nwatermarks", "merge", v), 3);
    cr_assert_eq(v[0], 0);
    cr_assert_gt(v[2], 500, "a stall of %lld ms", v[2]);
    /* every watermark reached MAX: none held at the end */
    cr_assert_null(strstr(c.out, "held at the end"), "%s", c.out);
    cli_free(&c);
    td_rmdir(dir);
}

/* A run that ends while a watermark is held (failed here; a cancelled
 * unbounded read alike) has no advance that ends the stall: the report
 * lists each output still held, since when and by what, as the valve holds
 * it at the end. */
Test(capture, summary_names_what_held_a_watermark_when_the_run_ended, .timeout = 60)
{
    char *dir = td_tmpdir();
    held_capture_failing(dir, 990);
    cli c = run(dir, "capture summary held.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    tu_assert_contains(c.out, "the run failed: ",
                       "\n  held at the end of the run (not idle, below MAX):\n");
    const char *held = strstr(c.out, "held at the end");
    char line[512];
    held_line(held, "merge subtask 0:", line, sizeof line);
    tu_assert_contains(line, ": held by input 0 channel 2 (\"timestamps\" subtask 2)");
    held_line(held, "sink subtask 0:", line, sizeof line);
    tu_assert_contains(line, ": held by input 0 channel 0 (\"merge\" subtask 0) <- input 0 "
                             "channel 2 (\"timestamps\" subtask 2)");
    /* held since partition 2 went quiet: ms and the span (t FROM..TO) */
    long long ms, from, to;
    held_line(held, "merge subtask 0:", line, sizeof line);
    const char *m = strstr(line, " for ");
    cr_assert_eq(sscanf(m, " for %lld ms (t %lld..%lld)", &ms, &from, &to), 3, "%s", m);
    cr_assert_geq(from, 300);
    cr_assert_gt(to, from);
    cr_assert_leq(ms, to - from);
    cr_assert_gt(ms, 0);
    cli_free(&c);
    td_rmdir(dir);
}

/* The names SQL gives its operators are their plans, a hundred characters
 * and more: the report's tables cut them to 24 characters (at a character,
 * not inside one: "größe" is UTF-8), two that would read the same get their
 * operator's number, and the operators section gives every one whole, so
 * that no line is wider than 100 columns and nothing is lost. Once a row of
 * the watermarks table was 300 characters wide. */
static const char *const LONG_TS =
    "WatermarkAssigner(rowtime=[ts], watermark=[ts - INTERVAL '0.005' SECOND])";
static const char *const LONG_MERGE =
    "Calc(select=[key, value, ts, größe], where=[value > 0 AND key IS NOT NULL AND ts > 0])";
static const char *const LONG_SINK =
    "Calc(select=[key, value, ts, größe], where=[value > 0]) -> Sink(discard, parallelism=2)";

static size_t columns(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xc0) != 0x80;
    return c;
}

Test(capture, summary_lines_fit_100_columns_and_keep_long_names_whole, .timeout = 60)
{
    char *dir = td_tmpdir();
    weir_job_config cfg = {.workers = 1, .clock = WEIR_CLOCK_VIRTUAL, .watermark_interval_ms = 10,
                           .diag.jsonl_path = td_path(dir, "long.jsonl")};
    weir_job *job = tu_job(&cfg);
    weir_generator_config g = {.partitions = 3, .keys = 20, .rate = 1000,
                               .pace = WEIR_GEN_PACED, .count = 600, .disorder_ms = 5,
                               .seed = 11,
                               .idle = {{.partition = 2, .from_ms = 300, .to_ms = WEIR_TS_MAX}},
                               .nidle = 1};
    weir_stream *s = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(5)};
    s = weir_stream_set_parallelism(
        weir_stream_set_name(weir_stream_assign_timestamps(s, &ts), LONG_TS), 3);
    long never = 0;
    s = weir_stream_map(weir_stream_key_by(s, td_gen_keys()), sizeof(weir_gen_event),
                        pass_or_fail, &never);
    s = weir_stream_set_parallelism(weir_stream_set_name(s, LONG_MERGE), 1);
    weir_stream *sink = weir_stream_set_name(weir_sink_discard(weir_stream_rebalance(s)), LONG_SINK);
    cr_assert_not_null(weir_stream_set_parallelism(sink, 2), "%s", weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);

    cli c = run(dir, "capture summary long.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    for (const char *p = c.out; *p;) {
        const char *eol = strchr(p, '\n');
        cr_assert_not_null(eol);
        cr_assert_leq(columns(p, (size_t)(eol - p)), 100u, "a line of %zu columns: %.*s",
                      columns(p, (size_t)(eol - p)), (int)(eol - p), p);
        p = eol + 1;
    }
    /* cut in the tables, a character whole; the twins told apart */
    tu_assert_contains(c.out, "\n  WatermarkAssigner(rowti…  ", "\n  Calc(select=[key, val…#3  ",
                       "\n  Calc(select=[key, val…#4  ");
    /* every name whole in the operators section (its wrapped lines joined) */
    const char *full = strstr(c.out, "\n  names cut above and below, in full:\n");
    cr_assert_not_null(full, "%s", c.out);
    const char *end = strstr(full, "\n\n");
    char joined[2048];
    size_t n = 0;
    for (const char *p = full; p < end; p++) {
        if (*p == '\n' && strncmp(p + 1, "      ", 6) == 0) {
            joined[n++] = ' ';
            p += 6;
        } else
            joined[n++] = *p;
        cr_assert_lt(n, sizeof joined);
    }
    joined[n] = '\0';
    char want[256];
    snprintf(want, sizeof want, "    WatermarkAssigner(rowti… = %s\n", LONG_TS);
    tu_assert_contains(joined, want);
    snprintf(want, sizeof want, "    Calc(select=[key, val…#3 = %s\n", LONG_MERGE);
    tu_assert_contains(joined, want);
    snprintf(want, sizeof want, "    Calc(select=[key, val…#4 = %s", LONG_SINK);
    tu_assert_contains(joined, want);
    /* the stall's cause names the producer by the same short name */
    char line[512];
    stall_note(c.out, "Calc(select=[key, val…#3", line, sizeof line);
    tu_assert_contains(line, ": held by input 0 channel 2 (\"WatermarkAssigner(rowti…\" subtask 2)");
    cli_free(&c);
    td_rmdir(dir);
}

/* ---- bad captures --------------------------------------------------------- */

Test(capture, a_truncated_msgpack_capture_is_refused_and_nothing_is_written, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    size_t size;
    char *data = td_read(td_path(dir, "c.msgpack"), &size);
    td_write(td_path(dir, "cut.msgpack"), data, size / 2);
    free(data);
    /* where: what the library's reader says about the same bytes */
    weir_capture_reader *r;
    char err[512];
    cr_assert_eq(weir_capture_reader_open("cut.msgpack", &r, err, sizeof err), WEIR_ENOENT);
    cr_assert_eq(weir_capture_reader_open(td_path(dir, "cut.msgpack"), &r, err, sizeof err), 0);
    const char *json;
    int e;
    while ((e = weir_capture_reader_next(r, &json, NULL)) == WEIR_CAPTURE_EVENT)
        ;
    cr_assert_eq(e, WEIR_EFORMAT);
    char want[600], want_convert[700];
    snprintf(want, sizeof want,
             "cut.msgpack: byte offset %lld: the capture was cut short in the middle of an event "
             "(the writing process stopped)",
             (long long)weir_capture_reader_offset(r));
    cr_assert(weir_capture_reader_cut(r));
    weir_capture_reader_close(r);
    snprintf(want_convert, sizeof want_convert, "%s; --partial reads what is complete\n", want);
    strcat(want, "\n");
    assert_refused(dir, "cut.msgpack", want, false);
    /* convert: no output, and an existing one keeps what it had */
    td_write(td_path(dir, "old.jsonl"), "old\n", 4);
    assert_fails(run(dir, "capture convert cut.msgpack old.jsonl"), want_convert, false);
    assert_fails(run(dir, "capture convert cut.msgpack new.jsonl"), want_convert, false);
    char *old = td_read(td_path(dir, "old.jsonl"), NULL);
    cr_assert_str_eq(old, "old\n");
    free(old);
    cr_assert(!td_exists(td_path(dir, "new.jsonl")));
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c partial", dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    int n = -1;
    cr_assert_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    cr_assert_eq(n, 0, "a temporary file was left behind");
    td_rmdir(dir);
}

Test(capture, a_line_that_is_not_json_is_refused_with_its_line_and_column, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    lines l = read_lines(td_path(dir, "c.jsonl"));
    free(l.v[3]);
    l.v[3] = strdup("    hello world");
    write_lines(td_path(dir, "bad.jsonl"), &l);
    /* jansson's column: where it saw the token go wrong */
    assert_refused(dir, "bad.jsonl", "bad.jsonl:4:9: not JSON: '[' or '{' expected near 'hello'\n",
                   false);
    /* an object cut short: the column is where it ends */
    free(l.v[3]);
    l.v[3] = strdup("{\"kind\":\"watermark\",");
    write_lines(td_path(dir, "bad.jsonl"), &l);
    assert_refused(dir, "bad.jsonl", "bad.jsonl:4:", true);
    free_lines(&l);
    td_rmdir(dir);
}

Test(capture, a_missing_file_is_refused)
{
    char *dir = td_tmpdir();
    const char *want = "nope.jsonl: cannot open: No such file or directory\n";
    assert_refused(dir, "nope.jsonl", want, false);
    assert_fails(run(dir, "capture convert nope.jsonl out.jsonl"), want, false);
    cr_assert(!td_exists(td_path(dir, "out.jsonl")));
    cr_assert(!td_exists(td_path(dir, "out.jsonl.partial")));
    td_rmdir(dir);
}

Test(capture, counters_that_do_not_add_up_are_refused, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    lines l = read_lines(td_path(dir, "c.jsonl"));
    json_t *sum = td_json(l.v[l.n - 1]);
    json_t *w = td_counters(sum, "window", 1);
    cr_assert_not_null(w);
    json_object_set_new(w, "absorbed", json_integer(td_int(w, "absorbed") + 1));
    replace_line(&l, l.n - 1, sum);
    write_lines(td_path(dir, "bad.jsonl"), &l);
    char want[256];
    snprintf(want, sizeof want,
             "bad.jsonl:%zu: summary event: the counters of \"window\" subtask 1 do not add up "
             "(window: in ",
             l.n);
    assert_refused(dir, "bad.jsonl", want, true);
    /* and a sink said to emit */
    json_object_set_new(w, "absorbed", json_integer(td_int(w, "absorbed") - 1));
    json_t *sink = td_counters(sum, "sink", 0);
    json_object_set_new(sink, "out", json_integer(3));
    replace_line(&l, l.n - 1, sum);
    write_lines(td_path(dir, "bad.jsonl"), &l);
    snprintf(want, sizeof want,
             "bad.jsonl:%zu: summary event: sink \"sink\" subtask 0 emitted 3 records (sink: out = 0)\n",
             l.n);
    assert_refused(dir, "bad.jsonl", want, false);
    /* a window's filtered elements (in no window, not late) count in its
     * identity: moved from absorbed to filtered, the books still balance */
    json_object_set_new(sink, "out", json_integer(0));
    json_object_set_new(w, "absorbed", json_integer(td_int(w, "absorbed") - 1));
    json_object_set_new(w, "filtered", json_integer(td_int(w, "filtered") + 1));
    replace_line(&l, l.n - 1, sum);
    write_lines(td_path(dir, "moved.jsonl"), &l);
    cli c = run(dir, "capture validate moved.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    cli_free(&c);
    json_decref(sum);
    free_lines(&l);
    td_rmdir(dir);
}

Test(capture, the_job_events_weir_version_is_optional_and_a_string, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_SUMMARY);
    lines l = read_lines(td_path(dir, "c.jsonl"));
    json_t *job = td_json(l.v[0]);
    cr_assert_str_eq(td_str(job, "weir_version"), weir_version());
    /* a capture of a weir before 0.1.0 has none: still valid */
    json_object_del(job, "weir_version");
    replace_line(&l, 0, job);
    write_lines(td_path(dir, "old.jsonl"), &l);
    cli c = run(dir, "capture validate old.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    cli_free(&c);
    json_object_set_new(job, "weir_version", json_integer(1));
    replace_line(&l, 0, job);
    write_lines(td_path(dir, "bad.jsonl"), &l);
    assert_refused(dir, "bad.jsonl",
                   "bad.jsonl:1: job event: \"weir_version\" must be a string, not an integer\n",
                   false);
    json_decref(job);
    free_lines(&l);
    td_rmdir(dir);
}

/* ---- version 3: a window's cleanup in its on-time firing ------------------ */

static void keep_last(void *acc, const void *elem, void *arg)
{
    (void)arg;
    memcpy(acc, elem, sizeof(weir_gen_event));
}

/* Tumbling windows with allowed lateness 0: each window's cleanup rides in
 * its on-time window_fire ("cleanup":true). */
static void folded_capture(const char *dir)
{
    weir_job_config cfg = {.workers = 1, .clock = WEIR_CLOCK_VIRTUAL, .watermark_interval_ms = 10,
                           .diag.jsonl_path = td_path(dir, "f.jsonl")};
    weir_job *job = tu_job(&cfg);
    weir_generator_config g = {.partitions = 2, .keys = 4, .rate = 500, .pace = WEIR_GEN_PACED,
                               .count = 300, .disorder_ms = 5, .seed = 5};
    weir_stream *s = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(5)};
    weir_stream *keyed = weir_stream_key_by(weir_stream_assign_timestamps(s, &ts), td_gen_keys());
    weir_window_spec w = {.name = "window", .assigner = weir_window_tumbling(50, 0),
                          .reduce = keep_last, .out_size = sizeof(weir_gen_event)};
    cr_assert_not_null(weir_sink_discard(weir_stream_window(keyed, &w)), "%s",
                       weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
}

static void assert_refused_with(const char *dir, const char *file, const char *what)
{
    cli c = run(dir, "capture validate %s", file);
    cr_assert_eq(c.status, 1, "%s: exit status %d; stderr: %s", file, c.status, c.err);
    cr_assert_not_null(strstr(c.err, what), "%s: stderr: %s", file, c.err);
    cli_free(&c);
}

Test(capture, a_cleanup_in_its_firing_is_version_3_and_old_captures_still_read, .timeout = 60)
{
    char *dir = td_tmpdir();
    folded_capture(dir);
    lines l = read_lines(td_path(dir, "f.jsonl"));
    json_t *job = td_json(l.v[0]);
    cr_assert_eq(td_int(job, "version"), 3);
    long long carried = 0, cleanups = 0;
    size_t first = 0;
    /* the same run as version 2 wrote it: the cleanup an event of its own,
     * right after the firing */
    lines old = {0};
    for (size_t i = 0; i < l.n; i++) {
        json_t *ev = td_json(l.v[i]);
        const char *kind = td_str(ev, "kind");
        cleanups += strcmp(kind, "cleanup") == 0;
        json_t *cleanup = NULL;
        if (strcmp(kind, "window_fire") == 0 && json_object_get(ev, "cleanup")) {
            cr_assert(json_is_true(json_object_get(ev, "cleanup")), "%s", l.v[i]);
            carried++;
            first = first ? first : i;
            cleanup = json_pack("{sssIsOsOsOsOsO}", "kind", "cleanup", "t",
                                (json_int_t)td_int(ev, "t"), "op", json_object_get(ev, "op"),
                                "subtask", json_object_get(ev, "subtask"), "key",
                                json_object_get(ev, "key"), "start", json_object_get(ev, "start"),
                                "end", json_object_get(ev, "end"));
            json_object_del(ev, "cleanup");
        }
        if (i == 0)
            json_object_set_new(ev, "version", json_integer(2));
        old.v = realloc(old.v, (old.n + 2) * sizeof *old.v);
        old.v[old.n++] = json_dumps(ev, JSON_COMPACT);
        if (cleanup) {
            old.v[old.n++] = json_dumps(cleanup, JSON_COMPACT);
            json_decref(cleanup);
        }
        json_decref(ev);
    }
    cr_assert_gt(carried, 0, "no firing carries its cleanup");
    cr_assert_eq(cleanups, 0, "a cleanup event beside the firings that carry theirs");
    /* the summary's events count: what is before it */
    json_t *sum = td_json(old.v[old.n - 1]);
    json_object_set_new(sum, "events", json_integer((json_int_t)old.n - 1));
    replace_line(&old, old.n - 1, sum);
    json_decref(sum);
    write_lines(td_path(dir, "v2.jsonl"), &old);
    /* both read, and both report every window's cleanup */
    const char *files[] = {"f.jsonl", "v2.jsonl"};
    for (int k = 0; k < 2; k++) {
        cli c = run(dir, "capture validate %s", files[k]);
        cr_assert_eq(c.status, 0, "%s: %s", files[k], c.err);
        cli_free(&c);
        c = run(dir, "capture summary %s", files[k]);
        cr_assert_eq(c.status, 0, "%s: %s", files[k], c.err);
        long long v[8];
        cr_assert_eq(report_row(c.out, "\nwindows and late elements", "window", v), 7);
        cr_assert_eq(v[6], carried, "%s: %lld cleanups reported, %lld windows", files[k], v[6],
                     carried);
        cli_free(&c);
    }
    /* a version 2 capture has no cleanup in a firing; it is never false; a
     * late firing has none */
    json_t *fire = td_json(l.v[first]);
    json_object_set_new(job, "version", json_integer(2));
    replace_line(&l, 0, job);
    write_lines(td_path(dir, "bad.jsonl"), &l);
    assert_refused_with(dir, "bad.jsonl", "\"cleanup\" is a field of version 3");
    json_object_set_new(job, "version", json_integer(3));
    replace_line(&l, 0, job);
    json_object_set_new(fire, "cleanup", json_false());
    replace_line(&l, first, fire);
    write_lines(td_path(dir, "bad.jsonl"), &l);
    assert_refused_with(dir, "bad.jsonl", "\"cleanup\" is written only as true");
    json_object_set_new(fire, "cleanup", json_true());
    json_object_set_new(fire, "on_time", json_false());
    json_object_set_new(fire, "firing", json_integer(1));
    replace_line(&l, first, fire);
    write_lines(td_path(dir, "bad.jsonl"), &l);
    assert_refused_with(dir, "bad.jsonl", "\"cleanup\" on a late firing");
    json_decref(fire);
    json_decref(job);
    free_lines(&old);
    free_lines(&l);
    td_rmdir(dir);
}

Test(capture, a_watermark_going_back_is_refused_at_its_line, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    lines l = read_lines(td_path(dir, "c.jsonl"));
    /* the second output watermark of window subtask 0, put below the first */
    int64_t first = INT64_MIN;
    size_t at = 0;
    for (size_t i = 0; i < l.n && !at; i++) {
        json_t *ev = td_json(l.v[i]);
        if (strcmp(td_str(ev, "kind"), "watermark") == 0 &&
            strcmp(td_str(ev, "op"), "window") == 0 && td_int(ev, "subtask") == 0 &&
            !json_object_get(ev, "input")) {
            if (first == INT64_MIN) {
                first = td_ts(ev, "watermark");
            } else {
                json_object_set_new(ev, "watermark", json_integer(first - 1));
                replace_line(&l, i, ev);
                at = i + 1;
            }
        }
        json_decref(ev);
    }
    cr_assert_gt(at, 0);
    write_lines(td_path(dir, "back.jsonl"), &l);
    char want[256];
    snprintf(want, sizeof want,
             "back.jsonl:%zu: watermark event: the watermark of \"window\" subtask 0 went back "
             "from %lld to %lld\n",
             at, (long long)first, (long long)first - 1);
    assert_refused(dir, "back.jsonl", want, false);
    free_lines(&l);
    td_rmdir(dir);
}

Test(capture, a_capture_cut_short_or_out_of_order_is_refused, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    lines l = read_lines(td_path(dir, "c.jsonl"));
    size_t n = l.n;
    l.n = n - 1; /* no summary */
    write_lines(td_path(dir, "cut.jsonl"), &l);
    char want[256];
    json_t *last = td_json(l.v[n - 2]);
    const char *last_kind = td_str(last, "kind");
    cr_assert_not_null(last_kind, "the event before the summary has no kind");
    snprintf(want, sizeof want,
             "cut.jsonl:%zu: the capture is cut short: its last event is a %s event, not the "
             "summary\n",
             n - 1, last_kind);
    json_decref(last);
    assert_refused(dir, "cut.jsonl", want, false);
    l.n = n;
    /* the job event not first */
    char *job = l.v[0];
    l.v[0] = l.v[1];
    l.v[1] = job;
    write_lines(td_path(dir, "order.jsonl"), &l);
    assert_refused(dir, "order.jsonl", "order.jsonl:1: the first event is ", true);
    l.v[1] = l.v[0];
    l.v[0] = job;
    /* an operator that is not in the job */
    json_t *ev = td_json(l.v[1]);
    json_object_set_new(ev, "op", json_string("ghost"));
    char *keep = l.v[1];
    l.v[1] = json_dumps(ev, JSON_COMPACT);
    json_decref(ev);
    write_lines(td_path(dir, "ghost.jsonl"), &l);
    assert_refused(dir, "ghost.jsonl", "ghost.jsonl:2: ", true);
    free(l.v[1]);
    l.v[1] = keep;
    free_lines(&l);
    td_rmdir(dir);
}

Test(capture, a_text_file_that_is_not_json_is_refused_at_its_first_line, .timeout = 60)
{
    char *dir = td_tmpdir();
    /* 'h', '[' and 0x91 would be a msgpack integer, an array: not a capture
     * of either kind, and said so as JSONL, at line 1 */
    static const struct {
        const char *data;
        size_t len;
    } files[] = {{"hello\n", 6}, {"\x91\x01\n", 3}, {"   nope\n{}\n", 11}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        td_write(td_path(dir, "bad.txt"), files[i].data, files[i].len);
        const char *cmds[] = {"validate", "summary"};
        for (int k = 0; k < 2; k++) {
            cli c = run(dir, "capture %s bad.txt", cmds[k]);
            cr_assert_eq(c.status, 1, "case %zu: %s", i, c.err);
            cr_assert_str_empty(c.out);
            cr_assert_eq(strncmp(c.err, "bad.txt:1:", 10), 0, "case %zu: %s", i, c.err);
            tu_assert_contains(c.err, ": not JSON: ");
            cli_free(&c);
        }
    }
    /* a byte order mark in front of a good capture is skipped */
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    size_t len;
    char *text = td_read(td_path(dir, "c.jsonl"), &len);
    char *bom = malloc(len + 3);
    cr_assert_not_null(bom);
    memcpy(bom, "\xef\xbb\xbf", 3);
    memcpy(bom + 3, text, len);
    td_write(td_path(dir, "bom.jsonl"), bom, len + 3);
    cli c = run(dir, "capture validate bom.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    tu_assert_contains(c.out, "valid: ");
    cli_free(&c);
    free(bom);
    free(text);
    td_rmdir(dir);
}

/* Finds the first event of `kind` (and op, if not NULL) whose `key` is the
 * string "MIN" or "MAX", sets it to the integer, and returns its line
 * (1-based), or 0. */
static size_t integer_extreme(lines *l, const char *kind, const char *key)
{
    for (size_t i = 0; i < l->n; i++) {
        json_t *ev = td_json(l->v[i]);
        json_t *v = json_object_get(ev, key);
        if (strcmp(td_str(ev, "kind"), kind) == 0 && json_is_string(v)) {
            bool max = strcmp(json_string_value(v), "MAX") == 0;
            json_object_set_new(ev, key, json_integer(max ? INT64_MAX : INT64_MIN));
            replace_line(l, i, ev);
            json_decref(ev);
            return i + 1;
        }
        json_decref(ev);
    }
    return 0;
}

Test(capture, int64_extremes_written_as_integers_are_refused, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    /* the end-of-input watermark, MAX, as an integer */
    lines l = read_lines(td_path(dir, "c.jsonl"));
    size_t at = integer_extreme(&l, "watermark", "watermark");
    cr_assert_gt(at, 0);
    write_lines(td_path(dir, "max.jsonl"), &l);
    char want[512];
    snprintf(want, sizeof want,
             "max.jsonl:%zu: watermark event: \"watermark\" is INT64_%s written as the integer "
             "%lld (the capture writes it as the string \"%s\")\n",
             at, strstr(l.v[at - 1], "-9223") ? "MIN" : "MAX",
             strstr(l.v[at - 1], "-9223") ? (long long)INT64_MIN : (long long)INT64_MAX,
             strstr(l.v[at - 1], "-9223") ? "MIN" : "MAX");
    assert_refused(dir, "max.jsonl", want, false);
    free_lines(&l);
    /* the watermark of a window firing: the first throughput's max_ts is
     * "MIN" for a subtask that took nothing in yet; any field will do */
    l = read_lines(td_path(dir, "c.jsonl"));
    for (size_t i = 0; i < l.n; i++) {
        json_t *ev = td_json(l.v[i]);
        if (strcmp(td_str(ev, "kind"), "late") == 0) {
            json_t *w = json_array_get(json_object_get(ev, "windows"), 0);
            json_array_set_new(w, 0, json_integer(INT64_MIN));
            replace_line(&l, i, ev);
            at = i + 1;
            json_decref(ev);
            break;
        }
        json_decref(ev);
    }
    write_lines(td_path(dir, "min.jsonl"), &l);
    snprintf(want, sizeof want,
             "min.jsonl:%zu: late event: \"windows[0][0]\" is INT64_MIN written as the integer "
             "%lld (the capture writes it as the string \"MIN\")\n",
             at, (long long)INT64_MIN);
    assert_refused(dir, "min.jsonl", want, false);
    free_lines(&l);
    td_rmdir(dir);
}

/* The byte offset of every event of a msgpack file (and the end). */
static size_t *msgpack_offsets(const char *data, size_t size, size_t *n)
{
    size_t cap = 1024, k = 0, off = 0;
    size_t *v = malloc(cap * sizeof *v);
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    while (off < size) {
        if (k + 1 == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[k++] = off;
        cr_assert_eq(msgpack_unpack_next(&up, data, size, &off), MSGPACK_UNPACK_SUCCESS);
    }
    v[k] = off;
    msgpack_unpacked_destroy(&up);
    *n = k;
    return v;
}

Test(capture, a_msgpack_capture_cut_between_two_events_is_cut_short, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    size_t size, n;
    char *data = td_read(td_path(dir, "c.msgpack"), &size);
    size_t *off = msgpack_offsets(data, size, &n);
    /* without its summary: every event before it is whole */
    td_write(td_path(dir, "cut.msgpack"), data, off[n - 1]);
    lines l = read_lines(td_path(dir, "c.jsonl"));
    cr_assert_eq(l.n, n);
    json_t *last = td_json(l.v[n - 2]);
    char where[128], want[512];
    snprintf(where, sizeof where, "cut.msgpack: byte offset %zu", off[n - 2]);
    snprintf(want, sizeof want,
             "%s: the capture is cut short: its last event is a %s event, not the summary "
             "(convert --partial converts it anyway)\n",
             where, td_str(last, "kind"));
    assert_fails(run(dir, "capture convert cut.msgpack out.jsonl"), want, false);
    cr_assert(!td_exists(td_path(dir, "out.jsonl")));
    cr_assert(!td_exists(td_path(dir, "out.jsonl.partial")));
    snprintf(want, sizeof want,
             "%s: the capture is cut short: its last event is a %s event, not the summary\n",
             where, td_str(last, "kind"));
    assert_refused(dir, "cut.msgpack", want, false);
    /* --partial converts what is there, exactly */
    cli c = run(dir, "capture convert --partial cut.msgpack out.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    char ok[256];
    snprintf(ok, sizeof ok, "converted %zu events to out.jsonl (--partial: it may be cut short)\n",
             n - 1);
    cr_assert_str_eq(c.out, ok);
    cli_free(&c);
    lines m = read_lines(td_path(dir, "out.jsonl"));
    cr_assert_eq(m.n, n - 1);
    for (size_t i = 0; i < m.n; i++)
        cr_assert_str_eq(m.v[i], l.v[i]);
    /* and a whole capture converts with it as without */
    c = run(dir, "capture convert c.msgpack --partial whole.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    cli_free(&c);
    json_decref(last);
    free_lines(&m);
    free_lines(&l);
    free(off);
    free(data);
    td_rmdir(dir);
}

Test(capture, output_that_cannot_be_written_is_an_error, .timeout = 60)
{
    cr_assert(td_exists("/dev/full"));
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    const char *want = "weir capture: cannot write to standard output: No space left on device\n";
    const char *cmds[] = {"summary c.jsonl", "validate c.msgpack", "convert c.msgpack o.jsonl",
                          "--help"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        cli c = run_to(dir, "/dev/full", "capture %s", cmds[i]);
        cr_assert_eq(c.status, 1, "%s: exit status %d", cmds[i], c.status);
        cr_assert_str_eq(c.err, want, "%s", cmds[i]);
        cli_free(&c);
    }
    td_rmdir(dir);
}

Test(capture, convert_says_why_an_input_is_not_a_msgpack_capture, .timeout = 60)
{
    char *dir = td_tmpdir();
    td_write(td_path(dir, "empty.msgpack"), "", 0);
    assert_fails(run(dir, "capture convert empty.msgpack out.jsonl"),
                 "empty.msgpack: is empty: no events (convert reads a msgpack capture)\n", false);
    td_write(td_path(dir, "text.msgpack"), "hello\n", 6);
    assert_fails(run(dir, "capture convert text.msgpack out.jsonl"),
                 "text.msgpack: is not a msgpack capture (it does not start with a msgpack "
                 "map)\n",
                 false);
    td_write(td_path(dir, "j.jsonl"), " {\"kind\":\"job\"}\n", 16);
    assert_fails(run(dir, "capture convert j.jsonl out.jsonl"),
                 "j.jsonl: is JSONL already (convert reads a msgpack capture)\n", false);
    cr_assert(!td_exists(td_path(dir, "out.jsonl")));
    cr_assert(!td_exists(td_path(dir, "out.jsonl.partial")));
    /* validate and summary say an empty file has no events */
    assert_refused(dir, "empty.msgpack",
                   "empty.msgpack: no events (a capture starts with a job event)\n", false);
    td_rmdir(dir);
}

/* The cells of the row of `op` subtask `sub` in the watermarks table (the
 * table separates cells by two or more spaces). */
static int watermark_cells(const char *report, const char *op, int sub, char cells[][64], int max)
{
    const char *sec = strstr(report, "\nwatermarks");
    cr_assert_not_null(sec);
    const char *end = strstr(sec + 1, "\n\n");
    cr_assert_not_null(end);
    char pat[64];
    snprintf(pat, sizeof pat, "\n  %s ", op);
    for (const char *row = strstr(sec, pat); row && row < end; row = strstr(row + 1, pat)) {
        const char *eol = strchr(row + 1, '\n');
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(eol - row - 1), row + 1);
        int n = 0;
        for (char *p = line; *p && n < max;) {
            while (*p == ' ')
                p++;
            char *gap = strstr(p, "  ");
            size_t len = gap ? (size_t)(gap - p) : strlen(p);
            snprintf(cells[n++], 64, "%.*s", (int)len, p);
            p += len;
        }
        if (n > 1 && atoi(cells[1]) == sub && strcmp(cells[0], op) == 0)
            return n;
    }
    cr_assert_fail("no row %s/%d in:\n%s", op, sub, report);
    return 0;
}

static bool is_count(const char *s)
{
    if (!*s)
        return false;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
    }
    return true;
}

Test(capture, summary_lag_is_known_at_standard_level_and_never_negative, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    cli c = run(dir, "capture summary c.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    /* operator, subtask, advances, final, max lag, final lag, stall, cause */
    char cells[8][64];
    for (int sub = 0; sub < 3; sub++) {
        cr_assert_geq(watermark_cells(c.out, "timestamps", sub, cells, 8), 6);
        /* a bounded watermark of 10 is at least 11 behind the elements */
        cr_assert(is_count(cells[4]) && atoi(cells[4]) >= 11, "timestamps/%d max lag %s", sub,
                  cells[4]);
        cr_assert(is_count(cells[5]) && atoi(cells[5]) >= 11, "timestamps/%d final lag %s", sub,
                  cells[5]);
    }
    for (int sub = 0; sub < 2; sub++) {
        cr_assert_geq(watermark_cells(c.out, "window", sub, cells, 8), 6);
        cr_assert(is_count(cells[4]), "window/%d max lag %s", sub, cells[4]);
        cr_assert(is_count(cells[5]), "window/%d final lag %s", sub, cells[5]);
    }
    cr_assert_null(strstr(c.out, "lag n/a"), "%s", c.out);
    cli_free(&c);
    /* at level summary there is nothing to measure it by */
    window_capture(dir, "s", WEIR_DIAG_SUMMARY);
    c = run(dir, "capture summary s.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    cli_free(&c);
    td_rmdir(dir);
}

/* ---- usage ---------------------------------------------------------------- */

Test(capture, usage_and_help)
{
    char *dir = td_tmpdir();
    cli c = run(dir, "capture");
    cr_assert_eq(c.status, 2);
    tu_assert_contains(c.err, "usage: weir capture COMMAND", "convert IN OUT", "validate FILE",
                       "summary FILE");
    cli_free(&c);
    c = run(dir, "capture --help");
    cr_assert_eq(c.status, 0);
    tu_assert_contains(c.out, "usage: weir capture COMMAND");
    cli_free(&c);
    const char *subs[] = {"convert", "validate", "summary"};
    for (int i = 0; i < 3; i++) {
        c = run(dir, "capture %s --help", subs[i]);
        cr_assert_eq(c.status, 0);
        char want[64];
        snprintf(want, sizeof want, "usage: weir capture %s ", subs[i]);
        tu_assert_contains(c.out, want);
        cr_assert_str_empty(c.err);
        cli_free(&c);
        c = run(dir, "capture %s", subs[i]);
        cr_assert_eq(c.status, 2, "%s without arguments", subs[i]);
        tu_assert_contains(c.err, "expected", want);
        cli_free(&c);
    }
    c = run(dir, "capture validate --strict x.jsonl");
    cr_assert_eq(c.status, 2);
    tu_assert_contains(c.err, "unknown option '--strict'");
    cli_free(&c);
    c = run(dir, "capture frobnicate");
    cr_assert_eq(c.status, 2);
    tu_assert_contains(c.err, "unknown command 'frobnicate'");
    cli_free(&c);
    c = run(dir, "--help");
    cr_assert_eq(c.status, 0);
    tu_assert_contains(c.out, "  capture ", "  script ");
    cli_free(&c);
    td_rmdir(dir);
}

/* ---- where convert writes ------------------------------------------------- */

/* A symbolic link OUT is written through: the file it names gets the JSONL
 * and the link stays a link. A pipe OUT is written in place: renaming a
 * regular file over it would leave the reader waiting on a pipe that is no
 * longer there (and, as root, `convert x /dev/null` replaced the device). */
Test(capture, convert_writes_through_a_link_and_into_a_pipe, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    char *want = td_read(td_path(dir, "c.jsonl"), NULL);
    cr_assert_eq(symlink("target.jsonl", td_path(dir, "link.jsonl")), 0);
    td_write(td_path(dir, "target.jsonl"), "old\n", 4);
    cli c = run(dir, "capture convert c.msgpack link.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    cli_free(&c);
    struct stat st;
    cr_assert_eq(lstat(td_path(dir, "link.jsonl"), &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "link.jsonl was replaced by a file");
    char *got = td_read(td_path(dir, "target.jsonl"), NULL);
    cr_assert_str_eq(got, want);
    free(got);
    /* a link to a file not there yet: the file is made */
    cr_assert_eq(symlink("new-target.jsonl", td_path(dir, "dangling.jsonl")), 0);
    c = run(dir, "capture convert c.msgpack dangling.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    cli_free(&c);
    got = td_read(td_path(dir, "new-target.jsonl"), NULL);
    cr_assert_str_eq(got, want);
    free(got);
    /* a pipe, read by a cat in the background (bounded: it ends when the
     * writer closes, or after 20 s if none ever opens the pipe) */
    cr_assert_eq(mkfifo(td_path(dir, "pipe"), 0600), 0);
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && { timeout 20 cat pipe > piped.jsonl & timeout 20 '%s' capture convert "
             "c.msgpack pipe >/dev/null; r=$?; wait; exit $r; }",
             dir, WEIR);
    int status = system(cmd);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "convert into a pipe failed");
    cr_assert_eq(stat(td_path(dir, "pipe"), &st), 0);
    cr_assert(S_ISFIFO(st.st_mode), "the pipe was replaced by a file");
    got = td_read(td_path(dir, "piped.jsonl"), NULL);
    cr_assert_str_eq(got, want);
    free(got);
    free(want);
    td_rmdir(dir);
}

/* The name a killed run leaves behind (NAME.partial) converted to NAME: the
 * temporary file convert writes cannot be its input, nor anything else that
 * is there (mkstemp makes a new name), and IN as OUT is refused. */
Test(capture, convert_never_writes_over_its_input_or_a_file_it_did_not_make, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    size_t size;
    char *mp = td_read(td_path(dir, "c.msgpack"), &size);
    td_write(td_path(dir, "run.msgpack.partial"), mp, size);
    cli c = run(dir, "capture convert --partial run.msgpack.partial run.msgpack");
    cr_assert_eq(c.status, 0, "%s", c.err);
    cli_free(&c);
    size_t after;
    char *kept = td_read(td_path(dir, "run.msgpack.partial"), &after);
    cr_assert(after == size && memcmp(kept, mp, size) == 0, "the input was changed");
    free(kept);
    char *want = td_read(td_path(dir, "c.jsonl"), NULL);
    char *got = td_read(td_path(dir, "run.msgpack"), NULL);
    cr_assert_str_eq(got, want);
    free(got);
    /* a file called OUT.partial is someone else's: left alone */
    td_write(td_path(dir, "out.jsonl.partial"), "mine\n", 5);
    c = run(dir, "capture convert c.msgpack out.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    cli_free(&c);
    got = td_read(td_path(dir, "out.jsonl.partial"), NULL);
    cr_assert_str_eq(got, "mine\n");
    free(got);
    /* IN as OUT, directly or through a link */
    cr_assert_eq(symlink("c.msgpack", td_path(dir, "alias")), 0);
    assert_fails(run(dir, "capture convert c.msgpack c.msgpack"),
                 "c.msgpack: is the input too (convert writes a new file, not over its input)\n",
                 false);
    assert_fails(run(dir, "capture convert c.msgpack alias"),
                 "alias: is the input too (convert writes a new file, not over its input)\n",
                 false);
    kept = td_read(td_path(dir, "c.msgpack"), &after);
    cr_assert(after == size && memcmp(kept, mp, size) == 0, "the input was changed");
    free(kept);
    free(want);
    free(mp);
    /* no temporary file was left behind */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c partial", dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    int n = -1;
    cr_assert_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    cr_assert_eq(n, 2, "temporary files left behind"); /* run.msgpack.partial, out.jsonl.partial */
    td_rmdir(dir);
}

/* ---- counters near INT64_MAX ---------------------------------------------- */

/* Sums of counters are checked: in 5 = out MAX + filtered MAX + 7 holds in
 * wrapping arithmetic (signed overflow, undefined behaviour) and must not
 * pass. */
Test(capture, counters_whose_sum_overflows_do_not_add_up, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    lines l = read_lines(td_path(dir, "c.jsonl"));
    json_t *sum = td_json(l.v[l.n - 1]);
    json_t *ops = json_object_get(sum, "operators");
    json_t *one = NULL;
    for (size_t i = 0; i < json_array_size(ops) && !one; i++) {
        json_t *o = json_array_get(ops, i);
        if (strcmp(td_str(o, "accounting"), "one_to_one") == 0)
            one = o;
    }
    cr_assert_not_null(one, "no one_to_one operator in the window job");
    json_object_set_new(one, "in", json_integer(5));
    json_object_set_new(one, "out", json_integer(INT64_MAX));
    json_object_set_new(one, "filtered", json_integer(INT64_MAX));
    json_object_set_new(one, "late_dropped", json_integer(7));
    json_object_set_new(one, "late_side", json_integer(0));
    char want[512];
    snprintf(want, sizeof want,
             "bad.jsonl:%zu: summary event: the counters of \"%s\" subtask %lld do not add up "
             "(one_to_one: in 5 != out 9223372036854775807 + filtered 9223372036854775807 + "
             "late_dropped 7 + late_side 0 = more than 9223372036854775807)\n",
             l.n, td_str(one, "op"), (long long)td_int(one, "subtask"));
    replace_line(&l, l.n - 1, sum);
    write_lines(td_path(dir, "bad.jsonl"), &l);
    assert_refused(dir, "bad.jsonl", want, false);
    json_decref(sum);
    free_lines(&l);
    td_rmdir(dir);
}

/* ---- captures cut by a kill ----------------------------------------------- */

/* A killed run leaves a JSONL capture whose last line stops in the middle: it
 * was cut short, which is what the message says (not "not JSON"). */
Test(capture, a_jsonl_capture_cut_in_a_line_says_it_was_cut_short, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    lines l = read_lines(td_path(dir, "c.jsonl"));
    FILE *f = fopen(td_path(dir, "cut.jsonl"), "wb");
    cr_assert_not_null(f);
    for (size_t i = 0; i < 5; i++)
        fprintf(f, "%s\n", l.v[i]);
    fprintf(f, "%.*s", (int)strlen(l.v[5]) / 2, l.v[5]);
    cr_assert_eq(fclose(f), 0);
    assert_refused(dir, "cut.jsonl",
                   "cut.jsonl:6: the capture was cut short in the middle of its last line (the "
                   "writing process stopped)\n",
                   false);
    /* a last line that is not JSON but ends with its newline is no cut */
    f = fopen(td_path(dir, "bad.jsonl"), "ab");
    cr_assert_not_null(f);
    for (size_t i = 0; i < 5; i++)
        fprintf(f, "%s\n", l.v[i]);
    fprintf(f, "%.*s\n", (int)strlen(l.v[5]) / 2, l.v[5]);
    cr_assert_eq(fclose(f), 0);
    assert_refused(dir, "bad.jsonl", "bad.jsonl:6:", true);
    cli c = run(dir, "capture validate bad.jsonl");
    cr_assert(strstr(c.err, "not JSON"), "%s", c.err);
    cli_free(&c);
    free_lines(&l);
    td_rmdir(dir);
}

/* A msgpack capture cut in the middle of an event: convert says so and
 * points at --partial, which converts every event before the cut. */
Test(capture, convert_partial_reads_what_is_complete_of_a_capture_cut_in_an_event, .timeout = 60)
{
    char *dir = td_tmpdir();
    window_capture(dir, "c", WEIR_DIAG_STANDARD);
    size_t size, n;
    char *data = td_read(td_path(dir, "c.msgpack"), &size);
    size_t *off = msgpack_offsets(data, size, &n);
    cr_assert_gt(n, 10);
    /* cut in the middle of the 10th event */
    td_write(td_path(dir, "cut.msgpack"), data, off[9] + (off[10] - off[9]) / 2);
    char want[512];
    snprintf(want, sizeof want,
             "cut.msgpack: byte offset %zu: the capture was cut short in the middle of an event "
             "(the writing process stopped); --partial reads what is complete\n",
             off[9]);
    assert_fails(run(dir, "capture convert cut.msgpack out.jsonl"), want, false);
    cr_assert(!td_exists(td_path(dir, "out.jsonl")));
    cli c = run(dir, "capture convert --partial cut.msgpack out.jsonl");
    cr_assert_eq(c.status, 0, "%s", c.err);
    cr_assert_str_eq(c.out, "converted 9 events to out.jsonl (--partial: it may be cut short)\n");
    cli_free(&c);
    lines l = read_lines(td_path(dir, "c.jsonl"));
    lines m = read_lines(td_path(dir, "out.jsonl"));
    cr_assert_eq(m.n, 9);
    for (size_t i = 0; i < m.n; i++)
        cr_assert_str_eq(m.v[i], l.v[i]);
    free_lines(&m);
    free_lines(&l);
    free(off);
    free(data);
    td_rmdir(dir);
}

/* ---- standard output ------------------------------------------------------ */

/* Every command's output that could not be written is exit status 1 with
 * the reason, not a silent 0. */
Test(capture, every_command_fails_when_its_output_cannot_be_written, .timeout = 120)
{
    cr_assert(td_exists("/dev/full"));
    char *dir = td_tmpdir();
    td_write(td_path(dir, "s.weir"), "op passthrough\nrec 0 5\n", 23);
    static const struct {
        const char *args, *who;
    } cmds[] = {
        {"--help", "weir"},
        {"script s.weir", "weir script"},
        {"script --help", "weir script"},
        {"demo --out d", "weir demo"},
        {"demo --help", "weir demo"},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        cli c = run_to(dir, "/dev/full", "%s", cmds[i].args);
        char want[128];
        /* the reason is ENOSPC, or EIO when a write the command made before
         * the final flush lost it */
        snprintf(want, sizeof want, "%s: cannot write to standard output: ", cmds[i].who);
        cr_assert_eq(c.status, 1, "%s: exit status %d", cmds[i].args, c.status);
        cr_assert(strstr(c.err, want), "%s: stderr: %s", cmds[i].args, c.err);
        cli_free(&c);
    }
    td_rmdir(dir);
}
