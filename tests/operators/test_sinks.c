/* test_sinks.c — where records leave a job: collect (in memory), print (one
 * line per record to a FILE), callback (a user function per record) and
 * discard.
 *
 * Sinks are the only operators whose output a user sees directly, so each
 * promise of stream.h is checked literally: collect's order (subtask 0's
 * records in arrival order, then subtask 1's, ...), its timestamps and odd
 * element sizes; print's exact line text, its "SUBTASK> " prefix only with
 * parallelism > 1, and the cut at 1023 bytes; callback's subtask argument;
 * and that discard really consumes everything (its upstream sees every
 * record and the job ends).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "support/weir_testutil.h"

static uint64_t *iota(size_t n)
{
    uint64_t *v = malloc(n * sizeof *v);
    cr_assert_not_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = i;
    return v;
}

/* ---- collect -------------------------------------------------------------- */

Test(collect, parallel_order_is_subtask_by_subtask, .timeout = 60)
{
    enum { N = 10001 };
    uint64_t *vals = iota(N);
    int64_t *ts = malloc(N * sizeof *ts);
    for (size_t i = 0; i < N; i++)
        ts[i] = (int64_t)(i * 2);
    /* Source and sink at parallelism 4, chained: sink subtask i holds slice
     * i, so reading 0, 1, 2, 3 in turn gives back the array. */
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 4});
    weir_collect *c;
    weir_sink_collect(weir_source_array(job, vals, N, 8, ts), &c);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(c), (size_t)N);
    for (size_t i = 0; i < N; i++) {
        uint64_t v;
        memcpy(&v, weir_collect_elem(c, i), 8);
        cr_assert_eq(v, i, "collect element %zu is %llu", i, (unsigned long long)v);
        cr_assert_eq(weir_collect_timestamp(c, i), (int64_t)(i * 2));
    }
    /* Past the end: no element, no timestamp. */
    cr_assert_null(weir_collect_elem(c, N));
    cr_assert_eq(weir_collect_timestamp(c, N), WEIR_NO_TIMESTAMP);
    weir_job_destroy(job);
    free(vals);
    free(ts);
}

Test(collect, odd_element_size, .timeout = 60)
{
    static const char text[][3] = {"abc", "def", "ghi", "jkl", "mno"};
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_collect *c;
    weir_sink_collect(weir_source_array(job, text, 5, 3, NULL), &c);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_elem_size(c), 3u);
    cr_assert_eq(weir_collect_count(c), 5u);
    for (size_t i = 0; i < 5; i++)
        cr_assert_eq(memcmp(weir_collect_elem(c, i), text[i], 3), 0, "element %zu", i);
    weir_job_destroy(job);
}

Test(collect, null_handle_is_empty)
{
    cr_assert_eq(weir_collect_count(NULL), 0u);
    cr_assert_null(weir_collect_elem(NULL, 0));
    cr_assert_eq(weir_collect_elem_size(NULL), 0u);
    cr_assert_eq(weir_collect_timestamp(NULL, 0), WEIR_NO_TIMESTAMP);
}

/* ---- print ---------------------------------------------------------------- */

static int fmt_value(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    uint64_t v;
    memcpy(&v, elem, 8);
    return snprintf(buf, size, "%s%llu @%lld", (const char *)arg, (unsigned long long)v,
                    (long long)ts);
}

/* Reads the whole file into a malloc'd, NUL-terminated string. */
static char *slurp(FILE *f)
{
    fflush(f);
    long len = ftell(f);
    cr_assert_geq(len, 0);
    rewind(f);
    char *buf = malloc((size_t)len + 1);
    cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    return buf;
}

Test(print, one_subtask_lines_without_prefix, .timeout = 60)
{
    static const uint64_t vals[] = {3, 1, 4, 1, 5};
    static const int64_t ts[] = {10, 20, 30, 40, 50};
    FILE *out = tmpfile();
    cr_assert_not_null(out);
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    cr_assert_not_null(
        weir_sink_print(weir_source_array(job, vals, 5, 8, ts), fmt_value, "v=", out));
    tu_run_ok(job);
    char *text = slurp(out);
    cr_assert_str_eq(text, "v=3 @10\nv=1 @20\nv=4 @30\nv=1 @40\nv=5 @50\n");
    free(text);
    weir_job_destroy(job);
    fclose(out);
}

