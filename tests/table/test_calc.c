/* test_calc.c — the Calc node (table/table_calc.c): what a projection
 * keeps of its input's rowtime and unique key. Rows through select and
 * where are covered by the group, window and union suites. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "table/table_testutil.h"

/* A table of `n` BIGINT columns c0..c{n-1}, with c{key} its primary key
 * and c{rowtime} a TIMESTAMP(3) rowtime, as an upsert changelog. */
static weir_table *wide_table(weir_job *job, weir_table_env **env, weir_schema **schema, int n,
                              int key, int rowtime)
{
    weir_schema_builder *b = weir_schema_builder_create("wide");
    char name[16];
    for (int c = 0; c < n; c++) {
        snprintf(name, sizeof name, "c%d", c);
        cr_assert_eq(weir_schema_column_sql(b, name, c == rowtime ? "TIMESTAMP(3)"
                                                     : c == key   ? "BIGINT NOT NULL"
                                                                  : "BIGINT"),
                     0);
    }
    snprintf(name, sizeof name, "c%d", key);
    cr_assert_eq(weir_schema_primary_key(b, name), 0);
    snprintf(name, sizeof name, "c%d", rowtime);
    cr_assert_eq(weir_schema_watermark(b, name, "SOURCE_WATERMARK()"), 0);
    char err[256];
    cr_assert_eq(weir_schema_build(b, schema, err, sizeof err), 0, "%s", err);
    cr_assert_eq(weir_table_env_create(job, NULL, env), 0);
    weir_stream *s = weir_source_array(job, NULL, 0, weir_schema_row_size(*schema), NULL);
    weir_table *t = weir_table_from_changelog_stream(*env, s, *schema, WEIR_CHANGELOG_UPSERT);
    cr_assert_not_null(t, "%s", weir_job_error(job));
    return t;
}

/* Columns past the 256th are kept like any: a projection of column 290 and
 * key column 299 keeps the rowtime and the unique key (an upsert stream can
 * be made of it). */
Test(calc, a_projection_keeps_rowtime_and_key_past_256_columns)
{
    weir_job *job = tu_job(&(weir_job_config){.diag = {.level = WEIR_DIAG_OFF}});
    weir_table_env *env;
    weir_schema *schema;
    weir_table *t = wide_table(job, &env, &schema, 300, 299, 290);
    weir_table *p = weir_table_select(t, "c299, c3, c290");
    cr_assert_not_null(p, "%s", weir_job_error(job));
    cr_assert_eq(weir_table_rowtime(p), 2);
    cr_assert_not_null(weir_table_to_changelog_stream(p, WEIR_CHANGELOG_UPSERT), "%s",
                       weir_job_error(job));
    /* without the key column there is no unique key */
    weir_table *q = weir_table_select(t, "c3, c290");
    cr_assert_eq(weir_table_rowtime(q), 1);
    cr_assert_null(weir_table_to_changelog_stream(q, WEIR_CHANGELOG_UPSERT));
    cr_assert(strstr(weir_job_error(job), "has no unique key"), "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
}

/* The job event's JSON (the plan, with each operator's settings) of a run
 * into `mem`; NULL if there is none. */
static const char *job_json(const weir_diag_memory *mem)
{
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++)
        if (weir_diag_memory_event(mem, i)->kind == WEIR_DIAG_KIND_JOB)
            return weir_diag_memory_event(mem, i)->json;
    return NULL;
}

/* The five rows (id, ts, v) the Calc tests read, as a table of schema s
 * in a new env of job; *rows (to free after the run) holds them. */
static weir_table *five_rows(weir_job *job, const weir_schema *s, unsigned char **rows,
                             weir_table_env **env)
{
    static const char *const text[] = {"+I 1|1000|10", "+I 2|1500|null", "+I 3|1200|30",
                                       "+I 4|3000|null", "+I 5|2000|50"};
    enum { N = sizeof text / sizeof *text };
    size_t size = weir_schema_row_size(s);
    *rows = calloc(N, size);
    cr_assert(*rows);
    for (int i = 0; i < N; i++)
        tt_row(s, *rows + (size_t)i * size, text[i]);
    cr_assert_eq(weir_table_env_create(job, NULL, env), 0);
    return weir_table_from_stream(*env, weir_source_array(job, *rows, N, size, NULL), s);
}

/* Rows of (id, ts, v) through a table with `watermark` on ts, then a
 * projection (v, id, ts): the rows out, and the job event's JSON (kept in
 * *json, the caller frees it). */
static char *run_watermarked(const char *watermark, char **json)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .diag = {.memory = mem}});
    weir_schema *s = tt_schema_wm("t", "id BIGINT NOT NULL, ts TIMESTAMP(3), v BIGINT", NULL,
                                  "ts", watermark);
    unsigned char *rows;
    weir_table_env *env;
    weir_table *t = five_rows(job, s, &rows, &env);
    weir_table *p = weir_table_select(t, "v, id, ts");
    cr_assert_not_null(p, "%s", weir_job_error(job));
    weir_collect *c;
    cr_assert_not_null(weir_sink_collect(weir_table_to_stream(p), &c), "%s", weir_job_error(job));
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    char *out = tt_collected(weir_table_schema(p), c);
    const char *j = job_json(mem);
    cr_assert_not_null(j);
    *json = strdup(j);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(s);
    weir_diag_memory_destroy(mem);
    free(rows);
    return out;
}

/* WATERMARK FOR ts AS ts - INTERVAL 'd' (d > 0) proposed periodically is
 * the bounded strategy of d - 1 over the records' timestamps (they are the
 * rowtime's values): the timestamps operator runs it over whole batches,
 * not a generator call a row. Other expressions (ts itself, ts plus an
 * interval) stay the compiled expression. The rows are the same either
 * way; a projection's NULLs and values land in each output slot whatever
 * that slot held before. */
