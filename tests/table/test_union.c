/* test_union.c — UNION ALL of tables (weir_table_union_all): the rows of
 * every input, the nullability and changelog mode they add up to, the
 * rowtime kept where every input has it at the same place, the plan printed
 * as a tree, an updating union refused by an insert-only stream (naming the
 * node that makes the updates), and the refusals of unions that do not line
 * up. A few rows each: bounded by construction.
 */
#include "table/table_testutil.h"

/* Rows of one schema, back to back, with their timestamps. */
typedef struct src {
    weir_schema *schema;
    unsigned char buf[8 * 256];
    int64_t ts[8];
    size_t n;
} src;

static void add(src *s, const char *text, int64_t ts)
{
    size_t rs = weir_schema_row_size(s->schema);
    cr_assert_leq((s->n + 1) * rs, sizeof s->buf);
    tt_row(s->schema, s->buf + s->n * rs, text);
    s->ts[s->n++] = ts;
}

/* A job with the tables clicks (user STRING NOT NULL, ts) and orders (who
 * STRING, at), both with their rowtime second. */
typedef struct fixture {
    weir_job *job;
    weir_table_env *env;
    src a, b;
    weir_table *clicks, *orders;
} fixture;

static weir_table *source(fixture *f, src *s)
{
    weir_stream *st =
        weir_source_array(f->job, s->buf, s->n, weir_schema_row_size(s->schema), s->ts);
    return weir_table_from_stream(f->env, st, s->schema);
}

static fixture *fixture_new(void)
{
    fixture *f = calloc(1, sizeof *f);
    f->job = tu_job(&(weir_job_config){.workers = 2, .clock = WEIR_CLOCK_VIRTUAL,
                                        .parallelism = 1});
    cr_assert_eq(weir_table_env_create(f->job, NULL, &f->env), 0);
    f->a.schema = tt_schema_wm("clicks", "user STRING NOT NULL, ts TIMESTAMP(3)", NULL, "ts",
                               "SOURCE_WATERMARK()");
    f->b.schema = tt_schema_wm("orders", "who STRING, at TIMESTAMP(3)", NULL, "at",
                               "SOURCE_WATERMARK()");
    add(&f->a, "+I alice|100", 100);
    add(&f->a, "+I bob|200", 200);
    add(&f->b, "+I alice|150", 150);
    f->clicks = source(f, &f->a);
    f->orders = source(f, &f->b);
    return f;
}

static void fixture_free(fixture *f)
{
    weir_job_destroy(f->job);
    weir_table_env_destroy(f->env);
    weir_schema_destroy(f->a.schema);
    weir_schema_destroy(f->b.schema);
    free(f);
}

static weir_table *union2(weir_table *x, weir_table *y)
{
    return weir_table_union_all((weir_table *const[]){x, y}, 2);
}

Test(union_all, rows_of_every_input_and_the_plan_tree, .timeout = 60)
{
    fixture *f = fixture_new();
    weir_table *u = union2(f->clicks, f->orders);
    cr_assert(u, "%s", weir_job_error(f->job));
    char types[128];
    weir_schema_format(weir_table_schema(u), types, sizeof types);
    cr_assert_str_eq(types, "(user VARCHAR(64), ts TIMESTAMP(3))"); /* orders' may be NULL */
    cr_assert_eq(weir_table_rowtime(u), 1);
    weir_table *g = weir_table_group_by(u, "user", "user, COUNT(*) AS n");
    char plan[512];
    weir_table_explain(g, plan, sizeof plan);
    cr_assert_str_eq(plan, "GroupAggregate(user) [I,UB,UA]\n"
                           "  Union(all=[true], union=[user, ts]) [I]\n"
                           "    TableSource(clicks) [I]\n"
                           "    TableSource(orders) [I]\n");
    weir_collect *c;
    weir_sink_collect(weir_table_to_changelog_stream(g, 0), &c);
    tu_run_ok(f->job);
    /* Each input's rows in order; the two inputs in either order. */
    cr_assert_eq(weir_collect_count(c), 4u);
    char *got = tt_collected(weir_table_schema(g), c);
    cr_assert(strstr(got, "-U[alice, 1]\n+U[alice, 2]\n") && strstr(got, "+I[bob, 1]\n"), "%s",
              got);
    free(got);
    fixture_free(f);
}

Test(union_all, an_updating_input_makes_an_updating_union, .timeout = 60)
{
    fixture *f = fixture_new();
    weir_table *g = weir_table_group_by(f->clicks, "user", "user, COUNT(*) AS n");
    weir_table *ones = weir_table_select(f->clicks, "user, CAST(1 AS BIGINT) AS n");
    weir_table *u = union2(ones, g);
    cr_assert(u, "%s", weir_job_error(f->job));
    char mode[32];
    weir_changelog_mode_format(weir_table_changelog_mode(u), mode, sizeof mode);
    cr_assert_str_eq(mode, "[I,UB,UA]");
    cr_assert_eq(weir_table_rowtime(u), -1, "the group aggregate has no rowtime");
    cr_assert_null(weir_table_to_stream(u));
    cr_assert(strstr(weir_job_error(f->job), "which is produced by node GroupAggregate(user)"),
              "%s", weir_job_error(f->job));
    fixture_free(f);
}

static void refused(int which, const char *msg)
{
    fixture *f = fixture_new();
    weir_table *x = f->clicks, *y;
    if (which == 0)
        y = weir_table_select(f->orders, "who");
    else if (which == 1)
        y = weir_table_select(f->orders, "who, 5 AS at");
    else
        y = weir_table_select(f->orders, "CAST(who AS VARCHAR(8)) AS who, at");
    cr_assert(y, "%s", weir_job_error(f->job));
    cr_assert_null(union2(x, y));
    cr_assert(strstr(weir_job_error(f->job), msg), "got %s\nwant %s", weir_job_error(f->job), msg);
    fixture_free(f);
}

Test(union_all, unions_that_do_not_line_up_are_refused, .timeout = 60)
{
    refused(0, "weir_table_union_all: TableSource(clicks) has 2 columns, Calc(select=[who]) has 1");
    refused(1, "column 2 (ts) is TIMESTAMP(3) in TableSource(clicks) but INT NOT NULL in");
    /* 8 characters of a 64-byte string: up to 32 bytes */
    refused(2, "column 1 (user) is VARCHAR(64) NOT NULL in TableSource(clicks) but VARCHAR(32)");
    fixture *f = fixture_new();
    cr_assert_null(weir_table_union_all((weir_table *const[]){f->clicks}, 1));
    cr_assert(strstr(weir_job_error(f->job), "1 tables (2.."), "%s", weir_job_error(f->job));
    fixture_free(f);
}
