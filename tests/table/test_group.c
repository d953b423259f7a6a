/* test_group.c — the group aggregate and the changelog normalize (Flink's
 * GroupAggFunction and ChangelogNormalize), the changelog-mode inference
 * and its printed plan, the conversions' mode checks, and every plan-time
 * error of them with its message.
 *
 * Each case runs a real job at parallelism 1 (so the output is one exact
 * sequence) from an array of rows, and compares the Row.toString lines.
 * The differential test at the end runs 10 000 random changelogs (one per
 * key, all in one job; a bound of about 25 rows each) at parallelism 1 and
 * 4 and checks that the output, materialized, goes through exactly the
 * states the aggregate recomputed from scratch goes through.
 */
#include "table/table_testutil.h"

typedef struct run {
    weir_job *job;
    weir_table_env *env;
    weir_schema *schema;
    unsigned char *rows;
    size_t n, cap;
} run;

static run *run_new(const char *cols, const char *pk, int parallelism)
{
    run *r = calloc(1, sizeof *r);
    r->job = tu_job(&(weir_job_config){.workers = 2, .clock = WEIR_CLOCK_VIRTUAL,
                                        .parallelism = 1});
    cr_assert_eq(weir_table_env_create(r->job, &(weir_table_config){.parallelism = parallelism},
                                       &r->env), 0);
    r->schema = tt_schema("t", cols, pk);
    return r;
}

static void run_add(run *r, const char *text)
{
    size_t rs = weir_schema_row_size(r->schema);
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->rows = realloc(r->rows, r->cap * rs);
    }
    tt_row(r->schema, r->rows + r->n * rs, text);
    r->n++;
}

static weir_table *run_source(run *r, unsigned mode)
{
    weir_stream *s = weir_source_array(r->job, r->rows, r->n, weir_schema_row_size(r->schema), NULL);
    return mode ? weir_table_from_changelog_stream(r->env, s, r->schema, mode)
                : weir_table_from_stream(r->env, s, r->schema);
}

static char *run_collect(run *r, weir_table *t)
{
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_changelog_stream(t, WEIR_CHANGELOG_ALL), &c),
              "%s", weir_job_error(r->job));
    tu_run_ok(r->job);
    return tt_collected(weir_table_schema(t), c);
}

static void run_free(run *r)
{
    weir_job_destroy(r->job);
    weir_table_env_destroy(r->env);
    weir_schema_destroy(r->schema);
    free(r->rows);
    free(r);
}

Test(group, insert_only_count_and_unchanged_results, .timeout = 60)
{
    run *r = run_new("user STRING, amount BIGINT", NULL, 1);
    run_add(r, "+I alice|10");
    run_add(r, "+I bob|5");
    run_add(r, "+I alice|3");
    run_add(r, "+I alice|20");
    weir_table *t = weir_table_group_by(run_source(r, 0), "user",
                                        "user, COUNT(*) AS cnt, MAX(amount) AS top");
    cr_assert(t, "%s", weir_job_error(r->job));
    char mode[32];
    weir_changelog_mode_format(weir_table_changelog_mode(t), mode, sizeof mode);
    cr_assert_str_eq(mode, "[I,UB,UA]");
    char *got = run_collect(r, t);
    cr_assert_str_eq(got, "+I[alice, 1, 10]\n+I[bob, 1, 5]\n"
                          "-U[alice, 1, 10]\n+U[alice, 2, 10]\n"
                          "-U[alice, 2, 10]\n+U[alice, 3, 20]\n");
    free(got);
    run_free(r);

    /* MAX alone: a smaller value changes nothing, so nothing is emitted. */
    r = run_new("user STRING, amount BIGINT", NULL, 1);
    run_add(r, "+I alice|10");
    run_add(r, "+I alice|3");
    run_add(r, "+I alice|11");
    got = run_collect(r, weir_table_group_by(run_source(r, 0), "user", "user, MAX(amount)"));
    cr_assert_str_eq(got, "+I[alice, 10]\n-U[alice, 10]\n+U[alice, 11]\n");
    free(got);
    run_free(r);
}

