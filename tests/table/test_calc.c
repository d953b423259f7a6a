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
