/* test_join_proctime.c — the processing-time interval join
 * (table/table_join.c, Flink's ProcTimeIntervalJoin): bounds between two
 * PROCTIME() attributes make an interval join on the job clock. Its
 * operator is driven through a harness whose virtual clock the test moves:
 * a row's time is the clock when it arrives (the column's value is not
 * read: the rows here all hold 0), rows expire by processing-time timers,
 * and a LEFT join's row that met no partner goes out padded when it
 * expires.
 */
#include "table/table_testutil.h"
#include "table_internal.h"
#include "weir/harness.h"

typedef struct ph {
    weir_job *job;
    weir_table_env *env;
    weir_schema *s[2];
    weir_table *in[2];
    weir_table *t;
    weir_harness *h;
    char out[4096];
    size_t len;
} ph;

static void on_record(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag;
    ph *p = arg;
    char line[256];
    weir_row_format(weir_table_schema(p->t), elem, line, sizeof line);
    size_t n = (size_t)snprintf(p->out + p->len, sizeof p->out - p->len, "%s at %lld%s\n", line,
                                (long long)weir_harness_now(p->h),
                                ts == WEIR_NO_TIMESTAMP ? "" : " (a timestamp)");
    cr_assert(p->len + n < sizeof p->out);
    p->len += n;
}

static ph *ph_new(weir_join_kind kind, const char *cond)
{
    ph *p = calloc(1, sizeof *p);
    p->job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                                        .parallelism = 1});
    cr_assert_eq(weir_table_env_create(p->job, NULL, &p->env), 0);
    for (int s = 0; s < 2; s++) {
        p->s[s] = tt_schema(s ? "r" : "l", "k BIGINT, v STRING", NULL);
        weir_stream *st = weir_source_array(p->job, NULL, 0, weir_schema_row_size(p->s[s]),
                                            NULL);
        weir_table *t = weir_table_from_stream(p->env, st, p->s[s]);
        /* PROCTIME() in a select list: the processing-time attribute */
        p->in[s] = weir_table_select(t, "k, v, PROCTIME() AS p");
        cr_assert(p->in[s], "%s", weir_job_error(p->job));
        cr_assert_eq(weir_table_proctime(p->in[s]), 2);
    }
    p->t = weir_table_join(p->in[0], p->in[1], kind, cond);
    cr_assert(p->t, "%s", weir_job_error(p->job));
    weir_process_spec spec;
    weir_key_spec keys[2];
    cr_assert_eq(weir__table_join_operator(p->t, &spec, keys), 0);
    weir_harness_config hc = {
        .op = &spec,
        .inputs = 2,
        .in_size = {weir_schema_row_size(weir_table_schema(p->in[0])),
                    weir_schema_row_size(weir_table_schema(p->in[1]))},
        .key = {&keys[0], &keys[1]},
        .watermark_interval_ms = WEIR_DISABLED,
        .output = {.on_record = on_record, .arg = p},
    };
    char err[256];
    cr_assert_eq(weir_harness_create(&hc, &p->h, err, sizeof err), 0, "%s", err);
    return p;
}

static void ph_free(ph *p)
{
    weir_harness_destroy(p->h);
    weir_job_destroy(p->job);
    weir_table_env_destroy(p->env);
    weir_schema_destroy(p->s[0]);
    weir_schema_destroy(p->s[1]);
    free(p);
}

/* A row ("1|x") into side s at job time `at`. */
static void ph_row(ph *p, int s, int64_t at, const char *text)
{
    tt_harness_advance_to(p->h, at);
    char full[128];
    snprintf(full, sizeof full, "+I %s|0", text);
    tt_harness_row(p->h, s, weir_table_schema(p->in[s]), full, WEIR_NO_TIMESTAMP);
}

#define BOUNDS "l.k = r.k AND l.p BETWEEN r.p - INTERVAL '0.1' SECOND AND r.p + INTERVAL '0.2' SECOND"

Test(join_proctime, plans_an_interval_join_on_the_clock)
{
    ph *p = ph_new(WEIR_JOIN_INNER, BOUNDS);
    cr_assert(strstr(p->t->name, "IntervalJoin(joinType=[InnerJoin], "
                     "windowBounds=[isRowTime=false, leftLowerBound=-100, leftUpperBound=200"),
              "%s", p->t->name);
    cr_assert_eq(weir_table_proctime(p->t), 2);
    cr_assert_eq(weir_table_rowtime(p->t), -1);
    ph_free(p);
}

Test(join_proctime, rows_meet_by_the_clock_and_expire_by_it)
{
    ph *p = ph_new(WEIR_JOIN_LEFT, BOUNDS);
    ph_row(p, 1, 1000, "1|r1000");
    ph_row(p, 0, 1100, "1|l1100");  /* l - r = 100: in [-100, 200] */
    ph_row(p, 0, 1150, "2|l1150");  /* no partner yet */
    ph_row(p, 1, 1240, "2|r1240");  /* meets l1150 (-90) */
    ph_row(p, 0, 1250, "1|l1250");  /* l - r = 250: too late for r1000 */
    ph_row(p, 1, 1300, "1|r1300");  /* meets l1250 (-50) but not l1100 (-200) */
    /* the clock moves on: the rows that met a partner expire unpadded; a
     * row that met none expires at its time + 100 + 150 + 1 (its side's
     * relative size and half the interval, Flink's clean-up time), padded */
    cr_assert_eq(weir_harness_advance(p->h, 5000), 0);
    ph_row(p, 0, 5000, "3|l5000");
    cr_assert_eq(weir_harness_advance(p->h, 6000), 0); /* l5000 expires: padded */
    cr_assert_eq(weir_harness_end(p->h), 0, "%s", weir_harness_last_error(p->h));
    cr_assert_str_eq(p->out,
                     "+I[1, l1100, 1970-01-01 00:00:00.000, 1, r1000, 1970-01-01 00:00:00.000] at 1100\n"
                     "+I[2, l1150, 1970-01-01 00:00:00.000, 2, r1240, 1970-01-01 00:00:00.000] at 1240\n"
                     "+I[1, l1250, 1970-01-01 00:00:00.000, 1, r1300, 1970-01-01 00:00:00.000] at 1300\n"
                     "+I[3, l5000, 1970-01-01 00:00:00.000, null, null, null] at 5251\n");
    ph_free(p);
}