Test(group, retractions_exact_min_max_and_delete_at_zero, .timeout = 60)
{
    run *r = run_new("k INT, v BIGINT", NULL, 1);
    run_add(r, "+I 1|5");
    run_add(r, "+I 1|9");
    run_add(r, "+I 1|9");
    run_add(r, "-D 1|9");   /* one 9 left: MAX stays 9 */
    run_add(r, "-D 1|9");   /* MAX back to 5 */
    run_add(r, "-U 1|5");
    run_add(r, "+U 1|7");
    run_add(r, "-D 2|1");   /* a group never seen: ignored */
    run_add(r, "-D 1|7");   /* zero rows: -D and the state is gone */
    run_add(r, "+I 1|1");   /* a new group: +I again */
    weir_table *t = weir_table_group_by(run_source(r, WEIR_CHANGELOG_ALL), "k",
                                        "k, COUNT(*) AS c, MIN(v) AS lo, MAX(v) AS hi, SUM(v) AS s");
    cr_assert(t, "%s", weir_job_error(r->job));
    char mode[32];
    weir_changelog_mode_format(weir_table_changelog_mode(t), mode, sizeof mode);
    cr_assert_str_eq(mode, "[I,UB,UA,D]");
    char *got = run_collect(r, t);
    cr_assert_str_eq(got,
                     "+I[1, 1, 5, 5, 5]\n"
                     "-U[1, 1, 5, 5, 5]\n+U[1, 2, 5, 9, 14]\n"
                     "-U[1, 2, 5, 9, 14]\n+U[1, 3, 5, 9, 23]\n"
                     "-U[1, 3, 5, 9, 23]\n+U[1, 2, 5, 9, 14]\n"
                     "-U[1, 2, 5, 9, 14]\n+U[1, 1, 5, 5, 5]\n"
                     "-D[1, 1, 5, 5, 5]\n"
                     "+I[1, 1, 7, 7, 7]\n"
                     "-D[1, 1, 7, 7, 7]\n"
                     "+I[1, 1, 1, 1, 1]\n");
    free(got);
    run_free(r);
}

Test(group, nulls_and_result_types, .timeout = 60)
{
    run *r = run_new("k INT, v BIGINT, d DOUBLE, s STRING", NULL, 1);
    run_add(r, "+I 1|null|null|null");
    run_add(r, "+I 1|7|1.5|b");
    run_add(r, "+I 1|-2|null|a");
    run_add(r, "+I 1|null|2.0|b");
    weir_table *t = weir_table_group_by(run_source(r, 0), "k",
        "k, COUNT(*) AS n, COUNT(v) AS nv, SUM(v) AS sv, AVG(v) AS av, AVG(d) AS ad, "
        "MIN(s) AS ms, COUNT(DISTINCT s) AS ds");
    cr_assert(t, "%s", weir_job_error(r->job));
    char types[256];
    weir_schema_format(weir_table_schema(t), types, sizeof types);
    cr_assert_str_eq(types, "(k INT, n BIGINT NOT NULL, nv BIGINT NOT NULL, sv BIGINT, av BIGINT, "
                            "ad DOUBLE, ms VARCHAR(64), ds BIGINT NOT NULL)");
    char *got = run_collect(r, t);
    cr_assert_str_eq(got,
                     "+I[1, 1, 0, null, null, null, null, 0]\n"
                     "-U[1, 1, 0, null, null, null, null, 0]\n+U[1, 2, 1, 7, 7, 1.5, b, 1]\n"
                     "-U[1, 2, 1, 7, 7, 1.5, b, 1]\n+U[1, 3, 2, 5, 2, 1.5, a, 2]\n"
                     "-U[1, 3, 2, 5, 2, 1.5, a, 2]\n+U[1, 4, 2, 5, 2, 1.75, a, 2]\n");
    free(got);
    run_free(r);
}