Test(print, parallel_lines_have_subtask_prefix, .timeout = 60)
{
    enum { N = 3000, P = 3 };
    uint64_t *vals = iota(N);
    FILE *out = tmpfile();
    cr_assert_not_null(out);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = P});
    weir_sink_print(weir_source_array(job, vals, N, 8, NULL), fmt_value, "", out);
    tu_run_ok(job);
    char *text = slurp(out);
    bool seen[N] = {false};
    int lines = 0;
    uint64_t last[P];
    for (int s = 0; s < P; s++)
        last[s] = UINT64_MAX;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        int sub;
        unsigned long long v;
        long long t;
        int used = 0;
        /* Each line is whole: "S> V @T", never two subtasks' text mixed. */
        cr_assert_eq(sscanf(line, "%d> %llu @%lld%n", &sub, &v, &t, &used), 3,
                     "malformed line \"%s\"", line);
        cr_assert_eq((size_t)used, strlen(line), "trailing text in \"%s\"", line);
        cr_assert_lt(v, (unsigned long long)N);
        cr_assert_not(seen[v], "value %llu printed twice", v);
        seen[v] = true;
        /* The sink is chained to the source: subtask s prints slice s. */
        cr_assert_eq(sub, (int)(v / (N / P)), "value %llu printed by subtask %d", v, sub);
        cr_assert_eq(t, WEIR_NO_TIMESTAMP);
        /* And in order within its subtask. */
        cr_assert(last[sub] == UINT64_MAX || v == last[sub] + 1);
        last[sub] = v;
        lines++;
    }
    cr_assert_eq(lines, N);
    free(text);
    weir_job_destroy(job);
    fclose(out);
    free(vals);
}

static int fmt_long(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)elem;
    (void)ts;
    (void)arg;
    /* 2000 characters wanted; snprintf reports that, the buffer holds less. */
    char big[2001];
    memset(big, 'x', 2000);
    big[2000] = '\0';
    return snprintf(buf, size, "%s", big);
}

Test(print, long_text_is_cut_at_1023_bytes, .timeout = 60)
{
    static const uint64_t one = 1;
    FILE *out = tmpfile();
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_sink_print(weir_source_array(job, &one, 1, 8, NULL), fmt_long, NULL, out);
    tu_run_ok(job);
    char *text = slurp(out);
    size_t len = strlen(text);
    cr_assert_eq(len, 1024u, "line of %zu bytes (with newline), expected 1023 + 1", len);
    cr_assert_eq(text[1023], '\n');
    cr_assert_eq(strspn(text, "x"), 1023u);
    free(text);
    weir_job_destroy(job);
    fclose(out);
}

static int fmt_fail(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)elem;
    (void)ts;
    (void)buf;
    (void)size;
    (void)arg;
    return -1;
}

Test(print, formatter_failure_fails_the_job, .timeout = 60)
{
    static const uint64_t one = 1;
    FILE *out = tmpfile();
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_stream_set_name(weir_sink_print(weir_source_array(job, &one, 1, 8, NULL), fmt_fail, NULL,
                                         out),
                         "printer");
    int r = weir_job_run(job);
    cr_assert_eq(r, WEIR_ECALLBACK, "run returned %d: %s", r, weir_job_error(job));
    tu_assert_contains(weir_job_error(job), "printer", "subtask 0", "formatter");
    weir_job_destroy(job);
    fclose(out);
}

/* A pipe whose reader has gone, with SIGPIPE ignored (as under a
 * supervisor): a write fails with EPIPE, and the job's message says so
 * rather than some input/output error. n records: many fail in a write of
 * the stream's buffer while the job runs, one only in the flush at the end
 * (which failed silently once: the job "succeeded"). */
