/* gen_table.h — a table of generated events (weir_source_generator) as rows
 * (k, v, ts, seq): key, value, timestamp (the rowtime, its watermark the
 * source's) and sequence number; the joins' checkpoint tests and the
 * capture's join test build their two sides from it.
 */
#ifndef WEIR_TESTS_GEN_TABLE_H
#define WEIR_TESTS_GEN_TABLE_H

#include <criterion/criterion.h>

#include "support/weir_testutil.h"
#include "weir.h"

/* A side's rows (k, v, ts, seq), its watermark the source's; a versioned
 * table's (a temporal join's right side) with its primary key k. */
static inline weir_schema *tu_gen_row_schema(const char *name, bool versioned)
{
    weir_schema_builder *b = weir_schema_builder_create(name);
    weir_schema_column_sql(b, "k", "BIGINT NOT NULL");
    weir_schema_column_sql(b, "v", "BIGINT NOT NULL");
    weir_schema_column_sql(b, "ts", "TIMESTAMP(3) NOT NULL");
    weir_schema_column_sql(b, "seq", "BIGINT NOT NULL");
    weir_schema_watermark(b, "ts", "SOURCE_WATERMARK()");
    if (versioned)
        weir_schema_primary_key(b, "k");
    weir_schema *s;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

static inline int tu_gen_to_row(const void *in, void *out, void *arg)
{
    const weir_schema *s = arg;
    const weir_gen_event *e = in;
    weir_row_init(s, out, WEIR_ROW_INSERT);
    weir_row_set_int(s, out, 0, e->key);
    weir_row_set_int(s, out, 1, e->value);
    weir_row_set_int(s, out, 2, e->timestamp);
    weir_row_set_int(s, out, 3, e->seq);
    return 0;
}

/* `count` generated events over 8 keys at 1000 a second (paced at `speed`),
 * event time their timestamps, as a table of rows of schema s
 * (tu_gen_row_schema). */
static inline weir_table *tu_gen_table(weir_job *job, weir_table_env *env, const char *name,
                                       weir_schema *s, int64_t count, uint64_t seed,
                                       double speed)
{
    weir_generator_config g = {.name = name, .partitions = 1, .keys = 8, .rate = 1000,
                               .pace = WEIR_GEN_PACED, .speed = speed, .count = count,
                               .seed = seed};
    weir_stream *st = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(0)};
    st = weir_stream_assign_timestamps(st, &ts);
    st = weir_stream_map(st, weir_schema_row_size(s), tu_gen_to_row, s);
    return weir_table_from_stream(env, st, s);
}

#endif