Test(group, upsert_input_is_normalized, .timeout = 60)
{
    run *r = run_new("id BIGINT, region STRING, amount BIGINT", "id", 1);
    run_add(r, "+I 1|eu|10");
    run_add(r, "+I 2|eu|5");
    run_add(r, "+U 1|eu|12");   /* upsert: no -U before it */
    run_add(r, "+U 1|eu|12");   /* the same row again: normalize emits nothing */
    run_add(r, "+U 2|us|5");
    run_add(r, "-D 1|null|null"); /* a delete carrying the key only */
    weir_table *src = run_source(r, WEIR_CHANGELOG_UPSERT);
    char mode[32];
    weir_changelog_mode_format(weir_table_changelog_mode(src), mode, sizeof mode);
    cr_assert_str_eq(mode, "[I,UA,D]");
    weir_table *t = weir_table_group_by(src, "region", "region, SUM(amount) AS total");
    cr_assert(t, "%s", weir_job_error(r->job));
    char plan[512];
    weir_table_explain(t, plan, sizeof plan);
    cr_assert_str_eq(plan, "GroupAggregate(region) [I,UB,UA,D]\n"
                           "  ChangelogNormalize(key=[id]) [I,UB,UA,D]\n"
                           "    TableSource(t) [I,UA,D]\n");
    char *got = run_collect(r, t);
    cr_assert_str_eq(got,
                     "+I[eu, 10]\n"
                     "-U[eu, 10]\n+U[eu, 15]\n"
                     "-U[eu, 15]\n+U[eu, 5]\n"    /* normalize's -U 1|eu|10 */
                     "-U[eu, 5]\n+U[eu, 17]\n"    /* its +U 1|eu|12 */
                     "-U[eu, 17]\n+U[eu, 12]\n"   /* id 2 leaves eu */
                     "+I[us, 5]\n"                 /* and joins us */
                     "-D[eu, 12]\n");             /* id 1 deleted: eu is empty */
    free(got);
    run_free(r);
}

Test(group, upsert_table_out_as_all_is_normalized_and_as_produced_is_not, .timeout = 60)
{
    run *r = run_new("id BIGINT, amount BIGINT", "id", 1);
    run_add(r, "+I 1|10");
    run_add(r, "+U 1|12");
    run_add(r, "+U 1|12");   /* equal to the last row: dropped */
    run_add(r, "-D 2|null"); /* a key never seen: dropped */
    run_add(r, "-D 1|null"); /* the key only: -D of the whole last row */
    weir_table *src = run_source(r, WEIR_CHANGELOG_UPSERT);
    weir_table *plain = run_source(r, WEIR_CHANGELOG_ALL);
    cr_assert_eq(weir_table_normalize(plain), plain, "a retracting table is returned as it is");
    cr_assert_null(weir_table_normalize(NULL));
    weir_collect *raw;
    weir_sink_collect(weir_table_to_changelog_stream(src, 0), &raw);
    weir_sink_discard(weir_table_to_changelog_stream(plain, 0));
    char *got = run_collect(r, src);
    cr_assert_str_eq(got, "+I[1, 10]\n-U[1, 10]\n+U[1, 12]\n-D[1, 12]\n");
    free(got);
    got = tt_collected(weir_table_schema(src), raw);
    cr_assert_str_eq(got, "+I[1, 10]\n+U[1, 12]\n+U[1, 12]\n-D[2, null]\n-D[1, null]\n");
    free(got);
    run_free(r);
}