static void print_into_closed_pipe(size_t n)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ign.sa_mask);
    cr_assert_eq(sigaction(SIGPIPE, &ign, &old), 0);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    close(p[0]);
    FILE *out = fdopen(p[1], "w");
    cr_assert_not_null(out);
    uint64_t *vals = iota(n);
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_stream_set_name(weir_sink_print(weir_source_array(job, vals, n, 8, NULL), fmt_value, "",
                                         out),
                         "printer");
    int r = weir_job_run(job);
    cr_assert_eq(r, WEIR_EIO, "run returned %d: %s", r, weir_job_error(job));
    tu_assert_contains(weir_job_error(job), "printer", "subtask 0", strerror(EPIPE));
    weir_job_destroy(job);
    free(vals);
    fclose(out);
    sigaction(SIGPIPE, &old, NULL);
}

Test(print, a_closed_pipe_is_a_broken_pipe, .timeout = 60)
{
    print_into_closed_pipe(20000);
}

Test(print, a_closed_pipe_fails_the_last_flush, .timeout = 60)
{
    print_into_closed_pipe(1);
}

/* ---- callback ------------------------------------------------------------- */

enum { CB_P = 3, CB_N = 30000 };

typedef struct cb_totals {
    /* one slot per sink subtask: each is written by one worker only */
    uint64_t count[CB_P];
    uint64_t sum[CB_P];
    _Atomic int bad_subtask;
} cb_totals;

static int cb_sink(const void *elem, int64_t ts, int subtask, void *arg)
{
    cb_totals *t = arg;
    uint64_t v;
    memcpy(&v, elem, 8);
    if (subtask < 0 || subtask >= CB_P || ts != (int64_t)v + 1) {
        atomic_store(&t->bad_subtask, 1);
        return 0;
    }
    tu_check(subtask == (int)(v / (CB_N / CB_P)), "value %llu reached subtask %d",
             (unsigned long long)v, subtask);
    t->count[subtask]++;
    t->sum[subtask] += tu_mix(v);
    return 0;
}

Test(callback_sink, every_record_with_its_subtask, .timeout = 60)
{
    static cb_totals totals;
    uint64_t *vals = iota(CB_N);
    int64_t *ts = malloc(CB_N * sizeof *ts);
    for (size_t i = 0; i < CB_N; i++)
        ts[i] = (int64_t)i + 1;
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = CB_P});
    cr_assert_not_null(weir_sink_callback(weir_source_array(job, vals, CB_N, 8, ts), cb_sink,
                                          &totals));
    tu_run_ok(job);
    cr_assert_eq(atomic_load(&totals.bad_subtask), 0);
    uint64_t want = 0;
    for (size_t i = 0; i < CB_N; i++)
        want += tu_mix(i);
    uint64_t got = 0;
    for (int s = 0; s < CB_P; s++) {
        cr_assert_eq(totals.count[s], (uint64_t)CB_N / CB_P, "subtask %d saw %llu", s,
                     (unsigned long long)totals.count[s]);
        got += totals.sum[s];
    }
    cr_assert_eq(got, want);
    weir_job_destroy(job);
    free(vals);
    free(ts);
}

/* ---- discard -------------------------------------------------------------- */

static int count_map(const void *in, void *out, void *arg)
{
    atomic_fetch_add((_Atomic uint64_t *)arg, 1);
    memcpy(out, in, 8);
    return 0;
}

Test(discard_sink, consumes_everything, .timeout = 60)
{
    static _Atomic uint64_t seen;
    enum { N = 50000 };
    uint64_t *vals = iota(N);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .disable_chaining = true});
    weir_stream *sink =
        weir_sink_discard(weir_stream_map(weir_source_array(job, vals, N, 8, NULL), 8, count_map,
                                          (void *)&seen));
    cr_assert_not_null(sink);
    weir_stream_set_parallelism(sink, 2);
    tu_run_ok(job);
    cr_assert_eq(atomic_load(&seen), (uint64_t)N);
    weir_job_destroy(job);
    free(vals);
}
