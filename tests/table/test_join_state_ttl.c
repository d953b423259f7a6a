/* test_join_state_ttl.c — 'table.exec.state.ttl' on a regular join
 * (weir_table_config.state_ttl_ms; table/table_join.c over
 * runtime/state_ttl.c): a row's state not written for the TTL, in
 * processing time, is dropped, so a partner arriving later no longer finds
 * it; reading it (a partner's lookup) does not keep it (Flink's
 * OnCreateAndWrite). The join's operator runs in a harness whose virtual
 * clock the test moves.
 */
#include "table/table_testutil.h"
#include "table_internal.h"
#include "weir/harness.h"

typedef struct th {
    weir_job *job;
    weir_table_env *env;
    weir_schema *s[2];
    weir_table *t;
    weir_harness *h;
    char out[4096];
    size_t len;
} th;

static void on_record(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag;
    (void)ts;
    th *p = arg;
    char line[256];
    weir_row_format(weir_table_schema(p->t), elem, line, sizeof line);
    size_t n = (size_t)snprintf(p->out + p->len, sizeof p->out - p->len, "%s at %lld\n", line,
                                (long long)weir_harness_now(p->h));
    cr_assert(p->len + n < sizeof p->out);
    p->len += n;
}

static th *th_new_sides(int64_t ttl_ms, weir_join_kind kind, int64_t left_ms, int64_t right_ms);

static th *th_new(int64_t ttl_ms, weir_join_kind kind)
{
    return th_new_sides(ttl_ms, kind, 0, 0);
}

static th *th_new_sides(int64_t ttl_ms, weir_join_kind kind, int64_t left_ms, int64_t right_ms)
{
    th *p = calloc(1, sizeof *p);
    p->job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                                        .parallelism = 1});
    cr_assert_eq(weir_table_env_create(p->job, &(weir_table_config){.state_ttl_ms = ttl_ms},
                                       &p->env), 0);
    weir_table *in[2];
    for (int s = 0; s < 2; s++) {
        p->s[s] = tt_schema(s ? "r" : "l", "k BIGINT, v STRING", NULL);
        weir_stream *st = weir_source_array(p->job, NULL, 0, weir_schema_row_size(p->s[s]),
                                            NULL);
        in[s] = weir_table_from_stream(p->env, st, p->s[s]);
    }
    p->t = weir_table_join(in[0], in[1], kind, "l.k = r.k");
    cr_assert(p->t, "%s", weir_job_error(p->job));
    if (left_ms || right_ms)
        cr_assert_eq(weir_table_join_state_ttl(p->t, left_ms, right_ms), 0, "%s",
                     weir_job_error(p->job));
    weir_process_spec spec;
    weir_key_spec keys[2];
    cr_assert_eq(weir__table_join_operator(p->t, &spec, keys), 0);
    weir_harness_config hc = {
        .op = &spec,
        .inputs = 2,
        .in_size = {weir_schema_row_size(p->s[0]), weir_schema_row_size(p->s[1])},
        .key = {&keys[0], &keys[1]},
        .watermark_interval_ms = WEIR_DISABLED,
        .output = {.on_record = on_record, .arg = p},
    };
    char err[256];
    cr_assert_eq(weir_harness_create(&hc, &p->h, err, sizeof err), 0, "%s", err);
    return p;
}

/* The output's lines sorted (the rows one record makes come in the order
 * of the state's map, which is no order). */
static const char *th_sorted(th *p)
{
    char *lines[64];
    int n = 0;
    for (char *l = strtok(p->out, "\n"); l && n < 64; l = strtok(NULL, "\n"))
        lines[n++] = strdup(l);
    qsort(lines, (size_t)n, sizeof *lines, tt_cmp_str);
    p->len = 0;
    p->out[0] = 0;
    for (int i = 0; i < n; i++) {
        p->len += (size_t)snprintf(p->out + p->len, sizeof p->out - p->len, "%s\n", lines[i]);
        free(lines[i]);
    }
    return p->out;
}

static void th_free(th *p)
{
    weir_harness_destroy(p->h);
    weir_job_destroy(p->job);
    weir_table_env_destroy(p->env);
    weir_schema_destroy(p->s[0]);
    weir_schema_destroy(p->s[1]);
    free(p);
}