Test(calc, a_watermark_of_the_rowtime_minus_an_interval_is_the_bounded_strategy)
{
    static const char rows[] = "+I[10, 1, 1970-01-01 00:00:01.000]\n"
                               "+I[null, 2, 1970-01-01 00:00:01.500]\n"
                               "+I[30, 3, 1970-01-01 00:00:01.200]\n"
                               "+I[null, 4, 1970-01-01 00:00:03.000]\n"
                               "+I[50, 5, 1970-01-01 00:00:02.000]\n";
    char *json, *out = run_watermarked("ts - INTERVAL '101' MILLISECOND", &json);
    cr_assert_str_eq(out, rows);
    cr_assert(strstr(json, "\"strategy\":\"bounded\",\"bound_ms\":100,"), "%s", json);
    free(out);
    free(json);
    out = run_watermarked("ts - INTERVAL '1' SECOND", &json);
    cr_assert_str_eq(out, rows);
    cr_assert(strstr(json, "\"strategy\":\"bounded\",\"bound_ms\":999,"), "%s", json);
    free(out);
    free(json);
    static const char *const custom[] = {"ts", "ts + INTERVAL '1' SECOND"};
    for (int i = 0; i < 2; i++) {
        out = run_watermarked(custom[i], &json);
        cr_assert_str_eq(out, rows);
        cr_assert(strstr(json, "\"strategy\":\"custom\""), "%s: %s", custom[i], json);
        cr_assert_null(strstr(json, "\"strategy\":\"bounded\""), "%s: %s", custom[i], json);
        free(out);
        free(json);
    }
}

/* The rows of (id, ts, v) through weir_table_calc_exprs(pred, items) when
 * fused, else through weir_table_where(pred) then weir_table_select(items):
 * the rows out; *name the last node's name (the caller frees it). */
static char *run_calc(bool fused, const char *pred, const char *items, char **name)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .diag = {.level = WEIR_DIAG_OFF}});
    weir_schema *s = tt_schema("t", "id BIGINT NOT NULL, ts TIMESTAMP(3), v BIGINT", NULL);
    unsigned char *rows;
    weir_table_env *env;
    weir_table *t = five_rows(job, s, &rows, &env);
    weir_table *p;
    if (fused) {
        char err[256];
        weir_expr *e = NULL, *it[2] = {NULL, NULL};
        cr_assert_eq(weir_expr_compile(pred, s, &e, err, sizeof err), 0, "%s", err);
        const char *comma = strchr(items, ',');
        char first[64];
        snprintf(first, sizeof first, "%.*s", (int)(comma - items), items);
        cr_assert_eq(weir_expr_compile_item(first, s, 0, &it[0], err, sizeof err), 0, "%s", err);
        cr_assert_eq(weir_expr_compile_item(comma + 2, s, 0, &it[1], err, sizeof err), 0, "%s",
                     err);
        p = weir_table_calc_exprs(t, e, it, 2);
    } else {
        p = weir_table_select(weir_table_where(t, pred), items);
    }
    cr_assert_not_null(p, "%s", weir_job_error(job));
    *name = strdup(weir_table_node_name(p));
    weir_collect *c;
    cr_assert_not_null(weir_sink_collect(weir_table_to_stream(p), &c), "%s", weir_job_error(job));
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    char *out = tt_collected(weir_table_schema(p), c);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(s);
    free(rows);
    return out;
}

/* A filter and a projection in one Calc (Flink's Calc(select, where)): the
 * rows the predicate keeps (not FALSE, not NULL), projected, as a where
 * then a select give them; a predicate that is not BOOLEAN is refused. */
Test(calc, a_filter_and_a_projection_are_one_calc)
{
    static const char *const preds[] = {"id <> 3", "v > 15", "v IS NULL OR id = 1"};
    for (int i = 0; i < 3; i++) {
        char *n1, *n2;
        char *fused = run_calc(true, preds[i], "v * 2 AS w, id", &n1);
        char *apart = run_calc(false, preds[i], "v * 2 AS w, id", &n2);
        cr_assert_str_eq(fused, apart, "%s", preds[i]);
        cr_assert_str_neq(fused, "", "%s", preds[i]);
        char want[128];
        snprintf(want, sizeof want, "Calc(select=[v * 2 AS w, id], where=[%s])", preds[i]);
        cr_assert_str_eq(n1, want);
        cr_assert(strncmp(n2, "Calc(select=[", 13) == 0, "%s", n2);
        free(fused);
        free(apart);
        free(n1);
        free(n2);
    }
    weir_job *job = tu_job(&(weir_job_config){.diag = {.level = WEIR_DIAG_OFF}});
    weir_schema *s = tt_schema("t", "id BIGINT NOT NULL, v BIGINT", NULL);
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
    weir_table *t = weir_table_from_stream(
        env, weir_source_array(job, "", 0, weir_schema_row_size(s), NULL), s);
    char err[256];
    weir_expr *e = NULL, *it[1] = {NULL};
    cr_assert_eq(weir_expr_compile("v + 1", s, &e, err, sizeof err), 0, "%s", err);
    cr_assert_eq(weir_expr_compile_item("id", s, 0, &it[0], err, sizeof err), 0, "%s", err);
    cr_assert_null(weir_table_calc_exprs(t, e, it, 1));
    cr_assert(strstr(weir_job_error(job), "'v + 1' is BIGINT, not BOOLEAN"), "%s",
              weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(s);
}
