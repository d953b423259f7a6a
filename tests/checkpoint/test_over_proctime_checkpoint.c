/* test_over_proctime_checkpoint.c — a processing-time OVER (Flink's
 * ProcTime{Rows,Range}{Bounded,Unbounded}PrecedingFunction, weir_table_over_by_exprs
 * ordered by the processing-time attribute) stopped with a savepoint mid-run
 * and restored on the virtual clock, at the same parallelism and at another,
 * as test_over.c does for the rowtime OVER.
 *
 * A savepoint needs the system clock (weir/job.h), so the run that takes it
 * reads a paced generator on the system clock; the reference run and the
 * restored runs read it on the virtual clock, where a paced source's rows come
 * at their due times (a row's processing time its event time, at 1x). A ROWS
 * frame's values do not depend on the clock (each key's rows in one order,
 * from one source partition): the restored run emits only what the
 * uninterrupted one does (its frames begin with the rows restored, nothing
 * from the start again), and the two runs together emit all of it. A
 * RANGE frame's do: the restored job's clock goes on from the savepoint's
 * time (runtime/job.c), so its rows due before then come at once; once the
 * rows on time are past the range, its values are the uninterrupted run's.
 * Bounds: 400 events, 10 ms apart; the savepoint about a second in.
 */
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "table/table_testutil.h"

enum { NOVER = 3, NROWS = 400 };

static const weir_struct_field gen_fields[] = {
    WEIR_STRUCT_FIELD(weir_gen_event, key, "BIGINT NOT NULL"),
    WEIR_STRUCT_FIELD(weir_gen_event, value, "BIGINT NOT NULL"),
    WEIR_STRUCT_FIELD(weir_gen_event, timestamp, "TIMESTAMP(3) NOT NULL"),
};

typedef struct prun {
    atomic_int progress; /* rows out of the ROWS frame, counted as they go */
    weir_job *job;
    weir_table_env *env;
    weir_schema *schema;
    weir_table *t[NOVER];
    weir_collect *c[NOVER];
} prun;

/* The generator's table with proc AS PROCTIME() appended. */
static weir_table *with_proctime(prun *r, weir_table *t)
{
    const weir_schema *in = weir_table_schema(t);
    int n = weir_schema_ncolumns(in);
    weir_expr *items[8];
    weir_schema_builder *b = weir_schema_builder_create("gen");
    char err[256];
    for (int c = 0; c < n; c++) {
        weir_schema_column(b, weir_schema_column_name(in, c), weir_schema_column_type(in, c));
        char item[64];
        snprintf(item, sizeof item, "`%s`", weir_schema_column_name(in, c));
        cr_assert_eq(weir_expr_compile_item(item, in, 0, &items[c], err, sizeof err), 0, "%s",
                     err);
    }
    weir_schema_column(b, "proc", (weir_type){.id = WEIR_TYPE_TIMESTAMP_LTZ, .not_null = true});
    cr_assert_eq(weir_expr_compile_item("PROCTIME() AS proc", in, 0, &items[n], err, sizeof err),
                 0, "%s", err);
    weir_schema_proctime_attribute(b, "proc");
    weir_schema *declared;
    cr_assert_eq(weir_schema_build(b, &declared, err, sizeof err), 0, "%s", err);
    t = weir_table_computed_columns(t, items, n + 1, declared);
    weir_schema_destroy(declared);
    cr_assert(t && weir_table_proctime(t) == n, "%s", weir_job_error(r->job));
    return t;
}