static void th_row(th *p, int s, int64_t at, const char *text)
{
    tt_harness_advance_to(p->h, at);
    tt_harness_row(p->h, s, p->s[s], text, 0);
}

Test(join_state_ttl, a_row_not_written_for_the_ttl_is_no_partner_any_more)
{
    th *p = th_new(1000, WEIR_JOIN_INNER);
    th_row(p, 1, 0, "+I 1|r0");
    th_row(p, 0, 500, "+I 1|l500");   /* r0 is 500 ms old: met */
    th_row(p, 0, 999, "+I 1|l999");   /* 999 ms: met (reading it did not renew it) */
    th_row(p, 0, 1000, "+I 1|l1000"); /* 1000 ms: r0 has expired */
    th_row(p, 1, 1200, "+I 1|r1200"); /* meets l500 (700 ms old), l999 and l1000 */
    th_row(p, 0, 2300, "+I 1|l2300"); /* r1200 is 1100 ms old: gone too */
    cr_assert_eq(weir_harness_end(p->h), 0, "%s", weir_harness_last_error(p->h));
    cr_assert_str_eq(th_sorted(p), "+I[1, l1000, 1, r1200] at 1200\n"
                                   "+I[1, l500, 1, r0] at 500\n"
                                   "+I[1, l500, 1, r1200] at 1200\n"
                                   "+I[1, l999, 1, r0] at 999\n"
                                   "+I[1, l999, 1, r1200] at 1200\n");
    th_free(p);
}

Test(join_state_ttl, without_a_ttl_state_stays)
{
    th *p = th_new(0, WEIR_JOIN_INNER);
    th_row(p, 1, 0, "+I 1|r0");
    th_row(p, 0, 100000, "+I 1|l");
    cr_assert_eq(weir_harness_end(p->h), 0, "%s", weir_harness_last_error(p->h));
    cr_assert_str_eq(p->out, "+I[1, l, 1, r0] at 100000\n");
    th_free(p);
}

/* Flink's STATE_TTL hint (weir_table_join_state_ttl): each side its own
 * time to live, in place of the env's for that side. */
Test(join_state_ttl, a_side_of_its_own)
{
    th *p = th_new_sides(0, WEIR_JOIN_INNER, 0, 1000); /* the right's rows only */
    th_row(p, 1, 0, "+I 1|r0");
    th_row(p, 0, 100, "+I 1|l100");   /* met */
    th_row(p, 0, 1000, "+I 1|l1000"); /* r0 has expired */
    th_row(p, 1, 5000, "+I 1|r5000"); /* the left's rows stay: meets both */
    cr_assert_eq(weir_harness_end(p->h), 0, "%s", weir_harness_last_error(p->h));
    cr_assert_str_eq(th_sorted(p), "+I[1, l100, 1, r0] at 100\n"
                                   "+I[1, l100, 1, r5000] at 5000\n"
                                   "+I[1, l1000, 1, r5000] at 5000\n");
    th_free(p);
    p = th_new_sides(1000, WEIR_JOIN_INNER, 100000, 0); /* the left's longer than the env's */
    th_row(p, 0, 0, "+I 1|l0");
    th_row(p, 1, 0, "+I 1|r0");
    th_row(p, 1, 5000, "+I 1|r5000"); /* l0 kept */
    th_row(p, 0, 7000, "+I 1|l7000"); /* r0 and r5000 gone (1 s) */
    cr_assert_eq(weir_harness_end(p->h), 0, "%s", weir_harness_last_error(p->h));
    cr_assert_str_eq(th_sorted(p), "+I[1, l0, 1, r0] at 0\n"
                                   "+I[1, l0, 1, r5000] at 5000\n");
    th_free(p);
}

Test(join_state_ttl, only_a_regular_join_takes_a_side_ttl)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .parallelism = 1});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, &(weir_table_config){0}, &env), 0);
    weir_schema *s = tt_schema("l", "k BIGINT, v STRING", NULL);
    weir_table *t = weir_table_from_stream(
        env, weir_source_array(job, NULL, 0, weir_schema_row_size(s), NULL), s);
    cr_assert_eq(weir_table_join_state_ttl(t, 1000, 0), WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "is not a regular join"), "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(s);
}