Test(group, plan_time_errors, .timeout = 60)
{
    run *r = run_new("user STRING, amount BIGINT", NULL, 1);
    run_add(r, "+I alice|1");
    weir_table *src = run_source(r, 0);
    weir_table *agg = weir_table_group_by(src, "user", "user, COUNT(*) AS cnt");
    weir_table *sel = weir_table_where(weir_table_select(agg, "user, cnt * 2 AS c2"), "c2 > 1");
    cr_assert(sel, "%s", weir_job_error(r->job));
    cr_assert_null(weir_table_to_stream(sel));
    cr_assert(strstr(weir_job_error(r->job),
                     "weir_table_to_stream: the table Calc(where=[c2 > 1]) emits [I,UB,UA]: an "
                     "insert-only stream doesn't support consuming update changes which is "
                     "produced by node GroupAggregate(user)"), "%s", weir_job_error(r->job));
    run_free(r);

    static const struct { const char *keys, *items, *msg; } bad[] = {
        {"user", "user, amount", "'amount' is neither a group key nor an aggregate"},
        {"usr", "COUNT(*)", "group key 'usr' is not a column of table t"},
        {"user", "user, SUM(user)", "SUM of VARCHAR(64): a number is required"},
        {"user", "user, COUNT(*) + 1", "aggregate function COUNT is not allowed here"},
        {"user", "user, COUNT(*) AS user", "duplicate column name 'user'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = run_new("user STRING, amount BIGINT", NULL, 1);
        cr_assert_null(weir_table_group_by(run_source(r, 0), bad[i].keys, bad[i].items));
        cr_expect(strstr(weir_job_error(r->job), bad[i].msg), "%s: %s", bad[i].items,
                  weir_job_error(r->job));
        run_free(r);
    }

    /* An upsert table needs a primary key; upsert output needs a unique key. */
    r = run_new("user STRING, amount BIGINT", NULL, 1);
    cr_assert_null(run_source(r, WEIR_CHANGELOG_UPSERT));
    cr_assert(strstr(weir_job_error(r->job), "table t: an upsert changelog needs a primary key"),
              "%s", weir_job_error(r->job));
    run_free(r);
    r = run_new("user STRING, amount BIGINT", NULL, 1);
    weir_table *global = weir_table_group_by(run_source(r, 0), "", "COUNT(*) AS n");
    cr_assert(global, "%s", weir_job_error(r->job));
    cr_assert_null(weir_table_to_changelog_stream(global, WEIR_CHANGELOG_UPSERT));
    cr_assert(strstr(weir_job_error(r->job), "the table GroupAggregate() has no unique key"),
              "%s", weir_job_error(r->job));
    run_free(r);
}

Test(group, upsert_output_drops_update_before_and_global_group, .timeout = 60)
{
    run *r = run_new("user STRING, amount BIGINT", NULL, 1);
    run_add(r, "+I a|1");
    run_add(r, "+I a|2");
    run_add(r, "+I b|3");
    weir_table *t = weir_table_group_by(run_source(r, 0), "user", "user, SUM(amount) AS s");
    weir_collect *up, *all;
    weir_sink_collect(weir_table_to_changelog_stream(t, WEIR_CHANGELOG_UPSERT), &up);
    weir_table *g = weir_table_group_by(t, "", "COUNT(*) AS users, SUM(s) AS total");
    weir_sink_collect(weir_table_to_changelog_stream(g, 0), &all);
    tu_run_ok(r->job);
    char *got = tt_collected(weir_table_schema(t), up);
    cr_assert_str_eq(got, "+I[a, 1]\n+U[a, 3]\n+I[b, 3]\n");
    free(got);
    /* The global aggregate over an updating input retracts. */
    got = tt_collected(weir_table_schema(g), all);
    cr_assert_str_eq(got, "+I[1, 1]\n"
                          "-D[1, 1]\n"            /* -U[a, 1]: no rows left */
                          "+I[1, 3]\n"            /* +U[a, 3]: a first row again */
                          "-U[1, 3]\n+U[2, 6]\n");
    free(got);
    run_free(r);
}

Test(group, kind_outside_the_mode_fails_the_job, .timeout = 60)
{
    run *r = run_new("user STRING, amount BIGINT", NULL, 1);
    run_add(r, "+I a|1");
    run_add(r, "-U a|1");
    weir_sink_discard(weir_table_to_stream(run_source(r, 0)));
    cr_assert_eq(weir_job_run(r->job), WEIR_EFORMAT);
    cr_assert(strstr(weir_job_error(r->job), "table t: a row of kind -U in a stream declared [I]"),
              "%s", weir_job_error(r->job));
    run_free(r);
    r = run_new("id BIGINT, amount BIGINT", "id", 1);
    run_add(r, "-U 1|1");
    weir_sink_discard(weir_table_to_changelog_stream(run_source(r, WEIR_CHANGELOG_UPSERT), 0));
    cr_assert_eq(weir_job_run(r->job), WEIR_EFORMAT);
    cr_assert(strstr(weir_job_error(r->job), "a row of kind -U in a stream declared [I,UA,D]"),
              "%s", weir_job_error(r->job));
    run_free(r);
}

/* The aggregates the table API names as SQL does (weir_agg_kind's
 * WEIR_AGG_STDDEV_POP .. WEIR_AGG_LISTAGG), FILTER on any of them, over an
 * input that retracts: FIRST_VALUE, LAST_VALUE and LISTAGG keep their
 * values in arrival order and a retraction takes out the earliest equal
 * one (Flink's *WithRetractAggFunction); the variances retract as their
 * sums do. */
Test(group, retracting_statistics_first_last_listagg_and_filter, .timeout = 60)
{
    static const struct { const char *text; weir_agg_kind kind; } kinds[] = {
        {"STDDEV_POP(v)", WEIR_AGG_STDDEV_POP}, {"STDDEV_SAMP(v)", WEIR_AGG_STDDEV_SAMP},
        {"VAR_POP(v)", WEIR_AGG_VAR_POP},       {"VAR_SAMP(v)", WEIR_AGG_VAR_SAMP},
        {"FIRST_VALUE(s)", WEIR_AGG_FIRST_VALUE}, {"LAST_VALUE(s)", WEIR_AGG_LAST_VALUE},
        {"LISTAGG(s, '-')", WEIR_AGG_LISTAGG},
        {"COUNT(*) FILTER (WHERE v > 1)", WEIR_AGG_COUNT_STAR},
    };
    run *r = run_new("k INT, v BIGINT, s STRING", NULL, 1);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        weir_expr *e;
        char msg[256];
        cr_assert_eq(weir_expr_compile_item(kinds[i].text, r->schema, 1, &e, msg, sizeof msg), 0,
                     "%s: %s", kinds[i].text, msg);
        cr_expect_eq(weir_expr_agg(e), kinds[i].kind, "%s", kinds[i].text);
        weir_expr_destroy(e);
    }
    run_add(r, "+I 1|2|x");
    run_add(r, "+I 1|4|y");
    run_add(r, "+I 1|6|x");
    run_add(r, "-D 1|2|x"); /* the first x goes: y is first, x (the later one) last */
    run_add(r, "-D 1|6|x"); /* only y left */
    weir_table *t = weir_table_group_by(
        run_source(r, WEIR_CHANGELOG_ALL), "k",
        "k, VAR_POP(v) AS vp, STDDEV_SAMP(v) AS ss, FIRST_VALUE(s) AS fs, LAST_VALUE(s) AS ls, "
        "LISTAGG(s, '-') AS la, SUM(v) FILTER (WHERE s = 'x') AS sx");
    cr_assert(t, "%s", weir_job_error(r->job));
    char types[256];
    weir_schema_format(weir_table_schema(t), types, sizeof types);
    cr_assert_str_eq(types, "(k INT, vp BIGINT, ss BIGINT, fs VARCHAR(64), ls VARCHAR(64), "
                            "la VARCHAR(64), sx BIGINT)");
    char *got = run_collect(r, t);
    cr_assert_str_eq(got,
                     "+I[1, 0, null, x, x, x, 2]\n"
                     "-U[1, 0, null, x, x, x, 2]\n+U[1, 1, 1, x, y, x-y, 2]\n"
                     "-U[1, 1, 1, x, y, x-y, 2]\n+U[1, 2, 2, x, x, x-y-x, 8]\n"
                     "-U[1, 2, 2, x, x, x-y-x, 8]\n+U[1, 1, 1, y, x, y-x, 6]\n"
                     "-U[1, 1, 1, y, x, y-x, 6]\n+U[1, 0, null, y, y, y, null]\n");
    free(got);
    run_free(r);
}