static weir_table *over(prun *r, weir_table *t, weir_table_over_frame frame, int64_t preceding)
{
    const weir_schema *s = weir_table_schema(t);
    weir_expr *aggs[2];
    char err[256];
    cr_assert_eq(weir_expr_compile_item("SUM(`value`) AS s", s, 1, &aggs[0], err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(weir_expr_compile_item("COUNT(*) AS n", s, 1, &aggs[1], err, sizeof err), 0,
                 "%s", err);
    weir_table *o = weir_table_over_by_exprs(
        t, &(weir_table_over_window){.partition_by = "key", .frame = frame,
                                     .preceding = preceding},
        "proc", aggs, 2);
    cr_assert_not_null(o, "%s", weir_job_error(r->job));
    /* the clock's values out of the ROWS frames' rows (what the frames
     * computed stays); the RANGE frame's keep them, as its values depend
     * on them */
    o = weir_table_select(o, frame == WEIR_OVER_RANGE ? "key, `value`, `timestamp`, s, n, proc"
                                                      : "key, `value`, `timestamp`, s, n");
    cr_assert_not_null(o, "%s", weir_job_error(r->job));
    return o;
}

static void make(prun *r, const char *chk, const char *restore, int parallelism, bool virtual_clock,
                 double speed)
{
    r->job = tu_job(&(weir_job_config){
        .workers = 2, .parallelism = 1, .watermark_interval_ms = 5,
        .clock = virtual_clock ? WEIR_CLOCK_VIRTUAL : WEIR_CLOCK_SYSTEM,
        .diag = {.level = WEIR_DIAG_OFF},
        .checkpoint = {.dir = chk, .restore_from = restore}});
    cr_assert_eq(weir_table_env_create(r->job, &(weir_table_config){.parallelism = parallelism},
                                       &r->env), 0);
    weir_schema_builder *b = weir_schema_builder_create("gen");
    cr_assert_eq(weir_schema_bind_fields(b, sizeof(weir_gen_event), gen_fields, 3), 0);
    char err[256];
    cr_assert_eq(weir_schema_build(b, &r->schema, err, sizeof err), 0, "%s", err);
    weir_generator_config g = {.partitions = 1, .keys = 5, .rate = 100, .count = NROWS,
                               .pace = WEIR_GEN_PACED, .speed = speed, .seed = 7};
    weir_table *t = weir_table_from_stream(r->env, weir_source_generator(r->job, &g), r->schema);
    cr_assert_not_null(t, "%s", weir_job_error(r->job));
    t = with_proctime(r, t);
    r->t[0] = over(r, t, WEIR_OVER_ROWS, 3);
    r->t[1] = over(r, t, WEIR_OVER_ROWS_UNBOUNDED, 0);
    r->t[2] = over(r, t, WEIR_OVER_RANGE, 100);
    for (int i = 0; i < NOVER; i++) {
        weir_stream *s = weir_table_to_changelog_stream(r->t[i], WEIR_CHANGELOG_AS_PRODUCED);
        cr_assert_not_null(weir_sink_collect(s, &r->c[i]), "%s", weir_job_error(r->job));
    }
    cr_assert_not_null(weir_sink_callback(weir_table_stream(r->t[0]), tt_count_row, &r->progress),
                       "%s", weir_job_error(r->job));
}

static void pfree(prun *r)
{
    weir_job_destroy(r->job);
    weir_table_env_destroy(r->env);
    weir_schema_destroy(r->schema);
}

static int run_lines(prun *r, int i, char **out, int at)
{
    return tt_collect_lines(weir_table_schema(r->t[i]), r->c[i], out, at);
}

static void check_restore(prun *ref, prun *a, prun *b, int parallelism)
{
    for (int i = 0; i < 2; i++) {
        const char *what = weir_table_node_name(ref->t[i]);
        char **x = malloc(2 * NROWS * sizeof *x), **y = malloc(2 * NROWS * sizeof *y),
             **z = malloc(2 * NROWS * sizeof *z);
        int nx = run_lines(a, i, x, 0);
        cr_assert(nx > 0, "nothing before the savepoint");
        int nz = run_lines(b, i, z, 0);
        nx = run_lines(b, i, x, nx);
        int ny = run_lines(ref, i, y, 0);
        cr_assert_eq(ny, NROWS, "%s: the uninterrupted run emitted %d rows", what, ny);
        cr_assert(nz < ny, "%s: the restored run emitted all %d rows", what, ny);
        tt_check_restore_lines(what, parallelism, x, nx, y, ny, z, nz);
        tt_free_lines(x, nx);
        tt_free_lines(y, ny);
        tt_free_lines(z, nz);
    }
    /* the bounded RANGE: the restored run's clock goes on from the
     * savepoint's time, so the rows due before it come at once, the rest at
     * their due times (proc = `timestamp`, as in the uninterrupted run);
     * once those are 100 ms past the first of them, their frames hold only
     * rows of the restored run, and their values are the uninterrupted
     * run's. Every row read goes out but the last millisecond's (whose end
     * the input's end comes before). */
    const weir_schema *s = weir_table_schema(b->t[2]);
    size_t n = weir_collect_count(b->c[2]);
    cr_assert_geq(n + 5, weir_collect_count(b->c[0]), "RANGE at %d: %zu rows out of %zu",
                  parallelism, n, weir_collect_count(b->c[0]));
    const weir_schema *rs = weir_table_schema(ref->t[2]);
    int64_t on_time = INT64_MAX;
    for (size_t j = 0; j < n; j++) {
        const void *row = weir_collect_elem(b->c[2], j);
        int64_t ts = weir_row_get_int(s, row, 2), proc = weir_row_get_int(s, row, 5);
        if (proc == ts && ts < on_time)
            on_time = ts;
    }
    int checked = 0;
    for (size_t j = 0; j < n; j++) {
        const void *row = weir_collect_elem(b->c[2], j);
        int64_t ts = weir_row_get_int(s, row, 2);
        if (weir_row_get_int(s, row, 5) != ts || ts <= on_time + 100)
            continue;
        bool found = false;
        for (size_t k = 0; k < weir_collect_count(ref->c[2]) && !found; k++) {
            const void *x = weir_collect_elem(ref->c[2], k);
            found = weir_row_get_int(rs, x, 2) == ts && weir_row_get_int(rs, x, 0) ==
                    weir_row_get_int(s, row, 0);
            if (found)
                cr_assert(weir_row_get_int(rs, x, 3) == weir_row_get_int(s, row, 3) &&
                          weir_row_get_int(rs, x, 4) == weir_row_get_int(s, row, 4),
                          "RANGE at %d, the row at %lld: sum %lld count %lld, the uninterrupted "
                          "run's %lld %lld", parallelism, (long long)ts,
                          (long long)weir_row_get_int(s, row, 3),
                          (long long)weir_row_get_int(s, row, 4),
                          (long long)weir_row_get_int(rs, x, 3),
                          (long long)weir_row_get_int(rs, x, 4));
        }
        cr_assert(found, "RANGE at %d: a row at %lld the uninterrupted run did not emit",
                  parallelism, (long long)ts);
        checked++;
    }
    cr_assert_gt(checked, 100, "RANGE at %d: %d rows on time", parallelism, checked);
}

Test(over_proctime_checkpoint, a_savepoint_restores_on_the_virtual_clock, .timeout = 120)
{
    char dir[] = "/tmp/weir-proc-over-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char sp[512];
    snprintf(sp, sizeof sp, "%s/sp", dir);
    prun ref = {0};
    make(&ref, NULL, NULL, 2, true, 1);
    tu_run_ok(ref.job);
    prun a = {0};
    make(&a, dir, NULL, 2, false, 1);
    tu_runner rn;
    tu_runner_start(&rn, a.job);
    for (int i = 0; i < 3000 && atomic_load(&a.progress) < 100 && !atomic_load(&rn.done); i++)
        usleep(1000);
    int64_t id = 0;
    char why[512];
    int e = weir_job_savepoint(a.job, sp, true, &id, why, sizeof why);
    pthread_join(rn.thread, NULL);
    cr_assert_eq(e, 0, "savepoint: %s", why);
    cr_assert_eq(rn.result, WEIR_ECANCELED, "%s", weir_job_error(a.job));
    for (int p = 2; p <= 3; p++) {
        prun b = {0};
        make(&b, NULL, sp, p, true, 1);
        tu_run_ok(b.job);
        check_restore(&ref, &a, &b, p);
        pfree(&b);
    }
    pfree(&ref);
    pfree(&a);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
