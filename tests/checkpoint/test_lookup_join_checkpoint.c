/* test_lookup_join_checkpoint.c — a lookup join (table/table_lookup_join.c)
 * in checkpoints: it has no state of its own (each subtask loads the table
 * at its open, a restore too), so a job of a generated table looked up in a
 * table loaded from memory, LEFT with a filter, written exactly once into
 * part files, is stopped with a savepoint while it runs and resumed from it,
 * at the parallelism it had and at another; the committed output of both
 * runs is the output of a run that was never stopped (also with a reload
 * timer pending in the savepoint).
 */
#include <stdatomic.h>

#include "checkpoint/join_checkpoint_harness.h"

static weir_schema *side_schema(void)
{
    weir_schema_builder *b = weir_schema_builder_create("side");
    weir_schema_column_sql(b, "key", "BIGINT");
    weir_schema_column_sql(b, "w", "BIGINT");
    weir_schema *s;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

/* the table: keys 0..5 (the generator's 6 and 7 find nothing), key 2
 * twice, each with w = key * 10 + copy */
static atomic_int loads;
static int side_load(void *arg, weir_lookup_row_fn fn, void *fn_arg, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    const weir_schema *s = arg;
    atomic_fetch_add(&loads, 1);
    unsigned char row[256];
    for (int k = 0; k < 6; k++)
        for (int copy = 0; copy < (k == 2 ? 2 : 1); copy++) {
            weir_row_init(s, row, WEIR_ROW_INSERT);
            weir_row_set_int(s, row, 0, k);
            weir_row_set_int(s, row, 1, k * 10 + copy);
            int r = fn(row, fn_arg);
            if (r)
                return r;
        }
    return 0;
}

typedef struct built {
    int64_t reload_ms;
    weir_job *job;
    weir_table_env *env;
    weir_schema *ls, *ss;
} built;

static weir_job *build(void *arg, const char *out, const char *chk, const char *restore, int p,
                       double speed)
{
    built *b = arg;
    b->job = jch_job(chk, restore, p, &b->env);
    b->ls = tu_gen_row_schema("l", false);
    b->ss = side_schema();
    weir_table *t = tu_gen_table(b->job, b->env, "left", b->ls, 400, 11, speed);
    weir_lookup_source src = {.name = "side", .schema = b->ss, .load = side_load, .arg = b->ss,
                              .reload_ms = b->reload_ms};
    weir_table *j = weir_table_lookup_join(t, &src, WEIR_JOIN_LEFT, "l.k = side.key AND "
                                           "MOD(l.v, 3) <> MOD(side.w, 3)");
    jch_sink(b->job, j, out);
    return b->job;
}

static void unbuild(void *arg)
{
    built *b = arg;
    weir_job_destroy(b->job);
    weir_table_env_destroy(b->env);
    weir_schema_destroy(b->ls);
    weir_schema_destroy(b->ss);
}

static void before_stopped(void *arg)
{
    (void)arg;
    atomic_store(&loads, 0);
}

static void after_stopped(void *arg, int p1)
{
    (void)arg;
    cr_assert_eq(atomic_load(&loads), p1);
}

static void after_resumed(void *arg, int p1, int p2)
{
    (void)arg;
    cr_assert_eq(atomic_load(&loads), p1 + p2, "the restored subtasks load the table again");
}

/* about 400 ms of generated time at speed 1: stopped on the way */
static void stop_and_resume(int p1, int p2, int64_t reload_ms)
{
    built b = {.reload_ms = reload_ms};
    jch_stop_and_resume(&(jch_case){.build = build, .unbuild = unbuild, .arg = &b,
                                    .min_rows = 300, .stop_after_ms = 150,
                                    .before_stopped = before_stopped,
                                    .after_stopped = after_stopped,
                                    .after_resumed = after_resumed},
                        p1, p2);
}

Test(lookup_join_checkpoint, same_parallelism, .timeout = 60)
{
    stop_and_resume(2, 2, 0);
}

Test(lookup_join_checkpoint, rescaled, .timeout = 60)
{
    stop_and_resume(2, 3, 0);
}

/* a reload timer pending (an hour away, as the filesystem's default) when
 * the savepoint is taken: restored with the job's timers, or not, it does
 * not fire before the end */
Test(lookup_join_checkpoint, rescaled_with_a_reload_pending, .timeout = 60)
{
    stop_and_resume(3, 2, 3600 * 1000);
}
